//! Training on the CPU with burn's autodiff (native only), deterministic from a seed.
//!
//! Adam (β₂ = 0.98) with linear warm-up and cosine decay, label-smoothed cross-entropy over
//! non-pad targets, batches of similar length to cut padding.

//!
//! This file is the loop; `checkpoint` saves and resumes it, `examples` tokenizes and batches
//! the pairs, `recipes` holds the shipped models' settings, `sets` their data, `evaluate` the
//! held-out figures, `loss` a saved model's cross-entropy and `recorder` the timeline of
//! snapshots.

pub mod agreement;
mod checkpoint;
pub mod data;
pub mod dictionary;
pub mod evaluate;
mod examples;
pub mod loss;
mod parallel;
pub mod recipes;
mod recorder;
pub mod recording;
pub mod sets;

pub use checkpoint::{read_checkpoint, CheckpointState};
pub use examples::{tokenize_pairs, Example};

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor};

use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::session::sampling::Rng;
use checkpoint::{restore, resume_point, write_checkpoint};
use examples::{make_batches, padded};

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// Passes over the data.
    pub epochs: usize,
    /// Sentences per batch.
    pub batch_size: usize,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Warm-up steps.
    pub warmup_steps: usize,
    /// Label smoothing ε.
    pub label_smoothing: f32,
    /// Seed of the initialisation, the shuffles and dropout.
    pub seed: u64,
    /// Stop early once this much time has passed.
    pub time_limit: Option<Duration>,
    /// Show a progress bar.
    pub progress: bool,
    /// Where to write a checkpoint after every epoch, and resume from if one is there and was
    /// written with the same `run_settings`.
    pub checkpoints: Option<PathBuf>,
    /// Stop after this many epochs (counted from the first, resumed ones included) while the
    /// schedule still spans `epochs`: a planned interruption, to be resumed later.
    pub stop_after_epochs: Option<usize>,
    /// Threads that share each batch (data parallel). 1 is the single-threaded loop, whose
    /// dropout draws from burn's global generator; with more, each thread draws from its own
    /// (`model::dropout`), so the same seed trains other weights than with 1.
    pub threads: usize,
}

/// Label-smoothed cross-entropy, averaged over non-pad target positions.
///
/// # Shapes
/// `logits: [batch, len, vocab]`, `targets: [batch, len]` → a one-element tensor.
pub fn loss(logits: Tensor<3>, targets: Tensor<2, Int>, pad: u32, smoothing: f32) -> Tensor<1> {
    let (sum, count) = loss_parts(logits, targets, pad, smoothing);
    sum / count
}

/// The label-smoothed cross-entropy summed over non-pad target positions, and their count.
fn loss_parts(
    logits: Tensor<3>,
    targets: Tensor<2, Int>,
    pad: u32,
    smoothing: f32,
) -> (Tensor<1>, Tensor<1>) {
    let [batch, len, _] = logits.dims();
    let log_probs = log_softmax(logits, 2); // [batch, len, vocab]
    let nll = log_probs
        .clone()
        .gather(2, targets.clone().reshape([batch, len, 1]))
        .reshape([batch, len])
        .neg();
    let uniform = log_probs.mean_dim(2).reshape([batch, len]).neg(); // cross-entropy with the uniform distribution
    let per_token = nll.mul_scalar(1.0 - smoothing) + uniform.mul_scalar(smoothing);
    let keep = targets.equal_elem(pad as i64).bool_not().float(); // [batch, len]
    ((per_token * keep.clone()).sum(), keep.sum())
}

fn learning_rate(options: &TrainOptions, step: usize, total: usize) -> f64 {
    let warmup = options.warmup_steps.max(1);
    if step < warmup {
        return options.learning_rate * (step + 1) as f64 / warmup as f64;
    }
    let progress = (step - warmup) as f64 / (total.saturating_sub(warmup)).max(1) as f64;
    let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress.min(1.0)).cos());
    options.learning_rate * (0.05 + 0.95 * cosine)
}

/// Where a training run's snapshot was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapshotPoint {
    /// Optimizer steps taken before these weights (0 = the initialisation).
    pub step: usize,
    /// The training loss logged nearest to these weights: at `step` itself, or, for the final
    /// weights, at the last step.
    pub loss: f32,
    /// The log line `loss` comes from.
    pub loss_step: usize,
    /// Whether these are the final weights (the ones the model folder ships).
    pub last: bool,
}

/// Called with the weights at `0, 1, 2, 4, …` steps (before that step's update) and once at
/// the end. It sees the weights only: training goes on exactly as without it.
pub type SnapshotSink<'a> = dyn FnMut(SnapshotPoint, Transformer) -> Result<()> + 'a;

/// Whether a snapshot is taken before `step`: 0, then every power of two.
pub fn is_snapshot_step(step: usize) -> bool {
    step == 0 || step.is_power_of_two()
}

/// Train a fresh model; writes one `step\tepoch\tloss\tlr\tseconds` line per step to `log`,
/// and hands `snapshots` the weights at log-spaced steps when given.
///
/// With `options.checkpoints`, a checkpoint is written after every epoch, and a run that finds
/// one there resumes from it (refused when the checkpoint's `run_settings` differ from this
/// run's): `log` then only gets the lines after the checkpoint's step. A resumed run ends
/// exactly as an uninterrupted one (the dropout generator is re-seeded from the seed and the
/// epoch at every epoch start). A resumed run hands out the snapshots after its checkpoint.
pub fn train(
    config: &ModelConfig,
    examples: &[Example],
    options: &TrainOptions,
    log: &mut dyn Write,
    mut snapshots: Option<&mut SnapshotSink<'_>>,
) -> Result<Transformer> {
    if examples.is_empty() {
        return Err(Error::Training("no training examples".into()));
    }
    let device = Device::flex().autodiff();
    device.seed(options.seed);
    let mut rng = Rng::new(options.seed);
    // A tied model trains its target embedding as the output projection too.
    let mut model = Transformer::new(config, &device).tied_in_graph(config.tie_output);
    let mut optimizer = AdamConfig::new()
        .with_beta_2(0.98)
        .with_epsilon(1e-9)
        .init();
    let (settings, resumed) = resume_point(config, examples, options)?;
    let steps_per_epoch = examples.len().div_ceil(options.batch_size.max(1));
    let total = steps_per_epoch * options.epochs;
    let bar = progress_bar(options.progress, total)?;
    let mut progress = Progress::new();
    let mut first_epoch = 0;
    match (&resumed, &options.checkpoints) {
        (Some(state), Some(dir)) => {
            optimizer = restore(dir, state, config, &mut model, optimizer, &device)?;
            model = model.tied_in_graph(config.tie_output);
            rng = Rng::new(state.rng);
            first_epoch = state.epoch;
            progress.resume(state);
            bar.set_position(progress.step as u64);
            bar.println(format!(
                "resuming from {} at epoch {first_epoch}, step {}",
                dir.display(),
                progress.step
            ));
        }
        _ => writeln!(log, "step\tepoch\tloss\tlr\tseconds").map_err(write_error)?,
    }
    'epochs: for epoch in first_epoch..options.epochs {
        if options.stop_after_epochs.is_some_and(|n| epoch >= n) {
            bar.println(format!("stopping before epoch {epoch}, as asked"));
            break;
        }
        device.seed(options.seed.wrapping_add(epoch as u64 + 1));
        for batch in make_batches(examples, options.batch_size, &mut rng) {
            if options
                .time_limit
                .is_some_and(|limit| progress.trained() > limit)
            {
                let step = progress.step;
                bar.println(format!(
                    "time limit reached after {step} steps (epoch {epoch})"
                ));
                break 'epochs;
            }
            let step = progress.step;
            let (value, grads) = batch_gradients(&model, config, examples, &batch, options, step)?;
            progress.last_loss = Some((step, value));
            if let Some(sink) = snapshots.as_deref_mut().filter(|_| is_snapshot_step(step)) {
                let point = SnapshotPoint {
                    step,
                    loss: value,
                    loss_step: step,
                    last: false,
                };
                let handed = Instant::now();
                sink(point, model.valid())?;
                progress.in_snapshots += handed.elapsed();
            }
            let lr = learning_rate(options, step, total);
            model = optimizer.step(lr, model, grads);
            progress.log_step(log, &bar, epoch, value, lr)?;
        }
        if let Some(dir) = &options.checkpoints {
            log.flush().map_err(write_error)?;
            let state = progress.checkpoint(epoch + 1, &rng);
            write_checkpoint(dir, config, &mut model, &optimizer, state, &settings)?;
        }
    }
    bar.finish();
    let model = model.valid();
    if let (Some(sink), Some((loss_step, loss))) = (snapshots, progress.last_loss) {
        let point = SnapshotPoint {
            step: progress.step,
            loss,
            loss_step,
            last: true,
        };
        sink(point, model.clone())?;
    }
    Ok(model)
}

/// An error writing the loss log.
fn write_error(e: std::io::Error) -> Error {
    Error::Training(format!("cannot write the loss log: {e}"))
}

/// The progress bar (hidden unless `shown`).
fn progress_bar(shown: bool, total: usize) -> Result<indicatif::ProgressBar> {
    let bar = if shown {
        indicatif::ProgressBar::new(total as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} steps, ETA {eta} {msg}",
        )
        .map_err(|e| Error::Training(e.to_string()))?,
    );
    Ok(bar)
}

/// One step's mean token loss over `batch` (indices into `examples`) and its gradients: on
/// `options.threads` threads, each with its own dropout generator seeded from the seed, `step`
/// and its place, or with 1 on this thread, drawing from burn's global generator.
pub fn batch_gradients(
    model: &Transformer,
    config: &ModelConfig,
    examples: &[Example],
    batch: &[usize],
    options: &TrainOptions,
    step: usize,
) -> Result<(f32, GradientsParams)> {
    let smoothing = options.label_smoothing;
    let loss_parts = |model: &Transformer, rows: &[usize], device: &Device| {
        batch_loss_parts(model, config, examples, rows, smoothing, device)
    };
    if options.threads > 1 {
        let tokens = batch.iter().map(|&i| examples[i].tgt.len() - 1).sum();
        return parallel::step(model, batch, tokens, options, step, loss_parts);
    }
    let device = Device::flex().autodiff();
    let (sum, count) = loss_parts(model, batch, &device);
    Ok(backward(sum / count, model))
}

/// The value of `loss` and its gradients with respect to `model`'s parameters.
fn backward(loss: Tensor<1>, model: &Transformer) -> (f32, GradientsParams) {
    let value: f32 = loss.clone().into_scalar();
    (value, GradientsParams::from_grads(loss.backward(), model))
}

/// The summed token loss of one batch of `examples` (teacher forcing: the target shifted by
/// one), label-smoothed by `smoothing`, and its count of target tokens.
fn batch_loss_parts(
    model: &Transformer,
    config: &ModelConfig,
    examples: &[Example],
    batch: &[usize],
    smoothing: f32,
    device: &Device,
) -> (Tensor<1>, Tensor<1>) {
    let src_rows: Vec<&[u32]> = batch.iter().map(|&i| examples[i].src.as_slice()).collect();
    let tgt_in: Vec<&[u32]> = batch
        .iter()
        .map(|&i| &examples[i].tgt[..examples[i].tgt.len() - 1])
        .collect();
    let tgt_out: Vec<&[u32]> = batch.iter().map(|&i| &examples[i].tgt[1..]).collect();
    let src = padded(&src_rows, config.pad_id, device);
    let tgt_input = padded(&tgt_in, config.pad_id, device);
    let targets = padded(&tgt_out, config.pad_id, device);
    let encoded = model.encode(src, None);
    let output = model.decode(tgt_input, &encoded, None);
    loss_parts(output.logits, targets, config.pad_id, smoothing)
}

/// Where the loop stands: steps taken, losses, and the training time (of this run, after any
/// before a resumption, less the time spent handing out snapshots).
struct Progress {
    step: usize,
    smoothed: Option<f32>,
    last_loss: Option<(usize, f32)>,
    /// Training time of the run(s) before a resumption.
    before: Duration,
    /// Time spent handing out snapshots (not training time).
    in_snapshots: Duration,
    started: Instant,
}

impl Progress {
    fn new() -> Self {
        Self {
            step: 0,
            smoothed: None,
            last_loss: None,
            before: Duration::ZERO,
            in_snapshots: Duration::ZERO,
            started: Instant::now(),
        }
    }

    /// Continue where a checkpoint left off.
    fn resume(&mut self, state: &CheckpointState) {
        self.step = state.step;
        self.last_loss = state.last_loss;
        self.smoothed = state.last_loss.map(|(_, loss)| loss);
        self.before = Duration::from_secs_f64(state.seconds);
    }

    /// Training time so far.
    fn trained(&self) -> Duration {
        self.before + self.started.elapsed() - self.in_snapshots
    }

    /// Log one step's line, move the bar, count the step.
    fn log_step(
        &mut self,
        log: &mut dyn Write,
        bar: &indicatif::ProgressBar,
        epoch: usize,
        value: f32,
        lr: f64,
    ) -> Result<()> {
        let average = self
            .smoothed
            .map_or(value, |s: f32| 0.98 * s + 0.02 * value);
        self.smoothed = Some(average);
        writeln!(
            log,
            "{}\t{epoch}\t{value:.5}\t{lr:.6}\t{:.1}",
            self.step,
            self.trained().as_secs_f64()
        )
        .map_err(write_error)?;
        bar.set_message(format!("epoch {} loss {average:.3}", epoch + 1));
        bar.inc(1);
        self.step += 1;
        Ok(())
    }

    /// The state a checkpoint taken now records, before `epoch`.
    fn checkpoint(&self, epoch: usize, rng: &Rng) -> CheckpointState {
        CheckpointState {
            epoch,
            step: self.step,
            rng: rng.state(),
            seconds: self.trained().as_secs_f64(),
            last_loss: self.last_loss,
            param_ids: std::collections::BTreeMap::new(),
            settings: None,
        }
    }
}
