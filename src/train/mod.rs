//! Training on the CPU with burn's autodiff (native only), deterministic from a seed.
//!
//! Adam (β₂ = 0.98) with linear warm-up and cosine decay, label-smoothed cross-entropy over
//! non-pad targets, batches of similar length to cut padding.

pub mod data;
pub mod recipes;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::error::{Error, Result};
use crate::files::weights::{param_ids, replace_weights, save_weights, set_param_ids};
use crate::model::config::ModelConfig;
use crate::model::{KeyValue, Transformer};
use crate::session::sampling::{next_token, Rng, Sampling};
use crate::text::{join_pieces, TextTokenizer};
use crate::train::data::{shuffle, Pair};

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
    /// Where to write a checkpoint after every epoch, and resume from if one is there.
    pub checkpoints: Option<PathBuf>,
    /// Stop after this many epochs (counted from the first, resumed ones included) while the
    /// schedule still spans `epochs`: a planned interruption, to be resumed later.
    pub stop_after_epochs: Option<usize>,
}

/// Where a checkpointed run stands at the start of an epoch (`state.json` in the checkpoint
/// folder, next to `weights.safetensors` (F32) and `optimizer.bpk`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CheckpointState {
    /// The epoch to run next.
    pub epoch: usize,
    /// Optimizer steps taken.
    pub step: usize,
    /// The shuffling generator's state.
    pub rng: u64,
    /// Training seconds so far.
    pub seconds: f64,
    /// The last logged (step, loss).
    pub last_loss: Option<(usize, f32)>,
    /// Each parameter's id, by tensor name (the optimizer state is keyed by them).
    pub param_ids: BTreeMap<String, u64>,
}

const CHECKPOINT_STATE: &str = "state.json";
const CHECKPOINT_WEIGHTS: &str = "weights.safetensors";
const CHECKPOINT_OPTIMIZER: &str = "optimizer.bpk";

fn checkpoint_error(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Training(format!("checkpoint {}: {e}", dir.display()))
}

/// Read a checkpoint folder's state, if it holds a complete checkpoint.
pub fn read_checkpoint(dir: &Path) -> Result<Option<CheckpointState>> {
    let path = dir.join(CHECKPOINT_STATE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| checkpoint_error(dir, e))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| checkpoint_error(dir, e))
}

fn write_checkpoint(
    dir: &Path,
    config: &ModelConfig,
    model: &mut Transformer,
    optimizer: &burn::optim::ModuleOptimizer,
    mut state: CheckpointState,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| checkpoint_error(dir, e))?;
    state.param_ids = param_ids(config, model)?;
    let weights = save_weights(config, model, false)?;
    // The state file goes last and by rename: a run killed half-way leaves the old checkpoint.
    std::fs::write(dir.join(CHECKPOINT_WEIGHTS), weights).map_err(|e| checkpoint_error(dir, e))?;
    optimizer
        .save(dir.join(CHECKPOINT_OPTIMIZER))
        .map_err(|e| checkpoint_error(dir, format!("{e:?}")))?;
    let json = serde_json::to_string_pretty(&state).map_err(|e| checkpoint_error(dir, e))?;
    let partial = dir.join("state.json.partial");
    std::fs::write(&partial, json).map_err(|e| checkpoint_error(dir, e))?;
    std::fs::rename(&partial, dir.join(CHECKPOINT_STATE)).map_err(|e| checkpoint_error(dir, e))
}

/// One tokenized example.
#[derive(Clone, Debug)]
pub struct Example {
    /// Source ids ending with `</s>`.
    pub src: Vec<u32>,
    /// `<s>` target ids `</s>`.
    pub tgt: Vec<u32>,
}

/// Tokenize pairs; those too long for `max_len` are dropped (returned count).
pub fn tokenize_pairs(
    pairs: &[Pair],
    config: &ModelConfig,
    src: &TextTokenizer,
    tgt: &TextTokenizer,
) -> Result<(Vec<Example>, usize)> {
    let mut examples = vec![];
    let mut dropped = 0;
    for pair in pairs {
        let mut s = src.encode(&pair.source)?.ids;
        s.push(config.eos_id);
        let mut t = vec![config.bos_id];
        t.extend(tgt.encode(&pair.target)?.ids);
        t.push(config.eos_id);
        if s.len() > config.max_len || t.len() > config.max_len {
            dropped += 1;
        } else {
            examples.push(Example { src: s, tgt: t });
        }
    }
    Ok((examples, dropped))
}

fn padded(rows: &[&[u32]], pad: u32, device: &Device) -> Tensor<2, Int> {
    let len = rows.iter().map(|r| r.len()).max().unwrap_or(1);
    let data: Vec<i64> = rows
        .iter()
        .flat_map(|r| {
            r.iter()
                .map(|&v| v as i64)
                .chain(std::iter::repeat_n(pad as i64, len - r.len()))
        })
        .collect();
    Tensor::from_data(TensorData::new(data, [rows.len(), len]), device)
}

/// Batches of indices into `examples`, grouped by length.
fn make_batches(examples: &[Example], batch_size: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..examples.len()).collect();
    shuffle(&mut order, rng);
    // Sort by length (stable, so equal lengths stay shuffled), then cut into batches.
    order.sort_by_key(|&i| (examples[i].src.len(), examples[i].tgt.len()));
    let mut batches: Vec<Vec<usize>> = order
        .chunks(batch_size.max(1))
        .map(|c| c.to_vec())
        .collect();
    shuffle(&mut batches, rng);
    batches
}

/// Label-smoothed cross-entropy, averaged over non-pad target positions.
///
/// # Shapes
/// `logits: [batch, len, vocab]`, `targets: [batch, len]` → a one-element tensor.
pub fn loss(logits: Tensor<3>, targets: Tensor<2, Int>, pad: u32, smoothing: f32) -> Tensor<1> {
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
    (per_token * keep.clone()).sum() / keep.sum()
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
/// one there resumes from it: `log` then only gets the lines after the checkpoint's step. A
/// resumed run ends exactly as an uninterrupted one (the dropout generator is re-seeded from
/// the seed and the epoch at every epoch start). Snapshots need a run from the start.
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
    let mut model = Transformer::new(config, &device);
    let mut optimizer = AdamConfig::new()
        .with_beta_2(0.98)
        .with_epsilon(1e-9)
        .init();
    let resumed = match &options.checkpoints {
        Some(dir) => read_checkpoint(dir)?,
        None => None,
    };
    if resumed.is_some() && snapshots.is_some() {
        return Err(Error::Training(
            "a run with snapshots cannot resume from a checkpoint".into(),
        ));
    }
    let steps_per_epoch = examples.len().div_ceil(options.batch_size.max(1));
    let total = steps_per_epoch * options.epochs;
    let bar = if options.progress {
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
    let started = Instant::now();
    let write_error =
        |e: std::io::Error| Error::Training(format!("cannot write the loss log: {e}"));
    let mut step = 0;
    let mut first_epoch = 0;
    let mut smoothed = None;
    let mut last_loss = None;
    // Training time of the run(s) before a resumption.
    let mut before = Duration::ZERO;
    match (&resumed, &options.checkpoints) {
        (Some(state), Some(dir)) => {
            let weights = std::fs::read(dir.join(CHECKPOINT_WEIGHTS))
                .map_err(|e| checkpoint_error(dir, e))?;
            replace_weights(config, &mut model, &weights, &device)?;
            set_param_ids(config, &mut model, &state.param_ids)?;
            optimizer = optimizer
                .load(dir.join(CHECKPOINT_OPTIMIZER))
                .map_err(|e| checkpoint_error(dir, format!("{e:?}")))?;
            rng = Rng::new(state.rng);
            step = state.step;
            first_epoch = state.epoch;
            last_loss = state.last_loss;
            smoothed = state.last_loss.map(|(_, loss)| loss);
            before = Duration::from_secs_f64(state.seconds);
            bar.set_position(step as u64);
            bar.println(format!(
                "resuming from {} at epoch {first_epoch}, step {step}",
                dir.display()
            ));
        }
        _ => writeln!(log, "step\tepoch\tloss\tlr\tseconds").map_err(write_error)?,
    }
    // Time spent handing out snapshots is not training time.
    let mut in_snapshots = Duration::ZERO;
    let trained = |in_snapshots: Duration| before + started.elapsed() - in_snapshots;
    'epochs: for epoch in first_epoch..options.epochs {
        if options.stop_after_epochs.is_some_and(|n| epoch >= n) {
            bar.println(format!("stopping before epoch {epoch}, as asked"));
            break;
        }
        device.seed(options.seed.wrapping_add(epoch as u64 + 1));
        for batch in make_batches(examples, options.batch_size, &mut rng) {
            if options
                .time_limit
                .is_some_and(|limit| trained(in_snapshots) > limit)
            {
                bar.println(format!(
                    "time limit reached after {step} steps (epoch {epoch})"
                ));
                break 'epochs;
            }
            let src_rows: Vec<&[u32]> = batch.iter().map(|&i| examples[i].src.as_slice()).collect();
            let tgt_in: Vec<&[u32]> = batch
                .iter()
                .map(|&i| &examples[i].tgt[..examples[i].tgt.len() - 1])
                .collect();
            let tgt_out: Vec<&[u32]> = batch.iter().map(|&i| &examples[i].tgt[1..]).collect();
            let src = padded(&src_rows, config.pad_id, &device);
            let tgt_input = padded(&tgt_in, config.pad_id, &device);
            let targets = padded(&tgt_out, config.pad_id, &device);
            let encoded = model.encode(src, None);
            let output = model.decode(tgt_input, &encoded, None);
            let loss = loss(
                output.logits,
                targets,
                config.pad_id,
                options.label_smoothing,
            );
            let value: f32 = loss.clone().into_scalar();
            last_loss = Some((step, value));
            if let Some(sink) = snapshots.as_deref_mut().filter(|_| is_snapshot_step(step)) {
                let point = SnapshotPoint {
                    step,
                    loss: value,
                    loss_step: step,
                    last: false,
                };
                let handed = Instant::now();
                sink(point, model.valid())?;
                in_snapshots += handed.elapsed();
            }
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            let lr = learning_rate(options, step, total);
            model = optimizer.step(lr, model, grads);
            let average = smoothed.map_or(value, |s: f32| 0.98 * s + 0.02 * value);
            smoothed = Some(average);
            writeln!(
                log,
                "{step}\t{epoch}\t{value:.5}\t{lr:.6}\t{:.1}",
                trained(in_snapshots).as_secs_f64()
            )
            .map_err(write_error)?;
            bar.set_message(format!("epoch {} loss {average:.3}", epoch + 1));
            bar.inc(1);
            step += 1;
        }
        if let Some(dir) = &options.checkpoints {
            log.flush().map_err(write_error)?;
            let state = CheckpointState {
                epoch: epoch + 1,
                step,
                rng: rng.state(),
                seconds: trained(in_snapshots).as_secs_f64(),
                last_loss,
                param_ids: BTreeMap::new(),
            };
            write_checkpoint(dir, config, &mut model, &optimizer, state)?;
        }
    }
    bar.finish();
    let model = model.valid();
    if let (Some(sink), Some((loss_step, loss))) = (snapshots, last_loss) {
        let point = SnapshotPoint {
            step,
            loss,
            loss_step,
            last: true,
        };
        sink(point, model.clone())?;
    }
    Ok(model)
}

/// Greedy decoding of many sentences at once with the key/value cache (evaluation), with the
/// same rule as the session ([`next_token`]).
pub fn greedy_decode(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[Vec<u32>],
    batch_size: usize,
) -> Result<Vec<Vec<u32>>> {
    let device = model.positional_encoding.device();
    // Greedy decoding draws no random numbers; the generator only fills the rule's signature.
    let mut rng = Rng::new(0);
    let mut outputs = vec![];
    for chunk in sources.chunks(batch_size.max(1)) {
        let rows: Vec<&[u32]> = chunk.iter().map(|s| s.as_slice()).collect();
        let encoded = model.encode(padded(&rows, config.pad_id, &device), None);
        let cross: Vec<KeyValue> = model.cross_key_values(encoded.memory.clone());
        let mut cache: Vec<Option<KeyValue>> = vec![None; config.n_decoder_layers];
        let mut current: Vec<u32> = vec![config.bos_id; chunk.len()];
        let mut done = vec![false; chunk.len()];
        let mut produced: Vec<Vec<u32>> = vec![vec![]; chunk.len()];
        for position in 0..config.max_len - 1 {
            let tokens = padded(
                &current.iter().map(std::slice::from_ref).collect::<Vec<_>>(),
                config.pad_id,
                &device,
            );
            let output =
                model.decode_step(tokens, position, &cross, &encoded.padding_mask, &mut cache);
            let vocab = config.tgt_vocab_size;
            let logits: Vec<f32> = output
                .logits
                .into_data()
                .try_into_vec()
                .map_err(|e| Error::Backend(format!("{e:?}")))?;
            // The session's decoding rule, so that metrics measure what the page shows.
            let next: Vec<u32> = logits
                .chunks(vocab)
                .map(|row| next_token(row, &config.never_generated(), &Sampling::Greedy, &mut rng))
                .collect();
            for (row, &id) in next.iter().enumerate() {
                if !done[row] {
                    if id == config.eos_id {
                        done[row] = true;
                    } else {
                        produced[row].push(id);
                    }
                }
                current[row] = id;
            }
            if done.iter().all(|&d| d) {
                break;
            }
        }
        outputs.extend(produced);
    }
    Ok(outputs)
}

/// Join target ids into text with the config's joiner.
pub fn ids_to_text(ids: &[u32], tokenizer: &TextTokenizer, joiner: &str) -> String {
    join_pieces(ids.iter().filter_map(|&id| tokenizer.token(id)), joiner)
}
