//! The checkpoint's tensors, renamed to attnscope's layout and checked.

use std::borrow::Cow;
use std::collections::HashMap;

use safetensors::{Dtype, SafeTensors};

use super::torch::{read_state_dict, TorchDtype};
use super::{fail, Checkpoint, WEIGHT_FILES};
use crate::error::Result;
use crate::files::weights::{expected_tensors, serialize, HostTensor};
use crate::model::config::ModelConfig;

/// The Marian name of an attnscope tensor, and where it comes from when the file may hold it
/// under another name.
///
/// | attnscope | MarianMT |
/// |---|---|
/// | `src_embed.weight` | `model.encoder.embed_tokens.weight`, else `model.shared.weight` |
/// | `tgt_embed.weight` | `model.decoder.embed_tokens.weight`, else `model.shared.weight` |
/// | `{encoder,decoder}.layers.N.self_attn.{w_q,w_k,w_v,w_o}` | `model.….layers.N.self_attn.{q,k,v,out}_proj` |
/// | `decoder.layers.N.cross_attn.*` | `model.decoder.layers.N.encoder_attn.*` |
/// | `….ffn.linear_1`, `linear_2` | `….fc1`, `fc2` |
/// | `encoder.layers.N.norm_1`, `norm_2` | `self_attn_layer_norm`, `final_layer_norm` |
/// | `decoder.layers.N.norm_1`, `norm_2`, `norm_3` | `self_attn_layer_norm`, `encoder_attn_layer_norm`, `final_layer_norm` |
/// | `projection.weight` (untied only) | `lm_head.weight` |
/// | `projection.bias` | `final_logits_bias` (row 0), zeros when absent |
pub fn marian_name(name: &str) -> Vec<String> {
    match name {
        "src_embed.weight" => vec![
            "model.encoder.embed_tokens.weight".into(),
            "model.shared.weight".into(),
        ],
        "tgt_embed.weight" => vec![
            "model.decoder.embed_tokens.weight".into(),
            "model.shared.weight".into(),
        ],
        "projection.weight" => vec!["lm_head.weight".into()],
        "projection.bias" => vec!["final_logits_bias".into()],
        _ => {
            let decoder = name.starts_with("decoder.");
            let mut out = format!("model.{name}")
                .replace(".cross_attn.", ".encoder_attn.")
                .replace(".w_q.", ".q_proj.")
                .replace(".w_k.", ".k_proj.")
                .replace(".w_v.", ".v_proj.")
                .replace(".w_o.", ".out_proj.")
                .replace(".ffn.linear_1.", ".fc1.")
                .replace(".ffn.linear_2.", ".fc2.")
                .replace(".norm_1.", ".self_attn_layer_norm.");
            out = if decoder {
                out.replace(".norm_2.", ".encoder_attn_layer_norm.")
                    .replace(".norm_3.", ".final_layer_norm.")
            } else {
                out.replace(".norm_2.", ".final_layer_norm.")
            };
            vec![out]
        }
    }
}

/// One checkpoint tensor as stored: its element type, shape and little-endian bytes.
struct Stored<'a> {
    dtype: &'static str,
    shape: Vec<usize>,
    data: Cow<'a, [u8]>,
}

impl Stored<'_> {
    /// The values as `f32`, whatever the stored type (F32, F16, BF16).
    fn values(&self, file: &str, name: &str) -> Result<Vec<f32>> {
        let bytes = &self.data;
        Ok(match self.dtype {
            "F32" => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            "F16" => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            "BF16" => bytes
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            other => {
                return Err(fail(format!(
                    "{file}: {name} has dtype {other} (F32, F16, BF16)"
                )))
            }
        })
    }
}

/// The tensors of `model.safetensors`, borrowing its bytes.
fn safetensors_tensors(bytes: &[u8]) -> Result<HashMap<String, Stored<'_>>> {
    let file =
        SafeTensors::deserialize(bytes).map_err(|e| fail(format!("model.safetensors: {e}")))?;
    Ok(file
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            let dtype = match view.dtype() {
                Dtype::F32 => "F32",
                Dtype::F16 => "F16",
                Dtype::BF16 => "BF16",
                _ => "another type",
            };
            let stored = Stored {
                dtype,
                shape: view.shape().to_vec(),
                data: Cow::Borrowed(view.data()),
            };
            (name, stored)
        })
        .collect())
}

/// The tensors of `pytorch_model.bin` (a `torch.save` state dict, read without running it).
fn torch_tensors(bytes: &[u8]) -> Result<HashMap<String, Stored<'static>>> {
    let tensors = read_state_dict(bytes).map_err(|e| fail(format!("pytorch_model.bin: {e}")))?;
    Ok(tensors
        .into_iter()
        .map(|t| {
            let dtype = match t.dtype {
                TorchDtype::F32 => "F32",
                TorchDtype::F16 => "F16",
                TorchDtype::BF16 => "BF16",
                other => other.name(),
            };
            let stored = Stored {
                dtype,
                shape: t.shape,
                data: Cow::Owned(t.data),
            };
            (t.name, stored)
        })
        .collect())
}

/// Rename and check every tensor of the folder's weights (the first of [`WEIGHT_FILES`] it
/// has); write attnscope's `model.safetensors`.
pub(super) fn convert_weights(
    config: &ModelConfig,
    files: &dyn Checkpoint,
    half_precision: bool,
) -> Result<Vec<u8>> {
    let file = WEIGHT_FILES
        .into_iter()
        .find(|name| files.has(name))
        .ok_or_else(|| fail(format!("the folder has none of {WEIGHT_FILES:?}")))?;
    let bytes = files.read(file)?;
    let available = if file == "pytorch_model.bin" {
        torch_tensors(&bytes)?
    } else {
        safetensors_tensors(&bytes)?
    };
    let mut out = vec![];
    for (name, shape) in expected_tensors(config) {
        let sources = marian_name(&name);
        let found = sources
            .iter()
            .find_map(|source| available.get(source).map(|stored| (source, stored)));
        let data = match found {
            Some((source, stored)) => {
                let expected: usize = shape.iter().product();
                let data = stored.values(file, source)?;
                if data.len() != expected {
                    return Err(fail(format!(
                        "{file}: {source} has shape {:?}, {name} needs {shape:?}",
                        stored.shape
                    )));
                }
                if data.iter().any(|v| !v.is_finite()) {
                    return Err(fail(format!(
                        "{file}: {source} holds NaN or infinite values"
                    )));
                }
                data
            }
            // Older checkpoints leave the logits bias out: it is then zero.
            None if name == "projection.bias" => vec![0.0; shape.iter().product()],
            None => {
                return Err(fail(format!(
                    "{file} has none of {sources:?} (for {name}){}",
                    if name == "projection.weight" {
                        "; config.json says tie_word_embeddings false"
                    } else {
                        ""
                    }
                )))
            }
        };
        out.push((name, HostTensor { shape, data }));
    }
    serialize(&out, half_precision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marian_names_follow_the_table() {
        assert_eq!(
            marian_name("decoder.layers.3.cross_attn.w_o.bias"),
            ["model.decoder.layers.3.encoder_attn.out_proj.bias"]
        );
        assert_eq!(
            marian_name("decoder.layers.0.norm_2.weight"),
            ["model.decoder.layers.0.encoder_attn_layer_norm.weight"]
        );
        assert_eq!(
            marian_name("encoder.layers.1.norm_2.bias"),
            ["model.encoder.layers.1.final_layer_norm.bias"]
        );
        assert_eq!(
            marian_name("encoder.layers.1.ffn.linear_1.weight"),
            ["model.encoder.layers.1.fc1.weight"]
        );
    }
}
