//! Any bytes as `model.safetensors` next to a real config and tokenizers: an error or a model,
//! never a panic, never an allocation beyond what the bytes justify.
#![no_main]

use attnscope::{LoadedModel, ModelFiles};
use burn::tensor::Device;
use libfuzzer_sys::fuzz_target;

// A tiny real model (fuzz/seeds/tiny, written by tests/fuzz_regressions.rs): valid weights
// files are a few KB, so mutations explore the format instead of copying megabytes.
const CONFIG: &[u8] = include_bytes!("../seeds/tiny/config.json");
const SRC: &[u8] = include_bytes!("../seeds/tiny/src_tokenizer.json");
const TGT: &[u8] = include_bytes!("../seeds/tiny/tgt_tokenizer.json");

fuzz_target!(|weights: &[u8]| {
    let files = ModelFiles { config: CONFIG, weights, src_tokenizer: SRC, tgt_tokenizer: TGT };
    let _ = LoadedModel::load(files, &Device::flex());
});
