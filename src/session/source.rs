//! From typed text to source ids: tokenizing, and cutting input that is longer than the model
//! reads (keeping room for `</s>`, [`ModelConfig::fit_source`]) with a note of where the cut
//! falls.
//!
//! [`ModelConfig::fit_source`]: crate::model::config::ModelConfig::fit_source

use super::Session;
use crate::error::{Error, Result};
use crate::trace::{Source, Truncation};

impl Session {
    /// Tokenize a source text, cut to fit `max_len` (keeping room for `</s>`).
    pub fn tokenize_source(&self, text: &str) -> Result<Source> {
        let encoded = self.loaded.src_tokenizer.encode(text)?;
        if encoded.ids.is_empty() {
            return Err(Error::EmptyInput);
        }
        let eos = self.loaded.config.eos_id;
        let fitted = self.loaded.config.fit_source(&encoded.ids);
        let keep = fitted.kept;
        let truncation = fitted.is_cut().then(|| {
            let cut_at_byte = encoded.spans[keep].0;
            Truncation {
                total_tokens: fitted.total,
                kept_tokens: keep,
                cut_at_byte,
                cut_at_char: text
                    .get(..cut_at_byte)
                    .map(|s| s.chars().count())
                    .unwrap_or(0),
            }
        });
        let ids = fitted.ids;
        let mut tokens = encoded.tokens[..keep].to_vec();
        let mut unknown = encoded.unknown[..keep].to_vec();
        tokens.push(self.target_text(eos));
        unknown.push(false);
        Ok(Source {
            ids,
            tokens,
            unknown,
            truncation,
        })
    }
}

impl Session {
    /// The target-language codes of the source vocabulary (`>>cmn_Hans<<`, …), in id order: a
    /// multi-target Marian model writes the language whose code starts the text. Empty for a
    /// model with one target language.
    pub fn language_codes(&self) -> Vec<String> {
        let tokenizer = &self.loaded.src_tokenizer;
        (0..tokenizer.vocab_size() as u32)
            .filter_map(|id| tokenizer.token(id))
            .filter(|piece| piece.len() > 4 && piece.starts_with(">>") && piece.ends_with("<<"))
            .map(str::to_string)
            .collect()
    }
}
