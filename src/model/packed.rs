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
//! against a plain loop in f64, and in `tests/integration/packed.rs` on whole models). The
//! session packs its model on the CPU of a wasm module, and natively on an x86-64 CPU with AVX2
//! and FMA, where the same tiles go through `packed/x86.rs`'s kernel and whole layers run on the host
//! (`model::host_layers`) ([`PackedWeights::for_device`]); WebGPU and other native CPUs keep
//! burn's kernels.

use std::sync::Arc;

use burn::module::Param;
use burn::nn::{Embedding, Linear};
use burn::tensor::module::linear;
use burn::tensor::{Tensor, TensorData};

use crate::error::{Error, Result};

/// Outputs per tile: their running sums stay in registers, and a tile of 192 inputs (24 KB)
/// stays in the L1 cache while every row of the input passes.
const TILE: usize = 32;

/// How many weights [`PackedLinear::from_linear`] reads out of the model at a time: a band of
/// whole tiles, so that packing never holds a second copy of a whole matrix (the tied output
/// projection of opus-mt-tc-big is 233 MB).
const BAND: usize = 1 << 20;

/// A `Linear` layer's weights, packed. Cloning shares the values (a session's twin, and a model
/// with heads off, share every matrix they do not change).
#[derive(Clone, Debug)]
pub struct PackedLinear {
    /// `[tiles][d_in][TILE]`: tile `t` holds outputs `t·TILE …`, zero past `d_out`.
    tiles: Tiles,
    bias: Option<Arc<Vec<f32>>>,
    d_in: usize,
    d_out: usize,
}

impl PackedLinear {
    /// From `[d_in, d_out]` weights (burn's `Linear` layout) and an optional bias.
    pub fn new(weight: &[f32], d_in: usize, d_out: usize, bias: Option<Vec<f32>>) -> Result<Self> {
        check_shape(d_in, d_out, bias.as_deref())?;
        if weight.len() != d_in * d_out {
            return Err(Error::Invariant(
                "a projection's weights do not match its shape",
            ));
        }
        let mut packed = vec![0.0; d_out.div_ceil(TILE) * d_in * TILE];
        pack_band(&mut packed, weight, d_in, 0, d_out);
        Ok(Self::from_parts(packed, bias, d_in, d_out))
    }

    fn from_parts(packed: Vec<f32>, bias: Option<Vec<f32>>, d_in: usize, d_out: usize) -> Self {
        Self {
            tiles: Tiles::F32(Arc::new(packed)),
            bias: bias.map(Arc::new),
            d_in,
            d_out,
        }
    }

    /// Copy a `Linear` layer's weights (read asynchronously, as everywhere else), a band of
    /// whole tiles at a time.
    pub async fn from_linear(linear: &Linear) -> Result<Self> {
        let [d_in, d_out] = linear.weight.val().dims();
        let (bias, mut packed, band) = start_packing(d_in, d_out, linear.bias.as_ref()).await?;
        for start in (0..d_out).step_by(band) {
            let width = band.min(d_out - start);
            let weight = read(linear.weight.val().narrow(1, start, width)).await?; // [d_in, width]
            pack_band(&mut packed, &weight, d_in, start, width);
        }
        Ok(Self::from_parts(packed, bias, d_in, d_out))
    }

    /// `x · Eᵀ + b` for a `[d_out, d_in]` matrix `E` (the target embedding of a tied model, whose
    /// rows are the projection's outputs), packed from `E` a band of rows at a time: no transposed
    /// copy of it is made.
    pub async fn from_rows(rows: &Tensor<2>, bias: Option<&Param<Tensor<1>>>) -> Result<Self> {
        let [d_out, d_in] = rows.dims();
        let (bias, mut packed, band) = start_packing(d_in, d_out, bias).await?;
        for start in (0..d_out).step_by(band) {
            let width = band.min(d_out - start);
            let values = read(rows.clone().narrow(0, start, width)).await?; // [width, d_in]
            pack_rows(&mut packed, &values, d_in, start);
        }
        Ok(Self::from_parts(packed, bias, d_in, d_out))
    }

    /// This projection with the inputs `inputs` switched off (their weights zeroed): what
    /// `Transformer::without_heads` does to `W_O`, on the packed copy. The other projections
    /// keep sharing their values.
    fn without_inputs(&self, inputs: std::ops::Range<usize>) -> Self {
        Self {
            tiles: self.tiles.without_inputs(self.d_in, inputs),
            ..self.clone()
        }
    }

    /// A weights file's `[d_out, d_in]` matrix (its little-endian `bytes`, `width` bytes a value:
    /// a `Linear` weight as PyTorch keeps it, or a tied model's target embedding), packed without
    /// an F32 copy of it: in F16 tiles when `half` and the file is F16 ([`tiles`]).
    pub fn from_file_rows(
        bytes: &[u8],
        width: usize,
        [d_out, d_in]: [usize; 2],
        bias: Option<Vec<f32>>,
        half: bool,
    ) -> Result<Self> {
        check_shape(d_in, d_out, bias.as_deref())?;
        if ![2, 4].contains(&width) || bytes.len() != d_in * d_out * width {
            return Err(Error::Invariant(
                "a projection's weights do not match its shape",
            ));
        }
        Ok(Self {
            tiles: tiles::from_file_rows(bytes, width, d_in, d_out, half),
            bias: bias.map(Arc::new),
            d_in,
            d_out,
        })
    }

    /// Input width.
    pub fn d_in(&self) -> usize {
        self.d_in
    }

    /// Output `j`'s weights, one per input, into `out` (`d_in` values): row `j` of a tied
    /// model's target embedding, from its packed projection. Zeros for an output past `d_out`.
    pub fn weights_of(&self, j: usize, out: &mut [f32]) {
        self.tiles.column(self.d_in, self.d_out, j, out);
    }

    /// Output width.
    pub fn d_out(&self) -> usize {
        self.d_out
    }

    /// `out = x · W + b` for each row of `x` (`rows × d_in` values) into `out` (`rows × d_out`):
    /// tile by tile, each tile for every row while it is in the cache.
    pub fn apply(&self, x: &[f32], out: &mut [f32]) {
        self.tiles.apply(self.d_in, self.d_out, x, out);
        if let Some(bias) = &self.bias {
            for out_row in out.chunks_exact_mut(self.d_out) {
                for (o, b) in out_row.iter_mut().zip(bias.iter()) {
                    *o += b;
                }
            }
        }
    }
}

/// An error unless a projection of `d_in → d_out` with `bias` can be packed.
fn check_shape(d_in: usize, d_out: usize, bias: Option<&[f32]>) -> Result<()> {
    if d_in == 0 || d_out == 0 {
        return Err(Error::Invariant("a projection without inputs or outputs"));
    }
    if bias.is_some_and(|b| b.len() != d_out) {
        return Err(Error::Invariant(
            "a projection's weights do not match its shape",
        ));
    }
    Ok(())
}

/// What packing `d_in → d_out` starts with: the bias's values (checked against the shape), the
/// zeroed tiles, and how many outputs one read takes (whole tiles, at most [`BAND`] values).
async fn start_packing(
    d_in: usize,
    d_out: usize,
    bias: Option<&Param<Tensor<1>>>,
) -> Result<(Option<Vec<f32>>, Vec<f32>, usize)> {
    let bias = match bias {
        Some(bias) => Some(read(bias.val()).await?),
        None => None,
    };
    check_shape(d_in, d_out, bias.as_deref())?;
    let packed = vec![0.0; d_out.div_ceil(TILE) * d_in * TILE];
    let band = (BAND / (d_in * TILE)).max(1) * TILE;
    Ok((bias, packed, band))
}

/// Pack the outputs `start ..` given as rows (`rows`: `[width, d_in]`, one output a row, as a
/// tied model's embedding holds them) into their tiles; `start` is a multiple of [`TILE`].
fn pack_rows(packed: &mut [f32], rows: &[f32], d_in: usize, start: usize) {
    for (k, row) in rows.chunks_exact(d_in).enumerate() {
        let (tile, lane) = ((start + k) / TILE, (start + k) % TILE);
        for (i, &w) in row.iter().enumerate() {
            packed[(tile * d_in + i) * TILE + lane] = w;
        }
    }
}

/// Pack the outputs `start .. start + width` (`weight`: `[d_in, width]`, row-major) into their
/// tiles; `start` is a multiple of [`TILE`].
fn pack_band(packed: &mut [f32], weight: &[f32], d_in: usize, start: usize, width: usize) {
    for (i, row) in weight.chunks_exact(width).enumerate() {
        for (k, &w) in row.iter().enumerate() {
            let j = start + k;
            let (tile, lane) = (j / TILE, j % TILE);
            packed[(tile * d_in + i) * TILE + lane] = w;
        }
    }
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

/// Whether a native build's packed kernel has AVX2 and FMA ([`x86`]); `false` on wasm.
pub(crate) fn fast_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    return x86::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

mod kernel;
pub(crate) use kernel::{times, times_transposed};
mod table;
pub use table::PackedTable;
mod tiles;
use tiles::Tiles;
mod weights;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use weights::{packs, PackedAttention, PackedDecoderLayer, PackedEncoderLayer, PackedWeights};

#[cfg(test)]
mod tests;
