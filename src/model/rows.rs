//! One-row projections for a cached decoding step on the CPU.
//!
//! A cached step multiplies one row per sentence by every projection's weight matrix. burn's
//! CPU backend sends that to gemm's matrix-vector path, which on wasm is its scalar
//! instantiation and packs the weights again at every call. Here each weight matrix is packed
//! once, at load, in tiles of [`TILE`] outputs: a tile holds its `d_in` rows of `TILE` weights
//! one after another, so a product reads each tile as one contiguous stream and keeps the tile's
//! `TILE` running sums in registers (eight simd128 vectors once LLVM vectorises the lanes).
//!
//! Measured in Node (V8, simd128) on the shipped shapes: 11–15 multiply-adds per ns against
//! gemm's 3–6; natively 12–16 against 7.5–9 (`benches/native.rs` times the whole step). A
//! variant with `f32x4.relaxed_madd` measured the same as this one: the product is bound by
//! reading the weights, not by the arithmetic.
//!
//! The results equal burn's `Linear::forward` up to the order of the additions (tested below
//! against a plain loop in f64). The session builds [`StepRows`] on the CPU only; WebGPU keeps
//! burn's kernels.

use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData};

use super::{DecoderLayer, Transformer};
use crate::error::{Error, Result};

/// At most this many rows take the one-row path; more (a big batch) go to gemm.
pub const MAX_ROWS: usize = 4;

/// Outputs per tile: their running sums stay in registers.
const TILE: usize = 32;

/// A `Linear` layer's weights packed for one-row products.
#[derive(Clone, Debug)]
pub struct RowLinear {
    /// `[tiles][d_in][TILE]`: tile `t` holds outputs `t·TILE …`, zero past `d_out`.
    packed: Vec<f32>,
    bias: Option<Vec<f32>>,
    d_in: usize,
    d_out: usize,
}

impl RowLinear {
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

    /// `out = x · W + b` for each row of `x` (`rows × d_in` values) into `out` (`rows × d_out`).
    pub fn apply(&self, x: &[f32], out: &mut [f32]) {
        for (row, out_row) in x
            .chunks_exact(self.d_in)
            .zip(out.chunks_exact_mut(self.d_out))
        {
            self.apply_row(row, out_row);
        }
    }

    fn apply_row(&self, x: &[f32], out: &mut [f32]) {
        let tiles = self.packed.chunks_exact(self.d_in * TILE);
        for (tile, out_tile) in tiles.zip(out.chunks_mut(TILE)) {
            let sums = tile_product(x, tile.as_chunks::<TILE>().0);
            out_tile.copy_from_slice(&sums[..out_tile.len()]);
        }
        if let Some(bias) = &self.bias {
            for (o, b) in out.iter_mut().zip(bias) {
                *o += b;
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

async fn read<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>> {
    tensor
        .into_data_async()
        .await
        .map_err(|e| Error::Backend(format!("{e:?}")))?
        .try_into_vec::<f32>()
        .map_err(|e| Error::Backend(format!("{e:?}")))
}

/// `linear(x)`, through `rows` when given and `x` holds at most [`MAX_ROWS`] rows.
///
/// Only a CPU device builds `rows`, and there a tensor's values are in memory: reading one is
/// immediate, so the synchronous read cannot block (it would on WebGPU, which never gets here).
///
/// # Shapes
/// `x: [batch, len, d_in]` → `[batch, len, d_out]`.
pub fn project(linear: &Linear, rows: Option<&RowLinear>, x: Tensor<3>) -> Tensor<3> {
    let [batch, len, _] = x.dims();
    let Some(row_linear) = rows.filter(|_| batch * len <= MAX_ROWS) else {
        return linear.forward(x);
    };
    let device = x.device();
    let values = match x.clone().try_into_data().map(|d| d.try_into_vec::<f32>()) {
        Ok(Ok(values)) => values,
        _ => return linear.forward(x),
    };
    let mut out = vec![0.0; batch * len * row_linear.d_out];
    row_linear.apply(&values, &mut out);
    Tensor::from_data(
        TensorData::new(out, [batch, len, row_linear.d_out]),
        &device,
    )
}

/// One decoder layer's projections: self-attention, cross-attention queries and outputs (its
/// keys and values are projected once per sentence), the feed-forward network.
#[derive(Clone, Debug)]
pub struct LayerRows {
    /// Self-attention `w_q, w_k, w_v, w_o`.
    pub self_attn: [RowLinear; 4],
    /// Cross-attention `w_q, w_o`.
    pub cross_attn: [RowLinear; 2],
    /// Feed-forward `linear_1, linear_2`.
    pub ffn: [RowLinear; 2],
}

impl LayerRows {
    async fn new(layer: &DecoderLayer) -> Result<Self> {
        let (s, c, f) = (&layer.self_attn, &layer.cross_attn, &layer.ffn);
        Ok(Self {
            self_attn: [
                RowLinear::from_linear(&s.w_q).await?,
                RowLinear::from_linear(&s.w_k).await?,
                RowLinear::from_linear(&s.w_v).await?,
                RowLinear::from_linear(&s.w_o).await?,
            ],
            cross_attn: [
                RowLinear::from_linear(&c.w_q).await?,
                RowLinear::from_linear(&c.w_o).await?,
            ],
            ffn: [
                RowLinear::from_linear(&f.linear_1).await?,
                RowLinear::from_linear(&f.linear_2).await?,
            ],
        })
    }
}

/// Every projection of a cached decoding step, laid out for one-row products.
#[derive(Clone, Debug)]
pub struct StepRows {
    /// One per decoder layer.
    pub layers: Vec<LayerRows>,
    /// The vocabulary projection.
    pub projection: RowLinear,
}

impl StepRows {
    /// For `model` on `device`: `None` unless the device is the CPU (flex).
    pub async fn for_device(model: &Transformer, device: &Device) -> Result<Option<Self>> {
        if *device != Device::flex() {
            return Ok(None);
        }
        let mut layers = Vec::with_capacity(model.decoder_layers.len());
        for layer in &model.decoder_layers {
            layers.push(LayerRows::new(layer).await?);
        }
        Ok(Some(Self {
            layers,
            projection: RowLinear::from_linear(&model.projection).await?,
        }))
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
        let linear = RowLinear::new(&w, d_in, d_out, b.clone()).unwrap();
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
        for &rows in &[1, 3] {
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
        }
    }

    #[test]
    fn refuses_a_shape_its_weights_do_not_have() {
        assert!(RowLinear::new(&[1.0; 6], 2, 4, None).is_err());
        assert!(RowLinear::new(&[1.0; 6], 2, 3, Some(vec![0.0; 2])).is_err());
        assert!(RowLinear::new(&[], 0, 3, None).is_err());
    }
}
