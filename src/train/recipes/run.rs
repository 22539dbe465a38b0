//! How a recipe is carried out, the same for the three: tokenizers from the training pairs,
//! the preset config with the recipe options' overrides, the training loop (resumed from a
//! checkpoint where asked, with its timeline where the recipe keeps one), the model folder, and
//! its held-out figures.

use std::path::Path;
use std::time::{Duration, Instant};

use super::RecipeOptions;
use crate::error::{Error, Result};
use crate::files::folder::{write, ModelFolder};
use crate::files::weights::save_weights;
use crate::model::config::ModelConfig;
use crate::text::{build_tokenizer, Granularity, TextTokenizer};
use crate::train::data::Pair;
use crate::train::evaluate::{evaluate, Metrics};
use crate::train::recorder::TimelineRecorder;
use crate::train::sets::Heldout;
use crate::train::{resume_point, tokenize_pairs, train, TrainOptions};

/// Source and target vocabularies from the training pairs, each cut at its granularity and
/// keeping pieces seen at least `min_count` times (BPE: merges seen that often).
fn tokenizers(
    pairs: &[Pair],
    (source, source_min_count): (Granularity, usize),
    (target, target_min_count): (Granularity, usize),
) -> Result<(TextTokenizer, TextTokenizer)> {
    let src = build_tokenizer(
        source,
        pairs.iter().map(|p| p.source.as_str()),
        source_min_count,
    )?;
    let tgt = build_tokenizer(
        target,
        pairs.iter().map(|p| p.target.as_str()),
        target_min_count,
    )?;
    Ok((src, tgt))
}

/// What one recipe trains: the model's config, its tokenizers, how to train, where to write.
pub(super) struct Run<'a> {
    /// The model folder to write.
    pub(super) out: &'a Path,
    /// The preset's config, with the recipe's overrides.
    pub(super) config: ModelConfig,
    /// The source tokenizer, built from the training pairs.
    pub(super) src: TextTokenizer,
    /// The target tokenizer.
    pub(super) tgt: TextTokenizer,
    /// How to train.
    pub(super) options: TrainOptions,
}

impl<'a> Run<'a> {
    /// Tokenizers from the training pairs (each side's granularity and minimum count), then the
    /// preset config for their vocabulary sizes.
    pub(super) fn prepare(
        out: &'a Path,
        train_pairs: &[Pair],
        (source, target): ((Granularity, usize), (Granularity, usize)),
        preset: fn(usize, usize) -> ModelConfig,
        options: TrainOptions,
    ) -> Result<Self> {
        let (src, tgt) = tokenizers(train_pairs, source, target)?;
        Ok(Self {
            out,
            config: preset(src.vocab_size(), tgt.vocab_size()),
            src,
            tgt,
            options,
        })
    }

    /// This run with the recipe options' overrides of its config: the output projection tied
    /// to the target embedding or not, the dropout, the layers of each stack and their width,
    /// where given.
    pub(super) fn overridden(mut self, recipe: &RecipeOptions) -> Self {
        if let Some(tie) = recipe.tie_output {
            self.config.tie_output = tie;
        }
        if let Some(layers) = recipe.layers {
            self.config.n_encoder_layers = layers;
            self.config.n_decoder_layers = layers;
        }
        if let Some(width) = recipe.width {
            self.config.d_model = width;
            self.config.d_ff = 4 * width;
        }
        if let Some(dropout) = recipe.dropout {
            self.config.dropout = dropout;
        }
        self
    }
}

/// Train `run` on `train_pairs`, write the model folder, evaluate on `heldout`; with
/// `timeline_pairs`, also keep the training snapshots measured on those pairs.
pub(super) fn build(
    run: &Run<'_>,
    train_pairs: &[Pair],
    heldout: &[Heldout],
    timeline_pairs: Option<&[Pair]>,
) -> Result<Metrics> {
    let Run {
        out,
        config,
        src,
        tgt,
        options,
    } = run;
    let (out, config, src, tgt) = (*out, config, src, tgt);
    let (examples, dropped) = tokenize_pairs(train_pairs, config, src, tgt)?;
    eprintln!(
        "{}: {} training pairs ({dropped} too long), vocab {} → {}, {} held out",
        config.name,
        examples.len(),
        src.vocab_size(),
        tgt.vocab_size(),
        heldout.iter().map(|h| h.pairs.len()).sum::<usize>()
    );
    // A resumed run keeps the log lines before its checkpoint and appends the rest.
    // Refused here, before the loss log is cut back to the checkpoint's step, if at all.
    let (_, resumed) = resume_point(config, &examples, options)?;
    let before = resumed.as_ref().map_or(0.0, |state| state.seconds);
    let mut log = open_log(out, resumed.as_ref().map(|state| state.step))?;
    let started = Instant::now();
    let mut snapshot_time = Duration::ZERO;
    let mut model = match timeline_pairs {
        Some(pairs) => {
            let resumed_step = resumed.as_ref().map(|state| state.step);
            let mut recorder = TimelineRecorder::new(out, config, src, tgt, pairs, resumed_step)?;
            let model = train(
                config,
                &examples,
                options,
                &mut log,
                Some(&mut |point, model| recorder.record(point, model)),
            )?;
            snapshot_time = recorder.elapsed;
            recorder.write()?;
            model
        }
        None => train(config, &examples, options, &mut log, None)?,
    };
    let train_seconds = before + (started.elapsed() - snapshot_time).as_secs_f64();
    drop(log);
    ModelFolder {
        config: config.to_json()?.into_bytes(),
        weights: save_weights(config, &mut model, true)?,
        src_tokenizer: src.to_json()?.into_bytes(),
        tgt_tokenizer: tgt.to_json()?.into_bytes(),
    }
    .write(out)?;
    let mut metrics = evaluate(out, heldout)?;
    metrics.train_pairs = examples.len();
    metrics.train_seconds = train_seconds;
    Ok(metrics)
}

/// `<out>/metrics.json`.
pub(super) fn write_metrics(out: &Path, metrics: &Metrics) -> Result<()> {
    let json = serde_json::to_string_pretty(metrics)?;
    write(out, "metrics.json", json.as_bytes())
}

/// `<out>/train_log.tsv`, for a new run or, after `resumed_step`, with the lines before that
/// step kept and the rest appended.
fn open_log(out: &Path, resumed_step: Option<usize>) -> Result<std::io::BufWriter<std::fs::File>> {
    std::fs::create_dir_all(out).map_err(|e| Error::Io {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    let log_path = out.join("train_log.tsv");
    let io_error = |e: std::io::Error| Error::Io {
        path: log_path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(step) = resumed_step {
        let text = std::fs::read_to_string(&log_path).map_err(io_error)?;
        let kept: String = text
            .lines()
            .take(step + 1)
            .flat_map(|line| [line, "\n"])
            .collect();
        std::fs::write(&log_path, kept).map_err(io_error)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(resumed_step.is_some())
        .write(true)
        .truncate(resumed_step.is_none())
        .open(&log_path)
        .map_err(io_error)?;
    Ok(std::io::BufWriter::new(file))
}
