//! Checks on untrusted tokenizer files, before `tokenizers` parses them: a person may open any
//! model folder, and `tokenizers` panics on some malformed components (a panic in the browser
//! kills the wasm instance).

use serde_json::Value;

use super::base64;
use crate::model::config::MAX_VOCAB;

/// Accept only the components attnscope writes (see `tokenizer_json`): a WordLevel model,
/// NFKC/Lowercase normalizers, Whitespace/WhitespaceSplit/Split(".") pre-tokenizers, no added
/// tokens, decoder, post-processor, truncation or padding.
///
/// `tokenizers` 0.23 panics (an `expect`) on some malformed component JSON, and a panic in the
/// browser kills the wasm instance; checking the document first turns such files into errors.
pub(super) fn check_components(document: &Value) -> std::result::Result<(), String> {
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
    if !vocab
        .values()
        .all(|id| id.as_u64().is_some_and(|id| id < MAX_VOCAB as u64))
    {
        return Err("every vocabulary id must be an integer below 200000".into());
    }
    if !model.get("unk_token").is_some_and(Value::is_string) {
        return Err("the model needs an `unk_token` string".into());
    }
    Ok(())
}

/// A component's `type`.
fn typed(value: &Value) -> Option<&str> {
    value.get("type").and_then(Value::as_str)
}
/// A normalizer attnscope writes or imports.
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
                Err(
                    "a Replace normalizer needs a String or Regex `pattern` and a `content` string"
                        .into(),
                )
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
/// A pre-tokenizer attnscope writes or imports.
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

/// A SentencePiece compiled character map that `tokenizers` can use without indexing out of
/// its arrays: `tokenizers` (spm_precompiled 0.1.4) walks the map's double-array trie without
/// bounds checks, so a corrupt map in a model a person opens would panic the page's worker.
/// Every state any input can reach is visited once and each read it would make is checked.
fn check_charsmap(base64: &str) -> std::result::Result<(), String> {
    let bad = |why: &str| Err(format!("the Precompiled character map is corrupt ({why})"));
    let Some(bytes) = base64::decode(base64) else {
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

/// A model's list field, or `missing` as the error.
fn list<'v>(
    model: &'v Value,
    field: &str,
    missing: &str,
) -> std::result::Result<&'v Vec<Value>, String> {
    model
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| missing.to_string())
}

/// Byte fallback (unknown characters as byte pieces) is not supported.
fn no_byte_fallback(model: &Value) -> std::result::Result<(), String> {
    if model.get("byte_fallback") == Some(&Value::Bool(true)) {
        return Err("byte fallback is not supported".into());
    }
    Ok(())
}

/// A Unigram model as `attnscope import marian` writes it: `[piece, score]` pairs with finite
/// scores, an `unk_id` inside them, no byte fallback.
fn check_unigram(model: &Value) -> std::result::Result<(), String> {
    let vocab = list(model, "vocab", "the Unigram model has no `vocab` list")?;
    if vocab.is_empty() || vocab.len() > MAX_VOCAB {
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
    no_byte_fallback(model)
}

/// The BPE fields attnscope writes: merges as pairs or "a b" strings, no dropout, no byte
/// fallback, no prefix or suffix.
fn check_bpe(model: &Value) -> std::result::Result<(), String> {
    let merges = list(model, "merges", "the BPE model has no `merges` list")?;
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
    no_byte_fallback(model)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokenizers::Normalizer;

    use super::*;
    use crate::model::config::SpecialIds;
    use crate::text::{tokenizer_json, Granularity, TextTokenizer};
    use crate::Error;

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
        let encoded = base64::encode(map);
        assert_eq!(base64::decode(&encoded).as_deref(), Some(map.as_slice()));
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
            let encoded = base64::encode(&damaged);
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
