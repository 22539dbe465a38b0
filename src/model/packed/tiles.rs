//! A packed matrix's tiles, in F32 or in F16 ([`Tiles`]), and packing them from a weights
//! file's bytes ([`from_file_rows`]).
//!
//! F16 tiles hold a big model in half the memory (opus-mt-tc-big's projections: 469 MB, not
//! 938 MB). A product widens one tile at a time into F32 (exactly: every F16 is an F32) and runs
//! the F32 kernel on it, so F16 tiles give the bits F32 tiles packed from the same file give.

use std::sync::Arc;

use super::{kernel, TILE};

/// `[tiles][d_in][TILE]` weights, zero past `d_out` (an `Arc<Vec>`, not an `Arc<[_]>`: making
/// one of those copies the values).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tiles {
    /// F32 values.
    F32(Arc<Vec<f32>>),
    /// F16 bits, widened as they are used.
    F16(Arc<Vec<u16>>),
}

impl Tiles {
    /// `out = x · W` (no bias), tile by tile.
    pub(super) fn apply(&self, d_in: usize, d_out: usize, x: &[f32], out: &mut [f32]) {
        match self {
            Tiles::F32(packed) => kernel::apply(packed, d_in, d_out, x, out),
            Tiles::F16(packed) => {
                let mut wide = vec![0.0; d_in * TILE];
                for (index, tile) in packed.chunks_exact(d_in * TILE).enumerate() {
                    widen(tile, &mut wide);
                    kernel::apply_tile(index, &wide, d_in, d_out, x, out);
                }
            }
        }
    }

    /// These tiles with the inputs `inputs` zeroed (a head switched off in `W_O`), copied.
    pub(super) fn without_inputs(&self, d_in: usize, inputs: std::ops::Range<usize>) -> Self {
        let range = inputs.start * TILE..inputs.end.min(d_in) * TILE;
        match self {
            Tiles::F32(packed) => {
                let mut packed = packed.to_vec();
                for tile in packed.chunks_exact_mut(d_in * TILE) {
                    tile[range.clone()].fill(0.0);
                }
                Tiles::F32(Arc::new(packed))
            }
            Tiles::F16(packed) => {
                let mut packed = packed.to_vec();
                for tile in packed.chunks_exact_mut(d_in * TILE) {
                    tile[range.clone()].fill(0); // +0.0
                }
                Tiles::F16(Arc::new(packed))
            }
        }
    }

    /// Output `j`'s `d_in` weights into `out`; zeros for `j` past `d_out`.
    pub(super) fn column(&self, d_in: usize, d_out: usize, j: usize, out: &mut [f32]) {
        out.fill(0.0);
        if j >= d_out {
            return;
        }
        let start = j / TILE * d_in * TILE + j % TILE;
        let at = (start..).step_by(TILE).take(d_in);
        match self {
            Tiles::F32(packed) => {
                for (o, k) in out.iter_mut().zip(at) {
                    *o = packed[k];
                }
            }
            Tiles::F16(packed) => {
                let bits: Vec<u16> = at.map(|k| packed[k]).collect();
                widen(&bits, out);
            }
        }
    }

    /// Bytes held.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        match self {
            Tiles::F32(packed) => packed.len() * 4,
            Tiles::F16(packed) => packed.len() * 2,
        }
    }
}

/// `2^112`: an F16's exponent bits read as an F32's are `2^112` too small (bias 15 against 127).
const SCALE: f32 = f32::from_bits(0x7780_0000);

/// F16 bits → the F32 of the same value, for finite values (the loader refuses others): the
/// exponent and mantissa shifted into an F32's place and scaled by `2^112`, which is exact for
/// normal and subnormal values alike, then the sign. No branch: LLVM vectorises the loop.
pub(crate) fn widen(half: &[u16], out: &mut [f32]) {
    for (o, &h) in out.iter_mut().zip(half) {
        *o = widen_one(h);
    }
}

/// One F16's bits widened ([`widen`]).
fn widen_one(h: u16) -> f32 {
    let magnitude = f32::from_bits(u32::from(h & 0x7fff) << 13) * SCALE;
    f32::from_bits(magnitude.to_bits() | (u32::from(h & 0x8000) << 16))
}

/// A weights file's finite little-endian values into `out`: `width` 2, F16 (widened, [`widen`]),
/// else F32.
pub(super) fn read_le(bytes: &[u8], width: usize, out: &mut [f32]) {
    if width == 2 {
        for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            *o = widen_one(u16::from_le_bytes([b[0], b[1]]));
        }
    } else {
        for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
}

/// A weights file's matrix of `d_out` rows of `d_in` values (a `Linear` weight as PyTorch keeps
/// it, `[out, in]`, or a tied model's target embedding, `[vocab, d_model]`), from its
/// little-endian `bytes` (`width`: 2 for F16, 4 for F32), packed: in F16 when `half` and the file
/// is F16, else in F32.
pub(super) fn from_file_rows(
    bytes: &[u8],
    width: usize,
    d_in: usize,
    d_out: usize,
    half: bool,
) -> Tiles {
    let len = d_out.div_ceil(TILE) * d_in * TILE;
    let at = |j: usize, i: usize| (j / TILE * d_in + i) * TILE + j % TILE;
    let rows = bytes.chunks_exact(width * d_in).take(d_out).enumerate();
    match (width, half) {
        (2, true) => {
            let mut packed = vec![0u16; len];
            for (j, row) in rows {
                for (i, b) in row.chunks_exact(2).enumerate() {
                    packed[at(j, i)] = u16::from_le_bytes([b[0], b[1]]);
                }
            }
            Tiles::F16(Arc::new(packed))
        }
        _ => {
            let mut packed = vec![0.0f32; len];
            let mut values = vec![0.0f32; d_in];
            for (j, row) in rows {
                read_le(row, width, &mut values);
                for (i, &w) in values.iter().enumerate() {
                    packed[at(j, i)] = w;
                }
            }
            Tiles::F32(Arc::new(packed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_every_finite_f16_to_its_exact_f32() {
        let mut checked = 0;
        for bits in 0..=u16::MAX {
            if bits & 0x7c00 == 0x7c00 {
                continue; // ∞ and NaN: refused at load
            }
            let mut out = [0.0f32];
            widen(&[bits], &mut out);
            let expected = half::f16::from_bits(bits).to_f32();
            assert_eq!(out[0].to_bits(), expected.to_bits(), "f16 bits {bits:#06x}");
            checked += 1;
        }
        assert_eq!(checked, 63_488);
    }

    /// `d_out` rows of `d_in` F16 values (irregular, some subnormal, some negative zero).
    fn rows(d_in: usize, d_out: usize) -> Vec<u8> {
        (0..d_in * d_out)
            .flat_map(|k| {
                let bits = ((k as u32).wrapping_mul(2_654_435_761) >> 16) as u16;
                let bits = if bits & 0x7c00 == 0x7c00 {
                    bits & 0x83ff
                } else {
                    bits
                };
                bits.to_le_bytes()
            })
            .collect()
    }

    #[test]
    fn f16_tiles_give_the_bits_of_f32_tiles_packed_from_the_same_file() {
        for (d_in, d_out, n) in [(5, 40, 3), (64, 33, 1), (17, 96, 4)] {
            let bytes = rows(d_in, d_out);
            let half = from_file_rows(&bytes, 2, d_in, d_out, true);
            let full = from_file_rows(&bytes, 2, d_in, d_out, false);
            assert!(matches!(half, Tiles::F16(_)) && matches!(full, Tiles::F32(_)));
            assert_eq!(half.bytes() * 2, full.bytes());
            let x: Vec<f32> = (0..n * d_in)
                .map(|k| ((k * 13 % 17) as f32 - 8.0) / 3.0)
                .collect();
            let (mut a, mut b) = (vec![0.0; n * d_out], vec![0.0; n * d_out]);
            half.apply(d_in, d_out, &x, &mut a);
            full.apply(d_in, d_out, &x, &mut b);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "{d_in}→{d_out}, {n} rows");
            let off = [
                half.without_inputs(d_in, 1..3),
                full.without_inputs(d_in, 1..3),
            ];
            off[0].apply(d_in, d_out, &x, &mut a);
            off[1].apply(d_in, d_out, &x, &mut b);
            assert_eq!(bits(&a), bits(&b), "{d_in}→{d_out} with inputs 1..3 off");
        }
    }

    #[test]
    fn packs_f32_rows_as_the_plain_product_reads_them() {
        let (d_in, d_out) = (3, 35);
        let values: Vec<f32> = (0..d_in * d_out).map(|k| k as f32 - 50.0).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let tiles = from_file_rows(&bytes, 4, d_in, d_out, true); // an F32 file stays F32
        let x = [1.0, -2.0, 0.5];
        let mut out = vec![0.0; d_out];
        tiles.apply(d_in, d_out, &x, &mut out);
        for (j, got) in out.iter().enumerate() {
            let row = &values[j * d_in..(j + 1) * d_in];
            let want: f32 = row.iter().zip(&x).map(|(w, x)| w * x).sum();
            assert_eq!(*got, want, "output {j}");
        }
    }
}
