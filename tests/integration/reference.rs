//! The whole forward pass in plain loops (`common::reference`, no burn), straight from the
//! safetensors file, compared with every attention matrix of the trace (≤ 1e-4).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::needless_range_loop)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::{block_on, AttentionStack};
use common::reference::Reference;

fn flat(stack: &AttentionStack) -> Vec<f32> {
    stack.data.0.clone()
}

/// Decode `text` with the real session, then recompute everything with the reference.
fn check(folder: &ModelFolder, text: &str) {
    let reference = Reference::new(folder);
    let mut session = common::session(folder);
    let trace = block_on(session.translate(text)).unwrap();
    let (memory, encoder) = reference.encode(&trace.src_ids);
    common::assert_close(
        "encoder self-attention",
        &flat(&trace.encoder_self_attention),
        &encoder.concat(),
        1e-4,
    );
    let rows = trace.steps.len();
    assert!(rows > 0, "nothing was decoded");
    let (logits, selfs, crosses) =
        reference.decode(&trace.tgt_ids[..rows], &trace.src_ids, &memory);
    // The step-by-step trace stores only the visible (lower) triangle of self-attention; the
    // reference's hidden cells are exactly 0 too.
    common::assert_close(
        "decoder self-attention",
        &flat(&trace.decoder_self_attention),
        &selfs.concat(),
        1e-4,
    );
    common::assert_close(
        "cross-attention",
        &flat(&trace.cross_attention),
        &crosses.concat(),
        1e-4,
    );
    // The reference's greedy choice agrees with every model-chosen token.
    let vocab = logits.1;
    for (i, step) in trace.steps.iter().enumerate() {
        let row = &logits.2[i * vocab..(i + 1) * vocab];
        // Decoding never chooses <pad> or <s>.
        let (pad, bos) = (
            reference.config.pad_id as usize,
            reference.config.bos_id as usize,
        );
        let best = (0..vocab)
            .filter(|&t| t != pad && t != bos)
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap();
        assert_eq!(best as u32, step.id, "step {i}: reference argmax differs");
    }
}

#[test]
fn shipped_en_zh_matches_the_reference() {
    check(&common::shipped("en-zh"), "I love eating apples.");
    check(
        &common::shipped("en-zh"),
        "My teacher does not like coffee.",
    );
}

#[test]
fn shipped_date_iso_matches_the_reference() {
    check(
        &common::shipped("date-iso"),
        "Friday, the 29th of August 1958",
    );
}

/// Every architecture option a real checkpoint needs (attention biases, GELU and swish, a tied
/// output projection, Marian's sines-first positions), on random weights.
#[test]
fn every_architecture_option_matches_the_reference() {
    for (name, change) in common::reference::architecture_options() {
        for norm_first in [false, true] {
            let folder = common::tiny_model_with(norm_first, 4, change);
            eprintln!("{name}, norm_first {norm_first}");
            check(&folder, "I love eating noodles every day.");
        }
    }
}

#[test]
fn random_pre_norm_and_post_norm_models_match_the_reference() {
    for norm_first in [true, false] {
        for seed in [1, 2] {
            check(
                &common::tiny_model(norm_first, seed),
                "I love eating noodles every day.",
            );
        }
    }
}

/// log softmax of one row, in f64.
fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    row.iter().map(|&v| v as f64 - max - sum.ln()).collect()
}

#[test]
fn beam_scores_are_the_reference_models_log_probabilities() {
    for (model, text, width) in [
        ("en-zh", "I love eating apples.", 4),
        ("en-zh", "The box is heavy.", 8),
        ("date-iso", "Aug 29, '58", 3),
    ] {
        let folder = common::shipped(model);
        let reference = Reference::new(&folder);
        let mut session = common::session(&folder);
        let src = block_on(session.start(text)).unwrap().src_ids.clone();
        let search = block_on(session.beam(width, 1.0)).unwrap();
        assert!(!search.finals.is_empty());
        let (memory, _) = reference.encode(&src);
        let bos = reference.config.bos_id;
        for hypothesis in &search.finals {
            let ids = &hypothesis.ids;
            let input: Vec<u32> = std::iter::once(bos)
                .chain(ids[..ids.len() - 1].iter().copied())
                .collect();
            let (logits, _, _) = reference.decode(&input, &src, &memory);
            let vocab = logits.1;
            let log_prob: f64 = ids
                .iter()
                .enumerate()
                .map(|(i, &id)| log_softmax(&logits.2[i * vocab..(i + 1) * vocab])[id as usize])
                .sum();
            assert!(
                (log_prob - hypothesis.log_prob).abs() < 1e-3,
                "{model} {text:?} {:?}: beam {} vs reference {log_prob}",
                hypothesis.tokens,
                hypothesis.log_prob
            );
            let penalty = ((5.0 + ids.len() as f64) / 6.0).powf(1.0);
            assert!((hypothesis.score - hypothesis.log_prob / penalty).abs() < 1e-9);
        }
        // Ranked best first.
        assert!(search.finals.windows(2).all(|w| w[0].score >= w[1].score));
    }
}

/// Mean over heads, rollout and source attribution, recomputed in plain loops from the
/// reference's own attention.
#[test]
fn rollout_and_head_summaries_match_a_plain_computation() {
    let folder = common::shipped("en-zh");
    let reference = Reference::new(&folder);
    let mut session = common::session(&folder);
    let trace = block_on(session.translate("My teacher does not like coffee."))
        .unwrap()
        .clone();
    let analysis = attnscope::trace::analysis::Analysis::of(&trace);
    let (memory, encoder) = reference.encode(&trace.src_ids);
    let n = trace.src_ids.len();
    let heads = reference.config.n_heads;
    let mean_of = |weights: &[f32], rows: usize, cols: usize| -> Vec<f32> {
        (0..rows * cols)
            .map(|i| {
                (0..heads)
                    .map(|h| weights[h * rows * cols + i])
                    .sum::<f32>()
                    / heads as f32
            })
            .collect()
    };
    let mut rolled: Vec<f64> = (0..n * n)
        .map(|i| if i / n == i % n { 1.0 } else { 0.0 })
        .collect();
    for (l, weights) in encoder.iter().enumerate() {
        let mean = mean_of(weights, n, n);
        common::assert_close(
            "head mean",
            analysis.head_mean.encoder_self.matrix(l, 0),
            &mean,
            1e-4,
        );
        let max: Vec<f32> = (0..n * n)
            .map(|i| {
                (0..heads)
                    .map(|h| weights[h * n * n + i])
                    .fold(0.0, f32::max)
            })
            .collect();
        common::assert_close(
            "head max",
            analysis.head_max.encoder_self.matrix(l, 0),
            &max,
            1e-4,
        );
        let mut a = vec![0.0f64; n * n];
        for q in 0..n {
            let row: Vec<f64> = (0..n)
                .map(|k| 0.5 * mean[q * n + k] as f64 + if q == k { 0.5 } else { 0.0 })
                .collect();
            let sum: f64 = row.iter().sum();
            for k in 0..n {
                a[q * n + k] = row[k] / sum;
            }
        }
        let mut next = vec![0.0f64; n * n];
        for q in 0..n {
            for k in 0..n {
                next[q * n + k] = (0..n).map(|m| a[q * n + m] * rolled[m * n + k]).sum();
            }
        }
        rolled = next;
        let expected: Vec<f32> = rolled.iter().map(|&v| v as f32).collect();
        common::assert_close(
            "rollout",
            analysis.encoder_rollout.matrix(l, 0),
            &expected,
            1e-4,
        );
    }
    let rows = trace.steps.len();
    let (_, _, crosses) = reference.decode(&trace.tgt_ids[..rows], &trace.src_ids, &memory);
    let last = mean_of(crosses.last().unwrap(), rows, n);
    let expected: Vec<f32> = (0..rows * n)
        .map(|i| {
            (0..n)
                .map(|m| last[(i / n) * n + m] as f64 * rolled[m * n + i % n])
                .sum::<f64>() as f32
        })
        .collect();
    common::assert_close(
        "source attribution",
        analysis.source_attribution.matrix(0, 0),
        &expected,
        1e-4,
    );
}
