//! Beam search, occlusion attribution and the CLI's analysis output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::session::sampling::log_probabilities;
use attnscope::text::{build_tokenizer, Granularity};
use attnscope::{block_on, Error, ModelConfig, Session};

#[test]
fn beam_width_one_is_greedy() {
    for (model, texts) in [
        (
            "en-zh",
            &[
                "I love eating apples.",
                "The box is heavy.",
                "Where is the station?",
            ][..],
        ),
        ("date-iso", &["Aug 29, '58", "1 May 2000", "hello"][..]),
    ] {
        let mut session = common::session(&common::shipped(model));
        for text in texts {
            let greedy = block_on(session.translate(text)).unwrap().tgt_ids[1..].to_vec();
            let search = block_on(session.beam(1, 1.0)).unwrap();
            assert_eq!(search.finals.len(), 1);
            assert_eq!(search.finals[0].ids, greedy, "{model} {text:?}");
            // Width 1 prunes nothing it expands: one node per step.
            assert!(search.nodes.iter().all(|n| n.kept));
        }
    }
    let mut session = common::session(&common::shipped("en-zh"));
    block_on(session.start("Hi.")).unwrap();
    for width in [0, 9] {
        assert!(matches!(
            block_on(session.beam(width, 1.0)),
            Err(Error::Usage(_))
        ));
    }
    assert!(block_on(session.beam(2, -1.0)).is_err());
}

/// A tiny model whose target vocabulary is `<pad> <unk> <s> </s> a b` and whose outputs are at
/// most 4 tokens long, so every output can be enumerated.
fn tiny_two_letter_model(seed: u64) -> ModelFolder {
    let src = build_tokenizer(Granularity::Words, common::TINY_TEXTS, 1).unwrap();
    let tgt = build_tokenizer(Granularity::Characters, ["ab", "ba"], 1).unwrap();
    let mut config = ModelConfig::en_zh(src.vocab_size(), tgt.vocab_size());
    common::resize(&mut config, [16, 2, 1, 2, 16, 5]);
    ModelFolder {
        config: config.to_json().unwrap().into_bytes(),
        weights: common::random_weights(&config, seed),
        src_tokenizer: src.to_json().unwrap().into_bytes(),
        tgt_tokenizer: tgt.to_json().unwrap().into_bytes(),
    }
}

/// Every finished output (ending in `</s>`, at most 4 tokens) with its log-probability,
/// each scored by teacher forcing through the session.
fn exhaustive(session: &mut Session, src: &str) -> Vec<(Vec<u32>, f64)> {
    let config = session.config().clone();
    let choices: Vec<u32> = (0..config.tgt_vocab_size as u32)
        .filter(|id| !config.never_generated().contains(id) && *id != config.eos_id)
        .collect();
    let mut prefixes: Vec<Vec<u32>> = vec![vec![]];
    let mut out = vec![];
    for _ in 0..config.max_len - 1 {
        let mut next = vec![];
        for prefix in &prefixes {
            let mut ids = prefix.clone();
            ids.push(config.eos_id);
            block_on(session.start(src)).unwrap();
            block_on(session.force_ids(&ids)).unwrap();
            let (_, _, logits) = block_on(session.recompute_decoder()).unwrap();
            let vocab = config.tgt_vocab_size;
            let log_prob: f64 = ids
                .iter()
                .enumerate()
                .map(|(i, &id)| log_probabilities(&logits[i * vocab..(i + 1) * vocab])[id as usize])
                .sum();
            out.push((ids, log_prob));
            next.extend(choices.iter().map(|&c| [prefix.as_slice(), &[c]].concat()));
        }
        prefixes = next;
    }
    out
}

#[test]
fn a_wide_beam_equals_exhaustive_search() {
    for seed in [3, 4] {
        let folder = tiny_two_letter_model(seed);
        let mut session = common::session(&folder);
        let src = "You like tea.";
        let mut all = exhaustive(&mut session, src);
        // 1 + 3 + 9 + 27 finished outputs of up to 4 tokens over {<unk>, a, b}.
        assert_eq!(all.len(), 40);
        block_on(session.start(src)).unwrap();
        let search = block_on(session.beam_search(128, 0.7)).unwrap();
        assert_eq!(
            search.finals.len(),
            40,
            "a beam this wide keeps every output"
        );
        let score = |ids: &[u32], log_prob: f64| {
            log_prob / attnscope::session::length_penalty(ids.len(), 0.7)
        };
        all.sort_by(|a, b| score(&b.0, b.1).total_cmp(&score(&a.0, a.1)));
        for (found, (ids, log_prob)) in search.finals.iter().zip(&all) {
            assert_eq!(&found.ids, ids, "seed {seed}: ranking differs");
            assert!((found.log_prob - log_prob).abs() < 1e-4);
        }
        // A narrow beam finds the best output here too, and never scores above it.
        let narrow = block_on(session.beam(4, 0.7)).unwrap();
        assert!(narrow.finals[0].score <= search.finals[0].score + 1e-9);
    }
}

#[test]
fn occlusion_of_an_unknown_word_changes_nothing_and_matches_a_recomputation() {
    // A word-level model (the shipped en-zh cuts unseen words into known subwords instead).
    let mut session = common::session(&common::tiny_model(true, 7));
    // "zxqv" is not in the vocabulary: it already is <unk>, so occluding it changes no input.
    let text = "I love zxqv apples.";
    let trace = block_on(session.translate(text)).unwrap().clone();
    assert!(trace.src_unknown[2]);
    for row in 0..trace.steps.len() {
        let attribution = block_on(session.attribution(row)).unwrap();
        assert_eq!(attribution.occlusion[2], 0.0, "row {row}");
        assert_eq!(attribution.occlusion.len(), trace.src_ids.len());
        assert!((-1.0..=1.0).contains(&attribution.spearman_attention));
    }
    // Occluding "love" by hand: the same prefix, scored again on "I zxqv zxqv apples.".
    let row = 0;
    let attribution = block_on(session.attribution(row)).unwrap();
    let produced = trace.tgt_ids[row + 1] as usize;
    let log_p = |session: &mut Session, text: &str| {
        block_on(session.start(text)).unwrap();
        block_on(session.force_ids(&trace.tgt_ids[1..=row + 1])).unwrap();
        let (_, _, logits) = block_on(session.recompute_decoder()).unwrap();
        let vocab = session.config().tgt_vocab_size;
        log_probabilities(&logits[row * vocab..(row + 1) * vocab])[produced]
    };
    let original = log_p(&mut session, text);
    let occluded = log_p(&mut session, "I zxqv zxqv apples.");
    let expected = (original - occluded) as f32;
    assert!(
        (attribution.occlusion[1] - expected).abs() < 1e-4,
        "{} vs {expected}",
        attribution.occlusion[1]
    );
    assert!(matches!(
        block_on(session.attribution(99)),
        Err(Error::OutOfRange { .. })
    ));
}

#[test]
fn the_cli_exposes_beam_attribution_and_analysis() {
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "trace",
            "--model",
            "models/en-zh",
            "I love eating apples.",
            "--json",
            "--beam",
            "4",
            "--attribution",
            "0",
            "--analysis",
        ],
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let finals = answer["beam"]["finals"].as_array().unwrap();
    let best: String = finals[0]["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .filter(|t| *t != "</s>")
        .collect();
    assert_eq!(best, answer["trace"]["output"].as_str().unwrap());
    assert_eq!(answer["trace"]["output"], "我爱吃苹果。");
    assert!(answer["beam"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n["kept"] == false));
    // The attribution in the JSON is the session's own.
    let mut session = common::session(&common::shipped("en-zh"));
    block_on(session.start("I love eating apples.")).unwrap();
    let best_ids: Vec<u32> = finals[0]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    block_on(session.force_ids(&best_ids)).unwrap();
    let direct = block_on(session.attribution(0)).unwrap();
    let from_cli: Vec<f32> = answer["attribution"]["occlusion"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    common::assert_close("occlusion", &from_cli, &direct.occlusion, 1e-6);
    assert_eq!(answer["attribution"]["token"], "我");
    assert_eq!(answer["analysis"]["encoderRollout"]["layers"], 3);
    assert_eq!(answer["analysis"]["headMean"]["cross"]["heads"], 1);
    let out = common::attnscope(
        env!("CARGO_BIN_EXE_attnscope"),
        &["translate", "--model", "models/en-zh", "--beam", "9", "hi"],
    );
    assert!(!out.status.success());
}
