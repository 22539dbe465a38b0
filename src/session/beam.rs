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

use serde::Serialize;

use super::Session;
use crate::error::{Error, Result};
use crate::session::sampling::{rule_out, top_k};

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

/// One extension of a live hypothesis: (its index, the token, the token's log p, the new
/// total log p).
type Extension = (usize, u32, f64, f64);

/// Each live hypothesis's `width` most probable extensions (never-generated tokens ruled
/// out), and which of all of them the beam keeps: the `width` best totals.
fn extensions(
    live: &[Live],
    rows: &[Vec<f64>],
    never: &[u32],
    width: usize,
) -> (Vec<Extension>, Vec<bool>) {
    let mut candidates = vec![];
    for (k, (hypothesis, row)) in live.iter().zip(rows).enumerate() {
        let mut row = row.clone();
        rule_out(&mut row, never, f64::NEG_INFINITY);
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
    let mut kept = vec![false; candidates.len()];
    for &i in order.iter().take(width) {
        kept[i] = true;
    }
    (candidates, kept)
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
        for step in 0..config.output_limit().saturating_sub(1) {
            if live.is_empty() || finished.len() >= width {
                break;
            }
            let prefixes: Vec<u32> = live
                .iter()
                .flat_map(|h| std::iter::once(config.bos_id).chain(h.ids.iter().copied()))
                .collect();
            let rows = self
                .next_log_probs(&src_ids.repeat(live.len()), &prefixes, live.len())
                .await?;
            let never = config.never_generated_at(step + 1);
            let (candidates, kept) = extensions(&live, &rows, &never, width);
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
}
