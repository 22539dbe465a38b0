//! The command line: translate, trace --json, clear one-line errors with a non-zero exit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

#[test]
fn translate_prints_the_translation() {
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "translate",
            "--model",
            "models/en-zh",
            "I love eating apples.",
        ],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().trim_end_matches('。'), "我爱吃苹果");
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["translate", "--model", "models/date-iso", "29/08/1958"],
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "1958-08-29");
}

#[test]
fn trace_json_is_the_documented_schema() {
    let trace_json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "trace",
            "--model",
            "models/en-zh",
            "I love eating apples.",
            "--json",
        ];
        args.extend(extra);
        let out = common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), &args);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let answer = trace_json(&[]);
    let trace = &answer["trace"];
    assert!(answer["stages"].is_null());
    assert_eq!(trace["srcTokens"][1], "▁love");
    assert_eq!(trace["tgtTokens"][0], "<s>");
    let cross = &trace["crossAttention"];
    let rows = trace["tgtIds"].as_array().unwrap().len() - 1;
    assert_eq!(cross["queries"], rows);
    assert_eq!(cross["keys"], trace["srcIds"].as_array().unwrap().len());
    let answer = trace_json(&["--stages", "cross:2:1"]);
    assert_eq!(answer["stages"]["kind"], "cross");
    assert_eq!(answer["stages"]["layer"], 2);
    assert_eq!(answer["stages"]["entropy"].as_array().unwrap().len(), 4);
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["positional", "--model", "models/en-zh"],
    );
    let table: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (table["rows"].as_u64(), table["cols"].as_u64()),
        (Some(64), Some(192))
    );
    assert_eq!(table["table"].as_array().unwrap().len(), 64 * 192);
    assert_eq!(table["table"][1], 1.0); // PE(0, 1) = cos 0
    let text = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["trace", "--model", "models/date-iso", "1 May 2000"],
    );
    assert!(String::from_utf8(text.stdout)
        .unwrap()
        .contains("cross-attention, layer 1, head 3"));
}

#[test]
fn errors_are_one_line_and_fail() {
    // A folder no run may write: every one below is refused first.
    let scratch = tempfile::tempdir().unwrap();
    let nope_dir = scratch.path().join("nope");
    let nope = nope_dir.to_str().unwrap();
    for args in [
        vec!["translate", "--model", "models/nope", "hi"],
        vec!["translate", "--model", "models/en-zh", ""],
        vec![
            "translate",
            "--model",
            "models/en-zh",
            "--temperature",
            "0",
            "hi",
        ],
        vec![
            "translate",
            "--model",
            "models/en-zh",
            "--prefix",
            "🍎",
            "hi",
        ],
        vec!["train", "nope", "--out", nope],
        // Usage errors, which clap writes over several lines.
        vec!["train", "date-iso", "--out", nope, "--dropout=1.5"],
        vec!["translate", "--modle", "models/en-zh", "hi"],
        vec!["train", "date-iso"],
        vec![
            "trace",
            "--model",
            "models/en-zh",
            "--stages",
            "sideways:0:0",
            "hi",
        ],
        vec![
            "trace",
            "--model",
            "models/en-zh",
            "--stages",
            "cross:9:0",
            "hi",
        ],
    ] {
        let out = common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    assert!(!nope_dir.exists());
}

/// `import marian` writes a folder that `translate` runs: the output is the text transformers'
/// `generate` decoded for the same checkpoint and sentence.
#[test]
fn import_marian_then_translate_gives_transformers_output() {
    let out_dir = tempfile::tempdir().unwrap();
    let out_arg = out_dir.path().to_str().unwrap();
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "import",
            "marian",
            "tests/fixtures/marian/zh_en_gelu_untied/hf",
            "--out",
            out_arg,
            "--name",
            "tiny-marian",
        ],
    );
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("(tiny-marian): d_model 32, 1+2 layers, 4/4 heads, vocabulary 418"));
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["translate", "--model", out_arg, "你答对了。"],
    );
    // tests/fixtures/marian/zh_en_gelu_untied/expected.json, case 1, generated_text.
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "t I高的男是中国人:是中国人儿高的男"
    );
}

/// `random views` writes a 6+6-layer, 8-head model that loads and decodes to its length limit.
#[test]
fn random_views_model_has_the_asked_shape() {
    let out_dir = tempfile::tempdir().unwrap();
    let out_arg = out_dir.path().to_str().unwrap();
    common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &["random", "views", "--out", out_arg, "--max-len", "20"],
    );
    let folder = attnscope::files::folder::ModelFolder::read(out_dir.path()).unwrap();
    let mut session = common::session(&folder);
    let config = session.config().clone();
    assert_eq!(
        (
            config.n_encoder_layers,
            config.n_decoder_layers,
            config.n_heads,
            config.max_len
        ),
        (6, 6, 8, 20)
    );
    let trace = attnscope::block_on(session.translate("I love eating apples.")).unwrap();
    assert_eq!(trace.cross_attention.layers, 6);
    assert_eq!(trace.cross_attention.heads, 8);
    // Random weights never choose </s> on purpose: decoding runs to the limit.
    assert!(trace.tgt_ids.len() == 20 || trace.steps.last().map(|s| s.id) == Some(config.eos_id));
}

#[test]
fn eval_with_a_beam_of_one_scores_like_greedy() {
    // `eval --beam 1` goes through the page's beam search one sentence at a time; with one beam
    // it must choose what the batched greedy decoder chose, so every held-out figure of the
    // shipped metrics.json comes out equal.
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &["eval", "--model", "models/date-iso", "--beam", "1"],
    );
    let beam: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shipped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("models/date-iso/metrics.json").unwrap())
            .unwrap();
    let sets = |m: &serde_json::Value| {
        m["sets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].clone(),
                    s["chrf"].clone(),
                    s["exactMatch"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(sets(&beam).len(), 2);
    assert_eq!(sets(&beam), sets(&shipped));
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["eval", "--model", "models/date-iso", "--beam", "9"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("beam width 9 is out of range"));
}

/// `eval --loss` scores each held-out set and the recipe's own training pairs (date-iso's
/// 50,000 generated dates) without decoding, and the gap is held-out minus training.
#[test]
fn eval_loss_scores_heldout_and_training_pairs() {
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &["eval", "--model", "models/date-iso", "--loss"],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["model"], "date-iso");
    let sets = report["sets"].as_array().unwrap();
    let names: Vec<&str> = sets.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["generated", "hand-written"]);
    let shipped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("models/date-iso/metrics.json").unwrap())
            .unwrap();
    assert_eq!(sets[0]["pairs"], shipped["sets"][0]["pairs"]);
    let train = &report["train"];
    assert_eq!(train["name"], "train");
    assert_eq!(
        train["pairs"].as_u64().unwrap() + train["dropped"].as_u64().unwrap(),
        50_000
    );
    let ce = |v: &serde_json::Value| v["crossEntropy"].as_f64().unwrap();
    for set in sets.iter().chain([train]) {
        // A trained model: far below a uniform guess over its 21 target tokens (ln 21 = 3.04
        // nats), and each perplexity is e to its cross-entropy.
        assert!(ce(set) > 0.0 && ce(set) < 0.5, "{set}");
        let perplexity = set["perplexity"].as_f64().unwrap();
        assert!((perplexity - ce(set).exp()).abs() < 1e-9, "{set}");
    }
    let gap = report["gap"].as_f64().unwrap();
    assert!((gap - (ce(&sets[0]) - ce(train))).abs() < 1e-12);
    // A sample spread over the training pairs (every 50th of 50,000), or none.
    let sampled = |n: &str| {
        let args = [
            "eval",
            "--model",
            "models/date-iso",
            "--loss",
            "--train-sample",
            n,
        ];
        let out = common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), &args);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let report = sampled("1000");
    assert_eq!(report["train"]["pairs"], 1000);
    assert_eq!(report["sets"][0], sets[0]);
    let report = sampled("0");
    assert!(report["train"].is_null() && report["gap"].is_null());
    // --loss does not decode: the decoding options are refused.
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "eval",
            "--model",
            "models/date-iso",
            "--loss",
            "--beam",
            "2",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--loss does not decode"));
}

#[test]
fn eval_update_metrics_rewrites_the_figures_and_keeps_the_training_run() {
    // An unchanged model evaluates to the figures its training run wrote: the rewritten
    // metrics.json is the shipped one, byte for byte (training pairs and seconds kept).
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    for file in [
        "config.json",
        "model.safetensors",
        "src_tokenizer.json",
        "tgt_tokenizer.json",
        "metrics.json",
    ] {
        std::fs::copy(format!("models/date-iso/{file}"), dir.join(file)).unwrap();
    }
    let model = dir.to_str().unwrap();
    common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &["eval", "--model", model, "--update-metrics"],
    );
    let shipped = std::fs::read_to_string("models/date-iso/metrics.json").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("metrics.json")).unwrap(),
        shipped
    );
    // metrics.json stays greedy with every head on.
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["eval", "--model", model, "--update-metrics", "--beam", "2"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("drop --beam and --ablate"));
}
