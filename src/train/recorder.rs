//! The timeline recorder: a training run's snapshots (F16), each measured on held-out pairs,
//! and `timeline.json` at the end.

use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;

use super::data::{metrics, Pair};
use super::evaluate::translate_all;
use super::SnapshotPoint;
use crate::error::Result;
use crate::files::folder::{write, LoadedModel, ModelFiles, FILE_NAMES};
use crate::files::timeline::{read_timeline, snapshot_file, Snapshot, Timeline, TIMELINE_FILE};
use crate::files::weights::{replace_weights, save_weights};
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::text::TextTokenizer;

/// How many held-out pairs each timeline snapshot is measured on.
pub const TIMELINE_HELDOUT_PAIRS: usize = 100;

/// Writes a training run's snapshots (F16) and, after each, `timeline.json`.
pub(super) struct TimelineRecorder<'a> {
    out: &'a Path,
    config: &'a ModelConfig,
    src: &'a TextTokenizer,
    tgt: &'a TextTokenizer,
    pairs: &'a [Pair],
    snapshots: Vec<Snapshot>,
    /// The model the snapshots are measured with: loaded with the first one, then only its
    /// weights are replaced.
    measured: Option<LoadedModel>,
    /// Time spent saving and measuring snapshots (not training time).
    pub(super) elapsed: Duration,
}

impl<'a> TimelineRecorder<'a> {
    pub(super) fn new(
        out: &'a Path,
        config: &'a ModelConfig,
        src: &'a TextTokenizer,
        tgt: &'a TextTokenizer,
        pairs: &'a [Pair],
        resumed_step: Option<usize>,
    ) -> Result<Self> {
        // A resumed run keeps the snapshots taken before its checkpoint (timeline.json is
        // written after each one) and takes the rest again.
        let snapshots = match resumed_step {
            Some(step) if out.join(TIMELINE_FILE).is_file() => {
                let mut kept = read_timeline(out)?.snapshots;
                kept.retain(|s| s.step < step);
                kept
            }
            _ => vec![],
        };
        Ok(Self {
            out,
            config,
            src,
            tgt,
            pairs,
            snapshots,
            measured: None,
            elapsed: Duration::ZERO,
        })
    }

    /// Save one snapshot and measure it. The final weights are the model file itself.
    pub(super) fn record(&mut self, point: SnapshotPoint, mut model: Transformer) -> Result<()> {
        let started = Instant::now();
        let weights = save_weights(self.config, &mut model, true)?;
        let file = if point.last {
            FILE_NAMES.weights.to_string()
        } else {
            let file = snapshot_file(point.step);
            write(self.out, &file, &weights)?;
            file
        };
        // Measured on the F16 weights, exactly as they are shipped.
        let device = Device::flex();
        let loaded = match self.measured.take() {
            Some(mut loaded) => {
                replace_weights(&loaded.config, &mut loaded.model, &weights, &device)?;
                loaded
            }
            None => LoadedModel::load(
                ModelFiles {
                    config: self.config.to_json()?.as_bytes(),
                    weights: &weights,
                    src_tokenizer: self.src.to_json()?.as_bytes(),
                    tgt_tokenizer: self.tgt.to_json()?.as_bytes(),
                },
                &device,
            )?,
        };
        let sources: Vec<&str> = self.pairs.iter().map(|p| p.source.as_str()).collect();
        let outputs = translate_all(&loaded, &sources)?;
        let references: Vec<String> = self.pairs.iter().map(|p| p.target.clone()).collect();
        self.snapshots.push(Snapshot {
            step: point.step,
            file,
            recorded: false,
            loss: point.loss,
            loss_step: point.loss_step,
            heldout: metrics::exact_match(&outputs, &references),
        });
        self.measured = Some(loaded);
        self.write()?;
        self.elapsed += started.elapsed();
        Ok(())
    }

    /// Write `timeline.json` (after every snapshot, so that a resumed run finds them).
    pub(super) fn write(&self) -> Result<()> {
        let timeline = Timeline {
            model: self.config.name.clone(),
            heldout_metric: "exact match".into(),
            heldout_pairs: self.pairs.len(),
            snapshots: self.snapshots.clone(),
            sentences: vec![],
        };
        let json = serde_json::to_string_pretty(&timeline)?;
        write(self.out, TIMELINE_FILE, json.as_bytes())
    }
}
