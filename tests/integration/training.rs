//! Training checkpoints: an interrupted run resumed from its checkpoint ends exactly where an
//! uninterrupted one does, and hands out the snapshots after its checkpoint, tied output
//! projection or not, on one thread or two; a tied model's file gives the logits it trained with. (Its own test
//! binary with one test: burn's random generator is global, so no other test may draw from it
//! meanwhile.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::weights::{load_model, read_weights, save_weights};
use attnscope::model::positional::PositionalTable;
use attnscope::model::Transformer;
use attnscope::text::{build_tokenizer, Granularity};
use attnscope::train::data::Pair;
use attnscope::train::{
    read_checkpoint, tokenize_pairs, train, Example, SnapshotPoint, TrainOptions,
};
use attnscope::ModelConfig;
use burn::tensor::{Device, Int, Tensor, TensorData};

/// A tiny model's config and its tokenized training pairs.
fn tiny_run() -> (ModelConfig, Vec<Example>) {
    let targets = ["我爱吃苹果。", "你喜欢茶", "我们每天吃面条"];
    let pairs: Vec<Pair> = common::TINY_TEXTS
        .iter()
        .zip(targets)
        .map(|(s, t)| Pair::new(*s, t))
        .collect();
    let src = build_tokenizer(
        Granularity::Subwords { vocab_size: 40 },
        common::TINY_TEXTS,
        1,
    )
    .unwrap();
    let tgt = build_tokenizer(Granularity::Characters, targets, 1).unwrap();
    let mut config = ModelConfig::en_zh(src.vocab_size(), tgt.vocab_size());
    common::resize(&mut config, [16, 2, 1, 1, 24, 24]);
    let (examples, _) = tokenize_pairs(&pairs, &config, &src, &tgt).unwrap();
    (config, examples)
}

#[test]
fn a_resumed_run_ends_exactly_like_an_uninterrupted_one() {
    let (mut config, examples) = tiny_run();
    resumed_equals_straight(&config, &examples, 1);
    // Two threads sharing each batch, each drawing its own dropout masks: as deterministic.
    resumed_equals_straight(&config, &examples, 2);
    // A tied model: its target embedding is the projection while it trains, its weights file has
    // no `projection.weight`, and loaded from that file it gives the logits it trained with.
    config.tie_output = true;
    let mut trained = resumed_equals_straight(&config, &examples, 1);
    let bytes = save_weights(&config, &mut trained, false).unwrap();
    let names = read_weights(&config, &bytes).unwrap();
    assert!(names.contains_key("tgt_embed.weight") && names.contains_key("projection.bias"));
    assert!(!names.contains_key("projection.weight"));
    let device = Device::flex();
    let loaded = load_model(&config, &PositionalTable::new(&config), &bytes, &device).unwrap();
    let logits = |model: &Transformer| {
        let ids = |row: &[u32]| {
            let data = TensorData::new(row.iter().map(|&id| id as i64).collect(), [1, row.len()]);
            Tensor::<2, Int>::from_data(data, &device)
        };
        let (src, tgt) = (&examples[0].src, &examples[0].tgt);
        let encoded = model.encode(ids(src), None);
        let output = model.decode(ids(&tgt[..tgt.len() - 1]), &encoded, None);
        output.logits.into_data().try_to_vec::<f32>().unwrap()
    };
    let (in_graph, from_file) = (logits(&trained), logits(&loaded));
    common::assert_close("tied logits", &in_graph, &from_file, 1e-5);
    // Had training used its own `projection.weight`, the logits would not be the file's
    // embedding's; and they are real logits, not zeros.
    assert!(in_graph.iter().any(|v| v.abs() > 0.1));
}

/// Train `config` straight through and, with a checkpoint after the first epoch, stopped and
/// resumed: the same snapshots, losses and final weights. The straight run's model.
fn resumed_equals_straight(
    config: &ModelConfig,
    examples: &[Example],
    threads: usize,
) -> Transformer {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    let options = |dir: &str, stop: Option<usize>| TrainOptions {
        epochs: 3,
        batch_size: 2,
        learning_rate: 1e-2,
        warmup_steps: 2,
        label_smoothing: 0.1,
        seed: 9,
        time_limit: None,
        progress: false,
        checkpoints: Some(root.join(dir)),
        stop_after_epochs: stop,
        threads,
    };
    // Each run's snapshots, as (step, last, weights): a resumed run hands out those after its
    // checkpoint, the same weights as the uninterrupted run's.
    type Taken = Vec<(usize, bool, Vec<u8>)>;
    let snapshot = |taken: &mut Taken, point: SnapshotPoint, mut model: Transformer| {
        taken.push((
            point.step,
            point.last,
            save_weights(config, &mut model, false)?,
        ));
        Ok(())
    };
    // One run with its checkpoints in `dir`, stopped after `stop` epochs if given: its model,
    // log and snapshots.
    let run = |dir: &str, stop: Option<usize>| {
        let (mut log, mut taken): (Vec<u8>, Taken) = (vec![], vec![]);
        let model = train(
            config,
            examples,
            &options(dir, stop),
            &mut log,
            Some(&mut |point, model| snapshot(&mut taken, point, model)),
        )
        .unwrap();
        (model, log, taken)
    };
    let (mut straight, straight_log, straight_taken) = run("a", None);
    let (_, first_log, first_taken) = run("b", Some(1));
    let state = read_checkpoint(&root.join("b")).unwrap().unwrap();
    assert_eq!((state.epoch, state.step), (1, 2), "two batches per epoch");
    let (mut resumed, rest_log, rest_taken) = run("b", None);
    let steps = |taken: &Taken| {
        taken
            .iter()
            .map(|(s, last, _)| (*s, *last))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        steps(&straight_taken),
        [(0, false), (1, false), (2, false), (4, false), (6, true)]
    );
    // The stopped run ends with its weights at step 2; the resumed one starts there again.
    assert_eq!(steps(&first_taken), [(0, false), (1, false), (2, true)]);
    assert_eq!(steps(&rest_taken), [(2, false), (4, false), (6, true)]);
    let joined: Taken = first_taken[..2]
        .iter()
        .chain(&rest_taken)
        .cloned()
        .collect();
    assert!(joined == straight_taken, "the same snapshot weights");

    let weights =
        |model: &mut attnscope::model::Transformer| save_weights(config, model, false).unwrap();
    assert_eq!(
        weights(&mut straight),
        weights(&mut resumed),
        "same final weights"
    );
    // The same losses, step by step (the seconds column differs).
    let losses = |log: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(log)
            .lines()
            .skip(1)
            .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    let mut joined = losses(&first_log);
    joined.extend(
        String::from_utf8_lossy(&rest_log)
            .lines()
            .map(|l| l.split('\t').take(4).collect::<Vec<_>>().join("\t")),
    );
    assert_eq!(losses(&straight_log), joined);
    assert_eq!(joined.len(), 6);
    straight
}
