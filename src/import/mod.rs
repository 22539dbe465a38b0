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

mod generation;
mod marian;
mod tokenizer;
mod torch;
mod weights;

pub use generation::generation;
pub use marian::{marian, marian_config};
pub use tokenizer::spm_tokenizer_json;
pub use torch::{read_state_dict, TorchDtype, TorchError, TorchTensor};
pub use weights::marian_name;

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::files::folder::ModelFolder;
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
    /// What the import noticed (printed by the CLI, shown by the page).
    pub notes: Vec<String>,
}

/// The files of a checkpoint folder, wherever they are: on disk for the CLI
/// ([`CheckpointDir`]), in memory for the page's worker ([`CheckpointFiles`]).
pub trait Checkpoint {
    /// The folder's name, when it has one (the model's default name).
    fn folder_name(&self) -> Option<String>;
    /// Whether the folder has this file.
    fn has(&self, name: &str) -> bool;
    /// A file's bytes; a missing file is an error naming it.
    fn read(&self, name: &str) -> Result<Cow<'_, [u8]>>;
}

/// A checkpoint folder on disk (native only).
#[cfg(not(target_arch = "wasm32"))]
pub struct CheckpointDir<'a>(pub &'a std::path::Path);

#[cfg(not(target_arch = "wasm32"))]
impl Checkpoint for CheckpointDir<'_> {
    fn folder_name(&self) -> Option<String> {
        self.0.file_name().map(|n| n.to_string_lossy().into_owned())
    }

    fn has(&self, name: &str) -> bool {
        self.0.join(name).is_file()
    }

    fn read(&self, name: &str) -> Result<Cow<'_, [u8]>> {
        crate::files::folder::read_file(&self.0.join(name)).map(Cow::Owned)
    }
}

/// A checkpoint folder's files in memory, by file name (what the page's worker read).
#[derive(Default)]
pub struct CheckpointFiles {
    /// The folder's name, if the files came in one.
    pub folder: Option<String>,
    /// Each file's bytes, by its name (without the folder).
    pub files: HashMap<String, Vec<u8>>,
}

impl Checkpoint for CheckpointFiles {
    fn folder_name(&self) -> Option<String> {
        self.folder.clone()
    }

    fn has(&self, name: &str) -> bool {
        self.files.contains_key(name)
    }

    fn read(&self, name: &str) -> Result<Cow<'_, [u8]>> {
        self.files
            .get(name)
            .map(|bytes| Cow::Borrowed(bytes.as_slice()))
            .ok_or_else(|| fail(format!("the folder has no {name}")))
    }
}

/// The files a Hugging Face MarianMT folder must have, and those it may have, as the page
/// picks them from what a person opened. The weights are one of [`WEIGHT_FILES`].
pub const REQUIRED_FILES: [&str; 4] = ["config.json", "source.spm", "target.spm", "vocab.json"];
/// Optional files the import reads when they are there.
pub const OPTIONAL_FILES: [&str; 2] = ["generation_config.json", "tokenizer_config.json"];
/// The weights, in the order they are preferred.
pub const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];

/// An import error.
fn fail(message: impl Into<String>) -> Error {
    Error::Import(message.into())
}

/// A JSON file of the checkpoint folder.
fn read_json(files: &dyn Checkpoint, name: &str) -> Result<Value> {
    serde_json::from_slice(&files.read(name)?).map_err(|e| fail(format!("{name}: {e}")))
}
