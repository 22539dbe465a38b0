//! From typed text to source ids: tokenizing, and cutting input that is longer than the model
//! reads (keeping room for `</s>`) with a note of where the cut falls.

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
        let room = self.loaded.config.max_len - 1;
        let total = encoded.ids.len();
        let truncation = (total > room).then(|| {
            let cut_at_byte = encoded.spans[room].0;
            Truncation {
                total_tokens: total,
                kept_tokens: room,
                cut_at_byte,
                cut_at_char: text
                    .get(..cut_at_byte)
                    .map(|s| s.chars().count())
                    .unwrap_or(0),
            }
        });
        let keep = total.min(room);
        let eos = self.loaded.config.eos_id;
        let mut ids = encoded.ids[..keep].to_vec();
        let mut tokens = encoded.tokens[..keep].to_vec();
        let mut unknown = encoded.unknown[..keep].to_vec();
        ids.push(eos);
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
