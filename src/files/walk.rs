//! The tensor-name tree of `model.safetensors`, written once ([`walk`]), and the model's
//! parameters as the file sees them ([`Slot`]).

use burn::module::{Param, ParamId};
use burn::nn::{LayerNorm, Linear};
use burn::tensor::{Device, Tensor, TensorData};

use super::weights::HostTensor;
use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::{
    DecoderLayer, EncoderLayer, FeedForward, MultiHeadAttention, PositionalEncoding, Transformer,
};

/// One parameter of the model as the file sees it.
pub enum Slot<'a> {
    /// A `Linear` weight: burn `[in, out]`, file `[out, in]`.
    Linear(&'a mut Param<Tensor<2>>),
    /// A matrix stored as is (embeddings).
    Matrix(&'a mut Param<Tensor<2>>),
    /// A vector (biases, norm weights).
    Vector(&'a mut Param<Tensor<1>>),
}

impl Slot<'_> {
    /// Put `host` in, keeping the parameter's id (an optimizer's state is keyed by it).
    pub(super) fn set(self, host: HostTensor, device: &Device) {
        match self {
            Slot::Linear(param) => {
                let (rows, cols) = (host.shape[0], host.shape[1]);
                let data = transpose(&host.data, rows, cols);
                let tensor = Tensor::from_data(TensorData::new(data, [cols, rows]), device);
                replace(param, tensor);
            }
            Slot::Matrix(param) => {
                let shape = [host.shape[0], host.shape[1]];
                replace(
                    param,
                    Tensor::from_data(TensorData::new(host.data, shape), device),
                );
            }
            Slot::Vector(param) => {
                let shape = [host.shape[0]];
                replace(
                    param,
                    Tensor::from_data(TensorData::new(host.data, shape), device),
                );
            }
        }
    }

    /// Leave a matrix empty (`[0, 0]`, its id kept): its values live in packed weights only
    /// (`model::packed`: a projection's tiles, a big model's embedding table). A vector is left
    /// as it is.
    pub(super) fn clear(self, device: &Device) {
        if let Slot::Linear(param) | Slot::Matrix(param) = self {
            replace(param, Tensor::empty([0, 0], device));
        }
    }

    /// The parameter's id.
    pub fn id(&self) -> ParamId {
        match self {
            Slot::Linear(param) | Slot::Matrix(param) => param.id,
            Slot::Vector(param) => param.id,
        }
    }

    /// Give the parameter another id (to match a saved optimizer state).
    pub fn set_id(self, id: ParamId) {
        match self {
            Slot::Linear(param) | Slot::Matrix(param) => param.id = id,
            Slot::Vector(param) => param.id = id,
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn get(self) -> Result<HostTensor> {
        let read = |data: TensorData| {
            data.try_into_vec::<f32>()
                .map_err(|e| Error::Backend(format!("{e:?}")))
        };
        match self {
            Slot::Linear(param) => {
                let [rows, cols] = param.val().dims();
                let data = read(param.val().into_data())?;
                Ok(HostTensor {
                    shape: vec![cols, rows],
                    data: transpose(&data, rows, cols),
                })
            }
            Slot::Matrix(param) => {
                let shape = param.val().dims().to_vec();
                Ok(HostTensor {
                    shape,
                    data: read(param.val().into_data())?,
                })
            }
            Slot::Vector(param) => {
                let shape = param.val().dims().to_vec();
                Ok(HostTensor {
                    shape,
                    data: read(param.val().into_data())?,
                })
            }
        }
    }
}

/// Put `tensor` in `param`'s place, keeping its id.
pub(super) fn replace<const D: usize>(param: &mut Param<Tensor<D>>, tensor: Tensor<D>) {
    let id = param.id;
    *param = Param::from_tensor(tensor);
    param.id = id;
}

/// Row-major `[rows, cols]` → `[cols, rows]`.
pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}

/// What [`walk`] calls with each parameter: its file name, PyTorch shape and model slot.
pub type Visit<'f> = dyn FnMut(String, Vec<usize>, Option<Slot<'_>>) -> Result<()> + 'f;

/// The tensor-name tree, written once: calls `f` with every parameter's file name and PyTorch
/// shape in file order, and, when a model is given, the model's slot for it. Without a model
/// it only lists names and shapes (the loader checks a file against them before building
/// anything).
pub fn walk(
    config: &ModelConfig,
    mut model: Option<&mut Transformer>,
    f: &mut Visit<'_>,
) -> Result<()> {
    let (d, vocab) = (config.d_model, config.tgt_vocab_size);
    let m = &mut model;
    f(
        "src_embed.weight".into(),
        vec![config.src_vocab_size, d],
        m.as_deref_mut()
            .map(|m| Slot::Matrix(&mut m.src_embed.weight)),
    )?;
    f(
        "tgt_embed.weight".into(),
        vec![vocab, d],
        m.as_deref_mut()
            .map(|m| Slot::Matrix(&mut m.tgt_embed.weight)),
    )?;
    if config.positional_encoding == PositionalEncoding::Learned {
        let table = m.as_deref_mut().and_then(|m| m.learned_positions.as_mut());
        f(
            "positional.weight".into(),
            vec![config.max_len, d],
            table.map(Slot::Matrix),
        )?;
    }
    for i in 0..config.n_encoder_layers {
        let layer = m.as_deref_mut().and_then(|m| m.encoder_layers.get_mut(i));
        LayerParts::encoder(layer).walk(config, &format!("encoder.layers.{i}"), f)?;
    }
    for i in 0..config.n_decoder_layers {
        let layer = m.as_deref_mut().and_then(|m| m.decoder_layers.get_mut(i));
        LayerParts::decoder(layer).walk(config, &format!("decoder.layers.{i}"), f)?;
    }
    if config.norm_first && config.layer_norm {
        let norm = m.as_deref_mut().and_then(|m| m.encoder_norm.as_mut());
        layer_norm(config, "encoder.norm", norm, f)?;
        let norm = m.as_deref_mut().and_then(|m| m.decoder_norm.as_mut());
        layer_norm(config, "decoder.norm", norm, f)?;
    }
    // A tied projection is the target embedding: only its bias is in the file.
    let projection = m.as_deref_mut().map(|m| &mut m.projection);
    let parts = Parts {
        weight: !config.tie_output,
        bias: true,
    };
    linear("projection", [vocab, d], projection, parts, f)
}

/// The parameter blocks of one encoder or decoder layer, in file order (each `None` when only
/// names and shapes are wanted).
struct LayerParts<'m> {
    attentions: Vec<(&'static str, Option<&'m mut MultiHeadAttention>)>,
    ffn: Option<&'m mut FeedForward>,
    norms: Vec<Option<&'m mut LayerNorm>>,
}

impl<'m> LayerParts<'m> {
    fn encoder(layer: Option<&'m mut EncoderLayer>) -> Self {
        match layer {
            Some(l) => Self {
                attentions: vec![("self_attn", Some(&mut l.self_attn))],
                ffn: Some(&mut l.ffn),
                norms: vec![l.residual_1.norm.as_mut(), l.residual_2.norm.as_mut()],
            },
            None => Self {
                attentions: vec![("self_attn", None)],
                ffn: None,
                norms: vec![None, None],
            },
        }
    }

    fn decoder(layer: Option<&'m mut DecoderLayer>) -> Self {
        match layer {
            Some(l) => Self {
                attentions: vec![
                    ("self_attn", Some(&mut l.self_attn)),
                    ("cross_attn", Some(&mut l.cross_attn)),
                ],
                ffn: Some(&mut l.ffn),
                norms: vec![
                    l.residual_1.norm.as_mut(),
                    l.residual_2.norm.as_mut(),
                    l.residual_3.norm.as_mut(),
                ],
            },
            None => Self {
                attentions: vec![("self_attn", None), ("cross_attn", None)],
                ffn: None,
                norms: vec![None, None, None],
            },
        }
    }

    /// `{prefix}.{self_attn,cross_attn}.*`, `{prefix}.ffn.*`, `{prefix}.norm_{1,2,3}.*` (the
    /// norms only with `layer_norm`).
    fn walk(self, config: &ModelConfig, prefix: &str, f: &mut Visit<'_>) -> Result<()> {
        let d = config.d_model;
        // Decoder layers have three norms, encoder layers two.
        let d_ff = if self.norms.len() == 3 {
            config.decoder_d_ff()
        } else {
            config.encoder_d_ff()
        };
        for (name, block) in self.attentions {
            let projections = match block {
                Some(b) => [
                    Some(&mut b.w_q),
                    Some(&mut b.w_k),
                    Some(&mut b.w_v),
                    Some(&mut b.w_o),
                ],
                None => [None, None, None, None],
            };
            let parts = Parts {
                weight: true,
                bias: config.attention_bias,
            };
            for (w, projection) in ["w_q", "w_k", "w_v", "w_o"].into_iter().zip(projections) {
                linear(
                    &format!("{prefix}.{name}.{w}"),
                    [d, d],
                    projection,
                    parts,
                    f,
                )?;
            }
        }
        let (linear_1, linear_2) = match self.ffn {
            Some(ffn) => (Some(&mut ffn.linear_1), Some(&mut ffn.linear_2)),
            None => (None, None),
        };
        linear(
            &format!("{prefix}.ffn.linear_1"),
            [d_ff, d],
            linear_1,
            Parts::BOTH,
            f,
        )?;
        linear(
            &format!("{prefix}.ffn.linear_2"),
            [d, d_ff],
            linear_2,
            Parts::BOTH,
            f,
        )?;
        if !config.layer_norm {
            return Ok(());
        }
        for (n, norm) in self.norms.into_iter().enumerate() {
            layer_norm(config, &format!("{prefix}.norm_{}", n + 1), norm, f)?;
        }
        Ok(())
    }
}

/// A linear layer with its bias: weight `[out, in]`, bias `[out]`.
/// A linear layer's parts in the file.
#[derive(Clone, Copy)]
struct Parts {
    weight: bool,
    bias: bool,
}

impl Parts {
    const BOTH: Parts = Parts {
        weight: true,
        bias: true,
    };
}

fn linear(
    prefix: &str,
    [out, input]: [usize; 2],
    mut block: Option<&mut Linear>,
    parts: Parts,
    f: &mut Visit<'_>,
) -> Result<()> {
    let b = &mut block;
    if parts.weight {
        f(
            format!("{prefix}.weight"),
            vec![out, input],
            b.as_deref_mut().map(|b| Slot::Linear(&mut b.weight)),
        )?;
    }
    if !parts.bias {
        return Ok(());
    }
    let bias = match b.as_deref_mut() {
        Some(block) => {
            Some(Slot::Vector(block.bias.as_mut().ok_or(
                Error::Invariant("a linear layer without its bias"),
            )?))
        }
        None => None,
    };
    f(format!("{prefix}.bias"), vec![out], bias)
}

fn layer_norm(
    config: &ModelConfig,
    prefix: &str,
    mut norm: Option<&mut LayerNorm>,
    f: &mut Visit<'_>,
) -> Result<()> {
    let d = config.d_model;
    let n = &mut norm;
    f(
        format!("{prefix}.weight"),
        vec![d],
        n.as_deref_mut().map(|n| Slot::Vector(&mut n.gamma)),
    )?;
    let beta = match n.as_deref_mut() {
        Some(norm) => Some(Slot::Vector(
            norm.beta
                .as_mut()
                .ok_or(Error::Invariant("a layer norm without its bias"))?,
        )),
        None => None,
    };
    f(format!("{prefix}.bias"), vec![d], beta)
}
