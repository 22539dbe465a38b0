//! A whole run with timings (native only): the command line prints it, the tests check it.

use std::time::Instant;

use burn::tensor::Device;
use serde::Serialize;

use super::config::PlaygroundConfig;
use super::report::{Divergence, Evaluation, StepReport, TrainError};
use super::trainer::Trainer;
use crate::error::Result;

/// A run's training curve, its evaluations and its speed.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Curve {
    /// The settings.
    pub config: PlaygroundConfig,
    /// Parameters of the model.
    pub parameters: usize,
    /// Every step: its training loss and learning rate.
    pub steps: Vec<StepReport>,
    /// The held-out figures before the first step, every `eval_every` steps and at the end.
    pub evaluations: Vec<Evaluation>,
    /// Seconds spent in training steps (evaluations not counted).
    pub train_seconds: f64,
    /// Training steps per second.
    pub steps_per_second: f64,
    /// Where the run stopped early because its loss was not finite.
    pub diverged: Option<Divergence>,
}

impl Curve {
    /// The last evaluation.
    pub fn last(&self) -> Option<&Evaluation> {
        self.evaluations.last()
    }

    /// The first evaluation at which greedy exact match reached `share` (0 to 1).
    pub fn first_reaching(&self, share: f64) -> Option<&Evaluation> {
        self.evaluations.iter().find(|e| e.exact_match >= share)
    }

    /// The mean training loss of steps `from..=to`.
    pub fn mean_loss(&self, from: usize, to: usize) -> Option<f64> {
        let losses: Vec<f64> = self
            .steps
            .iter()
            .filter(|s| (from..=to).contains(&s.step))
            .map(|s| f64::from(s.loss))
            .collect();
        (!losses.is_empty()).then(|| losses.iter().sum::<f64>() / losses.len() as f64)
    }
}

/// What a run reports after each stretch of steps.
pub struct Progress<'a> {
    /// The held-out figures now.
    pub evaluation: &'a Evaluation,
    /// The mean training loss of the stretch.
    pub train_loss: Option<f64>,
    /// Training steps per second so far.
    pub steps_per_second: f64,
}

/// Train `config` on the CPU for its `steps`, evaluating every `eval_every` steps; `progress`
/// sees each evaluation as it comes. Returns the curve and the trainer (its final weights).
pub fn run(
    config: PlaygroundConfig,
    eval_every: usize,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(Curve, Trainer)> {
    let mut trainer = Trainer::new(config.clone(), &Device::flex())?;
    let first = crate::block_on(trainer.evaluate())?;
    progress(Progress {
        evaluation: &first,
        train_loss: None,
        steps_per_second: 0.0,
    });
    let mut evaluations = vec![first];
    let mut train_seconds = 0.0;
    let mut diverged = None;
    while trainer.steps() < config.steps && diverged.is_none() {
        let chunk = eval_every.max(1).min(config.steps - trainer.steps());
        let (start, before) = (Instant::now(), trainer.history().len());
        match crate::block_on(trainer.step(chunk)) {
            Ok(_) => {}
            Err(TrainError::Diverged(divergence)) => diverged = Some(divergence),
            Err(TrainError::Failed(error)) => return Err(error),
        }
        train_seconds += start.elapsed().as_secs_f64();
        let evaluation = crate::block_on(trainer.evaluate())?;
        let stretch = &trainer.history()[before..];
        progress(Progress {
            evaluation: &evaluation,
            train_loss: (!stretch.is_empty()).then(|| {
                stretch.iter().map(|s| f64::from(s.loss)).sum::<f64>() / stretch.len() as f64
            }),
            steps_per_second: trainer.history().len() as f64 / train_seconds.max(1e-9),
        });
        evaluations.push(evaluation);
    }
    let steps = trainer.history().to_vec();
    let curve = Curve {
        parameters: trainer.parameters(),
        steps_per_second: steps.len() as f64 / train_seconds.max(1e-9),
        steps,
        evaluations,
        train_seconds,
        diverged,
        config,
    };
    Ok((curve, trainer))
}
