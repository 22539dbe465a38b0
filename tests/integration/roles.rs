//! What each head does (`study::roles`), on a model built so that the right answer is known:
//! one head must attend to the previous token with weight 0.8, another spreads its weight evenly.
//! And `attnscope heads --json`: one entry per head, each with the roles its scores earn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::model::ablation::HeadRef;
use attnscope::model::positional::PositionalTable;
use attnscope::model::Transformer;
use attnscope::study::roles::{roles, HeadRoles, Role};
use attnscope::study::Sentence;
use attnscope::{AttentionKind, ModelConfig};
use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};

/// Source tokens per sentence, `</s>` included.
const N: usize = 5;
/// The previous-token head's weight on the token before (rows i ≥ 1).
const PREVIOUS: f64 = 0.8;

const D_MODEL: usize = 16;
const MAX_LEN: usize = 12;

/// A `[rows, cols]` matrix, row-major, as a tensor.
fn matrix(rows: usize, cols: usize, values: Vec<f32>, device: &Device) -> Tensor<2> {
    Tensor::from_data(TensorData::new(values, [rows, cols]), device)
}

/// Post-norm, d_model 16, two heads (d_k 8), one layer each side. The positional table is
/// one-hot (PE(pos) = e_pos) and every token embedding is zero, so the encoder's first input is
/// exactly PE: row i is e_i. In encoder layer 0, head 0 reads dimensions 0..8 and head 1 8..16:
///
/// - head 0: `W_q = s·I` and `W_k` the shift e_j ↦ e_{j+1}, so q_i·k_j = s when j = i − 1 and 0
///   otherwise; with s = c·√d_k the score q·k/√d_k is c = ln(4(n − 1)) at i − 1 and 0 at the
///   n − 1 other keys, and row i ≥ 1 puts e^c / (e^c + n − 1) = 4/5 on i − 1.
/// - head 1: `W_q = W_k = 0`, so every score is 0 and every row uniform.
///
/// (burn's `Linear` stores its weight `[d_in, d_out]`: out = x·W.) Everything else is random.
fn constructed() -> (Transformer, ModelConfig) {
    let mut config = ModelConfig::date_iso(12, 10);
    config.name = "previous-token".into();
    common::resize(&mut config, [D_MODEL, 2, 1, 1, 32, MAX_LEN]);
    config.norm_first = false;
    config.dropout = 0.0;
    let device = Device::flex();
    let mut one_hot = vec![0.0; MAX_LEN * D_MODEL];
    for pos in 0..MAX_LEN {
        one_hot[pos * D_MODEL + pos] = 1.0;
    }
    let table = PositionalTable {
        kind: attnscope::model::PositionalEncoding::Learned,
        layout: Default::default(),
        rows: MAX_LEN,
        cols: D_MODEL,
        values: one_hot,
    };
    let mut model = Transformer::with_positional(&config, &table, &device);
    for embedding in [&mut model.src_embed, &mut model.tgt_embed] {
        let [vocab, d] = embedding.weight.val().dims();
        embedding.weight = Param::from_tensor(matrix(vocab, d, vec![0.0; vocab * d], &device));
    }
    let d_k = D_MODEL / 2;
    let c = (4.0 * (N as f64 - 1.0)).ln();
    let s = (c * (d_k as f64).sqrt()) as f32;
    let (mut w_q, mut w_k) = (vec![0.0; D_MODEL * D_MODEL], vec![0.0; D_MODEL * D_MODEL]);
    for p in 0..d_k {
        w_q[p * D_MODEL + p] = s;
        if p + 1 < d_k {
            w_k[p * D_MODEL + p + 1] = 1.0;
        }
    }
    let attention = &mut model.encoder_layers[0].self_attn;
    attention.w_q.weight = Param::from_tensor(matrix(D_MODEL, D_MODEL, w_q, &device));
    attention.w_k.weight = Param::from_tensor(matrix(D_MODEL, D_MODEL, w_k, &device));
    (model, config)
}

/// Three sentences of `N` source tokens (`</s>` last, no `<s>`), each with a one-token output.
fn sentences(config: &ModelConfig) -> Vec<Sentence> {
    let (bos, eos) = (config.bos_id, config.eos_id);
    [[4, 5, 6, 7], [8, 9, 10, 11], [5, 7, 9, 11]]
        .iter()
        .zip([4, 6, 8])
        .map(|(words, output)| Sentence {
            src: words.iter().copied().chain([eos]).collect(),
            tgt: vec![bos, output, eos],
        })
        .collect()
}

/// `role`'s score and rows for `head`.
fn score(roles: &[HeadRoles], head: HeadRef, role: Role) -> (f64, usize) {
    let head = roles.iter().find(|r| r.head == head).unwrap();
    let found = head.scores.iter().find(|s| s.role == role).unwrap();
    (found.score, found.rows)
}

fn assert_score(roles: &[HeadRoles], head: HeadRef, role: Role, expected: (f64, usize)) {
    let (value, rows) = score(roles, head, role);
    assert!(
        (value - expected.0).abs() <= 1e-5,
        "{head} {role:?}: {value} vs {}",
        expected.0
    );
    assert_eq!(rows, expected.1, "{head} {role:?} rows");
}

#[test]
fn a_head_built_to_look_back_is_labelled_previous_with_its_exact_score() {
    let (model, config) = constructed();
    let sentences = sentences(&config);
    let found = roles(&model, &config, &sentences).unwrap();
    let heads: Vec<HeadRef> = found.iter().map(|r| r.head).collect();
    assert_eq!(heads, HeadRef::all(&config));
    let back = HeadRef::new(AttentionKind::EncoderSelf, 0, 0);
    let even = HeadRef::new(AttentionKind::EncoderSelf, 0, 1);
    let (n, count) = (N as f64, sentences.len());
    // Row 0 is uniform (every score 0); row i ≥ 1 puts 0.8 on i − 1 and q on each other key.
    let (uniform, q) = (1.0 / n, (1.0 - PREVIOUS) / (n - 1.0));
    let mine = &found[0];
    assert_eq!(mine.head, back);
    assert_eq!(mine.roles, [Role::Previous]);
    assert_score(&found, back, Role::Previous, (PREVIOUS, count * (N - 1)));
    // next: rows 0..n − 2 (row n − 1 has no next); row 0 puts 1/n there, the others q.
    let next = (uniform + (n - 2.0) * q) / (n - 1.0);
    assert!((next - 0.0875).abs() < 1e-12);
    assert_score(&found, back, Role::Next, (next, count * (N - 1)));
    // same: every row; row 0 puts 1/n on itself, the others q. sink: `</s>` is the last key,
    // never a row's i − 1, so the same sum.
    let same = (uniform + (n - 1.0) * q) / n;
    assert!((same - 0.08).abs() < 1e-12);
    assert_score(&found, back, Role::Same, (same, count * N));
    assert_score(&found, back, Role::Sink, (same, count * N));
    // broad: row 0's entropy is ln n; row i ≥ 1's is H = −0.8 ln 0.8 − (n − 1)·q ln q.
    let h = -PREVIOUS * PREVIOUS.ln() - (n - 1.0) * q * q.ln();
    let broad = (1.0 + (n - 1.0) * h / n.ln()) / n;
    assert_score(&found, back, Role::Broad, (broad, count * N));
    // The head with zero queries and keys: every row uniform.
    let spread = found.iter().find(|r| r.head == even).unwrap();
    assert_eq!(spread.roles, [Role::Broad]);
    assert!(!spread.roles.contains(&Role::Previous));
    assert_score(&found, even, Role::Broad, (1.0, count * N));
    assert_score(&found, even, Role::Previous, (uniform, count * (N - 1)));
    assert_score(&found, even, Role::Next, (uniform, count * (N - 1)));
    // The decoder's first row sees `<s>` alone, so its weight there is 1 whatever the head
    // does: it counts for no role. Of each sentence's two decoder rows (`<s>`, x) one counts.
    let decoder: Vec<&HeadRoles> = found
        .iter()
        .filter(|r| r.head.kind == AttentionKind::DecoderSelf)
        .collect();
    assert_eq!(decoder.len(), 2);
    for head in decoder {
        for s in &head.scores {
            assert_eq!(s.rows, count, "{} {:?}", head.head, s.role);
        }
    }
    // Encoder heads have no alignment score; cross heads no previous/same/next.
    let kinds = |head: &HeadRoles| -> Vec<Role> { head.scores.iter().map(|s| s.role).collect() };
    assert_eq!(
        kinds(mine),
        [
            Role::Previous,
            Role::Same,
            Role::Next,
            Role::Sink,
            Role::Broad
        ]
    );
    let cross = found.last().unwrap();
    assert_eq!(cross.head.kind, AttentionKind::Cross);
    assert_eq!(kinds(cross), [Role::Sink, Role::Broad, Role::Alignment]);
}

#[test]
fn heads_json_has_every_head_with_the_roles_its_scores_earn() {
    let out = common::attnscope_ok(
        env!("CARGO_BIN_EXE_attnscope"),
        &[
            "heads",
            "--model",
            "models/date-iso",
            "--limit",
            "5",
            "--json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["model"], "date-iso");
    assert_eq!(report["sentences"], 5);
    assert!(report.get("pruning").is_none());
    let folder = common::shipped("date-iso");
    let config: ModelConfig = serde_json::from_slice(&folder.config).unwrap();
    let expected = HeadRef::all(&config);
    let heads = report["heads"].as_array().unwrap();
    assert_eq!(heads.len(), 24);
    assert_eq!(heads.len(), expected.len());
    for (row, head) in heads.iter().zip(&expected) {
        let named = serde_json::to_value(head).unwrap();
        for field in ["kind", "layer", "head"] {
            assert_eq!(row[field], named[field], "{head}");
        }
        let share = row["hurtShare"].as_f64().unwrap();
        assert!((share * 5.0 - (share * 5.0).round()).abs() < 1e-9, "{head}");
        assert!(row["importance"].as_f64().unwrap().is_finite());
        let scores = row["scores"].as_array().unwrap();
        let applies: Vec<serde_json::Value> = Role::ALL
            .into_iter()
            .filter(|role| role.applies_to(head.kind))
            .map(|role| serde_json::to_value(role).unwrap())
            .collect();
        let listed: Vec<serde_json::Value> = scores.iter().map(|s| s["role"].clone()).collect();
        assert_eq!(listed, applies, "{head}");
        // The roles are exactly those whose score reaches the threshold, the highest first.
        let mut earned: Vec<(f64, serde_json::Value)> = scores
            .iter()
            .filter(|s| s["score"].as_f64().unwrap() >= s["threshold"].as_f64().unwrap())
            .map(|s| (s["score"].as_f64().unwrap(), s["role"].clone()))
            .collect();
        earned.sort_by(|a, b| b.0.total_cmp(&a.0));
        let earned: Vec<serde_json::Value> = earned.into_iter().map(|(_, r)| r).collect();
        assert_eq!(row["roles"].as_array().unwrap(), &earned, "{head}");
        for s in scores {
            let role: Role = Role::ALL
                .into_iter()
                .find(|r| serde_json::to_value(r).unwrap() == s["role"])
                .unwrap();
            assert_eq!(s["threshold"].as_f64().unwrap(), role.threshold());
            assert!(s["rows"].as_u64().unwrap() > 0, "{head} {role:?}");
        }
    }
}
