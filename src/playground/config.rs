//! What the learner sets: the task, the model's switches, its size and how it trains. One serde
//! struct, small enough to travel in a link (`#…`) and from the page's JavaScript, checked
//! field by field before anything is built.

use serde::{Deserialize, Serialize};

use super::tasks::{Task, TaskData};
use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::{Normalisation, PositionalEncoding};

/// The largest learning rate accepted: far past any useful one, so that a learner can watch a
/// run blow up (without LayerNorm, from about 1000 the loss becomes NaN within a few steps and
/// the run stops; with it, the loss stays finite).
pub const MAX_LEARNING_RATE: f64 = 1e4;
/// The longest run.
pub const MAX_STEPS: usize = 100_000;
/// The largest batch.
pub const MAX_BATCH: usize = 256;
/// The largest seed (JavaScript's largest exact integer, so a link keeps it whole).
pub const MAX_SEED: u64 = (1 << 53) - 1;
/// Rows of the positional table: the longest source (8 symbols and `</s>`) and the longest
/// target (`<s>`, 8 symbols, `</s>`), with room to spare.
pub const MAX_LEN: usize = 12;

/// One playground run's settings. Every field has the baseline's value by default, so a link
/// carries only what differs; unknown fields are refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaygroundConfig {
    /// What the model learns.
    pub task: Task,
    /// Positional encoding: sinusoidal, learned or none.
    pub positional: PositionalEncoding,
    /// Divide attention scores by √d_k.
    pub scaled_attention: bool,
    /// The decoder's causal mask.
    pub causal_decoder: bool,
    /// LayerNorm: pre, post or none.
    pub normalisation: Normalisation,
    /// Heads per attention block: 1, 2 or 4.
    pub heads: usize,
    /// Layers per side: 1 or 2.
    pub layers: usize,
    /// Width of the token vectors, 16 to 64 (a multiple of `heads`); the feed-forward network
    /// is 4 × as wide.
    pub d_model: usize,
    /// Adam's peak learning rate.
    pub learning_rate: f64,
    /// Steps of linear warm-up to the peak; then a cosine decay to a tenth of it at `steps`.
    pub warmup: usize,
    /// Examples per step.
    pub batch_size: usize,
    /// Seed of the task's held-out set, the training stream and the initial weights.
    pub seed: u64,
    /// The run's length (where the learning rate schedule ends).
    pub steps: usize,
}

impl Default for PlaygroundConfig {
    /// The baseline: reverse, the paper's model (sinusoidal positions, ÷√d_k, causal mask,
    /// post-norm) at d 32, 2 heads, 1 + 1 layers, which reaches 100 % held-out greedy exact
    /// match on every task (docs/playground.md).
    fn default() -> Self {
        Self {
            task: Task::Reverse,
            positional: PositionalEncoding::Sinusoidal,
            scaled_attention: true,
            causal_decoder: true,
            normalisation: Normalisation::Post,
            heads: 2,
            layers: 1,
            d_model: 32,
            learning_rate: 5e-3,
            warmup: 100,
            batch_size: 32,
            seed: 1,
            steps: Task::Reverse.baseline_steps(),
        }
    }
}

/// A range error naming `field` as the link spells it.
fn refuse(field: &'static str, value: impl ToString, expected: &'static str) -> Error {
    Error::ConfigRange {
        field,
        value: value.to_string(),
        expected,
    }
}

impl PlaygroundConfig {
    /// The baseline for `task`: the default settings, run for the steps the task needs.
    pub fn for_task(task: Task) -> Self {
        Self {
            task,
            steps: task.baseline_steps(),
            ..Self::default()
        }
    }

    /// Parse a config sent from the page or a link (camelCase JSON) and check it.
    pub fn from_json(text: &str) -> Result<Self> {
        let config: Self =
            serde_json::from_str(text).map_err(|e| Error::ConfigParse(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Check every field; the first one out of range is named in the error.
    pub fn validate(&self) -> Result<()> {
        if ![1, 2, 4].contains(&self.heads) {
            return Err(refuse("heads", self.heads, "1, 2 or 4"));
        }
        if ![1, 2].contains(&self.layers) {
            return Err(refuse("layers", self.layers, "1 or 2"));
        }
        if !(16..=64).contains(&self.d_model) || !self.d_model.is_multiple_of(self.heads) {
            return Err(refuse(
                "dModel",
                self.d_model,
                "16..=64, a multiple of heads",
            ));
        }
        let rate = self.learning_rate;
        if !(rate.is_finite() && rate > 0.0 && rate <= MAX_LEARNING_RATE) {
            return Err(refuse("learningRate", rate, "0 < learningRate <= 10000"));
        }
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(refuse("steps", self.steps, "1..=100000"));
        }
        if self.warmup >= self.steps {
            return Err(refuse("warmup", self.warmup, "0..steps"));
        }
        if !(1..=MAX_BATCH).contains(&self.batch_size) {
            return Err(refuse("batchSize", self.batch_size, "1..=256"));
        }
        if self.seed > MAX_SEED {
            return Err(refuse("seed", self.seed, "0..=9007199254740991"));
        }
        Ok(())
    }

    /// The model these settings build, for `data`'s vocabularies.
    pub fn model_config(&self, data: &TaskData) -> ModelConfig {
        let mut config = ModelConfig::en_zh(data.source_vocab_size(), data.target_vocab_size());
        config.name = format!("playground-{}", self.task.name());
        config.description = format!(
            "Trained in the playground: {}, seed {}",
            self.task.description(),
            self.seed
        );
        config.d_model = self.d_model;
        config.n_heads = self.heads;
        config.n_encoder_layers = self.layers;
        config.n_decoder_layers = self.layers;
        config.d_ff = 4 * self.d_model;
        config.max_len = MAX_LEN;
        config.dropout = 0.0;
        config.src_joiner = " ".into();
        config.tgt_joiner = " ".into();
        config.example = data.example();
        config.positional_encoding = self.positional;
        config.scaled_attention = self.scaled_attention;
        config.causal_decoder = self.causal_decoder;
        config.set_normalisation(self.normalisation);
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_out_of_range_field_is_named() {
        type Change = fn(&mut PlaygroundConfig);
        let changes: [(&str, Change); 9] = [
            ("heads", |c| c.heads = 3),
            ("layers", |c| c.layers = 3),
            ("dModel", |c| c.d_model = 8),
            ("dModel", |c| {
                c.heads = 4;
                c.d_model = 30;
            }),
            ("learningRate", |c| c.learning_rate = f64::NAN),
            ("learningRate", |c| c.learning_rate = 0.0),
            ("warmup", |c| c.warmup = c.steps),
            ("batchSize", |c| c.batch_size = 0),
            ("seed", |c| c.seed = u64::MAX),
        ];
        for (field, change) in changes {
            let mut config = PlaygroundConfig::default();
            change(&mut config);
            match config.validate() {
                Err(Error::ConfigRange { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: expected ConfigRange, got {other:?}"),
            }
        }
        PlaygroundConfig::default().validate().unwrap();
    }

    #[test]
    fn a_link_carries_only_what_differs() {
        let config = PlaygroundConfig::from_json(r#"{"positional":"none","seed":3}"#).unwrap();
        assert_eq!(config.positional, PositionalEncoding::None);
        assert_eq!(config.seed, 3);
        assert_eq!(config.heads, PlaygroundConfig::default().heads);
        assert!(matches!(
            PlaygroundConfig::from_json(r#"{"colour":"red"}"#),
            Err(Error::ConfigParse(_))
        ));
        assert!(matches!(
            PlaygroundConfig::from_json(r#"{"heads":8}"#),
            Err(Error::ConfigRange { field: "heads", .. })
        ));
    }
}
