//! The one-row kernels of a cached step (`model::rows`) against burn's gemm: the same logits and
//! attention on every shipped model and on a tiny one with biases, and the same greedy output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use attnscope::files::folder::ModelFolder;
use attnscope::model::rows::StepRows;
use attnscope::model::DecoderOutput;
use attnscope::{block_on, LoadedModel};
use burn::tensor::{Device, Int, Tensor, TensorData};

fn ids(values: &[u32], device: &Device) -> Tensor<2, Int> {
    let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
    let n = values.len();
    Tensor::from_data(TensorData::new(values, [1, n]), device)
}

fn values(output: &DecoderOutput) -> Vec<Vec<f32>> {
    let mut parts = vec![output
        .logits
        .clone()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap()];
    for layer in &output.attention {
        for weights in [
            &layer.self_attention.weights,
            &layer.cross_attention.weights,
        ] {
            parts.push(weights.clone().into_data().try_to_vec::<f32>().unwrap());
        }
    }
    parts
}

/// Greedy decoding of `text` twice, through gemm and through the kernels, comparing each step.
fn compare(folder: &ModelFolder, text: &str) -> Vec<u32> {
    let device = Device::flex();
    let loaded = LoadedModel::load(folder.files(), &device).unwrap();
    let (config, model) = (&loaded.config, &loaded.model);
    let rows = block_on(StepRows::for_device(model, &device))
        .unwrap()
        .unwrap();
    let source = loaded.src_tokenizer.encode(text).unwrap();
    let encoded = model.encode(ids(&source.ids, &device), None);
    let cross = model.cross_key_values(encoded.memory.clone());
    let mut gemm_cache = vec![None; config.n_decoder_layers];
    let mut row_cache = gemm_cache.clone();
    let mut token = config.bos_id;
    let mut output = vec![];
    for position in 0..12 {
        let step = |cache: &mut Vec<_>, rows| {
            let tokens = ids(&[token], &device);
            model.decode_step(tokens, position, &cross, &encoded.padding_mask, cache, rows)
        };
        let gemm = values(&step(&mut gemm_cache, None));
        let kernels = values(&step(&mut row_cache, Some(&rows)));
        for (part, (a, b)) in gemm.iter().zip(&kernels).enumerate() {
            common::assert_close(&format!("{text:?} step {position} part {part}"), a, b, 1e-4);
        }
        let logits = &gemm[0];
        let best = (0..logits.len())
            .max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
            .unwrap();
        let kernel_best = (0..logits.len())
            .max_by(|&a, &b| kernels[0][a].total_cmp(&kernels[0][b]))
            .unwrap();
        assert_eq!(best, kernel_best, "{text:?} step {position}");
        token = best as u32;
        output.push(token);
        if token == config.eos_id {
            break;
        }
    }
    output
}

#[test]
fn a_cached_step_through_the_kernels_equals_gemm_on_the_shipped_models() {
    for (model, text) in [
        ("en-zh", "I love eating apples."),
        ("zh-en", "我爱吃苹果。"),
        ("date-iso", "Friday, the 29th of August 1958"),
    ] {
        let output = compare(&common::shipped(model), text);
        assert!(output.len() > 3, "{model}: {output:?}");
    }
}

#[test]
fn a_cached_step_through_the_kernels_equals_gemm_with_biases_and_odd_widths() {
    let folder = common::tiny_model_with(false, 5, |config| {
        config.attention_bias = true;
        config.d_ff = 37;
    });
    compare(&folder, "we eat noodles");
}
