//! One token's journey through one layer: every vector the layer computes for one position,
//! as the seed articles write the arithmetic (q·k_j, ÷√d_k, softmax, Σ α_j v_j, the heads
//! concatenated, W_O, the residual, LayerNorm, the feed-forward network, the logits).
//!
//! What `attnscope inspect --json` prints and `Session.inspect` answers on the page. Vectors are
//! flat [`Floats`]; a matrix is row-major with its dimensions beside it (`kLen × dK` for one
//! head's keys and values).

use serde::Serialize;

use super::{Candidate, Flags, Floats};
use crate::error::{Error, Result};

/// Which stack a journey goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Stack {
    /// The encoder: a source position, self-attention and feed-forward.
    Encoder,
    /// The decoder: a target input position, masked self-attention, cross-attention and
    /// feed-forward (and the logits after the last layer).
    Decoder,
}

impl Stack {
    /// Parse `encoder` or `decoder`.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "encoder" => Ok(Self::Encoder),
            "decoder" => Ok(Self::Decoder),
            other => Err(Error::Usage(format!(
                "unknown stack {other:?}: use encoder or decoder"
            ))),
        }
    }
}

/// Where the LayerNorm of each sub-layer sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NormPlacement {
    /// `x + f(norm(x))`: the sub-layer reads a normalised input.
    Pre,
    /// `norm(x + f(x))`: the residual sum is normalised.
    Post,
}

/// Everything one position computes in one layer of one stack.
///
/// # Shapes
/// `input`, `embedding`, `positional`, `output`, `finalNorm`: `[dModel]`; `logits`: `[vocab]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Journey {
    /// The stack.
    pub stack: Stack,
    /// The layer within the stack.
    pub layer: usize,
    /// Layers in the stack.
    pub layers: usize,
    /// The position within the sequence (for the decoder: the decoder input position).
    pub position: usize,
    /// The token at that position.
    pub token: String,
    /// Its id.
    pub token_id: u32,
    /// d_model.
    pub d_model: usize,
    /// Heads of each attention in this stack.
    pub heads: usize,
    /// d_k = d_model / heads.
    pub d_k: usize,
    /// Hidden width of this stack's feed-forward network.
    pub d_ff: usize,
    /// Where the LayerNorms sit.
    pub norm: NormPlacement,
    /// The feed-forward activation: `relu`, `gelu` or `swish`.
    pub activation: crate::model::config::Activation,
    /// The LayerNorm's ε: it divides by √(std² + ε).
    pub layer_norm_eps: f64,
    /// What the token embedding is multiplied by (√d_model, or 1).
    pub embed_scale: f32,
    /// The layer's input x at this position.
    pub input: Floats,
    /// Layer 0 only: the token embedding × `embedScale`.
    pub embedding: Option<Floats>,
    /// Layer 0 only: the positional encoding of this position (`input` = `embedding` + this).
    pub positional: Option<Floats>,
    /// Self-attention (masked in the decoder).
    pub self_attention: AttentionJourney,
    /// Decoder only: cross-attention to the encoder's output.
    pub cross_attention: Option<AttentionJourney>,
    /// The position-wise feed-forward network.
    pub feed_forward: FeedForwardJourney,
    /// The layer's output at this position (the next layer's input).
    pub output: Floats,
    /// After the stack's last layer of a pre-norm model: the stack's final LayerNorm of
    /// `output` (the encoder's output that cross-attention reads, or what the decoder projects).
    pub final_norm: Option<Floats>,
    /// After the decoder's last layer: the logits over the target vocabulary.
    pub logits: Option<Floats>,
    /// After the decoder's last layer: the most probable next tokens, softmax(logits), equal to
    /// the step's candidates.
    pub top: Option<Vec<Candidate>>,
}

/// One attention sub-layer at one position, head by head.
///
/// # Shapes
/// `normedInput`, `concat`, `projected`, `residual`, `normed`: `[dModel]`; `masked`: `[kLen]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttentionJourney {
    /// Keys attended over.
    pub k_len: usize,
    /// Their tokens: the source for encoder self-attention and cross-attention, the target
    /// inputs for decoder self-attention.
    pub key_tokens: Vec<String>,
    /// True where the key is hidden from this query (padding, or the causal mask's future).
    pub masked: Flags,
    /// Pre-norm: LayerNorm of the layer input, what the query (and in self-attention the keys
    /// and values) are projected from. `None` in post-norm.
    pub normed_input: Option<Floats>,
    /// One entry per head.
    pub heads: Vec<HeadJourney>,
    /// The heads' outputs side by side.
    pub concat: Floats,
    /// `concat` × W_O (+ bias): the sub-layer's output.
    pub projected: Floats,
    /// The sub-layer's input + `projected`.
    pub residual: Floats,
    /// Post-norm: LayerNorm of `residual`, the sub-layer's result. `None` in pre-norm.
    pub normed: Option<Floats>,
    /// Mean over the features of what the LayerNorm normalises (`residual` in post-norm, the
    /// sub-layer's input in pre-norm).
    pub mean: f32,
    /// Their standard deviation (population, without ε).
    pub std: f32,
}

/// One head's arithmetic for one query.
///
/// # Shapes
/// `q`, `output`: `[dK]`; `keys`, `values`: row-major `[kLen, dK]`; `scores`, `scaled`,
/// `weights`: `[kLen]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadJourney {
    /// The query q.
    pub q: Floats,
    /// Every key k_j.
    pub keys: Floats,
    /// Every value v_j.
    pub values: Floats,
    /// q·k_j (masked keys included: their weight is 0 all the same).
    pub scores: Floats,
    /// q·k_j / √d_k.
    pub scaled: Floats,
    /// α_j = softmax over the visible keys: the trace's row for this head.
    pub weights: Floats,
    /// Σ α_j v_j.
    pub output: Floats,
}

/// The feed-forward sub-layer at one position.
///
/// # Shapes
/// `hidden`: `[dFf]`; the others `[dModel]`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedForwardJourney {
    /// Pre-norm: LayerNorm of the sub-layer's input. `None` in post-norm.
    pub normed_input: Option<Floats>,
    /// The hidden activations after the activation function.
    pub hidden: Floats,
    /// How many of them are exactly 0 (ReLU's silenced units).
    pub zeros: usize,
    /// The second linear layer's output.
    pub projected: Floats,
    /// The sub-layer's input + `projected`.
    pub residual: Floats,
    /// Post-norm: LayerNorm of `residual`. `None` in pre-norm.
    pub normed: Option<Floats>,
    /// Mean over the features of what the LayerNorm normalises.
    pub mean: f32,
    /// Their standard deviation (population, without ε).
    pub std: f32,
}

/// Mean and population standard deviation of `values`, in f64.
pub fn mean_std(values: &[f32]) -> (f32, f32) {
    let n = values.len().max(1) as f64;
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|&v| (v as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean as f32, var.sqrt() as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_parses_and_mean_std_are_the_population_ones() {
        assert_eq!(Stack::parse("decoder").ok(), Some(Stack::Decoder));
        assert!(Stack::parse("cross").is_err());
        let (mean, std) = mean_std(&[1.0, 3.0]);
        assert_eq!((mean, std), (2.0, 1.0));
    }
}
