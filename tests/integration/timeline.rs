//! Watch it learn: date-iso's training snapshots load through the validated loader, match the
//! training log, end at the shipped weights, and show cross-attention sharpening.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::files::timeline::{Timeline, TIMELINE_FILE};
use attnscope::session::layer_entropy;
use attnscope::{block_on, FILE_NAMES};

const SENTENCE: &str = "Friday, the 29th of August 1958";

fn timeline() -> Timeline {
    let dir = common::repo().join("models/date-iso");
    Timeline::from_json(&std::fs::read_to_string(dir.join(TIMELINE_FILE)).unwrap()).unwrap()
}

fn snapshot_bytes(file: &str) -> Vec<u8> {
    std::fs::read(common::repo().join("models/date-iso").join(file)).unwrap()
}

#[test]
fn snapshots_are_log_spaced_small_and_end_at_the_shipped_weights() {
    let timeline = timeline();
    let steps: Vec<usize> = timeline.snapshots.iter().map(|s| s.step).collect();
    assert_eq!(
        steps,
        [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 6256]
    );
    let last = timeline.snapshots.last().unwrap();
    assert_eq!(last.file, FILE_NAMES.weights);
    // Every earlier snapshot is its own F16 file, and together they fit the 7 MB budget.
    let bytes: usize = timeline.snapshots[..steps.len() - 1]
        .iter()
        .map(|s| snapshot_bytes(&s.file).len())
        .sum();
    assert!(bytes <= 7_000_000, "the timeline takes {bytes} bytes");
    assert_ne!(
        snapshot_bytes(&timeline.snapshots[steps.len() - 2].file),
        snapshot_bytes(&last.file)
    );
    assert_eq!((last.heldout, timeline.snapshots[0].heldout), (0.91, 0.0));
}

#[test]
fn every_snapshot_loads_and_its_loss_is_the_logged_one() {
    let timeline = timeline();
    let log =
        std::fs::read_to_string(common::repo().join("models/date-iso/train_log.tsv")).unwrap();
    let losses: Vec<f32> = log
        .lines()
        .skip(1)
        .map(|line| line.split('\t').nth(2).unwrap().parse().unwrap())
        .collect();
    let mut session = common::session(&common::shipped("date-iso"));
    for snapshot in &timeline.snapshots {
        // The log keeps 5 decimals.
        let logged = losses[snapshot.loss_step];
        assert!(
            (snapshot.loss - logged).abs() < 1e-5,
            "step {}: {} vs logged {logged}",
            snapshot.step,
            snapshot.loss
        );
        session
            .replace_weights(&snapshot_bytes(&snapshot.file))
            .unwrap();
        block_on(session.translate(SENTENCE)).unwrap();
    }
    assert_eq!(
        timeline.snapshots.last().unwrap().loss_step,
        losses.len() - 1
    );
    // A snapshot of another model is rejected, and the weights in place keep working.
    let other = common::shipped("en-zh").weights;
    assert!(session.replace_weights(&other).is_err());
    assert_eq!(
        block_on(session.translate(SENTENCE)).unwrap().output,
        "1958-08-29"
    );
}

#[test]
fn cross_attention_sharpens_as_the_model_learns() {
    let timeline = timeline();
    let folder = ModelFolder::read(&common::repo().join("models/date-iso")).unwrap();
    let mut session = common::session(&folder);
    let mut entropy = |file: &str| {
        session.replace_weights(&snapshot_bytes(file)).unwrap();
        let trace = block_on(session.translate(SENTENCE)).unwrap();
        (trace.output.clone(), layer_entropy(&trace.cross_attention))
    };
    let (first_output, first) = entropy(&timeline.snapshots[0].file);
    let (last_output, last) = entropy(&timeline.snapshots.last().unwrap().file);
    // Measured values (nats): near-uniform over the 33 source tokens at the start (ln 33 = 3.50),
    // much sharper at the end in both layers.
    for (measured, expected) in [(&first, [3.329, 3.349]), (&last, [1.476, 1.572])] {
        for (m, e) in measured.iter().zip(expected) {
            assert!(
                (m - e).abs() < 0.01,
                "entropy {measured:?}, expected {expected:?}"
            );
        }
    }
    assert!(first[0] - last[0] > 1.8);
    assert!(first[1] - last[1] > 1.7);
    assert_ne!(first_output, last_output);
    assert_eq!(last_output, "1958-08-29");
}

#[test]
fn the_cli_prints_the_timeline_and_traces_a_checkpoint() {
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &["timeline", "--model", "models/date-iso", SENTENCE, "--json"],
    );
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), 15);
    assert_eq!(rows[14]["output"], "1958-08-29");
    assert_eq!(rows[9]["step"], 256);
    assert_eq!(rows[9]["output"], "2085-08-28");
    assert_eq!(rows[0]["crossEntropy"].as_array().unwrap().len(), 2);
    let at = |command: &str, step: &str, extra: &[&str]| {
        let mut args = vec![
            command,
            "--model",
            "models/date-iso",
            "--checkpoint",
            step,
            SENTENCE,
        ];
        args.extend(extra);
        common::attnscope(env!("CARGO_BIN_EXE_attnscope"), &args)
    };
    let out = at("translate", "256", &[]);
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "2085-08-28");
    let out = at("trace", "4096", &["--json"]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["trace"]["output"], "1958-08-29");
    let out = at("translate", "3", &[]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: timeline.json: no snapshot at step 3"),
        "{err}"
    );
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["timeline", "--model", "models/en-zh", "hello"],
    );
    assert!(!out.status.success());
}

/// en-zh's timeline: recordings of 8 sentences (its 10 MB snapshots do not fit the repository).
mod en_zh {
    use super::*;
    use attnscope::train::recording::read_recording;
    use attnscope::AttentionStack;

    const EXAMPLE: &str = "I love eating apples.";

    fn folder() -> std::path::PathBuf {
        common::repo().join("models/en-zh")
    }

    fn timeline() -> Timeline {
        Timeline::from_json(&std::fs::read_to_string(folder().join(TIMELINE_FILE)).unwrap())
            .unwrap()
    }

    #[test]
    fn snapshots_are_recordings_within_8_mb_and_end_at_the_shipped_weights() {
        let timeline = timeline();
        let steps: Vec<usize> = timeline.snapshots.iter().map(|s| s.step).collect();
        let mut expected: Vec<usize> = std::iter::once(0).chain((0..15).map(|k| 1 << k)).collect();
        expected.push(26220);
        assert_eq!(steps, expected);
        let (last, recorded) = timeline.snapshots.split_last().unwrap();
        assert_eq!(
            (last.file.as_str(), last.recorded),
            (FILE_NAMES.weights, false)
        );
        assert!(recorded.iter().all(|s| s.recorded));
        assert_eq!(timeline.sentences.len(), 8);
        assert_eq!(timeline.sentences[0], EXAMPLE);
        // The timeline's files (as models/index.json counts them) fit the 8 MB budget.
        let mut bytes = ["timeline.json", "train_log.tsv"]
            .iter()
            .map(|f| std::fs::metadata(folder().join(f)).unwrap().len())
            .sum::<u64>();
        for snapshot in recorded {
            let path = folder().join(&snapshot.file);
            bytes += std::fs::metadata(&path).unwrap().len();
            let recording = read_recording(&path).unwrap();
            assert_eq!(recording.step, snapshot.step);
            assert_eq!(recording.answers.len(), 8);
        }
        assert!(bytes <= 8_000_000, "the timeline takes {bytes} bytes");
    }

    #[test]
    fn the_running_example_aligns_as_it_learns() {
        let timeline = timeline();
        let first = read_recording(&folder().join(&timeline.snapshots[0].file)).unwrap();
        let trace = &first.answers[0]["trace"];
        let cross: AttentionStack =
            serde_json::from_value(trace["crossAttention"].clone()).unwrap();
        let mut session = common::session(&common::shipped("en-zh"));
        let last = block_on(session.translate(EXAMPLE)).unwrap();
        assert_eq!(last.output, "我爱吃苹果。");
        assert_ne!(trace["output"], "我爱吃苹果。");
        assert_ne!(cross, last.cross_attention);
        let (first, last) = (layer_entropy(&cross), layer_entropy(&last.cross_attention));
        // Measured values (nats): near-uniform over the 6 source tokens at the start (ln 6 =
        // 1.79), sharper at the end in every layer.
        for (measured, expected) in [
            (&first, [1.631, 1.589, 1.642]),
            (&last, [0.912, 0.745, 0.928]),
        ] {
            for (m, e) in measured.iter().zip(expected) {
                assert!(
                    (m - e).abs() < 0.01,
                    "entropy {measured:?}, expected {expected:?}"
                );
            }
        }
        assert!(first.iter().zip(&last).all(|(f, l)| f - l > 0.5));
    }
}
