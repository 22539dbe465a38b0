//! Broken and hostile model files: each gives a typed error with a readable message, no panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::{Error, LoadedModel, ModelConfig};
use burn::tensor::Device;

fn load(folder: &ModelFolder) -> Result<LoadedModel, Error> {
    LoadedModel::load(folder.files(), &Device::flex())
}

fn with_weights(weights: Vec<u8>) -> ModelFolder {
    ModelFolder {
        weights,
        ..common::tiny_model(true, 1)
    }
}

/// A safetensors file from (name, dtype, shape, bytes) entries.
fn safetensors_file(entries: &[(&str, &str, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut offset = 0;
    let mut data = vec![];
    for (name, dtype, shape, bytes) in entries {
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + bytes.len()]}),
        );
        offset += bytes.len();
        data.extend_from_slice(bytes);
    }
    let header = serde_json::to_vec(&header).unwrap();
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend(header);
    file.extend(data);
    file
}

/// The tiny model's tensors, re-serialized with `edit` applied to the entry list.
fn edited(edit: impl FnOnce(&mut Vec<(String, String, Vec<usize>, Vec<u8>)>)) -> Vec<u8> {
    let folder = common::tiny_model(true, 1);
    let file = safetensors::SafeTensors::deserialize(&folder.weights).unwrap();
    let mut entries: Vec<(String, String, Vec<usize>, Vec<u8>)> = file
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            (
                name,
                "F32".to_string(),
                view.shape().to_vec(),
                view.data().to_vec(),
            )
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    edit(&mut entries);
    let borrowed: Vec<(&str, &str, Vec<usize>, Vec<u8>)> = entries
        .iter()
        .map(|(n, d, s, b)| (n.as_str(), d.as_str(), s.clone(), b.clone()))
        .collect();
    safetensors_file(&borrowed)
}

#[test]
fn the_tiny_model_round_trips() {
    let folder = common::tiny_model(true, 1);
    assert!(load(&folder).is_ok());
    assert!(load(&with_weights(edited(|_| {}))).is_ok());
}

#[test]
fn truncated_and_garbage_files_are_format_errors() {
    let good = common::tiny_model(true, 1).weights;
    for cut in [0, 4, 8, 20, good.len() / 2, good.len() - 1] {
        let error = load(&with_weights(good[..cut].to_vec())).unwrap_err();
        assert!(
            matches!(error, Error::WeightsFormat(_)),
            "cut {cut}: {error}"
        );
    }
    // A header length far larger than the file.
    let mut huge = (u64::MAX / 2).to_le_bytes().to_vec();
    huge.extend(&good[8..]);
    assert!(matches!(
        load(&with_weights(huge)).unwrap_err(),
        Error::WeightsFormat(_)
    ));
    let mut lie = ((good.len() as u64) * 4).to_le_bytes().to_vec();
    lie.extend(&good[8..]);
    assert!(matches!(
        load(&with_weights(lie)).unwrap_err(),
        Error::WeightsFormat(_)
    ));
    let garbage: Vec<u8> = (0..good.len()).map(|i| (i * 7919 % 251) as u8).collect();
    assert!(load(&with_weights(garbage)).is_err());
}

#[test]
fn bad_offsets_are_format_errors() {
    // Overlapping: two tensors claim the same bytes.
    let overlapping = {
        let mut file = edited(|_| {});
        let n = u64::from_le_bytes(file[..8].try_into().unwrap()) as usize;
        let mut header: serde_json::Value = serde_json::from_slice(&file[8..8 + n]).unwrap();
        header["projection.bias"]["data_offsets"] =
            header["tgt_embed.weight"]["data_offsets"].clone();
        let text = serde_json::to_vec(&header).unwrap();
        let mut out = (text.len() as u64).to_le_bytes().to_vec();
        out.extend(text);
        out.extend(file.split_off(8 + n));
        out
    };
    assert!(matches!(
        load(&with_weights(overlapping)).unwrap_err(),
        Error::WeightsFormat(_)
    ));
    // Out of range: an offset past the end of the data.
    let out_of_range = safetensors_file(&[("src_embed.weight", "F32", vec![2, 2], vec![0; 16])]);
    let n = u64::from_le_bytes(out_of_range[..8].try_into().unwrap()) as usize;
    let header = String::from_utf8(out_of_range[8..8 + n].to_vec())
        .unwrap()
        .replace("[0,16]", "[0,1600]");
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend(header.as_bytes());
    file.extend(vec![0u8; 16]);
    assert!(matches!(
        load(&with_weights(file)).unwrap_err(),
        Error::WeightsFormat(_)
    ));
}

#[test]
fn wrong_names_shapes_dtypes_and_values_are_typed() {
    let missing = edited(|e| e.retain(|(n, ..)| n != "projection.bias"));
    assert!(
        matches!(load(&with_weights(missing)).unwrap_err(), Error::MissingTensor(n) if n == "projection.bias")
    );
    let extra = edited(|e| {
        e.push((
            "decoder.layers.9.ffn.linear_1.bias".into(),
            "F32".into(),
            vec![1],
            vec![0; 4],
        ))
    });
    assert!(matches!(
        load(&with_weights(extra)).unwrap_err(),
        Error::UnexpectedTensor(_)
    ));
    let shape = edited(|e| {
        let embed = e
            .iter_mut()
            .find(|(n, ..)| n == "src_embed.weight")
            .unwrap();
        embed.2.reverse(); // [vocab, d] → [d, vocab]: same bytes, wrong shape
    });
    assert!(matches!(
        load(&with_weights(shape)).unwrap_err(),
        Error::TensorShape { .. }
    ));
    let dtype = edited(|e| {
        let bias = e.iter_mut().find(|(n, ..)| n == "projection.bias").unwrap();
        bias.1 = "I32".into();
    });
    assert!(matches!(
        load(&with_weights(dtype)).unwrap_err(),
        Error::TensorDtype { .. }
    ));
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let nan = edited(|e| {
            let bias = e.iter_mut().find(|(n, ..)| n == "projection.bias").unwrap();
            bias.3[..4].copy_from_slice(&bad.to_le_bytes());
        });
        assert!(matches!(
            load(&with_weights(nan)).unwrap_err(),
            Error::NonFiniteWeights(_)
        ));
    }
}

type ConfigEdit = Box<dyn Fn(&mut ModelConfig)>;

#[test]
fn bad_configs_and_tokenizers_are_typed() {
    let folder = common::tiny_model(true, 1);
    let config: ModelConfig = serde_json::from_slice(&folder.config).unwrap();
    let variants: Vec<(&str, ConfigEdit)> = vec![
        ("d_model", Box::new(|c| c.d_model = 0)),
        ("d_model", Box::new(|c| c.d_model = 1 << 30)),
        ("n_heads", Box::new(|c| c.n_heads = 0)),
        ("max_len", Box::new(|c| c.max_len = usize::MAX)),
        ("src_vocab_size", Box::new(|c| c.src_vocab_size = 1 << 40)),
        ("n_encoder_layers", Box::new(|c| c.n_encoder_layers = 0)),
        ("layer_norm_eps", Box::new(|c| c.layer_norm_eps = -1.0)),
        ("dropout", Box::new(|c| c.dropout = 1.5)),
    ];
    for (field, change) in variants {
        let mut c = config.clone();
        change(&mut c);
        let bad = ModelFolder {
            config: serde_json::to_vec(&c).unwrap(),
            ..folder.clone()
        };
        match load(&bad).unwrap_err() {
            Error::ConfigRange { field: f, .. } => assert_eq!(f, field),
            other => panic!("{field}: expected ConfigRange, got {other}"),
        }
    }
    // A config that is valid but disagrees with the file.
    let mut bigger = config.clone();
    bigger.d_ff += 1;
    let bad = ModelFolder {
        config: serde_json::to_vec(&bigger).unwrap(),
        ..folder.clone()
    };
    assert!(matches!(load(&bad).unwrap_err(), Error::TensorShape { .. }));
    for text in [&b"not json"[..], b"{}", b"{\"d_model\": -3}"] {
        let bad = ModelFolder {
            config: text.to_vec(),
            ..folder.clone()
        };
        assert!(matches!(load(&bad).unwrap_err(), Error::ConfigParse(_)));
    }
    let bad = ModelFolder {
        config: b"\xff\xfe".to_vec(),
        ..folder.clone()
    };
    let error = load(&bad).unwrap_err();
    assert!(
        matches!(
            error,
            Error::NotUtf8 {
                file: "config.json",
                ..
            }
        ),
        "{error}"
    );
    let bad = ModelFolder {
        src_tokenizer: b"<html>not a tokenizer</html>".to_vec(),
        ..folder.clone()
    };
    let error = load(&bad).unwrap_err();
    assert!(matches!(error, Error::Tokenizer { .. }));
    assert!(error.to_string().contains("src_tokenizer.json"));
    let swapped = ModelFolder {
        src_tokenizer: folder.tgt_tokenizer.clone(),
        ..folder.clone()
    };
    assert!(matches!(
        load(&swapped).unwrap_err(),
        Error::TokenizerMismatch(_)
    ));
}

#[test]
fn weights_expected_names_follow_the_documented_table() {
    let config: ModelConfig = serde_json::from_slice(&common::shipped("en-zh").config).unwrap();
    let names: Vec<String> = attnscope::files::weights::expected_tensors(&config)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for name in [
        "src_embed.weight",
        "tgt_embed.weight",
        "encoder.layers.0.self_attn.w_q.weight",
        "encoder.layers.0.ffn.linear_1.bias",
        "encoder.layers.0.norm_2.weight",
        "encoder.norm.weight",
        "decoder.layers.2.cross_attn.w_o.weight",
        "decoder.layers.2.norm_3.bias",
        "decoder.norm.bias",
        "projection.weight",
        "projection.bias",
    ] {
        assert!(names.iter().any(|n| n == name), "missing {name}");
    }
    let post: ModelConfig = serde_json::from_slice(&common::shipped("date-iso").config).unwrap();
    assert!(!attnscope::files::weights::expected_tensors(&post)
        .iter()
        .any(|(n, _)| n == "encoder.norm.weight"));
}

/// The bad files `tests/web.rs` gives the browser module, natively: each error's message key, and
/// its English message is its text with the params filled in.
#[test]
fn bad_files_have_message_keys() {
    let date = common::shipped("date-iso");
    let en_zh = common::shipped("en-zh");
    for (key, folder) in [
        (
            "error.weightsFormat",
            ModelFolder {
                weights: date.weights[..date.weights.len() / 3].to_vec(),
                ..date.clone()
            },
        ),
        (
            "error.configParse",
            ModelFolder {
                config: b"{".to_vec(),
                ..date.clone()
            },
        ),
        (
            "error.tokenizer",
            ModelFolder {
                src_tokenizer: b"hello".to_vec(),
                ..date.clone()
            },
        ),
        (
            "error.unexpectedTensor",
            ModelFolder {
                weights: en_zh.weights.clone(),
                ..date.clone()
            },
        ),
    ] {
        let error = load(&folder).unwrap_err();
        assert_eq!(error.key(), key, "{error}");
        let mut text = error.english().to_string();
        for (name, value) in error.params() {
            text = text.replace(&format!("{{{name}}}"), &value);
        }
        assert_eq!(text, error.to_string());
    }
}
