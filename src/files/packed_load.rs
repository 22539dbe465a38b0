//! A model loaded from a streamed weights file ([`super::stream`]) straight into packed weights:
//! how the CPU of a wasm module loads (`Session.createCpu`).
//!
//! Each projection is packed from the file's own bytes and its tensor freed at once; the
//! model's `Linear` matrices are never made (`[0, 0]`, as `PackedWeights::drop_unpacked` leaves
//! them). A big model ([`half_tiles`]) stays F16 in memory: its projections in F16 tiles, its
//! embedding tables as the file's bytes beside them (`PackedTable`; a tied target table is the
//! projection's tiles). At opus-mt-tc-big's size the module held the file (586 MB) and the model
//! in F32 (1,173 MB) together before; now the file's tensors turn into the model one by one, and
//! the model is about the file's size.

use std::collections::BTreeMap;
use std::sync::Arc;

use burn::tensor::Device;

use super::memory::parameters;
use super::stream::RawTensor;
use super::walk::walk;
use super::weights::{
    check_names, check_positional_bound, check_shape, expected_tensors, HostTensor,
};
use crate::error::{Error, Result};
use crate::model::config::ModelConfig;
use crate::model::packed::{
    PackedAttention, PackedDecoderLayer, PackedEncoderLayer, PackedLinear, PackedTable,
    PackedWeights,
};
use crate::model::positional::{PositionalEncoding, PositionalTable};
use crate::model::Transformer;

/// Above this many bytes of F32 parameters, an F16 file's projections stay F16 in memory. The
/// shipped models (the largest, the base size, 374 MB in F32) keep F32 tiles, and the race
/// figures they were measured with; opus-mt-tc-big's shape (1,173 MB) packs in F16.
pub const HALF_TILES_ABOVE_BYTES: u64 = 512 << 20;

/// Whether `config`'s projections are packed in F16 (when its file is F16).
pub fn half_tiles(config: &ModelConfig) -> bool {
    parameters(config).saturating_mul(4) > HALF_TILES_ABOVE_BYTES
}

/// Validate the file's tensors against `config` (names, shapes, dtypes, finiteness) and load
/// them into a model on `device` and its packed projections, freeing each tensor once used; an
/// F16 file's projections in F16 tiles where `half` (see [`half_tiles`]).
pub fn load_packed(
    config: &ModelConfig,
    mut tensors: BTreeMap<String, RawTensor>,
    device: &Device,
    half: bool,
) -> Result<(PositionalTable, Transformer, PackedWeights)> {
    check(config, &tensors)?;
    let positional = positional(config, &mut tensors)?;
    let mut model = Transformer::with_positional(config, &positional, device);
    let mut packed = BTreeMap::new();
    // The tied projection first, from the target embedding's rows (kept for the second pass).
    if config.tie_output {
        let rows = take("tgt_embed.weight", &mut tensors)?;
        let bias = vector("projection.bias", &tensors)?;
        packed.insert("projection.weight".to_string(), pack(&rows, bias, half)?);
        tensors.insert("tgt_embed.weight".into(), rows);
    }
    // Every projection, each file tensor freed as soon as its tiles are made.
    walk(config, Some(&mut model), &mut |name, _, slot| {
        let Some(prefix) = projection_prefix(&name) else {
            return Ok(());
        };
        let bias = vector(&format!("{prefix}.bias"), &tensors)?;
        let rows = take(&name, &mut tensors)?;
        packed.insert(name.clone(), pack(&rows, bias, half)?);
        if name != "projection.weight" {
            slot.ok_or(Error::Invariant("a parameter without its model slot"))?
                .clear(device);
        } else {
            tensors.insert(name, rows); // an untied projection keeps its matrix (as before)
        }
        Ok(())
    })?;
    // The rest: a big model's embedding tables kept beside the tiles (F16, the file's own
    // bytes; a tied target table is the projection's tiles), everything else in F32.
    let mut tables: [Option<PackedTable>; 2] = [None, None];
    walk(config, Some(&mut model), &mut |name, shape, slot| {
        let Some(raw) = tensors.remove(&name) else {
            return Ok(()); // packed
        };
        let slot = slot.ok_or(Error::Invariant("a parameter without its model slot"))?;
        let side = ["src_embed.weight", "tgt_embed.weight"]
            .iter()
            .position(|table| *table == name);
        if let (true, Some(side), Some(width)) = (half, side, raw.width()) {
            tables[side] = Some(match side == 1 && config.tie_output {
                true => PackedTable::Projection,
                false => PackedTable::Rows {
                    bytes: Arc::new(raw.bytes),
                    width,
                    d_model: config.d_model,
                },
            });
            slot.clear(device);
            return Ok(());
        }
        let data = raw.to_f32(&name)?;
        drop(raw);
        slot.set(HostTensor { shape, data }, device);
        Ok(())
    })?;
    if config.tie_output {
        model.read_logits_from_embedding();
    }
    let mut weights = assemble(config, packed)?;
    [weights.src_table, weights.tgt_table] = tables;
    Ok((positional, model, weights))
}

/// The checks `read_weights` makes on a whole file, on the streamed file's tensors.
fn check(config: &ModelConfig, tensors: &BTreeMap<String, RawTensor>) -> Result<()> {
    let expected = expected_tensors(config);
    check_names(&expected, tensors.keys().map(String::as_str))?;
    for (name, shape) in &expected {
        let raw = tensors
            .get(name)
            .ok_or_else(|| Error::MissingTensor(name.clone()))?;
        check_shape(name, &raw.shape, shape)?;
        if raw.width().is_none() {
            return Err(Error::TensorDtype {
                name: name.clone(),
                dtype: raw.dtype.clone(),
            });
        }
        if !raw.finite() {
            return Err(Error::NonFiniteWeights(name.clone()));
        }
    }
    check_positional_bound(config, tensors.values().map(|t| t.bytes.len()).sum())
}

/// The positional table: the config's, or a learned one's values from the file (`positional.weight`
/// stays in `tensors` for the model's own slot).
fn positional(
    config: &ModelConfig,
    tensors: &mut BTreeMap<String, RawTensor>,
) -> Result<PositionalTable> {
    let mut table = PositionalTable::new(config);
    if config.positional_encoding == PositionalEncoding::Learned {
        let name = "positional.weight";
        let raw = tensors
            .get(name)
            .ok_or_else(|| Error::MissingTensor(name.into()))?;
        table.values = raw.to_f32(name)?;
    }
    Ok(table)
}

/// `{prefix}` of a projection packed from the file: a layer's attention or feed-forward
/// `Linear` weight, or the untied vocabulary projection.
fn projection_prefix(name: &str) -> Option<&str> {
    let prefix = name.strip_suffix(".weight")?;
    let layer = prefix.starts_with("encoder.layers.") || prefix.starts_with("decoder.layers.");
    let linear = [".w_q", ".w_k", ".w_v", ".w_o", ".linear_1", ".linear_2"]
        .iter()
        .any(|end| prefix.ends_with(end));
    (layer && linear || prefix == "projection").then_some(prefix)
}

fn take(name: &str, tensors: &mut BTreeMap<String, RawTensor>) -> Result<RawTensor> {
    tensors
        .remove(name)
        .ok_or_else(|| Error::MissingTensor(name.into()))
}

/// A bias's values, if the file has it (left in `tensors` for the model's own slot).
fn vector(name: &str, tensors: &BTreeMap<String, RawTensor>) -> Result<Option<Vec<f32>>> {
    tensors.get(name).map(|raw| raw.to_f32(name)).transpose()
}

/// A `[d_out, d_in]` file matrix packed (F16 tiles when `half` and the file is F16).
fn pack(rows: &RawTensor, bias: Option<Vec<f32>>, half: bool) -> Result<PackedLinear> {
    let (&[d_out, d_in], Some(width)) = (rows.shape.as_slice(), rows.width()) else {
        return Err(Error::Invariant("a projection that is not a matrix"));
    };
    PackedLinear::from_file_rows(&rows.bytes, width, [d_out, d_in], bias, half)
}

/// Packed projections by file name.
type Packed = BTreeMap<String, PackedLinear>;

/// [`PackedWeights`] from the projections packed by file name.
fn assemble(config: &ModelConfig, mut packed: Packed) -> Result<PackedWeights> {
    let mut encoder = Vec::with_capacity(config.n_encoder_layers);
    for i in 0..config.n_encoder_layers {
        let prefix = format!("encoder.layers.{i}");
        encoder.push(PackedEncoderLayer {
            self_attn: attention(&mut packed, &format!("{prefix}.self_attn"))?,
            ffn: feed_forward(&mut packed, &prefix)?,
        });
    }
    let mut decoder = Vec::with_capacity(config.n_decoder_layers);
    for i in 0..config.n_decoder_layers {
        let prefix = format!("decoder.layers.{i}");
        decoder.push(PackedDecoderLayer {
            self_attn: attention(&mut packed, &format!("{prefix}.self_attn"))?,
            cross_attn: attention(&mut packed, &format!("{prefix}.cross_attn"))?,
            ffn: feed_forward(&mut packed, &prefix)?,
        });
    }
    Ok(PackedWeights {
        encoder,
        decoder,
        projection: get(&mut packed, "projection.weight")?,
        src_table: None,
        tgt_table: None,
    })
}

fn get(packed: &mut Packed, name: &str) -> Result<PackedLinear> {
    packed
        .remove(name)
        .ok_or(Error::Invariant("a projection that was not packed"))
}

fn attention(packed: &mut Packed, prefix: &str) -> Result<PackedAttention> {
    Ok(PackedAttention {
        w_q: get(packed, &format!("{prefix}.w_q.weight"))?,
        w_k: get(packed, &format!("{prefix}.w_k.weight"))?,
        w_v: get(packed, &format!("{prefix}.w_v.weight"))?,
        w_o: get(packed, &format!("{prefix}.w_o.weight"))?,
    })
}

fn feed_forward(packed: &mut Packed, prefix: &str) -> Result<[PackedLinear; 2]> {
    Ok([
        get(packed, &format!("{prefix}.ffn.linear_1.weight"))?,
        get(packed, &format!("{prefix}.ffn.linear_2.weight"))?,
    ])
}
