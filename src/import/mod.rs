//! `attnscope import marian HF_DIR --out DIR`: a Hugging Face MarianMT folder (the
//! `Helsinki-NLP/opus-mt-*` models) as an attnscope model folder.
//!
//! - **Config**: post-norm, biases on the attention projections, the checkpoint's activation,
//!   Marian's sines-first positional table, √d_model embedding scale when `scale_embedding`,
//!   separate encoder and decoder head counts and widths, `<pad>` as the decoder's start token.
//! - **Weights**: renamed to attnscope's layout (table in [`weights::marian_name`]); the output
//!   projection is tied to the target embedding unless the checkpoint has its own `lm_head`;
//!   `final_logits_bias` becomes the projection's bias.
//! - **Tokenizers**: each side's SentencePiece model (`source.spm`, `target.spm`) becomes a
//!   Unigram `tokenizer.json` over the *joint* `vocab.json`, so that ids are Marian's ids; the
//!   normalization comes from the `.spm` file (its compiled character map). What `tokenizers`
//!   JSON cannot say, [`TokenizerRules::Marian`] does.

mod marian;
mod tokenizer;
mod weights;

pub use marian::marian;
pub use tokenizer::spm_tokenizer_json;
pub use weights::marian_name;

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::files::folder::{read_file, ModelFolder};
use crate::model::config::ModelConfig;

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

/// An import error.
fn fail(message: impl Into<String>) -> Error {
    Error::Import(message.into())
}

/// A file of the checkpoint folder.
fn read(dir: &Path, name: &str) -> Result<Vec<u8>> {
    read_file(&dir.join(name))
}

/// A JSON file of the checkpoint folder.
fn read_json(dir: &Path, name: &str) -> Result<Value> {
    serde_json::from_slice(&read(dir, name)?).map_err(|e| fail(format!("{name}: {e}")))
}
