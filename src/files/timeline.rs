//! Watch it learn: the snapshots a training run keeps of its weights at log-spaced steps
//! (0, 1, 2, 4, …, and the end), each with its training loss and a small held-out figure.
//!
//! A model folder with a timeline holds `timeline.json` (this module's [`Timeline`]) and one F16
//! safetensors file per snapshot under `timeline/`; the last snapshot is the shipped
//! `model.safetensors` itself. Every snapshot loads through the same validated loader.
//!
//! A model too big to keep its snapshots (en-zh: 10 MB each) keeps recordings instead: for a
//! fixed set of sentences, the answer the page would get from each snapshot (every attention
//! matrix, the decoding steps' probabilities, the default head's stages and the analysis), one
//! [`Recording`] file per snapshot. Only the last snapshot, the shipped weights, decodes anything.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The timeline's file in a model folder.
pub const TIMELINE_FILE: &str = "timeline.json";

/// The file of the snapshot taken before `step` (relative to the model folder).
pub fn snapshot_file(step: usize) -> String {
    format!("timeline/step-{step:06}.safetensors")
}

/// The file of the recording of the snapshot taken before `step` (gzip: JSON of floats shrinks
/// 2.4×).
pub fn recording_file(step: usize) -> String {
    format!("timeline/step-{step:06}.json.gz")
}

/// What a snapshot answered for each of the timeline's sentences: exactly what the page gets
/// from `Session.translate` with the default focus (`attnscope trace --json --analysis`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recording {
    /// The snapshot's step.
    pub step: usize,
    /// One answer per sentence of [`Timeline::sentences`], in its order.
    pub answers: Vec<serde_json::Value>,
}

/// A model's training history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// Model name.
    pub model: String,
    /// What `heldout` measures, e.g. "exact match".
    pub heldout_metric: String,
    /// How many held-out pairs it was measured on (a fixed subset).
    pub heldout_pairs: usize,
    /// The snapshots, by step.
    pub snapshots: Vec<Snapshot>,
    /// The sentences the recorded snapshots answered (none when every snapshot is weights).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sentences: Vec<String>,
}

/// One snapshot of the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Optimizer steps taken before these weights (0 = the initialisation).
    pub step: usize,
    /// Its weights file, or its recording's when `recorded`, relative to the model folder.
    pub file: String,
    /// Whether `file` is a [`Recording`] of the timeline's sentences instead of weights.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// The training loss logged at `loss_step` (the last step for the final weights).
    pub loss: f32,
    /// The line of `train_log.tsv` that `loss` comes from.
    pub loss_step: usize,
    /// The held-out figure of these weights, in [0, 1].
    pub heldout: f64,
}

/// The `timeline.json` of the model folder `dir` (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn read_timeline(dir: &std::path::Path) -> Result<Timeline> {
    let bytes = crate::files::folder::read_file(&dir.join(TIMELINE_FILE))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| Error::NotUtf8 {
        file: TIMELINE_FILE,
        message: e.to_string(),
    })?;
    Timeline::from_json(text)
}

impl Timeline {
    /// Parse `timeline.json`.
    pub fn from_json(text: &str) -> Result<Self> {
        let timeline: Self =
            serde_json::from_str(text).map_err(|e| Error::Timeline(e.to_string()))?;
        if timeline.snapshots.is_empty() {
            return Err(Error::Timeline("it lists no snapshot".into()));
        }
        // Snapshot files live inside the model folder: no absolute paths, no `..`.
        for snapshot in &timeline.snapshots {
            let inside = std::path::Path::new(&snapshot.file)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside || snapshot.file.is_empty() {
                return Err(Error::Timeline(format!(
                    "snapshot file {:?} is not a path inside the model folder",
                    snapshot.file
                )));
            }
        }
        Ok(timeline)
    }

    /// The snapshot taken at `step`.
    pub fn at(&self, step: usize) -> Result<&Snapshot> {
        self.snapshots
            .iter()
            .find(|s| s.step == step)
            .ok_or_else(|| {
                let steps: Vec<String> =
                    self.snapshots.iter().map(|s| s.step.to_string()).collect();
                Error::Timeline(format!(
                    "no snapshot at step {step}; there are {}",
                    steps.join(", ")
                ))
            })
    }
}
