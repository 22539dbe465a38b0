//! The parts of a layer on the host ([`super`]): Add & Norm, the packed products, the heads'
//! layout, the feed-forward network and the key/value cache, over plain buffers.

use burn::tensor::TensorData;

use super::super::config::Activation;
use super::super::host_attention::host_data;
use super::super::key_value::KeyValue;
use super::super::packed::PackedLinear;
use super::super::softmax::sum;
use super::super::sublayers::{FeedForward, Residual};
use super::host;

/// A residual connection's LayerNorm on the host: γ, β and ε.
pub(super) struct HostNorm {
    gamma: Vec<f32>,
    beta: Option<Vec<f32>>,
    epsilon: f32,
}

impl HostNorm {
    /// Normalise each `gamma.len()`-wide row of `x` in place: (x − mean) / √(variance + ε)
    /// · γ + β, the variance biased (÷ width), as burn's `layer_norm`.
    fn apply(&self, x: &mut [f32]) {
        let width = self.gamma.len();
        let mut squares = vec![0.0f32; width];
        for row in x.chunks_exact_mut(width) {
            let mean = sum(row) / width as f32;
            row.iter_mut().for_each(|v| *v -= mean);
            squares.iter_mut().zip(&*row).for_each(|(s, v)| *s = v * v);
            let scale = 1.0 / (sum(&squares) / width as f32 + self.epsilon).sqrt();
            row.iter_mut()
                .zip(&self.gamma)
                .for_each(|(v, g)| *v *= scale * g);
            if let Some(beta) = &self.beta {
                row.iter_mut().zip(beta).for_each(|(v, b)| *v += b);
            }
        }
    }
}

/// A residual connection on the host: its norm (if any) and where it goes.
pub(super) struct HostResidual {
    norm: Option<HostNorm>,
    norm_first: bool,
}

impl HostResidual {
    /// `None` where the norm's parameters cannot be read on the host.
    pub(super) fn read(residual: &Residual) -> Option<Self> {
        let norm = match residual.norm.as_ref() {
            Some(norm) => Some(HostNorm {
                gamma: host(norm.gamma.val())?,
                beta: match norm.beta.as_ref() {
                    Some(beta) => Some(host(beta.val())?),
                    None => None,
                },
                epsilon: residual.epsilon() as f32,
            }),
            None => None,
        };
        Some(Self {
            norm,
            norm_first: residual.norm_first(),
        })
    }

    /// The sublayer's input: `norm(x)` in pre-norm, `x` itself otherwise.
    pub(super) fn input(&self, x: &[f32]) -> Vec<f32> {
        let mut input = x.to_vec();
        if let (Some(norm), true) = (&self.norm, self.norm_first) {
            norm.apply(&mut input);
        }
        input
    }

    /// `x ← x + y`, then the norm in post-norm.
    pub(super) fn output(&self, x: &mut [f32], y: &[f32]) {
        x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
        if let (Some(norm), false) = (&self.norm, self.norm_first) {
            norm.apply(x);
        }
    }
}

/// `linear(x)` for `rows` rows of `x`, through its packed copy.
pub(super) fn apply(linear: &PackedLinear, x: &[f32], rows: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * linear.d_out()];
    linear.apply(x, &mut out);
    out
}

/// `[batch, len, heads · d_k]` → `[batch, heads, len, d_k]`.
pub(super) fn split_heads(
    x: &[f32],
    [batch, len]: [usize; 2],
    heads: usize,
    d_k: usize,
) -> Vec<f32> {
    let mut out = vec![0.0; x.len()];
    for b in 0..batch {
        for i in 0..len {
            for h in 0..heads {
                let from = (b * len + i) * heads * d_k + h * d_k;
                let to = ((b * heads + h) * len + i) * d_k;
                out[to..to + d_k].copy_from_slice(&x[from..from + d_k]);
            }
        }
    }
    out
}

/// The feed-forward network on the host: `linear_2(act(linear_1(x)))`; `None` for GELU.
pub(super) fn feed_forward(
    ffn: &FeedForward,
    packed: &[PackedLinear; 2],
    x: &[f32],
    rows: usize,
) -> Vec<f32> {
    let mut hidden = apply(&packed[0], x, rows);
    match ffn.activation() {
        Activation::Relu => hidden.iter_mut().for_each(|v| *v = v.max(0.0)),
        Activation::Swish => hidden.iter_mut().for_each(|v| *v /= 1.0 + (-*v).exp()),
        Activation::Gelu => {} // not taken: `runs_on_host` sends GELU to the tensor path
    }
    apply(&packed[1], &hidden, rows)
}

/// Whether a feed-forward network runs on the host.
pub(super) fn runs_on_host(ffn: &FeedForward) -> bool {
    super::ON_HOST && ffn.activation() != Activation::Gelu
}

/// A decoder layer's key/value cache on the host: `[batch, heads, len, d_k]` keys and values.
pub(super) struct HostCache {
    keys: TensorData,
    values: TensorData,
    /// `[batch · heads, len, d_k]`.
    dims: [usize; 3],
}

impl HostCache {
    /// `cache`'s values, where it has the layer's `[batch, heads, _, d_k]`.
    pub(super) fn read(cache: &KeyValue, [batch, heads, d_k]: [usize; 3]) -> Option<Self> {
        let [b, h, len, d] = cache.keys.dims();
        if [b, h, d] != [batch, heads, d_k] || cache.values.dims() != [b, h, len, d] {
            return None;
        }
        Some(Self {
            keys: host_data(cache.keys.clone())?,
            values: host_data(cache.values.clone())?,
            dims: [batch * heads, len, d_k],
        })
    }

    /// The cache with `len` new positions' keys and values (`[batch, heads, len, d_k]`) after
    /// its own, and its new length.
    pub(super) fn append(
        self,
        keys: &[f32],
        values: &[f32],
        len: usize,
    ) -> Option<(Vec<f32>, Vec<f32>, usize)> {
        let [pairs, earlier, d_k] = self.dims;
        let (old_keys, old_values) = (
            self.keys.as_slice::<f32>().ok()?,
            self.values.as_slice::<f32>().ok()?,
        );
        let grow = |old: &[f32], new: &[f32]| {
            let mut out = Vec::with_capacity(old.len() + new.len());
            for pair in 0..pairs {
                out.extend_from_slice(&old[pair * earlier * d_k..][..earlier * d_k]);
                out.extend_from_slice(&new[pair * len * d_k..][..len * d_k]);
            }
            out
        };
        let total = earlier + len;
        Some((grow(old_keys, keys), grow(old_values, values), total))
    }
}
