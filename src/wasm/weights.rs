//! A model's weights file streamed into the module in chunks, so that a big model's bytes are
//! never whole in JS and in wasm at once, and the check that refuses a model too big for the
//! module before anything is allocated ([`crate::files::memory`]).

use wasm_bindgen::prelude::*;

use super::js_error;
use crate::error::Error;
use crate::files::memory::{check_fits, WASM32_BYTES};
use crate::model::config::ModelConfig;

/// A weights file, filled chunk by chunk to the size announced when it was made.
#[wasm_bindgen]
pub struct WeightsFile {
    bytes: Vec<u8>,
    size: usize,
}

#[wasm_bindgen]
impl WeightsFile {
    /// An empty file that will hold `size` bytes (reserved now, so that a file the module
    /// cannot hold is refused before any chunk is read).
    #[wasm_bindgen(constructor)]
    pub fn new(size: f64) -> Result<WeightsFile, JsError> {
        let size = size as usize;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(size).map_err(|_| {
            js_error(Error::Usage(format!(
                "cannot reserve {} MB for the weights file",
                size.div_ceil(1_000_000)
            )))
        })?;
        Ok(WeightsFile { bytes, size })
    }

    /// The file made of one buffer that is already whole (a shipped model's cached file).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: Vec<u8>) -> WeightsFile {
        let size = bytes.len();
        WeightsFile { bytes, size }
    }

    /// Append the next chunk; more than the announced size is refused.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        if self.bytes.len() + chunk.len() > self.size {
            return Err(js_error(Error::Usage(format!(
                "the weights file grew past its announced {} bytes",
                self.size
            ))));
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    /// The bytes read so far.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.bytes.len() as f64
    }

    /// The bytes, moved out of the module (it keeps none): once the CPU session is made from
    /// them, a file that JS cannot read again (an imported Hugging Face folder's) goes to JS,
    /// for a snapshot replay or a WebGPU session, so that the module's memory holds no copy.
    pub fn take(&mut self) -> Vec<u8> {
        self.size = 0;
        std::mem::take(&mut self.bytes)
    }
}

impl WeightsFile {
    /// The bytes, for loading.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes
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
