//! Beam search over the current source: every hypothesis kept at each step, the ones pruned,
//! and the final ranking. It reads the session's source and leaves its sentence alone; the page
//! shows a hypothesis's attention by forcing its tokens ([`Session::force_ids`]).
//!
//! At each step every live hypothesis is extended by its `width` most probable next tokens
//! (never `<pad>` or `<s>`); the `width` extensions with the highest cumulative log-probability
//! are kept, those ending in `</s>` are finished. Search stops when `width` hypotheses have
//! finished, none is live, or the output is as long as the model allows. Finished hypotheses
//! (or, if none finished, the live ones) are ranked by the length-normalised score
//! `log P / ((5 + len) / 6)^α` (Wu et al. 2016), `len` counting `</s>`. Width 1 is greedy.

use burn::tensor::{Int, Tensor, TensorData};
use serde::Serialize;

use super::readback::{flat, read_back};
use super::Session;
use crate::error::{Error, Result};
use crate::sampling::{log_probabilities, top_k};

/// The widest beam the page and the CLI offer.
pub const MAX_BEAM_WIDTH: usize = 8;

/// One extension considered during the search.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeamNode {
    /// The node it extends (`None`: the start token).
    pub parent: Option<usize>,
    /// Decoding step (0 = the first token after `<s>`).
    pub step: usize,
    /// Target id.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// log p of this token given its prefix.
    pub log_prob: f64,
    /// Cumulative log-probability of the path to here.
    pub score: f64,
    /// Whether it survived the pruning of its step.
    pub kept: bool,
    /// Whether it is `</s>`.
    pub finished: bool,
}

/// A hypothesis of the final ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeamFinal {
    /// Its last node.
    pub node: usize,
    /// Target ids after `<s>` (ending with `</s>` when finished).
    pub ids: Vec<u32>,
    /// Their texts.
    pub tokens: Vec<String>,
    /// Sum of the tokens' log-probabilities.
    pub log_prob: f64,
    /// The length-normalised score it is ranked by.
    pub score: f64,
}

/// A whole beam search.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeamSearch {
    /// Beam width.
    pub width: usize,
    /// α of the length penalty.
    pub length_penalty: f64,
    /// Every extension considered, step by step.
    pub nodes: Vec<BeamNode>,
    /// The ranking, best first.
    pub finals: Vec<BeamFinal>,
}

/// The length penalty `((5 + len) / 6)^α`.
pub fn length_penalty(len: usize, alpha: f64) -> f64 {
    ((5.0 + len as f64) / 6.0).powf(alpha)
}

struct Live {
    ids: Vec<u32>,
    log_prob: f64,
    node: Option<usize>,
}

impl Session {
    /// Beam search of width 1..=8 with length-penalty `alpha` over the current source.
    pub async fn beam(&self, width: usize, alpha: f64) -> Result<BeamSearch> {
        if !(1..=MAX_BEAM_WIDTH).contains(&width) {
            return Err(Error::Usage(format!(
                "beam width {width} is out of range (1..={MAX_BEAM_WIDTH})"
            )));
        }
        self.beam_search(width, alpha).await
    }

    /// Beam search of any width (tests compare a wide one with exhaustive search).
    pub async fn beam_search(&self, width: usize, alpha: f64) -> Result<BeamSearch> {
        if width == 0 || !(alpha.is_finite() && alpha >= 0.0) {
            return Err(Error::Usage(format!(
                "beam width must be ≥ 1 and the length penalty a number ≥ 0 (got {width}, {alpha})"
            )));
        }
        let config = &self.loaded.config;
        let src_ids = self.trace()?.src_ids.clone();
        let mut nodes: Vec<BeamNode> = vec![];
        let mut finished: Vec<Live> = vec![];
        let mut live = vec![Live {
            ids: vec![],
            log_prob: 0.0,
            node: None,
        }];
        let never = config.never_generated();
        for step in 0..config.max_len.saturating_sub(1) {
            if live.is_empty() || finished.len() >= width {
                break;
            }
            let rows = self.next_log_probs(&src_ids, &live).await?;
            let mut candidates = vec![];
            for (k, (hypothesis, row)) in live.iter().zip(&rows).enumerate() {
                let mut row = row.clone();
                for &id in &never {
                    if let Some(l) = row.get_mut(id as usize) {
                        *l = f64::NEG_INFINITY;
                    }
                }
                let as_f32: Vec<f32> = row.iter().map(|&l| l as f32).collect();
                for id in top_k(&as_f32, width) {
                    if row[id].is_finite() {
                        candidates.push((k, id as u32, row[id], hypothesis.log_prob + row[id]));
                    }
                }
            }
            // Stable: equal scores keep the order of their parents and tokens.
            let mut order: Vec<usize> = (0..candidates.len()).collect();
            order.sort_by(|&a, &b| candidates[b].3.total_cmp(&candidates[a].3));
            let kept: Vec<bool> = {
                let mut kept = vec![false; candidates.len()];
                for &i in order.iter().take(width) {
                    kept[i] = true;
                }
                kept
            };
            let mut next = vec![];
            for (i, &(k, id, log_prob, score)) in candidates.iter().enumerate() {
                let node = nodes.len();
                let is_end = id == config.eos_id;
                nodes.push(BeamNode {
                    parent: live[k].node,
                    step,
                    id,
                    token: self.target_text(id),
                    log_prob,
                    score,
                    kept: kept[i],
                    finished: is_end,
                });
                if kept[i] {
                    let mut ids = live[k].ids.clone();
                    ids.push(id);
                    let hypothesis = Live {
                        ids,
                        log_prob: score,
                        node: Some(node),
                    };
                    if is_end {
                        finished.push(hypothesis);
                    } else {
                        next.push((score, hypothesis));
                    }
                }
            }
            next.sort_by(|a, b| b.0.total_cmp(&a.0));
            live = next.into_iter().map(|(_, h)| h).collect();
        }
        let ranked = if finished.is_empty() { live } else { finished };
        let mut finals: Vec<BeamFinal> = ranked
            .into_iter()
            .filter_map(|h| {
                let node = h.node?;
                Some(BeamFinal {
                    node,
                    tokens: h.ids.iter().map(|&id| self.target_text(id)).collect(),
                    score: h.log_prob / length_penalty(h.ids.len(), alpha),
                    ids: h.ids,
                    log_prob: h.log_prob,
                })
            })
            .collect();
        finals.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(BeamSearch {
            width,
            length_penalty: alpha,
            nodes,
            finals,
        })
    }

    /// log p of every next token for each hypothesis, in one batched pass (no cache: each
    /// prefix is decoded whole).
    async fn next_log_probs(&self, src_ids: &[u32], live: &[Live]) -> Result<Vec<Vec<f64>>> {
        let config = &self.loaded.config;
        let batch = live.len();
        let len = live[0].ids.len() + 1;
        let src: Vec<u32> = src_ids.repeat(batch);
        let encoded = self.loaded.model.encode(self.ids_tensor(&src, batch), None);
        let prefixes: Vec<i64> = live
            .iter()
            .flat_map(|h| std::iter::once(config.bos_id).chain(h.ids.iter().copied()))
            .map(i64::from)
            .collect();
        let tgt: Tensor<2, Int> =
            Tensor::from_data(TensorData::new(prefixes, [batch, len]), &self.device);
        let logits = self.loaded.model.decode(tgt, &encoded, None).logits; // [batch, len, vocab]
        let last = logits.narrow(1, len - 1, 1); // [batch, 1, vocab]
        let values = read_back(vec![flat(last)]).await?.concat();
        Ok(values
            .chunks(config.tgt_vocab_size)
            .map(log_probabilities)
            .collect())
    }
}
