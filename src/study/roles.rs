//! What each head does, in words, with the score behind each word. Over a set of sentences, every
//! head gets a score for each role it can play; a role is the head's when its score reaches the
//! threshold, and both numbers are reported ("previous token, 81 % of its weight").
//!
//! - **previous**: the mean weight row `i` puts on position `i − 1` (rows `i ≥ 1`); self-attention.
//! - **same**: the mean weight on the diagonal; self-attention.
//! - **next**: the mean weight on position `i + 1`; encoder self-attention only (the decoder cannot
//!   see ahead).
//! - **sink**: the mean weight on `<s>`/`</s>` keys.
//! - **broad**: the mean entropy of a row over the log of the keys it can see (1 = uniform).
//! - **alignment** (cross-attention): the share of output tokens whose most-attended source token
//!   is the one whose occlusion (`<unk>` in its place, the same output teacher-forced) lowers that
//!   output token's log-probability most, as the page's attribution view measures it.
//!
//! Rows that see one key only (the decoder's first row, whose weight on itself is 1 whatever the
//! head does) say nothing about a head and are skipped for same, sink and broad. A decoder trained
//! without the causal mask (a playground switch) sees every key from every row.
//!
//! [`score`] reads the weights asynchronously, so the page's worker can score a model in
//! training; `roles` runs it to completion natively.

use std::collections::BTreeMap;

use burn::tensor::Tensor;
use serde::Serialize;

use super::Sentence;
use crate::error::{Error, Result};
use crate::model::ablation::HeadRef;
use crate::model::config::ModelConfig;
use crate::model::packed::read;
use crate::model::{AttentionKind, Transformer};
use crate::session::heads::{padded, teacher_forced};
use crate::session::sampling::top_k;

/// A role a head can play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// Attends to the token before.
    Previous,
    /// Attends to its own position.
    Same,
    /// Attends to the token after (encoder).
    Next,
    /// Parks its weight on `<s>`/`</s>`.
    Sink,
    /// Spreads its weight (high entropy).
    Broad,
    /// Looks at the source token the output token depends on (cross-attention).
    Alignment,
}

impl Role {
    /// Every role, in the order they are reported.
    pub const ALL: [Role; 6] = [
        Role::Previous,
        Role::Same,
        Role::Next,
        Role::Sink,
        Role::Broad,
        Role::Alignment,
    ];

    /// The score at which a head is said to play this role.
    pub fn threshold(self) -> f64 {
        match self {
            // 40 % of a row's weight on one relative position: four times what a uniform row
            // over ten keys (a typical sentence) puts there.
            Role::Previous | Role::Same | Role::Next => 0.4,
            // Half the weight parked on one or two tokens that carry no word.
            Role::Sink => 0.5,
            // 70 % of the entropy of a uniform row.
            Role::Broad => 0.7,
            // The attended token is the one that matters for half the output tokens.
            Role::Alignment => 0.5,
        }
    }

    /// Whether heads of `kind` can play this role.
    pub fn applies_to(self, kind: AttentionKind) -> bool {
        match self {
            Role::Previous | Role::Same => kind != AttentionKind::Cross,
            Role::Next => kind == AttentionKind::EncoderSelf,
            Role::Sink | Role::Broad => true,
            Role::Alignment => kind == AttentionKind::Cross,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One role's score for one head.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleScore {
    /// The role.
    pub role: Role,
    /// The mean over the rows that count (see the module docs).
    pub score: f64,
    /// The score at which the role is the head's.
    pub threshold: f64,
    /// Attention rows measured.
    pub rows: usize,
}

/// A head's roles.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadRoles {
    /// The head.
    #[serde(flatten)]
    pub head: HeadRef,
    /// Every role that applies to its kind, with its score.
    pub scores: Vec<RoleScore>,
    /// The roles whose score reaches the threshold, the highest score first.
    pub roles: Vec<Role>,
}

/// Sums and counts of one head's role measures.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    sum: f64,
    rows: usize,
}

type Tallies = BTreeMap<HeadRef, [Tally; 6]>;

/// Every head's roles over `sentences`, in [`HeadRef::all`]'s order.
pub async fn score(
    model: &Transformer,
    config: &ModelConfig,
    sentences: &[Sentence],
) -> Result<Vec<HeadRoles>> {
    let mut tallies: Tallies = HeadRef::all(config)
        .into_iter()
        .map(|head| (head, [Tally::default(); 6]))
        .collect();
    for sentence in sentences {
        tally_sentence(&mut tallies, model, config, sentence).await?;
    }
    Ok(tallies
        .into_iter()
        .map(|(head, tally)| head_roles(head, &tally))
        .collect())
}

/// [`score`], run to completion on this thread (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn roles(
    model: &Transformer,
    config: &ModelConfig,
    sentences: &[Sentence],
) -> Result<Vec<HeadRoles>> {
    crate::block_on(score(model, config, sentences))
}

fn head_roles(head: HeadRef, tally: &[Tally; 6]) -> HeadRoles {
    let scores: Vec<RoleScore> = Role::ALL
        .into_iter()
        .filter(|role| role.applies_to(head.kind))
        .map(|role| {
            let t = tally[role.index()];
            RoleScore {
                role,
                score: t.sum / t.rows.max(1) as f64,
                threshold: role.threshold(),
                rows: t.rows,
            }
        })
        .collect();
    let mut playing: Vec<&RoleScore> = scores
        .iter()
        .filter(|s| s.rows > 0 && s.score >= s.threshold)
        .collect();
    playing.sort_by(|a, b| b.score.total_cmp(&a.score));
    HeadRoles {
        head,
        roles: playing.iter().map(|s| s.role).collect(),
        scores,
    }
}

/// Add one sentence's attention rows to every head's tallies.
async fn tally_sentence(
    tallies: &mut Tallies,
    model: &Transformer,
    config: &ModelConfig,
    sentence: &Sentence,
) -> Result<()> {
    let device = model.positional_encoding.device();
    let (src, tgt) = (&sentence.src, &sentence.tgt);
    let inputs = &tgt[..tgt.len().saturating_sub(1)];
    if inputs.is_empty() {
        return Ok(());
    }
    let ids = |ids: &[u32]| padded(&[ids], config.pad_id, &device);
    let encoded = model.encode(ids(src), None);
    let decoded = model.decode(ids(inputs), &encoded, None);
    // Every block's weights, `[1, heads, rows, cols]` each, read back in one transfer.
    let mut blocks: Vec<(AttentionKind, usize)> = vec![];
    let mut weights: Vec<Tensor<1>> = vec![];
    for (layer, attention) in encoded.attention.iter().enumerate() {
        blocks.push((AttentionKind::EncoderSelf, layer));
        weights.push(attention.weights.clone().flatten(0, 3));
    }
    for (layer, attention) in decoded.attention.iter().enumerate() {
        blocks.push((AttentionKind::DecoderSelf, layer));
        weights.push(attention.self_attention.weights.clone().flatten(0, 3));
        blocks.push((AttentionKind::Cross, layer));
        weights.push(attention.cross_attention.weights.clone().flatten(0, 3));
    }
    let lengths: Vec<usize> = weights.iter().map(|w| w.dims()[0]).collect();
    let values = read(Tensor::cat(weights, 0)).await?;
    let alignment = occlusion_argmax(model, config, sentence).await?;
    let special = |ids: &[u32]| -> Vec<bool> {
        ids.iter()
            .map(|&id| id == config.bos_id || id == config.eos_id)
            .collect()
    };
    let (src_special, tgt_special) = (special(src), special(inputs));
    let mut offset = 0;
    for ((kind, layer), length) in blocks.into_iter().zip(lengths) {
        let block = values
            .get(offset..offset + length)
            .ok_or(Error::Invariant("attention weights read back short"))?;
        offset += length;
        let matrix = match kind {
            AttentionKind::EncoderSelf => Matrix::new(src.len(), src.len(), &src_special, kind),
            AttentionKind::DecoderSelf => {
                Matrix::new(inputs.len(), inputs.len(), &tgt_special, kind)
                    .causal(config.causal_decoder)
            }
            AttentionKind::Cross => Matrix::new(inputs.len(), src.len(), &src_special, kind),
        };
        let alignment = (kind == AttentionKind::Cross).then_some(alignment.as_slice());
        tally_layer(tallies, kind, layer, block, &matrix, alignment);
    }
    Ok(())
}

/// For each output token, the source position whose occlusion lowers its log-probability most.
async fn occlusion_argmax(
    model: &Transformer,
    config: &ModelConfig,
    sentence: &Sentence,
) -> Result<Vec<usize>> {
    let src = &sentence.src;
    let mut sources: Vec<Vec<u32>> = vec![src.clone()];
    for j in 0..src.len() {
        let mut occluded = src.clone();
        occluded[j] = config.unk_id;
        sources.push(occluded);
    }
    let source_refs: Vec<&[u32]> = sources.iter().map(Vec::as_slice).collect();
    let targets = vec![sentence.tgt.as_slice(); sources.len()];
    let log_p = teacher_forced(model, config, &source_refs, &targets).await?;
    let rows = sentence.tgt.len() - 1;
    Ok((0..rows)
        .map(|t| {
            let drops: Vec<f32> = (0..src.len())
                .map(|j| (log_p[0][t] - log_p[1 + j][t]) as f32)
                .collect();
            top_k(&drops, 1).first().copied().unwrap_or(0)
        })
        .collect())
}

/// One attention block's shape and which of its keys are `<s>`/`</s>`.
struct Matrix<'a> {
    rows: usize,
    cols: usize,
    special: &'a [bool],
    kind: AttentionKind,
    /// Whether row `i` sees keys `..= i` only (a causal decoder's self-attention).
    causal: bool,
}

impl<'a> Matrix<'a> {
    fn new(rows: usize, cols: usize, special: &'a [bool], kind: AttentionKind) -> Self {
        Self {
            rows,
            cols,
            special,
            kind,
            causal: false,
        }
    }

    /// The same block, seen through the decoder's causal mask when `causal` (a playground
    /// model may be trained without it).
    fn causal(self, causal: bool) -> Self {
        Self { causal, ..self }
    }

    /// How many keys row `i` can see.
    fn visible(&self, i: usize) -> usize {
        if self.causal {
            (i + 1).min(self.cols)
        } else {
            self.cols
        }
    }
}

/// Add every head of one layer: `weights` is `[heads, rows, cols]` (batch 1).
fn tally_layer(
    tallies: &mut Tallies,
    kind: AttentionKind,
    layer: usize,
    weights: &[f32],
    matrix: &Matrix<'_>,
    alignment: Option<&[usize]>,
) {
    let size = matrix.rows * matrix.cols;
    for (head, w) in weights.chunks(size.max(1)).enumerate() {
        if let Some(tally) = tallies.get_mut(&HeadRef::new(kind, layer, head)) {
            tally_matrix(tally, w, matrix, alignment);
        }
    }
}

/// Add one head's matrix (`[rows, cols]`) to its tallies.
fn tally_matrix(tally: &mut [Tally; 6], w: &[f32], m: &Matrix<'_>, alignment: Option<&[usize]>) {
    let mut add = |role: Role, value: f32| {
        let t = &mut tally[role.index()];
        t.sum += f64::from(value);
        t.rows += 1;
    };
    for i in 0..m.rows {
        let row = &w[i * m.cols..(i + 1) * m.cols];
        let visible = m.visible(i);
        if m.kind != AttentionKind::Cross {
            if i >= 1 {
                add(Role::Previous, row[i - 1]);
            }
            if visible >= 2 {
                add(Role::Same, row[i]);
            }
            if m.kind == AttentionKind::EncoderSelf && i + 1 < m.cols {
                add(Role::Next, row[i + 1]);
            }
        }
        if visible >= 2 {
            let sink = (0..visible).filter(|&j| m.special[j]).map(|j| row[j]).sum();
            add(Role::Sink, sink);
            let entropy: f32 = row[..visible]
                .iter()
                .filter(|&&p| p > 0.0)
                .map(|&p| -p * p.ln())
                .sum();
            add(Role::Broad, entropy / (visible as f32).ln());
        }
        if let Some(&wanted) = alignment.and_then(|a| a.get(i)) {
            let looked = top_k(&row[..visible], 1).first().copied();
            add(
                Role::Alignment,
                if looked == Some(wanted) { 1.0 } else { 0.0 },
            );
        }
    }
}
