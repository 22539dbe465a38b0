//! Inputs found by `cargo fuzz` (fuzz/regressions/<target>/*) replayed through the same entry
//! points as the fuzz targets: each must give a value or a typed error, never a panic.
//! Also writes the tiny model the weights fuzzer mutates (an ignored test, run on demand).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use attnscope::files::folder::ModelFolder;
use attnscope::files::weights::expected_tensors;
use attnscope::model::config::SpecialIds;
use attnscope::text::TextTokenizer;
use attnscope::{LoadedModel, ModelConfig};
use burn::tensor::Device;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = common::repo().join("fuzz").join("regressions").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return vec![];
    };
    let mut files: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn tiny_model_folder() -> ModelFolder {
    ModelFolder::read(&common::repo().join("fuzz/initial/tiny")).expect("fuzz/initial/tiny")
}

#[test]
fn load_weights_regressions() {
    let tiny = tiny_model_folder();
    for (name, weights) in inputs("load_weights") {
        let folder = ModelFolder {
            weights,
            ..tiny.clone()
        };
        let _ = LoadedModel::load(folder.files(), &Device::flex())
            .map(|_| ())
            .map_err(|e| e.to_string());
        eprintln!("load_weights/{name}: no panic");
    }
    assert!(
        LoadedModel::load(tiny.files(), &Device::flex()).is_ok(),
        "the tiny model must load"
    );
}

#[test]
fn load_config_regressions() {
    for (name, data) in inputs("load_config") {
        if let Ok(config) = ModelConfig::from_json(&String::from_utf8_lossy(&data)) {
            let _ = expected_tensors(&config);
        }
        eprintln!("load_config/{name}: no panic");
    }
}

/// The torch_pickle target's inputs (fuzz/torch), and its seeds: tensors or a typed error.
#[test]
fn torch_pickle_regressions() {
    let mut files = inputs("torch_pickle");
    let seeds = common::repo().join("fuzz/initial/torch_pickle");
    for entry in std::fs::read_dir(seeds).unwrap() {
        let path = entry.unwrap().path();
        files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
    }
    let mut read = 0;
    for (name, data) in files {
        if let Ok(tensors) = attnscope::import::read_state_dict(&data) {
            read += 1;
            for t in tensors {
                let elements: usize = t.shape.iter().product();
                assert_eq!(
                    t.data.len(),
                    elements * t.dtype.size(),
                    "{name}: {}",
                    t.name
                );
            }
        }
        eprintln!("torch_pickle/{name}: no panic");
    }
    assert_eq!(
        read, 5,
        "the five real checkpoints among the seeds are read"
    );
}

#[test]
fn tokenizer_regressions() {
    let shipped: Vec<TextTokenizer> = [
        "en-zh/src_tokenizer.json",
        "en-zh/tgt_tokenizer.json",
        "date-iso/src_tokenizer.json",
    ]
    .iter()
    .map(|f| {
        TextTokenizer::from_bytes(
            &std::fs::read(common::repo().join("models").join(f)).unwrap(),
            f,
            SpecialIds::default(),
        )
        .unwrap()
    })
    .collect();
    for (name, data) in inputs("tokenizer") {
        if let Ok(tokenizer) = TextTokenizer::from_bytes(&data, "fuzz.json", SpecialIds::default())
        {
            let _ = tokenizer.encode("I love eating apples.");
        }
        let text = String::from_utf8_lossy(&data);
        for tokenizer in &shipped {
            if let Ok(encoded) = tokenizer.encode(&text) {
                assert!(
                    encoded
                        .spans
                        .iter()
                        .all(|&(s, e)| s <= e && e <= text.len()),
                    "{name}"
                );
            }
        }
        eprintln!("tokenizer/{name}: no panic");
    }
}

/// `cargo test --release --test integration -- --ignored fuzz_regressions::write_tiny_model`
/// rewrites fuzz/initial/tiny: a 1+1-layer, d_model 8 model whose weights file is a few KB.
#[test]
#[ignore]
fn write_tiny_model() {
    let mut folder = common::tiny_model(true, 7);
    let mut config: ModelConfig = serde_json::from_slice(&folder.config).unwrap();
    common::resize(&mut config, [8, 2, 1, 1, 8, 8]);
    folder.config = config.to_json().unwrap().into_bytes();
    folder.weights = common::random_weights(&config, 7);
    let dir = common::repo().join("fuzz/initial/tiny");
    folder.write(&dir).unwrap();
    assert!(LoadedModel::load(
        ModelFolder::read(Path::new(&dir)).unwrap().files(),
        &Device::flex()
    )
    .is_ok());
}
