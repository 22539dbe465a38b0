//! The products over packed tiles: rows in pairs, each half of a tile at a time, so one load of
//! a weight vector serves two rows (eight running sums and four weight vectors stay in
//! registers: V8 gives wasm 16). A lone last row takes the one-row product. Each output is
//! summed over its inputs in the same order either way, so pairs and single rows give the same
//! bits.

use super::TILE;

const HALF: usize = TILE / 2;

/// `out = x · W` for each row of `x` (`rows × d_in`) into `out` (`rows × d_out`), from `packed`
/// (`[tiles][d_in][TILE]`); the bias is added by the caller.
pub(super) fn apply(packed: &[f32], d_in: usize, d_out: usize, x: &[f32], out: &mut [f32]) {
    for (index, tile) in packed.chunks_exact(d_in * TILE).enumerate() {
        apply_tile(index, tile, d_in, d_out, x, out);
    }
}

/// [`apply`] for tile `index` alone (`tile`: its `d_in × TILE` weights): its outputs of each row.
/// On an x86-64 CPU with AVX2 and FMA, through [`super::x86`].
pub(super) fn apply_tile(
    index: usize,
    tile: &[f32],
    d_in: usize,
    d_out: usize,
    x: &[f32],
    out: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if super::x86::available() {
        #[allow(unsafe_code)]
        // SAFETY: `x86::apply_tile` needs AVX2 and FMA, and this CPU has both (checked above).
        unsafe {
            super::x86::apply_tile(index, tile, d_in, d_out, x, out)
        };
        return;
    }
    portable_tile(index, tile, d_in, d_out, x, out);
}

/// [`apply_tile`] in portable Rust (wasm's simd128 once LLVM vectorises it).
fn portable_tile(
    index: usize,
    tile: &[f32],
    d_in: usize,
    d_out: usize,
    x: &[f32],
    out: &mut [f32],
) {
    let (start, weights) = (index * TILE, tile.as_chunks::<TILE>().0);
    let width = TILE.min(d_out - start);
    let mut rows = x.chunks_exact(d_in).zip(out.chunks_exact_mut(d_out));
    while let Some((x0, out0)) = rows.next() {
        match rows.next() {
            Some((x1, out1)) => {
                let (sums0, sums1) = pair_product(x0, x1, weights);
                out0[start..start + width].copy_from_slice(&sums0[..width]);
                out1[start..start + width].copy_from_slice(&sums1[..width]);
            }
            None => {
                let sums = tile_product(x0, weights);
                out0[start..start + width].copy_from_slice(&sums[..width]);
            }
        }
    }
}

/// `out = x · mᵀ` for `x` (`rows × d_in`) and `m` given as its `d_out` rows of `d_in` (attention's
/// QKᵀ on the host: `m` is K), `m` packed on the spot into `scratch`.
pub(crate) fn times_transposed(
    x: &[f32],
    m: &[f32],
    d_in: usize,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
) {
    let d_out = m.len() / d_in.max(1);
    zeroed(scratch, d_in, d_out);
    super::pack_rows(scratch, m, d_in, 0);
    apply(scratch, d_in, d_out, x, out);
}

/// `out = x · m` for `x` (`rows × d_in`) and a row-major `m` (`d_in × d_out`; attention's
/// weights·V on the host: `m` is V), packed on the spot into `scratch`.
pub(crate) fn times(
    x: &[f32],
    m: &[f32],
    d_in: usize,
    d_out: usize,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
) {
    zeroed(scratch, d_in, d_out);
    super::pack_band(scratch, m, d_in, 0, d_out);
    apply(scratch, d_in, d_out, x, out);
}

/// `scratch` as the zeroed tiles of a `d_in → d_out` product.
fn zeroed(scratch: &mut Vec<f32>, d_in: usize, d_out: usize) {
    scratch.clear();
    scratch.resize(d_out.div_ceil(TILE) * d_in * TILE, 0.0);
}

/// `Σ_i x[i] · rows[i]`: one tile's `TILE` outputs for one row.
pub(super) fn tile_product(x: &[f32], rows: &[[f32; TILE]]) -> [f32; TILE] {
    let mut sums = [0.0f32; TILE];
    for (xi, row) in x.iter().zip(rows) {
        for lane in 0..TILE {
            sums[lane] += xi * row[lane];
        }
    }
    sums
}

/// [`tile_product`] for two rows at once, half a tile at a time.
fn pair_product(x0: &[f32], x1: &[f32], rows: &[[f32; TILE]]) -> ([f32; TILE], [f32; TILE]) {
    let (mut sums0, mut sums1) = ([0.0f32; TILE], [0.0f32; TILE]);
    for half in 0..2 {
        let (mut a, mut b) = ([0.0f32; HALF], [0.0f32; HALF]);
        for ((u, v), row) in x0.iter().zip(x1).zip(rows) {
            let w = &row.as_chunks::<HALF>().0[half];
            for lane in 0..HALF {
                a[lane] += u * w[lane];
                b[lane] += v * w[lane];
            }
        }
        sums0[half * HALF..(half + 1) * HALF].copy_from_slice(&a);
        sums1[half * HALF..(half + 1) * HALF].copy_from_slice(&b);
    }
    (sums0, sums1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_gives_the_same_bits_alone_or_among_others() {
        // Two tiles, the second part-filled; 7 rows: a group of four (x86) or pairs, and lone rows.
        let (d_in, d_out, rows) = (5, 40, 7);
        let packed: Vec<f32> = (0..2 * d_in * TILE)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let x: Vec<f32> = (0..rows * d_in)
            .map(|i| ((i * 13 % 17) as f32 - 8.0) / 3.0)
            .collect();
        let mut out = vec![0.0; rows * d_out];
        apply(&packed, d_in, d_out, &x, &mut out);
        for (row, out_row) in x.chunks_exact(d_in).zip(out.chunks_exact(d_out)) {
            let mut alone = vec![0.0; d_out];
            apply(&packed, d_in, d_out, row, &mut alone);
            assert_eq!(out_row, &alone[..]);
            // And the sums themselves, within rounding.
            for (j, &got) in alone.iter().enumerate() {
                let (tile, lane) = (j / TILE, j % TILE);
                let want: f64 = (0..d_in)
                    .map(|i| f64::from(row[i]) * f64::from(packed[(tile * d_in + i) * TILE + lane]))
                    .sum();
                assert!((f64::from(got) - want).abs() < 1e-4, "{got} against {want}");
            }
        }
    }
}
