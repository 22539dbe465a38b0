//! The playground: a tiny Transformer trained from scratch on a toy task, with the paper's
//! design choices as switches, so that a learner can switch one off and watch what happens.
//!
//! One core for the page's training worker (wasm, the `train` feature) and the `playground`
//! command: `tasks` (and `language`, the made-up language) make the examples and the held-out
//! set, `config` holds what the learner sets, `trainer` takes steps with burn's Adam and
//! schedulers, `evaluate` measures held-out loss, entropy and greedy exact match, `export`
//! writes a model folder, `heads` scores its heads into heads.json (with `crate::study`),
//! `experiments` holds the four presets. Every readback is async.
//! Native only: `curve`, a whole run with timings (the command line and the tests).

mod config;
#[cfg(not(target_arch = "wasm32"))]
pub mod curve;
mod evaluate;
mod experiments;
mod export;
mod heads;
mod language;
mod measure;
mod report;
mod tasks;
mod trainer;

pub use config::{PlaygroundConfig, MAX_BATCH, MAX_LEARNING_RATE, MAX_LEN, MAX_SEED, MAX_STEPS};
pub use experiments::{experiment, experiments, Arm, Experiment, EXPERIMENT_IDS};
pub use heads::SENTENCES as HEADS_SENTENCES;
pub use report::{AttentionEntropy, Divergence, Evaluation, Sample, StepReport, TrainError};
pub use tasks::{Pair, Task, TaskData, DIGITS_LEN, HELDOUT};
pub use trainer::Trainer;
