//! A MarianMT checkpoint's decoding settings, as transformers' `generate()` uses them: from
//! `generation_config.json`, or from `config.json` when the folder has none (transformers'
//! `GenerationConfig.from_model_config`). What attnscope applies becomes
//! [`Generation`]; what it does not is said in a note, with the reason.
//!
//! | setting | here |
//! |---|---|
//! | `max_length` (transformers' default 20), `max_new_tokens` | the output limit (start token included), at most `max_position_embeddings` |
//! | `forced_eos_token_id` = `eos_token_id` | `</s>` at the last position |
//! | `bad_words_ids` of one token | never generated (`<pad>` always is) |
//! | `decoder_start_token_id`, `pad_token_id`, `eos_token_id` | must agree with config.json |
//! | `num_beams`, `length_penalty`, `early_stopping` | noted: the page decodes greedily; the beam view searches with the width and penalty you choose |
//! | `do_sample`, `temperature`, `top_k`, `top_p` | noted: sampling is the page's own setting |
//! | `min_length`, `min_new_tokens`, `repetition_penalty`, `no_repeat_ngram_size`, `forced_bos_token_id`, longer bad words | noted, not applied |

use serde_json::Value;

use super::{fail, read_json, Checkpoint};
use crate::error::Result;
use crate::model::config::ModelConfig;
use crate::model::generation::Generation;

/// transformers' `max_length` when neither file sets one.
const TRANSFORMERS_MAX_LENGTH: usize = 20;

/// The decoding settings of `files` for `config` (already made from `config.json`, `hf`);
/// what is not applied is pushed to `notes`.
pub fn generation(
    files: &dyn Checkpoint,
    hf: &Value,
    config: &ModelConfig,
    notes: &mut Vec<String>,
) -> Result<Generation> {
    let (settings, source) = if files.has("generation_config.json") {
        (
            read_json(files, "generation_config.json")?,
            "generation_config.json",
        )
    } else {
        (hf.clone(), "config.json")
    };
    let number = |field: &str| settings.get(field).and_then(Value::as_u64);
    for (field, id) in [
        ("decoder_start_token_id", config.bos_id),
        ("pad_token_id", config.pad_id),
        ("eos_token_id", config.eos_id),
    ] {
        if let Some(given) = settings.get(field).filter(|v| !v.is_null()) {
            if given.as_u64() != Some(u64::from(id)) {
                return Err(fail(format!(
                    "{source}: {field} is {given}, config.json and vocab.json say {id}"
                )));
            }
        }
    }
    let wanted = match number("max_new_tokens") {
        Some(new_tokens) => new_tokens as usize + 1,
        None => number("max_length").map_or(TRANSFORMERS_MAX_LENGTH, |n| n as usize),
    };
    if wanted > config.max_len {
        notes.push(format!(
            "{source}: max_length {wanted} is more than the {} positions the model has; outputs stop at {}",
            config.max_len, config.max_len
        ));
    }
    let forced_eos = forced_eos(&settings, source, config, notes);
    let bad_ids = bad_words(&settings, source, config, notes)?;
    not_applied(&settings, source, notes);
    Ok(Generation {
        max_length: Some(wanted.clamp(2, config.max_len)),
        forced_eos,
        bad_ids,
    })
}

/// `forced_eos_token_id`: applied when it is `</s>`.
fn forced_eos(
    settings: &Value,
    source: &str,
    config: &ModelConfig,
    notes: &mut Vec<String>,
) -> bool {
    match settings.get("forced_eos_token_id") {
        None | Some(Value::Null) => false,
        Some(id) if id.as_u64() == Some(u64::from(config.eos_id)) => true,
        Some(other) => {
            notes.push(format!(
                "{source}: forced_eos_token_id {other} is not </s> ({}); not applied",
                config.eos_id
            ));
            false
        }
    }
}

/// One-token `bad_words_ids` (besides `<pad>`, never generated anyway); longer ones noted.
fn bad_words(
    settings: &Value,
    source: &str,
    config: &ModelConfig,
    notes: &mut Vec<String>,
) -> Result<Vec<u32>> {
    let Some(words) = settings.get("bad_words_ids").filter(|v| !v.is_null()) else {
        return Ok(vec![]);
    };
    let words = words
        .as_array()
        .ok_or_else(|| fail(format!("{source}: bad_words_ids is not a list of lists")))?;
    let mut ids = vec![];
    for word in words {
        let pieces: Option<Vec<u32>> = word.as_array().and_then(|w| {
            w.iter()
                .map(|id| id.as_u64().and_then(|id| u32::try_from(id).ok()))
                .collect()
        });
        match pieces.as_deref() {
            Some(&[id]) if (id as usize) < config.tgt_vocab_size => {
                if !config.never_generated().contains(&id) && !ids.contains(&id) {
                    ids.push(id);
                }
            }
            Some(&[id]) => {
                return Err(fail(format!(
                    "{source}: bad_words_ids holds {id}, outside the vocabulary of {}",
                    config.tgt_vocab_size
                )))
            }
            _ => notes.push(format!(
                "{source}: the bad word {word} is not one token id; not applied"
            )),
        }
    }
    Ok(ids)
}

/// A setting and the test of its value that leaves decoding as it is (so it needs no note).
type Setting<'a> = (&'a str, &'a dyn Fn(&Value) -> bool);

/// Settings transformers would use that attnscope does not: each noted with the reason.
fn not_applied(settings: &Value, source: &str, notes: &mut Vec<String>) {
    let set = |field: &str, neutral: &dyn Fn(&Value) -> bool| {
        settings
            .get(field)
            .filter(|v| !v.is_null() && !neutral(v))
            .map(|v| format!("{field} {v}"))
    };
    let one = |v: &Value| v.as_f64() == Some(1.0);
    let zero = |v: &Value| v.as_f64() == Some(0.0);
    let off = |v: &Value| v.as_bool() == Some(false);
    let any = |_: &Value| false;
    // transformers' default top_k; sampling settings matter only with do_sample.
    let fifty = |v: &Value| v.as_u64() == Some(50);
    let groups: [(&[Setting<'_>], &str); 3] = [
        (
            &[("num_beams", &one), ("length_penalty", &one), ("early_stopping", &off)],
            "the page decodes greedily, and its beam view searches with the width and length penalty you choose",
        ),
        (
            &[("do_sample", &off), ("temperature", &one), ("top_k", &fifty), ("top_p", &one)],
            "sampling is the page's own setting",
        ),
        (
            &[
                ("min_length", &zero),
                ("min_new_tokens", &zero),
                ("repetition_penalty", &one),
                ("no_repeat_ngram_size", &zero),
                ("forced_bos_token_id", &any),
            ],
            "attnscope shows the model's own probabilities, unchanged by these",
        ),
    ];
    for (fields, reason) in groups {
        let found: Vec<String> = fields
            .iter()
            .filter_map(|(field, neutral)| set(field, *neutral))
            .collect();
        if !found.is_empty() {
            notes.push(format!(
                "{source}: {} not applied: {reason}",
                found.join(", ")
            ));
        }
    }
}
