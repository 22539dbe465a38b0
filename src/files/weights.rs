//! `model.safetensors`: PyTorch names and layouts, validated before anything is allocated.
//!
//! | tensor | shape |
//! |---|---|
//! | `src_embed.weight` | `[src_vocab, d_model]` |
//! | `tgt_embed.weight` | `[tgt_vocab, d_model]` |
//! | `{encoder,decoder}.layers.{i}.{self_attn,cross_attn}.{w_q,w_k,w_v,w_o}.weight` | `[d_model, d_model]` (out, in) |
//! | `{encoder,decoder}.layers.{i}.ffn.linear_1.{weight,bias}` | `[d_ff, d_model]`, `[d_ff]` |
//! | `{encoder,decoder}.layers.{i}.ffn.linear_2.{weight,bias}` | `[d_model, d_ff]`, `[d_model]` |
//! | `{encoder,decoder}.layers.{i}.norm_{1,2,3}.{weight,bias}` | `[d_model]` |
//! | `{encoder,decoder}.norm.{weight,bias}` (pre-norm only) | `[d_model]` |
//! | `projection.{weight,bias}` | `[tgt_vocab, d_model]`, `[tgt_vocab]` |
//!
//! With `attention_bias`, each attention projection also has its `.bias` `[d_model]`; with
//! `tie_output`, `projection.weight` is absent (the target embedding is used).
//!
//! `cross_attn` and `norm_3` exist in decoder layers only. Linear weights are stored `[out, in]`
//! as `nn.Linear` keeps them; burn keeps `[in, out]`, so they are transposed on the way in and out.
//! Values may be F32 or F16 (the shipped models use F16 to stay small); they are computed in F32.

use std::collections::{BTreeMap, HashMap};

use burn::module::{Param, ParamId};
use burn::nn::{LayerNorm, Linear};
use burn::tensor::{Device, Tensor, TensorData};
use safetensors::{Dtype, SafeTensors};

use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::positional::PositionalTable;
use crate::model::{DecoderLayer, EncoderLayer, FeedForward, MultiHeadAttention, Transformer};

/// A tensor held on the host, in PyTorch layout.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    /// PyTorch shape.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<f32>,
}

/// Every tensor name the config implies, with its PyTorch shape, in file order.
pub fn expected_tensors(config: &ModelConfig) -> Vec<(String, Vec<usize>)> {
    let mut out = vec![];
    let _ = walk(config, None, &mut |name, shape, _| {
        out.push((name, shape));
        Ok(())
    });
    out
}

/// Parse and check a safetensors file against the config: names, shapes, dtypes, finiteness.
///
/// Only the file's own bytes are trusted for sizes: every shape is compared with the config's
/// before any value is converted, so a hostile header cannot make us allocate more than the
/// file holds (×2 for F16 → F32).
pub fn read_weights(config: &ModelConfig, bytes: &[u8]) -> Result<BTreeMap<String, HostTensor>> {
    let file = SafeTensors::deserialize(bytes).map_err(|e| Error::WeightsFormat(e.to_string()))?;
    let expected = expected_tensors(config);
    let wanted: HashMap<&str, &Vec<usize>> =
        expected.iter().map(|(n, s)| (n.as_str(), s)).collect();
    let mut names: Vec<String> = file.names().into_iter().map(|s| s.to_string()).collect();
    names.sort();
    if let Some(extra) = names
        .iter()
        .find(|name| !wanted.contains_key(name.as_str()))
    {
        return Err(Error::UnexpectedTensor(extra.clone()));
    }
    let mut tensors = BTreeMap::new();
    for (name, shape) in &expected {
        let view = file
            .tensor(name)
            .map_err(|_| Error::MissingTensor(name.clone()))?;
        if view.shape() != shape.as_slice() {
            return Err(Error::TensorShape {
                name: name.clone(),
                found: view.shape().to_vec(),
                expected: shape.clone(),
            });
        }
        let data: Vec<f32> = match view.dtype() {
            Dtype::F32 => view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F16 => view
                .data()
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            other => {
                return Err(Error::TensorDtype {
                    name: name.clone(),
                    dtype: format!("{other:?}"),
                })
            }
        };
        if data.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFiniteWeights(name.clone()));
        }
        tensors.insert(
            name.clone(),
            HostTensor {
                shape: shape.clone(),
                data,
            },
        );
    }
    // The positional-encoding table is the one allocation the file does not pay for: bound it.
    let pe_bytes = config
        .max_len
        .saturating_mul(config.d_model)
        .saturating_mul(4);
    if pe_bytes > bytes.len() {
        return Err(Error::ConfigRange {
            field: "max_len",
            value: config.max_len.to_string(),
            expected: "max_len × d_model × 4 bytes no larger than the weights file",
        });
    }
    Ok(tensors)
}

/// Load a validated model onto `device`.
pub fn load_model(
    config: &ModelConfig,
    positional: &PositionalTable,
    bytes: &[u8],
    device: &Device,
) -> Result<Transformer> {
    let tensors = read_weights(config, bytes)?;
    let mut model = Transformer::with_positional(config, positional, device);
    put_weights(config, &mut model, tensors, device)?;
    Ok(model)
}

/// Validate a weights file for `config` and put its values into `model`, keeping everything
/// else (the structure, the positional table): a training snapshot of the same model.
pub fn replace_weights(
    config: &ModelConfig,
    model: &mut Transformer,
    bytes: &[u8],
    device: &Device,
) -> Result<()> {
    let tensors = read_weights(config, bytes)?;
    put_weights(config, model, tensors, device)
}

/// Put validated host tensors into the model's slots.
fn put_weights(
    config: &ModelConfig,
    model: &mut Transformer,
    mut tensors: BTreeMap<String, HostTensor>,
    device: &Device,
) -> Result<()> {
    // A tied projection gets its own contiguous copy of the target embedding, transposed on the
    // host: a transposed view of the embedding made every decoding step's logits matmul copy
    // the whole matrix first (5× slower translation at opus-mt's 65,001-token vocabulary).
    // burn keeps Linear weights [in, out]: the embedding's [vocab, d_model], transposed.
    let (vocab, d) = (config.tgt_vocab_size, config.d_model);
    let tied = match config.tie_output {
        true => Some(transpose(
            &tensors
                .get("tgt_embed.weight")
                .ok_or_else(|| Error::MissingTensor("tgt_embed.weight".into()))?
                .data,
            vocab,
            d,
        )),
        false => None,
    };
    walk(config, Some(model), &mut |name, _, slot| {
        let host = tensors.remove(&name).ok_or(Error::MissingTensor(name))?;
        slot.ok_or(Error::Invariant("a parameter without its model slot"))?
            .set(host, device);
        Ok(())
    })?;
    if let Some(transposed) = tied {
        let data = TensorData::new(transposed, [d, vocab]);
        replace(
            &mut model.projection.weight,
            Tensor::from_data(data, device),
        );
    }
    Ok(())
}

/// Serialize a model's parameters (native only: reads tensors synchronously).
#[cfg(not(target_arch = "wasm32"))]
pub fn save_weights(
    config: &ModelConfig,
    model: &mut Transformer,
    half_precision: bool,
) -> Result<Vec<u8>> {
    let mut tensors = vec![];
    walk(config, Some(model), &mut |name, _, slot| {
        let host = slot
            .ok_or(Error::Invariant("a parameter without its model slot"))?
            .get()?;
        tensors.push((name, host));
        Ok(())
    })?;
    serialize(&tensors, half_precision)
}

/// A safetensors file of named host tensors, stored as F16 or F32.
pub fn serialize(tensors: &[(String, HostTensor)], half_precision: bool) -> Result<Vec<u8>> {
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, host)| {
            if half_precision {
                host.data
                    .iter()
                    .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
                    .collect()
            } else {
                host.data.iter().flat_map(|v| v.to_le_bytes()).collect()
            }
        })
        .collect();
    let dtype = if half_precision {
        Dtype::F16
    } else {
        Dtype::F32
    };
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, host), bytes)| {
            safetensors::tensor::TensorView::new(dtype, host.shape.clone(), bytes)
                .map(|view| (name.clone(), view))
                .map_err(|e| Error::WeightsFormat(e.to_string()))
        })
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, None).map_err(|e| Error::WeightsFormat(e.to_string()))
}

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
    fn set(self, host: HostTensor, device: &Device) {
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
    fn get(self) -> Result<HostTensor> {
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

/// Row-major `[rows, cols]` → `[cols, rows]`.
fn replace<const D: usize>(param: &mut Param<Tensor<D>>, tensor: Tensor<D>) {
    let id = param.id;
    *param = Param::from_tensor(tensor);
    param.id = id;
}

/// Each parameter's id by tensor name (saved with a training checkpoint).
pub fn param_ids(config: &ModelConfig, model: &mut Transformer) -> Result<BTreeMap<String, u64>> {
    let mut ids = BTreeMap::new();
    walk(config, Some(model), &mut |name, _, slot| {
        let slot = slot.ok_or(Error::Invariant("a parameter without its model slot"))?;
        ids.insert(name, slot.id().val());
        Ok(())
    })?;
    Ok(ids)
}

/// Give the parameters the ids [`param_ids`] saved.
pub fn set_param_ids(
    config: &ModelConfig,
    model: &mut Transformer,
    ids: &BTreeMap<String, u64>,
) -> Result<()> {
    walk(config, Some(model), &mut |name, _, slot| {
        let id = ids.get(&name).ok_or(Error::MissingTensor(name))?;
        slot.ok_or(Error::Invariant("a parameter without its model slot"))?
            .set_id(ParamId::from(*id));
        Ok(())
    })
}

pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}

type Visit<'f> = dyn FnMut(String, Vec<usize>, Option<Slot<'_>>) -> Result<()> + 'f;

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
    for i in 0..config.n_encoder_layers {
        let layer = m.as_deref_mut().and_then(|m| m.encoder_layers.get_mut(i));
        LayerParts::encoder(layer).walk(config, &format!("encoder.layers.{i}"), f)?;
    }
    for i in 0..config.n_decoder_layers {
        let layer = m.as_deref_mut().and_then(|m| m.decoder_layers.get_mut(i));
        LayerParts::decoder(layer).walk(config, &format!("decoder.layers.{i}"), f)?;
    }
    if config.norm_first {
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
                norms: vec![Some(&mut l.residual_1.norm), Some(&mut l.residual_2.norm)],
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
                    Some(&mut l.residual_1.norm),
                    Some(&mut l.residual_2.norm),
                    Some(&mut l.residual_3.norm),
                ],
            },
            None => Self {
                attentions: vec![("self_attn", None), ("cross_attn", None)],
                ffn: None,
                norms: vec![None, None, None],
            },
        }
    }

    /// `{prefix}.{self_attn,cross_attn}.*`, `{prefix}.ffn.*`, `{prefix}.norm_{1,2,3}.*`.
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
