//! Every projection of a model packed ([`PackedWeights`]), built from its `Linear` layers, and
//! the same with heads switched off, sharing every matrix it does not change.

use burn::tensor::Device;

use super::PackedLinear;
use crate::error::{Error, Result};
use crate::model::ablation::Ablation;
use crate::model::config::ModelConfig;
use crate::model::{AttentionKind, FeedForward, MultiHeadAttention, Transformer};

/// An attention block's four projections, packed.
#[derive(Clone, Debug)]
pub struct PackedAttention {
    /// `w_q`.
    pub w_q: PackedLinear,
    /// `w_k`.
    pub w_k: PackedLinear,
    /// `w_v`.
    pub w_v: PackedLinear,
    /// `w_o`.
    pub w_o: PackedLinear,
}

/// An attention block's `w_q, w_k, w_v, w_o`, packed.
async fn attention(block: &MultiHeadAttention) -> Result<PackedAttention> {
    Ok(PackedAttention {
        w_q: PackedLinear::from_linear(&block.w_q).await?,
        w_k: PackedLinear::from_linear(&block.w_k).await?,
        w_v: PackedLinear::from_linear(&block.w_v).await?,
        w_o: PackedLinear::from_linear(&block.w_o).await?,
    })
}

/// A feed-forward network's `linear_1, linear_2`, packed.
async fn feed_forward(ffn: &FeedForward) -> Result<[PackedLinear; 2]> {
    Ok([
        PackedLinear::from_linear(&ffn.linear_1).await?,
        PackedLinear::from_linear(&ffn.linear_2).await?,
    ])
}

/// One encoder layer's projections.
#[derive(Clone, Debug)]
pub struct PackedEncoderLayer {
    /// Self-attention.
    pub self_attn: PackedAttention,
    /// Feed-forward `linear_1, linear_2`.
    pub ffn: [PackedLinear; 2],
}

/// One decoder layer's projections.
#[derive(Clone, Debug)]
pub struct PackedDecoderLayer {
    /// Self-attention.
    pub self_attn: PackedAttention,
    /// Cross-attention (its keys and values: once per sentence).
    pub cross_attn: PackedAttention,
    /// Feed-forward `linear_1, linear_2`.
    pub ffn: [PackedLinear; 2],
}

/// Whether a session on `device` packs its model's weights ([`PackedWeights::for_device`]): the
/// CPU (flex) of a wasm module. There a loaded tied model keeps no transposed copy of its target
/// embedding either (`files::weights`): the packed projection is made from the embedding.
pub fn packs(device: &Device) -> bool {
    cfg!(target_arch = "wasm32") && *device == Device::flex()
}

/// Every projection of the encoder and the decoder, packed.
#[derive(Clone, Debug)]
pub struct PackedWeights {
    /// One per encoder layer.
    pub encoder: Vec<PackedEncoderLayer>,
    /// One per decoder layer.
    pub decoder: Vec<PackedDecoderLayer>,
    /// The vocabulary projection.
    pub projection: PackedLinear,
}

impl PackedWeights {
    /// Packed weights for `model` where they pay: on the CPU (flex) of a wasm module, whose
    /// gemm is slow on one row and on a few rows. A native build keeps gemm, whose x86 kernels
    /// (AVX2, FMA, chosen at run time) are faster than this loop (`benches/native.rs`).
    pub async fn for_device(model: &Transformer, device: &Device) -> Result<Option<Self>> {
        if !packs(device) {
            return Ok(None);
        }
        Self::new(model).await.map(Some)
    }

    /// Pack every projection of `model` (its tensors are read asynchronously).
    pub async fn new(model: &Transformer) -> Result<Self> {
        let mut encoder = Vec::with_capacity(model.encoder_layers.len());
        for layer in &model.encoder_layers {
            encoder.push(PackedEncoderLayer {
                self_attn: attention(&layer.self_attn).await?,
                ffn: feed_forward(&layer.ffn).await?,
            });
        }
        let mut decoder = Vec::with_capacity(model.decoder_layers.len());
        for layer in &model.decoder_layers {
            decoder.push(PackedDecoderLayer {
                self_attn: attention(&layer.self_attn).await?,
                cross_attn: attention(&layer.cross_attn).await?,
                ffn: feed_forward(&layer.ffn).await?,
            });
        }
        Ok(Self {
            encoder,
            decoder,
            projection: match model.tied_in_graph {
                true => {
                    let bias = model.projection.bias.as_ref();
                    PackedLinear::from_rows(&model.tgt_embed.weight.val(), bias).await?
                }
                false => PackedLinear::from_linear(&model.projection).await?,
            },
        })
    }

    /// These weights with the heads of `ablation` off, as [`Transformer::without_heads`] switches
    /// them off in the model: each head's `d_k` inputs of its block's `W_O` zeroed. Every other
    /// matrix is shared, not copied.
    pub fn without_heads(&self, config: &ModelConfig, ablation: &Ablation) -> Result<Self> {
        let mut packed = self.clone();
        for head in ablation.heads() {
            head.check(config)?;
            let (block, heads) = match head.kind {
                AttentionKind::EncoderSelf => (
                    packed.encoder.get_mut(head.layer).map(|l| &mut l.self_attn),
                    config.encoder_heads(),
                ),
                AttentionKind::DecoderSelf => (
                    packed.decoder.get_mut(head.layer).map(|l| &mut l.self_attn),
                    config.decoder_heads(),
                ),
                AttentionKind::Cross => (
                    packed
                        .decoder
                        .get_mut(head.layer)
                        .map(|l| &mut l.cross_attn),
                    config.decoder_heads(),
                ),
            };
            let block = block.ok_or(Error::Invariant("packed weights without a checked layer"))?;
            let d_k = block.w_o.d_in / heads.max(1);
            block.w_o = block
                .w_o
                .without_inputs(head.head * d_k..(head.head + 1) * d_k);
        }
        Ok(packed)
    }
}
