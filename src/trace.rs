//! The trace: every number the page shows, as one typed, serializable value per run.
//!
//! JSON field names are camelCase. Attention is `[layer][head][query][key]` in JSON and one flat
//! row-major `Vec<f32>` in memory (it crosses to JavaScript as a single `Float32Array`).

use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

/// The three kinds of attention in an encoder-decoder Transformer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AttentionKind {
    /// Encoder self-attention: source tokens look at source tokens.
    EncoderSelf,
    /// Masked decoder self-attention: each target position looks at itself and earlier ones.
    DecoderSelf,
    /// Cross-attention: target positions look at the encoder's source tokens.
    Cross,
}

impl AttentionKind {
    /// Parse `encoderSelf` / `decoderSelf` / `cross` (also `encoder`, `decoder`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "encoderSelf" | "encoder" | "encoder-self" => Some(Self::EncoderSelf),
            "decoderSelf" | "decoder" | "decoder-self" => Some(Self::DecoderSelf),
            "cross" => Some(Self::Cross),
            _ => None,
        }
    }
}

/// Attention weights of every layer and head of one kind.
///
/// # Shapes
/// `data` is row-major `[layers, heads, queries, keys]`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttentionStack {
    /// Number of layers.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Query positions (rows).
    pub queries: usize,
    /// Key positions (columns).
    pub keys: usize,
    /// The weights.
    pub data: Vec<f32>,
}

impl AttentionStack {
    /// An all-zero stack.
    pub fn zeros(layers: usize, heads: usize, queries: usize, keys: usize) -> Self {
        Self {
            layers,
            heads,
            queries,
            keys,
            data: vec![0.0; layers * heads * queries * keys],
        }
    }

    /// One head's `[queries, keys]` matrix.
    pub fn matrix(&self, layer: usize, head: usize) -> &[f32] {
        let size = self.queries * self.keys;
        let start = (layer * self.heads + head) * size;
        &self.data[start..start + size]
    }

    /// One weight.
    pub fn get(&self, layer: usize, head: usize, query: usize, key: usize) -> f32 {
        self.data[((layer * self.heads + head) * self.queries + query) * self.keys + key]
    }

    /// Set one weight.
    pub fn set(&mut self, layer: usize, head: usize, query: usize, key: usize, value: f32) {
        let index = ((layer * self.heads + head) * self.queries + query) * self.keys + key;
        self.data[index] = value;
    }
}

impl Serialize for AttentionStack {
    /// As nested arrays `[layer][head][query][key]`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let nested: Vec<Vec<Vec<&[f32]>>> = (0..self.layers)
            .map(|l| {
                (0..self.heads)
                    .map(|h| {
                        self.matrix(l, h)
                            .chunks(self.keys.max(1))
                            .take(self.queries)
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let mut seq = serializer.serialize_seq(Some(self.layers))?;
        for layer in &nested {
            seq.serialize_element(layer)?;
        }
        seq.end()
    }
}

/// A next-token candidate with its probability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Target vocabulary id.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// softmax(logits) at this step (before temperature).
    pub probability: f32,
}

/// One decoding step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// Decoder input position that produced this token (0 = the `<s>` position).
    pub position: usize,
    /// The token chosen.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// Whether the person forced it rather than the model choosing it.
    pub forced: bool,
    /// The top-k candidates, most probable first.
    pub candidates: Vec<Candidate>,
}

/// Where long input was cut to fit `max_len`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Tokens the input had.
    pub total_tokens: usize,
    /// Tokens kept.
    pub kept_tokens: usize,
    /// Byte offset in the input text where the cut falls.
    pub cut_at_byte: usize,
    /// Character offset of the cut (for the page).
    pub cut_at_char: usize,
}

/// The source side of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Source ids, ending with `</s>`.
    pub ids: Vec<u32>,
    /// Display strings, one per id.
    pub tokens: Vec<String>,
    /// Which tokens are outside the vocabulary.
    pub unknown: Vec<bool>,
    /// Set when the input was longer than the model accepts.
    pub truncation: Option<Truncation>,
}

/// A whole run: the JSON printed by `attnscope trace --json`.
///
/// Row `i` of the decoder matrices is decoder input position `i` (token `tgt_tokens[i]`), which
/// predicted `tgt_tokens[i + 1]`; so there is one row fewer than target tokens.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// Model name.
    pub model: String,
    /// Source ids, ending with `</s>`.
    pub src_ids: Vec<u32>,
    /// Source display strings.
    pub src_tokens: Vec<String>,
    /// Which source tokens are unknown.
    pub src_unknown: Vec<bool>,
    /// Truncation of the input, if any.
    pub truncation: Option<Truncation>,
    /// Target ids, starting with `<s>`.
    pub tgt_ids: Vec<u32>,
    /// Target display strings.
    pub tgt_tokens: Vec<String>,
    /// The translation as text (without `<s>` and `</s>`).
    pub output: String,
    /// `[layer][head][src][src]`.
    pub encoder_self_attention: AttentionStack,
    /// `[layer][head][tgt_pos][tgt_pos]`, zero above the diagonal.
    pub decoder_self_attention: AttentionStack,
    /// `[layer][head][tgt_pos][src]`.
    pub cross_attention: AttentionStack,
    /// The decoding steps.
    pub steps: Vec<Step>,
    /// The causal mask used by decoder self-attention: true = hidden.
    pub causal_mask: Vec<Vec<bool>>,
    /// The source padding mask (all false for one sentence).
    pub padding_mask: Vec<bool>,
    /// The sinusoidal positional-encoding table, `[max_len][d_model]`.
    pub positional_encoding: Vec<Vec<f32>>,
}

/// One head's attention, stage by stage: raw QKᵀ → ×1/√d_k → masked → softmax, and without scaling.
///
/// # Shapes
/// Every matrix is row-major `[queries, keys]`; `entropy*` are per head, `[heads]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pipeline {
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
    pub raw: Vec<f32>,
    /// QKᵀ / √d_k.
    pub scaled: Vec<f32>,
    /// True where the mask hides the key (the score becomes the mask value, shown as −∞).
    pub mask: Vec<bool>,
    /// softmax of the masked, scaled scores: the weights the model used.
    pub softmax: Vec<f32>,
    /// softmax of the masked scores without the 1/√d_k.
    pub unscaled_softmax: Vec<f32>,
    /// Mean row entropy (nats) of each head's weights, with scaling.
    pub entropy: Vec<f32>,
    /// Mean row entropy (nats) of each head's weights, without scaling.
    pub unscaled_entropy: Vec<f32>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_serializes_as_nested_arrays() {
        let mut stack = AttentionStack::zeros(1, 2, 2, 3);
        stack.set(0, 1, 1, 2, 0.5);
        let json = serde_json::to_value(&stack).unwrap();
        assert_eq!(json[0][1][1][2], 0.5);
        assert_eq!(json.as_array().unwrap().len(), 1);
        assert_eq!(json[0].as_array().unwrap().len(), 2);
        assert_eq!(json[0][0].as_array().unwrap().len(), 2);
        assert_eq!(json[0][0][0].as_array().unwrap().len(), 3);
    }

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
