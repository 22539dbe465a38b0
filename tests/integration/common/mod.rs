//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod journey;
pub mod reference;

use std::collections::BTreeSet;
use std::path::PathBuf;

use attnscope::files::folder::ModelFolder;
use attnscope::files::weights::expected_tensors;
use attnscope::session::sampling::Rng;
use attnscope::text::{build_tokenizer, Granularity};
use attnscope::{ModelConfig, Session};
use burn::tensor::Device;
use safetensors::tensor::TensorView;
use safetensors::Dtype;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run the `attnscope` binary (pass `env!("CARGO_BIN_EXE_attnscope")`) in the repository.
pub fn attnscope(binary: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(binary)
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap()
}

/// Run the `attnscope` binary like `attnscope`, and fail with its stderr unless it succeeded.
pub fn attnscope_ok(binary: &str, args: &[&str]) -> std::process::Output {
    let out = attnscope(binary, args);
    assert!(
        out.status.success(),
        "attnscope {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
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

/// Set `[d_model, n_heads, n_encoder_layers, n_decoder_layers, d_ff, max_len]`.
pub fn resize(config: &mut ModelConfig, sizes: [usize; 6]) {
    let [d_model, n_heads, encoder, decoder, d_ff, max_len] = sizes;
    config.d_model = d_model;
    config.n_heads = n_heads;
    config.n_encoder_layers = encoder;
    config.n_decoder_layers = decoder;
    config.d_ff = d_ff;
    config.max_len = max_len;
}

/// A small randomly initialised model (pre-norm or post-norm) saved to bytes as a real folder.
pub fn tiny_model(norm_first: bool, seed: u64) -> ModelFolder {
    tiny_model_with(norm_first, seed, |_| {})
}

/// [`tiny_model`] with `change` applied to its config before the weights are drawn.
pub fn tiny_model_with(norm_first: bool, seed: u64, change: fn(&mut ModelConfig)) -> ModelFolder {
    let src = build_tokenizer(Granularity::Words, TINY_TEXTS, 1).unwrap();
    let tgt = build_tokenizer(
        Granularity::Characters,
        ["我爱吃苹果。", "你喜欢茶", "我们每天吃面条"],
        1,
    )
    .unwrap();
    let mut config = ModelConfig::en_zh(src.vocab_size(), tgt.vocab_size());
    config.name = format!("tiny-{}", if norm_first { "pre" } else { "post" });
    resize(&mut config, [16, 4, 2, 2, 24, 12]);
    config.norm_first = norm_first;
    change(&mut config);
    ModelFolder {
        config: config.to_json().unwrap().into_bytes(),
        weights: random_weights(&config, seed),
        src_tokenizer: src.to_json().unwrap().into_bytes(),
        tgt_tokenizer: tgt.to_json().unwrap().into_bytes(),
    }
}

/// F32 weights for `config` drawn from our own seeded generator (burn's random init shares one
/// global generator between test threads, so it is not reproducible under `cargo test`).
pub fn random_weights(config: &ModelConfig, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let tensors: Vec<(String, Vec<usize>, Vec<u8>)> = expected_tensors(config)
        .into_iter()
        .map(|(name, shape)| {
            let count: usize = shape.iter().product();
            let scale = if shape.len() == 2 {
                1.0 / (shape[1] as f64).sqrt()
            } else {
                0.1
            };
            let offset = if name.contains("norm") && name.ends_with(".weight") {
                1.0
            } else {
                0.0
            };
            let bytes = (0..count)
                .flat_map(|_| {
                    ((offset + scale * (2.0 * rng.next_f64() - 1.0)) as f32).to_le_bytes()
                })
                .collect();
            (name, shape, bytes)
        })
        .collect();
    let views: Vec<(String, TensorView<'_>)> = tensors
        .iter()
        .map(|(name, shape, bytes)| {
            (
                name.clone(),
                TensorView::new(Dtype::F32, shape.clone(), bytes).unwrap(),
            )
        })
        .collect();
    safetensors::serialize(views, None).unwrap()
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

/// The page that documents the JSON formats: the Trace and Journey JSON tables.
pub const JSON_DOCS: &str = "docs/json.md";

/// The backticked names in the first cell of each row of the table after `table`, within the
/// section of `JSON_DOCS` whose heading starts with `section`'s words, at any heading level
/// (`### Trace JSON` finds `## Trace JSON`).
pub fn readme_table_fields(section: &str, table: &str) -> BTreeSet<String> {
    let docs = std::fs::read_to_string(repo().join(JSON_DOCS)).unwrap();
    let name = section.trim_start_matches('#').trim();
    let section = docs
        .split("\n#")
        .find(|part| part.trim_start_matches('#').trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("{JSON_DOCS} has a {name} section"));
    section
        .split(table)
        .nth(1)
        .unwrap_or_else(|| panic!("{JSON_DOCS}'s {name} section has the table after {table}"))
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| line.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2).map(str::to_string))
        .filter(|name| name != "field")
        .collect()
}

/// The keys of a JSON object.
pub fn json_keys(value: &serde_json::Value) -> BTreeSet<String> {
    value.as_object().unwrap().keys().cloned().collect()
}
