//! Checkpoints: a run saved after every epoch (weights, optimizer state, where it stood), and
//! resumed from exactly there.

use std::collections::BTreeMap;
use std::path::Path;

use burn::optim::ModuleOptimizer;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::weights::{param_ids, replace_weights, save_weights, set_param_ids};
use crate::model::config::ModelConfig;
use crate::model::Transformer;

use super::{Example, TrainOptions};

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
    /// The run's settings (`run_settings`; absent in older checkpoints, which resume
    /// unchecked): a run with others does not resume from it.
    #[serde(default)]
    pub settings: Option<serde_json::Value>,
}

const CHECKPOINT_STATE: &str = "state.json";
const CHECKPOINT_WEIGHTS: &str = "weights.safetensors";
const CHECKPOINT_OPTIMIZER: &str = "optimizer.bpk";

/// A checkpoint error, naming its folder.
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

/// Write a checkpoint of `model` and `optimizer` at `state` into `dir`.
pub(super) fn write_checkpoint(
    dir: &Path,
    config: &ModelConfig,
    model: &mut Transformer,
    optimizer: &ModuleOptimizer,
    mut state: CheckpointState,
    settings: &serde_json::Value,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| checkpoint_error(dir, e))?;
    state.param_ids = param_ids(config, model)?;
    state.settings = Some(settings.clone());
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

/// Put a checkpoint's weights, parameter ids and optimizer state in place.
pub(super) fn restore(
    dir: &Path,
    state: &CheckpointState,
    config: &ModelConfig,
    model: &mut Transformer,
    optimizer: ModuleOptimizer,
    device: &Device,
) -> Result<ModuleOptimizer> {
    let weights =
        std::fs::read(dir.join(CHECKPOINT_WEIGHTS)).map_err(|e| checkpoint_error(dir, e))?;
    replace_weights(config, model, &weights, device)?;
    set_param_ids(config, model, &state.param_ids)?;
    optimizer
        .load(dir.join(CHECKPOINT_OPTIMIZER))
        .map_err(|e| checkpoint_error(dir, format!("{e:?}")))
}

/// The config fields that only describe the model (a preset's wording may change between a
/// checkpoint and its resumption).
const DESCRIPTIVE: [&str; 3] = ["name", "description", "example"];

/// What a checkpoint resumes only with, as a JSON object: the model's config (less its
/// descriptive fields), how it trains (seed, epochs, batch, learning rate, warm-up, label
/// smoothing, threads), and the training examples (their count, and an FNV-1a hash of their
/// token ids). Its numbers are read back from JSON text, as a checkpoint's are.
pub fn run_settings(
    config: &ModelConfig,
    examples: &[Example],
    options: &TrainOptions,
) -> Result<serde_json::Value> {
    let json = |e: serde_json::Error| Error::Training(format!("run settings: {e}"));
    let serde_json::Value::Object(mut settings) = serde_json::to_value(config).map_err(json)?
    else {
        return Err(Error::Invariant("a model config is a JSON object"));
    };
    for name in DESCRIPTIVE {
        settings.remove(name);
    }
    let training = [
        ("seed", serde_json::json!(options.seed)),
        ("epochs", serde_json::json!(options.epochs)),
        ("batch_size", serde_json::json!(options.batch_size)),
        ("learning_rate", serde_json::json!(options.learning_rate)),
        ("warmup_steps", serde_json::json!(options.warmup_steps)),
        (
            "label_smoothing",
            serde_json::json!(options.label_smoothing),
        ),
        ("threads", serde_json::json!(options.threads)),
        ("training_examples", serde_json::json!(examples.len())),
        (
            "training_data",
            serde_json::json!(format!("{:016x}", fnv1a(examples))),
        ),
    ];
    for (name, value) in training {
        if settings.insert(name.into(), value).is_some() {
            return Err(Error::Invariant("a run setting has a config field's name"));
        }
    }
    let text = serde_json::Value::Object(settings).to_string();
    serde_json::from_str(&text).map_err(json)
}

/// FNV-1a (64 bits) over every example's source and target ids, each list ended by its length.
fn fnv1a(examples: &[Example]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let ids = examples.iter().flat_map(|e| {
        let ends = [e.src.len() as u32, e.tgt.len() as u32];
        e.src
            .iter()
            .copied()
            .chain([ends[0]])
            .chain(e.tgt.iter().copied())
            .chain([ends[1]])
    });
    for id in ids {
        for byte in id.to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// This run's settings (`run_settings`) and the checkpoint in `options.checkpoints` to resume
/// from, if there is one; refused when the checkpoint's settings differ.
pub(super) fn resume_point(
    config: &ModelConfig,
    examples: &[Example],
    options: &TrainOptions,
) -> Result<(serde_json::Value, Option<CheckpointState>)> {
    let settings = run_settings(config, examples, options)?;
    let Some(dir) = &options.checkpoints else {
        return Ok((settings, None));
    };
    let resumed = read_checkpoint(dir)?;
    if let Some(state) = &resumed {
        check_resumable(dir, state, &settings)?;
    }
    Ok((settings, resumed))
}

/// Refuse to resume from the checkpoint in `dir` (at `state`) a run whose `settings` differ
/// from the checkpoint's, naming each difference (`d_model 32 → 40`); a checkpoint without
/// settings (written before they were kept) passes.
fn check_resumable(
    dir: &Path,
    state: &CheckpointState,
    settings: &serde_json::Value,
) -> Result<()> {
    let Some(saved) = &state.settings else {
        return Ok(());
    };
    let changed = changed_settings(saved, settings).map_err(|e| checkpoint_error(dir, e))?;
    if changed.is_empty() {
        return Ok(());
    }
    let why = format!(
        "written by a run with other settings ({}); resume with the flags, data and code it \
         was started with, or remove the folder to start again",
        changed.join(", ")
    );
    Err(checkpoint_error(dir, why))
}

/// The settings that differ between a checkpoint's and a run's, each as `name saved → run`,
/// by name.
fn changed_settings(saved: &serde_json::Value, run: &serde_json::Value) -> Result<Vec<String>> {
    let (Some(saved), Some(run)) = (saved.as_object(), run.as_object()) else {
        return Err(Error::Invariant("run settings are a JSON object"));
    };
    let absent = serde_json::Value::Null;
    let mut names: Vec<&String> = saved.keys().chain(run.keys()).collect();
    names.sort();
    names.dedup();
    Ok(names
        .into_iter()
        .filter_map(|name| {
            let was = saved.get(name).unwrap_or(&absent);
            let now = run.get(name).unwrap_or(&absent);
            (was != now).then(|| format!("{name} {was} → {now}"))
        })
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn options(seed: u64) -> TrainOptions {
        TrainOptions {
            epochs: 30,
            batch_size: 64,
            learning_rate: 1e-3,
            warmup_steps: 1000,
            label_smoothing: 0.1,
            seed,
            time_limit: None,
            progress: false,
            checkpoints: None,
            stop_after_epochs: None,
            threads: 2,
        }
    }

    /// `n` examples, the first with source id `first`.
    fn examples(n: u32, first: u32) -> Vec<Example> {
        let example = |i: u32| Example {
            src: vec![if i == 0 { first } else { 4 + i }, 3],
            tgt: vec![2, 5, 3],
        };
        (0..n).map(example).collect()
    }

    fn state(settings: Option<serde_json::Value>) -> CheckpointState {
        let (epoch, step, rng, seconds) = (1, 10, 7, 1.0);
        let (last_loss, param_ids) = (None, BTreeMap::new());
        let state = CheckpointState {
            epoch,
            step,
            rng,
            seconds,
            last_loss,
            param_ids,
            settings,
        };
        // As resumed: through the JSON text a checkpoint is.
        serde_json::from_str(&serde_json::to_string_pretty(&state).unwrap()).unwrap()
    }

    /// Whether a run with `settings` resumes from `saved`, or the differences it is refused
    /// with.
    fn resume(saved: &CheckpointState, settings: &serde_json::Value) -> Option<String> {
        let dir = Path::new("ck");
        check_resumable(dir, saved, settings)
            .err()
            .map(|e| e.to_string())
    }

    /// The same settings resume; a reworded description resumes; a changed dropout, a set
    /// optional field, another seed, and other examples (one id, or one more) are each named;
    /// a checkpoint without settings passes.
    #[test]
    fn only_the_same_settings_resume() {
        let config = ModelConfig::zh_en(100, 200);
        let same = run_settings(&config, &examples(500, 4), &options(43)).unwrap();
        let saved = state(Some(same.clone()));
        assert_eq!(resume(&saved, &same), None);
        let mut reworded = config.clone();
        reworded.description = "another wording".into();
        let run = run_settings(&reworded, &examples(500, 4), &options(43)).unwrap();
        assert_eq!(resume(&saved, &run), None);
        let hash = |settings: &serde_json::Value| settings["training_data"].to_string();
        let one_id = run_settings(&config, &examples(500, 9), &options(43)).unwrap();
        let err = resume(&saved, &one_id).unwrap();
        let differ = format!("(training_data {} → {});", hash(&same), hash(&one_id));
        assert!(err.contains(&differ), "{err}");
        let mut changed = config.clone();
        changed.n_decoder_heads = Some(8);
        changed.dropout = 0.2;
        let run = run_settings(&changed, &examples(501, 4), &options(42)).unwrap();
        let err = resume(&saved, &run).unwrap();
        let differ = format!(
            "(dropout 0.1 → 0.2, n_decoder_heads null → 8, seed 43 → 42, training_data {} → {}, \
             training_examples 500 → 501)",
            hash(&same),
            hash(&run)
        );
        assert!(err.contains(&differ), "{err}");
        assert_eq!(resume(&state(None), &run), None);
    }
}
