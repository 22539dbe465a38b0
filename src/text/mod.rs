//! Tokenizers: HF `tokenizers` files: BPE subwords (or whole words) for English, character level
//! for Chinese and dates.
//!
//! Tokens are shown on the heatmap axes, so they must read as the text the person typed:
//! display strings come from the original text (not the lower-cased vocabulary entry), unknown
//! pieces are flagged rather than hidden, and invisible characters get visible stand-ins.

#[cfg(not(target_arch = "wasm32"))]
pub mod spm;

use std::collections::HashMap;

use serde_json::{json, Value};
use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::{
    AddedToken, Normalizer, OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer,
    Tokenizer, Trainer,
};

use crate::error::{Error, Result};
use crate::model::config::{SpecialIds, TokenizerRules};

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

/// In a tokenizer file written for [`TokenizerRules::Marian`], a vocabulary entry that this
/// side's SentencePiece model lacks (the other language's pieces, `>>lang<<` codes, the special
/// tokens) starts with this mark, a plain space. The segmentation only ever sees spaces as `▁`,
/// so it never matches such an entry, as SentencePiece would not; the rules strip the mark to
/// look a run of unknown characters up whole, as `MarianTokenizer` does.
pub const OUTSIDE_MODEL: char = ' ';

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

    /// `MarianTokenizer.tokenize`: split on the literal special tokens; in each other chunk a
    /// leading `>>code<<` is one token, the rest is segmented, and a run of unknown characters
    /// (one `<unk>` piece, its surface text kept) is looked up whole in the joint vocabulary.
    fn encode_marian(&self, text: &str) -> Result<Encoded> {
        let fail = |e: tokenizers::Error| Error::Tokenizer {
            file: "tokenizer".into(),
            message: e.to_string(),
        };
        let mut encoded = Encoded {
            ids: vec![],
            tokens: vec![],
            unknown: vec![],
            spans: vec![],
        };
        let mut push = |id: u32, shown: String, span: (usize, usize)| {
            encoded.ids.push(id);
            encoded.tokens.push(shown);
            encoded.unknown.push(id == self.unk_id);
            encoded.spans.push(span);
        };
        for (start, end, special) in split_on(text, &self.specials) {
            if let Some(id) = special {
                push(id, visible(&text[start..end]), (start, end));
                continue;
            }
            let mut from = start;
            let chunk = &text[start..end];
            if let Some(at) = chunk.strip_prefix(">>").and_then(|rest| rest.find("<<")) {
                let code = &chunk[..at + 4];
                let id = self.lookup.get(code).copied().unwrap_or(self.unk_id);
                push(id, visible(code), (start, start + code.len()));
                from += code.len();
            }
            let rest = &text[from..end];
            // SentencePiece gives nothing for text that normalizes to nothing (spaces only).
            let mut normalized = tokenizers::NormalizedString::from(rest);
            if let Some(normalizer) = self.inner.get_normalizer() {
                normalizer.normalize(&mut normalized).map_err(fail)?;
            }
            if normalized.get().is_empty() {
                continue;
            }
            let encoding = self.inner.encode(rest, false).map_err(fail)?;
            for ((&id, surface), &(s, e)) in encoding
                .get_ids()
                .iter()
                .zip(encoding.get_tokens())
                .zip(encoding.get_offsets())
            {
                let id = if id == self.unk_id {
                    self.lookup.get(surface).copied().unwrap_or(self.unk_id)
                } else {
                    id
                };
                let span = (from + s, from + e);
                push(id, self.shown(text, span, id), span);
            }
        }
        Ok(encoded)
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

/// Accept only the components attnscope writes (see [`tokenizer_json`]): a WordLevel model,
/// NFKC/Lowercase normalizers, Whitespace/WhitespaceSplit/Split(".") pre-tokenizers, no added
/// tokens, decoder, post-processor, truncation or padding.
///
/// `tokenizers` 0.23 panics (an `expect`) on some malformed component JSON, and a panic in the
/// browser kills the wasm instance; checking the document first turns such files into errors.
fn check_components(document: &Value) -> std::result::Result<(), String> {
    fn typed(value: &Value) -> Option<&str> {
        value.get("type").and_then(Value::as_str)
    }
    fn normalizer(value: &Value) -> std::result::Result<(), String> {
        match typed(value) {
            Some("NFKC" | "Lowercase") => Ok(()),
            // SentencePiece's compiled normalization rules (imported Marian tokenizers).
            Some("Precompiled") => match value.get("precompiled_charsmap") {
                Some(Value::String(text)) => check_charsmap(text),
                _ => Err("a Precompiled normalizer needs a `precompiled_charsmap` string".into()),
            },
            Some("Replace") => {
                let pattern = value.get("pattern");
                let ok = pattern
                    .and_then(|p| p.get("Regex").or_else(|| p.get("String")))
                    .is_some_and(Value::is_string)
                    && value.get("content").is_some_and(Value::is_string);
                if ok {
                    Ok(())
                } else {
                    Err("a Replace normalizer needs a String or Regex `pattern` and a `content` string".into())
                }
            }
            Some("Sequence") => match value.get("normalizers").and_then(Value::as_array) {
                Some(items) => items.iter().try_for_each(normalizer),
                None => Err("a Sequence normalizer needs a `normalizers` list".into()),
            },
            other => Err(format!(
                "unsupported normalizer {other:?} (NFKC, Lowercase, Precompiled, Replace, Sequence)"
            )),
        }
    }
    fn pre_tokenizer(value: &Value) -> std::result::Result<(), String> {
        match typed(value) {
            Some("Whitespace" | "WhitespaceSplit") => Ok(()),
            Some("Punctuation") => match value.get("behavior").and_then(Value::as_str) {
                Some("Isolated") => Ok(()),
                _ => Err("unsupported Punctuation pre-tokenizer (behavior Isolated)".into()),
            },
            Some("Metaspace") => {
                let replacement = value.get("replacement").and_then(Value::as_str);
                let scheme = value.get("prepend_scheme").and_then(Value::as_str);
                if replacement == Some("\u{2581}")
                    && matches!(scheme, Some("first" | "always" | "never"))
                    && value.get("split").is_some_and(Value::is_boolean)
                {
                    Ok(())
                } else {
                    Err("unsupported Metaspace pre-tokenizer (replacement ▁, prepend_scheme first/always/never, split)".into())
                }
            }
            Some("Split") => {
                let pattern = value.get("pattern");
                let ok = pattern.and_then(|p| p.get("Regex")).and_then(Value::as_str) == Some(".")
                    || pattern.and_then(|p| p.get("String")).is_some_and(Value::is_string);
                let behavior = value.get("behavior").and_then(Value::as_str);
                if ok && behavior == Some("Isolated") && value.get("invert").is_some_and(Value::is_boolean) {
                    Ok(())
                } else {
                    Err("unsupported Split pre-tokenizer (pattern Regex \".\" or a String, behavior Isolated)".into())
                }
            }
            Some("Sequence") => match value.get("pretokenizers").and_then(Value::as_array) {
                Some(items) => items.iter().try_for_each(pre_tokenizer),
                None => Err("a Sequence pre-tokenizer needs a `pretokenizers` list".into()),
            },
            other => Err(format!("unsupported pre-tokenizer {other:?} (Whitespace, WhitespaceSplit, Split, Punctuation, Metaspace, Sequence)")),
        }
    }
    let object = document
        .as_object()
        .ok_or("the file is not a JSON object")?;
    for field in ["truncation", "padding", "post_processor", "decoder"] {
        if !object.get(field).is_none_or(Value::is_null) {
            return Err(format!("`{field}` must be null"));
        }
    }
    if !object
        .get("added_tokens")
        .is_none_or(|v| v.as_array().is_some_and(Vec::is_empty))
    {
        return Err("`added_tokens` must be empty".into());
    }
    if let Some(value) = object.get("normalizer").filter(|v| !v.is_null()) {
        normalizer(value)?;
    }
    if let Some(value) = object.get("pre_tokenizer").filter(|v| !v.is_null()) {
        pre_tokenizer(value)?;
    }
    let model = object.get("model").ok_or("no `model`")?;
    match typed(model) {
        Some("WordLevel") => {}
        Some("BPE") => check_bpe(model)?,
        Some("Unigram") => return check_unigram(model),
        _ => return Err("the model must be WordLevel, BPE or Unigram".into()),
    }
    let vocab = model
        .get("vocab")
        .and_then(Value::as_object)
        .ok_or("the model has no `vocab` object")?;
    if !vocab.values().all(|id| {
        id.as_u64()
            .is_some_and(|id| id < crate::model::config::MAX_VOCAB as u64)
    }) {
        return Err("every vocabulary id must be an integer below 200000".into());
    }
    if !model.get("unk_token").is_some_and(Value::is_string) {
        return Err("the model needs an `unk_token` string".into());
    }
    Ok(())
}

/// Cut `text` at every occurrence of the `specials`' strings (leftmost first): `(start, end,
/// Some(id))` for a special token, `(start, end, None)` for the non-empty text between.
fn split_on(text: &str, specials: &[(&str, u32)]) -> Vec<(usize, usize, Option<u32>)> {
    let mut out = vec![];
    let mut from = 0;
    let mut at = 0;
    while at < text.len() {
        let found = specials
            .iter()
            .find(|(s, _)| text[at..].starts_with(s))
            .copied();
        match found {
            Some((s, id)) => {
                if from < at {
                    out.push((from, at, None));
                }
                out.push((at, at + s.len(), Some(id)));
                at += s.len();
                from = at;
            }
            None => at += text[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    if from < text.len() {
        out.push((from, text.len(), None));
    }
    out
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

/// Decode standard base64 (with or without padding); `None` if it is not base64.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= u32::from(value(c)?) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        match chunk.len() {
            4 => out.extend(&bytes[1..4]),
            3 => out.extend(&bytes[1..3]),
            2 => out.push(bytes[1]),
            _ => return None,
        }
    }
    Some(out)
}

/// A SentencePiece compiled character map that `tokenizers` can use without indexing out of
/// its arrays: `tokenizers` (spm_precompiled 0.1.4) walks the map's double-array trie without
/// bounds checks, so a corrupt map in a model a person opens would panic the page's worker.
/// Every state any input can reach is visited once and each read it would make is checked.
fn check_charsmap(base64: &str) -> std::result::Result<(), String> {
    let bad = |why: &str| Err(format!("the Precompiled character map is corrupt ({why})"));
    let Some(bytes) = base64_decode(base64) else {
        return bad("not base64");
    };
    let Some(size) = bytes
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    else {
        return bad("shorter than its header");
    };
    let trie_end = 4 + (size as usize / 4) * 4;
    let Some(trie_bytes) = bytes.get(4..trie_end) else {
        return bad("the trie is longer than the file");
    };
    let units: Vec<usize> = trie_bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .collect();
    let Ok(normalized) = std::str::from_utf8(&bytes[trie_end..]) else {
        return bad("its replacement text is not UTF-8");
    };
    // spm_precompiled's unit accessors.
    let offset = |u: usize| (u >> 10) << ((u & (1 << 9)) >> 6);
    let label = |u: usize| u & ((1 << 31) | 0xff);
    let has_leaf = |u: usize| (u >> 8) & 1 == 1;
    let leaf_value = |u: usize| u & ((1 << 31) - 1);
    let Some(&root) = units.first() else {
        return bad("an empty trie");
    };
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![offset(root)];
    while let Some(node) = stack.pop() {
        if !seen.insert(node) {
            continue;
        }
        // Every byte UTF-8 text can hold (the walk stops at 0).
        for c in (1..=0xf4usize).filter(|c| !matches!(c, 0xc0 | 0xc1)) {
            let Some(&unit) = units.get(node ^ c) else {
                return bad("a transition outside the trie");
            };
            if label(unit) != c {
                continue;
            }
            let next = (node ^ c) ^ offset(unit);
            if has_leaf(unit) {
                let Some(&leaf) = units.get(next) else {
                    return bad("a value outside the trie");
                };
                let start = leaf_value(leaf);
                if start > normalized.len() || !normalized.is_char_boundary(start) {
                    return bad("a replacement outside its text");
                }
            }
            stack.push(next);
        }
    }
    Ok(())
}

/// A Unigram model as `attnscope import marian` writes it: `[piece, score]` pairs with finite
/// scores, an `unk_id` inside them, no byte fallback.
fn check_unigram(model: &Value) -> std::result::Result<(), String> {
    let vocab = model
        .get("vocab")
        .and_then(Value::as_array)
        .ok_or("the Unigram model has no `vocab` list")?;
    if vocab.is_empty() || vocab.len() > crate::model::config::MAX_VOCAB {
        return Err(format!(
            "the Unigram vocabulary has {} entries (1..=200000)",
            vocab.len()
        ));
    }
    let entry_ok = |entry: &Value| {
        entry.as_array().is_some_and(|pair| {
            pair.len() == 2
                && pair[0].as_str().is_some_and(|s| !s.is_empty())
                && pair[1].as_f64().is_some_and(f64::is_finite)
        })
    };
    if !vocab.iter().all(entry_ok) {
        return Err("every Unigram entry must be [non-empty piece, finite score]".into());
    }
    if model
        .get("unk_id")
        .and_then(Value::as_u64)
        .is_none_or(|id| id >= vocab.len() as u64)
    {
        return Err("the Unigram model needs an `unk_id` inside its vocabulary".into());
    }
    if model.get("byte_fallback") == Some(&Value::Bool(true)) {
        return Err("byte fallback is not supported".into());
    }
    Ok(())
}

/// The BPE fields attnscope writes: merges as pairs or "a b" strings, no dropout, no byte
/// fallback, no prefix or suffix.
fn check_bpe(model: &Value) -> std::result::Result<(), String> {
    let merges = model
        .get("merges")
        .and_then(Value::as_array)
        .ok_or("the BPE model has no `merges` list")?;
    let merge_ok = |m: &Value| match m {
        Value::String(s) => s.split(' ').count() == 2,
        Value::Array(pair) => pair.len() == 2 && pair.iter().all(Value::is_string),
        _ => false,
    };
    if !merges.iter().all(merge_ok) {
        return Err("every BPE merge must be two pieces".into());
    }
    for field in ["dropout", "continuing_subword_prefix", "end_of_word_suffix"] {
        if !model.get(field).is_none_or(Value::is_null) {
            return Err(format!("the BPE model's `{field}` must be null"));
        }
    }
    for field in ["fuse_unk", "byte_fallback", "ignore_merges"] {
        if !model.get(field).is_none_or(Value::is_boolean) {
            return Err(format!("the BPE model's `{field}` must be a boolean"));
        }
    }
    if model.get("byte_fallback") == Some(&Value::Bool(true)) {
        return Err("byte fallback is not supported".into());
    }
    Ok(())
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

/// The punctuation marks Chinese text writes full-width, after NFKC has made them ASCII.
pub const FULL_WIDTH_PUNCTUATION: [(char, char); 7] = [
    (',', '，'),
    ('?', '？'),
    ('!', '！'),
    (':', '：'),
    (';', '；'),
    ('(', '（'),
    (')', '）'),
];

/// A `tokenizer.json` document for a vocabulary (specials first, then `words`).
pub fn tokenizer_json(granularity: Granularity, words: &[String]) -> String {
    let mut vocab = serde_json::Map::new();
    for (id, token) in SPECIAL_TOKENS
        .iter()
        .map(|s| s.to_string())
        .chain(words.iter().cloned())
        .enumerate()
    {
        vocab.entry(token).or_insert(json!(id));
    }
    let nfkc = json!({"type": "NFKC"});
    let lowercase = json!({"type": "Lowercase"});
    let each_char = json!({"type": "Split", "pattern": {"Regex": "."}, "behavior": "Isolated", "invert": false});
    let (normalizer, pre_tokenizer) = match granularity {
        Granularity::Words => (
            json!({"type": "Sequence", "normalizers": [nfkc, lowercase]}),
            json!({"type": "Whitespace"}),
        ),
        Granularity::Characters => (
            nfkc,
            json!({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, each_char]}),
        ),
        Granularity::Chinese => {
            let mut normalizers = vec![nfkc];
            normalizers.extend(FULL_WIDTH_PUNCTUATION.iter().map(|(ascii, wide)| {
                json!({"type": "Replace", "pattern": {"String": ascii.to_string()}, "content": wide.to_string()})
            }));
            (
                json!({"type": "Sequence", "normalizers": normalizers}),
                json!({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, each_char]}),
            )
        }
        Granularity::CharactersWithSpaces => (
            json!({"type": "Sequence", "normalizers": [nfkc, lowercase]}),
            each_char,
        ),
        Granularity::Subwords { .. } => (
            nfkc,
            json!({"type": "Sequence", "pretokenizers": [
                {"type": "Punctuation", "behavior": "Isolated"},
                {"type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "first", "split": true},
            ]}),
        ),
    };
    let model = json!({"type": "WordLevel", "vocab": vocab, "unk_token": SPECIAL_TOKENS[1]});
    serde_json::to_string_pretty(&tokenizer_document(normalizer, pre_tokenizer, model))
        .unwrap_or_default()
}

/// A `tokenizer.json` document with the parts attnscope's loader accepts: these three, and no
/// added tokens, post-processor, decoder, truncation or padding.
pub fn tokenizer_document(normalizer: Value, pre_tokenizer: Value, model: Value) -> Value {
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": null,
        "decoder": null,
        "model": model,
    })
}

/// How pieces seen equally often are ordered: alphabetically, full-width punctuation as its
/// ASCII form (so [`Granularity::Chinese`] gives the ids [`Granularity::Characters`] gave,
/// and the models trained before punctuation was kept full-width keep theirs).
fn tie_order(piece: &str) -> String {
    piece
        .chars()
        .map(|c| {
            FULL_WIDTH_PUNCTUATION
                .iter()
                .find(|(_, wide)| *wide == c)
                .map_or(c, |(ascii, _)| *ascii)
        })
        .collect()
}

/// Build a tokenizer whose vocabulary is every piece seen in `texts` at least `min_count` times,
/// most frequent first (ties alphabetical, so the result is deterministic; see [`tie_order`]).
pub fn build_tokenizer<'a>(
    granularity: Granularity,
    texts: impl IntoIterator<Item = &'a str>,
    min_count: usize,
) -> Result<TextTokenizer> {
    let empty = TextTokenizer::from_bytes(
        tokenizer_json(granularity, &[]).as_bytes(),
        "new tokenizer",
        SpecialIds::default(),
    )?;
    if let Granularity::Subwords { vocab_size } = granularity {
        return build_subwords(&empty, texts, vocab_size, min_count);
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in texts {
        for piece in empty.pieces(text)? {
            *counts.entry(piece).or_default() += 1;
        }
    }
    let mut words: Vec<(String, usize)> = counts
        .into_iter()
        .filter(|(word, count)| *count >= min_count && !SPECIAL_TOKENS.contains(&word.as_str()))
        .collect();
    words.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| tie_order(&a.0).cmp(&tie_order(&b.0)))
            .then_with(|| a.0.cmp(&b.0))
    });
    let words: Vec<String> = words.into_iter().map(|(word, _)| word).collect();
    TextTokenizer::from_bytes(
        tokenizer_json(granularity, &words).as_bytes(),
        "new tokenizer",
        SpecialIds::default(),
    )
}

/// Train a BPE vocabulary with the HF `tokenizers` trainer on the pieces `empty` cuts
/// `texts` into (its normalizer and pre-tokenizer), and wrap it in a tokenizer of that shape.
fn build_subwords<'a>(
    empty: &TextTokenizer,
    texts: impl IntoIterator<Item = &'a str>,
    vocab_size: usize,
    min_count: usize,
) -> Result<TextTokenizer> {
    let fail = |message: String| Error::Tokenizer {
        file: "new tokenizer".into(),
        message,
    };
    let texts: Vec<&str> = texts.into_iter().collect();
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(vocab_size)
        .min_frequency(min_count as u64)
        .show_progress(false)
        .special_tokens(
            SPECIAL_TOKENS
                .iter()
                .map(|t| AddedToken::from(*t, true))
                .collect(),
        )
        .build();
    trainer
        .feed(texts.iter(), |text| {
            empty
                .pieces(text)
                .map_err(|e| Box::<dyn std::error::Error + Send + Sync>::from(e.to_string()))
        })
        .map_err(|e| fail(e.to_string()))?;
    let mut bpe = BPE::default();
    trainer.train(&mut bpe).map_err(|e| fail(e.to_string()))?;
    let mut model = serde_json::to_value(&bpe).map_err(|e| fail(e.to_string()))?;
    model["unk_token"] = json!(SPECIAL_TOKENS[1]);
    model["fuse_unk"] = json!(true);
    let mut document: Value =
        serde_json::from_str(&empty.to_json()?).map_err(|e| fail(e.to_string()))?;
    document["model"] = model;
    let bytes = serde_json::to_vec(&document).map_err(|e| fail(e.to_string()))?;
    TextTokenizer::from_bytes(&bytes, "new tokenizer", SpecialIds::default())
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
    fn chinese_keeps_its_punctuation_full_width_with_the_ids_characters_gave() {
        // Pieces seen equally often ("!", "(", "a", …) order as their ASCII forms would.
        let texts = ["你好，吗?", "a,b", "好?", "!():;"];
        let zh = build_tokenizer(Granularity::Chinese, texts, 1).unwrap();
        let plain = build_tokenizer(Granularity::Characters, texts, 1).unwrap();
        // Typed half-width or full-width, Chinese punctuation is one full-width token.
        let pieces = |text: &str| -> Vec<String> {
            let ids = zh.encode(text).unwrap().ids;
            ids.iter()
                .map(|&id| zh.token(id).unwrap().to_string())
                .collect()
        };
        for typed in ["你好,吗?", "你好，吗？"] {
            assert_eq!(pieces(typed), ["你", "好", "，", "吗", "？"]);
            assert_eq!(
                zh.encode(typed).unwrap().ids,
                plain.encode(typed).unwrap().ids
            );
        }
        assert_eq!(pieces("好!(a):b;").concat(), "好！（a）：b；");
        for id in 0..plain.vocab_size() as u32 {
            let wide = zh.token(id).unwrap();
            assert_eq!(tie_order(wide), plain.token(id).unwrap());
        }
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

    #[test]
    fn subwords_split_unseen_words_and_show_word_starts() {
        let texts = [
            "I love eating apples.",
            "I love you.",
            "They are eating.",
            "The apples are red.",
            "Don't eat the apple!",
        ];
        let build = || build_tokenizer(Granularity::Subwords { vocab_size: 60 }, texts, 1).unwrap();
        let bpe = build();
        assert_eq!(
            bpe.to_json().unwrap(),
            build().to_json().unwrap(),
            "deterministic"
        );
        let encoded = bpe.encode("I love eating apples.").unwrap();
        assert_eq!(encoded.tokens.first().map(String::as_str), Some("▁I"));
        assert_eq!(encoded.tokens.last().map(String::as_str), Some("."));
        // Pieces joined back give the text, with spaces at the word starts.
        let pieces: Vec<&str> = encoded
            .ids
            .iter()
            .map(|&id| bpe.token(id).unwrap())
            .collect();
        assert_eq!(join_pieces(pieces, ""), "I love eating apples.");
        // An unseen word is made of known pieces; only an unseen character is `<unk>`.
        let unseen = bpe.encode("Theapples 🍎").unwrap();
        assert_eq!(unseen.unknown.iter().filter(|&&u| u).count(), 1);
        assert!(unseen.tokens.len() > 2);
        assert_eq!(
            unseen.tokens.concat().replace('▁', " ").trim(),
            "Theapples 🍎"
        );
    }

    #[test]
    fn corrupt_character_maps_are_errors_not_panics() {
        // The nmt_nfkc map of a real SentencePiece model passes.
        let file = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/marian/en_zh_swish_tied/hf/source.spm"
        ))
        .unwrap();
        let spm = crate::text::spm::SentencePieceModel::from_bytes(&file, "source.spm").unwrap();
        let map = &spm.normalizer.precompiled_charsmap;
        assert_eq!(map.len(), 240_007);
        let encoded = crate::import::base64(map);
        assert_eq!(base64_decode(&encoded).as_deref(), Some(map.as_slice()));
        check_charsmap(&encoded).unwrap();
        // Damaged copies: each is rejected or, where the damage is harmless, accepted; a
        // tokenizer built from an accepted one normalizes text without panicking.
        let mut rng = crate::session::sampling::Rng::new(7);
        for round in 0..40 {
            let mut damaged = map.clone();
            match round % 3 {
                0 => damaged.truncate((rng.next_u64() % (map.len()) as u64) as usize),
                1 => {
                    for _ in 0..8 {
                        let at = (rng.next_u64() % (map.len()) as u64) as usize;
                        damaged[at] = (rng.next_u64() % (256)) as u8;
                    }
                }
                _ => {
                    let at = 4 + 4 * (rng.next_u64() % (1000)) as usize;
                    damaged[at..at + 4].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f]);
                }
            }
            let encoded = crate::import::base64(&damaged);
            if check_charsmap(&encoded).is_ok() {
                let normalizer: tokenizers::NormalizerWrapper = serde_json::from_value(
                    json!({"type": "Precompiled", "precompiled_charsmap": encoded}),
                )
                .unwrap();
                for text in ["I love eating apples.", "ｆｕｌｌ ﬁ …", "我爱吃苹果。😀"]
                {
                    let mut s = tokenizers::NormalizedString::from(text);
                    let _ = normalizer.normalize(&mut s);
                }
            }
        }
        assert!(check_charsmap("not base64!").is_err());
        assert!(check_charsmap("").is_err());
    }

    #[test]
    fn bad_files_are_typed_errors() {
        for bytes in [&b"not json"[..], b"{}", b"{\"model\": 3}"] {
            assert!(matches!(
                TextTokenizer::from_bytes(bytes, "x.json", SpecialIds::default()),
                Err(Error::Tokenizer { .. })
            ));
        }
        // Components attnscope does not write are refused before `tokenizers` parses them.
        let good: Value = serde_json::from_str(&tokenizer_json(Granularity::Words, &[])).unwrap();
        for (pointer, value) in [
            ("/decoder", json!({"type": "ByteLevel"})),
            ("/decoder", json!("{\u{0}")),
            (
                "/normalizer",
                json!({"type": "Precompiled", "precompiled_charsmap": 3}),
            ),
            (
                "/pre_tokenizer",
                json!({"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": false}),
            ),
            ("/added_tokens", json!([{"id": 0, "content": "<pad>"}])),
            ("/model/type", json!("BPE")),
            ("/model/vocab/<pad>", json!(-1)),
        ] {
            let mut bad = good.clone();
            *bad.pointer_mut(pointer)
                .unwrap_or_else(|| panic!("{pointer}")) = value;
            let bytes = serde_json::to_vec(&bad).unwrap();
            assert!(
                TextTokenizer::from_bytes(&bytes, "x.json", SpecialIds::default()).is_err(),
                "{pointer} accepted"
            );
        }
        // A vocabulary without the specials in front is rejected.
        let wrong = tokenizer_json(Granularity::Words, &[]).replace("<pad>", "<pod>");
        assert!(
            TextTokenizer::from_bytes(wrong.as_bytes(), "x.json", SpecialIds::default()).is_err()
        );
    }
}
