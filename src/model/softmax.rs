//! The attention softmax on the host, for the CPU path that already projects through packed
//! weights (`model::packed`): one pass per row with an exp the compiler vectorises (simd128 on
//! wasm), where burn's softmax calls the scalar `expf` once per score. A hidden key (the mask's
//! large negative score) gets exactly 0, as with burn's softmax.

use burn::tensor::activation::softmax;
use burn::tensor::{Tensor, TensorData};

/// softmax over the last axis of `scores`, computed on the host; burn's own where the scores
/// cannot be read synchronously (not a CPU tensor).
///
/// # Shapes
/// `[batch, heads, q_len, k_len]` → the same.
pub fn last_axis(scores: Tensor<4>) -> Tensor<4> {
    let dims = scores.dims();
    let device = scores.device();
    let mut values = match scores
        .clone()
        .try_into_data()
        .map(|d| d.try_into_vec::<f32>())
    {
        Ok(Ok(values)) => values,
        _ => return softmax(scores, 3),
    };
    for row in values.chunks_mut(dims[3].max(1)) {
        row_in_place(row);
    }
    Tensor::from_data(TensorData::new(values, dims), &device)
}

/// softmax of one row, in place.
pub fn row_in_place(row: &mut [f32]) {
    let max = max(row);
    if !max.is_finite() {
        return;
    }
    for value in row.iter_mut() {
        *value = exp(*value - max);
    }
    let inverse = 1.0 / sum(row);
    row.iter_mut().for_each(|value| *value *= inverse);
}

/// The largest of `values` (NaN ignored; −∞ when empty), four lanes at a time: `f32::max` is a
/// call to `fmaxf` per value on wasm, which no loop vectorises.
pub fn max(values: &[f32]) -> f32 {
    let (chunks, rest) = values.as_chunks::<4>();
    let mut lanes = [f32::NEG_INFINITY; 4];
    for chunk in chunks {
        for (lane, &value) in lanes.iter_mut().zip(chunk) {
            *lane = if value > *lane { value } else { *lane };
        }
    }
    lanes
        .iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m })
}

/// The sum of `values` in four running sums (one vector add a step on wasm; a sum in order is
/// one scalar add a step).
pub(crate) fn sum(values: &[f32]) -> f32 {
    let (chunks, rest) = values.as_chunks::<4>();
    let mut lanes = [0.0f32; 4];
    for chunk in chunks {
        for (lane, &value) in lanes.iter_mut().zip(chunk) {
            *lane += value;
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + rest.iter().sum::<f32>()
}

/// e^x for x ≤ 0 (after subtracting the row's max), within ~2 ulp; 0 below −87.3 (where e^x
/// leaves f32's normal range). Cephes' `expf`: x = n·ln 2 + r, e^r by a degree-6 polynomial,
/// 2^n by the exponent bits; no branch, so a loop over it vectorises.
pub fn exp(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let clamped = x.clamp(-88.0, 88.0);
    let n = floor(clamped * std::f32::consts::LOG2_E + 0.5);
    let r = clamped - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let e_r = p * r * r + r + 1.0;
    // n ∈ [−127, 127]: n = −127 gives exponent bits 0, i.e. 0 (x below ~−87.7).
    let bits = ((n as i32 + 127).max(0) as u32) << 23;
    e_r * f32::from_bits(bits)
}

/// ⌊t⌋ for |t| < 2³¹. wasm has an instruction for it; baseline x86-64 (SSE2) has none, and
/// `f32::floor` there is a call to `floorf` that keeps the loop around [`exp`] from vectorising.
/// Truncating and stepping down where that rounded up gives the same value.
#[inline]
fn floor(t: f32) -> f32 {
    if cfg!(target_arch = "wasm32") {
        return t.floor();
    }
    let truncated = t as i32 as f32;
    if truncated > t {
        truncated - 1.0
    } else {
        truncated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_std_s_floor_over_the_range_exp_uses() {
        for i in -2_000_000..=2_000_000 {
            let t = i as f32 / 15_000.0; // −133 … 133, fractions and whole numbers
            assert_eq!(floor(t).to_bits(), t.floor().to_bits(), "{t}");
        }
    }

    #[test]
    fn exp_is_within_two_ulp_of_std_over_the_range_softmax_uses() {
        let mut worst = 0.0_f64;
        for i in 0..=200_000 {
            let x = -87.0 * i as f32 / 200_000.0;
            let (fast, exact) = (exp(x) as f64, (x as f64).exp());
            worst = worst.max(((fast - exact) / exact).abs());
        }
        assert!(worst < 2.5e-7, "relative error {worst}");
    }

    #[test]
    fn max_ignores_nan_and_reads_every_lane_and_the_rest() {
        assert_eq!(max(&[]), f32::NEG_INFINITY);
        assert_eq!(max(&[1.0, f32::NAN, -2.0]), 1.0);
        for at in 0..11 {
            let mut values = vec![-5.0f32; 11];
            values[at] = 3.5;
            assert_eq!(max(&values), 3.5, "the largest at {at}");
        }
    }

    #[test]
    fn a_hidden_key_gets_exactly_zero_and_rows_sum_to_one() {
        let mut row = [0.5, -1.0e9, 2.0, -3.0];
        row_in_place(&mut row);
        assert_eq!(row[1], 0.0);
        let exact: Vec<f64> = [0.5_f64, 2.0, -3.0]
            .iter()
            .map(|v| (v - 2.0).exp())
            .collect();
        let total: f64 = exact.iter().sum();
        for (got, want) in [row[0], row[2], row[3]].iter().zip(&exact) {
            assert!(
                (*got as f64 - want / total).abs() < 1e-7,
                "{got} against {}",
                want / total
            );
        }
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn the_host_softmax_matches_burns() {
        let device = burn::tensor::Device::flex();
        let scores = Tensor::<4>::random(
            [2, 3, 5, 7],
            burn::tensor::Distribution::Uniform(-20.0, 20.0),
            &device,
        );
        let ours = last_axis(scores.clone())
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default();
        let burns = softmax(scores, 3)
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default();
        assert_eq!(ours.len(), 2 * 3 * 5 * 7);
        for (a, b) in ours.iter().zip(&burns) {
            assert!((a - b).abs() < 1e-6, "{a} against {b}");
        }
    }
}
