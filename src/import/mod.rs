//! `attnscope import marian HF_DIR --out DIR`: a Hugging Face MarianMT folder (the
//! `Helsinki-NLP/opus-mt-*` models) as an attnscope model folder.
//!
//! - **Config**: post-norm, biases on the attention projections, the checkpoint's activation,
//!   Marian's sines-first positional table, √d_model embedding scale when `scale_embedding`,
//!   separate encoder and decoder head counts and widths, `<pad>` as the decoder's start token.
//! - **Weights**: renamed to attnscope's layout (table in [`marian_name`]); the output
//!   projection is tied to the target embedding unless the checkpoint has its own `lm_head`;
//!   `final_logits_bias` becomes the projection's bias.
//! - **Tokenizers**: each side's SentencePiece model (`source.spm`, `target.spm`) becomes a
//!   Unigram `tokenizer.json` over the *joint* `vocab.json`, so that ids are Marian's ids; the
//!   normalization comes from the `.spm` file (its compiled character map). What `tokenizers`
//!   JSON cannot say, [`TokenizerRules::Marian`] does.

use std::collections::HashMap;
use std::path::Path;

use safetensors::{Dtype, SafeTensors};
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::files::folder::{read_file, ModelFolder};
use crate::files::weights::{expected_tensors, serialize, HostTensor};
use crate::model::config::{Activation, ModelConfig, PositionalLayout, TokenizerRules};
use crate::text::spm::{PieceType, SentencePieceModel, UNIGRAM};
use crate::text::{tokenizer_document, OUTSIDE_MODEL};

/// Choices the checkpoint does not make.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The model's name on the page (default: the folder's name).
    pub name: Option<String>,
    /// Store the weights as F16 (half the size; attention moves by ~1e-3).
    pub half: bool,
    /// The example the page starts with (default: the running example, after the first
    /// `>>lang<<` code when the model has them).
    pub example: Option<String>,
}

/// An imported model: its folder's four files, ready to load or write.
#[derive(Clone, Debug)]
pub struct Imported {
    /// attnscope's config (also in `folder.config` as JSON).
    pub config: ModelConfig,
    /// The model folder's files.
    pub folder: ModelFolder,
    /// What the import noticed (printed by the CLI).
    pub notes: Vec<String>,
}

fn fail(message: impl Into<String>) -> Error {
    Error::Import(message.into())
}

fn read(dir: &Path, name: &str) -> Result<Vec<u8>> {
    read_file(&dir.join(name))
}

fn read_json(dir: &Path, name: &str) -> Result<Value> {
    serde_json::from_slice(&read(dir, name)?).map_err(|e| fail(format!("{name}: {e}")))
}

/// The HF config's fields, with `MarianConfig`'s defaults where it has them.
struct HfConfig(Value);

impl HfConfig {
    fn size(&self, field: &str) -> Result<usize> {
        self.0
            .get(field)
            .and_then(Value::as_u64)
            .map(|v| v as usize)
            .ok_or_else(|| fail(format!("config.json has no number `{field}`")))
    }

    fn flag(&self, field: &str, default: bool) -> bool {
        self.0
            .get(field)
            .and_then(Value::as_bool)
            .unwrap_or(default)
    }
}

/// Convert the MarianMT folder `dir`.
pub fn marian(dir: &Path, options: &ImportOptions) -> Result<Imported> {
    let hf = HfConfig(read_json(dir, "config.json")?);
    let mut notes = vec![];
    if let Some(kind) = hf.0.get("model_type").and_then(Value::as_str) {
        if kind != "marian" {
            return Err(fail(format!(
                "config.json says model_type {kind:?}; this imports \"marian\""
            )));
        }
    }
    if dir.join("target_vocab.json").exists() || hf.flag("separate_vocabs", false) {
        return Err(fail(
            "separate source and target vocabularies (target_vocab.json) are not supported",
        ));
    }
    let vocab_size = hf.size("vocab_size")?;
    if let Some(decoder_vocab) = hf.0.get("decoder_vocab_size").and_then(Value::as_u64) {
        if decoder_vocab as usize != vocab_size {
            return Err(fail(
                "a decoder_vocab_size unlike vocab_size is not supported",
            ));
        }
    }
    if hf.flag("normalize_before", false) || hf.flag("add_final_layer_norm", false) {
        return Err(fail(
            "pre-norm Marian checkpoints (normalize_before) are not supported",
        ));
    }
    let activation = match hf.0.get("activation_function").and_then(Value::as_str) {
        Some("swish" | "silu") => Activation::Swish,
        Some("gelu") | None => Activation::Gelu,
        Some("relu") => Activation::Relu,
        Some(other) => {
            return Err(fail(format!(
                "activation_function {other:?} is not supported (swish, gelu, relu)"
            )))
        }
    };

    // The joint vocabulary, in id order.
    let vocab_json = read_json(dir, "vocab.json")?;
    let map = vocab_json
        .as_object()
        .ok_or_else(|| fail("vocab.json is not an object"))?;
    let mut vocab = vec![String::new(); map.len()];
    for (piece, id) in map {
        let slot = id
            .as_u64()
            .and_then(|id| vocab.get_mut(id as usize))
            .ok_or_else(|| {
                fail(format!(
                    "vocab.json: {piece:?} has id {id}, outside 0..{}",
                    map.len()
                ))
            })?;
        if !slot.is_empty() {
            return Err(fail(format!("vocab.json: id {id} is given twice")));
        }
        *slot = piece.clone();
    }
    if vocab.len() != vocab_size {
        return Err(fail(format!(
            "vocab.json has {} entries, config.json's vocab_size is {vocab_size}",
            vocab.len()
        )));
    }
    let id_of = |piece: &str| -> Result<u32> {
        map.get(piece)
            .and_then(Value::as_u64)
            .map(|id| id as u32)
            .ok_or_else(|| fail(format!("vocab.json has no {piece}")))
    };
    let unk_id = id_of("<unk>")?;
    let pad_id = hf.size("pad_token_id")? as u32;
    let eos_id = hf.size("eos_token_id")? as u32;
    let start_id =
        hf.0.get("decoder_start_token_id")
            .and_then(Value::as_u64)
            .map_or(pad_id, |id| id as u32);
    for (what, id, piece) in [("pad", pad_id, "<pad>"), ("eos", eos_id, "</s>")] {
        if vocab.get(id as usize).map(String::as_str) != Some(piece) {
            return Err(fail(format!(
                "{what}_token_id {id} is not {piece} in vocab.json"
            )));
        }
    }
    if start_id != pad_id {
        return Err(fail(format!(
            "decoder_start_token_id {start_id} is not <pad> ({pad_id}); Marian starts from <pad>"
        )));
    }

    let mut tokenizer = |file: &str| -> Result<String> {
        let spm = SentencePieceModel::from_bytes(&read(dir, file)?, file)?;
        let (json, missing) = tokenizer_json(&spm, &vocab, unk_id, file)?;
        if missing > 0 {
            notes.push(format!(
                "{file}: {missing} pieces are not in vocab.json; MarianTokenizer turns them into <unk>, here they are left out of the segmentation"
            ));
        }
        Ok(json)
    };
    let src_tokenizer = tokenizer("source.spm")?;
    let tgt_tokenizer = tokenizer("target.spm")?;

    let (encoder_heads, decoder_heads) = (
        hf.size("encoder_attention_heads")?,
        hf.size("decoder_attention_heads")?,
    );
    let (encoder_ff, decoder_ff) = (hf.size("encoder_ffn_dim")?, hf.size("decoder_ffn_dim")?);
    let tie = hf.flag("tie_word_embeddings", true);
    let name = options
        .name
        .clone()
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "marian".into());
    let first_code = vocab
        .iter()
        .find(|p| p.starts_with(">>") && p.ends_with("<<"));
    let example = options.example.clone().unwrap_or_else(|| match first_code {
        Some(code) => format!("{code} I love eating apples."),
        None => "I love eating apples.".into(),
    });
    let config = ModelConfig {
        name,
        description: "Imported MarianMT checkpoint (Hugging Face transformers)".into(),
        d_model: hf.size("d_model")?,
        n_heads: encoder_heads,
        n_encoder_layers: hf.size("encoder_layers")?,
        n_decoder_layers: hf.size("decoder_layers")?,
        d_ff: encoder_ff,
        max_len: hf.size("max_position_embeddings")?,
        norm_first: false,
        src_vocab_size: vocab_size,
        tgt_vocab_size: vocab_size,
        layer_norm_eps: 1e-5,
        embed_scale: hf.flag("scale_embedding", false),
        dropout: 0.1,
        mask_value: -1e9,
        pad_id,
        unk_id,
        bos_id: pad_id,
        eos_id,
        tgt_joiner: String::new(),
        src_joiner: String::new(),
        example,
        attention_bias: true,
        activation,
        tie_output: tie,
        positional_layout: PositionalLayout::Split,
        n_decoder_heads: (decoder_heads != encoder_heads).then_some(decoder_heads),
        d_ff_decoder: (decoder_ff != encoder_ff).then_some(decoder_ff),
        tokenizer_rules: TokenizerRules::Marian,
    };
    config.validate()?;
    let weights = convert_weights(&config, &read(dir, "model.safetensors")?, options.half)?;
    Ok(Imported {
        folder: ModelFolder {
            config: config.to_json()?.into_bytes(),
            weights,
            src_tokenizer: src_tokenizer.into_bytes(),
            tgt_tokenizer: tgt_tokenizer.into_bytes(),
        },
        config,
        notes,
    })
}

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

fn values(view: &safetensors::tensor::TensorView<'_>, name: &str) -> Result<Vec<f32>> {
    let bytes = view.data();
    Ok(match view.dtype() {
        Dtype::F32 => bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => bytes
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => bytes
            .chunks_exact(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        other => {
            return Err(fail(format!(
                "model.safetensors: {name} has dtype {other:?} (F32, F16, BF16)"
            )))
        }
    })
}

/// Rename and check every tensor; write attnscope's `model.safetensors`.
fn convert_weights(config: &ModelConfig, bytes: &[u8], half_precision: bool) -> Result<Vec<u8>> {
    let file =
        SafeTensors::deserialize(bytes).map_err(|e| fail(format!("model.safetensors: {e}")))?;
    let available: HashMap<String, _> = file.tensors().into_iter().collect();
    let mut out = vec![];
    for (name, shape) in expected_tensors(config) {
        let sources = marian_name(&name);
        let found = sources
            .iter()
            .find_map(|source| available.get(source).map(|view| (source, view)));
        let data = match found {
            Some((source, view)) => {
                let expected: usize = shape.iter().product();
                let data = values(view, source)?;
                if data.len() != expected {
                    return Err(fail(format!(
                        "model.safetensors: {source} has shape {:?}, {name} needs {shape:?}",
                        view.shape()
                    )));
                }
                if data.iter().any(|v| !v.is_finite()) {
                    return Err(fail(format!(
                        "model.safetensors: {source} holds NaN or infinite values"
                    )));
                }
                data
            }
            // Older checkpoints leave the logits bias out: it is then zero.
            None if name == "projection.bias" => vec![0.0; shape.iter().product()],
            None => {
                return Err(fail(format!(
                    "model.safetensors has none of {sources:?} (for {name}){}",
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

/// A SentencePiece unigram model over the joint vocabulary as a `tokenizer.json`; also the
/// number of the model's pieces that the vocabulary lacks.
///
/// Entry *i* is vocabulary id *i*. Pieces of this `.spm` keep their scores; every other entry
/// (the other side's pieces, `>>lang<<` codes, special tokens) starts with [`OUTSIDE_MODEL`], so
/// the segmentation never produces it, as SentencePiece would not.
pub fn tokenizer_json(
    spm: &SentencePieceModel,
    vocab: &[String],
    unk_id: u32,
    file: &str,
) -> Result<(String, usize)> {
    if spm.model_type != UNIGRAM {
        return Err(fail(format!(
            "{file}: model type {} is not unigram",
            spm.model_type
        )));
    }
    if spm.byte_fallback || spm.treat_whitespace_as_suffix || !spm.normalizer.escape_whitespaces {
        return Err(fail(format!(
            "{file}: byte fallback, whitespace as suffix and unescaped spaces are not supported"
        )));
    }
    let scores: HashMap<&str, f32> = spm
        .pieces
        .iter()
        .filter(|p| matches!(p.kind, PieceType::Normal | PieceType::UserDefined))
        .map(|p| (p.piece.as_str(), p.score))
        .collect();
    let in_vocab: std::collections::HashSet<&str> = vocab.iter().map(String::as_str).collect();
    let missing = scores.keys().filter(|p| !in_vocab.contains(*p)).count();
    let entries: Vec<Value> = vocab
        .iter()
        .map(|piece| match scores.get(piece.as_str()) {
            Some(score) => json!([piece, f64::from(*score)]),
            None => json!([format!("{OUTSIDE_MODEL}{piece}"), 0.0]),
        })
        .collect();
    let spec = &spm.normalizer;
    let mut normalizers = vec![];
    if !spec.precompiled_charsmap.is_empty() {
        normalizers.push(json!({
            "type": "Precompiled",
            "precompiled_charsmap": base64(&spec.precompiled_charsmap),
        }));
    } else if spec.name != "identity" && !spec.name.is_empty() {
        return Err(fail(format!(
            "{file}: normalization {:?} has no compiled character map",
            spec.name
        )));
    }
    if spec.remove_extra_whitespaces {
        // SentencePiece's: after the character map, drop leading and trailing spaces and
        // collapse runs (spaces only: a tab the map keeps stays a tab).
        for (pattern, content) in [("^ +", ""), (" +$", ""), (" {2,}", " ")] {
            normalizers.push(json!({
                "type": "Replace",
                "pattern": {"Regex": pattern},
                "content": content,
            }));
        }
    }
    let normalizer = match normalizers.len() {
        0 => Value::Null,
        _ => json!({"type": "Sequence", "normalizers": normalizers}),
    };
    let pre_tokenizer = json!({
        "type": "Metaspace",
        "replacement": "\u{2581}",
        "prepend_scheme": if spec.add_dummy_prefix { "always" } else { "never" },
        "split": false,
    });
    let model = json!({
        "type": "Unigram",
        "unk_id": unk_id,
        "vocab": entries,
        "byte_fallback": false,
    });
    let document = tokenizer_document(normalizer, pre_tokenizer, model);
    let text = serde_json::to_string(&document).map_err(|e| Error::Json(e.to_string()))?;
    Ok((text, missing))
}

/// Standard base64 with padding (what `tokenizers` reads a compiled character map as).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

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
