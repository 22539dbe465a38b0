//! Attention on the host, for the CPU path whose projections are already packed
//! (`model::packed`) and whose tensors live in memory: softmax(mask(QKᵀ/√d_k))·V one head at a
//! time, both products through the packed kernel (the other side packed on the spot), the heads'
//! outputs written side by side (no split and no swap back).
//! On a small model burn's chain (two matmuls of a few rows, a scale, two mask fills, the softmax's
//! round trip, a swap and a reshape) cost more in dispatch and copies than in arithmetic.
//!
//! The same numbers as the tensor path within float rounding: the weights go through the same
//! host softmax; a raw score sums its `d_k` products in order, as a matmul need not.

use burn::tensor::{Bool, Tensor, TensorData};

use super::key_value::KeyValue;
use super::packed::{times, times_transposed};
use super::softmax::row_in_place;

/// What one attention block's host pass needs besides its tensors.
#[derive(Clone, Copy, Debug)]
pub struct HostAttention {
    /// Heads, and the width of each.
    pub heads: usize,
    pub d_k: usize,
    /// QKᵀ is divided by √d_k (the model's `scaled_attention`).
    pub scaled: bool,
    /// Later keys are hidden (decoder self-attention over more than one query).
    pub causal: bool,
    /// The score a hidden key gets.
    pub mask_value: f32,
}

/// What [`HostAttention::attend`] answers: the heads side by side `[batch, q_len, d_model]`, the
/// weights `[batch, heads, q_len, k_len]`, and the raw scores QKᵀ when asked for.
pub struct HostOutput {
    pub concatenated: Tensor<3>,
    pub weights: Tensor<4>,
    pub raw: Option<Tensor<4>>,
}

/// Below this many queries [`HostAttention::attend_values`] multiplies without packing.
const FEW_QUERIES: usize = 4;

/// The two products of attention in plain loops, for a few queries.
mod direct {
    /// `out = x · mᵀ` (`m`: rows of `d_in`), each sum in order.
    pub(super) fn times_transposed(x: &[f32], m: &[f32], d_in: usize, out: &mut [f32]) {
        let d_out = m.len() / d_in.max(1);
        for (row, out_row) in x.chunks_exact(d_in).zip(out.chunks_exact_mut(d_out)) {
            for (o, column) in out_row.iter_mut().zip(m.chunks_exact(d_in)) {
                *o = row.iter().zip(column).map(|(a, b)| a * b).sum();
            }
        }
    }

    /// `out = x · m` (`m`: `d_in × d_out`, row-major), `m`'s rows added in order.
    pub(super) fn times(x: &[f32], m: &[f32], d_in: usize, d_out: usize, out: &mut [f32]) {
        for (row, out_row) in x.chunks_exact(d_in).zip(out.chunks_exact_mut(d_out)) {
            out_row.fill(0.0);
            for (&w, m_row) in row.iter().zip(m.chunks_exact(d_out)) {
                out_row.iter_mut().zip(m_row).for_each(|(o, v)| *o += w * v);
            }
        }
    }
}

/// [`HostAttention::attend_values`]'s answer, on the host: the heads side by side
/// `[batch, q_len, d_model]`, the weights and the raw scores `[batch, heads, q_len, k_len]`.
pub(crate) struct HostValues {
    pub context: Vec<f32>,
    pub weights: Vec<f32>,
    pub raw: Vec<f32>,
}

/// A tensor's data on the host, for reading its values where they lie (`as_slice`): one copy,
/// where `try_into_vec` makes a second when the bytes' alignment is not a `Vec`'s. `None` where
/// it cannot be read at once (not a CPU tensor).
pub(crate) fn host_data<const D: usize>(tensor: Tensor<D>) -> Option<TensorData> {
    tensor.try_into_data().ok()
}

/// A tensor's values on the host; `None` where it cannot be read at once (not a CPU tensor).
pub(crate) fn host<const D: usize>(tensor: Tensor<D>) -> Option<Vec<f32>> {
    tensor.try_into_data().ok()?.try_into_vec::<f32>().ok()
}

impl HostAttention {
    /// A row's scores before the masks: QKᵀ, divided by √d_k in a scaled model.
    fn scores(&self, row: &mut [f32], raw: &[f32], divisor: f32) {
        if self.scaled {
            row.iter_mut().zip(raw).for_each(|(w, &r)| *w = r / divisor);
        } else {
            row.copy_from_slice(raw);
        }
    }

    /// softmax(mask(QKᵀ/√d_k))·V for `query` `[batch, q_len, d_model]` (projected) against
    /// `kv`'s keys and values; `None` for a single query or where a tensor cannot be read on the
    /// host (the caller then takes burn's path).
    pub fn attend(
        &self,
        query: Tensor<3>,
        kv: &KeyValue,
        mask: Option<Tensor<4, Bool>>,
        keep_raw: bool,
    ) -> Option<HostOutput> {
        let device = query.device();
        let [batch, q_len, d_model] = query.dims();
        let [kv_batch, heads, k_len, d_k] = kv.keys.dims();
        // One query (a cached decoding step): burn's chain reads the cache where it lies, where
        // this pass would copy it out and pack it for one row (a zh-en step took 10 % longer).
        // Shapes this pass does not broadcast take burn's path too.
        let unlike = kv_batch != batch || heads != self.heads || d_k != self.d_k;
        if q_len < 2 || k_len == 0 || unlike || heads * d_k != d_model {
            return None;
        }
        let q = host(query)?;
        let (k, v) = (host(kv.keys.clone())?, host(kv.values.clone())?);
        // A mask broadcast over the keys, or of another shape: burn's path.
        let hidden = HiddenKeys::fitting(mask.as_ref(), [batch, heads, q_len, k_len])?;
        let HostValues {
            context,
            weights,
            raw,
        } = self.attend_values(&q, &k, &v, hidden.as_ref(), [batch, q_len, k_len]);
        let dims4 = [batch, heads, q_len, k_len];
        Some(HostOutput {
            concatenated: Tensor::from_data(
                TensorData::new(context, [batch, q_len, d_model]),
                &device,
            ),
            weights: Tensor::from_data(TensorData::new(weights, dims4), &device),
            raw: keep_raw.then(|| Tensor::from_data(TensorData::new(raw, dims4), &device)),
        })
    }

    /// [`Self::attend`] on the host's values: `q` `[batch, q_len, heads · d_k]` (projected, the
    /// heads side by side), `k` and `v` `[batch, heads, k_len, d_k]`, `hidden` fitting the
    /// attention's shape.
    pub(crate) fn attend_values(
        &self,
        q: &[f32],
        k: &[f32],
        v: &[f32],
        hidden: Option<&HiddenKeys>,
        [batch, q_len, k_len]: [usize; 3],
    ) -> HostValues {
        let (heads, d_k) = (self.heads, self.d_k);
        let d_model = heads * d_k;
        let mut raw = vec![0.0f32; batch * heads * q_len * k_len];
        let mut weights = vec![0.0f32; raw.len()];
        let mut context = vec![0.0f32; batch * q_len * d_model];
        let offset = k_len.saturating_sub(q_len);
        let divisor = (d_k as f32).sqrt();
        let mut q_head = vec![0.0f32; q_len * d_k];
        let mut out_head = vec![0.0f32; q_len * d_k];
        let mut scratch = vec![];
        for b in 0..batch {
            for h in 0..heads {
                let at = ((b * heads + h) * k_len) * d_k;
                let (k_head, v_head) = (&k[at..at + k_len * d_k], &v[at..at + k_len * d_k]);
                for (i, row) in q_head.chunks_exact_mut(d_k).enumerate() {
                    row.copy_from_slice(&q[(b * q_len + i) * d_model + h * d_k..][..d_k]);
                }
                let head_at = (b * heads + h) * q_len * k_len;
                let raw_head = &mut raw[head_at..head_at + q_len * k_len];
                // A few queries (a cached step) do not repay packing the keys and values.
                let few = q_len < FEW_QUERIES;
                match few {
                    true => direct::times_transposed(&q_head, k_head, d_k, raw_head),
                    false => times_transposed(&q_head, k_head, d_k, raw_head, &mut scratch),
                }
                let w_head = &mut weights[head_at..head_at + q_len * k_len];
                for (i, (row, raw_row)) in w_head
                    .chunks_exact_mut(k_len)
                    .zip(raw_head.chunks_exact(k_len))
                    .enumerate()
                {
                    self.scores(row, raw_row, divisor);
                    if let Some(hidden) = hidden.and_then(|m| m.row(b, h, i)) {
                        for (w, &hide) in row.iter_mut().zip(hidden) {
                            *w = if hide { self.mask_value } else { *w };
                        }
                    }
                    if self.causal {
                        // Query i sits at offset + i and sees no later key.
                        row[(offset + i + 1).min(k_len)..].fill(self.mask_value);
                    }
                    row_in_place(row);
                }
                match few {
                    true => direct::times(w_head, v_head, k_len, d_k, &mut out_head),
                    false => times(w_head, v_head, k_len, d_k, &mut out_head, &mut scratch),
                }
                for (i, row) in out_head.chunks_exact(d_k).enumerate() {
                    context[(b * q_len + i) * d_model + h * d_k..][..d_k].copy_from_slice(row);
                }
            }
        }
        HostValues {
            context,
            weights,
            raw,
        }
    }
}

/// A boolean mask `[batch | 1, heads | 1, q_len | 1, k_len]` read on the host, broadcast on its
/// axes of 1.
pub(crate) struct HiddenKeys {
    dims: [usize; 4],
    hidden: Vec<bool>,
}

impl HiddenKeys {
    fn read(mask: Tensor<4, Bool>) -> Option<Self> {
        let dims = mask.dims();
        let hidden = mask.try_into_data().ok()?.try_into_vec::<bool>().ok()?;
        Some(Self { dims, hidden })
    }

    /// `mask` read on the host where it fits an attention of `[batch, heads, q_len, k_len]`
    /// (`Some(None)`: no mask); `None` where it cannot be read or does not fit.
    pub(crate) fn fitting(
        mask: Option<&Tensor<4, Bool>>,
        dims: [usize; 4],
    ) -> Option<Option<Self>> {
        let [batch, heads, q_len, k_len] = dims;
        match mask {
            None => Some(None),
            Some(mask) => {
                let hidden = Self::read(mask.clone())?;
                hidden
                    .fits(batch, heads, q_len, k_len)
                    .then_some(Some(hidden))
            }
        }
    }

    /// Whether every axis is 1 or the attention's own, and the keys are the attention's.
    fn fits(&self, batch: usize, heads: usize, q_len: usize, k_len: usize) -> bool {
        let [db, dh, dq, dk] = self.dims;
        let axis = |size: usize, own: usize| size == 1 || size == own;
        axis(db, batch) && axis(dh, heads) && axis(dq, q_len) && dk == k_len
    }

    /// The flags of query `i`'s keys (head `h`, sentence `b`).
    fn row(&self, b: usize, h: usize, i: usize) -> Option<&[bool]> {
        let [db, dh, dq, dk] = self.dims;
        let pick = |index: usize, size: usize| if size == 1 { 0 } else { index };
        let at = ((pick(b, db) * dh + pick(h, dh)) * dq + pick(i, dq)) * dk;
        self.hidden.get(at..at + dk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::masks::Mask;
    use burn::tensor::activation::softmax;
    use burn::tensor::{Device, Distribution};

    fn values<const D: usize>(t: Tensor<D>) -> Vec<f32> {
        t.into_data().try_to_vec::<f32>().unwrap_or_default()
    }

    /// Three queries at the end of a five-key prefix (a cache: the causal offset is 2), two heads,
    /// the last key padding: the host pass against burn's tensor chain.
    #[test]
    fn the_host_pass_matches_burns_chain_with_padding_and_a_causal_offset() {
        let device = Device::flex();
        let (heads, d_k, q_len, k_len) = (2, 4, 3, 5);
        let query = Tensor::<3>::random([1, q_len, heads * d_k], Distribution::Default, &device);
        let kv = KeyValue {
            keys: Tensor::random([1, heads, k_len, d_k], Distribution::Default, &device),
            values: Tensor::random([1, heads, k_len, d_k], Distribution::Default, &device),
        };
        let padding = Mask::padding(&[5, 6, 7, 8, 0], 0).to_tensor(&device);
        let host = HostAttention {
            heads,
            d_k,
            scaled: true,
            causal: true,
            mask_value: -1.0e9,
        };
        let out = host
            .attend(query.clone(), &kv, Some(padding.clone()), true)
            .unwrap();

        let split = query.reshape([1, q_len, heads, d_k]).swap_dims(1, 2);
        let raw = split.matmul(kv.keys.clone().swap_dims(2, 3));
        let causal = Mask::causal_keys(q_len, k_len).to_tensor(&device);
        let scores = (raw.clone() / 2.0)
            .mask_fill(padding, -1.0e9)
            .mask_fill(causal, -1.0e9);
        let weights = softmax(scores, 3);
        let context = weights
            .clone()
            .matmul(kv.values.clone())
            .swap_dims(1, 2)
            .reshape([1, q_len, heads * d_k]);

        let close = |what: &str, a: Vec<f32>, b: Vec<f32>| {
            assert_eq!(a.len(), b.len(), "{what}");
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-6, "{what}: {x} against {y}");
            }
        };
        close("raw", values(out.raw.unwrap()), values(raw));
        let host_weights = values(out.weights);
        close("weights", host_weights.clone(), values(weights));
        close("context", values(out.concatenated), values(context));
        // Query 0 sits at position 2: keys 3 and 4 hidden (4 is also padding); query 2 sees 0-3.
        let row = |h: usize, i: usize| host_weights[(h * q_len + i) * k_len..][..k_len].to_vec();
        assert_eq!(row(1, 0)[3..], [0.0, 0.0]);
        assert!(row(1, 2)[..4].iter().all(|&w| w > 0.0));
        assert_eq!(row(1, 2)[4], 0.0);
    }
}
