//! The command line: translate, trace --json, clear one-line errors with a non-zero exit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[test]
fn translate_prints_the_translation() {
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "translate",
            "--model",
            "models/en-zh",
            "I love eating apples.",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
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
        let out = common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args);
        assert!(out.status.success());
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
        vec!["train", "nope", "--out", "/tmp/attnscope-nope"],
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
}
