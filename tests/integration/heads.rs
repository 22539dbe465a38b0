//! Heads switched off (docs/heads.md): the session's forward pass with heads off
//! against the plain-loop reference that zeroes those heads' outputs before `W_O`; no head off is
//! the intact model bit for bit; the ablation report and each head's importance on en-zh; and
//! `--ablate` on the command line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::model::ablation::{Ablation, HeadRef};
use attnscope::{block_on, AttentionKind, Trace};
use common::reference::log_probs::log_softmax;
use common::reference::Reference;

/// Each shipped model, a sentence, and three heads to switch off: one of each kind.
const SHIPPED: [(&str, &str, &str); 3] = [
    (
        "en-zh",
        "My teacher does not like coffee.",
        "encoder:0:2,decoder:1:0,cross:1:1",
    ),
    ("zh-en", "我爱吃苹果。", "encoder:1:3,decoder:0:1,cross:0:2"),
    (
        "date-iso",
        "Friday, the 29th of August 1958",
        "encoder:0:1,decoder:0:3,cross:0:0",
    ),
];

/// Three en-zh cross-attention heads whose switching off together changes this sentence's
/// translation: the three that matter most for it alone. No single head of the 36 leaves anything
/// but 我爱吃苹果。 (docs/heads.md).
const APPLES: &str = "I love eating apples.";
const THREE_CROSS_HEADS: &str = "cross:0:0,cross:1:2,cross:2:1";

fn translate(folder: &ModelFolder, text: &str, ablation: &Ablation) -> Trace {
    let mut session = common::session(folder);
    session.set_ablation(ablation.clone()).unwrap();
    block_on(session.translate(text)).unwrap().clone()
}

fn to_f32(values: &[f64]) -> Vec<f32> {
    values.iter().map(|&v| v as f32).collect()
}

/// Decode `text` with `spec`'s heads off, then recompute everything with the reference with the
/// same heads off: every attention matrix, every candidate's probability and every chosen token
/// (≤ 1e-4), and the output's teacher-forced log-probabilities with the heads off and on.
fn check_ablated(folder: &ModelFolder, text: &str, spec: &str) {
    let ablation = Ablation::parse(spec).unwrap();
    let reference = Reference::new(folder).without_heads(spec);
    let mut session = common::session(folder);
    session.set_ablation(ablation.clone()).unwrap();
    let trace = block_on(session.translate(text)).unwrap().clone();
    let (src, tgt) = (&trace.src_ids, &trace.tgt_ids);
    let (memory, encoder) = reference.encode(src);
    common::assert_close(
        "encoder self-attention",
        &trace.encoder_self_attention.data,
        &encoder.concat(),
        1e-4,
    );
    let rows = trace.steps.len();
    let (logits, selfs, crosses) = reference.decode(&tgt[..rows], src, &memory);
    common::assert_close(
        "decoder self-attention",
        &trace.decoder_self_attention.data,
        &selfs.concat(),
        1e-4,
    );
    common::assert_close(
        "cross-attention",
        &trace.cross_attention.data,
        &crosses.concat(),
        1e-4,
    );
    let vocab = logits.1;
    let (pad, bos) = (reference.config.pad_id, reference.config.bos_id);
    for (i, step) in trace.steps.iter().enumerate() {
        let row = &logits.2[i * vocab..(i + 1) * vocab];
        let log_p = log_softmax(row);
        for candidate in &step.candidates {
            let expected = log_p[candidate.id as usize].exp() as f32;
            assert!(
                (candidate.probability - expected).abs() <= 1e-4,
                "step {i}, {:?}: {} vs reference {expected}",
                candidate.token,
                candidate.probability
            );
        }
        let best = (0..vocab as u32)
            .filter(|&t| t != pad && t != bos)
            .max_by(|&a, &b| row[a as usize].total_cmp(&row[b as usize]))
            .unwrap();
        assert_eq!(best, step.id, "step {i}: reference argmax differs");
    }
    // The report teacher-forces this output (decoded with the heads off) on both models.
    let report = block_on(session.ablate(&ablation)).unwrap();
    assert_eq!(report.ablated, tgt[1..]);
    assert!(report.changed.is_empty());
    common::assert_close(
        "log p, heads off",
        &report.log_p_ablated,
        &to_f32(&reference.teacher_forced(src, tgt)),
        1e-4,
    );
    common::assert_close(
        "log p, every head on",
        &report.log_p,
        &to_f32(&Reference::new(folder).teacher_forced(src, tgt)),
        1e-4,
    );
    // Not vacuous: the heads' being off shows in a later encoder layer's attention.
    let intact = translate(folder, text, &Ablation::default());
    let moved = intact
        .encoder_self_attention
        .data
        .iter()
        .zip(trace.encoder_self_attention.data.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(moved > 1e-3, "{spec}: the encoder moved by {moved} only");
}

#[test]
fn shipped_models_with_heads_off_match_the_reference() {
    for (model, text, spec) in SHIPPED {
        eprintln!("{model}: {spec}");
        check_ablated(&common::shipped(model), text, spec);
    }
}

/// Every architecture option (biases on `W_O` stay; decoder heads of their own count and width),
/// post-norm and pre-norm, on random weights.
#[test]
fn every_architecture_option_with_heads_off_matches_the_reference() {
    for (name, change) in common::reference::architecture_options() {
        for norm_first in [false, true] {
            eprintln!("{name}, norm_first {norm_first}");
            let folder = common::tiny_model_with(norm_first, 4, change);
            check_ablated(
                &folder,
                "I love eating noodles every day.",
                "encoder:0:3,decoder:1:1,cross:0:1",
            );
        }
    }
}

#[test]
fn no_head_off_is_the_intact_model_bit_for_bit() {
    for (model, text, spec) in SHIPPED {
        let folder = common::shipped(model);
        let fresh = block_on(common::session(&folder).translate(text))
            .unwrap()
            .clone();
        // Trace's PartialEq compares every f32 with ==.
        let mut session = common::session(&folder);
        assert_eq!(session.set_ablation(Ablation::default()).unwrap(), None);
        assert_eq!(
            *block_on(session.translate(text)).unwrap(),
            fresh,
            "{model}"
        );
        // Heads off, then every head back on: the intact model again, bit for bit.
        let dropped = session
            .set_ablation(Ablation::parse(spec).unwrap())
            .unwrap();
        assert_eq!(dropped.as_deref(), Some(text));
        assert_ne!(
            *block_on(session.translate(text)).unwrap(),
            fresh,
            "{model}"
        );
        assert_eq!(session.ablation().to_string(), spec);
        session.set_ablation(Ablation::default()).unwrap();
        assert!(session.ablation().is_empty());
        assert_eq!(
            *block_on(session.translate(text)).unwrap(),
            fresh,
            "{model}"
        );
    }
}

#[test]
fn a_head_the_model_lacks_is_refused_and_nothing_changes() {
    let folder = common::shipped("date-iso");
    let text = "Aug 29, '58";
    let fresh = translate(&folder, text, &Ablation::default());
    let mut session = common::session(&folder);
    session
        .set_ablation(Ablation::parse("cross:1:2").unwrap())
        .unwrap();
    let off = block_on(session.translate(text)).unwrap().clone();
    for (spec, key) in [
        ("cross:2:0", "error.outOfRange"),
        ("encoder:0:4", "error.outOfRange"),
    ] {
        let error = session
            .set_ablation(Ablation::parse(spec).unwrap())
            .unwrap_err();
        assert_eq!(error.key(), key, "{spec}");
        assert_eq!(session.ablation().to_string(), "cross:1:2");
        assert_eq!(*block_on(session.translate(text)).unwrap(), off, "{spec}");
    }
    session.set_ablation(Ablation::default()).unwrap();
    assert_eq!(*block_on(session.translate(text)).unwrap(), fresh);
}

#[test]
fn switching_off_three_cross_heads_changes_i_love_eating_apples() {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    let trace = block_on(session.translate(APPLES)).unwrap().clone();
    let report = block_on(session.ablate(&Ablation::parse(THREE_CROSS_HEADS).unwrap())).unwrap();
    assert_eq!(report.spec, THREE_CROSS_HEADS);
    assert_eq!(
        report.heads,
        [
            HeadRef::new(AttentionKind::Cross, 0, 0),
            HeadRef::new(AttentionKind::Cross, 1, 2),
            HeadRef::new(AttentionKind::Cross, 2, 1)
        ]
    );
    assert_eq!(
        report.original_tokens,
        ["我", "爱", "吃", "苹", "果", "。", "</s>"]
    );
    assert_eq!(report.original, trace.tgt_ids[1..]);
    assert_eq!(
        report.ablated_tokens,
        ["我", "很", "喜", "欢", "吃", "苹", "果", "。", "</s>"]
    );
    // 我 stays; from 爱 on every position differs (the output grew by two).
    assert_eq!(report.changed, (1..=8).collect::<Vec<_>>());
    for i in 0..report.drop.len() {
        assert_eq!(
            report.drop[i],
            report.log_p[i] - report.log_p_ablated[i],
            "{i}"
        );
    }
    assert_eq!(report.total_drop, report.drop.iter().sum::<f32>());
    // The reference, intact and with the three heads off, on the original output.
    let (src, tgt) = (&trace.src_ids, &trace.tgt_ids);
    let off = Reference::new(&folder).without_heads(THREE_CROSS_HEADS);
    let intact = to_f32(&Reference::new(&folder).teacher_forced(src, tgt));
    let ablated = to_f32(&off.teacher_forced(src, tgt));
    common::assert_close("log p", &report.log_p, &intact, 1e-4);
    common::assert_close("log p, heads off", &report.log_p_ablated, &ablated, 1e-4);
    // The reference's own greedy decoding with the three heads off says 我很喜欢吃苹果。 too.
    assert_eq!(off.greedy(src), report.ablated);
    // Most of the loss is 爱's, the token that 很 replaces: log p falls by 0.528 there (p 0.494
    // → 0.292, below 很's 0.396), 0.557 in all.
    let worst = (0..report.drop.len())
        .max_by(|&a, &b| report.drop[a].total_cmp(&report.drop[b]))
        .unwrap();
    assert_eq!(worst, 1);
    assert!((report.drop[1] - 0.5279).abs() < 1e-3, "{}", report.drop[1]);
    assert!(
        (report.total_drop - 0.5569).abs() < 1e-3,
        "{}",
        report.total_drop
    );
}

/// No pair of en-zh's 36 heads switched off changes the running example's translation (630
/// decodings); 11 of the 7,140 triples do, all to 我很喜欢吃苹果。, among them the three of
/// `THREE_CROSS_HEADS` (docs/heads.md).
#[test]
fn no_pair_of_heads_changes_i_love_eating_apples() {
    assert_eq!(outputs_with_heads_off(2), Vec::<(String, String)>::new());
}

#[test]
fn eleven_triples_of_heads_change_i_love_eating_apples() {
    let changed = outputs_with_heads_off(3);
    let specs: Vec<&str> = changed.iter().map(|(spec, _)| spec.as_str()).collect();
    assert_eq!(
        specs,
        [
            "encoder:0:0,encoder:1:0,cross:1:2",
            "encoder:0:0,cross:0:0,cross:1:2",
            "encoder:0:0,cross:0:0,cross:2:1",
            "encoder:0:0,cross:1:2,cross:2:1",
            "encoder:1:0,cross:0:0,cross:1:2",
            "encoder:1:0,cross:0:0,cross:2:1",
            "encoder:1:0,cross:1:2,cross:2:1",
            "cross:0:0,cross:0:3,cross:1:2",
            "cross:0:0,cross:1:0,cross:2:1",
            THREE_CROSS_HEADS,
            "cross:1:0,cross:1:2,cross:2:1",
        ]
    );
    assert!(changed
        .iter()
        .all(|(_, output)| output == "我很喜欢吃苹果。"));
}

/// Every set of `size` heads whose switching off changes APPLES's translation, with its output.
fn outputs_with_heads_off(size: usize) -> Vec<(String, String)> {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    let all = HeadRef::all(session.config());
    let mut sets: Vec<Vec<HeadRef>> = vec![vec![]];
    for _ in 0..size {
        sets = sets
            .into_iter()
            .flat_map(|set| {
                let from = set
                    .last()
                    .map_or(0, |last| all.iter().position(|h| h == last).unwrap() + 1);
                all[from..].iter().map(move |head| {
                    let mut next = set.clone();
                    next.push(*head);
                    next
                })
            })
            .collect();
    }
    let mut changed = vec![];
    for set in sets {
        let ablation = Ablation::new(set);
        session.set_ablation(ablation.clone()).unwrap();
        let output = block_on(session.translate(APPLES)).unwrap().output.clone();
        if output != "我爱吃苹果。" {
            changed.push((ablation.to_string(), output));
        }
    }
    changed
}

#[test]
fn importance_is_each_head_switched_off_alone() {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    let trace = block_on(session.translate(APPLES)).unwrap().clone();
    let importance = block_on(session.importance()).unwrap();
    let order: Vec<HeadRef> = importance.heads.iter().map(|h| h.head).collect();
    assert_eq!(order.len(), 36);
    assert_eq!(order, HeadRef::all(session.config()));
    assert_eq!(order[0], HeadRef::new(AttentionKind::EncoderSelf, 0, 0));
    assert_eq!(order[12], HeadRef::new(AttentionKind::DecoderSelf, 0, 0));
    assert_eq!(order[35], HeadRef::new(AttentionKind::Cross, 2, 3));
    assert_eq!(importance.tokens, 7);
    let reference: f64 = Reference::new(&folder)
        .teacher_forced(&trace.src_ids, &trace.tgt_ids)
        .iter()
        .sum();
    assert!((f64::from(importance.total_log_p) - reference).abs() < 1e-4);
    for head in &importance.heads {
        let alone = Ablation::new(vec![head.head]);
        let report = block_on(session.ablate(&alone)).unwrap();
        assert!(
            (head.drop - report.total_drop).abs() <= 1e-4,
            "{}: importance {} vs ablate {}",
            head.head,
            head.drop,
            report.total_drop
        );
        // No head alone changes this translation (see THREE_CROSS_HEADS).
        assert!(report.changed.is_empty(), "{}", head.head);
    }
    // The three heads that change it together are the three that matter most alone.
    let mut ranked = importance.heads.clone();
    ranked.sort_by(|a, b| b.drop.total_cmp(&a.drop));
    let expected = [
        (HeadRef::new(AttentionKind::Cross, 2, 1), 0.1363),
        (HeadRef::new(AttentionKind::Cross, 1, 2), 0.1300),
        (HeadRef::new(AttentionKind::Cross, 0, 0), 0.1186),
        (HeadRef::new(AttentionKind::EncoderSelf, 1, 0), 0.0765),
    ];
    for (rank, (head, drop)) in expected.into_iter().enumerate() {
        assert_eq!(ranked[rank].head, head, "rank {rank}");
        assert!(
            (ranked[rank].drop - drop).abs() < 1e-3,
            "{head}: {}",
            ranked[rank].drop
        );
    }
    let three: Vec<HeadRef> = ranked[..3].iter().map(|h| h.head).collect();
    assert_eq!(Ablation::new(three).to_string(), THREE_CROSS_HEADS);
}

/// `error.*`'s English text from the page's catalogue, with its `{name}`s filled in.
fn message(key: &str, values: &[(&str, &str)]) -> String {
    let path = common::repo().join("www/ui/i18n/en.json");
    let catalogue: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut text = catalogue[key].as_str().unwrap().to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

#[test]
fn translate_with_heads_off_prints_the_changed_output() {
    let run = |args: &[&str]| common::attnscope(env!("CARGO_BIN_EXE_attnscope"), args);
    let ok = |args: &[&str]| common::attnscope_ok(env!("CARGO_BIN_EXE_attnscope"), args);
    let out = ok(&[
        "translate",
        "--model",
        "models/en-zh",
        "--ablate",
        THREE_CROSS_HEADS,
        APPLES,
    ]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "我很喜欢吃苹果。"
    );
    let out = ok(&[
        "trace",
        "--model",
        "models/en-zh",
        "--ablate",
        THREE_CROSS_HEADS,
        APPLES,
        "--json",
    ]);
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["trace"]["output"], "我很喜欢吃苹果。");
    fn layer(index: &'static str) -> Vec<(&'static str, &'static str)> {
        vec![("what", "layer"), ("index", index), ("len", "3")]
    }
    for (spec, key, values) in [
        ("cross:9:0", "error.outOfRange", layer("9")),
        ("decoder:3:0", "error.outOfRange", layer("3")),
        (
            "encoder:0:4",
            "error.outOfRange",
            vec![("what", "head"), ("index", "4"), ("len", "4")],
        ),
        ("foo", "error.headSpec", vec![("spec", "foo")]),
        ("cross:1", "error.headSpec", vec![("spec", "cross:1")]),
    ] {
        let out = run(&[
            "translate",
            "--model",
            "models/en-zh",
            "--ablate",
            spec,
            APPLES,
        ]);
        assert!(!out.status.success(), "{spec} succeeded");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            stderr.trim_end(),
            format!("error: {}", message(key, &values))
        );
    }
    let stderr = String::from_utf8(run(&["translate", "--ablate", "cross:9:0", APPLES]).stderr);
    assert_eq!(
        stderr.unwrap().trim_end(),
        "error: layer 9 is out of range (0..3)"
    );
}

/// The comparison view's twin shares the session's weights but not its heads off: it decodes
/// with every head on, and switching heads off in the twin leaves the session as it was.
#[test]
fn a_twin_has_every_head_on_and_its_own_heads_off() {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    session
        .set_ablation(Ablation::parse(THREE_CROSS_HEADS).unwrap())
        .unwrap();
    let mut twin = session.twin();
    assert_eq!(
        block_on(twin.translate(APPLES)).unwrap().output,
        "我爱吃苹果。"
    );
    assert_eq!(
        block_on(session.translate(APPLES)).unwrap().output,
        "我很喜欢吃苹果。"
    );
    twin.set_ablation(Ablation::default()).unwrap();
    let mut fresh = common::session(&folder);
    let intact = block_on(fresh.translate(APPLES)).unwrap().clone();
    let from_twin = block_on(twin.translate(APPLES)).unwrap().clone();
    assert!(
        from_twin.cross_attention == intact.cross_attention,
        "the same numbers"
    );
    assert_eq!(
        block_on(session.translate(APPLES)).unwrap().output,
        "我很喜欢吃苹果。"
    );
}
