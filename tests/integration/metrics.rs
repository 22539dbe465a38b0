//! attnscope's chrF agrees with sacrebleu's on real model outputs, with one reference and with
//! two, and on two human translators against each other, to 1e-6 (fixture made by
//! `scripts/chrf_fixture.py` with the pinned sacrebleu).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attnscope::train::agreement::{translations, two_humans};
use attnscope::train::data::metrics::{chrf, chrf_multi};
use serde_json::Value;

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/chrf.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// `ours` is the score sacrebleu gave the fixture's `case`, to 1e-6.
fn assert_sacrebleu(case: &Value, ours: f64) {
    let theirs = case["sacrebleu"].as_f64().unwrap();
    assert!(
        (ours - theirs).abs() < 1e-6,
        "{}: ours {ours}, sacrebleu {theirs}",
        case["name"]
    );
}

#[test]
fn chrf_agrees_with_sacrebleu() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 4, "both directions, both held-out sets");
    for case in cases {
        let (hypotheses, references) = (strings(&case["hypotheses"]), strings(&case["references"]));
        assert!(hypotheses.len() >= 200);
        assert_sacrebleu(case, chrf(&hypotheses, &references));
    }
}

#[test]
fn multi_reference_chrf_agrees_with_sacrebleu() {
    let fixture = fixture();
    let cases = fixture["multi_reference"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "en-zh and zh-en");
    for case in cases {
        let hypotheses = strings(&case["hypotheses"]);
        let columns: Vec<Vec<String>> = case["references"]
            .as_array()
            .unwrap()
            .iter()
            .map(strings)
            .collect();
        assert_eq!(columns.len(), 2);
        let references: Vec<Vec<String>> = (0..hypotheses.len())
            .map(|i| columns.iter().map(|c| c[i].clone()).collect())
            .collect();
        assert!(hypotheses.len() >= 100);
        let ours = chrf_multi(&hypotheses, &references);
        assert_sacrebleu(case, ours);
        // Against both, each sentence meets the nearer: never below either one alone.
        for column in &columns {
            assert!(ours >= chrf(&hypotheses, column));
        }
    }
}

#[test]
fn two_human_translators_agree_as_sacrebleu_scores_them() {
    let fixture = fixture();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    for (key, reversed) in [("en", false), ("zh", true)] {
        let (sentences, ours) = two_humans(&translations(&data, reversed).unwrap());
        let expected = &fixture["two_humans"][key];
        assert_eq!(
            sentences as u64,
            expected["sentences"].as_u64().unwrap(),
            "{key}"
        );
        let theirs = expected["sacrebleu"].as_f64().unwrap();
        assert!(
            (ours - theirs).abs() < 1e-6,
            "{key}: ours {ours}, sacrebleu {theirs}"
        );
    }
}
