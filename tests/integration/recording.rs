//! Recorded timelines: a snapshot's recording is exactly what a session with its weights
//! answers, the weights give way to it, and only the last snapshot stays weights.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::timeline::{Snapshot, Timeline, TIMELINE_FILE};
use attnscope::session::{Answer, Focus};
use attnscope::trace::analysis::Analysis;
use attnscope::train::recording::{read_recording, record_timeline, RECORDED_TOKENS};
use attnscope::{block_on, ModelConfig, FILE_NAMES};

/// A tiny model's folder in a fresh scratch directory, with two weight snapshots before its
/// final weights (seeds 11 and 12), and the timeline listing them.
fn folder_with_snapshots() -> (tempfile::TempDir, ModelConfig) {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let folder = common::tiny_model(true, 10);
    folder.write(dir).unwrap();
    let config = ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap()).unwrap();
    std::fs::create_dir_all(dir.join("timeline")).unwrap();
    let mut snapshots = vec![];
    for (step, seed) in [(0, 11), (4, 12)] {
        let file = format!("timeline/step-{step:06}.safetensors");
        std::fs::write(dir.join(&file), common::random_weights(&config, seed)).unwrap();
        snapshots.push(snapshot(step, file));
    }
    snapshots.push(snapshot(9, FILE_NAMES.weights.to_string()));
    let timeline = Timeline {
        model: config.name.clone(),
        heldout_metric: "exact match".into(),
        heldout_pairs: 3,
        snapshots,
        sentences: vec![],
    };
    let json = serde_json::to_string(&timeline).unwrap();
    std::fs::write(dir.join(TIMELINE_FILE), json).unwrap();
    (scratch, config)
}

/// [`folder_with_snapshots`] with its timeline recorded for the tiny texts: the folder, its
/// config and the sentences.
fn recorded_folder() -> (tempfile::TempDir, ModelConfig, Vec<String>) {
    let (scratch, config) = folder_with_snapshots();
    let sentences: Vec<String> = common::TINY_TEXTS.iter().map(|s| s.to_string()).collect();
    record_timeline(scratch.path(), &sentences).unwrap();
    (scratch, config, sentences)
}

fn snapshot(step: usize, file: String) -> Snapshot {
    Snapshot {
        step,
        file,
        recorded: false,
        loss: 1.0,
        loss_step: step,
        heldout: 0.0,
    }
}

/// Where two JSON values first differ, as a path and both values; None when they are equal.
fn difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => difference(v, w, &format!("{path}.{k}")),
                None => Some(format!("{path}.{k} missing")),
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| difference(v, w, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} vs {b}")),
    }
}

/// The error output of an `attnscope` run that must fail.
fn refused(bin: &str, args: &[&str]) -> String {
    let out = common::attnscope(bin, args);
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8(out.stderr).unwrap()
}

fn read_timeline(dir: &std::path::Path) -> Timeline {
    Timeline::from_json(&std::fs::read_to_string(dir.join(TIMELINE_FILE)).unwrap()).unwrap()
}

#[test]
fn a_recording_is_what_the_session_answers_with_the_snapshots_weights() {
    let (scratch, config, sentences) = recorded_folder();
    let dir = scratch.path();
    let timeline = read_timeline(dir);
    assert_eq!(timeline.sentences, sentences);
    let files: Vec<(&str, bool)> = timeline
        .snapshots
        .iter()
        .map(|s| (s.file.as_str(), s.recorded))
        .collect();
    assert_eq!(
        files,
        [
            ("timeline/step-000000.json.gz", true),
            ("timeline/step-000004.json.gz", true),
            (FILE_NAMES.weights, false)
        ]
    );
    // The weights are gone: only the recordings and the shipped weights remain.
    assert!(!dir.join("timeline/step-000000.safetensors").exists());

    // The same weights, in a session of their own, answer exactly what was recorded.
    let mut session = common::session(&common::tiny_model(true, 10));
    for (index, seed) in [(0usize, 11u64), (1, 12)] {
        let recording = read_recording(&dir.join(&timeline.snapshots[index].file)).unwrap();
        assert_eq!(recording.step, timeline.snapshots[index].step);
        assert_eq!(recording.answers.len(), sentences.len());
        session
            .replace_weights(&common::random_weights(&config, seed))
            .unwrap();
        for (text, recorded) in sentences.iter().zip(&recording.answers) {
            block_on(session.start(text)).unwrap();
            for _ in 0..RECORDED_TOKENS {
                if session.finished() {
                    break;
                }
                block_on(session.step()).unwrap();
            }
            let stages = block_on(session.stages(Focus::DEFAULT)).unwrap();
            let trace = session.trace().unwrap();
            let answer = Answer {
                analysis: Some(Analysis::of(trace)),
                ..Answer::new(trace, stages)
            };
            // Through JSON text, as the recording went (f32 → shortest decimal → f64).
            let live: serde_json::Value =
                serde_json::from_str(&serde_json::to_string(&answer).unwrap()).unwrap();
            assert_eq!(difference(&live, recorded, "answer"), None, "{text}");
            // A random model never stops on its own: the recording keeps its first tokens.
            assert!(trace.tgt_ids.len() <= RECORDED_TOKENS + 1);
        }
    }

    // Recording again changes nothing; other sentences are refused.
    let before = std::fs::read(dir.join("timeline/step-000004.json.gz")).unwrap();
    record_timeline(dir, &sentences).unwrap();
    assert_eq!(
        std::fs::read(dir.join("timeline/step-000004.json.gz")).unwrap(),
        before
    );
    let err = record_timeline(dir, &sentences[..1])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "timeline.json: it is already recorded, with other sentences"
    );
}

#[test]
fn the_cli_reads_recordings_and_refuses_a_recorded_step_as_weights() {
    let (scratch, _, _) = recorded_folder();
    let model = scratch.path().to_str().unwrap();
    let bin = env!("CARGO_BIN_EXE_attnscope");
    let out = common::attnscope_ok(
        bin,
        &["timeline", "--model", model, "--json", "You like tea."],
    );
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let steps: Vec<u64> = rows.iter().map(|r| r["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, [0, 4, 9]);
    // The last row is the final weights decoding live.
    let live = common::attnscope(bin, &["translate", "--model", model, "You like tea."]);
    assert_eq!(
        rows[2]["output"].as_str().unwrap(),
        String::from_utf8(live.stdout).unwrap().trim()
    );

    let err = refused(bin, &["timeline", "--model", model, "Not recorded."]);
    assert!(
        err.contains("\"Not recorded.\" is not one of the recorded sentences"),
        "{err}"
    );

    let err = refused(
        bin,
        &[
            "translate",
            "--model",
            model,
            "--checkpoint",
            "4",
            "You like tea.",
        ],
    );
    assert!(
        err.contains(
            "the snapshot at step 4 is a recording of the timeline's sentences, not weights"
        ),
        "{err}"
    );
}
