//! The browser boundary: one exported type, [`Visualizer`], a thin wrapper over [`Session`].
//!
//! Matrices cross as one `Float32Array` each plus small camelCase metadata; every error is a
//! `JsError` with the crate's message. On WebGPU nothing is read synchronously: the session only
//! uses `into_data_async`.

use burn::tensor::Device;
use js_sys::{Float32Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::positional::{relative_dot_products, sinusoidal_table};
use crate::sampling::Sampling;
use crate::session::{ModelFiles, Session, StepResult};
use crate::trace::{AttentionKind, AttentionStack, Pipeline, Step, Trace};

#[cfg(feature = "webgpu")]
thread_local! {
    /// The WebGPU device: wgpu's runtime can be initialised once per page (or worker).
    static WEBGPU: std::cell::RefCell<Option<Device>> = const { std::cell::RefCell::new(None) };
}

// The static constructors that wasm-ld gathers into `__wasm_call_ctors` (cubecl registers ~4,900
// IR dialect entries this way). Without an explicit call, wasm-ld treats the module as a
// "command" and wraps *every* export in a call to them: each call into the module then paid
// ~0.5 ms (a getter returning a string measured 0.66 ms; see wasm-bindgen #4446).
#[allow(unsafe_code)]
mod constructors {
    use std::sync::Once;

    unsafe extern "C" {
        fn __wasm_call_ctors();
    }

    static DONE: Once = Once::new();

    /// Run the static constructors, at most once per instance.
    pub(super) fn run_once() {
        // SAFETY: `__wasm_call_ctors` is synthesized by wasm-ld and only runs the module's static
        // initializers; `Once` guarantees a single run even though both the start function and
        // `Visualizer::create` (the entry point when a test harness owns the start) call this.
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

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value.serialize(&serializer).map_err(js_error)
}

fn set(target: &JsValue, key: &str, value: &JsValue) -> Result<(), JsError> {
    Reflect::set(target, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| JsError::new("cannot set a field on a result object"))
}

fn floats(values: &[f32]) -> JsValue {
    Float32Array::from(values).into()
}

/// `{layers, heads, queries, keys, data: Float32Array}`.
fn stack_js(stack: &AttentionStack) -> Result<JsValue, JsError> {
    let object: JsValue = Object::new().into();
    set(&object, "layers", &JsValue::from(stack.layers as u32))?;
    set(&object, "heads", &JsValue::from(stack.heads as u32))?;
    set(&object, "queries", &JsValue::from(stack.queries as u32))?;
    set(&object, "keys", &JsValue::from(stack.keys as u32))?;
    set(&object, "data", &floats(&stack.data))?;
    Ok(object)
}

#[cfg(feature = "webgpu")]
async fn webgpu_device() -> Result<Device, String> {
    if let Some(device) = WEBGPU.with(|cell| cell.borrow().clone()) {
        return Ok(device);
    }
    let device = Device::wgpu_options()
        .init_async()
        .await
        .map_err(|e| format!("{e}"))?;
    WEBGPU.with(|cell| *cell.borrow_mut() = Some(device.clone()));
    Ok(device)
}

#[cfg(not(feature = "webgpu"))]
async fn webgpu_device() -> Result<Device, String> {
    Err("this build has no WebGPU backend".into())
}

/// The model, its session and the backend it runs on, for JavaScript.
#[wasm_bindgen]
pub struct Visualizer {
    session: Session,
    backend: String,
    backend_note: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TraceMeta<'a> {
    model: &'a str,
    src_ids: &'a [u32],
    src_tokens: &'a [String],
    src_unknown: &'a [bool],
    truncation: &'a Option<crate::trace::Truncation>,
    tgt_ids: &'a [u32],
    tgt_tokens: &'a [String],
    output: &'a str,
    steps: &'a [Step],
    finished: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PipelineMeta<'a> {
    kind: AttentionKind,
    layer: usize,
    head: usize,
    d_k: usize,
    queries: usize,
    keys: usize,
    query_tokens: &'a [String],
    key_tokens: &'a [String],
    mask: Vec<u8>,
    entropy: &'a [f32],
    unscaled_entropy: &'a [f32],
}

fn step_js(result: &StepResult) -> Result<JsValue, JsError> {
    let object = to_js(&result.step)?;
    set(&object, "finished", &JsValue::from(result.finished))?;
    set(
        &object,
        "decoderSelfAttention",
        &stack_js(&result.decoder_self_attention)?,
    )?;
    set(
        &object,
        "crossAttention",
        &stack_js(&result.cross_attention)?,
    )?;
    Ok(object)
}

fn trace_js(trace: &Trace, finished: bool) -> Result<JsValue, JsError> {
    let object = to_js(&TraceMeta {
        model: &trace.model,
        src_ids: &trace.src_ids,
        src_tokens: &trace.src_tokens,
        src_unknown: &trace.src_unknown,
        truncation: &trace.truncation,
        tgt_ids: &trace.tgt_ids,
        tgt_tokens: &trace.tgt_tokens,
        output: &trace.output,
        steps: &trace.steps,
        finished,
    })?;
    set(
        &object,
        "encoderSelfAttention",
        &stack_js(&trace.encoder_self_attention)?,
    )?;
    set(
        &object,
        "decoderSelfAttention",
        &stack_js(&trace.decoder_self_attention)?,
    )?;
    set(
        &object,
        "crossAttention",
        &stack_js(&trace.cross_attention)?,
    )?;
    Ok(object)
}

fn pipeline_js(pipeline: &Pipeline) -> Result<JsValue, JsError> {
    let object = to_js(&PipelineMeta {
        kind: pipeline.kind,
        layer: pipeline.layer,
        head: pipeline.head,
        d_k: pipeline.d_k,
        queries: pipeline.queries,
        keys: pipeline.keys,
        query_tokens: &pipeline.query_tokens,
        key_tokens: &pipeline.key_tokens,
        mask: pipeline.mask.iter().map(|&m| m as u8).collect(),
        entropy: &pipeline.entropy,
        unscaled_entropy: &pipeline.unscaled_entropy,
    })?;
    set(&object, "raw", &floats(&pipeline.raw))?;
    set(&object, "scaled", &floats(&pipeline.scaled))?;
    set(&object, "softmax", &floats(&pipeline.softmax))?;
    set(
        &object,
        "unscaledSoftmax",
        &floats(&pipeline.unscaled_softmax),
    )?;
    Ok(object)
}

#[wasm_bindgen]
impl Visualizer {
    /// Load a model from its four files onto `"webgpu"`, `"cpu"` or `"auto"` (WebGPU when an
    /// adapter exists, otherwise the CPU). Bad files give a readable error, never a crash.
    pub async fn create(
        config: Vec<u8>,
        weights: Vec<u8>,
        src_tokenizer: Vec<u8>,
        tgt_tokenizer: Vec<u8>,
        backend: String,
    ) -> Result<Visualizer, JsError> {
        constructors::run_once();
        let (device, backend, backend_note) = match backend.as_str() {
            "cpu" => (Device::flex(), "cpu", String::new()),
            "webgpu" => (
                webgpu_device()
                    .await
                    .map_err(|e| JsError::new(&format!("WebGPU is not available: {e}")))?,
                "webgpu",
                String::new(),
            ),
            "auto" => match webgpu_device().await {
                Ok(device) => (device, "webgpu", String::new()),
                Err(reason) => (
                    Device::flex(),
                    "cpu",
                    format!("WebGPU unavailable ({reason}); running on the CPU"),
                ),
            },
            other => {
                return Err(JsError::new(&format!(
                    "unknown backend {other:?}: use webgpu, cpu or auto"
                )))
            }
        };
        let files = ModelFiles {
            config: &config,
            weights: &weights,
            src_tokenizer: &src_tokenizer,
            tgt_tokenizer: &tgt_tokenizer,
        };
        let session = Session::load(files, device).map_err(js_error)?;
        Ok(Visualizer {
            session,
            backend: backend.to_string(),
            backend_note,
        })
    }

    /// `"webgpu"` or `"cpu"`.
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    /// Why `auto` fell back to the CPU ("" when it did not).
    #[wasm_bindgen(js_name = backendNote)]
    pub fn backend_note(&self) -> String {
        self.backend_note.clone()
    }

    /// The model's config as a camelCase object.
    pub fn config(&self) -> Result<JsValue, JsError> {
        let value = serde_json::to_value(self.session.config()).map_err(js_error)?;
        to_js(&camel_case(value))
    }

    /// Tokenize and encode a sentence; returns the source tokens (and any truncation).
    pub async fn start(&mut self, text: String) -> Result<JsValue, JsError> {
        let source = self.session.start(&text).await.map_err(js_error)?;
        to_js(&source)
    }

    /// Decode one more token.
    pub async fn step(&mut self) -> Result<JsValue, JsError> {
        let result = self.session.step().await.map_err(js_error)?;
        step_js(&result)
    }

    /// Decode until the end token; returns the number of steps taken.
    #[wasm_bindgen(js_name = runToEnd)]
    pub async fn run_to_end(&mut self) -> Result<u32, JsError> {
        Ok(self.session.run_to_end().await.map_err(js_error)?.len() as u32)
    }

    /// Undo the last step.
    pub fn back(&mut self) -> Result<(), JsError> {
        self.session.back().map_err(js_error)
    }

    /// Back to the start token.
    pub fn reset(&mut self) -> Result<(), JsError> {
        self.session.reset().map_err(js_error)
    }

    /// Force the output to start with `prefix` (target text); decoding continues from there.
    #[wasm_bindgen(js_name = setPrefix)]
    pub async fn set_prefix(&mut self, prefix: String) -> Result<u32, JsError> {
        Ok(self
            .session
            .set_prefix(&prefix)
            .await
            .map_err(js_error)?
            .len() as u32)
    }

    /// Replace the last token with candidate `id`.
    #[wasm_bindgen(js_name = replaceLast)]
    pub async fn replace_last(&mut self, id: u32) -> Result<JsValue, JsError> {
        let result = self.session.replace_last(id).await.map_err(js_error)?;
        step_js(&result)
    }

    /// `mode` is `"greedy"` or `"sample"` (with temperature, top-k and seed).
    #[wasm_bindgen(js_name = setSampling)]
    pub fn set_sampling(
        &mut self,
        mode: &str,
        temperature: f32,
        top_k: u32,
        seed: u32,
    ) -> Result<(), JsError> {
        let sampling = match mode {
            "greedy" => Sampling::Greedy,
            "sample" => Sampling::Sample {
                temperature,
                top_k: top_k as usize,
                seed: seed as u64,
            },
            other => return Err(JsError::new(&format!("unknown sampling mode {other:?}"))),
        };
        self.session.set_sampling(sampling).map_err(js_error)
    }

    /// Everything so far: tokens, steps and the three attention stacks as `Float32Array`s.
    pub fn trace(&self) -> Result<JsValue, JsError> {
        let trace = self.session.trace().map_err(js_error)?;
        trace_js(&trace, self.session.finished())
    }

    /// One head's raw → scaled → masked → softmax pipeline. `kind`: encoderSelf, decoderSelf, cross.
    pub async fn pipeline(&self, kind: String, layer: u32, head: u32) -> Result<JsValue, JsError> {
        let kind = AttentionKind::parse(&kind)
            .ok_or_else(|| JsError::new(&format!("unknown attention kind {kind:?}")))?;
        let pipeline = self
            .session
            .pipeline(kind, layer as usize, head as usize)
            .await
            .map_err(js_error)?;
        pipeline_js(&pipeline)
    }

    /// Two (or more) sentences as one padded batch through the encoder: the padding mask at work.
    #[wasm_bindgen(js_name = paddedBatch)]
    pub async fn padded_batch(&self, texts: Vec<String>) -> Result<JsValue, JsError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let batch = self.session.padded_batch(&refs).await.map_err(js_error)?;
        let object: JsValue = Object::new().into();
        set(&object, "tokens", &to_js(&batch.tokens)?)?;
        set(&object, "paddingMask", &to_js(&batch.padding_mask)?)?;
        let stacks = js_sys::Array::new();
        for stack in &batch.encoder_self_attention {
            stacks.push(&stack_js(stack)?);
        }
        set(&object, "encoderSelfAttention", &stacks.into())?;
        Ok(object)
    }

    /// The sinusoidal table `[maxLen, dModel]` and PE(t)·PE(t+Δ) curves for a few t.
    #[wasm_bindgen(js_name = positionalEncoding)]
    pub fn positional_encoding(&self) -> Result<JsValue, JsError> {
        let config = self.session.config();
        let table = sinusoidal_table(config.max_len, config.d_model);
        let starts = [0, 5, 10, 20];
        let curves = relative_dot_products(&table, config.d_model, &starts, config.max_len / 2);
        let object: JsValue = Object::new().into();
        set(&object, "rows", &JsValue::from(config.max_len as u32))?;
        set(&object, "cols", &JsValue::from(config.d_model as u32))?;
        set(&object, "table", &floats(&table))?;
        set(&object, "starts", &to_js(&starts)?)?;
        set(&object, "dotProducts", &to_js(&curves)?)?;
        Ok(object)
    }
}

fn camel_case(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let mut out = String::new();
                    let mut upper = false;
                    for c in key.chars() {
                        if c == '_' {
                            upper = true;
                        } else if upper {
                            out.extend(c.to_uppercase());
                            upper = false;
                        } else {
                            out.push(c);
                        }
                    }
                    (out, value)
                })
                .collect(),
        ),
        other => other,
    }
}
