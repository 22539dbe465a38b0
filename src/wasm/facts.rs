//! What the page and the worker must agree on with the module, read from here rather than
//! kept in a copy of their own.

use wasm_bindgen::prelude::*;

use super::to_js;
use crate::files::folder::FILE_NAMES;
use crate::session::{Focus, MAX_BEAM_WIDTH};

/// The file names of a model folder: `{config, weights, srcTokenizer, tgtTokenizer}`.
#[wasm_bindgen(js_name = modelFileNames)]
pub fn model_file_names() -> Result<JsValue, JsError> {
    to_js(&FILE_NAMES)
}

/// The widest beam [`crate::session::Session::beam`] accepts ([`MAX_BEAM_WIDTH`]).
#[wasm_bindgen(js_name = maxBeamWidth)]
pub fn max_beam_width() -> u32 {
    MAX_BEAM_WIDTH as u32
}

/// The head the page looks at first, `{kind, layer, head}` ([`Focus::DEFAULT`]).
#[wasm_bindgen(js_name = defaultFocus)]
pub fn default_focus() -> Result<JsValue, JsError> {
    to_js(&Focus::DEFAULT)
}
