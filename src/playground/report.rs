//! What the trainer reports: each step, each evaluation, and why a run stopped. Plain data with
//! camelCase serde names, sent to the page as they are and printed by the command line.

use serde::Serialize;

use crate::error::Error;

/// One training step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    /// Steps taken, this one included (the first is 1).
    pub step: usize,
    /// The batch's teacher-forced cross-entropy per target token, in nats, measured with the
    /// weights before this step's update.
    pub loss: f32,
    /// The learning rate this step used.
    pub learning_rate: f64,
}

/// Where a run stopped because its loss was not a finite number.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// The step whose loss was NaN or infinite.
    pub step: usize,
    /// That loss.
    pub loss: f32,
    /// The steps the kept weights had taken: those the last finite loss (step `step − 1`'s)
    /// was measured with.
    pub kept_step: usize,
}

/// A step that did not happen.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The loss became NaN or infinite: the run stopped.
    #[error(
        "the training loss became {} at step {}: the run stopped and kept the weights of step {}",
        .0.loss, .0.step, .0.kept_step
    )]
    Diverged(Divergence),
    /// Anything else (a failed readback, a bad config).
    #[error(transparent)]
    Failed(#[from] Error),
}

impl TrainError {
    /// The message key the page translates (`error.…`), as [`Error::key`].
    pub fn key(&self) -> &'static str {
        match self {
            Self::Diverged(_) => "error.diverged",
            Self::Failed(error) => error.key(),
        }
    }

    /// The values the message names, as [`Error::params`].
    pub fn params(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::Diverged(d) => vec![
                ("step", d.step.to_string()),
                ("loss", d.loss.to_string()),
                ("kept", d.kept_step.to_string()),
            ],
            Self::Failed(error) => error.params(),
        }
    }
}

impl From<TrainError> for Error {
    /// For callers with one error type (the command line): a divergence as a training error.
    fn from(error: TrainError) -> Self {
        match error {
            TrainError::Failed(error) => error,
            diverged => Error::Training(diverged.to_string()),
        }
    }
}

/// The mean entropy of the attention rows, in nats, per kind of attention: ln(k) for a row
/// spread evenly over k keys, 0 for a row that puts all its weight on one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttentionEntropy {
    /// Encoder self-attention (rows of source tokens).
    pub encoder_self: f64,
    /// Decoder self-attention (rows of target positions).
    pub decoder_self: f64,
    /// Cross-attention.
    pub cross: f64,
}

/// One held-out example as the learner reads it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// The source.
    pub source: String,
    /// What the task asks for.
    pub expected: String,
    /// What greedy decoding wrote.
    pub output: String,
    /// Whether they are the same.
    pub correct: bool,
}

/// The held-out figures of the current weights.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Steps the weights had taken.
    pub step: usize,
    /// Teacher-forced cross-entropy per target token on the held-out set, in nats.
    pub heldout_loss: f64,
    /// Share of held-out examples that greedy decoding gets exactly right (`</s>` included).
    pub exact_match: f64,
    /// How many it gets right.
    pub correct: usize,
    /// Share of outputs with exactly the expected tokens in some order: what a model that
    /// cannot tell positions apart can still get right.
    pub same_tokens: f64,
    /// Held-out examples.
    pub total: usize,
    /// The attention entropy over the held-out set (teacher-forced).
    pub entropy: AttentionEntropy,
    /// The first few held-out examples.
    pub samples: Vec<Sample>,
}
