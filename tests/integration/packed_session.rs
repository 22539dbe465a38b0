//! A session whose projections are packed and whose unpacked matrices are dropped
//! (`PackedWeights::drop_unpacked`, what the CPU of a wasm module runs) against one that keeps
//! burn's gemm: every session call gives the same numbers. Each is asked for its path
//! ([`Session::pack_everywhere`], [`Session::pack_nowhere`]): a native build packs on an x86-64
//! CPU with AVX2 and FMA only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::files::stream::WeightsStream;
use attnscope::files::weights::{read_weights, serialize, HostTensor};
use attnscope::model::ablation::Ablation;
use attnscope::model::packed::PackedWeights;
use attnscope::session::Inspect;
use attnscope::trace::journey::Stack;
use attnscope::{block_on, AttentionKind, Focus, Session};
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde_json::{json, Value};

const TEXT: &str = "We eat noodles every day.";
const HEADS_OFF: &str = "encoder:1:2,decoder:0:1,cross:1:3";

/// Every number of `packed` within 1e-4 (relative above 1) of `gemm`'s; everything else equal.
fn assert_same(what: &str, gemm: &Value, packed: &Value) {
    match (gemm, packed) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!(
                (a - b).abs() <= 1e-4 * (1.0 + a.abs()),
                "{what}: {a} vs {b}"
            );
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{what}: lengths");
            for (i, (a, b)) in a.iter().zip(b).enumerate() {
                assert_same(&format!("{what}[{i}]"), a, b);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(
                a.keys().collect::<Vec<_>>(),
                b.keys().collect::<Vec<_>>(),
                "{what}"
            );
            for (key, a) in a {
                assert_same(&format!("{what}.{key}"), a, &b[key]);
            }
        }
        _ => assert_eq!(gemm, packed, "{what}"),
    }
}

/// What the page reads once a sentence is decoded: the trace, the full re-decode, one head's
/// stages of each kind, a journey through each stack, and the heads' importance.
fn readings(session: &mut Session, label: &str) -> Vec<(String, Value)> {
    let mut out = vec![];
    let trace = block_on(session.translate(TEXT)).unwrap().clone();
    out.push((format!("{label} trace"), json!(trace)));
    let recomputed = block_on(session.recompute_decoder()).unwrap();
    out.push((format!("{label} recompute"), json!(recomputed)));
    for kind in [
        AttentionKind::EncoderSelf,
        AttentionKind::DecoderSelf,
        AttentionKind::Cross,
    ] {
        let focus = Focus {
            kind,
            layer: 1,
            head: 3,
        };
        let stages = block_on(session.stages(focus)).unwrap();
        out.push((format!("{label} stages {kind:?}"), json!(stages)));
    }
    for (stack, layer) in [
        (Stack::Encoder, 0),
        (Stack::Encoder, 1),
        (Stack::Decoder, 0),
        (Stack::Decoder, 1),
    ] {
        let request = Inspect {
            stack,
            layer,
            position: 1,
        };
        let journey = block_on(session.inspect(request)).unwrap();
        out.push((format!("{label} inspect {stack:?} {layer}"), json!(journey)));
    }
    let importance = block_on(session.importance()).unwrap();
    out.push((format!("{label} importance"), json!(importance)));
    out
}

/// Every call the page makes, in the order a visit might make them.
fn visit(session: &mut Session, snapshot: &[u8]) -> Vec<(String, Value)> {
    let texts = common::TINY_TEXTS;
    let mut out = readings(session, "intact");
    let batch = block_on(session.padded_batch(&texts)).unwrap();
    out.push(("batch".into(), json!(batch)));
    let ablation = Ablation::parse(HEADS_OFF).unwrap();
    let report = block_on(session.ablate(&ablation)).unwrap();
    out.push(("ablate".into(), json!(report)));
    let twin = block_on(session.twin().translate(TEXT)).unwrap().clone();
    out.push(("twin".into(), json!(twin)));
    session.set_ablation(ablation).unwrap();
    // Before any sentence: a pass that needs none.
    let batch = block_on(session.padded_batch(&texts)).unwrap();
    out.push(("heads off, batch".into(), json!(batch)));
    out.extend(readings(session, "heads off"));
    let twin = block_on(session.twin().translate(TEXT)).unwrap().clone();
    out.push(("heads off, twin".into(), json!(twin)));
    session.replace_weights(snapshot).unwrap();
    out.extend(readings(session, "snapshot, heads off"));
    session.set_ablation(Ablation::default()).unwrap();
    out.extend(readings(session, "snapshot, heads on"));
    out
}

fn compare(folder: &ModelFolder) {
    let config =
        attnscope::ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap()).unwrap();
    let snapshot = common::random_weights(&config, 11);
    let mut gemm = common::session(folder);
    gemm.pack_nowhere();
    let mut packed = common::session(folder);
    packed.pack_everywhere();
    let (gemm, packed_values) = (visit(&mut gemm, &snapshot), visit(&mut packed, &snapshot));
    assert_eq!(gemm.len(), packed_values.len());
    for ((what, a), (_, b)) in gemm.iter().zip(&packed_values) {
        assert_same(&format!("{} {what}", config.name), a, b);
    }
    // The packed session did drop its matrices: a pass around the packed copy fails loudly.
    let model = packed.intact_model();
    assert!(PackedWeights::dropped(model));
    let values: Vec<i64> = vec![2, 5, 1];
    let src = Tensor::<2, Int>::from_data(TensorData::new(values, [1, 3]), &Device::flex());
    let unpacked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        model.encode(src, None);
    }));
    assert!(
        unpacked.is_err(),
        "an unpacked pass ran on dropped matrices"
    );
}

#[test]
fn a_session_without_its_unpacked_matrices_gives_gemm_s_numbers_post_norm_with_biases() {
    compare(&common::tiny_model_with(false, 5, |config| {
        config.attention_bias = true;
        config.d_ff = 37;
    }));
}

#[test]
fn a_session_without_its_unpacked_matrices_gives_gemm_s_numbers_pre_norm_tied() {
    compare(&common::tiny_model_with(true, 3, |config| {
        config.tie_output = true;
    }));
}

/// `folder` with its weights stored in F16.
fn in_f16(folder: &ModelFolder) -> ModelFolder {
    let config =
        attnscope::ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap()).unwrap();
    let tensors = read_weights(&config, &folder.weights).unwrap();
    let tensors: Vec<_> = tensors.into_iter().collect();
    ModelFolder {
        weights: serialize(&tensors, true).unwrap(),
        ..folder.clone()
    }
}

/// A session loaded as the CPU of a wasm module loads (`Session::load_packed`): the file
/// streamed in chunks of 1,000 bytes, its projections packed straight from its bytes.
fn streamed(folder: &ModelFolder, half: bool) -> Session {
    let mut stream = WeightsStream::new(folder.weights.len());
    for chunk in folder.weights.chunks(1000) {
        stream.push(chunk).unwrap();
    }
    let texts = [
        &folder.config[..],
        &folder.src_tokenizer,
        &folder.tgt_tokenizer,
    ];
    Session::load_packed(texts, stream.finish().unwrap(), Device::flex(), Some(half)).unwrap()
}

/// Streamed and packed from the file's bytes, in F32 tiles or in F16 tiles (an F16 file), a
/// session gives the very bits of one that packs its model's F32 matrices at its first sentence
/// (each F16 widens exactly), and it holds no unpacked matrix from the start.
fn compare_streamed(folder: &ModelFolder) {
    let config =
        attnscope::ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap()).unwrap();
    let snapshot = common::random_weights(&config, 11);
    let texts = common::TINY_TEXTS;
    // A pass before any sentence (the page's padding demo): gemm's numbers, not a crash on the
    // streamed session's empty matrices.
    let before = json!(block_on(common::session(folder).padded_batch(&texts)).unwrap());
    let mut packed = common::session(folder);
    packed.pack_everywhere();
    let expected = visit(&mut packed, &snapshot);
    let halves: &[bool] = match width(folder) {
        2 => &[false, true],
        _ => &[false],
    };
    for &half in halves {
        let session = streamed(folder, half);
        let batch = json!(block_on(session.padded_batch(&texts)).unwrap());
        assert_same(
            &format!("half {half}, a batch before any sentence"),
            &before,
            &batch,
        );
        let mut session = streamed(folder, half);
        assert!(
            PackedWeights::dropped(session.intact_model()),
            "half {half}"
        );
        // In F16, the embedding tables are kept beside the tiles, not in the model.
        let table = session.intact_model().src_embed.weight.val().dims();
        assert_eq!(table == [0, 0], half, "half {half}: source table {table:?}");
        let got = visit(&mut session, &snapshot);
        assert_eq!(got.len(), expected.len());
        for ((what, a), (_, b)) in expected.iter().zip(&got) {
            assert_eq!(a, b, "{} {what}, half tiles {half}", config.name);
        }
    }
}

/// Bytes per value of a folder's weights.
fn width(folder: &ModelFolder) -> usize {
    let file = safetensors::SafeTensors::deserialize(&folder.weights).unwrap();
    let (_, view) = file.tensors().into_iter().next().unwrap();
    view.dtype().bitsize() / 8
}

#[test]
fn a_streamed_session_gives_the_packed_session_s_bits_post_norm_with_biases_f32_and_f16() {
    let folder = common::tiny_model_with(false, 5, |config| {
        config.attention_bias = true;
        config.d_ff = 37;
    });
    compare_streamed(&folder);
    compare_streamed(&in_f16(&folder));
}

#[test]
fn a_streamed_session_gives_the_packed_session_s_bits_pre_norm_tied_f16() {
    let folder = common::tiny_model_with(true, 3, |config| {
        config.tie_output = true;
    });
    compare_streamed(&in_f16(&folder));
}

#[test]
fn a_streamed_file_that_does_not_fit_its_config_is_refused_with_the_whole_file_s_errors() {
    let folder = common::tiny_model_with(false, 5, |_| {});
    let config =
        attnscope::ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap()).unwrap();
    let mut tensors: Vec<_> = read_weights(&config, &folder.weights)
        .unwrap()
        .into_iter()
        .collect();
    let texts = [
        &folder.config[..],
        &folder.src_tokenizer,
        &folder.tgt_tokenizer,
    ];
    let load = |tensors: &[(String, HostTensor)]| {
        let bytes = serialize(tensors, true).unwrap();
        let whole = Session::load(
            attnscope::files::folder::ModelFiles {
                weights: &bytes,
                ..folder.files()
            },
            Device::flex(),
        )
        .err()
        .map(|e| e.to_string());
        let stream = WeightsStream::from_bytes(&bytes)
            .and_then(WeightsStream::finish)
            .unwrap();
        let streamed = Session::load_packed(texts, stream, Device::flex(), None)
            .err()
            .map(|e| e.to_string());
        (whole, streamed)
    };
    // A missing tensor, an extra one, a wrong shape, an infinite value.
    let mut cases = vec![];
    let mut missing = tensors.clone();
    missing.retain(|(name, _)| name != "encoder.layers.1.ffn.linear_2.weight");
    cases.push(missing);
    let mut extra = tensors.clone();
    extra.push((
        "zz.extra".into(),
        HostTensor {
            shape: vec![1],
            data: vec![0.0],
        },
    ));
    cases.push(extra);
    let mut shape = tensors.clone();
    shape[3].1.shape = vec![shape[3].1.data.len()];
    cases.push(shape);
    tensors[5].1.data[2] = f32::INFINITY;
    cases.push(tensors);
    for case in &cases {
        let (whole, streamed) = load(case);
        assert!(whole.is_some(), "the whole file loaded");
        assert_eq!(whole, streamed);
    }
}
