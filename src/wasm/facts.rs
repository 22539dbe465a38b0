//! What the page and the worker must agree on with the module, read from here rather than
//! kept in a copy of their own.

use wasm_bindgen::prelude::*;

use super::to_js;
use crate::files::folder::FILE_NAMES;
use crate::session::{Focus, MAX_BEAM_WIDTH};
use crate::trace::AttentionKind;

/// Greedy decoding: the most probable token each step ([`crate::session::sampling::Sampling`]).
pub const GREEDY: &str = "greedy";
/// Sampling with a temperature, top-k and a seed ([`crate::session::sampling::Sampling`]).
pub const SAMPLE: &str = "sample";
/// Beam search ([`crate::session::Session::beam`]).
pub const BEAM: &str = "beam";

/// The decodings the page offers, in the order it lists them: the two sampling modes
/// `Session.setSampling` takes, then beam search. The first is a link's default.
pub const DECODINGS: [&str; 3] = [GREEDY, SAMPLE, BEAM];

/// The file names of a model folder: `{config, weights, srcTokenizer, tgtTokenizer}`.
#[wasm_bindgen(js_name = modelFileNames)]
pub fn model_file_names() -> Result<JsValue, JsError> {
    to_js(&FILE_NAMES)
}

/// The decodings, `["greedy", "sample", "beam"]` ([`DECODINGS`]).
#[wasm_bindgen]
pub fn decodings() -> Result<JsValue, JsError> {
    to_js(&DECODINGS)
}

/// The kinds of attention, `["encoderSelf", "decoderSelf", "cross"]`: each [`AttentionKind`] by
/// the name its JSON gives it, in the order the page lists them.
#[wasm_bindgen(js_name = attentionKinds)]
pub fn attention_kinds() -> Result<JsValue, JsError> {
    to_js(&[
        AttentionKind::EncoderSelf,
        AttentionKind::DecoderSelf,
        AttentionKind::Cross,
    ])
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

/// The files of a Hugging Face MarianMT folder that `importMarian` reads: `{required,
/// optional, weights}` (weights: the accepted files, the first found is used).
#[wasm_bindgen(js_name = marianFileNames)]
pub fn marian_file_names() -> Result<JsValue, JsError> {
    use crate::import::{OPTIONAL_FILES, REQUIRED_FILES, WEIGHT_FILES};
    #[derive(serde::Serialize)]
    struct Names {
        required: [&'static str; 4],
        optional: [&'static str; 2],
        weights: [&'static str; 2],
    }
    to_js(&Names {
        required: REQUIRED_FILES,
        optional: OPTIONAL_FILES,
        weights: WEIGHT_FILES,
    })
}
