//! How a model asks to be decoded, beyond its shape: the length limit, a forced `</s>` at that
//! limit, and ids never generated. attnscope's own models use the defaults (the positional
//! table's length, no forced end, `<pad>` and `<s>` never generated); an imported checkpoint
//! takes them from its `generation_config.json` (src/import/generation.rs), and every decoding
//! path (step, greedy, beam, evaluation) reads them from here.

use serde::{Deserialize, Serialize};

use super::config::ModelConfig;
use crate::error::{Error, Result};

/// A checkpoint's decoding settings (Hugging Face `generation_config.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    /// The most target positions, the start token included (transformers' `max_length`).
    /// Absent: `max_len`. Never more than `max_len`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
    /// Whether the last position is `</s>` whatever the logits say (transformers'
    /// `forced_eos_token_id`, which must be `eos_id`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced_eos: bool,
    /// Target ids never generated besides `<pad>` and `<s>` (one-token `bad_words_ids`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bad_ids: Vec<u32>,
}

impl Generation {
    /// Whether these are the defaults (then config.json leaves the field out).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

impl ModelConfig {
    /// The most target positions a translation may use, the start token included.
    pub fn output_limit(&self) -> usize {
        self.generation
            .max_length
            .map_or(self.max_len, |limit| limit.min(self.max_len))
    }

    /// Target ids a translation never contains, so decoding never chooses them: `<pad>`, `<s>`
    /// and the checkpoint's bad words.
    pub fn never_generated(&self) -> Vec<u32> {
        let mut ids = vec![self.pad_id, self.bos_id];
        ids.extend(&self.generation.bad_ids);
        ids
    }

    /// The ids decoding must not choose after `length` target ids (start token included): those
    /// of [`Self::never_generated`], and at the last position of a checkpoint that forces `</s>`
    /// every id but `</s>`, so that greedy, sampled and beam decoding all end there with it.
    pub fn never_generated_at(&self, length: usize) -> Vec<u32> {
        if self.generation.forced_eos && length + 1 >= self.output_limit() {
            (0..self.tgt_vocab_size as u32)
                .filter(|&id| id != self.eos_id)
                .collect()
        } else {
            self.never_generated()
        }
    }

    /// The decoding settings, checked against the rest of the config.
    pub(super) fn validate_generation(&self) -> Result<()> {
        if let Some(limit) = self.generation.max_length {
            if limit < 2 {
                return Err(Error::ConfigRange {
                    field: "generation.max_length",
                    value: limit.to_string(),
                    expected: "at least 2 (the start token and one more)",
                });
            }
        }
        if let Some(id) = self
            .generation
            .bad_ids
            .iter()
            .find(|&&id| id as usize >= self.tgt_vocab_size || id == self.eos_id)
        {
            return Err(Error::ConfigRange {
                field: "generation.bad_ids",
                value: id.to_string(),
                expected: "target ids other than eos_id",
            });
        }
        Ok(())
    }
}
