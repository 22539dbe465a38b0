//! `importMarian`: a Hugging Face MarianMT folder, as the person opened it in the page, made
//! into attnscope's four model files by the same importer as `attnscope import marian`
//! ([`crate::import`]). The worker hands over the files it read; nothing is written anywhere.

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use super::js_error;
use crate::files::memory::{check_fits, WASM32_BYTES};
use crate::import::{marian, marian_config, CheckpointFiles, ImportOptions};

/// The folder's files as the importer reads them.
fn checkpoint(
    folder: Option<String>,
    names: Vec<String>,
    files: Vec<Uint8Array>,
) -> CheckpointFiles {
    let mut checkpoint = CheckpointFiles {
        folder,
        ..CheckpointFiles::default()
    };
    for (name, bytes) in names.into_iter().zip(files) {
        checkpoint.files.insert(name, bytes.to_vec());
    }
    checkpoint
}

/// Refuse a MarianMT folder too big for the module (`error.tooBig`) from its small files
/// (`config.json`, `vocab.json`, `generation_config.json`) and its weights file's size, before
/// the weights are read: the import holds the checkpoint's file, every parameter as F32 and the
/// converted file at once.
#[wasm_bindgen(js_name = checkMarianSize)]
pub fn check_marian_size(
    names: Vec<String>,
    files: Vec<Uint8Array>,
    weights_bytes: f64,
) -> Result<(), JsError> {
    let files = checkpoint(None, names, files);
    let config = marian_config(&files, &ImportOptions::default()).map_err(js_error)?;
    check_fits(&config, weights_bytes as u64, 1, WASM32_BYTES).map_err(js_error)
}

/// Convert the folder `folder` (its name, or undefined for loose files) whose files are
/// `names[i]` ↔ `files[i]`. Answers `{ config, weights, srcTokenizer, tgtTokenizer }` (bytes,
/// as `Session.create` takes them; the worker streams the weights into a `WeightsFile` for
/// `Session.createCpu`) and `notes` (what the import did not apply, in English).
#[wasm_bindgen(js_name = importMarian)]
pub fn import_marian(
    folder: Option<String>,
    names: Vec<String>,
    files: Vec<Uint8Array>,
) -> Result<JsValue, JsError> {
    super::constructors::run_once();
    let checkpoint = checkpoint(folder, names, files);
    let imported = marian(&checkpoint, &ImportOptions::default()).map_err(js_error)?;
    // The checkpoint's bytes go before the model's are copied out.
    drop(checkpoint);
    let out = Object::new();
    let folder = imported.folder;
    // The converted file goes to JS whole: the worker keeps it there (a snapshot replay or a
    // WebGPU session reads it again) and streams it into a `WeightsFile` for the CPU session.
    let weights = JsValue::from(Uint8Array::from(&folder.weights[..]));
    let set = |key: &str, value: &JsValue| Reflect::set(&out, &key.into(), value).map(|_| ());
    let bytes = |data: &[u8]| JsValue::from(Uint8Array::from(data));
    let written = set("config", &bytes(&folder.config))
        .and_then(|()| set("weights", &weights))
        .and_then(|()| set("srcTokenizer", &bytes(&folder.src_tokenizer)))
        .and_then(|()| set("tgtTokenizer", &bytes(&folder.tgt_tokenizer)))
        .and_then(|()| {
            let notes: Array = imported
                .notes
                .iter()
                .map(|n| JsValue::from(n.as_str()))
                .collect();
            set("notes", &notes.into())
        });
    written.map_err(|_| JsError::new("could not build the imported model's files"))?;
    Ok(out.into())
}
