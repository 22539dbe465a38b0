//! The backend policy, decided here and nowhere else, and the WebGPU device.

use std::collections::BTreeMap;

use burn::tensor::Device;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{js_error, to_js};
use crate::error::Error;

#[cfg(feature = "webgpu")]
thread_local! {
    /// The WebGPU device: wgpu's runtime can be initialised once per page (or worker).
    static WEBGPU: std::cell::RefCell<Option<Device>> = const { std::cell::RefCell::new(None) };
}

/// The backend preferences a person can choose and [`choose_backend`] takes, in the order the
/// page lists them.
pub const BACKENDS: [&str; 3] = ["auto", "webgpu", "cpu"];

/// The backend preferences, `["auto", "webgpu", "cpu"]` ([`BACKENDS`]): the page's choices.
#[wasm_bindgen]
pub fn backends() -> Result<JsValue, JsError> {
    to_js(&BACKENDS)
}

/// Where the worker should run a model.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BackendChoice {
    /// `"webgpu"` or `"cpu"`.
    backend: &'static str,
    /// Why the choice differs from the preference (`null` when it does not).
    note: Option<Note>,
}

/// A note for the page as a message key of its catalogues and the values the message names:
/// `{key: "backend.webgpuUnavailable", params: {reason}}`.
#[derive(Serialize)]
struct Note {
    key: &'static str,
    params: BTreeMap<&'static str, String>,
}

impl Note {
    fn new(key: &'static str, params: &[(&'static str, String)]) -> Self {
        Self {
            key,
            params: params.iter().cloned().collect(),
        }
    }
}

/// The browser's WebGPU adapter, through web-sys's typed API; `Err` says why there is none.
async fn webgpu_adapter() -> Result<web_sys::GpuAdapter, String> {
    let global = js_sys::global();
    let gpu: web_sys::Gpu = if let Some(worker) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        worker.navigator().gpu()
    } else if let Some(window) = global.dyn_ref::<web_sys::Window>() {
        window.navigator().gpu()
    } else {
        return Err("no browser window or worker".into());
    };
    if JsValue::from(gpu.clone()).is_undefined() {
        return Err("this browser has no WebGPU (navigator.gpu is missing)".into());
    }
    let adapter = gpu
        .request_adapter()
        .await
        .map_err(|e| format!("the adapter request failed: {}", describe(&e)))?;
    adapter
        .into_option()
        .ok_or_else(|| "the browser offers no WebGPU adapter".into())
}

fn describe(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// The backend policy: `cpu` → the CPU; `webgpu` → WebGPU when the browser has any adapter;
/// `auto` → WebGPU only with a hardware adapter, since a software fallback adapter
/// (SwiftShader) emulates the GPU on the CPU and is slower than the CPU module.
/// Returns `{backend, note}`; `note` is `null` or `{key, params}` with `key` one of
/// `backend.webgpuNotAvailable` (`{reason}`, preference `webgpu`), `backend.webgpuUnavailable`
/// (`{reason}`, preference `auto`) and `backend.softwareFallback` (`{}`).
#[wasm_bindgen(js_name = chooseBackend)]
pub async fn choose_backend(preference: String) -> Result<JsValue, JsError> {
    let cpu = |note: Option<Note>| BackendChoice {
        backend: "cpu",
        note,
    };
    let choice = match preference.as_str() {
        "cpu" => cpu(None),
        "webgpu" | "auto" => match webgpu_adapter().await {
            Err(reason) if preference == "webgpu" => cpu(Some(Note::new(
                "backend.webgpuNotAvailable",
                &[("reason", reason)],
            ))),
            Err(reason) => cpu(Some(Note::new(
                "backend.webgpuUnavailable",
                &[("reason", reason)],
            ))),
            Ok(adapter) if preference == "auto" && adapter.info().is_fallback_adapter() => {
                cpu(Some(Note::new("backend.softwareFallback", &[])))
            }
            Ok(_) => BackendChoice {
                backend: "webgpu",
                note: None,
            },
        },
        other => {
            return Err(js_error(Error::Usage(format!(
                "unknown backend {other:?}: use webgpu, cpu or auto"
            ))))
        }
    };
    to_js(&choice)
}

#[cfg(feature = "webgpu")]
pub(super) async fn webgpu_device() -> Result<Device, Error> {
    if let Some(device) = WEBGPU.with(|cell| cell.borrow().clone()) {
        return Ok(device);
    }
    let device = Device::wgpu_options()
        .init_async()
        .await
        .map_err(|e| Error::WebGpuUnavailable(e.to_string()))?;
    WEBGPU.with(|cell| *cell.borrow_mut() = Some(device.clone()));
    Ok(device)
}

#[cfg(not(feature = "webgpu"))]
pub(super) async fn webgpu_device() -> Result<Device, Error> {
    Err(Error::WebGpuUnavailable(
        "this build has no WebGPU backend".into(),
    ))
}
