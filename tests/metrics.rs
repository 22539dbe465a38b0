//! attnscope's chrF agrees with sacrebleu's on real model outputs (fixture made by
//! `scripts/chrf_fixture.py` with the pinned sacrebleu).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use attnscope::train::data::metrics::chrf;
use serde_json::Value;

#[test]
fn chrf_agrees_with_sacrebleu() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/chrf.json"
    ))
    .unwrap();
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 4, "both directions, both held-out sets");
    for case in cases {
        let strings = |key: &str| -> Vec<String> {
            case[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let (hypotheses, references) = (strings("hypotheses"), strings("references"));
        assert!(hypotheses.len() >= 200);
        let ours = chrf(&hypotheses, &references);
        let theirs = case["sacrebleu"].as_f64().unwrap();
        assert!(
            (ours - theirs).abs() < 0.1,
            "{}: ours {ours}, sacrebleu {theirs}",
            case["name"]
        );
    }
}
