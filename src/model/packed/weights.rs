//! Every projection of a model packed ([`PackedWeights`]), built from its `Linear` layers, and
//! the same with heads switched off, sharing every matrix it does not change.

use burn::module::Param;
use burn::nn::Linear;
use burn::tensor::{Device, Tensor};

use super::{PackedLinear, PackedTable};
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

/// A `Linear` layer packed, and its matrix dropped at once where `drop` says
/// ([`PackedWeights::drop_unpacked`]): packing a model so never holds both copies of it whole.
async fn pack(linear: &mut Linear, drop: bool) -> Result<PackedLinear> {
    let packed = PackedLinear::from_linear(linear).await?;
    if drop {
        drop_weight(linear);
    }
    Ok(packed)
}

/// An attention block's `w_q, w_k, w_v, w_o`, packed.
async fn attention(block: &mut MultiHeadAttention, drop: bool) -> Result<PackedAttention> {
    Ok(PackedAttention {
        w_q: pack(&mut block.w_q, drop).await?,
        w_k: pack(&mut block.w_k, drop).await?,
        w_v: pack(&mut block.w_v, drop).await?,
        w_o: pack(&mut block.w_o, drop).await?,
    })
}

/// A feed-forward network's `linear_1, linear_2`, packed.
async fn feed_forward(ffn: &mut FeedForward, drop: bool) -> Result<[PackedLinear; 2]> {
    Ok([
        pack(&mut ffn.linear_1, drop).await?,
        pack(&mut ffn.linear_2, drop).await?,
    ])
}

/// An attention block's four projections.
fn attention_linears(block: &mut MultiHeadAttention) -> [&mut Linear; 4] {
    [
        &mut block.w_q,
        &mut block.w_k,
        &mut block.w_v,
        &mut block.w_o,
    ]
}

/// [`drop_weight`] on each of `linears`.
fn drop_all<const N: usize>(linears: [&mut Linear; N]) {
    for linear in linears {
        drop_weight(linear);
    }
}

/// Replace a `Linear` layer's matrix by a `[0, 0]` one, keeping its id (and its bias).
fn drop_weight(linear: &mut Linear) {
    let device = linear.weight.val().device();
    let id = linear.weight.id;
    linear.weight = Param::from_tensor(Tensor::empty([0, 0], &device));
    linear.weight.id = id;
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
/// CPU (flex) of a wasm module, and natively the CPU of an x86-64 with AVX2 and FMA, where the
/// packed kernel has those ([`super::fast_kernel`]; elsewhere gemm's kernels are faster). There a loaded tied model keeps no transposed copy of its target
/// embedding either (`files::weights`): the packed projection is made from the embedding.
pub fn packs(device: &Device) -> bool {
    (cfg!(target_arch = "wasm32") || super::fast_kernel()) && *device == Device::flex()
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
    /// The source embedding table, when kept here rather than in the model ([`PackedTable`]).
    pub src_table: Option<PackedTable>,
    /// The target embedding table, when kept here.
    pub tgt_table: Option<PackedTable>,
}

impl PackedWeights {
    /// Packed weights for `model` where they pay: on the CPU (flex) of a wasm module, whose
    /// gemm is slow on one row and on a few rows, and natively on an x86-64 CPU with AVX2 and
    /// FMA, where the packed kernel matches gemm's and lets whole layers run on the host (their
    /// norms, residuals and attention out of burn's tensors: `model::host_layers`). There
    /// `model`'s projection matrices are dropped as they are packed ([`Self::new_dropping`]).
    /// Other native CPUs keep gemm (`benches/native.rs` times both).
    pub async fn for_device(model: &mut Transformer, device: &Device) -> Result<Option<Self>> {
        if !packs(device) {
            return Ok(None);
        }
        Self::new_dropping(model).await.map(Some)
    }

    /// Pack every projection of `model` (its tensors are read asynchronously).
    pub async fn new(model: &Transformer) -> Result<Self> {
        Self::pack(&mut model.clone(), false).await
    }

    /// [`Self::new`], dropping each of `model`'s encoder and decoder matrices as soon as it is
    /// packed ([`Self::drop_unpacked`]): packing holds the model and one more matrix (and the
    /// packed vocabulary projection), not the model's projections twice.
    pub async fn new_dropping(model: &mut Transformer) -> Result<Self> {
        Self::pack(model, true).await
    }

    async fn pack(model: &mut Transformer, drop: bool) -> Result<Self> {
        // The vocabulary projection first: the largest, it fits the hole the freed file left.
        let projection = match model.tied_in_graph {
            true => {
                let bias = model.projection.bias.as_ref();
                PackedLinear::from_rows(&model.tgt_embed.weight.val(), bias).await?
            }
            false => PackedLinear::from_linear(&model.projection).await?,
        };
        let mut encoder = Vec::with_capacity(model.encoder_layers.len());
        for layer in &mut model.encoder_layers {
            encoder.push(PackedEncoderLayer {
                self_attn: attention(&mut layer.self_attn, drop).await?,
                ffn: feed_forward(&mut layer.ffn, drop).await?,
            });
        }
        let mut decoder = Vec::with_capacity(model.decoder_layers.len());
        for layer in &mut model.decoder_layers {
            decoder.push(PackedDecoderLayer {
                self_attn: attention(&mut layer.self_attn, drop).await?,
                cross_attn: attention(&mut layer.cross_attn, drop).await?,
                ffn: feed_forward(&mut layer.ffn, drop).await?,
            });
        }
        Ok(Self {
            encoder,
            decoder,
            projection,
            src_table: None,
            tgt_table: None,
        })
    }

    /// Drop `model`'s encoder and decoder projection matrices (every `Linear` weight of its
    /// layers: 705 MB of opus-mt-tc-big's F32) once they are packed: a session whose every pass
    /// goes through its packed copy reads them no more. Each becomes `[0, 0]` (ids and biases
    /// kept), so that a pass that still read one would fail on its shapes, not give other
    /// numbers; [`Transformer::without_heads`] leaves a dropped `W_O` as it is (the packed copy
    /// switches heads off), and new weights (`files::weights::replace_weights`) put them back.
    pub fn drop_unpacked(model: &mut Transformer) {
        for layer in &mut model.encoder_layers {
            drop_all(attention_linears(&mut layer.self_attn));
            drop_all([&mut layer.ffn.linear_1, &mut layer.ffn.linear_2]);
        }
        for layer in &mut model.decoder_layers {
            drop_all(attention_linears(&mut layer.self_attn));
            drop_all(attention_linears(&mut layer.cross_attn));
            drop_all([&mut layer.ffn.linear_1, &mut layer.ffn.linear_2]);
        }
    }

    /// Whether [`Self::drop_unpacked`] dropped `model`'s projection matrices.
    pub fn dropped(model: &Transformer) -> bool {
        let first = model.encoder_layers.first().map(|l| &l.self_attn.w_q);
        let first = first.or(model.decoder_layers.first().map(|l| &l.self_attn.w_q));
        first.is_some_and(|w_q| w_q.weight.val().dims() == [0, 0])
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
