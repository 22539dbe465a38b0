//! The layers around attention: the position-wise feed-forward network, Add & Norm, and the
//! encoder and decoder layers, in the order the paper introduces them.

use burn::module::Module;
use burn::nn::{
    Dropout, DropoutConfig, Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig,
};
use burn::tensor::activation::{gelu, relu, silu};
use burn::tensor::{Bool, Device, Tensor};

use super::attention::{AttentionKind, AttentionOutput, KeyValue, MultiHeadAttention};
use super::config::{Activation, ModelConfig};
use super::dropout;
use super::packed::{project, PackedDecoderLayer, PackedEncoderLayer, PackedLinear};

// ---------------------------------------------------------------------------------------------
// Position-wise feed-forward network
// ---------------------------------------------------------------------------------------------

/// linear_1 → activation (ReLU, GELU or swish) → dropout → linear_2, applied to every position
/// alone.
#[derive(Module, Debug)]
pub struct FeedForward {
    /// `d_model → d_ff`, with bias.
    pub linear_1: Linear,
    /// `d_ff → d_model`, with bias.
    pub linear_2: Linear,
    dropout: Dropout,
    #[module(skip)]
    activation: Activation,
}

impl FeedForward {
    /// A randomly initialised block with hidden width `d_ff`.
    pub fn new(config: &ModelConfig, d_ff: usize, device: &Device) -> Self {
        let xavier = Initializer::XavierUniform { gain: 1.0 };
        Self {
            linear_1: LinearConfig::new(config.d_model, d_ff)
                .with_initializer(xavier.clone())
                .init(device),
            linear_2: LinearConfig::new(d_ff, config.d_model)
                .with_initializer(xavier)
                .init(device),
            dropout: DropoutConfig::new(config.dropout).init(),
            activation: config.activation,
        }
    }

    /// The hidden activations: `linear_1`, then the activation.
    ///
    /// # Shapes
    /// `[batch, len, d_model]` → `[batch, len, d_ff]`.
    pub fn hidden(&self, x: Tensor<3>) -> Tensor<3> {
        self.hidden_with(x, None)
    }

    fn hidden_with(&self, x: Tensor<3>, packed: Option<&PackedLinear>) -> Tensor<3> {
        let hidden = project(&self.linear_1, packed, x); // [batch, len, d_ff]
        match self.activation {
            Activation::Relu => relu(hidden),
            Activation::Gelu => gelu(hidden),
            Activation::Swish => silu(hidden),
        }
    }

    /// The block's output from its hidden activations: dropout, then `linear_2`.
    ///
    /// # Shapes
    /// `[batch, len, d_ff]` → `[batch, len, d_model]`.
    pub fn project(&self, hidden: Tensor<3>) -> Tensor<3> {
        self.linear_2.forward(dropout::apply(&self.dropout, hidden))
    }

    /// # Shapes
    /// `[batch, len, d_model]` → `[batch, len, d_model]`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        self.project(self.hidden(x))
    }

    /// [`Self::forward`], through packed copies of `linear_1` and `linear_2` where given.
    pub fn forward_with(&self, x: Tensor<3>, packed: Option<&[PackedLinear; 2]>) -> Tensor<3> {
        let hidden = self.hidden_with(x, packed.map(|p| &p[0]));
        project(
            &self.linear_2,
            packed.map(|p| &p[1]),
            dropout::apply(&self.dropout, hidden),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Add & Norm
// ---------------------------------------------------------------------------------------------

/// One residual connection around a sublayer, with its LayerNorm in either placement.
#[derive(Module, Debug)]
pub struct Residual {
    /// The LayerNorm (`weight`/`bias` in PyTorch's names, `gamma`/`beta` in burn's).
    pub norm: LayerNorm,
    dropout: Dropout,
    norm_first: bool,
}

impl Residual {
    /// A fresh residual connection.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            norm: LayerNormConfig::new(config.d_model)
                .with_epsilon(config.layer_norm_eps)
                .init(device),
            dropout: DropoutConfig::new(config.dropout).init(),
            norm_first: config.norm_first,
        }
    }

    /// The sublayer's input: `norm(x)` in pre-norm, `x` itself in post-norm.
    pub fn input(&self, x: Tensor<3>) -> Tensor<3> {
        if self.norm_first {
            self.norm.forward(x)
        } else {
            x
        }
    }

    /// Combine: `x + dropout(y)` in pre-norm, `norm(x + dropout(y))` in post-norm.
    pub fn output(&self, x: Tensor<3>, sublayer_output: Tensor<3>) -> Tensor<3> {
        let sum = x + dropout::apply(&self.dropout, sublayer_output);
        if self.norm_first {
            sum
        } else {
            self.norm.forward(sum)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoder layer
// ---------------------------------------------------------------------------------------------

/// Self-attention, Add & Norm, feed-forward, Add & Norm.
#[derive(Module, Debug)]
pub struct EncoderLayer {
    /// Self-attention over the source.
    pub self_attn: MultiHeadAttention,
    /// Feed-forward network.
    pub ffn: FeedForward,
    /// Around the self-attention (`norm_1`).
    pub residual_1: Residual,
    /// Around the feed-forward network (`norm_2`).
    pub residual_2: Residual,
}

impl EncoderLayer {
    /// A randomly initialised layer.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            self_attn: MultiHeadAttention::new(config, config.encoder_heads(), device),
            ffn: FeedForward::new(config, config.encoder_d_ff(), device),
            residual_1: Residual::new(config, device),
            residual_2: Residual::new(config, device),
        }
    }

    /// # Shapes
    /// `x: [batch, src_len, d_model]`, `padding_mask: [batch, 1, 1, src_len]`
    /// → `[batch, src_len, d_model]` and the attention (weights `[batch, heads, src_len, src_len]`).
    pub fn forward(
        &self,
        x: Tensor<3>,
        padding_mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> (Tensor<3>, AttentionOutput) {
        self.forward_packed(x, padding_mask, keep_raw_scores, None)
    }

    /// [`Self::forward`], through packed copies of the layer's weights where given (the CPU).
    pub fn forward_packed(
        &self,
        x: Tensor<3>,
        padding_mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: Option<&PackedEncoderLayer>,
    ) -> (Tensor<3>, AttentionOutput) {
        let input = self.residual_1.input(x.clone());
        let attention = self.self_attn.forward_with(
            input.clone(),
            input,
            padding_mask,
            keep_raw_scores,
            packed.map(|p| &p.self_attn),
        );
        let x = self.residual_1.output(x, attention.context.clone());
        let ffn = self
            .ffn
            .forward_with(self.residual_2.input(x.clone()), packed.map(|p| &p.ffn));
        let x = self.residual_2.output(x, ffn);
        (x, attention)
    }
}

// ---------------------------------------------------------------------------------------------
// Decoder layer
// ---------------------------------------------------------------------------------------------

/// Masked self-attention, cross-attention, feed-forward, each with Add & Norm.
#[derive(Module, Debug)]
pub struct DecoderLayer {
    /// Masked self-attention over the target prefix.
    pub self_attn: MultiHeadAttention,
    /// Cross-attention: queries from the decoder, keys and values from the encoder output.
    pub cross_attn: MultiHeadAttention,
    /// Feed-forward network.
    pub ffn: FeedForward,
    /// Around the self-attention (`norm_1`).
    pub residual_1: Residual,
    /// Around the cross-attention (`norm_2`).
    pub residual_2: Residual,
    /// Around the feed-forward network (`norm_3`).
    pub residual_3: Residual,
}

/// What a decoder layer returns besides its output.
#[derive(Clone, Debug)]
pub struct DecoderLayerAttention {
    /// Masked self-attention.
    pub self_attention: AttentionOutput,
    /// Cross-attention.
    pub cross_attention: AttentionOutput,
}

/// What a decoder layer reads, built like burn's `MhaInput`:
/// `DecoderInput::new(x, memory).self_mask(m).cross_mask(p).cache(slot)`.
///
/// # Shapes
/// `x: [batch, tgt_len, d_model]`; `memory`: the encoder output projected into this layer's
/// cross-attention keys and values, `[batch, heads, src_len, d_k]`; `self_mask:
/// [1|batch, 1, tgt_len, keys]`; `cross_mask: [batch, 1, 1, src_len]`.
pub struct DecoderInput<'a> {
    x: Tensor<3>,
    memory: &'a KeyValue,
    self_mask: Option<Tensor<4, Bool>>,
    cross_mask: Option<Tensor<4, Bool>>,
    cache: Option<&'a mut Option<KeyValue>>,
    keep_scores: Option<AttentionKind>,
    packed: Option<&'a PackedDecoderLayer>,
}

impl<'a> DecoderInput<'a> {
    /// The layer input and the projected encoder output, no masks, no cache.
    pub fn new(x: Tensor<3>, memory: &'a KeyValue) -> Self {
        Self {
            x,
            memory,
            self_mask: None,
            cross_mask: None,
            cache: None,
            keep_scores: None,
            packed: None,
        }
    }

    /// Hide keys from the self-attention (the causal mask over a whole prefix).
    pub fn self_mask(mut self, mask: Option<Tensor<4, Bool>>) -> Self {
        self.self_mask = mask;
        self
    }

    /// Hide source keys from the cross-attention (the padding mask).
    pub fn cross_mask(mut self, mask: Tensor<4, Bool>) -> Self {
        self.cross_mask = Some(mask);
        self
    }

    /// Decode step by step: append this call's keys and values to `slot` and attend to all.
    pub fn cache(mut self, slot: Option<&'a mut Option<KeyValue>>) -> Self {
        self.cache = slot;
        self
    }

    /// Project through packed copies of the layer's weights (the CPU).
    pub fn packed(mut self, packed: Option<&'a PackedDecoderLayer>) -> Self {
        self.packed = packed;
        self
    }

    /// Keep the raw scores QKᵀ of this kind of attention (for the head-stages view).
    pub fn keep_scores(mut self, kind: Option<AttentionKind>) -> Self {
        self.keep_scores = kind;
        self
    }
}

impl DecoderLayer {
    /// A randomly initialised layer.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            self_attn: MultiHeadAttention::new(config, config.decoder_heads(), device),
            cross_attn: MultiHeadAttention::new(config, config.decoder_heads(), device),
            ffn: FeedForward::new(config, config.decoder_d_ff(), device),
            residual_1: Residual::new(config, device),
            residual_2: Residual::new(config, device),
            residual_3: Residual::new(config, device),
        }
    }

    /// One decoder layer, either over a whole prefix (no cache, a causal `self_mask`) or for
    /// new positions appended to a key/value cache (the cache grows).
    ///
    /// # Shapes
    /// `x: [batch, tgt_len, d_model]` → `[batch, tgt_len, d_model]`; see [`DecoderInput`].
    pub fn forward(&self, input: DecoderInput<'_>) -> (Tensor<3>, DecoderLayerAttention) {
        let DecoderInput {
            x,
            memory,
            self_mask,
            cross_mask,
            cache,
            keep_scores,
            packed,
        } = input;
        let self_packed = packed.map(|p| &p.self_attn);
        let keep_self_scores = keep_scores == Some(AttentionKind::DecoderSelf);
        let keep_cross_scores = keep_scores == Some(AttentionKind::Cross);
        let input = self.residual_1.input(x.clone());
        let new_kv = self
            .self_attn
            .project_key_value_with(input.clone(), self_packed);
        let kv = match cache {
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
        let self_attention =
            self.self_attn
                .attend_with(input, &kv, self_mask, keep_self_scores, self_packed);
        let x = self.residual_1.output(x, self_attention.context.clone());

        let input = self.residual_2.input(x.clone());
        let cross_attention = self.cross_attn.attend_with(
            input,
            memory,
            cross_mask,
            keep_cross_scores,
            packed.map(|p| &p.cross_attn),
        );
        let x = self.residual_2.output(x, cross_attention.context.clone());

        let ffn_packed = packed.map(|p| &p.ffn);
        let ffn = self
            .ffn
            .forward_with(self.residual_3.input(x.clone()), ffn_packed);
        let x = self.residual_3.output(x, ffn);
        (
            x,
            DecoderLayerAttention {
                self_attention,
                cross_attention,
            },
        )
    }
}
