//! The wasm API in a real browser (headless Chromium through wasm-bindgen-test): the
//! `Session` on the CPU and on WebGPU, their agreement, the backend policy, and clean errors
//! for bad files.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attnscope::wasm::{
    backends, choose_backend, default_focus, max_beam_width, model_file_names, WebSession,
};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

struct Files {
    config: &'static [u8],
    weights: &'static [u8],
    src: &'static [u8],
    tgt: &'static [u8],
}

const DATE: Files = Files {
    config: include_bytes!("../models/date-iso/config.json"),
    weights: include_bytes!("../models/date-iso/model.safetensors"),
    src: include_bytes!("../models/date-iso/src_tokenizer.json"),
    tgt: include_bytes!("../models/date-iso/tgt_tokenizer.json"),
};

const EN_ZH: Files = Files {
    config: include_bytes!("../models/en-zh/config.json"),
    weights: include_bytes!("../models/en-zh/model.safetensors"),
    src: include_bytes!("../models/en-zh/src_tokenizer.json"),
    tgt: include_bytes!("../models/en-zh/tgt_tokenizer.json"),
};

async fn create(files: &Files, backend: &str) -> Result<WebSession, JsValue> {
    WebSession::create(
        files.config.to_vec(),
        files.weights.to_vec(),
        files.src.to_vec(),
        files.tgt.to_vec(),
        backend.into(),
    )
    .await
    .map_err(JsValue::from)
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

/// A flat vector as it crosses: the little-endian bytes of its `f32`s.
fn f32s(bytes: JsValue) -> Vec<f32> {
    Uint8Array::from(bytes)
        .to_vec()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn floats(trace: &JsValue, key: &str) -> Vec<f32> {
    f32s(get(&get(trace, key), "data"))
}

fn output(trace: &JsValue) -> String {
    get(trace, "output").as_string().unwrap()
}

fn string(value: &JsValue, key: &str) -> String {
    get(value, key).as_string().unwrap()
}

#[wasm_bindgen_test]
async fn cpu_translates_and_steps() {
    let mut session = create(&EN_ZH, "cpu").await.unwrap();
    assert_eq!(session.backend(), "cpu");
    session.set_focus("cross".into(), 0, 0).unwrap();
    let answer = session.start("I love eating apples.".into()).await.unwrap();
    // Nothing decoded yet: no cross-attention stages, and that is not an error.
    assert!(get(&answer, "stages").is_null());
    let answer = session.step().await.unwrap();
    let cross = get(&get(&answer, "trace"), "crossAttention");
    assert_eq!(get(&cross, "keys").as_f64(), Some(6.0));
    assert_eq!(get(&cross, "queries").as_f64(), Some(1.0));
    assert_eq!(f32s(get(&cross, "data")).len(), 3 * 4 * 6);
    let answer = session.back().await.unwrap();
    assert_eq!(
        get(&get(&answer, "trace"), "steps")
            .dyn_into::<js_sys::Array>()
            .unwrap()
            .length(),
        0
    );
    let answer = session.run_to_end().await.unwrap();
    let trace = get(&answer, "trace");
    assert_eq!(output(&trace).trim_end_matches('。'), "我爱吃苹果");
    assert_eq!(get(&trace, "finished").as_bool(), Some(true));
    // The answer carries the focused head's stages; its softmax is the trace's own matrix.
    let stages = get(&answer, "stages");
    assert_eq!(string(&stages, "kind"), "cross");
    let softmax = f32s(get(&stages, "softmax"));
    let rows = get(&stages, "queries").as_f64().unwrap() as usize;
    // Recomputed over the whole prefix, equal to the cached steps' rows up to rounding.
    let cross = floats(&trace, "crossAttention");
    let worst = softmax[..rows * 6]
        .iter()
        .zip(&cross[..rows * 6])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-5, "stages and trace differ by {worst}");
    // The summaries come after the answer, from the same trace.
    assert!(get(&answer, "analysis").is_undefined() || get(&answer, "analysis").is_null());
    let analysis = session.analysis().unwrap();
    let mean_cross = get(&get(&analysis, "headMean"), "cross");
    assert_eq!(get(&mean_cross, "heads").as_f64(), Some(1.0));
    assert_eq!(
        get(&get(&analysis, "encoderRollout"), "layers").as_f64(),
        Some(3.0)
    );
    let causal = Uint8Array::from(get(&get(&trace, "causalMask"), "hidden")).to_vec();
    assert_eq!(causal.len(), rows * rows);
    assert_eq!((causal[0], causal[1]), (0, 1));
    let batch = session
        .padded_batch(vec!["I love eating apples.".into(), "Hi!".into()])
        .await
        .unwrap();
    assert!(get(&batch, "paddingMask").is_object());
    let positional = session.positional_encoding().unwrap();
    assert_eq!(f32s(get(&positional, "table")).len(), 64 * 192);
    assert!(session.config().is_ok());
    let names = model_file_names().unwrap();
    assert_eq!(string(&names, "weights"), "model.safetensors");
    // The facts the page reads from the module instead of keeping a copy.
    assert_eq!(max_beam_width(), 8);
    let focus = default_focus().unwrap();
    assert_eq!(string(&focus, "kind"), "cross");
    assert_eq!(get(&focus, "layer").as_f64(), Some(0.0));
    let listed: Vec<String> = js_sys::Array::from(&backends().unwrap())
        .iter()
        .map(|b| b.as_string().unwrap())
        .collect();
    assert_eq!(listed, ["auto", "webgpu", "cpu"]);
}

#[wasm_bindgen_test]
async fn the_backend_policy_follows_the_adapter() {
    let choice = |preference: &'static str| async move {
        let choice = choose_backend(preference.into())
            .await
            .map_err(JsValue::from)
            .unwrap();
        // The note is `null` or a message key with its parameters.
        let note = get(&choice, "note");
        let key = if note.is_null() {
            String::new()
        } else {
            assert!(get(&note, "params").is_object());
            string(&note, "key")
        };
        (string(&choice, "backend"), key)
    };
    assert_eq!(choice("cpu").await, ("cpu".to_string(), String::new()));
    assert!(choose_backend("quantum".into()).await.is_err());
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let has_webgpu = Reflect::get(&navigator, &"gpu".into()).is_ok_and(|gpu| gpu.is_object());
    let (webgpu, _) = choice("webgpu").await;
    let (auto, note) = choice("auto").await;
    if has_webgpu {
        // Headless Chromium here offers only SwiftShader, a software fallback adapter.
        assert_eq!(webgpu, "webgpu");
        assert_eq!(auto, "cpu");
        assert_eq!(note, "backend.softwareFallback");
    } else {
        assert_eq!((webgpu.as_str(), auto.as_str()), ("cpu", "cpu"));
    }
}

/// An error's message key and how many params it carries (every one a string).
fn error_key(error: &JsValue) -> (String, usize) {
    let key = Reflect::get(error, &"key".into()).unwrap().as_string();
    let params = Reflect::get(error, &"params".into()).unwrap();
    let values = js_sys::Object::values(params.dyn_ref::<js_sys::Object>().unwrap());
    assert!(
        values.iter().all(|v: JsValue| v.is_string()),
        "params are strings"
    );
    (key.unwrap_or_default(), values.length() as usize)
}

/// Errors come back as values with an English message, a message key and its params.
#[wasm_bindgen_test]
async fn bad_input_and_bad_files_are_errors_not_crashes() {
    let mut session = create(&DATE, "cpu").await.unwrap();
    let empty: JsValue = session.start(String::new()).await.err().unwrap().into();
    assert_eq!(error_key(&empty), ("error.emptyInput".into(), 0));
    assert!(session.step().await.is_err());
    assert!(session.back().await.is_err());
    assert!(session.set_focus("sideways".into(), 0, 0).is_err());
    assert!(session.set_sampling("sample", 0.0, 5, 1).is_err());
    let answer = session.start("x".repeat(10_000)).await.unwrap();
    assert!(get(&get(&answer, "trace"), "truncation").is_object());
    for (name, key, files) in [
        (
            "truncated weights",
            "error.weightsFormat",
            Files {
                weights: &DATE.weights[..DATE.weights.len() / 3],
                ..DATE
            },
        ),
        (
            "config not json",
            "error.configParse",
            Files {
                config: b"{",
                ..DATE
            },
        ),
        (
            "tokenizer not json",
            "error.tokenizer",
            Files {
                src: b"hello",
                ..DATE
            },
        ),
        (
            "swapped model",
            "error.unexpectedTensor",
            Files {
                weights: EN_ZH.weights,
                ..DATE
            },
        ),
    ] {
        let error = create(&files, "cpu")
            .await
            .err()
            .unwrap_or_else(|| panic!("{name} loaded"));
        let message: String = Reflect::get(&error, &"message".into())
            .unwrap()
            .as_string()
            .unwrap();
        assert!(!message.is_empty(), "{name}: empty message");
        let (found, params) = error_key(&error);
        assert_eq!(found, key, "{name}: {message}");
        assert!(params > 0, "{name}: the message's values are in params");
    }
    assert!(create(&DATE, "quantum").await.is_err());
}

#[wasm_bindgen_test]
async fn webgpu_matches_the_cpu() {
    let mut cpu = create(&EN_ZH, "cpu").await.unwrap();
    let mut gpu = gpu_or_cpu(&EN_ZH).await;
    let mut traces = vec![];
    for session in [&mut cpu, &mut gpu] {
        let answer = session
            .translate("My father likes drinking tea.".into())
            .await
            .unwrap();
        traces.push(get(&answer, "trace"));
    }
    let (a, b) = (&traces[0], &traces[1]);
    assert_eq!(output(a), output(b));
    assert_eq!(
        js_sys::JSON::stringify(&get(a, "tgtIds")).unwrap(),
        js_sys::JSON::stringify(&get(b, "tgtIds")).unwrap()
    );
    for key in [
        "encoderSelfAttention",
        "decoderSelfAttention",
        "crossAttention",
    ] {
        let worst = worst_difference(&floats(a, key), &floats(b, key));
        assert!(
            worst <= 1e-4,
            "{key}: {} vs cpu differ by {worst}",
            gpu.backend()
        );
    }
    web_sys_log(&format!("webgpu_matches_the_cpu ran on {}", gpu.backend()));
}

/// WebGPU's session where the browser exposes WebGPU (headless Chromium here: SwiftShader; then
/// it must be WebGPU), else a second CPU one.
async fn gpu_or_cpu(files: &Files) -> WebSession {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let has_webgpu = Reflect::get(&navigator, &"gpu".into()).is_ok_and(|gpu| gpu.is_object());
    let session = create(files, if has_webgpu { "webgpu" } else { "cpu" })
        .await
        .unwrap();
    if has_webgpu {
        assert_eq!(session.backend(), "webgpu");
    }
    session
}

fn worst_difference(x: &[f32], y: &[f32]) -> f32 {
    assert_eq!(x.len(), y.len());
    x.iter()
        .zip(y)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0f32, f32::max)
}

#[wasm_bindgen_test]
async fn heads_off_agree_on_webgpu_and_the_cpu() {
    let mut cpu = create(&EN_ZH, "cpu").await.unwrap();
    let mut gpu = gpu_or_cpu(&EN_ZH).await;
    let spec = "cross:0:0,cross:1:2,cross:2:1";
    let mut reports = vec![];
    let mut importances = vec![];
    for session in [&mut cpu, &mut gpu] {
        session
            .translate("I love eating apples.".into())
            .await
            .unwrap();
        reports.push(session.ablate(spec.into()).await.unwrap());
        importances.push(session.importance().await.unwrap());
    }
    for report in &reports {
        assert_eq!(
            js_sys::JSON::stringify(&get(report, "ablatedTokens")).unwrap(),
            r#"["我","很","喜","欢","吃","苹","果","。","</s>"]"#
        );
        let drop = f32s(get(report, "drop"));
        assert!((drop[1] - 0.5279).abs() < 1e-3, "爱 falls by {}", drop[1]);
    }
    for key in ["logP", "logPAblated", "drop"] {
        let (x, y) = (f32s(get(&reports[0], key)), f32s(get(&reports[1], key)));
        let worst = worst_difference(&x, &y);
        assert!(
            worst <= 1e-4,
            "{key}: {} vs cpu differ by {worst}",
            gpu.backend()
        );
    }
    let drops = |importance: &JsValue| -> Vec<f32> {
        js_sys::Array::from(&get(importance, "heads"))
            .iter()
            .map(|head| get(&head, "drop").as_f64().unwrap() as f32)
            .collect()
    };
    let (x, y) = (drops(&importances[0]), drops(&importances[1]));
    assert_eq!(x.len(), 36);
    assert!(worst_difference(&x, &y) <= 1e-3, "importance differs");
    // The decoding itself with the heads off, through setAblation: the same new translation.
    let answer = gpu.set_ablation(spec.into()).await.unwrap();
    assert_eq!(output(&get(&answer, "trace")), "我很喜欢吃苹果。");
    let error: JsValue = gpu
        .set_ablation("cross:9:0".into())
        .await
        .err()
        .unwrap()
        .into();
    assert_eq!(error_key(&error), ("error.outOfRange".into(), 3));
    web_sys_log(&format!("heads_off_agree ran on {}", gpu.backend()));
}

fn web_sys_log(text: &str) {
    let console = Reflect::get(&js_sys::global(), &"console".into()).unwrap();
    let log = Reflect::get(&console, &"log".into()).unwrap();
    let _ = js_sys::Function::from(log).call1(&console, &text.into());
}
