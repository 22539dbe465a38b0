//! The MarianMT checkpoint's config and joint vocabulary, checked, as attnscope's config.

use serde_json::Value;

use super::generation::generation;
use super::tokenizer::spm_tokenizer_json;
use super::weights::convert_weights;
use super::{fail, read_json, Checkpoint, ImportOptions, Imported};
use crate::error::Result;
use crate::files::folder::ModelFolder;
use crate::model::config::{Activation, ModelConfig, PositionalLayout, TokenizerRules};
use crate::model::generation::Generation;
use crate::model::positional::PositionalEncoding;
use crate::text::spm::SentencePieceModel;

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

/// The special-token ids, checked against the joint vocabulary.
#[derive(Clone, Copy)]
struct Specials {
    unk: u32,
    pad: u32,
    eos: u32,
}

/// attnscope's config for the MarianMT folder `files`, from its small files alone
/// (`config.json`, `vocab.json`, `generation_config.json`), with what the import notes: enough to
/// know the model's size before its weights are read. Also the joint vocabulary and the
/// special ids, for the rest of the import.
fn marian_setup(
    files: &dyn Checkpoint,
    options: &ImportOptions,
) -> Result<(ModelConfig, Vec<String>, Vec<String>, Specials)> {
    let hf = HfConfig(read_json(files, "config.json")?);
    let (vocab_size, activation) = supported(files, &hf)?;
    let vocab = joint_vocab(files, vocab_size)?;
    let ids = specials(&hf, &vocab)?;
    let mut notes = vec![];
    let mut config = config(files, &hf, options, &vocab, ids, activation)?;
    config.generation = generation(files, &hf.0, &config, &mut notes)?;
    config.validate()?;
    Ok((config, notes, vocab, ids))
}

/// attnscope's config for the MarianMT folder `files` (see [`marian_setup`]): the page checks
/// the model's size with it before reading the weights.
pub fn marian_config(files: &dyn Checkpoint, options: &ImportOptions) -> Result<ModelConfig> {
    marian_setup(files, options).map(|(config, ..)| config)
}

/// Convert the MarianMT folder `files`.
pub fn marian(files: &dyn Checkpoint, options: &ImportOptions) -> Result<Imported> {
    let (config, mut notes, vocab, ids) = marian_setup(files, options)?;
    let mut tokenizer = |file: &str| -> Result<String> {
        let spm = SentencePieceModel::from_bytes(&files.read(file)?, file)?;
        let (json, missing) = spm_tokenizer_json(&spm, &vocab, ids.unk, file)?;
        if missing > 0 {
            notes.push(format!(
                "{file}: {missing} pieces are not in vocab.json; MarianTokenizer turns them into <unk>, here they are left out of the segmentation"
            ));
        }
        Ok(json)
    };
    let src_tokenizer = tokenizer("source.spm")?;
    let tgt_tokenizer = tokenizer("target.spm")?;
    let weights = convert_weights(&config, files, options.half)?;
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

/// Refuse what attnscope cannot run; the vocabulary size and the activation.
fn supported(files: &dyn Checkpoint, hf: &HfConfig) -> Result<(usize, Activation)> {
    if let Some(kind) = hf.0.get("model_type").and_then(Value::as_str) {
        if kind != "marian" {
            return Err(fail(format!(
                "config.json says model_type {kind:?}; this imports \"marian\""
            )));
        }
    }
    if files.has("target_vocab.json") || hf.flag("separate_vocabs", false) {
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
    Ok((vocab_size, activation))
}

/// The joint vocabulary (`vocab.json`), in id order: every id from 0 to `vocab_size` once.
fn joint_vocab(files: &dyn Checkpoint, vocab_size: usize) -> Result<Vec<String>> {
    let vocab_json = read_json(files, "vocab.json")?;
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
    Ok(vocab)
}

/// `<unk>`, `<pad>` and `</s>`, where the config and the vocabulary agree on them; the decoder
/// must start from `<pad>`, as Marian's does.
fn specials(hf: &HfConfig, vocab: &[String]) -> Result<Specials> {
    let unk = vocab
        .iter()
        .position(|piece| piece == "<unk>")
        .map(|id| id as u32)
        .ok_or_else(|| fail("vocab.json has no <unk>"))?;
    let pad = hf.size("pad_token_id")? as u32;
    let eos = hf.size("eos_token_id")? as u32;
    let start =
        hf.0.get("decoder_start_token_id")
            .and_then(Value::as_u64)
            .map_or(pad, |id| id as u32);
    for (what, id, piece) in [("pad", pad, "<pad>"), ("eos", eos, "</s>")] {
        if vocab.get(id as usize).map(String::as_str) != Some(piece) {
            return Err(fail(format!(
                "{what}_token_id {id} is not {piece} in vocab.json"
            )));
        }
    }
    if start != pad {
        return Err(fail(format!(
            "decoder_start_token_id {start} is not <pad> ({pad}); Marian starts from <pad>"
        )));
    }
    Ok(Specials { unk, pad, eos })
}

/// attnscope's config for the checkpoint (post-norm, biased projections, sines-first table).
fn config(
    files: &dyn Checkpoint,
    hf: &HfConfig,
    options: &ImportOptions,
    vocab: &[String],
    ids: Specials,
    activation: Activation,
) -> Result<ModelConfig> {
    let (encoder_heads, decoder_heads) = (
        hf.size("encoder_attention_heads")?,
        hf.size("decoder_attention_heads")?,
    );
    let (encoder_ff, decoder_ff) = (hf.size("encoder_ffn_dim")?, hf.size("decoder_ffn_dim")?);
    let name = options
        .name
        .clone()
        .or_else(|| files.folder_name())
        .unwrap_or_else(|| "marian".into());
    let first_code = vocab
        .iter()
        .find(|p| p.starts_with(">>") && p.ends_with("<<"));
    let example = options.example.clone().unwrap_or_else(|| match first_code {
        Some(code) => format!("{code} I love eating apples."),
        None => "I love eating apples.".into(),
    });
    Ok(ModelConfig {
        name,
        description: "Imported MarianMT checkpoint (Hugging Face transformers)".into(),
        d_model: hf.size("d_model")?,
        n_heads: encoder_heads,
        n_encoder_layers: hf.size("encoder_layers")?,
        n_decoder_layers: hf.size("decoder_layers")?,
        d_ff: encoder_ff,
        max_len: hf.size("max_position_embeddings")?,
        norm_first: false,
        src_vocab_size: vocab.len(),
        tgt_vocab_size: vocab.len(),
        layer_norm_eps: 1e-5,
        embed_scale: hf.flag("scale_embedding", false),
        dropout: 0.1,
        mask_value: -1e9,
        pad_id: ids.pad,
        unk_id: ids.unk,
        bos_id: ids.pad,
        eos_id: ids.eos,
        tgt_joiner: String::new(),
        src_joiner: String::new(),
        example,
        attention_bias: true,
        activation,
        tie_output: hf.flag("tie_word_embeddings", true),
        positional_layout: PositionalLayout::Split,
        positional_encoding: PositionalEncoding::Sinusoidal,
        scaled_attention: true,
        causal_decoder: true,
        layer_norm: true,
        n_decoder_heads: (decoder_heads != encoder_heads).then_some(decoder_heads),
        d_ff_decoder: (decoder_ff != encoder_ff).then_some(decoder_ff),
        tokenizer_rules: TokenizerRules::Marian,
        generation: Generation::default(),
    })
}
