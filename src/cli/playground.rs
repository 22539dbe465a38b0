//! `playground`: train a toy model from scratch as the page's playground does, with the
//! paper's design choices as switches, and print its curve; `--experiment` runs one of the four
//! experiments (both runs). `--out` writes the trained model folder.

use std::path::PathBuf;

use clap::Args;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::playground::curve::{run, Curve, Progress};
use crate::playground::{experiment, PlaygroundConfig, TrainError};
use crate::{block_on, Error, Result};

/// The arguments of `attnscope playground`.
#[derive(Args)]
pub(super) struct PlaygroundArgs {
    /// copy, reverse, sort or language.
    #[arg(long, value_parser = named::<crate::playground::Task>)]
    task: Option<crate::playground::Task>,
    /// Positional encoding: sinusoidal, learned or none.
    #[arg(long, value_parser = named::<crate::model::PositionalEncoding>)]
    positional: Option<crate::model::PositionalEncoding>,
    /// Divide attention scores by √d_k: on or off.
    #[arg(long, value_parser = switch)]
    scaling: Option<bool>,
    /// The decoder's causal mask: on or off.
    #[arg(long, value_parser = switch)]
    causal_mask: Option<bool>,
    /// LayerNorm: pre, post or none.
    #[arg(long, value_parser = named::<crate::model::Normalisation>)]
    norm: Option<crate::model::Normalisation>,
    /// Heads per attention block: 1, 2 or 4.
    #[arg(long)]
    heads: Option<usize>,
    /// Layers per side: 1 or 2.
    #[arg(long)]
    layers: Option<usize>,
    /// Width of the token vectors (16 to 64).
    #[arg(long)]
    d_model: Option<usize>,
    /// Peak learning rate.
    #[arg(long)]
    learning_rate: Option<f64>,
    /// Warm-up steps.
    #[arg(long)]
    warmup: Option<usize>,
    /// Examples per step.
    #[arg(long)]
    batch_size: Option<usize>,
    /// Seed of the data, the held-out set and the initial weights.
    #[arg(long)]
    seed: Option<u64>,
    /// Training steps (default: what the task needs, 1500, or 3000 for sort).
    #[arg(long)]
    steps: Option<usize>,
    /// Run experiment A, B, C or D (both of its runs) instead; --seed and --steps still apply.
    #[arg(long, conflicts_with_all = ["task", "positional", "scaling", "causal_mask", "norm", "heads", "layers", "d_model", "out"])]
    experiment: Option<String>,
    /// Evaluate on the held-out set every this many steps.
    #[arg(long, default_value_t = 100)]
    eval_every: usize,
    /// Write the trained model folder here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the curve as JSON (every step's loss, every evaluation, steps per second).
    #[arg(long)]
    json: bool,
}

/// A value spelled as its serde name (`none`, `reverse`, `pre`).
fn named<T: DeserializeOwned>(text: &str) -> std::result::Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.into())).map_err(|e| e.to_string())
}

/// `on` or `off`.
fn switch(text: &str) -> std::result::Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{text}` is not on or off")),
    }
}

impl PlaygroundArgs {
    /// The defaults with what the arguments set.
    fn config(&self, mut config: PlaygroundConfig) -> PlaygroundConfig {
        // Each flag given replaces its field; the others keep the defaults.
        macro_rules! set {
            ($($field:ident from $flag:ident),* $(,)?) => {
                $(if let Some(value) = self.$flag {
                    config.$field = value;
                })*
            };
        }
        set!(
            task from task, positional from positional, scaled_attention from scaling,
            causal_decoder from causal_mask, normalisation from norm, heads from heads,
            layers from layers, d_model from d_model, learning_rate from learning_rate,
            warmup from warmup, batch_size from batch_size, seed from seed, steps from steps,
        );
        config
    }
}

/// Both runs of an experiment.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExperimentRuns {
    id: &'static str,
    switch: &'static str,
    labels: [&'static str; 2],
    runs: Vec<Curve>,
}

/// Run `attnscope playground`.
pub(super) fn playground(args: &PlaygroundArgs) -> Result<()> {
    let Some(id) = &args.experiment else {
        let task = args.task.unwrap_or_default();
        let curve = train(args, args.config(PlaygroundConfig::for_task(task)), "")?;
        if args.json {
            println!("{}", serde_json::to_string(&curve)?);
        }
        return stopped(&curve);
    };
    let experiment = experiment(id, args.seed.unwrap_or(PlaygroundConfig::default().seed))?;
    let mut runs = Vec::with_capacity(2);
    for arm in &experiment.arms {
        let label = format!("{} {}={}", experiment.id, experiment.switch, arm.label);
        runs.push(train(args, args.config(arm.config.clone()), &label)?);
    }
    if args.json {
        let output = ExperimentRuns {
            id: experiment.id,
            switch: experiment.switch,
            labels: [experiment.arms[0].label, experiment.arms[1].label],
            runs,
        };
        println!("{}", serde_json::to_string(&output)?);
    }
    Ok(())
}

/// One run: a table row per evaluation unless `--json`, and the model folder with `--out`.
fn train(args: &PlaygroundArgs, config: PlaygroundConfig, label: &str) -> Result<Curve> {
    config.validate()?;
    if !args.json {
        println!("{label}\nstep\ttrain loss\theld-out loss\texact match\tsteps/s");
    }
    let mut table = |progress: Progress<'_>| {
        if !args.json {
            println!("{}", row(&progress));
        }
    };
    let (curve, trainer) = run(config, args.eval_every, &mut table)?;
    if let Some(dir) = &args.out {
        block_on(trainer.save(dir))?;
    }
    Ok(curve)
}

/// A table row: the mean training loss since the last row, the held-out figures, the speed.
fn row(progress: &Progress<'_>) -> String {
    let evaluation = progress.evaluation;
    let train = progress
        .train_loss
        .map_or_else(|| "-".to_string(), |loss| format!("{loss:.4}"));
    format!(
        "{}\t{train}\t\t{:.4}\t\t{:.1} %\t\t{:.0}",
        evaluation.step,
        evaluation.heldout_loss,
        100.0 * evaluation.exact_match,
        progress.steps_per_second
    )
}

/// An error when the run stopped because its loss was not finite (the curve is printed first).
fn stopped(curve: &Curve) -> Result<()> {
    match curve.diverged {
        Some(divergence) => Err(Error::from(TrainError::Diverged(divergence))),
        None => Ok(()),
    }
}
