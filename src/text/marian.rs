//! The Marian rules (`tokenizer_rules: "marian"`): what `MarianTokenizer` does around its
//! SentencePiece models, for tokenizers `attnscope import marian` writes.

use tokenizers::Normalizer;

use super::{visible, Encoded, TextTokenizer};
use crate::error::{Error, Result};

/// In a tokenizer file written for [`TokenizerRules::Marian`], a vocabulary entry that this
/// side's SentencePiece model lacks (the other language's pieces, `>>lang<<` codes, the special
/// tokens) starts with this mark, a plain space. The segmentation only ever sees spaces as `▁`,
/// so it never matches such an entry, as SentencePiece would not; the rules strip the mark to
/// look a run of unknown characters up whole, as `MarianTokenizer` does.
pub const OUTSIDE_MODEL: char = ' ';

impl TextTokenizer {
    /// `MarianTokenizer.tokenize`: split on the literal special tokens; in each other chunk a
    /// leading `>>code<<` is one token, the rest is segmented, and a run of unknown characters
    /// (one `<unk>` piece, its surface text kept) is looked up whole in the joint vocabulary.
    pub(super) fn encode_marian(&self, text: &str) -> Result<Encoded> {
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
