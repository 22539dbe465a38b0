//! The pruning curve: switch heads off in order of least importance and score the held-out
//! translations after each one, as Michel et al. (2019) do. The score is the one the model's
//! `metrics.json` reports: chrF for the translators, exact match for dates.

use serde::Serialize;

use crate::error::Result;
use crate::files::folder::LoadedModel;
use crate::model::ablation::{Ablation, HeadRef};
use crate::session::output_text;
use crate::train::data::metrics;
use crate::train::data::Pair;
use crate::train::evaluate::greedy_decode;

/// How a held-out translation is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Metric {
    /// Corpus chrF (0–100).
    Chrf,
    /// Share of outputs equal to the reference (0–1).
    ExactMatch,
}

impl Metric {
    /// The metric `metrics.json` uses for a model: exact match for `date-iso`, chrF otherwise.
    pub fn for_model(name: &str) -> Self {
        if name == "date-iso" {
            Metric::ExactMatch
        } else {
            Metric::Chrf
        }
    }

    fn score(self, hypotheses: &[String], references: &[String]) -> f64 {
        match self {
            Metric::Chrf => metrics::chrf(hypotheses, references),
            Metric::ExactMatch => metrics::exact_match(hypotheses, references),
        }
    }
}

/// The score with the first `removed` heads of the order switched off.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrunePoint {
    /// Heads off.
    pub removed: usize,
    /// The last head switched off (none at 0).
    pub head: Option<HeadRef>,
    /// The held-out score.
    pub score: f64,
}

/// The whole curve.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PruneCurve {
    /// What `score` is.
    pub metric: Metric,
    /// Held-out pairs scored.
    pub pairs: usize,
    /// One point per number of heads removed (every `stride`-th, and the last).
    pub points: Vec<PrunePoint>,
}

/// Score `pairs` with 0, `stride`, 2·`stride`, … and finally all of `order`'s heads off.
pub fn curve(
    loaded: &LoadedModel,
    pairs: &[Pair],
    order: &[HeadRef],
    metric: Metric,
    stride: usize,
) -> Result<PruneCurve> {
    let config = &loaded.config;
    let sources = pairs
        .iter()
        .map(|p| loaded.source_ids(&p.source))
        .collect::<Result<Vec<_>>>()?;
    let references: Vec<String> = pairs.iter().map(|p| p.target.clone()).collect();
    let mut counts: Vec<usize> = (0..=order.len()).step_by(stride.max(1)).collect();
    if counts.last() != Some(&order.len()) {
        counts.push(order.len());
    }
    let mut points = vec![];
    for removed in counts {
        let ablation = Ablation::new(order[..removed].to_vec());
        let model = loaded.model.without_heads(config, &ablation)?;
        let outputs = greedy_decode(&model, config, &sources, 64)?;
        let hypotheses: Vec<String> = outputs
            .iter()
            .map(|o| output_text(config, &loaded.tgt_tokenizer, o))
            .collect();
        points.push(PrunePoint {
            removed,
            head: removed.checked_sub(1).map(|i| order[i]),
            score: metric.score(&hypotheses, &references),
        });
    }
    Ok(PruneCurve {
        metric,
        pairs: pairs.len(),
        points,
    })
}

/// Heads in order of least mean importance first (ties by the listing order).
pub fn least_important_first(importance: &[super::MeanImportance]) -> Vec<HeadRef> {
    let mut sorted: Vec<&super::MeanImportance> = importance.iter().collect();
    sorted.sort_by(|a, b| a.importance.total_cmp(&b.importance));
    sorted.iter().map(|m| m.head).collect()
}
