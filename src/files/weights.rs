//! `model.safetensors`: PyTorch names and layouts, validated before anything is allocated.
//!
//! | tensor | shape |
//! |---|---|
//! | `src_embed.weight` | `[src_vocab, d_model]` |
//! | `tgt_embed.weight` | `[tgt_vocab, d_model]` |
//! | `positional.weight` (a learned positional table only) | `[max_len, d_model]` |
//! | `{encoder,decoder}.layers.{i}.{self_attn,cross_attn}.{w_q,w_k,w_v,w_o}.weight` | `[d_model, d_model]` (out, in) |
//! | `{encoder,decoder}.layers.{i}.ffn.linear_1.{weight,bias}` | `[d_ff, d_model]`, `[d_ff]` |
//! | `{encoder,decoder}.layers.{i}.ffn.linear_2.{weight,bias}` | `[d_model, d_ff]`, `[d_model]` |
//! | `{encoder,decoder}.layers.{i}.norm_{1,2,3}.{weight,bias}` (with LayerNorm) | `[d_model]` |
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

use burn::module::ParamId;
use burn::tensor::{Device, Tensor, TensorData};
use safetensors::{Dtype, SafeTensors};

use super::walk::{replace, transpose, walk};
use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::packed::packs;
use crate::model::positional::{PositionalEncoding, PositionalTable};
use crate::model::Transformer;

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
    check_names(&expected, file.names())?;
    let mut tensors = BTreeMap::new();
    for (name, shape) in &expected {
        let view = file
            .tensor(name)
            .map_err(|_| Error::MissingTensor(name.clone()))?;
        check_shape(name, view.shape(), shape)?;
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
    check_positional_bound(config, bytes.len())?;
    Ok(tensors)
}

/// An error for the first name (in sorted order) that is not one of `expected`'s.
pub(super) fn check_names<'a>(
    expected: &[(String, Vec<usize>)],
    names: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    let wanted: HashMap<&str, &Vec<usize>> =
        expected.iter().map(|(n, s)| (n.as_str(), s)).collect();
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    match names.into_iter().find(|name| !wanted.contains_key(name)) {
        Some(extra) => Err(Error::UnexpectedTensor(extra.to_string())),
        None => Ok(()),
    }
}

/// An error unless tensor `name`'s shape `found` is the config's `expected`.
pub(super) fn check_shape(name: &str, found: &[usize], expected: &[usize]) -> Result<()> {
    if found == expected {
        return Ok(());
    }
    Err(Error::TensorShape {
        name: name.to_string(),
        found: found.to_vec(),
        expected: expected.to_vec(),
    })
}

/// The positional-encoding table is the one allocation the file does not pay for: bound it by
/// the file's size (`file_len` bytes).
pub(super) fn check_positional_bound(config: &ModelConfig, file_len: usize) -> Result<()> {
    let pe_bytes = config
        .max_len
        .saturating_mul(config.d_model)
        .saturating_mul(4);
    if pe_bytes > file_len {
        return Err(Error::ConfigRange {
            field: "max_len",
            value: config.max_len.to_string(),
            expected: "max_len × d_model × 4 bytes no larger than the weights file",
        });
    }
    Ok(())
}

/// The positional table of a model folder's model: the one its config implies, or, for a
/// learned table, the weights file's `positional.weight` (what the page draws and the model
/// adds).
pub fn positional_table(config: &ModelConfig, bytes: &[u8]) -> Result<PositionalTable> {
    let mut table = PositionalTable::new(config);
    if config.positional_encoding == PositionalEncoding::Learned {
        let name = "positional.weight";
        let mut tensors = read_weights(config, bytes)?;
        table.values = tensors
            .remove(name)
            .ok_or_else(|| Error::MissingTensor(name.into()))?
            .data;
    }
    Ok(table)
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
    // Where the weights are packed, the packed projection is made from the embedding instead, and
    // every other pass reads the embedding itself: no copy (233 MB at opus-mt-tc-big's size).
    // Natively the copy stays: training a loaded tied model, and resuming a run from its
    // checkpoint, train that copy as they always have, and a session that packs (an AVX2 CPU)
    // keeps it beside its packed projection (233 MB more at opus-mt-tc-big's size).
    let (vocab, d) = (config.tgt_vocab_size, config.d_model);
    let without_copy = cfg!(target_arch = "wasm32") && packs(device);
    let tied = match config.tie_output && !without_copy {
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
    } else if config.tie_output {
        model.read_logits_from_embedding();
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
