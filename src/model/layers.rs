//! The encoder and decoder layers: attention, then the sublayers around it
//! ([`super::sublayers`]), each wrapped in Add & Norm.

use burn::module::Module;
use burn::tensor::{Bool, Device, Tensor};

use super::attention::{
    AttentionConfig, AttentionInput, AttentionKind, AttentionOutput, KeyValue, MultiHeadAttention,
};
use super::config::ModelConfig;
use super::packed::{PackedDecoderLayer, PackedEncoderLayer};
use super::sublayers::{FeedForward, FeedForwardConfig, Residual, ResidualConfig};

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
            self_attn: AttentionConfig::from_model(config, config.encoder_heads())
                .with_scaled(config.scaled_attention)
                .init(device),
            ffn: FeedForwardConfig::from_model(config, config.encoder_d_ff()).init(device),
            residual_1: ResidualConfig::from_model(config).init(device),
            residual_2: ResidualConfig::from_model(config).init(device),
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
        let on_host = packed.and_then(|packed| {
            self.forward_on_host(&x, padding_mask.as_ref(), keep_raw_scores, packed)
        });
        if let Some(output) = on_host {
            return output;
        }
        let attention = self.attend(x.clone(), padding_mask, keep_raw_scores, packed);
        let x = self.residual_1.output(x, attention.context.clone());
        let ffn = self
            .ffn
            .forward_with(self.residual_2.input(x.clone()), packed.map(|p| &p.ffn));
        let x = self.residual_2.output(x, ffn);
        (x, attention)
    }

    /// The layer's self-attention alone (its norm first in a pre-norm model), without the
    /// residual and the feed-forward after it: all that a probe of this layer reads.
    pub fn attend(
        &self,
        x: Tensor<3>,
        padding_mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: Option<&PackedEncoderLayer>,
    ) -> AttentionOutput {
        self.self_attn.forward(
            AttentionInput::self_attn(self.residual_1.input(x))
                .mask(padding_mask)
                .keep_scores(keep_raw_scores)
                .packed(packed.map(|p| &p.self_attn)),
        )
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
/// `DecoderInput::new(x, memory).cross_mask(p).cache(slot)`. The self-attention is causal by
/// its config (`causal_decoder`), over a whole prefix or over the cache and the new positions.
///
/// # Shapes
/// `x: [batch, tgt_len, d_model]`; `memory`: the encoder output projected into this layer's
/// cross-attention keys and values, `[batch, heads, src_len, d_k]`; `cross_mask:
/// [batch, 1, 1, src_len]`.
pub struct DecoderInput<'a> {
    x: Tensor<3>,
    memory: &'a KeyValue,
    cross_mask: Option<Tensor<4, Bool>>,
    cache: Option<&'a mut Option<KeyValue>>,
    keep_scores: Option<AttentionKind>,
    packed: Option<&'a PackedDecoderLayer>,
    attention_only: bool,
}

impl<'a> DecoderInput<'a> {
    /// The layer input and the projected encoder output, no masks, no cache.
    pub fn new(x: Tensor<3>, memory: &'a KeyValue) -> Self {
        Self {
            x,
            memory,
            cross_mask: None,
            cache: None,
            keep_scores: None,
            packed: None,
            attention_only: false,
        }
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

    /// Only the attention is wanted (a probe's last layer): the feed-forward is skipped and the
    /// output is the layer's state after the cross-attention.
    pub fn attention_only(mut self, attention_only: bool) -> Self {
        self.attention_only = attention_only;
        self
    }
}

impl DecoderLayer {
    /// A randomly initialised layer.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            self_attn: AttentionConfig::from_model(config, config.decoder_heads())
                .with_scaled(config.scaled_attention)
                .with_causal(config.causal_decoder)
                .init(device),
            cross_attn: AttentionConfig::from_model(config, config.decoder_heads())
                .with_scaled(config.scaled_attention)
                .init(device),
            ffn: FeedForwardConfig::from_model(config, config.decoder_d_ff()).init(device),
            residual_1: ResidualConfig::from_model(config).init(device),
            residual_2: ResidualConfig::from_model(config).init(device),
            residual_3: ResidualConfig::from_model(config).init(device),
        }
    }

    /// One decoder layer, either over a whole prefix (no cache) or for
    /// new positions appended to a key/value cache (the cache grows).
    ///
    /// # Shapes
    /// `x: [batch, tgt_len, d_model]` → `[batch, tgt_len, d_model]`; see [`DecoderInput`].
    pub fn forward(&self, input: DecoderInput<'_>) -> (Tensor<3>, DecoderLayerAttention) {
        let DecoderInput {
            x,
            memory,
            cross_mask,
            mut cache,
            keep_scores,
            packed,
            attention_only,
        } = input;
        let whole_layer = keep_scores.is_none() && !attention_only;
        let on_host = packed.filter(|_| whole_layer).and_then(|packed| {
            let slot = cache.as_deref_mut();
            self.forward_on_host(&x, memory, cross_mask.as_ref(), slot, packed)
        });
        if let Some(output) = on_host {
            return output;
        }
        let input = self.residual_1.input(x.clone());
        let self_attention = self.self_attn.forward(
            AttentionInput::self_attn(input)
                .cache(cache)
                .keep_scores(keep_scores == Some(AttentionKind::DecoderSelf))
                .packed(packed.map(|p| &p.self_attn)),
        );
        let x = self.residual_1.output(x, self_attention.context.clone());

        let input = self.residual_2.input(x.clone());
        let cross_attention = self.cross_attn.forward(
            AttentionInput::cross(input, memory)
                .mask(cross_mask)
                .keep_scores(keep_scores == Some(AttentionKind::Cross))
                .packed(packed.map(|p| &p.cross_attn)),
        );
        let x = self.residual_2.output(x, cross_attention.context.clone());
        let attention = DecoderLayerAttention {
            self_attention,
            cross_attention,
        };
        if attention_only {
            return (x, attention);
        }

        let ffn_packed = packed.map(|p| &p.ffn);
        let ffn = self
            .ffn
            .forward_with(self.residual_3.input(x.clone()), ffn_packed);
        (self.residual_3.output(x, ffn), attention)
    }
}
