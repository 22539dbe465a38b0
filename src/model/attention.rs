//! Multi-head attention, the one block every attention view reads: it returns its per-head
//! weights (and, when probed, its raw scores QKᵀ) instead of stashing them in the module.

use burn::module::Module;
use burn::nn::{Dropout, DropoutConfig, Initializer, Linear, LinearConfig};
use burn::tensor::activation::softmax;
use burn::tensor::{Bool, Device, Tensor};
use serde::Serialize;

use super::config::ModelConfig;
use super::dropout;
use super::packed::{project, PackedAttention};

/// The three kinds of attention in an encoder-decoder Transformer, in the order they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
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

/// Which attention block's raw scores to keep during a forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The kind of attention.
    pub kind: AttentionKind,
    /// The layer within its stack.
    pub layer: usize,
}

/// Keys and values of one attention block, already split into heads.
#[derive(Clone, Debug)]
pub struct KeyValue {
    /// `[batch, heads, k_len, d_k]`
    pub keys: Tensor<4>,
    /// `[batch, heads, k_len, d_k]`
    pub values: Tensor<4>,
}

impl KeyValue {
    /// Append `other` along the key axis (a new decoding step).
    pub fn append(self, other: KeyValue) -> KeyValue {
        KeyValue {
            keys: Tensor::cat(vec![self.keys, other.keys], 2),
            values: Tensor::cat(vec![self.values, other.values], 2),
        }
    }

    /// Keep the first `len` keys (undo decoding steps).
    pub fn truncate(self, len: usize) -> KeyValue {
        KeyValue {
            keys: self.keys.narrow(2, 0, len),
            values: self.values.narrow(2, 0, len),
        }
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.keys.dims()[2]
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one attention call produces.
#[derive(Clone, Debug)]
pub struct AttentionOutput {
    /// Heads concatenated and projected by `w_o`: `[batch, q_len, d_model]`.
    pub context: Tensor<3>,
    /// softmax(mask(QKᵀ/√d_k)): `[batch, heads, q_len, k_len]`.
    pub weights: Tensor<4>,
    /// QKᵀ before scaling and masking, kept only when probed: `[batch, heads, q_len, k_len]`.
    pub raw_scores: Option<Tensor<4>>,
}

/// Multi-head attention with four projections `w_q, w_k, w_v, w_o` (bias-free unless the config
/// asks for biases).
#[derive(Module, Debug)]
pub struct MultiHeadAttention {
    /// Query projection, `[d_model, d_model]`.
    pub w_q: Linear,
    /// Key projection.
    pub w_k: Linear,
    /// Value projection.
    pub w_v: Linear,
    /// Output projection applied to the concatenated heads.
    pub w_o: Linear,
    dropout: Dropout,
    n_heads: usize,
    d_k: usize,
    mask_value: f64,
}

impl MultiHeadAttention {
    /// A randomly initialised block with `n_heads` heads (Xavier-uniform projections).
    pub fn new(config: &ModelConfig, n_heads: usize, device: &Device) -> Self {
        let linear = || {
            LinearConfig::new(config.d_model, config.d_model)
                .with_bias(config.attention_bias)
                .with_initializer(Initializer::XavierUniform { gain: 1.0 })
                .init(device)
        };
        Self {
            w_q: linear(),
            w_k: linear(),
            w_v: linear(),
            w_o: linear(),
            dropout: DropoutConfig::new(config.dropout).init(),
            n_heads,
            d_k: config.d_model / n_heads.max(1),
            mask_value: config.mask_value,
        }
    }

    /// Number of heads.
    pub fn n_heads(&self) -> usize {
        self.n_heads
    }

    /// `[batch, len, d_model]` → `[batch, heads, len, d_k]`.
    fn split_heads(&self, x: Tensor<3>) -> Tensor<4> {
        let [batch, len, _] = x.dims();
        x.reshape([batch, len, self.n_heads, self.d_k])
            .swap_dims(1, 2)
    }

    /// Project keys and values once, e.g. the encoder output for every decoding step.
    ///
    /// # Shapes
    /// `x: [batch, k_len, d_model]` → keys and values `[batch, heads, k_len, d_k]`.
    pub fn project_key_value(&self, x: Tensor<3>) -> KeyValue {
        self.project_key_value_with(x, None)
    }

    /// [`Self::project_key_value`], through packed copies of `w_k` and `w_v` where given.
    pub fn project_key_value_with(
        &self,
        x: Tensor<3>,
        packed: Option<&PackedAttention>,
    ) -> KeyValue {
        KeyValue {
            keys: self.split_heads(project(&self.w_k, packed.map(|p| &p.w_k), x.clone())),
            values: self.split_heads(project(&self.w_v, packed.map(|p| &p.w_v), x)),
        }
    }

    /// Attend from `query_input` to already projected keys and values.
    ///
    /// `mask` is true where a key must not be seen; it broadcasts over `[batch, heads, q_len, k_len]`.
    ///
    /// # Shapes
    /// `query_input: [batch, q_len, d_model]`, `kv: [batch, heads, k_len, d_k]`
    /// → context `[batch, q_len, d_model]`, weights `[batch, heads, q_len, k_len]`.
    pub fn attend(
        &self,
        query_input: Tensor<3>,
        kv: &KeyValue,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> AttentionOutput {
        self.attend_with(query_input, kv, mask, keep_raw_scores, None)
    }

    /// [`Self::attend`], through packed copies of `w_q` and `w_o` where given.
    pub fn attend_with(
        &self,
        query_input: Tensor<3>,
        kv: &KeyValue,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: Option<&PackedAttention>,
    ) -> AttentionOutput {
        let query = self.split_heads(project(&self.w_q, packed.map(|p| &p.w_q), query_input)); // [batch, heads, q_len, d_k]
        let raw = query.matmul(kv.keys.clone().swap_dims(2, 3)); // [batch, heads, q_len, k_len]
                                                                 // Without the 1/√d_k the dot products grow with d_k and softmax saturates.
        let mut scores = raw.clone().div_scalar((self.d_k as f32).sqrt());
        if let Some(mask) = mask {
            scores = scores.mask_fill(mask, self.mask_value);
        }
        let weights = softmax(scores, 3); // [batch, heads, q_len, k_len]
        let heads = dropout::apply(&self.dropout, weights.clone()).matmul(kv.values.clone()); // [batch, heads, q_len, d_k]
        let [batch, n_heads, q_len, d_k] = heads.dims();
        let concatenated = heads.swap_dims(1, 2).reshape([batch, q_len, n_heads * d_k]); // [batch, q_len, d_model]
        AttentionOutput {
            context: project(&self.w_o, packed.map(|p| &p.w_o), concatenated),
            weights,
            raw_scores: keep_raw_scores.then_some(raw),
        }
    }

    /// Project `key_value_input` and attend to it.
    ///
    /// # Shapes
    /// `query_input: [batch, q_len, d_model]`, `key_value_input: [batch, k_len, d_model]`.
    pub fn forward(
        &self,
        query_input: Tensor<3>,
        key_value_input: Tensor<3>,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> AttentionOutput {
        self.forward_with(query_input, key_value_input, mask, keep_raw_scores, None)
    }

    /// [`Self::forward`], through packed copies of the projections where given.
    pub fn forward_with(
        &self,
        query_input: Tensor<3>,
        key_value_input: Tensor<3>,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: Option<&PackedAttention>,
    ) -> AttentionOutput {
        let kv = self.project_key_value_with(key_value_input, packed);
        self.attend_with(query_input, &kv, mask, keep_raw_scores, packed)
    }
}
