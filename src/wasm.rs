//! The browser boundary: one exported type, `Session` (`session`: a thin wrapper over
//! [`crate::session::Session`]); the facts the page must not keep its own copy of (`facts`:
//! file names, the attention kinds, the decodings, the widest beam, the default focus); the
//! backend policy (`backend`); weights streamed into the module (`weights`) and a Hugging Face
//! folder converted (`import`); with the `train` feature, the playground's trainer
//! (`playground`). This file holds what they all use: the start function, and how
//! errors and values cross.
//!
//! Every answer is the same [`crate::session::Answer`] that `attnscope trace --json` prints,
//! serialised once; flat vectors cross as one typed array's bytes each (see
//! [`crate::trace::Floats`]). Every error is the crate's [`Error`] as a `JsError`, with its
//! message key and params. On WebGPU nothing is read synchronously: the session only uses
//! `into_data_async`.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::error::Error;

mod backend;
mod facts;
mod import;
#[cfg(feature = "train")]
mod playground;
mod session;
mod weights;

pub use backend::{backends, choose_backend, BACKENDS};
pub use facts::{
    attention_kinds, decodings, default_focus, marian_file_names, max_beam_width, model_file_names,
    DECODINGS,
};
pub use session::WebSession;
pub use weights::{check_model_size, WeightsFile};

// The static constructors that wasm-ld gathers into `__wasm_call_ctors` (cubecl registers its IR
// dialect this way). Without an explicit call, wasm-ld treats the module as a "command" and wraps
// *every* export in a call to them, so each call into the module would pay for them again (see
// wasm-bindgen #4446).
#[allow(unsafe_code)]
pub(crate) mod constructors {
    use std::sync::Once;

    unsafe extern "C" {
        fn __wasm_call_ctors();
    }

    static DONE: Once = Once::new();

    /// Run the static constructors, at most once per instance.
    pub(crate) fn run_once() {
        // SAFETY: `__wasm_call_ctors` is synthesized by wasm-ld and only runs the module's static
        // initializers; `Once` guarantees a single run even though both the start function and
        // `Session::create` (the entry point when a test harness owns the start) call this.
        DONE.call_once(|| unsafe { __wasm_call_ctors() });
    }
}

/// Run the static constructors once and install the panic hook, so a Rust panic reaches the
/// console with its message.
#[wasm_bindgen(start)]
pub fn start() {
    constructors::run_once();
    console_error_panic_hook::set_once();
}

/// The crate's error as a `JsError`: its message is the English text, and it carries `key` (the
/// message key, `error.…`) and `params` (a plain object of strings) for the page to translate.
pub(crate) fn js_error(error: Error) -> JsError {
    keyed_error(&error.to_string(), error.key(), error.params())
}

/// A `JsError` with `message` (English), `key` (the message key) and `params` (its values).
pub(crate) fn keyed_error(
    message: &str,
    key: &str,
    params: Vec<(&'static str, String)>,
) -> JsError {
    let js = JsError::new(message);
    // A clone is another handle to the same JS `Error` object.
    let value: JsValue = js.clone().into();
    let object = js_sys::Object::new();
    for (name, text) in params {
        // `Reflect::set` only fails on a frozen object or a throwing setter; these are fresh
        // plain objects, and the English message is still there if it did.
        let _ = js_sys::Reflect::set(&object, &name.into(), &text.into());
    }
    let _ = js_sys::Reflect::set(&value, &"key".into(), &key.into());
    let _ = js_sys::Reflect::set(&value, &"params".into(), &object);
    js
}

/// A value as a JS value (maps as plain objects, `None` as `null`).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    // `null` for a missing value, as in the JSON the CLI prints.
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true);
    value
        .serialize(&serializer)
        .map_err(|e| js_error(Error::Json(serde::ser::Error::custom(e))))
}
