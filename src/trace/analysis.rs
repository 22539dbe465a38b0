//! Summaries computed from a trace, on the host: the mean and the max over heads, attention
//! rollout through the encoder (Abnar & Zuidema 2020), and a source attribution for each output
//! token that combines the last layer's cross-attention with that rollout.
//!
//! Rollout: for each encoder layer, average the heads, add the identity for the residual
//! connection and renormalise the rows, `Â_l = norm(0.5·mean_h(A_l) + 0.5·I)`; then multiply
//! the layers, `R_l = Â_l · R_{l−1}` with `R_{−1} = I`. Source attribution of decoder row `i`:
//! `mean_h(C_last)[i] · R_last`, where `C_last` is the last decoder layer's cross-attention.

use serde::Serialize;

use crate::model::packed::times;
use crate::trace::{AttentionStack, Trace};

/// One value per kind of attention.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerKind {
    /// Encoder self-attention.
    pub encoder_self: AttentionStack,
    /// Decoder self-attention.
    pub decoder_self: AttentionStack,
    /// Cross-attention.
    pub cross: AttentionStack,
}

/// The summaries of one trace.
///
/// # Shapes
/// Every stack has one "head"; `encoder_rollout` is `[enc_layers, 1, src, src]`,
/// `source_attribution` is `[1, 1, rows, src]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// The mean over heads, per layer.
    pub head_mean: PerKind,
    /// The max over heads, per layer.
    pub head_max: PerKind,
    /// Layer `l`: the rollout through encoder layers `0..=l`.
    pub encoder_rollout: AttentionStack,
    /// Each decoder row's attribution over the source tokens.
    pub source_attribution: AttentionStack,
}

impl Analysis {
    /// Summarise a trace.
    pub fn of(trace: &Trace) -> Self {
        let per_kind = |reduce: Reduce| PerKind {
            encoder_self: over_heads(&trace.encoder_self_attention, reduce),
            decoder_self: over_heads(&trace.decoder_self_attention, reduce),
            cross: over_heads(&trace.cross_attention, reduce),
        };
        let head_mean = per_kind(Reduce::Mean);
        let encoder_rollout = rollout(&head_mean.encoder_self);
        let source_attribution = source_attribution(&head_mean.cross, &encoder_rollout);
        Self {
            head_max: per_kind(Reduce::Max),
            head_mean,
            encoder_rollout,
            source_attribution,
        }
    }
}

/// How the heads of a cell are reduced to one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// The mean over heads.
    Mean,
    /// The max over heads.
    Max,
}

/// Reduce the heads of every layer to one, cell by cell. Whole matrices are folded head after
/// head (the same additions in the same order as a per-cell sum, so the same numbers), which
/// reads each head's matrix once instead of gathering a cell's heads with a stride.
pub fn over_heads(stack: &AttentionStack, reduce: Reduce) -> AttentionStack {
    let size = stack.queries * stack.keys;
    let mut data = Vec::with_capacity(stack.layers * size);
    for layer in 0..stack.layers {
        let start = data.len();
        if stack.heads == 0 {
            data.resize(start + size, 0.0);
            continue;
        }
        data.extend_from_slice(stack.matrix(layer, 0));
        let out = &mut data[start..];
        for head in 1..stack.heads {
            let matrix = stack.matrix(layer, head);
            match reduce {
                Reduce::Mean => out.iter_mut().zip(matrix).for_each(|(o, v)| *o += v),
                // A compare-and-select vectorises (f32::max is a call to fmaxf on wasm).
                Reduce::Max => out
                    .iter_mut()
                    .zip(matrix)
                    .for_each(|(o, &v)| *o = if v > *o { v } else { *o }),
            }
        }
        if reduce == Reduce::Mean {
            let heads = stack.heads as f32;
            out.iter_mut().for_each(|o| *o /= heads);
        }
    }
    AttentionStack::new(stack.layers, 1, stack.queries, stack.keys, data)
}

/// Row-major `[n, m] · [m, p]`: through the packed products' kernel (`b` packed on the spot),
/// each sum in order of `m` as a plain triple loop would take it, so the same bits.
fn matmul(a: &[f32], b: &[f32], n: usize, m: usize, p: usize) -> Vec<f32> {
    let mut out = vec![0.0; n * p];
    if n == 0 || m == 0 || p == 0 {
        return out;
    }
    if let (Some(a), Some(b)) = (a.get(..n * m), b.get(..m * p)) {
        times(a, b, m, p, &mut out, &mut Vec::new());
    }
    out
}

/// Rollout through the layers of a one-head (mean) encoder stack.
pub fn rollout(mean_heads: &AttentionStack) -> AttentionStack {
    let n = mean_heads.queries;
    let identity: Vec<f32> = (0..n * n)
        .map(|i| if i / n == i % n { 1.0 } else { 0.0 })
        .collect();
    let mut rolled = vec![];
    let mut data = Vec::with_capacity(mean_heads.layers * n * n);
    for layer in 0..mean_heads.layers {
        let mut with_residual: Vec<f32> = mean_heads
            .matrix(layer, 0)
            .iter()
            .zip(&identity)
            .map(|(a, i)| 0.5 * a + 0.5 * i)
            .collect();
        for row in with_residual.chunks_mut(n.max(1)) {
            let sum: f32 = row.iter().sum();
            if sum > 0.0 {
                row.iter_mut().for_each(|v| *v /= sum);
            }
        }
        // The first layer's product is with the identity: the matrix itself.
        rolled = match layer {
            0 => with_residual,
            _ => matmul(&with_residual, &rolled, n, n, n),
        };
        data.extend_from_slice(&rolled);
    }
    AttentionStack::new(mean_heads.layers, 1, n, n, data)
}

/// The last decoder layer's (mean) cross-attention carried through the encoder rollout.
pub fn source_attribution(mean_cross: &AttentionStack, rollout: &AttentionStack) -> AttentionStack {
    let (rows, src) = (mean_cross.queries, mean_cross.keys);
    if mean_cross.layers == 0 || rollout.layers == 0 {
        return AttentionStack::new(1, 1, rows, src, vec![0.0; rows * src]);
    }
    let cross = mean_cross.matrix(mean_cross.layers - 1, 0);
    let through = rollout.matrix(rollout.layers - 1, 0);
    AttentionStack::new(1, 1, rows, src, matmul(cross, through, rows, src, src))
}

/// Spearman's rank correlation (average ranks for ties); 0 when either side is constant.
pub fn spearman(a: &[f32], b: &[f32]) -> f32 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len().min(rb.len());
    if n < 2 {
        return 0.0;
    }
    let (ma, mb) = (
        ra.iter().sum::<f64>() / n as f64,
        rb.iter().sum::<f64>() / n as f64,
    );
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (da, db) = (ra[i] - ma, rb[i] - mb);
        cov += da * db;
        va += da * da;
        vb += db * db;
    }
    if va == 0.0 || vb == 0.0 {
        0.0
    } else {
        (cov / (va * vb).sqrt()) as f32
    }
}

/// 1-based ranks, ties sharing their average rank.
fn ranks(values: &[f32]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end) as f64 / 2.0 + 1.0;
        for &i in &order[start..=end] {
            out[i] = rank;
        }
        start = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_reduce_cell_by_cell_in_every_layer() {
        // 2 layers, 3 heads, 1 × 2 cells: layer l, head h, cell c holds 10l + h + 0.5c (head 1
        // of layer 1 made the largest of its cells).
        let mut data = Vec::new();
        for layer in 0..2 {
            for head in 0..3 {
                for cell in 0..2 {
                    let bump = if layer == 1 && head == 1 { 5.0 } else { 0.0 };
                    data.push(10.0 * layer as f32 + head as f32 + 0.5 * cell as f32 + bump);
                }
            }
        }
        let stack = AttentionStack::new(2, 3, 1, 2, data);
        let mean = over_heads(&stack, Reduce::Mean);
        let max = over_heads(&stack, Reduce::Max);
        assert_eq!(
            (mean.layers, mean.heads, mean.queries, mean.keys),
            (2, 1, 1, 2)
        );
        assert_eq!(mean.matrix(0, 0), [1.0, 1.5]);
        assert_eq!(mean.matrix(1, 0), [38.0 / 3.0, 39.5 / 3.0]);
        assert_eq!(max.matrix(0, 0), [2.0, 2.5]);
        assert_eq!(max.matrix(1, 0), [16.0, 16.5]);
        let empty = over_heads(&AttentionStack::new(1, 0, 1, 2, Vec::new()), Reduce::Mean);
        assert_eq!(empty.matrix(0, 0), [0.0, 0.0]);
    }

    #[test]
    fn spearman_matches_hand_computed_values() {
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-6);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-6);
        // Ranks (1, 2, 3, 4) against (1, 3, 2, 4): 1 − 6·2 / (4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]) - 0.8).abs() < 1e-6);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), 0.0);
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), [2.5, 1.0, 2.5]);
    }

    #[test]
    fn rollout_of_uniform_attention_stays_row_stochastic() {
        // Two layers of uniform attention over 3 tokens.
        let stack = AttentionStack::new(2, 1, 3, 3, vec![1.0 / 3.0; 18]);
        let rolled = rollout(&stack);
        // Layer 0: 0.5·(1/3) + 0.5·I → diagonal 2/3, elsewhere 1/6.
        assert!((rolled.get(0, 0, 0, 0) - 2.0 / 3.0).abs() < 1e-6);
        assert!((rolled.get(0, 0, 0, 1) - 1.0 / 6.0).abs() < 1e-6);
        // Layer 1 = Â·Â: diagonal 4/9 + 2/36 = 1/2, off-diagonal 1/4.
        assert!((rolled.get(1, 0, 2, 2) - 0.5).abs() < 1e-6);
        assert!((rolled.get(1, 0, 2, 0) - 0.25).abs() < 1e-6);
        for q in 0..3 {
            let sum: f32 = (0..3).map(|k| rolled.get(1, 0, q, k)).sum();
            assert!((sum - 1.0).abs() < 1e-6);
        }
    }
}
