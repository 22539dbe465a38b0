//! Tokenizers: HF `tokenizers` files: BPE subwords (or whole words) for English, character level
//! for Chinese and dates.
//!
//! Tokens are shown on the heatmap axes, so they must read as the text the person typed:
//! display strings come from the original text (not the lower-cased vocabulary entry), unknown
//! pieces are flagged rather than hidden, and invisible characters get visible stand-ins.

//!
//! This file is the runtime half (loading, encoding, display), which ships in the wasm module;
//! `checks` vets untrusted files before `tokenizers` sees them, `marian` holds the Marian rules,
//! `base64` is the one codec, `spm` reads SentencePiece model files (for the Marian import, in
//! the CLI and in the page), `calendar` says which days exist (for the date generator and for
//! marking an impossible date the model writes). Native only: `build` (tokenizers for training).

pub mod base64;
#[cfg(not(target_arch = "wasm32"))]
mod build;
pub mod calendar;
mod checks;
mod document;
mod marian;
pub mod spm;

#[cfg(not(target_arch = "wasm32"))]
pub use build::build_tokenizer;
pub use document::{tokenizer_document, tokenizer_json, FULL_WIDTH_PUNCTUATION};
pub use marian::OUTSIDE_MODEL;

use std::collections::HashMap;

use serde_json::Value;
use tokenizers::{
    Normalizer, OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer, Tokenizer,
};

use crate::error::{Error, Result};
use crate::model::config::{SpecialIds, TokenizerRules};
use checks::check_components;

/// The special tokens `<pad>`, `<unk>`, `<s>`, `</s>`, in the order of [`SpecialIds`]' fields;
/// new tokenizers put them at [`SpecialIds::default`].
pub const SPECIAL_TOKENS: [&str; 4] = ["<pad>", "<unk>", "<s>", "</s>"];

/// How text is cut into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    /// Words and punctuation marks (`\w+|[^\w\s]+`), lower-cased.
    Words,
    /// One token per character, whitespace dropped.
    Characters,
    /// Chinese: one token per character, whitespace dropped, and the punctuation Chinese
    /// writes full-width kept full-width (NFKC alone turns ，？！：；（） into ASCII, so the model's
    /// output would read "你好吗?").
    Chinese,
    /// One token per character, spaces kept as tokens, lower-cased (dates).
    CharactersWithSpaces,
    /// BPE subwords of at most `vocab_size` pieces, case kept, punctuation split off; a piece
    /// that starts a word begins with [`WORD_START`] (SentencePiece's convention), so an unseen
    /// word splits into known pieces instead of becoming `<unk>`.
    Subwords {
        /// Vocabulary size, specials included.
        vocab_size: usize,
    },
}

/// The mark a word-initial subword piece starts with (U+2581, as in SentencePiece and Marian).
pub const WORD_START: char = '\u{2581}';

/// Join target pieces into text: with `joiner` between them, and, where pieces carry
/// [`WORD_START`], a space at each word start instead.
pub fn join_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>, joiner: &str) -> String {
    let joined = pieces.into_iter().collect::<Vec<_>>().join(joiner);
    if joined.contains(WORD_START) {
        joined.replace(WORD_START, " ").trim().to_string()
    } else {
        joined
    }
}

/// Text cut into tokens, with what the page needs to show them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// Vocabulary ids.
    pub ids: Vec<u32>,
    /// What to show for each token: the original text it came from, made visible.
    pub tokens: Vec<String>,
    /// Whether each token is outside the vocabulary (id is `<unk>`).
    pub unknown: Vec<bool>,
    /// Byte range of each token in the original text.
    pub spans: Vec<(usize, usize)>,
}

/// A loaded tokenizer plus the id ↔ string table the page shows.
#[derive(Clone, Debug)]
pub struct TextTokenizer {
    inner: Tokenizer,
    vocab: Vec<String>,
    unk_id: u32,
    /// Whether spaces become word-start marks (a Metaspace pre-tokenizer): other whitespace
    /// (tab, newline) is then read as a space.
    word_starts: bool,
    rules: TokenizerRules,
    /// Marian rules: every vocabulary entry (without its [`OUTSIDE_MODEL`] mark) → its id.
    lookup: HashMap<String, u32>,
    /// Marian rules: the special tokens that literal text stands for, with their ids.
    specials: Vec<(&'static str, u32)>,
}

impl TextTokenizer {
    /// Load a `tokenizer.json` whose special tokens sit at `ids`; `file` names it in error
    /// messages.
    pub fn from_bytes(bytes: &[u8], file: &str, ids: SpecialIds) -> Result<Self> {
        Self::from_bytes_with(bytes, file, ids, TokenizerRules::Plain)
    }

    /// [`TextTokenizer::from_bytes`] with the rules the model's config names.
    pub fn from_bytes_with(
        bytes: &[u8],
        file: &str,
        ids: SpecialIds,
        rules: TokenizerRules,
    ) -> Result<Self> {
        let error = |message: String| Error::Tokenizer {
            file: file.to_string(),
            message,
        };
        let document: Value = serde_json::from_slice(bytes).map_err(|e| error(e.to_string()))?;
        check_components(&document).map_err(error)?;
        let inner = Tokenizer::from_bytes(bytes).map_err(|e| error(e.to_string()))?;
        let size = inner.get_vocab_size(true);
        if size < SPECIAL_TOKENS.len() || size > crate::model::config::MAX_VOCAB {
            return Err(error(format!("vocabulary size {size} is out of range")));
        }
        let mut vocab = vec![String::new(); size];
        for (token, id) in inner.get_vocab(true) {
            let slot = vocab.get_mut(id as usize).ok_or_else(|| {
                error(format!(
                    "token id {id} is not below the vocabulary size {size}"
                ))
            })?;
            *slot = match rules {
                TokenizerRules::Marian => token
                    .strip_prefix(OUTSIDE_MODEL)
                    .map(str::to_string)
                    .unwrap_or(token),
                TokenizerRules::Plain => token,
            };
        }
        if let Some(hole) = vocab.iter().position(String::is_empty) {
            return Err(error(format!("token id {hole} has no token")));
        }
        for (id, special) in [ids.pad, ids.unk, ids.bos, ids.eos]
            .into_iter()
            .zip(SPECIAL_TOKENS)
        {
            // A decoder that starts from <pad> (Marian) has no <s>.
            if special == "<s>" && ids.bos == ids.pad {
                continue;
            }
            let found = vocab.get(id as usize).map(String::as_str);
            if found != Some(special) {
                return Err(error(format!("id {id} must be {special}, found {found:?}")));
            }
        }
        let word_starts = uses_metaspace(&document["pre_tokenizer"]);
        let (lookup, specials) = match rules {
            TokenizerRules::Plain => (HashMap::new(), vec![]),
            TokenizerRules::Marian => (
                vocab
                    .iter()
                    .enumerate()
                    .map(|(id, entry)| (entry.clone(), id as u32))
                    .collect(),
                vec![("</s>", ids.eos), ("<unk>", ids.unk), ("<pad>", ids.pad)],
            ),
        };
        Ok(Self {
            inner,
            vocab,
            unk_id: ids.unk,
            word_starts,
            rules,
            lookup,
            specials,
        })
    }

    /// Number of ids.
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// The vocabulary entry for `id`.
    pub fn token(&self, id: u32) -> Option<&str> {
        self.vocab.get(id as usize).map(String::as_str)
    }

    /// Cut `text` into tokens. Never fails on odd text: unknown pieces become `<unk>`.
    pub fn encode(&self, text: &str) -> Result<Encoded> {
        if self.rules == TokenizerRules::Marian {
            return self.encode_marian(text);
        }
        // One byte for one byte, so every span still points into `text`.
        let spaced;
        let model_text = if self.word_starts {
            spaced = text.replace(['\t', '\n', '\r', '\u{b}', '\u{c}'], " ");
            spaced.as_str()
        } else {
            text
        };
        let encoding = self
            .inner
            .encode(model_text, false)
            .map_err(|e| Error::Tokenizer {
                file: "tokenizer".into(),
                message: e.to_string(),
            })?;
        let mut encoded = Encoded {
            ids: vec![],
            tokens: vec![],
            unknown: vec![],
            spans: vec![],
        };
        for (&id, &(start, end)) in encoding.get_ids().iter().zip(encoding.get_offsets()) {
            encoded.ids.push(id);
            encoded.tokens.push(self.shown(text, (start, end), id));
            encoded.unknown.push(id == self.unk_id);
            encoded.spans.push((start, end));
        }
        self.drop_extra_word_starts(&mut encoded);
        Ok(encoded)
    }

    /// What to show for token `id` cut from `span` of `text`: the original text made visible
    /// (the vocabulary entry where the span is empty); a word-initial subword shows its mark,
    /// so word boundaries stay visible.
    fn shown(&self, text: &str, (start, end): (usize, usize), id: u32) -> String {
        let entry = self.token(id).unwrap_or_default();
        match text.get(start..end).filter(|s| !s.is_empty()) {
            Some(piece) if entry.starts_with(WORD_START) && id != self.unk_id => {
                format!("{WORD_START}{}", visible(piece.trim_start()))
            }
            Some(piece) => visible(piece),
            None => visible(entry),
        }
    }

    /// A lone [`WORD_START`] piece that only repeats a word start (a second space, a space
    /// before the first word or after the last) carries nothing: drop it, so that extra spaces
    /// change no input and whitespace alone is empty input. A lone one before a piece that does
    /// not start a word (a space before an unseen character) stays, as in training.
    fn drop_extra_word_starts(&self, encoded: &mut Encoded) {
        let lone = |id: u32| self.token(id) == Some("\u{2581}");
        let starts_word = |id: u32| self.token(id).is_some_and(|t| t.starts_with(WORD_START));
        let keep: Vec<bool> = (0..encoded.ids.len())
            .map(|i| {
                !lone(encoded.ids[i])
                    || encoded
                        .ids
                        .get(i + 1)
                        .is_some_and(|&next| !starts_word(next))
            })
            .collect();
        if keep.iter().all(|&k| k) {
            return;
        }
        let mut i = 0;
        encoded.ids.retain(|_| (keep[i], i += 1).0);
        let mut i = 0;
        encoded.tokens.retain(|_| (keep[i], i += 1).0);
        let mut i = 0;
        encoded.unknown.retain(|_| (keep[i], i += 1).0);
        let mut i = 0;
        encoded.spans.retain(|_| (keep[i], i += 1).0);
    }

    /// The normalized pieces of `text` before vocabulary lookup (to build a vocabulary).
    pub fn pieces(&self, text: &str) -> Result<Vec<String>> {
        let fail = |e: tokenizers::Error| Error::Tokenizer {
            file: "tokenizer".into(),
            message: e.to_string(),
        };
        let mut pre = PreTokenizedString::from(text);
        if let Some(normalizer) = self.inner.get_normalizer() {
            pre.normalize(|s| normalizer.normalize(s)).map_err(fail)?;
        }
        if let Some(pre_tokenizer) = self.inner.get_pre_tokenizer() {
            pre_tokenizer.pre_tokenize(&mut pre).map_err(fail)?;
        }
        Ok(pre
            .get_splits(OffsetReferential::Original, OffsetType::Byte)
            .into_iter()
            .map(|(piece, _, _)| piece.to_string())
            .collect())
    }

    /// Serialize back to `tokenizer.json` text.
    pub fn to_json(&self) -> Result<String> {
        self.inner.to_string(true).map_err(|e| Error::Tokenizer {
            file: "tokenizer".into(),
            message: e.to_string(),
        })
    }
}

/// Whether a pre-tokenizer (or one in its sequence) is Metaspace.
fn uses_metaspace(value: &Value) -> bool {
    match value.get("type").and_then(Value::as_str) {
        Some("Metaspace") => true,
        Some("Sequence") => value
            .get("pretokenizers")
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().any(uses_metaspace)),
        _ => false,
    }
}

/// Show invisible characters: space as ␣, controls as their Unicode control pictures.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' ' => '␣',
            '\u{7f}' => '␡',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('�'),
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> TextTokenizer {
        build_tokenizer(
            Granularity::Words,
            ["I love eating apples.", "I love you."],
            1,
        )
        .unwrap()
    }

    #[test]
    fn words_keep_the_original_text_for_display() {
        let tokenizer = words();
        let encoded = tokenizer.encode("I love apples.").unwrap();
        assert_eq!(encoded.tokens, ["I", "love", "apples", "."]);
        assert_eq!(encoded.unknown, [false; 4]);
        // Round trip: ids map back to the (lower-cased) vocabulary entries.
        let back: Vec<&str> = encoded
            .ids
            .iter()
            .map(|&id| tokenizer.token(id).unwrap())
            .collect();
        assert_eq!(back, ["i", "love", "apples", "."]);
    }

    #[test]
    fn unknown_words_and_odd_characters_are_unk_not_errors() {
        let tokenizer = words();
        let encoded = tokenizer.encode("I love 🍎\u{0} zebras").unwrap();
        assert_eq!(encoded.tokens, ["I", "love", "🍎␀", "zebras"]);
        assert_eq!(encoded.unknown, [false, false, true, true]);
        assert!(tokenizer.encode("").unwrap().ids.is_empty());
    }

    #[test]
    fn characters_round_trip() {
        let zh = build_tokenizer(Granularity::Characters, ["我爱吃苹果。"], 1).unwrap();
        let encoded = zh.encode("我爱 吃苹果").unwrap();
        assert_eq!(encoded.tokens, ["我", "爱", "吃", "苹", "果"]);
        let text: String = encoded
            .ids
            .iter()
            .map(|&id| zh.token(id).unwrap())
            .collect();
        assert_eq!(text, "我爱吃苹果");
        let dates = build_tokenizer(Granularity::CharactersWithSpaces, ["29 Aug 1958"], 1).unwrap();
        assert_eq!(
            dates.encode("29 AUG").unwrap().tokens,
            ["2", "9", "␣", "A", "U", "G"]
        );
        assert_eq!(dates.encode("29 AUG").unwrap().unknown, [false; 6]);
    }
}
