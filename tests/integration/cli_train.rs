//! `attnscope train`'s flags: each sets what it says in the written folder, and a value or a
//! recipe it does not fit is refused before anything trains.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

/// `train --dropout` takes a probability (a negative one is read as a value, not a flag):
/// outside [0, 1) it is refused, in one line, before anything trains.
#[test]
fn train_refuses_a_dropout_that_is_not_a_probability() {
    let (_scratch, out_dir) = scratch_model_dir();
    for p in ["1", "1.5", "-0.1", "high"] {
        let args = [
            "train",
            "date-iso",
            "--out",
            out_dir.to_str().unwrap(),
            "--dropout",
            p,
        ];
        let out = common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args);
        // A usage error: clap's exit status.
        assert_eq!(out.status.code(), Some(2), "--dropout {p}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("error: "), "--dropout {p}: {err}");
        assert!(err.contains("--dropout"), "--dropout {p}: {err}");
        let why = if p == "high" {
            "is not a number"
        } else {
            "is not a dropout probability"
        };
        assert!(err.contains(why), "--dropout {p}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "--dropout {p}: {err}");
    }
    assert!(!out_dir.exists());
}

/// A scratch folder, and the path of a model folder in it that nothing has written yet.
fn scratch_model_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let model = scratch.path().join("model");
    (scratch, model)
}

/// `train date-iso --out DIR --layers 1 --width WIDTH`, then `more`.
fn one_layer_date_iso<'a>(dir: &'a str, width: &'a str, more: &[&'a str]) -> Vec<&'a str> {
    let args = [
        "train", "date-iso", "--out", dir, "--layers", "1", "--width", width,
    ];
    [&args[..], more].concat()
}

/// `train --layers N --width W` gives both stacks N layers of d_model W and d_ff 4 W (36: 4
/// heads of 9; a date-iso run cut short by `--minutes`, whose folder loads with that shape of
/// weights); layers outside 1–12 and widths that are not a multiple of 4 in 32–1024 are
/// refused before anything trains.
#[test]
fn train_layers_and_width_set_the_shape() {
    let (_scratch, out_dir) = scratch_model_dir();
    let dir = out_dir.to_str().unwrap();
    let refused = [
        ("--layers", "0", ""),
        ("--layers", "13", ""),
        (
            "--width",
            "24",
            "24 is not a width: use a multiple of 4 in 32–1024",
        ),
        (
            "--width",
            "34",
            "34 is not a width: use a multiple of 4 in 32–1024",
        ),
        ("--width", "1032", "1032 is not a width"),
        ("--width", "wide", "\"wide\" is not a whole number"),
    ];
    for (flag, value, why) in refused {
        let args = ["train", "date-iso", "--out", dir, flag, value];
        let out = common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(flag), "{flag} {value}: {err}");
        assert!(err.contains(why), "{flag} {value}: {err}");
    }
    assert!(!out_dir.exists());
    let args = one_layer_date_iso(dir, "36", &["--minutes", "0.02"]);
    common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), &args);
    let config = attnscope::ModelConfig::from_json(
        &std::fs::read_to_string(out_dir.join("config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((config.n_encoder_layers, config.n_decoder_layers), (1, 1));
    assert_eq!((config.d_model, config.d_ff, config.n_heads), (36, 144, 4));
    let folder = attnscope::files::folder::ModelFolder::read(&out_dir).unwrap();
    let loaded =
        attnscope::LoadedModel::load(folder.files(), &burn::tensor::Device::flex()).unwrap();
    assert_eq!(loaded.config.n_encoder_layers, 1);
    assert_eq!(loaded.config.d_model, 36);
}

/// `train --subwords N` cuts the translators' English side at N pieces (a one-layer zh-en cut
/// short by `--minutes`, whose English vocabulary and config have N entries while its Chinese
/// side keeps the recipe's); outside 100–32000 it is refused before anything trains, as is
/// `--dictionary 0`.
#[test]
fn train_subwords_sets_the_english_vocabulary() {
    let (_scratch, out_dir) = scratch_model_dir();
    let dir = out_dir.to_str().unwrap();
    let train = [
        "train", "zh-en", "--data", "data", "--out", dir, "--layers", "1",
    ];
    for flag in [
        ["--subwords", "99"],
        ["--subwords", "32001"],
        ["--dictionary", "0"],
    ] {
        let args = [&train[..], &flag].concat();
        let out = common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args);
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(flag[0]), "{flag:?}: {err}");
    }
    assert!(!out_dir.exists());
    let args = [&train[..], &["--subwords", "600", "--minutes", "0.02"]].concat();
    common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), &args);
    let config = attnscope::ModelConfig::from_json(
        &std::fs::read_to_string(out_dir.join("config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((config.src_vocab_size, config.tgt_vocab_size), (2878, 600));
    let tokenizer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("tgt_tokenizer.json")).unwrap())
            .unwrap();
    assert_eq!(tokenizer["model"]["vocab"].as_object().unwrap().len(), 600);
}

/// date-iso has no grammar, English subwords or dictionary: it refuses the flags that set
/// them, naming each, instead of training as if they were not given.
#[test]
fn train_date_iso_refuses_the_translators_flags() {
    let (_scratch, out_dir) = scratch_model_dir();
    let train = [
        "train",
        "date-iso",
        "--data",
        "data",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    for (flags, message) in [
        (
            &["--grammar", "true"][..],
            "--grammar only applies to en-zh and zh-en, not to date-iso",
        ),
        (
            &["--subwords", "600", "--dictionary", "10"][..],
            "--subwords, --dictionary only apply to en-zh and zh-en, not to date-iso",
        ),
    ] {
        let out = common::attnscope(
            env!("CARGO_BIN_EXE_attnscope"),
            &[&train[..], flags].concat(),
        );
        assert_eq!(out.status.code(), Some(1), "{flags:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end(), format!("error: {message}"));
    }
    assert!(!out_dir.exists());
}

/// `train --dictionary N` adds the words of `DATA/cedict/cedict.tsv` that the recipe allows to
/// zh-en's training pairs: of three, the one whose characters the sentences spell and whose
/// sides no held-out pair has (a copy of the shipped data, a one-layer model cut short).
#[test]
fn train_dictionary_adds_the_allowed_words_to_the_training_pairs() {
    let scratch = tempfile::tempdir().unwrap();
    let tmp = scratch.path();
    for file in ["tatoeba/tatoeba.tsv", "en-zh/hsk.tsv"] {
        std::fs::create_dir_all(tmp.join("data").join(file).parent().unwrap()).unwrap();
        std::fs::copy(
            std::path::Path::new("data").join(file),
            tmp.join("data").join(file),
        )
        .unwrap();
    }
    std::fs::create_dir_all(tmp.join("data/cedict")).unwrap();
    // 苹果 is added; 龘 is in no sentence; "I love eating apples" is the running example's English.
    let rows =
        "zh\ten\tfrequency\n苹果\tapple\t3\n龘龘\tdragons\t2\n吃苹果\tI love eating apples\t1\n";
    std::fs::write(tmp.join("data/cedict/cedict.tsv"), rows).unwrap();
    let (data, out) = (tmp.join("data"), tmp.join("model"));
    let pairs = |extra: &[&str]| {
        let args = [
            &[
                "train",
                "zh-en",
                "--data",
                data.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ][..],
            &["--layers", "1", "--minutes", "0.01"],
            extra,
        ]
        .concat();
        let run = common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), &args);
        let metrics: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        (
            metrics["trainPairs"].as_u64().unwrap(),
            String::from_utf8(run.stderr).unwrap(),
        )
    };
    let (without, _) = pairs(&[]);
    let (with, log) = pairs(&["--dictionary", "3"]);
    assert_eq!(with, without + 1);
    assert!(
        log.contains("1 of the dictionary's first 3 words added"),
        "{log}"
    );
}

/// `train --resume` checkpoints date-iso as it does the translators, and a checkpoint resumes
/// only a run with its own settings: another width is refused with the settings that differ,
/// before anything is written, and the same flags resume it: the first epoch's log lines are
/// kept as they were (a fresh start would re-time them), and the timeline gets the snapshots
/// after the checkpoint's step 782 and the final model.
#[test]
fn train_resumes_only_the_run_its_checkpoint_was_written_by() {
    let scratch = tempfile::tempdir().unwrap();
    let out_dir = scratch.path();
    let dir = out_dir.to_str().unwrap();
    let run = |width: &str, epochs: &str| {
        let args = one_layer_date_iso(dir, width, &["--resume", "--stop-after-epochs", epochs]);
        common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args)
    };
    let read = |name: &str| std::fs::read_to_string(out_dir.join(name)).unwrap();
    let state =
        || -> serde_json::Value { serde_json::from_str(&read("checkpoint/state.json")).unwrap() };
    assert_eq!(run("32", "1").status.code(), Some(0));
    let first = state();
    assert_eq!(
        (first["epoch"].as_u64(), first["step"].as_u64()),
        (Some(1), Some(782))
    );
    assert_eq!(first["settings"]["d_model"], 32);
    assert_eq!(first["settings"]["training_examples"], 50_000);
    let first_log = read("train_log.tsv");
    assert_eq!(first_log.lines().count(), 783, "a header and 782 steps");

    // A run killed during epoch 2 leaves a log line after the checkpoint's step.
    let killed = format!("{first_log}783\t1\t0.5\t0.001\t30.0\n");
    std::fs::write(out_dir.join("train_log.tsv"), &killed).unwrap();
    let refused = run("40", "2");
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8(refused.stderr).unwrap();
    let why = "written by a run with other settings (d_ff 128 → 160, d_model 32 → 40); resume \
               with the flags, data and code it was started with, or remove the folder to start \
               again";
    assert!(err.contains(why), "{err}");
    assert_eq!(state(), first);
    assert_eq!(
        read("train_log.tsv"),
        killed,
        "refused before the log is cut back"
    );

    assert_eq!(run("32", "2").status.code(), Some(0));
    let second = state();
    assert_eq!(
        (second["epoch"].as_u64(), second["step"].as_u64()),
        (Some(2), Some(1564))
    );
    let log = read("train_log.tsv");
    assert!(
        log.starts_with(&first_log),
        "the first epoch's lines, as they were"
    );
    assert_eq!(log.lines().count(), 1565);
    let timeline: serde_json::Value = serde_json::from_str(&read("timeline.json")).unwrap();
    let steps: Vec<u64> = timeline["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_u64().unwrap())
        .collect();
    assert_eq!(
        steps,
        [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1564]
    );
}
