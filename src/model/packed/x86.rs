//! The packed product for x86-64 CPUs with AVX2 and FMA (native builds), picked at run time.
//!
//! The portable kernel ([`super::kernel`]) is written for wasm's simd128: compiled for plain
//! x86-64 it gets SSE2's four lanes and no fused multiply-add, and loses to gemm's AVX2 kernels
//! (packed ÷ gemm, en-zh's encoder: 2.3). Here the same loops are compiled with AVX2 and FMA
//! enabled, in a shape for x86's 16 vector registers of 8 lanes: rows in groups of four, half a
//! tile at a time (eight running sums, two weight vectors and a broadcast stay in registers), a
//! lone row the whole tile. Each output adds `x[i] · w[i]` with one fused multiply-add per input,
//! in the inputs' order, so a row gives the same bits alone or in a group.

use super::TILE;

const HALF: usize = TILE / 2;

/// Whether this CPU runs [`apply_tile`] (checked once by std, then read from a cache).
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// [`super::kernel::apply_tile`], on AVX2 and FMA: called only where [`available`] says so.
#[target_feature(enable = "avx2,fma")]
pub(super) fn apply_tile(
    index: usize,
    tile: &[f32],
    d_in: usize,
    d_out: usize,
    x: &[f32],
    out: &mut [f32],
) {
    let (start, weights) = (index * TILE, tile.as_chunks::<TILE>().0);
    let width = TILE.min(d_out - start);
    // Each half of the tile over every group of four rows in turn: the half (12 KB at 192 inputs)
    // stays in the L1 cache while the rows pass, where the whole tile and the rows together
    // (48 KB at 32 rows) do not.
    let groups = x.len() / (4 * d_in);
    for half in 0..width.div_ceil(HALF) {
        let inputs = x.chunks_exact(4 * d_in);
        for (x4, out4) in inputs.zip(out.chunks_exact_mut(4 * d_out)) {
            let sums = quad_product(x4, d_in, weights, half);
            let width = (width - half * HALF).min(HALF);
            for (row, sums) in sums.iter().enumerate() {
                let at = row * d_out + start + half * HALF;
                store(&mut out4[at..at + width], sums);
            }
        }
    }
    let rest = x[groups * 4 * d_in..].chunks_exact(d_in);
    for (row, out_row) in rest.zip(out[groups * 4 * d_out..].chunks_exact_mut(d_out)) {
        let sums = tile_product(row, weights);
        store(&mut out_row[start..start + width], &sums);
    }
}

/// `sums`' first `out.len()` values into `out`: a whole array as vector stores (a slice of
/// another length is a call to `memmove`, which took 2 % of an encoder pass).
#[inline(always)]
fn store<const N: usize>(out: &mut [f32], sums: &[f32; N]) {
    match <&mut [f32; N]>::try_from(&mut *out) {
        Ok(whole) => *whole = *sums,
        Err(_) => out.copy_from_slice(&sums[..out.len()]),
    }
}

/// Four rows' (`x4`: `4 × d_in`) sums over one half of a tile's outputs.
#[inline(always)]
fn quad_product(x4: &[f32], d_in: usize, rows: &[[f32; TILE]], half: usize) -> [[f32; HALF]; 4] {
    let mut sums = [[0.0f32; HALF]; 4];
    let (x0, rest) = x4.split_at(d_in);
    let (x1, rest) = rest.split_at(d_in);
    let (x2, x3) = rest.split_at(d_in);
    for (i, row) in rows.iter().enumerate().take(d_in) {
        let w = &row.as_chunks::<HALF>().0[half];
        let xs = [x0[i], x1[i], x2[i], x3[i]];
        for (sum, xr) in sums.iter_mut().zip(xs) {
            for lane in 0..HALF {
                sum[lane] = xr.mul_add(w[lane], sum[lane]);
            }
        }
    }
    sums
}

/// One row's sums over a whole tile.
#[inline(always)]
fn tile_product(x: &[f32], rows: &[[f32; TILE]]) -> [f32; TILE] {
    let mut sums = [0.0f32; TILE];
    for (xi, row) in x.iter().zip(rows) {
        for lane in 0..TILE {
            sums[lane] = xi.mul_add(row[lane], sums[lane]);
        }
    }
    sums
}
