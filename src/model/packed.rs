//! Weights packed once for the CPU: the projections of the encoder and of a cached decoding
//! step, without gemm.
//!
//! On wasm, burn's CPU backend sends every projection to gemm, whose wasm instantiation packs
//! the weights again at every call, and whose one-row path (each cached step: one row per
//! sentence) is scalar. Here each weight matrix is packed once, at load, in tiles of [`TILE`]
//! outputs: a tile holds its `d_in` rows of `TILE` weights one after another, so a product reads
//! a tile as one contiguous stream, keeps the tile's `TILE` running sums in registers (eight
//! simd128 vectors once LLVM vectorises the lanes), and reuses the tile from the L1 cache for
//! every row of the input.
//!
//! Measured in Node (V8, simd128) on the shipped shapes with a scratch build of this loop:
//! one row, 11–15 multiply-adds per ns against gemm's 3–6; 8–64 rows, 7–14 against 2–4.
//! A variant with `f32x4.relaxed_madd` measured the same as this one (one row: the product is
//! bound by reading the weights). `benches/native.rs` times the whole step both ways.
//!
//! The results equal burn's `Linear::forward` up to the order of the additions (tested below
//! against a plain loop in f64, and in `tests/packed.rs` on whole models). The session packs
//! its model on the CPU of a wasm module only ([`PackedWeights::for_device`]); WebGPU and
//! native builds keep burn's kernels.

use burn::module::Param;
use burn::nn::{Embedding, Linear};
use burn::tensor::module::linear;
use burn::tensor::{Device, Tensor, TensorData};

use super::{FeedForward, MultiHeadAttention, Transformer};
use crate::error::{Error, Result};

/// Outputs per tile: their running sums stay in registers, and a tile of 192 inputs (24 KB)
/// stays in the L1 cache while every row of the input passes.
const TILE: usize = 32;

/// A `Linear` layer's weights, packed.
#[derive(Clone, Debug)]
pub struct PackedLinear {
    /// `[tiles][d_in][TILE]`: tile `t` holds outputs `t·TILE …`, zero past `d_out`.
    packed: Vec<f32>,
    bias: Option<Vec<f32>>,
    d_in: usize,
    d_out: usize,
}

impl PackedLinear {
    /// From `[d_in, d_out]` weights (burn's `Linear` layout) and an optional bias.
    pub fn new(weight: &[f32], d_in: usize, d_out: usize, bias: Option<Vec<f32>>) -> Result<Self> {
        if d_in == 0 || d_out == 0 {
            return Err(Error::Invariant("a projection without inputs or outputs"));
        }
        if weight.len() != d_in * d_out || bias.as_ref().is_some_and(|b| b.len() != d_out) {
            return Err(Error::Invariant(
                "a projection's weights do not match its shape",
            ));
        }
        let tiles = d_out.div_ceil(TILE);
        let mut packed = vec![0.0; tiles * d_in * TILE];
        for (i, row) in weight.chunks_exact(d_out).enumerate() {
            for (j, &w) in row.iter().enumerate() {
                let (tile, lane) = (j / TILE, j % TILE);
                packed[(tile * d_in + i) * TILE + lane] = w;
            }
        }
        Ok(Self {
            packed,
            bias,
            d_in,
            d_out,
        })
    }

    /// Copy a `Linear` layer's weights (read asynchronously, as everywhere else).
    pub async fn from_linear(linear: &Linear) -> Result<Self> {
        let [d_in, d_out] = linear.weight.val().dims();
        let weight = read(linear.weight.val()).await?;
        let bias = match &linear.bias {
            Some(bias) => Some(read(bias.val()).await?),
            None => None,
        };
        Self::new(&weight, d_in, d_out, bias)
    }

    /// Output width.
    pub fn d_out(&self) -> usize {
        self.d_out
    }

    /// `out = x · W + b` for each row of `x` (`rows × d_in` values) into `out` (`rows × d_out`):
    /// tile by tile, each tile for every row while it is in the cache.
    pub fn apply(&self, x: &[f32], out: &mut [f32]) {
        let tiles = self.packed.chunks_exact(self.d_in * TILE);
        for (index, tile) in tiles.enumerate() {
            let (start, weights) = (index * TILE, tile.as_chunks::<TILE>().0);
            let width = TILE.min(self.d_out - start);
            let rows = x
                .chunks_exact(self.d_in)
                .zip(out.chunks_exact_mut(self.d_out));
            for (row, out_row) in rows {
                let sums = tile_product(row, weights);
                out_row[start..start + width].copy_from_slice(&sums[..width]);
            }
        }
        if let Some(bias) = &self.bias {
            for out_row in out.chunks_exact_mut(self.d_out) {
                for (o, b) in out_row.iter_mut().zip(bias) {
                    *o += b;
                }
            }
        }
    }
}

/// `Σ_i x[i] · rows[i]`: one tile's `TILE` outputs.
fn tile_product(x: &[f32], rows: &[[f32; TILE]]) -> [f32; TILE] {
    let mut sums = [0.0f32; TILE];
    for (xi, row) in x.iter().zip(rows) {
        for lane in 0..TILE {
            sums[lane] += xi * row[lane];
        }
    }
    sums
}

/// A tensor's values on the host, read asynchronously (the only read WebGPU in a browser allows).
pub(crate) async fn read<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>> {
    tensor
        .into_data_async()
        .await
        .map_err(|e| Error::Backend(format!("{e:?}")))?
        .try_into_vec::<f32>()
        .map_err(|e| Error::Backend(format!("{e:?}")))
}

/// `linear(x)`, through `packed` (`linear`'s weights packed) when given.
///
/// Only a CPU device gets packed weights, and there a tensor's values are in memory: reading one
/// is immediate, so the synchronous read cannot block (it would on WebGPU, which never gets here).
///
/// # Shapes
/// `x: [batch, len, d_in]` → `[batch, len, d_out]`.
pub fn project(linear: &Linear, packed: Option<&PackedLinear>, x: Tensor<3>) -> Tensor<3> {
    let Some(packed) = packed else {
        return linear.forward(x);
    };
    let [batch, len, _] = x.dims();
    let device = x.device();
    let values = match x.clone().try_into_data().map(|d| d.try_into_vec::<f32>()) {
        Ok(Ok(values)) => values,
        _ => return linear.forward(x),
    };
    let mut out = vec![0.0; batch * len * packed.d_out];
    packed.apply(&values, &mut out);
    Tensor::from_data(TensorData::new(out, [batch, len, packed.d_out]), &device)
}

/// Logits from the target embedding itself, `x · Eᵀ + bias`: a tied projection while training,
/// where the embedding must get the projection's gradient.
///
/// # Shapes
/// `x: [batch, len, d_model]` → `[batch, len, vocab]`.
pub fn project_tied(
    embedding: &Embedding,
    bias: Option<&Param<Tensor<1>>>,
    x: Tensor<3>,
) -> Tensor<3> {
    // burn's `linear` (as `Linear` uses it) folds the batch into the rows: one
    // [rows, d_model] × [d_model, vocab] matmul. A broadcast batched matmul made backward build
    // a [batch, d_model, vocab] gradient and sum it.
    let weight = embedding.weight.val().transpose(); // [d_model, vocab]
    linear(x, weight, bias.map(|b| b.val()))
}

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
        if !cfg!(target_arch = "wasm32") || *device != Device::flex() {
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
            projection: PackedLinear::from_linear(&model.projection).await?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic, irregular fill.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 2001) as f32 / 1000.0 - 1.0)
            .collect()
    }

    /// The plain loop over burn's `[d_in, d_out]` layout.
    fn plain(x: &[f32], w: &[f32], b: Option<&[f32]>, d_in: usize, d_out: usize) -> Vec<f32> {
        let rows = x.len() / d_in;
        let mut out = vec![0.0f64; rows * d_out];
        for r in 0..rows {
            for j in 0..d_out {
                let mut sum = b.map_or(0.0, |b| f64::from(b[j]));
                for i in 0..d_in {
                    sum += f64::from(x[r * d_in + i]) * f64::from(w[i * d_out + j]);
                }
                out[r * d_out + j] = sum;
            }
        }
        out.into_iter().map(|v| v as f32).collect()
    }

    fn check(rows: usize, d_in: usize, d_out: usize, with_bias: bool) {
        let x = values(rows * d_in, 7);
        let w = values(d_in * d_out, 11);
        let b = with_bias.then(|| values(d_out, 13));
        let linear = PackedLinear::new(&w, d_in, d_out, b.clone()).unwrap();
        let mut out = vec![0.0; rows * d_out];
        linear.apply(&x, &mut out);
        let expected = plain(&x, &w, b.as_deref(), d_in, d_out);
        for (k, (got, want)) in out.iter().zip(&expected).enumerate() {
            let tolerance = 1e-5 * (1.0 + want.abs()) * (d_in as f32).sqrt();
            assert!(
                (got - want).abs() <= tolerance,
                "{rows}×{d_in}→{d_out} at {k}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn equals_the_plain_loop_on_odd_sizes() {
        for &rows in &[1, 3, 17, 65] {
            for &d_in in &[1, 3, 17, 65] {
                for &d_out in &[1, 3, 17, 65] {
                    check(rows, d_in, d_out, (d_in + d_out) % 2 == 0);
                }
            }
        }
    }

    #[test]
    fn equals_the_plain_loop_on_the_shipped_shapes() {
        // en-zh: d_model 192, d_ff 768, 2,878 target tokens; date-iso: d_model 64, d_ff 256.
        for &(d_in, d_out) in &[(192, 192), (192, 768), (768, 192), (192, 2878), (64, 256)] {
            check(1, d_in, d_out, true);
            check(4, d_in, d_out, false);
            check(33, d_in, d_out, true);
        }
    }

    #[test]
    fn refuses_a_shape_its_weights_do_not_have() {
        assert!(PackedLinear::new(&[1.0; 6], 2, 4, None).is_err());
        assert!(PackedLinear::new(&[1.0; 6], 2, 3, Some(vec![0.0; 2])).is_err());
        assert!(PackedLinear::new(&[], 0, 3, None).is_err());
    }
}
