//! One head's attention stage by stage — raw QKᵀ → ×1/√d_k → masked → softmax, and softmax
//! without the scaling — recomputed for the current sentence with the raw scores kept.

use serde::Serialize;

use super::readback::{flat, read_back};
use super::Session;
use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::masks::Mask;
use crate::model::Probe;
use crate::trace::{AttentionKind, AttentionStack, Floats};

/// Which head a view looks at (`{kind, layer, head}` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Focus {
    /// The kind of attention.
    pub kind: AttentionKind,
    /// Layer within its stack.
    pub layer: usize,
    /// Head within the layer.
    pub head: usize,
}

impl Focus {
    /// The head the page looks at first, and whose stages every answer carries until another
    /// is chosen: cross-attention, layer 0, head 0.
    pub const DEFAULT: Self = Self {
        kind: AttentionKind::Cross,
        layer: 0,
        head: 0,
    };

    /// Whether the model has this layer and head; an `OutOfRange` error says which does not.
    pub fn check(&self, config: &ModelConfig) -> Result<()> {
        let (layers, heads) = match self.kind {
            AttentionKind::EncoderSelf => (config.n_encoder_layers, config.encoder_heads()),
            _ => (config.n_decoder_layers, config.decoder_heads()),
        };
        for (what, index, len) in [("layer", self.layer, layers), ("head", self.head, heads)] {
            if index >= len {
                return Err(Error::OutOfRange { what, index, len });
            }
        }
        Ok(())
    }
}

/// One head's attention, stage by stage, with each head's mean row entropy both ways.
///
/// # Shapes
/// Every matrix is row-major `[queries, keys]`; `entropy*` are per head, `[heads]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadStages {
    /// Which attention.
    pub kind: AttentionKind,
    /// Layer.
    pub layer: usize,
    /// Head.
    pub head: usize,
    /// d_k of the model.
    pub d_k: usize,
    /// Rows.
    pub queries: usize,
    /// Columns.
    pub keys: usize,
    /// Row labels.
    pub query_tokens: Vec<String>,
    /// Column labels.
    pub key_tokens: Vec<String>,
    /// QKᵀ.
    pub raw: Floats,
    /// QKᵀ / √d_k.
    pub scaled: Floats,
    /// The mask applied (the score of a hidden key becomes the mask value, shown as −∞).
    pub mask: Mask,
    /// softmax of the masked, scaled scores: the weights the model used.
    pub softmax: Floats,
    /// softmax of the masked scores without the 1/√d_k.
    pub unscaled_softmax: Floats,
    /// Mean row entropy (nats) of each head's weights, with scaling.
    pub entropy: Vec<f32>,
    /// Mean row entropy (nats) of each head's weights, without scaling.
    pub unscaled_entropy: Vec<f32>,
}

impl Session {
    /// The stages of the focused head, or `None` when its kind has no row yet (decoder
    /// attention before the first step).
    pub async fn stages(&self, focus: Focus) -> Result<Option<HeadStages>> {
        focus.check(&self.loaded.config)?;
        let trace = self.trace()?;
        if focus.kind != AttentionKind::EncoderSelf && trace.rows() == 0 {
            return Ok(None);
        }
        self.stages_of(focus).await.map(Some)
    }

    async fn stages_of(&self, focus: Focus) -> Result<HeadStages> {
        let Focus { kind, layer, head } = focus;
        let config = &self.loaded.config;
        let state = self.state()?;
        let trace = &state.trace;
        let rows = trace.rows();
        let tgt_tokens = trace.tgt_tokens[..rows].to_vec();
        // Only the layers up to the focused one run: the same numbers as a whole pass for that
        // layer (tests/integration/model.rs checks every layer against the trace), at a fraction
        // of the cost.
        let (attention, query_tokens, key_tokens, mask) = match kind {
            AttentionKind::EncoderSelf => {
                let packed = self.packed.as_ref();
                let attention = self
                    .loaded
                    .model
                    .encode_through(state.src.clone(), layer, packed);
                let tokens = trace.src_tokens.clone();
                (attention, tokens.clone(), tokens, &trace.padding_mask)
            }
            AttentionKind::DecoderSelf => {
                let attention = self.decode_through(state, Probe { kind, layer })?;
                let attention = attention.map(|a| a.self_attention);
                (
                    attention,
                    tgt_tokens.clone(),
                    tgt_tokens,
                    &trace.causal_mask,
                )
            }
            AttentionKind::Cross => {
                let attention = self.decode_through(state, Probe { kind, layer })?;
                let attention = attention.map(|a| a.cross_attention);
                let keys = trace.src_tokens.clone();
                (attention, tgt_tokens, keys, &trace.padding_mask)
            }
        };
        let attention =
            attention.ok_or(Error::Invariant("a checked layer returned no attention"))?;
        let raw = attention
            .raw_scores
            .ok_or(Error::Invariant("the probed layer kept no raw scores"))?;
        let mut data = read_back(vec![flat(raw), flat(attention.weights)])
            .await?
            .into_iter();
        let (raw_all, weights_all) = (
            data.next().unwrap_or_default(),
            data.next().unwrap_or_default(),
        );
        let (queries, keys) = (query_tokens.len(), key_tokens.len());
        let size = queries * keys;
        let hidden = mask.expand(queries);
        let head_matrix = |all: &[f32], h: usize| all[h * size..(h + 1) * size].to_vec();
        let mut entropy = vec![];
        let mut unscaled_entropy = vec![];
        let heads = match kind {
            AttentionKind::EncoderSelf => config.encoder_heads(),
            _ => config.decoder_heads(),
        };
        let d_k = config.d_model / heads.max(1);
        for h in 0..heads {
            entropy.push(mean_row_entropy(&head_matrix(&weights_all, h), keys));
            let unscaled = masked_softmax(&head_matrix(&raw_all, h), &hidden, keys);
            unscaled_entropy.push(mean_row_entropy(&unscaled, keys));
        }
        let raw = head_matrix(&raw_all, head);
        let scale = (d_k as f32).sqrt();
        Ok(HeadStages {
            kind,
            layer,
            head,
            d_k,
            queries,
            keys,
            query_tokens,
            key_tokens,
            scaled: Floats(raw.iter().map(|v| v / scale).collect()),
            unscaled_softmax: Floats(masked_softmax(&raw, &hidden, keys)),
            softmax: Floats(head_matrix(&weights_all, head)),
            raw: Floats(raw),
            mask: Mask {
                rows: queries,
                cols: keys,
                hidden: crate::trace::Flags(hidden),
            },
            entropy,
            unscaled_entropy,
        })
    }
}

/// Row-wise softmax of `[rows, cols]` scores, skipping hidden entries (they get 0).
pub fn masked_softmax(scores: &[f32], mask: &[bool], cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; scores.len()];
    for (r, row) in scores.chunks(cols.max(1)).enumerate() {
        let visible = |c: usize| !mask.get(r * cols + c).copied().unwrap_or(false);
        let max = (0..row.len())
            .filter(|&c| visible(c))
            .map(|c| row[c])
            .fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0f64;
        for c in (0..row.len()).filter(|&c| visible(c)) {
            let e = ((row[c] - max) as f64).exp();
            out[r * cols + c] = e as f32;
            sum += e;
        }
        if sum > 0.0 {
            for c in 0..row.len() {
                out[r * cols + c] = (out[r * cols + c] as f64 / sum) as f32;
            }
        }
    }
    out
}

/// Mean over rows of the entropy (nats) of each row of `[rows, cols]` probabilities.
pub fn mean_row_entropy(weights: &[f32], cols: usize) -> f32 {
    let rows: Vec<f32> = weights
        .chunks(cols.max(1))
        .map(|row| row.iter().filter(|&&p| p > 0.0).map(|&p| -p * p.ln()).sum())
        .collect();
    if rows.is_empty() {
        0.0
    } else {
        rows.iter().sum::<f32>() / rows.len() as f32
    }
}

/// Mean row entropy of each layer's attention, averaged over its heads.
pub fn layer_entropy(stack: &AttentionStack) -> Vec<f32> {
    (0..stack.layers)
        .map(|layer| {
            let heads = stack.heads.max(1) as f32;
            (0..stack.heads)
                .map(|head| mean_row_entropy(stack.matrix(layer, head), stack.keys))
                .sum::<f32>()
                / heads
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_softmax_hides_and_normalizes() {
        let p = masked_softmax(
            &[1.0, 2.0, 3.0, 1.0, 1.0, 1.0],
            &[false, false, true, false, false, false],
            3,
        );
        assert_eq!(p[2], 0.0);
        assert!((p[0] + p[1] - 1.0).abs() < 1e-6);
        assert!((p[3] - 1.0 / 3.0).abs() < 1e-6);
        assert!((mean_row_entropy(&[1.0, 0.0, 0.5, 0.5], 2) - 0.5 * 2f32.ln()).abs() < 1e-6);
    }
}
