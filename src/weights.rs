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
//! `cross_attn` and `norm_3` exist in decoder layers only. Linear weights are stored `[out, in]`
//! as `nn.Linear` keeps them; burn keeps `[in, out]`, so they are transposed on the way in and out.
//! Values may be F32 or F16 (the shipped models use F16 to stay small); they are computed in F32.

use std::collections::{BTreeMap, HashMap};

use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::tensor::{Device, Tensor, TensorData};
use safetensors::{Dtype, SafeTensors};

use crate::config::ModelConfig;
use crate::error::{Error, Result};
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
    let (d, f) = (config.d_model, config.d_ff);
    let mut out = vec![
        (
            "src_embed.weight".to_string(),
            vec![config.src_vocab_size, d],
        ),
        (
            "tgt_embed.weight".to_string(),
            vec![config.tgt_vocab_size, d],
        ),
    ];
    let mut layer = |prefix: String, attentions: &[&str], norms: usize| {
        for attention in attentions {
            for w in ["w_q", "w_k", "w_v", "w_o"] {
                out.push((format!("{prefix}.{attention}.{w}.weight"), vec![d, d]));
            }
        }
        out.push((format!("{prefix}.ffn.linear_1.weight"), vec![f, d]));
        out.push((format!("{prefix}.ffn.linear_1.bias"), vec![f]));
        out.push((format!("{prefix}.ffn.linear_2.weight"), vec![d, f]));
        out.push((format!("{prefix}.ffn.linear_2.bias"), vec![d]));
        for n in 1..=norms {
            out.push((format!("{prefix}.norm_{n}.weight"), vec![d]));
            out.push((format!("{prefix}.norm_{n}.bias"), vec![d]));
        }
    };
    for i in 0..config.n_encoder_layers {
        layer(format!("encoder.layers.{i}"), &["self_attn"], 2);
    }
    for i in 0..config.n_decoder_layers {
        layer(
            format!("decoder.layers.{i}"),
            &["self_attn", "cross_attn"],
            3,
        );
    }
    if config.norm_first {
        for stack in ["encoder", "decoder"] {
            out.push((format!("{stack}.norm.weight"), vec![d]));
            out.push((format!("{stack}.norm.bias"), vec![d]));
        }
    }
    out.push((
        "projection.weight".to_string(),
        vec![config.tgt_vocab_size, d],
    ));
    out.push(("projection.bias".to_string(), vec![config.tgt_vocab_size]));
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
pub fn load_model(config: &ModelConfig, bytes: &[u8], device: &Device) -> Result<Transformer> {
    let mut tensors = read_weights(config, bytes)?;
    let mut model = Transformer::new(config, device);
    for_each_param(&mut model, &mut |name, slot| {
        let host = tensors.remove(&name).ok_or(Error::MissingTensor(name))?;
        slot.set(host, device);
        Ok(())
    })?;
    Ok(model)
}

/// Serialize a model's parameters (native only: reads tensors synchronously).
#[cfg(not(target_arch = "wasm32"))]
pub fn save_weights(model: &mut Transformer, half_precision: bool) -> Result<Vec<u8>> {
    let mut tensors: Vec<(String, Vec<usize>, Vec<u8>)> = vec![];
    for_each_param(model, &mut |name, slot| {
        let host = slot.get()?;
        let bytes = if half_precision {
            host.data
                .iter()
                .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
                .collect()
        } else {
            host.data.iter().flat_map(|v| v.to_le_bytes()).collect()
        };
        tensors.push((name, host.shape, bytes));
        Ok(())
    })?;
    let dtype = if half_precision {
        Dtype::F16
    } else {
        Dtype::F32
    };
    let views = tensors
        .iter()
        .map(|(name, shape, bytes)| {
            safetensors::tensor::TensorView::new(dtype, shape.clone(), bytes)
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
    fn set(self, host: HostTensor, device: &Device) {
        match self {
            Slot::Linear(param) => {
                let (rows, cols) = (host.shape[0], host.shape[1]);
                let data = transpose(&host.data, rows, cols);
                *param = Param::from_tensor(Tensor::from_data(
                    TensorData::new(data, [cols, rows]),
                    device,
                ));
            }
            Slot::Matrix(param) => {
                let shape = [host.shape[0], host.shape[1]];
                *param = Param::from_tensor(Tensor::from_data(
                    TensorData::new(host.data, shape),
                    device,
                ));
            }
            Slot::Vector(param) => {
                let shape = [host.shape[0]];
                *param = Param::from_tensor(Tensor::from_data(
                    TensorData::new(host.data, shape),
                    device,
                ));
            }
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
pub fn transpose(data: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; data.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = data[r * cols + c];
        }
    }
    out
}

type Visit<'f> = dyn FnMut(String, Slot<'_>) -> Result<()> + 'f;

/// Call `f` for every parameter with its file name, in the order of [`expected_tensors`].
pub fn for_each_param(model: &mut Transformer, f: &mut Visit<'_>) -> Result<()> {
    f(
        "src_embed.weight".into(),
        Slot::Matrix(&mut model.src_embed.weight),
    )?;
    f(
        "tgt_embed.weight".into(),
        Slot::Matrix(&mut model.tgt_embed.weight),
    )?;
    for (i, layer) in model.encoder_layers.iter_mut().enumerate() {
        encoder_layer(&format!("encoder.layers.{i}"), layer, f)?;
    }
    for (i, layer) in model.decoder_layers.iter_mut().enumerate() {
        decoder_layer(&format!("decoder.layers.{i}"), layer, f)?;
    }
    if let Some(norm) = model.encoder_norm.as_mut() {
        layer_norm("encoder.norm", norm, f)?;
    }
    if let Some(norm) = model.decoder_norm.as_mut() {
        layer_norm("decoder.norm", norm, f)?;
    }
    linear("projection", &mut model.projection, f)
}

fn encoder_layer(prefix: &str, layer: &mut EncoderLayer, f: &mut Visit<'_>) -> Result<()> {
    attention(&format!("{prefix}.self_attn"), &mut layer.self_attn, f)?;
    feed_forward(&format!("{prefix}.ffn"), &mut layer.ffn, f)?;
    layer_norm(&format!("{prefix}.norm_1"), &mut layer.residual_1.norm, f)?;
    layer_norm(&format!("{prefix}.norm_2"), &mut layer.residual_2.norm, f)
}

fn decoder_layer(prefix: &str, layer: &mut DecoderLayer, f: &mut Visit<'_>) -> Result<()> {
    attention(&format!("{prefix}.self_attn"), &mut layer.self_attn, f)?;
    attention(&format!("{prefix}.cross_attn"), &mut layer.cross_attn, f)?;
    feed_forward(&format!("{prefix}.ffn"), &mut layer.ffn, f)?;
    layer_norm(&format!("{prefix}.norm_1"), &mut layer.residual_1.norm, f)?;
    layer_norm(&format!("{prefix}.norm_2"), &mut layer.residual_2.norm, f)?;
    layer_norm(&format!("{prefix}.norm_3"), &mut layer.residual_3.norm, f)
}

fn attention(prefix: &str, block: &mut MultiHeadAttention, f: &mut Visit<'_>) -> Result<()> {
    f(
        format!("{prefix}.w_q.weight"),
        Slot::Linear(&mut block.w_q.weight),
    )?;
    f(
        format!("{prefix}.w_k.weight"),
        Slot::Linear(&mut block.w_k.weight),
    )?;
    f(
        format!("{prefix}.w_v.weight"),
        Slot::Linear(&mut block.w_v.weight),
    )?;
    f(
        format!("{prefix}.w_o.weight"),
        Slot::Linear(&mut block.w_o.weight),
    )
}

fn feed_forward(prefix: &str, block: &mut FeedForward, f: &mut Visit<'_>) -> Result<()> {
    linear(&format!("{prefix}.linear_1"), &mut block.linear_1, f)?;
    linear(&format!("{prefix}.linear_2"), &mut block.linear_2, f)
}

fn linear(prefix: &str, block: &mut Linear, f: &mut Visit<'_>) -> Result<()> {
    f(format!("{prefix}.weight"), Slot::Linear(&mut block.weight))?;
    if let Some(bias) = block.bias.as_mut() {
        f(format!("{prefix}.bias"), Slot::Vector(bias))?;
    }
    Ok(())
}

fn layer_norm(prefix: &str, norm: &mut LayerNorm, f: &mut Visit<'_>) -> Result<()> {
    f(format!("{prefix}.weight"), Slot::Vector(&mut norm.gamma))?;
    if let Some(beta) = norm.beta.as_mut() {
        f(format!("{prefix}.bias"), Slot::Vector(beta))?;
    }
    Ok(())
}
