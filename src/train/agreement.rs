//! How far apart two human translators are on Tatoeba, and where a translator stands against
//! them: `metrics.json`'s `humanAgreement` (`scripts/human_agreement.py` prints the same with
//! sacreBLEU, and `tests/integration/metrics.rs` checks the two agree).
//!
//! Tatoeba often has two translations of one sentence, written by different people. Scoring the
//! first against the second gives what a translation as good as a second human's scores against
//! a single reference: chrF 35.8 for Chinese, 63.5 for English. A model's held-out chrF is then
//! read as a share of that ceiling.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::data::metrics::{chrf, chrf_multi};
use super::data::read_tsv;
use super::sets::MAX_ENGLISH_WORDS;
use crate::error::Result;

/// A translator's held-out figures beside two human translators'.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HumanAgreement {
    /// Tatoeba source sentences (English of at most 12 words) with two distinct translations.
    pub sentences: usize,
    /// Over those, the first translation scored against the second.
    pub two_humans_chrf: f64,
    /// The model's held-out Tatoeba chrF over `two_humans_chrf`.
    pub model_share: f64,
    /// Held-out Tatoeba pairs whose source has a second translation (never trained on: the
    /// held-out rule drops every training pair with a held-out source).
    pub heldout_pairs: usize,
    /// Over those, the second translation against the held-out reference.
    pub second_human_chrf: f64,
    /// Over those, the model against the held-out reference.
    pub model_chrf: f64,
    /// Over those, the model against both translations at once (each output meets the nearer).
    pub model_multi_reference_chrf: f64,
    /// Over those, the model against the second translation alone.
    pub model_against_second_chrf: f64,
}

/// Every short Tatoeba source sentence with its distinct translations in the file's order:
/// English → Chinese, or with `reversed` Chinese → English.
pub fn translations(data_dir: &Path, reversed: bool) -> Result<HashMap<String, Vec<String>>> {
    let rows = read_tsv(&data_dir.join("tatoeba/tatoeba.tsv"), "en", "zh")?;
    let mut found: HashMap<String, Vec<String>> = HashMap::new();
    for pair in rows {
        if pair.source.split_whitespace().count() > MAX_ENGLISH_WORDS {
            continue;
        }
        let (source, target) = match reversed {
            false => (pair.source, pair.target),
            true => (pair.target, pair.source),
        };
        let seen = found.entry(source).or_default();
        if !seen.contains(&target) {
            seen.push(target);
        }
    }
    Ok(found)
}

/// The sentences with two translations and the first scored against the second.
pub fn two_humans(translations: &HashMap<String, Vec<String>>) -> (usize, f64) {
    let (first, second): (Vec<String>, Vec<String>) = translations
        .values()
        .filter(|t| t.len() >= 2)
        .map(|t| (t[0].clone(), t[1].clone()))
        .unzip();
    (first.len(), chrf(&first, &second))
}

/// A model's held-out Tatoeba translations, `(set, source, reference, output)` as
/// [`super::evaluate::Metrics::outputs`] keeps them, against the human translators.
pub fn human_agreement(
    data_dir: &Path,
    reversed: bool,
    outputs: &[[String; 4]],
) -> Result<HumanAgreement> {
    let translations = translations(data_dir, reversed)?;
    let (sentences, two_humans_chrf) = two_humans(&translations);
    let heldout: Vec<&[String; 4]> = outputs.iter().filter(|r| r[0] == "tatoeba").collect();
    let column = |rows: &[&[String; 4]], i: usize| rows.iter().map(|r| r[i].clone()).collect();
    let (all_outputs, all_references): (Vec<String>, Vec<String>) =
        (column(&heldout, 3), column(&heldout, 2));
    let mut second = vec![];
    let mut with_second = vec![];
    for row in heldout {
        let other = translations
            .get(&row[1])
            .and_then(|t| t.iter().find(|t| **t != row[2]));
        if let Some(other) = other {
            second.push(other.clone());
            with_second.push(row);
        }
    }
    let (output, reference): (Vec<String>, Vec<String>) =
        (column(&with_second, 3), column(&with_second, 2));
    let both: Vec<Vec<String>> = reference
        .iter()
        .zip(&second)
        .map(|(r, s)| vec![r.clone(), s.clone()])
        .collect();
    Ok(HumanAgreement {
        sentences,
        two_humans_chrf,
        model_share: chrf(&all_outputs, &all_references) / two_humans_chrf,
        heldout_pairs: with_second.len(),
        second_human_chrf: chrf(&second, &reference),
        model_chrf: chrf(&output, &reference),
        model_multi_reference_chrf: chrf_multi(&output, &both),
        model_against_second_chrf: chrf(&output, &second),
    })
}
