//! `attnscope import marian` against Hugging Face `transformers` itself: three tiny random
//! MarianMT checkpoints and what `transformers` 4.57.6 computed with them
//! (`tests/fixtures/marian/`, made by `scripts/marian/make_fixtures.py`; no torch here).
//!
//! For each checkpoint: the token ids of `MarianTokenizer`, every attention matrix within 1e-4,
//! the logits within 1e-3, and the same greedy tokens. For two tokenizer setups (nmt_nfkc and
//! identity normalization): the ids of 500 data sentences and 29 odd strings on both sides, and
//! the decoded text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use attnscope::import::{marian, CheckpointDir, CheckpointFiles, ImportOptions, Imported};
use attnscope::model::generation::Generation;
use attnscope::text::join_pieces;
use attnscope::{block_on, LoadedModel, Session};
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde_json::Value;

fn fixtures() -> PathBuf {
    common::repo().join("tests/fixtures/marian")
}

fn import(hf_dir: &str) -> Imported {
    marian(
        &CheckpointDir(&fixtures().join(hf_dir)),
        &ImportOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{hf_dir}: {e}"))
}

fn json(path: PathBuf) -> Value {
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn ids(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

/// Every number of a nested JSON array, row-major.
fn flatten(value: &Value, out: &mut Vec<f32>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| flatten(v, out)),
        Value::Number(n) => out.push(n.as_f64().unwrap() as f32),
        other => panic!("not a number: {other}"),
    }
}

fn floats(value: &Value) -> Vec<f32> {
    let mut out = vec![];
    flatten(value, &mut out);
    out
}

fn tensor_values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor.into_data().try_to_vec::<f32>().unwrap()
}

fn load(imported: &Imported) -> LoadedModel {
    LoadedModel::load(imported.folder.files(), &Device::flex()).unwrap()
}

/// Teacher-forced pass over `decoder_input_ids`: encoder, decoder and cross attentions as
/// `[layers][heads][queries][keys]` flattened, and the logits `[tgt][vocab]`.
fn forward(loaded: &LoadedModel, src: &[u32], tgt: &[u32]) -> [Vec<f32>; 4] {
    let device = Device::flex();
    let tensor = |ids: &[u32]| {
        let values: Vec<i64> = ids.iter().map(|&id| id as i64).collect();
        Tensor::<2, Int>::from_data(TensorData::new(values, [1, ids.len()]), &device)
    };
    let encoded = loaded.model.encode(tensor(src), None);
    let decoded = loaded.model.decode(tensor(tgt), &encoded, None);
    let encoder = encoded
        .attention
        .iter()
        .flat_map(|a| tensor_values(a.weights.clone()))
        .collect();
    let decoder = decoded
        .attention
        .iter()
        .flat_map(|a| tensor_values(a.self_attention.weights.clone()))
        .collect();
    let cross = decoded
        .attention
        .iter()
        .flat_map(|a| tensor_values(a.cross_attention.weights.clone()))
        .collect();
    [encoder, decoder, cross, tensor_values(decoded.logits)]
}

fn check_checkpoint(name: &str) {
    check_imported(name, &import(&format!("{name}/hf")));
}

/// `imported` against `name`'s expected.json. Its folder's own generation settings decide where
/// decoding stops: max_length 64 (hf/) runs past transformers' 20 new tokens, max_length 21
/// (tests/fixtures/hub) forces `</s>` exactly where transformers did.
fn check_imported(name: &str, imported: &Imported) {
    let expected = json(fixtures().join(name).join("expected.json"));
    let limit = imported.config.output_limit();
    let loaded = load(imported);
    let eos = imported.config.eos_id;
    let mut session = Session::load(imported.folder.files(), Device::flex()).unwrap();
    let cases = expected["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for (n, case) in cases.iter().enumerate() {
        let what = format!("{name} case {n}");
        let text = case["text"].as_str().unwrap();
        let input_ids = ids(&case["input_ids"]);

        // Token ids, as the page's session makes them (</s> appended).
        let source = session.tokenize_source(text).unwrap();
        assert_eq!(source.ids, input_ids, "{what}: token ids");

        // Attention and logits of one teacher-forced pass.
        let decoder_input = ids(&case["decoder_input_ids"]);
        let [encoder, decoder, cross, logits] = forward(&loaded, &input_ids, &decoder_input);
        for (name, ours, key, tolerance) in [
            ("encoder attention", &encoder, "encoder_attentions", 1e-4),
            ("decoder attention", &decoder, "decoder_attentions", 1e-4),
            ("cross attention", &cross, "cross_attentions", 1e-4),
            ("logits", &logits, "logits", 1e-3),
        ] {
            let theirs = floats(&case[key]);
            common::assert_close(&format!("{what}: {name}"), ours, &theirs, tolerance);
        }

        // Greedy decoding through the session, as the page runs it. transformers stops after
        // 20 new tokens and forces </s> as the 20th (forced_eos_token_id); up to that point
        // the tokens are the model's own choice and must be the same.
        let generated = ids(&case["generated_ids"]);
        block_on(session.start(text)).unwrap();
        while !session.finished() && session.trace().unwrap().tgt_ids.len() < generated.len() {
            block_on(session.step()).unwrap();
        }
        let ours = &session.trace().unwrap().tgt_ids;
        let forced = generated.len() == 21 && generated[20] == eos && limit > 21;
        let compare = if forced { 20 } else { generated.len() };
        assert_eq!(
            &ours[..compare],
            &generated[..compare],
            "{what}: greedy tokens"
        );
        if !forced {
            assert_eq!(ours.len(), generated.len(), "{what}: stops at </s>");
        }
    }
}

#[test]
fn swish_tied_multi_target_checkpoint_matches_transformers() {
    check_checkpoint("en_zh_swish_tied");
}

#[test]
fn gelu_untied_checkpoint_matches_transformers() {
    check_checkpoint("zh_en_gelu_untied");
}

#[test]
fn relu_unshared_checkpoint_with_its_own_decoder_heads_matches_transformers() {
    check_checkpoint("en_zh_relu_unshared");
}

/// `MarianTokenizer` ids for 500 data sentences and 29 odd strings, source and target side,
/// with nmt_nfkc and with identity normalization; and `decode(labels, skip_special_tokens)`.
#[test]
fn tokenizers_give_marian_tokenizer_ids() {
    let expected = json(fixtures().join("tokenizer_ids.json"));
    for setup in expected["setups"].as_array().unwrap() {
        let hf_dir = setup["hf_dir"].as_str().unwrap();
        let loaded = load(&import(hf_dir));
        let config = &loaded.config;
        let specials = [config.eos_id, config.unk_id, config.pad_id];
        let cases = setup["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 529, "{hf_dir}");
        let mut failures = vec![];
        for case in cases {
            for (side, tokenizer, text, want) in [
                (
                    "source",
                    &loaded.src_tokenizer,
                    &case["text"],
                    &case["input_ids"],
                ),
                (
                    "target",
                    &loaded.tgt_tokenizer,
                    &case["target_text"],
                    &case["labels"],
                ),
            ] {
                let text = text.as_str().unwrap();
                let mut got = tokenizer.encode(text).unwrap().ids;
                got.push(config.eos_id);
                if got != ids(want) {
                    failures.push(format!("{side} {text:?}: {got:?} != {want}"));
                }
            }
            let labels = ids(&case["labels"]);
            let pieces = labels
                .iter()
                .filter(|id| !specials.contains(id))
                .filter_map(|&id| loaded.tgt_tokenizer.token(id));
            let decoded = join_pieces(pieces, &config.tgt_joiner);
            if decoded != case["decoded"].as_str().unwrap() {
                failures.push(format!(
                    "decode {labels:?}: {decoded:?} != {}",
                    case["decoded"]
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{hf_dir} ({}): {} of {} differ:\n{}",
            setup["normalization_rule_name"],
            failures.len(),
            cases.len() * 3,
            failures.join("\n")
        );
    }
}

/// A scratch copy of the swish checkpoint with its config.json edited by `edit`.
fn edited_copy(edit: &dyn Fn(&mut Value)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixtures().join("en_zh_swish_tied/hf")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let mut config = json(dir.path().join("config.json"));
    edit(&mut config);
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    dir
}

/// The importer's message for the checkpoint in `dir` (empty if it imports).
fn import_error(dir: &tempfile::TempDir) -> String {
    marian(&CheckpointDir(dir.path()), &ImportOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

/// What the importer refuses, each with a message that says what and why.
#[test]
fn unsupported_checkpoints_are_explained() {
    let refused = |edit: &dyn Fn(&mut Value)| import_error(&edited_copy(edit));
    assert!(refused(&|c| c["activation_function"] = "gelu_new".into())
        .contains("activation_function \"gelu_new\" is not supported"));
    assert!(refused(&|c| c["model_type"] = "bart".into()).contains("model_type \"bart\""));
    assert!(refused(&|c| c["normalize_before"] = true.into()).contains("normalize_before"));
    assert!(refused(&|c| {
        c["vocab_size"] = 500.into();
        c["decoder_vocab_size"] = 500.into();
    })
    .contains("vocab.json has 418 entries, config.json's vocab_size is 500"));
    assert!(refused(&|c| c["tie_word_embeddings"] = false.into()).contains("lm_head.weight"));
    // A truncated weights file.
    let dir = edited_copy(&|_| {});
    let weights_file = dir.path().join("model.safetensors");
    let weights = std::fs::read(&weights_file).unwrap();
    std::fs::write(&weights_file, &weights[..weights.len() / 2]).unwrap();
    let message = import_error(&dir);
    assert!(message.contains("model.safetensors"), "{message}");
    // A foreign file where source.spm should be.
    let dir = edited_copy(&|_| {});
    std::fs::write(dir.path().join("source.spm"), b"{\"not\": \"a model\"}").unwrap();
    let message = import_error(&dir);
    assert!(
        message.contains("source.spm: not a SentencePiece model"),
        "{message}"
    );
}

/// A folder as a person downloads it from the hub, in memory as the page's worker holds it:
/// hf/'s files, tests/fixtures/hub's generation_config.json (max_length 21), and `weights`
/// (`model.safetensors` from hf/, or `pytorch_model.bin` from tests/fixtures/hub).
fn hub_folder(weights: &str) -> CheckpointFiles {
    let hf = fixtures().join("en_zh_swish_tied/hf");
    let hub = common::repo().join("tests/fixtures/hub");
    let mut folder = CheckpointFiles {
        folder: Some("opus-mt-tiny-en-zh".into()),
        ..CheckpointFiles::default()
    };
    for name in [
        "config.json",
        "source.spm",
        "target.spm",
        "vocab.json",
        "tokenizer_config.json",
    ] {
        folder
            .files
            .insert(name.into(), std::fs::read(hf.join(name)).unwrap());
    }
    let read = |dir: &std::path::Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    folder.files.insert(
        "generation_config.json".into(),
        read(&hub, "generation_config.json"),
    );
    let dir = if weights == "pytorch_model.bin" {
        &hub
    } else {
        &hf
    };
    folder.files.insert(weights.into(), read(dir, weights));
    folder
}

/// Both weight formats give the same model, which matches transformers, and decoding stops
/// with the `</s>` transformers forced at max_length 21 (tests/fixtures/hub/generate.json, made
/// by plain `model.generate(input_ids)` on that folder).
#[test]
fn a_hub_folder_in_either_weight_format_matches_transformers() {
    let generate = json(common::repo().join("tests/fixtures/hub/generate.json"));
    let from_bin = marian(&hub_folder("pytorch_model.bin"), &ImportOptions::default()).unwrap();
    let from_safetensors =
        marian(&hub_folder("model.safetensors"), &ImportOptions::default()).unwrap();
    assert!(
        from_bin.folder.weights == from_safetensors.folder.weights,
        "same weights"
    );
    assert_eq!(from_bin.config.name, "opus-mt-tiny-en-zh");
    assert_eq!(
        from_bin.config.generation,
        Generation {
            max_length: Some(21),
            forced_eos: true,
            bad_ids: vec![],
        }
    );
    assert_eq!(from_bin.notes, Vec::<String>::new());
    check_imported("en_zh_swish_tied", &from_bin);
    let mut session = Session::load(from_bin.folder.files(), Device::flex()).unwrap();
    assert_eq!(
        session.language_codes(),
        [">>cmn_Hans<<", ">>cmn_Hant<<", ">>yue_Hans<<"]
    );
    for case in generate["cases"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        block_on(session.translate(text)).unwrap();
        let trace = session.trace().unwrap();
        assert_eq!(trace.tgt_ids, ids(&case["generated_ids"]), "{text}");
        assert_eq!(
            trace.output,
            case["generated_text"].as_str().unwrap(),
            "{text}"
        );
    }
}

/// Generation settings attnscope does not apply are named, with the reason; the ones it applies
/// are checked against the config.
#[test]
fn generation_settings_are_applied_or_explained() {
    let mut folder = hub_folder("model.safetensors");
    let mut settings = json(common::repo().join("tests/fixtures/hub/generation_config.json"));
    settings["num_beams"] = 4.into();
    settings["repetition_penalty"] = 1.2.into();
    settings["bad_words_ids"] = serde_json::json!([[417], [5], [6, 7]]);
    folder.files.insert(
        "generation_config.json".into(),
        settings.to_string().into_bytes(),
    );
    let imported = marian(&folder, &ImportOptions::default()).unwrap();
    assert_eq!(imported.config.generation.bad_ids, [5]);
    assert_eq!(
        imported.notes,
        [
            "generation_config.json: the bad word [6,7] is not one token id; not applied",
            "generation_config.json: num_beams 4 not applied: the page decodes greedily, and its beam view searches with the width and length penalty you choose",
            "generation_config.json: repetition_penalty 1.2 not applied: attnscope shows the model's own probabilities, unchanged by these",
        ]
    );
    settings["eos_token_id"] = 3.into();
    folder.files.insert(
        "generation_config.json".into(),
        settings.to_string().into_bytes(),
    );
    let error = marian(&folder, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(
            "generation_config.json: eos_token_id is 3, config.json and vocab.json say 0"
        ),
        "{error}"
    );
    // Without a generation_config.json, transformers reads config.json's settings, and its
    // max_length defaults to 20.
    folder.files.remove("generation_config.json");
    let imported = marian(&folder, &ImportOptions::default()).unwrap();
    assert_eq!(imported.config.generation.max_length, Some(20));
    assert!(imported.config.generation.forced_eos);
}

/// A pytorch_model.bin whose pickle would run `os.system` is refused, naming what it calls,
/// and nothing runs (tests/fixtures/pickle, made by Python's own pickle).
#[test]
fn a_pickle_that_would_run_code_is_refused() {
    let mut folder = hub_folder("pytorch_model.bin");
    let evil =
        std::fs::read(common::repo().join("tests/fixtures/pickle/reduce_os_system.bin")).unwrap();
    folder.files.insert("pytorch_model.bin".into(), evil);
    let error = marian(&folder, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("posix.system"), "{error}");
}
