//! Reading and writing a model folder: `config.json`, `model.safetensors`,
//! `src_tokenizer.json`, `tgt_tokenizer.json` (native only).

use std::path::Path;

use crate::error::{Error, Result};
use crate::session::ModelFiles;

/// The four files of a model folder, read into memory.
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

/// Names of the files, in the order of [`ModelFolder`]'s fields.
pub const FILES: [&str; 4] = [
    "config.json",
    "model.safetensors",
    "src_tokenizer.json",
    "tgt_tokenizer.json",
];

fn read(dir: &Path, name: &str) -> Result<Vec<u8>> {
    let path = dir.join(name);
    std::fs::read(&path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Write one file, creating the folder.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let io = |e: std::io::Error| Error::Io {
        path: dir.join(name).display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    std::fs::write(dir.join(name), bytes).map_err(io)
}

impl ModelFolder {
    /// Read the four files.
    pub fn read(dir: &Path) -> Result<Self> {
        Ok(Self {
            config: read(dir, FILES[0])?,
            weights: read(dir, FILES[1])?,
            src_tokenizer: read(dir, FILES[2])?,
            tgt_tokenizer: read(dir, FILES[3])?,
        })
    }

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
