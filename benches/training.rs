//! Training throughput on the CPU: one step of the translation recipe (a batch of 64 pairs:
//! forward, backward, Adam) on 1 and 2 threads sharing the batch (`train --threads`). Prints a
//! table, asserts nothing about time.
//!
//!     cargo bench --bench training            # or: cargo run --release --bench training
//!
//! The model is the en-zh preset at the shipped model's vocabulary sizes, freshly initialised;
//! the batch has 64 pairs of 12 source and 14 target tokens (about the Tatoeba mean) of random
//! ids. Median and p95 over 20 steps after 3 warm-up steps, per thread count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use attnscope::model::Transformer;
use attnscope::session::sampling::Rng;
use attnscope::train::{batch_gradients, Example, TrainOptions};
use attnscope::ModelConfig;
use burn::optim::AdamConfig;
use burn::tensor::Device;

const WARMUP: usize = 3;
const RUNS: usize = 20;
const BATCH: usize = 64;

fn options(threads: usize) -> TrainOptions {
    TrainOptions {
        epochs: 1,
        batch_size: BATCH,
        learning_rate: 1e-3,
        warmup_steps: 1,
        label_smoothing: 0.1,
        seed: 42,
        time_limit: None,
        progress: false,
        checkpoints: None,
        stop_after_epochs: None,
        threads,
    }
}

/// 64 pairs of random ids (above the special tokens), `<s>` … `</s>` on the target side.
fn examples(config: &ModelConfig) -> Vec<Example> {
    let mut rng = Rng::new(7);
    let mut ids = |vocab: usize, n: usize| -> Vec<u32> {
        (0..n)
            .map(|_| 4 + (rng.next_u64() % (vocab as u64 - 4)) as u32)
            .collect()
    };
    (0..BATCH)
        .map(|_| {
            let mut src = ids(config.src_vocab_size, 11);
            src.push(config.eos_id);
            let mut tgt = vec![config.bos_id];
            tgt.extend(ids(config.tgt_vocab_size, 13));
            tgt.push(config.eos_id);
            Example { src, tgt }
        })
        .collect()
}

fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shipped = std::fs::read_to_string(root.join("models/en-zh/config.json")).unwrap();
    let shipped = ModelConfig::from_json(&shipped).unwrap();
    let config = ModelConfig::en_zh(shipped.src_vocab_size, shipped.tgt_vocab_size);
    let examples = examples(&config);
    let batch: Vec<usize> = (0..BATCH).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "\n| threads ({cores} cores) | ms a step, median | p95 | pairs/s | against 1 thread |"
    );
    println!("|---|---|---|---|---|");
    let mut single = None;
    for threads in [1, 2] {
        let device = Device::flex().autodiff();
        device.seed(42);
        let mut model = Transformer::new(&config, &device);
        let mut optimizer = AdamConfig::new().with_beta_2(0.98).init();
        let options = options(threads);
        let mut samples = vec![];
        for step in 0..WARMUP + RUNS {
            let started = Instant::now();
            let (_, grads) =
                batch_gradients(&model, &config, &examples, &batch, &options, step).unwrap();
            model = optimizer.step(1e-4, model, grads);
            if step >= WARMUP {
                samples.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        samples.sort_by(f64::total_cmp);
        let median = samples[samples.len() / 2];
        let p95 = samples[(samples.len() * 95).div_ceil(100) - 1];
        let speedup = single.get_or_insert(median).to_owned() / median;
        println!(
            "| {threads} | {median:.0} | {p95:.0} | {:.0} | {speedup:.2}× |",
            BATCH as f64 / median * 1e3
        );
    }
}
