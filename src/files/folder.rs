//! A model folder: its file names (written here once), reading it from disk (native), and
//! loading it — every file validated — into a model on a device.

use std::collections::BTreeMap;

use burn::tensor::Device;

use crate::error::{Error, Result};
use crate::files::packed_load::{half_tiles, load_packed};
use crate::files::stream::RawTensor;
use crate::files::weights::{load_model, positional_table};
use crate::model::config::ModelConfig;
use crate::model::packed::PackedWeights;
use crate::model::positional::PositionalTable;
use crate::model::Transformer;
use crate::text::TextTokenizer;

/// The name of each file of a model folder. Everything else (the CLI, the page's worker through
/// the wasm module, the tests) takes the names from here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileNames {
    /// The hyper-parameters.
    pub config: &'static str,
    /// The weights.
    pub weights: &'static str,
    /// The source tokenizer (HF `tokenizers` JSON).
    pub src_tokenizer: &'static str,
    /// The target tokenizer.
    pub tgt_tokenizer: &'static str,
}

/// The file names of a model folder.
pub const FILE_NAMES: FileNames = FileNames {
    config: "config.json",
    weights: "model.safetensors",
    src_tokenizer: "src_tokenizer.json",
    tgt_tokenizer: "tgt_tokenizer.json",
};

/// The files of a model folder, as bytes.
#[derive(Clone, Copy, Debug)]
pub struct ModelFiles<'a> {
    /// `config.json`.
    pub config: &'a [u8],
    /// `model.safetensors`.
    pub weights: &'a [u8],
    /// `src_tokenizer.json`.
    pub src_tokenizer: &'a [u8],
    /// `tgt_tokenizer.json`.
    pub tgt_tokenizer: &'a [u8],
}

/// A loaded model ready to run.
#[derive(Clone, Debug)]
pub struct LoadedModel {
    /// Hyper-parameters.
    pub config: ModelConfig,
    /// Weights on the device.
    pub model: Transformer,
    /// The positional-encoding table the model adds to its embeddings.
    pub positional: PositionalTable,
    /// Source tokenizer.
    pub src_tokenizer: TextTokenizer,
    /// Target tokenizer.
    pub tgt_tokenizer: TextTokenizer,
}

impl LoadedModel {
    /// The source ids of `text` as the page decodes them: tokenized, cut to fit `max_len`
    /// ([`ModelConfig::fit_source`]), ending with `</s>`.
    pub fn source_ids(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self
            .config
            .fit_source(&self.src_tokenizer.encode(text)?.ids)
            .ids)
    }

    /// Validate and load every file; any problem is a typed error, never a panic.
    pub fn load(files: ModelFiles<'_>, device: &Device) -> Result<Self> {
        let (config, src_tokenizer, tgt_tokenizer) =
            read_texts([files.config, files.src_tokenizer, files.tgt_tokenizer])?;
        let positional = positional_table(&config, files.weights)?;
        let model = load_model(&config, &positional, files.weights, device)?;
        Ok(Self {
            config,
            model,
            positional,
            src_tokenizer,
            tgt_tokenizer,
        })
    }

    /// [`Self::load`] from a streamed weights file's tensors, straight into packed weights,
    /// each tensor freed once used (`packed_load`): how the CPU of a wasm module loads. `half`:
    /// F16 tiles for an F16 file's projections, or (`None`) where the model is big
    /// ([`half_tiles`]).
    pub fn load_packed(
        texts: [&[u8]; 3],
        tensors: BTreeMap<String, RawTensor>,
        device: &Device,
        half: Option<bool>,
    ) -> Result<(Self, PackedWeights)> {
        let (config, src_tokenizer, tgt_tokenizer) = read_texts(texts)?;
        let half = half.unwrap_or_else(|| half_tiles(&config));
        let (positional, model, packed) = load_packed(&config, tensors, device, half)?;
        let loaded = Self {
            config,
            model,
            positional,
            src_tokenizer,
            tgt_tokenizer,
        };
        Ok((loaded, packed))
    }
}

/// The config and the two tokenizers (`config.json`, source and target tokenizers' bytes),
/// each checked, and checked against each other.
fn read_texts(
    [config, src_tokenizer, tgt_tokenizer]: [&[u8]; 3],
) -> Result<(ModelConfig, TextTokenizer, TextTokenizer)> {
    let text = std::str::from_utf8(config).map_err(|e| Error::NotUtf8 {
        file: FILE_NAMES.config,
        message: e.to_string(),
    })?;
    let config = ModelConfig::from_json(text)?;
    let src_tokenizer = TextTokenizer::from_bytes_with(
        src_tokenizer,
        FILE_NAMES.src_tokenizer,
        config.special_ids(),
        config.tokenizer_rules,
    )?;
    let tgt_tokenizer = TextTokenizer::from_bytes_with(
        tgt_tokenizer,
        FILE_NAMES.tgt_tokenizer,
        config.special_ids(),
        config.tokenizer_rules,
    )?;
    for (side, tokenizer, size) in [
        ("source", &src_tokenizer, config.src_vocab_size),
        ("target", &tgt_tokenizer, config.tgt_vocab_size),
    ] {
        if tokenizer.vocab_size() != size {
            return Err(Error::TokenizerMismatch(format!(
                "the {side} tokenizer has {} tokens, {} says {size}",
                tokenizer.vocab_size(),
                FILE_NAMES.config
            )));
        }
    }
    Ok((config, src_tokenizer, tgt_tokenizer))
}

/// The four files of a model folder, in memory (read from disk natively, or made by an import).
#[derive(Clone, Debug)]
pub struct ModelFolder {
    /// `config.json`.
    pub config: Vec<u8>,
    /// `model.safetensors`.
    pub weights: Vec<u8>,
    /// `src_tokenizer.json`.
    pub src_tokenizer: Vec<u8>,
    /// `tgt_tokenizer.json`.
    pub tgt_tokenizer: Vec<u8>,
}

#[cfg(not(target_arch = "wasm32"))]
fn io_error(path: &std::path::Path, error: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

/// Read one file (native only); a failure names the path.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| io_error(path, e))
}

/// Write one file (`name` may hold a subfolder), creating its folder (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    let parent = path.parent().unwrap_or(dir);
    std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
    std::fs::write(&path, bytes).map_err(|e| io_error(&path, e))
}

#[cfg(not(target_arch = "wasm32"))]
impl ModelFolder {
    /// Read the four files (native only).
    pub fn read(dir: &std::path::Path) -> Result<Self> {
        let read = |name: &str| read_file(&dir.join(name));
        Ok(Self {
            config: read(FILE_NAMES.config)?,
            weights: read(FILE_NAMES.weights)?,
            src_tokenizer: read(FILE_NAMES.src_tokenizer)?,
            tgt_tokenizer: read(FILE_NAMES.tgt_tokenizer)?,
        })
    }

    /// Write the four files into `dir` (native only).
    pub fn write(&self, dir: &std::path::Path) -> Result<()> {
        write(dir, FILE_NAMES.config, &self.config)?;
        write(dir, FILE_NAMES.weights, &self.weights)?;
        write(dir, FILE_NAMES.src_tokenizer, &self.src_tokenizer)?;
        write(dir, FILE_NAMES.tgt_tokenizer, &self.tgt_tokenizer)
    }
}

impl ModelFolder {
    /// Borrow as [`ModelFiles`].
    pub fn files(&self) -> ModelFiles<'_> {
        ModelFiles {
            config: &self.config,
            weights: &self.weights,
            src_tokenizer: &self.src_tokenizer,
            tgt_tokenizer: &self.tgt_tokenizer,
        }
    }
}
