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
    /// The config the run was training (absent in checkpoints written before it was kept): a
    /// run asking for another shape, dropout or vocabulary does not resume from it.
    #[serde(default)]
    pub config: Option<ModelConfig>,
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
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| checkpoint_error(dir, e))?;
    state.param_ids = param_ids(config, model)?;
    state.config = Some(config.clone());
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
    if let Some(saved) = &state.config {
        let changed = changed_settings(saved, config)?;
        if !changed.is_empty() {
            let why = format!(
                "written by a run with other settings ({}); resume with the flags it was \
                 started with, or remove the folder to start again",
                changed.join(", ")
            );
            return Err(checkpoint_error(dir, why));
        }
    }
    let weights =
        std::fs::read(dir.join(CHECKPOINT_WEIGHTS)).map_err(|e| checkpoint_error(dir, e))?;
    replace_weights(config, model, &weights, device)?;
    set_param_ids(config, model, &state.param_ids)?;
    optimizer
        .load(dir.join(CHECKPOINT_OPTIMIZER))
        .map_err(|e| checkpoint_error(dir, format!("{e:?}")))
}

/// The config's settings that differ between the checkpoint's and this run's, each as
/// `name checkpoint → run` (`d_model 32 → 40`).
fn changed_settings(saved: &ModelConfig, config: &ModelConfig) -> Result<Vec<String>> {
    let json =
        |c: &ModelConfig| serde_json::to_value(c).map_err(|e| Error::Training(e.to_string()));
    let (saved, run) = (json(saved)?, json(config)?);
    let (Some(saved), Some(run)) = (saved.as_object(), run.as_object()) else {
        return Ok(Vec::new());
    };
    let absent = serde_json::Value::Null;
    let mut names: Vec<&String> = saved.keys().chain(run.keys()).collect();
    names.sort();
    names.dedup();
    Ok(names
        .into_iter()
        .filter_map(|name| {
            let (was, now) = (
                saved.get(name).unwrap_or(&absent),
                run.get(name).unwrap_or(&absent),
            );
            (was != now).then(|| format!("{name} {was} → {now}"))
        })
        .collect())
}
