//! The wasm API in a real browser (headless Chromium through wasm-bindgen-test): the
//! `Visualizer` on the CPU and on WebGPU, their agreement, and clean errors for bad files.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attnscope::wasm::Visualizer;
use js_sys::{Float32Array, Reflect};
use wasm_bindgen::JsValue;
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

async fn create(files: &Files, backend: &str) -> Result<Visualizer, JsValue> {
    Visualizer::create(
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

fn floats(value: &JsValue, key: &str) -> Vec<f32> {
    Float32Array::from(get(&get(value, key), "data")).to_vec()
}

fn output(trace: &JsValue) -> String {
    get(trace, "output").as_string().unwrap()
}

#[wasm_bindgen_test]
async fn cpu_translates_and_steps() {
    let mut viz = create(&EN_ZH, "cpu").await.unwrap();
    assert_eq!(viz.backend(), "cpu");
    viz.start("I love eating apples.".into()).await.unwrap();
    let step = viz.step().await.unwrap();
    let cross = get(&step, "crossAttention");
    assert_eq!(get(&cross, "keys").as_f64(), Some(6.0));
    assert!(Float32Array::from(get(&cross, "data")).length() > 0);
    viz.back().unwrap();
    viz.run_to_end().await.unwrap();
    let trace = viz.trace().unwrap();
    assert_eq!(output(&trace).trim_end_matches('。'), "我爱吃苹果");
    let pipeline = viz.pipeline("cross".into(), 0, 0).await.unwrap();
    assert!(Float32Array::from(get(&pipeline, "unscaledSoftmax")).length() > 0);
    let batch = viz
        .padded_batch(vec!["I love eating apples.".into(), "Hi!".into()])
        .await
        .unwrap();
    assert!(get(&batch, "paddingMask").is_object());
    assert!(viz.positional_encoding().is_ok());
    assert!(viz.config().is_ok());
}

#[wasm_bindgen_test]
async fn bad_input_and_bad_files_are_errors_not_crashes() {
    let mut viz = create(&DATE, "cpu").await.unwrap();
    assert!(viz.start(String::new()).await.is_err());
    assert!(viz.step().await.is_err());
    assert!(viz.back().is_err());
    assert!(viz.pipeline("sideways".into(), 0, 0).await.is_err());
    assert!(viz.set_sampling("sample", 0.0, 5, 1).is_err());
    viz.start("x".repeat(10_000)).await.unwrap();
    let trace = viz.trace().unwrap();
    assert!(get(&trace, "truncation").is_object());
    for (name, files) in [
        (
            "truncated weights",
            Files {
                weights: &DATE.weights[..DATE.weights.len() / 3],
                ..DATE
            },
        ),
        (
            "config not json",
            Files {
                config: b"{",
                ..DATE
            },
        ),
        (
            "tokenizer not json",
            Files {
                src: b"hello",
                ..DATE
            },
        ),
        (
            "swapped model",
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
    }
    assert!(create(&DATE, "quantum").await.is_err());
}

#[wasm_bindgen_test]
async fn webgpu_matches_the_cpu() {
    let mut cpu = create(&EN_ZH, "cpu").await.unwrap();
    // Where the browser exposes WebGPU (headless Chromium here: SwiftShader), insist on it.
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).unwrap();
    let has_webgpu = Reflect::get(&navigator, &"gpu".into()).is_ok_and(|gpu| gpu.is_object());
    let mut gpu = create(&EN_ZH, if has_webgpu { "webgpu" } else { "auto" })
        .await
        .unwrap();
    if has_webgpu {
        assert_eq!(gpu.backend(), "webgpu");
    }
    for viz in [&mut cpu, &mut gpu] {
        viz.start("My father likes drinking tea.".into())
            .await
            .unwrap();
        viz.run_to_end().await.unwrap();
    }
    let (a, b) = (cpu.trace().unwrap(), gpu.trace().unwrap());
    assert_eq!(output(&a), output(&b));
    assert_eq!(
        js_sys::JSON::stringify(&get(&a, "tgtIds")).unwrap(),
        js_sys::JSON::stringify(&get(&b, "tgtIds")).unwrap()
    );
    for key in [
        "encoderSelfAttention",
        "decoderSelfAttention",
        "crossAttention",
    ] {
        let (x, y) = (floats(&a, key), floats(&b, key));
        assert_eq!(x.len(), y.len());
        let worst = x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst <= 1e-4,
            "{key}: {} vs cpu differ by {worst}",
            gpu.backend()
        );
    }
    web_sys_log(&format!("webgpu_matches_the_cpu ran on {}", gpu.backend()));
}

fn web_sys_log(text: &str) {
    let console = Reflect::get(&js_sys::global(), &"console".into()).unwrap();
    let log = Reflect::get(&console, &"log".into()).unwrap();
    let _ = js_sys::Function::from(log).call1(&console, &text.into());
}
