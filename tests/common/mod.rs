//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use attnscope::folder::ModelFolder;
use attnscope::model::Transformer;
use attnscope::tokenizer::{build_tokenizer, Granularity};
use attnscope::weights::save_weights;
use attnscope::{ModelConfig, Session};
use burn::tensor::Device;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn shipped(name: &str) -> ModelFolder {
    ModelFolder::read(&repo().join("models").join(name)).expect("shipped model folder")
}

pub fn session(folder: &ModelFolder) -> Session {
    Session::load(folder.files(), Device::flex()).expect("model loads")
}

pub const TINY_TEXTS: [&str; 3] = [
    "I love eating apples.",
    "You like tea.",
    "We eat noodles every day.",
];

/// A small randomly initialised model (pre-norm or post-norm) saved to bytes as a real folder.
pub fn tiny_model(norm_first: bool, seed: u64) -> ModelFolder {
    let src = build_tokenizer(Granularity::Words, TINY_TEXTS, 1).unwrap();
    let tgt = build_tokenizer(
        Granularity::Characters,
        ["我爱吃苹果。", "你喜欢茶", "我们每天吃面条"],
        1,
    )
    .unwrap();
    let mut config = ModelConfig::en_zh(src.vocab_size(), tgt.vocab_size());
    config.name = format!("tiny-{}", if norm_first { "pre" } else { "post" });
    config.d_model = 16;
    config.n_heads = 4;
    config.n_encoder_layers = 2;
    config.n_decoder_layers = 2;
    config.d_ff = 24;
    config.max_len = 12;
    config.norm_first = norm_first;
    let device = Device::flex();
    device.seed(seed);
    let mut model = Transformer::new(&config, &device);
    ModelFolder {
        config: config.to_json().unwrap().into_bytes(),
        weights: save_weights(&mut model, false).unwrap(),
        src_tokenizer: src.to_json().unwrap().into_bytes(),
        tgt_tokenizer: tgt.to_json().unwrap().into_bytes(),
    }
}

/// Assert two float slices agree within `tolerance`, naming the first difference.
pub fn assert_close(what: &str, a: &[f32], b: &[f32], tolerance: f32) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let worst = a
        .iter()
        .zip(b)
        .enumerate()
        .map(|(i, (x, y))| (i, (x - y).abs()))
        .fold((0, 0.0f32), |m, c| if c.1 > m.1 { c } else { m });
    assert!(
        worst.1 <= tolerance,
        "{what}: index {} differs by {} (> {tolerance})",
        worst.0,
        worst.1
    );
}
