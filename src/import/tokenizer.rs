//! Each side's SentencePiece model as a Unigram `tokenizer.json` over the joint vocabulary.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::fail;
use crate::error::Result;
use crate::text::spm::{PieceType, SentencePieceModel, UNIGRAM};
use crate::text::{base64, tokenizer_document, OUTSIDE_MODEL};

/// A SentencePiece unigram model over the joint vocabulary as a `tokenizer.json`; also the
/// number of the model's pieces that the vocabulary lacks.
///
/// Entry *i* is vocabulary id *i*. Pieces of this `.spm` keep their scores; every other entry
/// (the other side's pieces, `>>lang<<` codes, special tokens) starts with [`OUTSIDE_MODEL`], so
/// the segmentation never produces it, as SentencePiece would not.
pub fn spm_tokenizer_json(
    spm: &SentencePieceModel,
    vocab: &[String],
    unk_id: u32,
    file: &str,
) -> Result<(String, usize)> {
    if spm.model_type != UNIGRAM {
        return Err(fail(format!(
            "{file}: model type {} is not unigram",
            spm.model_type
        )));
    }
    if spm.byte_fallback || spm.treat_whitespace_as_suffix || !spm.normalizer.escape_whitespaces {
        return Err(fail(format!(
            "{file}: byte fallback, whitespace as suffix and unescaped spaces are not supported"
        )));
    }
    let scores: HashMap<&str, f32> = spm
        .pieces
        .iter()
        .filter(|p| matches!(p.kind, PieceType::Normal | PieceType::UserDefined))
        .map(|p| (p.piece.as_str(), p.score))
        .collect();
    let in_vocab: HashSet<&str> = vocab.iter().map(String::as_str).collect();
    let missing = scores.keys().filter(|p| !in_vocab.contains(*p)).count();
    let entries: Vec<Value> = vocab
        .iter()
        .map(|piece| match scores.get(piece.as_str()) {
            Some(score) => json!([piece, f64::from(*score)]),
            None => json!([format!("{OUTSIDE_MODEL}{piece}"), 0.0]),
        })
        .collect();
    let spec = &spm.normalizer;
    let mut normalizers = vec![];
    if !spec.precompiled_charsmap.is_empty() {
        normalizers.push(json!({
            "type": "Precompiled",
            "precompiled_charsmap": base64::encode(&spec.precompiled_charsmap),
        }));
    } else if spec.name != "identity" && !spec.name.is_empty() {
        return Err(fail(format!(
            "{file}: normalization {:?} has no compiled character map",
            spec.name
        )));
    }
    if spec.remove_extra_whitespaces {
        // SentencePiece's: after the character map, drop leading and trailing spaces and
        // collapse runs (spaces only: a tab the map keeps stays a tab).
        for (pattern, content) in [("^ +", ""), (" +$", ""), (" {2,}", " ")] {
            normalizers.push(json!({
                "type": "Replace",
                "pattern": {"Regex": pattern},
                "content": content,
            }));
        }
    }
    let normalizer = match normalizers.len() {
        0 => Value::Null,
        _ => json!({"type": "Sequence", "normalizers": normalizers}),
    };
    let pre_tokenizer = json!({
        "type": "Metaspace",
        "replacement": "\u{2581}",
        "prepend_scheme": if spec.add_dummy_prefix { "always" } else { "never" },
        "split": false,
    });
    let model = json!({
        "type": "Unigram",
        "unk_id": unk_id,
        "vocab": entries,
        "byte_fallback": false,
    });
    let document = tokenizer_document(normalizer, pre_tokenizer, model);
    let text = serde_json::to_string(&document)?;
    Ok((text, missing))
}
