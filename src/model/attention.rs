//! Multi-head attention, the one block every attention view reads: it returns its per-head
//! weights (and, when probed, its raw scores QKᵀ) instead of stashing them in the module.

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Dropout, DropoutConfig, Initializer, Linear, LinearConfig};
use burn::tensor::activation::softmax;
use burn::tensor::{Bool, Device, Tensor};
use serde::Serialize;

use super::config::ModelConfig;
use super::dropout;
use super::host_attention::HostAttention;
use super::host_layers::key_value_on_host;
pub use super::key_value::KeyValue;
use super::masks::Mask;
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

/// What one attention call produces.
#[derive(Clone, Debug)]
pub struct AttentionOutput {
    /// Heads concatenated and projected by `w_o`: `[batch, q_len, d_model]`.
    pub context: Tensor<3>,
    /// softmax(mask(QKᵀ/√d_k)): `[batch, heads, q_len, k_len]`.
    pub weights: Tensor<4>,
    /// QKᵀ before scaling and masking, kept only when asked: `[batch, heads, q_len, k_len]`.
    pub raw_scores: Option<Tensor<4>>,
}

/// One attention block's settings, in the shape of burn's `MultiHeadAttentionConfig`:
/// `AttentionConfig::new(d_model, n_heads).with_dropout(0.1).init(&device)`.
#[derive(Config, Debug)]
pub struct AttentionConfig {
    /// Width of the block's input and output (split evenly into the heads).
    pub d_model: usize,
    /// Number of heads; each sees `d_k = d_model / n_heads` dimensions.
    pub n_heads: usize,
    /// Dropout on the attention weights while training.
    #[config(default = 0.1)]
    pub dropout: f64,
    /// Biases on the four projections (Marian has them; the paper's sketch does not).
    #[config(default = false)]
    pub bias: bool,
    /// The score a hidden key gets before the softmax (a large negative number, not -∞, so a
    /// row with every key hidden stays finite).
    #[config(default = -1.0e9)]
    pub mask_value: f64,
    /// Divide the scores by √d_k, as the paper does. Without it the dot products grow with d_k,
    /// the softmax saturates and learning stalls: off only to show that happening.
    #[config(default = true)]
    pub scaled: bool,
    /// Hide every later key from each query (the decoder's self-attention). The block applies
    /// the mask itself, on top of any mask its input brings.
    #[config(default = false)]
    pub causal: bool,
}

impl AttentionConfig {
    /// The settings `config` gives a block of `n_heads` heads (not causal: the decoder's
    /// self-attention sets that).
    pub fn from_model(config: &ModelConfig, n_heads: usize) -> Self {
        Self::new(config.d_model, n_heads)
            .with_dropout(config.dropout)
            .with_bias(config.attention_bias)
            .with_mask_value(config.mask_value)
    }

    /// A randomly initialised block (Xavier-uniform projections).
    pub fn init(&self, device: &Device) -> MultiHeadAttention {
        let linear = || {
            LinearConfig::new(self.d_model, self.d_model)
                .with_bias(self.bias)
                .with_initializer(Initializer::XavierUniform { gain: 1.0 })
                .init(device)
        };
        MultiHeadAttention {
            w_q: linear(),
            w_k: linear(),
            w_v: linear(),
            w_o: linear(),
            dropout: DropoutConfig::new(self.dropout).init(),
            n_heads: self.n_heads,
            d_k: self.d_model / self.n_heads.max(1),
            mask_value: self.mask_value,
            scaled: self.scaled,
            causal: self.causal,
        }
    }
}

/// What one attention call reads, built like burn's `MhaInput`:
/// `AttentionInput::self_attn(x).mask(m).cache(slot)` or `AttentionInput::cross(q, &memory)`.
///
/// # Shapes
/// `query: [batch, q_len, d_model]`; keys and values `[batch, heads, k_len, d_k]`; `mask` is
/// true where a key must not be seen and broadcasts over `[batch, heads, q_len, k_len]`.
pub struct AttentionInput<'a> {
    query: Tensor<3>,
    memory: Option<&'a KeyValue>,
    mask: Option<Tensor<4, Bool>>,
    cache: Option<&'a mut Option<KeyValue>>,
    keep_scores: bool,
    packed: Option<&'a PackedAttention>,
}

impl<'a> AttentionInput<'a> {
    /// Self-attention: queries, keys and values all projected from `x`.
    pub fn self_attn(x: Tensor<3>) -> Self {
        Self {
            query: x,
            memory: None,
            mask: None,
            cache: None,
            keep_scores: false,
            packed: None,
        }
    }

    /// Queries from `query`, keys and values already projected: the encoder's memory in
    /// cross-attention (see [`MultiHeadAttention::project_key_value`]), or any block's own.
    pub fn cross(query: Tensor<3>, memory: &'a KeyValue) -> Self {
        Self {
            memory: Some(memory),
            ..Self::self_attn(query)
        }
    }

    /// Hide keys (the padding mask, or a causal mask brought from outside).
    pub fn mask(mut self, mask: Option<Tensor<4, Bool>>) -> Self {
        self.mask = mask;
        self
    }

    /// Decode step by step: append this call's keys and values to `slot` and attend to all
    /// (self-attention only; cross-attention's memory does not grow).
    pub fn cache(mut self, slot: Option<&'a mut Option<KeyValue>>) -> Self {
        self.cache = slot;
        self
    }

    /// Keep the raw scores QKᵀ (for the head-stages view and the journey).
    pub fn keep_scores(mut self, keep: bool) -> Self {
        self.keep_scores = keep;
        self
    }

    /// Project through packed copies of the block's weights (the CPU).
    pub fn packed(mut self, packed: Option<&'a PackedAttention>) -> Self {
        self.packed = packed;
        self
    }
}

/// Multi-head attention with four projections `w_q, w_k, w_v, w_o` (bias-free unless the config
/// asks for biases). Built by [`AttentionConfig::init`].
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
    scaled: bool,
    causal: bool,
}

impl MultiHeadAttention {
    /// Number of heads.
    pub fn n_heads(&self) -> usize {
        self.n_heads
    }

    /// What this block's attention needs on the host (its projections packed).
    pub(crate) fn host(&self) -> HostAttention {
        HostAttention {
            heads: self.n_heads,
            d_k: self.d_k,
            scaled: self.scaled,
            causal: self.causal,
            mask_value: self.mask_value as f32,
        }
    }

    /// The raw scores QKᵀ scaled as this block scales them: ÷√d_k, or unchanged when the
    /// config turned scaling off.
    ///
    /// # Shapes
    /// `[batch, heads, q_len, k_len]` → the same.
    pub fn scale_scores(&self, raw: Tensor<4>) -> Tensor<4> {
        if self.scaled {
            // Without the 1/√d_k the dot products grow with d_k and softmax saturates.
            raw.div_scalar((self.d_k as f32).sqrt())
        } else {
            raw
        }
    }

    /// `[batch, len, d_model]` → `[batch, heads, len, d_k]`.
    fn split_heads(&self, x: Tensor<3>) -> Tensor<4> {
        let [batch, len, _] = x.dims();
        x.reshape([batch, len, self.n_heads, self.d_k])
            .swap_dims(1, 2)
    }

    /// Project keys and values once, e.g. the encoder output for every decoding step, through
    /// packed copies of `w_k` and `w_v` where given.
    ///
    /// # Shapes
    /// `x: [batch, k_len, d_model]` → keys and values `[batch, heads, k_len, d_k]`.
    pub fn project_key_value(&self, x: Tensor<3>, packed: Option<&PackedAttention>) -> KeyValue {
        let on_host = packed.and_then(|packed| key_value_on_host(self, packed, &x));
        if let Some(kv) = on_host {
            return kv;
        }
        KeyValue {
            keys: self.split_heads(project(&self.w_k, packed.map(|p| &p.w_k), x.clone())),
            values: self.split_heads(project(&self.w_v, packed.map(|p| &p.w_v), x)),
        }
    }

    /// The one way into attention: project what `input` does not bring, attend, and return the
    /// context with the per-head weights (and the raw scores when asked).
    ///
    /// # Shapes
    /// `input.query: [batch, q_len, d_model]` → context `[batch, q_len, d_model]`, weights
    /// `[batch, heads, q_len, k_len]`.
    pub fn forward(&self, input: AttentionInput<'_>) -> AttentionOutput {
        let AttentionInput {
            query,
            memory,
            mask,
            cache,
            keep_scores,
            packed,
        } = input;
        let owned;
        let kv = match memory {
            Some(memory) => memory,
            None => {
                let new_kv = self.project_key_value(query.clone(), packed);
                owned = match cache {
                    Some(slot) => {
                        let grown = match slot.take() {
                            Some(previous) => previous.append(new_kv),
                            None => new_kv,
                        };
                        *slot = Some(grown.clone());
                        grown
                    }
                    None => new_kv,
                };
                &owned
            }
        };
        self.attend(query, kv, mask, keep_scores, packed)
    }

    /// softmax(mask(QKᵀ/√d_k))·V for already projected keys and values.
    fn attend(
        &self,
        query_input: Tensor<3>,
        kv: &KeyValue,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: Option<&PackedAttention>,
    ) -> AttentionOutput {
        // [batch, q_len, d_model]
        let query = project(&self.w_q, packed.map(|p| &p.w_q), query_input);
        // Where the projections are packed (the CPU), the rest runs on the host too.
        if let Some(packed) = packed {
            let host = self.host();
            if let Some(out) = host.attend(query.clone(), kv, mask.clone(), keep_raw_scores) {
                return AttentionOutput {
                    context: project(&self.w_o, Some(&packed.w_o), out.concatenated),
                    weights: out.weights,
                    raw_scores: out.raw,
                };
            }
        }
        let query = self.split_heads(query); // [batch, heads, q_len, d_k]
        let raw = query.matmul(kv.keys.clone().swap_dims(2, 3)); // [batch, heads, q_len, k_len]
        let mut scores = self.scale_scores(raw.clone());
        if let Some(mask) = mask {
            scores = scores.mask_fill(mask, self.mask_value);
        }
        let [_, _, q_len, k_len] = scores.dims();
        if self.causal && q_len > 1 {
            let causal = Mask::causal_keys(q_len, k_len).to_tensor(&scores.device()); // [1, 1, q_len, k_len]
            scores = scores.mask_fill(causal, self.mask_value);
        }
        // Where the projections are packed (a one-query step on the CPU), the softmax runs on the
        // host.
        let weights = match packed {
            Some(_) => super::softmax::last_axis(scores),
            None => softmax(scores, 3),
        }; // [batch, heads, q_len, k_len]
        let heads = dropout::apply(&self.dropout, weights.clone()).matmul(kv.values.clone()); // [batch, heads, q_len, d_k]
        let [batch, n_heads, q_len, d_k] = heads.dims();
        let concatenated = heads.swap_dims(1, 2).reshape([batch, q_len, n_heads * d_k]); // [batch, q_len, d_model]
        AttentionOutput {
            context: project(&self.w_o, packed.map(|p| &p.w_o), concatenated),
            weights,
            raw_scores: keep_raw_scores.then_some(raw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(data: Tensor<4>) -> Vec<f32> {
        data.into_data().try_to_vec::<f32>().unwrap_or_default()
    }

    /// Weights from a block with the given switches, over four random tokens.
    fn run(scaled: bool, causal: bool) -> (Vec<f32>, Vec<f32>) {
        let device = Device::flex();
        let config = AttentionConfig::new(8, 2)
            .with_dropout(0.0)
            .with_scaled(scaled)
            .with_causal(causal);
        let block = config.init(&device);
        let x = Tensor::<3>::random([1, 4, 8], burn::tensor::Distribution::Default, &device);
        let out = block.forward(AttentionInput::self_attn(x).keep_scores(true));
        let raw = out.raw_scores.map(values).unwrap_or_default();
        (values(out.weights), raw)
    }

    #[test]
    fn unscaled_weights_are_the_softmax_of_the_raw_scores() {
        let (weights, raw) = run(false, false);
        for (row, raw_row) in weights.chunks(4).zip(raw.chunks(4)) {
            let total: f32 = raw_row.iter().map(|s| s.exp()).sum();
            for (w, s) in row.iter().zip(raw_row) {
                assert!((w - s.exp() / total).abs() < 1e-6, "{w} against {s}");
            }
        }
    }

    #[test]
    fn a_causal_block_hides_exactly_the_later_keys() {
        let (weights, _) = run(true, true);
        for (index, w) in weights.iter().enumerate() {
            let (query, key) = ((index / 4) % 4, index % 4);
            assert_eq!(*w == 0.0, key > query, "query {query}, key {key}: {w}");
        }
        let (open, _) = run(true, false);
        assert!(open.iter().all(|&w| w > 0.0));
    }
}
