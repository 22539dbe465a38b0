//! The shape of every `tokenizer.json` attnscope writes: for its own models (`build`, and the
//! playground's, which trains in the page) and for imported Marian ones (the import runs in the
//! page too, so this is not native-only).

use serde_json::{json, Value};

use super::{Granularity, SPECIAL_TOKENS};

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
