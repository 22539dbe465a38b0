//! Behaviour of the model and the session: normalisation, masks, cache, stepping, the shipped
//! models' targets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::session::sampling::Sampling;
use attnscope::trace::AttentionKind;
use attnscope::train::sets::EXAMPLE_SENTENCE;
use attnscope::{block_on, AttentionStack, Error, Focus};

fn assert_rows_sum_to_one(name: &str, stack: &AttentionStack) {
    for l in 0..stack.layers {
        for h in 0..stack.heads {
            for q in 0..stack.queries {
                let sum: f32 = (0..stack.keys).map(|k| stack.get(l, h, q, k)).sum();
                assert!(
                    (sum - 1.0).abs() <= 1e-5,
                    "{name} layer {l} head {h} row {q} sums to {sum}"
                );
            }
        }
    }
}

#[test]
fn attention_rows_sum_to_one_and_the_future_is_exactly_zero() {
    for folder in [common::shipped("en-zh"), common::tiny_model(false, 3)] {
        let mut session = common::session(&folder);
        let trace = block_on(session.translate("We eat noodles every day.")).unwrap();
        assert_rows_sum_to_one("encoder", &trace.encoder_self_attention);
        assert_rows_sum_to_one("decoder self", &trace.decoder_self_attention);
        assert_rows_sum_to_one("cross", &trace.cross_attention);
        let stack = &trace.decoder_self_attention;
        for l in 0..stack.layers {
            for h in 0..stack.heads {
                for q in 0..stack.queries {
                    for k in q + 1..stack.keys {
                        assert_eq!(stack.get(l, h, q, k), 0.0);
                    }
                }
            }
        }
        // The full recompute (with the causal mask) gives exact zeros above the diagonal too.
        let (full_self, _, _) = block_on(session.recompute_decoder()).unwrap();
        for q in 0..full_self.queries {
            for k in q + 1..full_self.keys {
                assert_eq!(full_self.get(0, 0, q, k), 0.0);
            }
        }
    }
}

#[test]
fn padded_key_columns_get_exactly_zero() {
    let session = common::session(&common::shipped("en-zh"));
    let batch = block_on(session.padded_batch(&["I love eating apples.", "Hello!"])).unwrap();
    assert_eq!(batch.tokens[1].last().map(String::as_str), Some("<pad>"));
    assert!(batch.padding_mask[1].hidden.iter().any(|&m| m));
    assert!(batch.padding_mask[0].hidden.iter().all(|&m| !m));
    let stack = &batch.encoder_self_attention[1];
    let padded: Vec<usize> = (0..stack.keys)
        .filter(|&k| batch.padding_mask[1].hides(0, k))
        .collect();
    for l in 0..stack.layers {
        for h in 0..stack.heads {
            for q in 0..stack.queries {
                for &k in &padded {
                    assert_eq!(stack.get(l, h, q, k), 0.0, "pad column {k} got weight");
                }
            }
        }
    }
    // The unpadded sentence's attention inside the batch equals its attention alone.
    let mut alone = common::session(&common::shipped("en-zh"));
    let trace = block_on(alone.translate("Hello!")).unwrap();
    let n = trace.src_ids.len();
    for q in 0..n {
        for k in 0..n {
            let diff = (stack.get(0, 0, q, k) - trace.encoder_self_attention.get(0, 0, q, k)).abs();
            assert!(
                diff < 1e-5,
                "batched and alone differ at ({q},{k}) by {diff}"
            );
        }
    }
}

#[test]
fn cached_steps_equal_a_full_recompute() {
    for folder in [
        common::shipped("en-zh"),
        common::shipped("date-iso"),
        common::tiny_model(true, 5),
    ] {
        let mut session = common::session(&folder);
        let text = session.config().example.clone();
        let trace = block_on(session.translate(&text)).unwrap().clone();
        let (full_self, full_cross, full_logits) = block_on(session.recompute_decoder()).unwrap();
        common::assert_close(
            "decoder self",
            &trace.decoder_self_attention.data,
            &full_self.data,
            1e-5,
        );
        common::assert_close("cross", &trace.cross_attention.data, &full_cross.data, 1e-5);
        let vocab = full_logits.len() / trace.steps.len();
        for (i, step) in trace.steps.iter().enumerate() {
            let row = &full_logits[i * vocab..(i + 1) * vocab];
            // Decoding never chooses <pad> or <s>.
            let (pad, bos) = (
                session.config().pad_id as usize,
                session.config().bos_id as usize,
            );
            let best = (0..vocab)
                .filter(|&t| t != pad && t != bos)
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .unwrap();
            assert_eq!(best as u32, step.id);
        }
    }
}

#[test]
fn step_back_force_and_prefix() {
    let mut session = common::session(&common::shipped("en-zh"));
    block_on(session.start(EXAMPLE_SENTENCE)).unwrap();
    assert!(matches!(block_on(session.back()), Err(Error::AtStart)));
    let first = block_on(session.step()).unwrap().clone();
    assert_eq!(first.position, 0);
    let trace = session.trace().unwrap();
    assert_eq!(trace.cross_attention.keys, 6);
    assert_eq!(trace.decoder_self_attention.keys, 1);
    assert_eq!(trace.causal_mask.rows, 1);
    assert!(first.candidates.len() == 5);
    assert!(first
        .candidates
        .windows(2)
        .all(|w| w[0].probability >= w[1].probability));
    let second = block_on(session.step()).unwrap().clone();
    let after_two = session.trace().unwrap().clone();
    assert_eq!(after_two.decoder_self_attention.keys, 2);
    assert_eq!(after_two.causal_mask.hidden.0, [false, true, false, false]);
    // Back then step again gives the same token and the same rows.
    block_on(session.back()).unwrap();
    assert_eq!(session.trace().unwrap().decoder_self_attention.queries, 1);
    let again = block_on(session.step()).unwrap().clone();
    assert_eq!(again, second);
    common::assert_close(
        "cross rows",
        &session.trace().unwrap().cross_attention.data,
        &after_two.cross_attention.data,
        1e-6,
    );
    // Force the second-best candidate at step 2; decoding continues from it.
    let alternative = second.candidates[1].id;
    let forced = block_on(session.replace_last(alternative)).unwrap();
    assert!(forced.forced);
    assert_eq!(forced.id, alternative);
    block_on(session.run_to_end()).unwrap();
    let trace = session.trace().unwrap();
    assert_eq!(trace.tgt_ids[2], alternative);
    assert!(session.finished());
    assert!(matches!(block_on(session.step()), Err(Error::Finished(_))));
    // A forced prefix (the person edits the output).
    block_on(session.set_prefix("他")).unwrap();
    assert_eq!(session.output(), "他");
    block_on(session.run_to_end()).unwrap();
    assert!(session.output().starts_with('他'));
    assert!(matches!(
        block_on(session.set_prefix("🍎")),
        Err(Error::UnknownToken(_))
    ));
    // Reset goes back to <s> without re-encoding.
    session.reset().unwrap();
    assert_eq!(session.trace().unwrap().tgt_ids.len(), 1);
}

#[test]
fn sampling_is_reproducible_from_its_seed() {
    let mut session = common::session(&common::shipped("en-zh"));
    let run = |session: &mut attnscope::Session, seed| {
        session
            .set_sampling(Sampling::Sample {
                temperature: 1.5,
                top_k: 5,
                seed,
            })
            .unwrap();
        block_on(session.translate("The weather is nice today."))
            .unwrap()
            .tgt_ids
            .clone()
    };
    let a = run(&mut session, 9);
    let b = run(&mut session, 9);
    assert_eq!(a, b);
    let outputs: std::collections::HashSet<_> =
        (0..8).map(|seed| run(&mut session, seed)).collect();
    assert!(outputs.len() > 1, "sampling never varied");
    assert!(session
        .set_sampling(Sampling::Sample {
            temperature: -1.0,
            top_k: 5,
            seed: 0
        })
        .is_err());
}

#[test]
fn head_stages_are_consistent_with_the_trace() {
    // en-zh is pre-norm, date-iso post-norm.
    for (model, sentence) in [
        ("en-zh", EXAMPLE_SENTENCE),
        ("date-iso", "the first of January 2000"),
    ] {
        let mut session = common::session(&common::shipped(model));
        let trace = block_on(session.translate(sentence)).unwrap().clone();
        check_stages_of_every_layer(&session, &trace);
    }
    let mut session = common::session(&common::shipped("en-zh"));
    block_on(session.translate(EXAMPLE_SENTENCE)).unwrap();
    let focus = Focus {
        kind: AttentionKind::Cross,
        layer: 99,
        head: 0,
    };
    assert!(matches!(
        block_on(session.stages(focus)),
        Err(Error::OutOfRange { .. })
    ));
    // Before the first step the decoder kinds have no stages, and that is not an error.
    block_on(session.start(EXAMPLE_SENTENCE)).unwrap();
    let focus = Focus {
        kind: AttentionKind::Cross,
        layer: 0,
        head: 0,
    };
    assert_eq!(block_on(session.stages(focus)).unwrap(), None);
}

/// The stages of every head kind and layer (one head each) against the trace of `session`'s
/// translation.
fn check_stages_of_every_layer(session: &attnscope::Session, trace: &attnscope::Trace) {
    let d_k = session.config().d_k() as f32;
    for (kind, stack) in [
        (AttentionKind::EncoderSelf, &trace.encoder_self_attention),
        (AttentionKind::DecoderSelf, &trace.decoder_self_attention),
        (AttentionKind::Cross, &trace.cross_attention),
    ] {
        // Every layer: the stages stop the model at the focused layer, so an off-by-one there
        // would show the neighbouring layer's weights.
        for layer in 0..stack.layers {
            let head = (layer + 1) % stack.heads;
            let focus = Focus { kind, layer, head };
            let p = block_on(session.stages(focus)).unwrap().unwrap();
            assert_eq!((p.queries, p.keys), (stack.queries, stack.keys));
            common::assert_close(
                "softmax == trace",
                &p.softmax,
                stack.matrix(layer, head),
                1e-5,
            );
            let scaled: Vec<f32> = p.raw.iter().map(|r| r / d_k.sqrt()).collect();
            common::assert_close("scaled", &p.scaled, &scaled, 1e-5);
            for (i, &hidden) in p.mask.hidden.iter().enumerate() {
                if hidden {
                    assert_eq!(p.softmax[i], 0.0);
                    assert_eq!(p.unscaled_softmax[i], 0.0);
                }
            }
            // The stages' mask is the trace's: causal for decoder self-attention, padding otherwise.
            let expected = match kind {
                AttentionKind::DecoderSelf => trace.causal_mask.expand(p.queries),
                _ => trace.padding_mask.expand(p.queries),
            };
            assert_eq!(p.mask.hidden.0, expected);
            assert_eq!(
                p.mask.hidden.iter().any(|&m| m),
                kind == AttentionKind::DecoderSelf
            );
            // Without the scaling the weights are at least as peaked on average.
            let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
            assert!(mean(&p.unscaled_entropy) <= mean(&p.entropy) + 1e-3);
            assert_eq!(p.entropy.len(), session.config().n_heads);
        }
    }
}

#[test]
fn odd_input_is_handled_not_fatal() {
    let mut session = common::session(&common::shipped("en-zh"));
    assert!(matches!(
        block_on(session.start("")),
        Err(Error::EmptyInput)
    ));
    assert!(matches!(
        block_on(session.start("   \n\t ")),
        Err(Error::EmptyInput)
    ));
    assert!(matches!(block_on(session.step()), Err(Error::NotStarted)));
    let long = "I love eating apples. ".repeat(500);
    let source = block_on(session.start(&long)).unwrap().clone();
    let cut = source
        .truncation
        .clone()
        .expect("a 10,000-character paste is cut");
    assert_eq!(source.src_ids.len(), session.config().max_len);
    assert_eq!(cut.kept_tokens, session.config().max_len - 1);
    assert!(cut.total_tokens > 2000);
    // 63 tokens kept: twelve times "▁I ▁love ▁eating ▁apples ." and "▁I ▁love ▁eating"; the
    // cut falls before the space that starts "▁apples".
    assert_eq!(
        &long[..cut.cut_at_byte],
        format!("{}I love eating", "I love eating apples. ".repeat(12))
    );
    block_on(session.run_to_end()).unwrap();
    for text in [
        "👩‍👩‍👧‍👦 🇫🇷 love 🍎",
        "مرحبا I love you",
        "e\u{301}e\u{301} cafe\u{301}",
        "a\u{0}b\u{7}c\u{1b}[31m",
        "<img src=x onerror=alert(1)> </script>",
        "zxqv blorf",
    ] {
        let trace = block_on(session.translate(text)).unwrap();
        assert_eq!(trace.src_tokens.len(), trace.src_ids.len());
        assert!(trace.src_tokens.iter().all(|t| !t.is_empty()));
        assert!(trace
            .src_tokens
            .iter()
            .all(|t| !t.chars().any(|c| c.is_control())));
    }
    // Unseen words are known subwords; only an unseen character is <unk>.
    let trace = block_on(session.translate("zxqv blorf")).unwrap();
    assert_eq!(
        trace.src_tokens,
        ["▁z", "x", "q", "v", "▁bl", "or", "f", "</s>"]
    );
    assert!(trace.src_unknown.iter().all(|&u| !u));
    let trace = block_on(session.translate("I love 🍎")).unwrap();
    assert_eq!(trace.src_tokens, ["▁I", "▁love", "▁", "🍎", "</s>"]);
    assert_eq!(trace.src_unknown, [false, false, false, true, false]);
}

#[test]
fn trace_json_is_flat_with_dimensions() {
    let mut session = common::session(&common::shipped("date-iso"));
    let trace = block_on(session.translate("Aug 29, '58")).unwrap().clone();
    let json = serde_json::to_value(&trace).unwrap();
    let config = session.config();
    let cross = &json["crossAttention"];
    assert_eq!(cross["layers"], config.n_decoder_layers);
    assert_eq!(cross["heads"], config.n_heads);
    assert_eq!(cross["queries"], trace.steps.len());
    assert_eq!(cross["keys"], trace.src_ids.len());
    assert_eq!(
        cross["data"].as_array().unwrap().len(),
        config.n_decoder_layers * config.n_heads * trace.steps.len() * trace.src_ids.len()
    );
    assert_eq!(json["causalMask"]["rows"], trace.steps.len());
    assert_eq!(json["causalMask"]["hidden"][1], true);
    assert_eq!(json["paddingMask"]["rows"], 1);
    assert_eq!(json["tgtIds"][0], config.bos_id);
    assert_eq!(json["finished"], true);
}

/// docs/json.md's "Trace JSON" table lists exactly the fields that are serialised.
#[test]
fn readme_documents_every_trace_field() {
    let documented = |table: &str| common::readme_table_fields("### Trace JSON", table);
    let mut session = common::session(&common::shipped("date-iso"));
    let trace = block_on(session.translate("Aug 29, '58")).unwrap().clone();
    assert_eq!(
        documented("Trace fields:"),
        common::json_keys(&serde_json::to_value(&trace).unwrap())
    );
    let focus = Focus {
        kind: AttentionKind::Cross,
        layer: 0,
        head: 0,
    };
    let stages = block_on(session.stages(focus)).unwrap().unwrap();
    assert_eq!(
        documented("Stages fields:"),
        common::json_keys(&serde_json::to_value(&stages).unwrap())
    );
}

/// The presets the recipes start from are the shipped models' configs, with the dropout each
/// translation recipe sets on its preset.
#[test]
fn presets_match_the_shipped_configs() {
    for (name, preset) in [
        (
            "en-zh",
            attnscope::ModelConfig::en_zh as fn(usize, usize) -> attnscope::ModelConfig,
        ),
        ("zh-en", attnscope::ModelConfig::zh_en),
        ("date-iso", attnscope::ModelConfig::date_iso),
    ] {
        let folder = common::shipped(name);
        let shipped =
            attnscope::ModelConfig::from_json(std::str::from_utf8(&folder.config).unwrap())
                .unwrap();
        let mut expected = preset(shipped.src_vocab_size, shipped.tgt_vocab_size);
        // The description may have been edited by hand since training.
        expected.description = shipped.description.clone();
        match name {
            "en-zh" => expected.dropout = attnscope::train::recipes::EN_ZH_DROPOUT,
            "zh-en" => expected.dropout = attnscope::train::recipes::ZH_EN_DROPOUT,
            _ => {}
        }
        assert_eq!(expected, shipped, "{name}");
    }
}
