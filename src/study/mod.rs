//! Which heads matter, measured over many sentences: each head's mean importance, the roles it
//! plays ([`roles`]), and the report both make ([`report`], the model folder's heads.json).
//!
//! Shared by `attnscope heads` and the playground, which scores a model in training in the
//! page's worker (the `train` feature): every read is async. Native only: [`sentences`] (the
//! held-out sources decoded in batches) and [`prune`] (the pruning curve, scored with the
//! training metrics).
//!
//! The sentences are held-out sources, each with the intact model's greedy output: importance is
//! teacher-forced on that output, as the page's is on the sentence it shows.

#[cfg(not(target_arch = "wasm32"))]
pub mod prune;
pub mod report;
pub mod roles;

use serde::Serialize;

use crate::error::Result;
use crate::model::ablation::{Ablation, HeadRef};
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::session::heads::teacher_forced;

/// Sentences per batch of a teacher-forced pass.
const BATCH: usize = 32;

/// One sentence of a study: its source ids and `<s>` + the intact model's greedy output.
#[derive(Clone, Debug)]
pub struct Sentence {
    /// Source ids, cut as the page cuts them (ending with `</s>`).
    pub src: Vec<u32>,
    /// `<s>`, the output ids, and `</s>` when the output ended by itself.
    pub tgt: Vec<u32>,
}

impl Sentence {
    /// `src` with `<s>` + `output` (the model's greedy output) as its target.
    pub fn new(config: &ModelConfig, src: Vec<u32>, output: Vec<u32>) -> Self {
        let mut tgt = Vec::with_capacity(output.len() + 1);
        tgt.push(config.bos_id);
        tgt.extend(output);
        Self { src, tgt }
    }
}

/// Tokenize `sources` and decode each greedily with the intact model (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn sentences(
    loaded: &crate::files::folder::LoadedModel,
    sources: &[&str],
) -> Result<Vec<Sentence>> {
    let config = &loaded.config;
    let ids = sources
        .iter()
        .map(|text| loaded.source_ids(text))
        .collect::<Result<Vec<_>>>()?;
    let outputs = crate::train::evaluate::greedy_all(&loaded.model, config, &ids, 64)?;
    Ok(ids
        .into_iter()
        .zip(outputs)
        .map(|(src, output)| Sentence::new(config, src, output))
        .collect())
}

/// Each sentence's total teacher-forced log-probability of its output under `model`.
pub async fn total_log_probs(
    model: &Transformer,
    config: &ModelConfig,
    sentences: &[Sentence],
) -> Result<Vec<f64>> {
    let mut totals = Vec::with_capacity(sentences.len());
    for chunk in sentences.chunks(BATCH) {
        let sources: Vec<&[u32]> = chunk.iter().map(|s| s.src.as_slice()).collect();
        let targets: Vec<&[u32]> = chunk.iter().map(|s| s.tgt.as_slice()).collect();
        let log_p = teacher_forced(model, config, &sources, &targets).await?;
        totals.extend(log_p.iter().map(|row| row.iter().sum::<f64>()));
    }
    Ok(totals)
}

/// One head's importance over a set of sentences.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MeanImportance {
    /// The head.
    #[serde(flatten)]
    pub head: HeadRef,
    /// The mean, over the sentences, of the fall of the output's total log-probability when
    /// this head alone is off.
    pub importance: f64,
    /// The share of sentences whose greedy output would score lower with the head off.
    pub hurt_share: f64,
}

/// Every head's mean importance over `sentences`, in [`HeadRef::all`]'s order.
pub async fn importance(
    model: &Transformer,
    config: &ModelConfig,
    sentences: &[Sentence],
) -> Result<Vec<MeanImportance>> {
    let base = total_log_probs(model, config, sentences).await?;
    let n = sentences.len().max(1) as f64;
    let mut heads = Vec::new();
    for head in HeadRef::all(config) {
        let ablated = model.without_heads(config, &Ablation::new(vec![head]))?;
        let totals = total_log_probs(&ablated, config, sentences).await?;
        let drops: Vec<f64> = base.iter().zip(&totals).map(|(b, a)| b - a).collect();
        heads.push(MeanImportance {
            head,
            importance: drops.iter().sum::<f64>() / n,
            hurt_share: drops.iter().filter(|&&d| d > 0.0).count() as f64 / n,
        });
    }
    Ok(heads)
}
