//! Any bytes as `model.safetensors` for a real config: an error or a model, never a panic, never
//! an allocation beyond what the bytes justify. (The tokenizer files have their own target;
//! parsing them on every input here made this target 8× slower.)
#![no_main]

use std::sync::OnceLock;

use attnscope::files::weights::load_model;
use attnscope::model::positional::PositionalTable;
use attnscope::ModelConfig;
use burn::tensor::Device;
use libfuzzer_sys::fuzz_target;

// A tiny real model (fuzz/initial/tiny, written by tests/integration/fuzz_regressions.rs): valid
// weights files are a few KB, so mutations explore the format instead of copying megabytes.
const CONFIG: &str = include_str!("../initial/tiny/config.json");

fn config() -> &'static ModelConfig {
    static CONFIG_PARSED: OnceLock<ModelConfig> = OnceLock::new();
    CONFIG_PARSED.get_or_init(|| match ModelConfig::from_json(CONFIG) {
        Ok(config) => config,
        Err(error) => panic!("fuzz/initial/tiny/config.json: {error}"),
    })
}

fuzz_target!(|weights: &[u8]| {
    static POSITIONAL: OnceLock<PositionalTable> = OnceLock::new();
    let positional = POSITIONAL.get_or_init(|| PositionalTable::new(config()));
    let _ = load_model(config(), positional, weights, &Device::flex());
});
