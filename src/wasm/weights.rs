//! A model's weights file streamed into the module in chunks, so that a big model's bytes are
//! never whole in JS and in wasm at once (and in wasm, never whole: a tensor at a time), and the check that refuses a model too big for the
//! module before anything is allocated ([`crate::files::memory`]).

use wasm_bindgen::prelude::*;

use super::js_error;
use crate::error::Error;
use std::collections::BTreeMap;

use crate::files::memory::{check_fits, WASM32_BYTES};
use crate::files::stream::{RawTensor, WeightsStream};
use crate::model::config::ModelConfig;

/// A weights file, filled chunk by chunk to the size announced when it was made, and split into
/// its tensors as they arrive ([`WeightsStream`]): `Session.createCpu` frees each one as it is
/// used, so the module never holds the whole file beside the model it becomes.
#[wasm_bindgen]
pub struct WeightsFile {
    stream: WeightsStream,
}

#[wasm_bindgen]
impl WeightsFile {
    /// An empty file that will hold `size` bytes (that much memory is reserved and given back
    /// now, so that a file the module cannot hold is refused before any chunk is read).
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> Result<WeightsFile, JsError> {
        let size = size as usize;
        let mut room: Vec<u8> = Vec::new();
        room.try_reserve_exact(size).map_err(|_| {
            js_error(Error::Usage(format!(
                "cannot reserve {} MB for the weights file",
                size.div_ceil(1_000_000)
            )))
        })?;
        drop(room);
        Ok(WeightsFile {
            stream: WeightsStream::new(size),
        })
    }

    /// The file made of one buffer that is already whole (a shipped model's cached file).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8]) -> Result<WeightsFile, JsError> {
        let stream = WeightsStream::from_bytes(bytes).map_err(js_error)?;
        Ok(WeightsFile { stream })
    }

    /// Append the next chunk; more than the announced size, or a header that is not a
    /// safetensors file's, is refused.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        self.stream.push(chunk).map_err(js_error)
    }

    /// The bytes read so far.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.stream.received() as f64
    }
}

impl WeightsFile {
    /// The file's tensors, taken (the file is empty afterwards); an error if it is not whole.
    pub(crate) fn take_tensors(&mut self) -> Result<BTreeMap<String, RawTensor>, Error> {
        std::mem::take(&mut self.stream).finish()
    }
}

/// Refuse a model whose config (`config.json`'s bytes) and weights file size (`weights_bytes`)
/// need more memory than the module can address (`error.tooBig`, with the sizes), before
/// anything is read; `copies`: more F32 copies held beside (1 for an import).
#[wasm_bindgen(js_name = checkModelSize)]
pub fn check_model_size(config: &[u8], weights_bytes: f64, copies: u32) -> Result<(), JsError> {
    let text = std::str::from_utf8(config).map_err(|e| {
        js_error(Error::NotUtf8 {
            file: "config.json",
            message: e.to_string(),
        })
    })?;
    let config = ModelConfig::from_json(text).map_err(js_error)?;
    check_fits(
        &config,
        weights_bytes as u64,
        u64::from(copies),
        WASM32_BYTES,
    )
    .map_err(js_error)
}
