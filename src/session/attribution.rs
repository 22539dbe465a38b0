//! Attribution beside attention: how much the model *used* each source token for one output
//! token, measured without reading attention. Occlusion: replace source token `j` with `<unk>`,
//! teacher-force the same output prefix, and take the drop in the chosen token's log-probability,
//! `log p(y_i | x, y_<i) − log p(y_i | x with x_j = <unk>, y_<i)`. All occluded sources and the
//! original go through the model as one batch.

use serde::Serialize;

use super::Session;
use crate::error::{Error, Result};
use crate::trace::analysis::{spearman, Analysis};
use crate::trace::Floats;

/// One output token's attribution over the source, next to its attention.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attribution {
    /// Decoder row (it produced `tgt_tokens[row + 1]`).
    pub row: usize,
    /// The produced token's id.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// Always `"occlusion"`.
    pub method: &'static str,
    /// Per source token: the drop in log p of the token when that source token is `<unk>`.
    pub occlusion: Floats,
    /// That row of the last decoder layer's cross-attention, mean over heads.
    pub attention: Floats,
    /// That row of the rollout source attribution.
    pub rollout: Floats,
    /// Spearman's rank correlation of `occlusion` with `attention`.
    pub spearman_attention: f32,
    /// Spearman's rank correlation of `occlusion` with `rollout`.
    pub spearman_rollout: f32,
}

impl Session {
    /// Occlusion attribution of decoder row `row` of the current trace.
    pub async fn attribution(&self, row: usize) -> Result<Attribution> {
        let config = &self.loaded.config;
        let trace = self.trace()?;
        if row >= trace.rows() {
            return Err(Error::OutOfRange {
                what: "output token",
                index: row,
                len: trace.rows(),
            });
        }
        let src = &trace.src_ids;
        let id = trace.tgt_ids[row + 1];
        // Row 0 is the source as it is; row 1 + j has token j replaced by <unk>.
        let batch = src.len() + 1;
        let mut sources = src.clone();
        for j in 0..src.len() {
            let mut occluded = src.clone();
            occluded[j] = config.unk_id;
            sources.extend(occluded);
        }
        let prefixes = trace.tgt_ids[..=row].repeat(batch);
        let log_p: Vec<f64> = self
            .next_log_probs(&sources, &prefixes, batch)
            .await?
            .iter()
            .map(|row| row[id as usize])
            .collect();
        let occlusion: Vec<f32> = log_p[1..].iter().map(|&o| (log_p[0] - o) as f32).collect();
        let analysis = Analysis::of(trace);
        let last_layer = trace.cross_attention.layers.saturating_sub(1);
        let attention = analysis.head_mean.cross.matrix(last_layer, 0);
        let rollout = analysis.source_attribution.matrix(0, 0);
        let keys = trace.cross_attention.keys;
        let attention = attention[row * keys..(row + 1) * keys].to_vec();
        let rollout = rollout[row * keys..(row + 1) * keys].to_vec();
        Ok(Attribution {
            row,
            id,
            token: self.target_text(id),
            method: "occlusion",
            spearman_attention: spearman(&occlusion, &attention),
            spearman_rollout: spearman(&occlusion, &rollout),
            occlusion: Floats(occlusion),
            attention: Floats(attention),
            rollout: Floats(rollout),
        })
    }

    /// Replace the output with `ids` (target ids after `<s>`), e.g. a beam hypothesis.
    pub async fn force_ids(&mut self, ids: &[u32]) -> Result<()> {
        for &id in ids {
            self.check_target_id(id)?;
        }
        self.set_prefix_ids(ids).await
    }
}
