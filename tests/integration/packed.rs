//! The packed projections of the CPU (`model::packed`) against burn's gemm: the same encoder
//! output and attention, cross-attention keys and values, and cached steps' logits and attention
//! on every shipped model and on a tiny one with biases and odd widths, and the same greedy output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::model::ablation::Ablation;
use attnscope::model::config::{Activation, ModelConfig};
use attnscope::model::packed::PackedWeights;
use attnscope::model::{DecoderOutput, KeyValue, Normalisation};
use attnscope::{block_on, LoadedModel};
use burn::tensor::{Device, Int, Tensor, TensorData};

fn ids(values: &[u32], device: &Device) -> Tensor<2, Int> {
    let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
    let n = values.len();
    Tensor::from_data(TensorData::new(values, [1, n]), device)
}

fn read<const D: usize>(tensor: &Tensor<D>) -> Vec<f32> {
    tensor.clone().into_data().try_to_vec::<f32>().unwrap()
}

fn step_values(output: &DecoderOutput) -> Vec<Vec<f32>> {
    let mut parts = vec![read(&output.logits)];
    for layer in &output.attention {
        parts.push(read(&layer.self_attention.weights));
        parts.push(read(&layer.cross_attention.weights));
    }
    parts
}

fn key_values(cross: &[KeyValue]) -> Vec<Vec<f32>> {
    cross
        .iter()
        .flat_map(|kv| [read(&kv.keys), read(&kv.values)])
        .collect()
}

fn assert_all_close(what: &str, gemm: &[Vec<f32>], packed: &[Vec<f32>]) {
    assert_eq!(gemm.len(), packed.len(), "{what}");
    for (part, (a, b)) in gemm.iter().zip(packed).enumerate() {
        common::assert_close(&format!("{what}, part {part}"), a, b, 1e-4);
    }
}

fn argmax(values: &[f32]) -> usize {
    (0..values.len())
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap()
}

/// Encode `text` and decode it greedily twice, through gemm and through the packed weights,
/// comparing the encoder, the cross-attention keys and values, and each step.
fn compare(folder: &ModelFolder, text: &str) -> Vec<u32> {
    let device = Device::flex();
    let loaded = LoadedModel::load(folder.files(), &device).unwrap();
    let (config, model) = (&loaded.config, &loaded.model);
    let packed = block_on(PackedWeights::new(model)).unwrap();
    // The source as the session gives it to the model: ending in `</s>`. Without it zh-en of
    // 2026-12-03 writes "I love eating apples" and then only full stops.
    let source = config.fit_source(&loaded.src_tokenizer.encode(text).unwrap().ids);
    let encoded = model.encode(ids(&source.ids, &device), None);
    let encoded_packed = model.encode_packed(ids(&source.ids, &device), None, Some(&packed));
    let encoder = |e: &attnscope::model::EncoderOutput| {
        let mut parts = vec![read(&e.memory)];
        parts.extend(e.attention.iter().map(|a| read(&a.weights)));
        parts
    };
    assert_all_close(
        &format!("{text:?} encoder"),
        &encoder(&encoded),
        &encoder(&encoded_packed),
    );
    let cross = model.cross_key_values(encoded.memory.clone());
    let cross_packed = model.cross_key_values_packed(encoded_packed.memory.clone(), Some(&packed));
    assert_all_close(
        &format!("{text:?} cross keys and values"),
        &key_values(&cross),
        &key_values(&cross_packed),
    );
    let mut gemm_cache = vec![None; config.n_decoder_layers];
    let mut packed_cache = gemm_cache.clone();
    let mut token = config.bos_id;
    let mut output = vec![];
    for position in 0..12 {
        let tokens = || ids(&[token], &device);
        let mask = &encoded.padding_mask;
        let gemm = model.decode_step(tokens(), position, &cross, mask, &mut gemm_cache, None);
        let cache = &mut packed_cache;
        let kernels = model.decode_step(
            tokens(),
            position,
            &cross_packed,
            mask,
            cache,
            Some(&packed),
        );
        let (gemm, kernels) = (step_values(&gemm), step_values(&kernels));
        assert_all_close(&format!("{text:?} step {position}"), &gemm, &kernels);
        assert_eq!(
            argmax(&gemm[0]),
            argmax(&kernels[0]),
            "{text:?} step {position}"
        );
        token = argmax(&gemm[0]) as u32;
        output.push(token);
        if token == config.eos_id {
            break;
        }
    }
    output
}

#[test]
fn packed_weights_give_gemm_s_numbers_on_the_shipped_models() {
    for (model, text, tokens) in [
        ("en-zh", "I love eating apples.", "我爱吃苹果。"),
        ("zh-en", "我爱吃苹果。", "I love eating apples."),
        ("date-iso", "Friday, the 29th of August 1958", "1958-08-29"),
    ] {
        let folder = common::shipped(model);
        let output = compare(&folder, text);
        let loaded = LoadedModel::load(folder.files(), &Device::flex()).unwrap();
        let mut ids = loaded.tgt_tokenizer.encode(tokens).unwrap().ids;
        ids.push(loaded.config.eos_id);
        assert_eq!(output, ids, "{model}: {text:?} should give {tokens:?}");
    }
}

#[test]
fn packed_weights_give_gemm_s_numbers_with_biases_and_odd_widths() {
    let folder = common::tiny_model_with(false, 5, |config| {
        config.attention_bias = true;
        config.d_ff = 37;
    });
    let output = compare(&folder, "we eat noodles");
    assert_eq!(output.len(), 12);
}

/// The decoder over a whole prefix from the cross-attention keys and values the encoder's pass
/// projected (what a session's re-decode, stages and batched scores run), and the same with heads
/// off (the packed copy's `without_heads` against the model's): gemm's numbers, each time.
#[test]
fn packed_prefix_passes_and_packed_heads_off_give_gemm_s_numbers() {
    let folder = common::tiny_model_with(false, 5, |config| {
        config.attention_bias = true;
        config.d_ff = 37;
    });
    let device = Device::flex();
    let loaded = LoadedModel::load(folder.files(), &device).unwrap();
    let config = &loaded.config;
    let ablation = Ablation::parse("encoder:1:2,decoder:0:1,cross:1:3").unwrap();
    let intact = block_on(PackedWeights::new(&loaded.model)).unwrap();
    let ablated = (
        loaded.model.without_heads(config, &ablation).unwrap(),
        intact.without_heads(config, &ablation).unwrap(),
    );
    let source = loaded.source_ids("we eat noodles").unwrap();
    let target = [config.bos_id, 5, 7, 9, 4];
    let mut logits = vec![];
    for (what, model, packed) in [
        ("intact", &loaded.model, &intact),
        ("heads off", &ablated.0, &ablated.1),
    ] {
        let encoded = model.encode(ids(&source, &device), None);
        let encoded_packed = model.encode_packed(ids(&source, &device), None, Some(packed));
        let cross = model.cross_key_values_packed(encoded_packed.memory.clone(), Some(packed));
        let mask = &encoded_packed.padding_mask;
        let gemm = model.decode(ids(&target, &device), &encoded, None);
        let kernels = model.decode_projected(ids(&target, &device), &cross, mask, Some(packed));
        let (gemm, kernels) = (step_values(&gemm), step_values(&kernels));
        assert_all_close(what, &gemm, &kernels);
        logits.push(kernels[0].clone());
    }
    // The heads really are off: the output moved.
    let moved = logits[0]
        .iter()
        .zip(&logits[1])
        .any(|(a, b)| (a - b).abs() > 1e-3);
    assert!(moved, "switching heads off changed nothing");
}

/// `fn` changes for `common::tiny_model_with`: each activation and each placement of the norms.
fn swish_pre_norm(config: &mut ModelConfig) {
    config.activation = Activation::Swish;
    config.set_normalisation(Normalisation::Pre);
}
fn gelu_post_norm(config: &mut ModelConfig) {
    config.activation = Activation::Gelu;
    config.set_normalisation(Normalisation::Post);
}
fn relu_no_norm(config: &mut ModelConfig) {
    config.activation = Activation::Relu;
    config.set_normalisation(Normalisation::None);
    config.scaled_attention = false;
}

/// Natively the packed layers run whole on the host (`model::host_layers`: norms, residuals,
/// activations and attention over plain buffers; GELU takes the tensor path): every activation
/// and every placement of the norms gives gemm's numbers, steps and prefix passes alike.
#[test]
fn packed_layers_give_gemm_s_numbers_for_each_activation_and_norm() {
    let device = Device::flex();
    for change in [swish_pre_norm, gelu_post_norm, relu_no_norm] {
        let folder = common::tiny_model_with(false, 7, change);
        compare(&folder, "we eat noodles"); // the encoder, cross keys and values, each step
        let loaded = LoadedModel::load(folder.files(), &device).unwrap();
        let (config, model) = (&loaded.config, &loaded.model);
        let packed = block_on(PackedWeights::new(model)).unwrap();
        let source = loaded.source_ids("we eat noodles").unwrap();
        let target = [config.bos_id, 5, 7, 9, 4];
        let encoded = model.encode(ids(&source, &device), None);
        let encoded_packed = model.encode_packed(ids(&source, &device), None, Some(&packed));
        let cross = model.cross_key_values_packed(encoded_packed.memory.clone(), Some(&packed));
        let mask = &encoded_packed.padding_mask;
        let gemm = model.decode(ids(&target, &device), &encoded, None);
        let kernels = model.decode_projected(ids(&target, &device), &cross, mask, Some(&packed));
        assert_all_close(&config.name, &step_values(&gemm), &step_values(&kernels));
    }
}
