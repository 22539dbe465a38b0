//! Whole encoder and decoder layers on the host, for the CPU path whose projections are packed
//! (`model::packed`): the layer's input is read once, and its norms, projections, attention,
//! residuals and feed-forward network run over plain buffers, as onnxruntime's fused graph runs
//! them; the output and the attention go back into tensors once.
//!
//! burn's chain around the packed products cost as much as the products on en-zh natively: a
//! copy out of a tensor and back into one at each product, and one call for each norm, add and
//! activation (0.5–1 µs each on one 192-wide row, more on 32). The same numbers as the tensor
//! path within float rounding: the same packed products and host softmax (a few queries, as in a
//! cached decoding step, multiply without packing the keys and values).
//!
//! Taken where the layer's weights are packed, which only a session's inference does (never
//! training: no dropout here), and where the layer is one this pass knows: a GELU feed-forward
//! network (whose `erf` std does not have), a probe's partial layer, kept raw scores in the
//! decoder, and shapes it does not broadcast (keys and values of another batch, an empty source)
//! take the tensor path.

use burn::tensor::{Bool, Tensor, TensorData};

use super::attention::{AttentionOutput, MultiHeadAttention};
use super::host_attention::{host, host_data, HiddenKeys, HostAttention, HostValues};
use super::key_value::KeyValue;
use super::layers::{DecoderLayer, DecoderLayerAttention, EncoderLayer};
use super::packed::{PackedAttention, PackedDecoderLayer, PackedEncoderLayer, PackedLinear};

mod buffers;
use buffers::{apply, feed_forward, runs_on_host, split_heads, HostCache, HostResidual};

/// Whether the layers run on the host where their weights are packed: natively for now. The
/// wasm module keeps the tensor chain around its packed products until the browser race is run
/// again with this pass.
const ON_HOST: bool = cfg!(not(target_arch = "wasm32"));

/// A block's keys and values projected from `x` (`[batch, len, d_model]`) on the host, through
/// their packed copies, and laid out `[batch, heads, len, d_k]` in memory: a later read (each
/// decoder pass reads the cross-attention's) copies them as they lie, without a transposition.
/// `None` where the tensor path takes them.
pub(crate) fn key_value_on_host(
    block: &MultiHeadAttention,
    packed: &PackedAttention,
    x: &Tensor<3>,
) -> Option<KeyValue> {
    if !ON_HOST {
        return None;
    }
    let device = x.device();
    let [batch, len, d_model] = x.dims();
    let heads = block.n_heads();
    let d_k = d_model / heads.max(1);
    if heads * d_k != d_model {
        return None;
    }
    let (keys, values) = key_value(packed, &host(x.clone())?, [batch, len], [heads, d_k]);
    let dims = [batch, heads, len, d_k];
    Some(KeyValue {
        keys: Tensor::from_data(TensorData::new(keys, dims), &device),
        values: Tensor::from_data(TensorData::new(values, dims), &device),
    })
}

/// A block's keys and values from `x` (`[batch, len, heads · d_k]`) through their packed
/// copies, each laid out `[batch, heads, len, d_k]`.
fn key_value(
    packed: &PackedAttention,
    x: &[f32],
    [batch, len]: [usize; 2],
    [heads, d_k]: [usize; 2],
) -> (Vec<f32>, Vec<f32>) {
    let project = |linear: &PackedLinear| {
        split_heads(&apply(linear, x, batch * len), [batch, len], heads, d_k)
    };
    (project(&packed.w_k), project(&packed.w_v))
}

/// An attention block on the host over `input` (`[batch, q_len, d_model]`): its queries
/// projected, against `kv` (`[batch, heads, k_len, d_k]`, on the host), its context projected
/// by `w_o`.
struct HostBlock<'a> {
    block: &'a MultiHeadAttention,
    packed: &'a PackedAttention,
    shape: [usize; 3],
}

impl HostBlock<'_> {
    fn attend(
        &self,
        input: &[f32],
        (k, v): (&[f32], &[f32]),
        hidden: Option<&HiddenKeys>,
    ) -> (Vec<f32>, HostValues) {
        let [batch, q_len, _] = self.shape;
        let q = apply(&self.packed.w_q, input, batch * q_len);
        let host: HostAttention = self.block.host();
        let values = host.attend_values(&q, k, v, hidden, self.shape);
        let context = apply(&self.packed.w_o, &values.context, batch * q_len);
        (context, values)
    }
}

/// The tensors an attention block answers with, from the host's values.
fn attention_output(
    context: Vec<f32>,
    values: HostValues,
    [batch, q_len, d_model]: [usize; 3],
    dims4: [usize; 4],
    keep_raw: bool,
    device: &burn::tensor::Device,
) -> AttentionOutput {
    AttentionOutput {
        context: Tensor::from_data(TensorData::new(context, [batch, q_len, d_model]), device),
        weights: Tensor::from_data(TensorData::new(values.weights, dims4), device),
        raw_scores: keep_raw.then(|| Tensor::from_data(TensorData::new(values.raw, dims4), device)),
    }
}

impl EncoderLayer {
    /// [`EncoderLayer::forward_packed`] on the host; `None` where it takes the tensor path.
    pub(crate) fn forward_on_host(
        &self,
        x: &Tensor<3>,
        padding_mask: Option<&Tensor<4, Bool>>,
        keep_raw_scores: bool,
        packed: &PackedEncoderLayer,
    ) -> Option<(Tensor<3>, AttentionOutput)> {
        if !runs_on_host(&self.ffn) {
            return None;
        }
        let device = x.device();
        let [batch, len, d_model] = x.dims();
        let (heads, d_k) = (
            self.self_attn.n_heads(),
            d_model / self.self_attn.n_heads().max(1),
        );
        if heads * d_k != d_model || len == 0 {
            return None;
        }
        let dims4 = [batch, heads, len, len];
        let hidden = HiddenKeys::fitting(padding_mask, dims4)?;
        let (first, second) = (
            HostResidual::read(&self.residual_1)?,
            HostResidual::read(&self.residual_2)?,
        );
        let mut x = host(x.clone())?;
        let rows = batch * len;

        let input = first.input(&x);
        let attn = &packed.self_attn;
        let (k, v) = key_value(attn, &input, [batch, len], [heads, d_k]);
        let block = HostBlock {
            block: &self.self_attn,
            packed: attn,
            shape: [batch, len, len],
        };
        let (context, values) = block.attend(&input, (&k, &v), hidden.as_ref());
        first.output(&mut x, &context);

        let ffn = feed_forward(&self.ffn, &packed.ffn, &second.input(&x), rows);
        second.output(&mut x, &ffn);
        let shape = [batch, len, d_model];
        let attention = attention_output(context, values, shape, dims4, keep_raw_scores, &device);
        Some((
            Tensor::from_data(TensorData::new(x, shape), &device),
            attention,
        ))
    }
}

impl DecoderLayer {
    /// A decoder layer on the host, over a whole target prefix or for new positions appended to
    /// `cache` (grown as the tensor path grows it, its keys and values laid out
    /// `[batch, heads, len, d_k]`); no probe. `None` where it takes the tensor path (nothing is
    /// changed then).
    pub(crate) fn forward_on_host(
        &self,
        x: &Tensor<3>,
        memory: &KeyValue,
        cross_mask: Option<&Tensor<4, Bool>>,
        cache: Option<&mut Option<KeyValue>>,
        packed: &PackedDecoderLayer,
    ) -> Option<(Tensor<3>, DecoderLayerAttention)> {
        if !runs_on_host(&self.ffn) {
            return None;
        }
        let device = x.device();
        let [batch, len, d_model] = x.dims();
        let [kv_batch, heads, src_len, d_k] = memory.keys.dims();
        let own = (self.self_attn.n_heads(), self.cross_attn.n_heads());
        let shapes = kv_batch == batch && heads * d_k == d_model && own == (heads, heads);
        if !shapes || len == 0 || src_len == 0 {
            return None;
        }
        let cross_dims = [batch, heads, len, src_len];
        let hidden = HiddenKeys::fitting(cross_mask, cross_dims)?;
        let residuals = [&self.residual_1, &self.residual_2, &self.residual_3];
        let [first, second, third] = residuals.map(HostResidual::read);
        let (first, second, third) = (first?, second?, third?);
        let (cross_k, cross_v) = (
            host_data(memory.keys.clone())?,
            host_data(memory.values.clone())?,
        );
        let (cross_k, cross_v) = (
            cross_k.as_slice::<f32>().ok()?,
            cross_v.as_slice::<f32>().ok()?,
        );
        let earlier = match cache.as_deref() {
            Some(Some(earlier)) => Some(HostCache::read(earlier, [batch, heads, d_k])?),
            _ => None,
        };
        let mut x = host(x.clone())?;
        let rows = batch * len;
        let shape = [batch, len, d_model];

        let input = first.input(&x);
        let attn = &packed.self_attn;
        let (k, v) = key_value(attn, &input, [batch, len], [heads, d_k]);
        let (k, v, k_len) = match earlier {
            Some(earlier) => earlier.append(&k, &v, len)?,
            None => (k, v, len),
        };
        let self_dims = [batch, heads, len, k_len];
        let block = HostBlock {
            block: &self.self_attn,
            packed: attn,
            shape: [batch, len, k_len],
        };
        let (context, values) = block.attend(&input, (&k, &v), None);
        if let Some(slot) = cache {
            let dims = [batch, heads, k_len, d_k];
            *slot = Some(KeyValue {
                keys: Tensor::from_data(TensorData::new(k, dims), &device),
                values: Tensor::from_data(TensorData::new(v, dims), &device),
            });
        }
        first.output(&mut x, &context);
        let self_attention = attention_output(context, values, shape, self_dims, false, &device);

        let block = HostBlock {
            block: &self.cross_attn,
            packed: &packed.cross_attn,
            shape: [batch, len, src_len],
        };
        let (context, values) =
            block.attend(&second.input(&x), (cross_k, cross_v), hidden.as_ref());
        second.output(&mut x, &context);
        let cross_attention = attention_output(context, values, shape, cross_dims, false, &device);

        let ffn = feed_forward(&self.ffn, &packed.ffn, &third.input(&x), rows);
        third.output(&mut x, &ffn);
        let attention = DecoderLayerAttention {
            self_attention,
            cross_attention,
        };
        Some((
            Tensor::from_data(TensorData::new(x, shape), &device),
            attention,
        ))
    }
}
