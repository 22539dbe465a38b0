//! Native CPU benchmark (burn's flex backend): prints a table, asserts nothing about time.
//!
//!     cargo bench --bench native            # or: cargo run --release --bench native
//!
//! For each model and source length (8, 16, 32, 64 tokens): encode, one cached decoding step,
//! a full greedy decode (cached steps), and a full re-decode of the whole prefix at once,
//! median and p95 over 30 runs after 5 warm-up runs. Single-threaded, like the browser.
//! `SPLIT=1`: en-zh's forward at 32 tokens split into tokenizing, arithmetic and attention
//! readback, and a cached step against it (`split/forward.rs`; onnxruntime's side:
//! `benches/ort_forward.py`). `PRODUCTS=1`: the forward's weight products alone, hot and cold,
//! as the model calls them and transposed (`split/products.rs`; onnxruntime's side:
//! `benches/ort_products.py`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use attnscope::files::folder::ModelFolder;
use attnscope::model::packed::PackedWeights;
use attnscope::session::Answer;
use attnscope::trace::analysis::Analysis;
use attnscope::Focus;
use attnscope::LoadedModel;
use attnscope::{block_on, Session};
use burn::tensor::{Device, Int, Tensor, TensorData};

#[path = "split/products.rs"]
mod products;
#[path = "split/serve.rs"]
mod serve;
#[path = "split/forward.rs"]
mod split;

const WARMUP: usize = 5;
const RUNS: usize = 30;

/// A sentence of exactly `n` source tokens (with `</s>`), made of words that are one token each.
pub fn sentence(session: &Session, model: &str, n: usize) -> String {
    let candidates: &[&str] = if model == "date-iso" {
        &["2", "9", " ", "a", "u", "g", "1", "5", "8"]
    } else {
        &[
            "I", "love", "eating", "apples", "and", "my", "father", "likes", "drinking", "tea",
            "every", "day", "he", "she", "we", "eat", "the", "of",
        ]
    };
    let one_token = |w: &&str| {
        model == "date-iso" || session.tokenize_source(w).is_ok_and(|s| s.ids.len() == 2)
    };
    let words: Vec<&str> = candidates.iter().copied().filter(one_token).collect();
    let joiner = if model == "date-iso" { "" } else { " " };
    (0..n - 1)
        .map(|i| words[i % words.len()])
        .collect::<Vec<_>>()
        .join(joiner)
}

/// A session on the CPU over the shipped model `models/NAME`.
fn shipped(root: &std::path::Path, name: &str) -> Session {
    let folder = ModelFolder::read(&root.join("models").join(name)).unwrap();
    Session::load(folder.files(), Device::flex()).unwrap()
}

fn stats(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(|a, b| a.total_cmp(b));
    let p = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (p(0.5), p(0.95))
}

fn time(mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..WARMUP {
        f();
    }
    stats(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

/// One cached step at the last position (back one step, step again) and a full re-decode of the
/// whole output so far: (median, p95) ms each.
fn step_and_redecode(session: &mut Session) -> ((f64, f64), (f64, f64)) {
    let step = time(|| {
        block_on(session.back()).unwrap();
        block_on(session.step()).unwrap();
    });
    let full = time(|| {
        block_on(session.recompute_decoder()).unwrap();
    });
    (step, full)
}

/// `PROFILE=encode|step|greedy|redecode`: repeat one stage of en-zh at 32 source tokens for
/// three seconds and print nothing, for a profiler (`perf record`) to attribute that stage alone.
fn profile(root: &std::path::Path, stage: &str) {
    let mut session = shipped(root, "en-zh");
    let text = sentence(&session, "en-zh", 32);
    block_on(session.translate(&text)).unwrap();
    let start = Instant::now();
    while start.elapsed().as_secs() < 3 {
        match stage {
            "encode" => {
                block_on(session.start(&text)).unwrap();
            }
            "step" => {
                block_on(session.back()).unwrap();
                block_on(session.step()).unwrap();
            }
            "greedy" => {
                block_on(session.translate(&text)).unwrap();
            }
            "redecode" => {
                block_on(session.recompute_decoder()).unwrap();
            }
            other => panic!("PROFILE={other}: use encode, step, greedy or redecode"),
        }
    }
}

fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if let Ok(stage) = std::env::var("PROFILE") {
        profile(&root, &stage);
        return;
    }
    if std::env::var("PRODUCTS").is_ok() {
        products::products();
        return;
    }
    if std::env::var("SERVE").is_ok() {
        serve::serve(&root);
        return;
    }
    if std::env::var("SPLIT").is_ok() {
        split::split(&root);
        return;
    }
    decode_table(&root);
    cached_step_table(&root);
    packed_table(&root);
    answer_table(&root);
    snapshot_table(&root);
}

/// Print a markdown table's header row and its separator (after a blank line when `gap`).
fn table_header(gap: bool, header: &str) {
    if gap {
        println!();
    }
    println!("{header}");
    println!("|{}", "---|".repeat(header.matches('|').count() - 1));
}

/// Encode, one step, greedy decode and a full re-decode, by source length.
fn decode_table(root: &std::path::Path) {
    table_header(false, "| model | src tokens | out tokens | encode ms (median/p95) | one step ms | greedy decode ms | full re-decode ms | step / re-decode |");
    for model in ["en-zh", "date-iso"] {
        let mut session = shipped(root, model);
        for n in [8, 16, 32, 64] {
            if n > session.config().max_len {
                continue;
            }
            let text = sentence(&session, model, n);
            let source = block_on(session.start(&text)).unwrap();
            assert_eq!(source.src_ids.len(), n, "sentence length");
            let encode = time(|| {
                block_on(session.start(&text)).unwrap();
            });
            let greedy = time(|| {
                block_on(session.translate(&text)).unwrap();
            });
            let out = session.trace().unwrap().steps.len();
            let (step, full) = step_and_redecode(&mut session);
            println!(
                "| {model} | {n} | {out} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.3} |",
                encode.0, encode.1, step.0, step.1, greedy.0, greedy.1, full.0, full.1, step.0 / full.0
            );
        }
    }
}

/// A cached step against a full re-decode with 32 tokens already in the output (forced).
fn cached_step_table(root: &std::path::Path) {
    table_header(true, "| model | output prefix | one cached step ms (median/p95) | full re-decode of the prefix ms | step / re-decode |");
    for model in ["en-zh", "date-iso"] {
        let mut session = shipped(root, model);
        let prefix_len = 32.min(session.config().max_len - 2);
        let text = sentence(&session, model, 16);
        block_on(session.start(&text)).unwrap();
        let ids: Vec<u32> = (0..prefix_len as u32).map(|i| 4 + i % 10).collect();
        block_on(session.set_prefix_ids(&ids)).unwrap();
        block_on(session.step()).unwrap();
        let (step, full) = step_and_redecode(&mut session);
        println!(
            "| {model} | {} tokens | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} |",
            prefix_len + 1,
            step.0,
            step.1,
            full.0,
            full.1,
            step.0 / full.0
        );
    }
}

/// The encoder (32 source tokens, with the cross-attention keys and values) and one cached step
/// (`decode_step` at 32 tokens of output) with every projection through burn's gemm and through
/// the packed weights (`model::packed`), and the largest difference of their logits.
fn packed_table(root: &std::path::Path) {
    table_header(true, "| model | encode, gemm ms (median/p95) | encode, packed ms | packed / gemm | cached step, gemm ms | cached step, packed ms | packed / gemm | largest logit difference |");
    for model in ["en-zh", "date-iso"] {
        let folder = ModelFolder::read(&root.join("models").join(model)).unwrap();
        let device = Device::flex();
        let loaded = LoadedModel::load(folder.files(), &device).unwrap();
        let (config, weights) = (&loaded.config, &loaded.model);
        let packed = block_on(PackedWeights::new(weights)).unwrap();
        let ids = |values: Vec<i64>| {
            let n = values.len();
            Tensor::<2, Int>::from_data(TensorData::new(values, [1, n]), &device)
        };
        let source: Vec<i64> = (0..32.min(config.max_len as i64))
            .map(|i| 4 + i % 10)
            .collect();
        let encode = |packed: Option<&PackedWeights>| {
            let encoded = weights.encode_packed(ids(source.clone()), None, packed);
            let cross = weights.cross_key_values_packed(encoded.memory.clone(), packed);
            cross[0].keys.clone().into_data();
            (encoded, cross)
        };
        let (encoded, cross) = encode(None);
        let mut cache = vec![None; config.n_decoder_layers];
        let prefix = 32.min(config.max_len - 2);
        let mask = &encoded.padding_mask;
        for position in 0..prefix {
            let token = ids(vec![4 + (position % 10) as i64]);
            weights.decode_step(token, position, &cross, mask, &mut cache, None);
        }
        let step = |packed: Option<&PackedWeights>| {
            let mut grown = cache.clone();
            let output =
                weights.decode_step(ids(vec![5]), prefix, &cross, mask, &mut grown, packed);
            output.logits.into_data().try_into_vec::<f32>().unwrap()
        };
        let difference = step(None)
            .iter()
            .zip(step(Some(&packed)))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        let encode_gemm = time(|| {
            encode(None);
        });
        let encode_packed = time(|| {
            encode(Some(&packed));
        });
        let step_gemm = time(|| {
            step(None);
        });
        let step_packed = time(|| {
            step(Some(&packed));
        });
        println!(
            "| {model} | {:.3} / {:.3} | {:.3} / {:.3} | {:.2} | {:.3} / {:.3} | {:.3} / {:.3} | {:.2} | {difference:.1e} |",
            encode_gemm.0,
            encode_gemm.1,
            encode_packed.0,
            encode_packed.1,
            encode_packed.0 / encode_gemm.0,
            step_gemm.0,
            step_gemm.1,
            step_packed.0,
            step_packed.1,
            step_packed.0 / step_gemm.0
        );
    }
}

/// What one answer of the page costs after a greedy translation (the wasm `answer()`): the
/// focused head's stages (the page's default focus, cross-attention layer 0 head 0), the
/// analysis, and the answer serialised (JSON here; the page converts it to a JS object).
fn answer_table(root: &std::path::Path) {
    table_header(true, "| model | src tokens | out tokens | stages ms (median/p95) | analysis ms | answer as JSON ms |");
    for model in ["en-zh", "date-iso"] {
        let mut session = shipped(root, model);
        let text = sentence(&session, model, 32);
        block_on(session.translate(&text)).unwrap();
        let focus = Focus::DEFAULT;
        let stages = time(|| {
            block_on(session.stages(focus)).unwrap();
        });
        let trace = session.trace().unwrap();
        let analysis = time(|| {
            Analysis::of(trace);
        });
        let answer = Answer {
            analysis: Some(Analysis::of(trace)),
            ..Answer::new(trace, block_on(session.stages(focus)).unwrap())
        };
        let json = time(|| {
            serde_json::to_string(&answer).unwrap();
        });
        println!(
            "| {model} | 32 | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} |",
            trace.steps.len(),
            stages.0,
            stages.1,
            analysis.0,
            analysis.1,
            json.0,
            json.1
        );
    }
}

/// Switching to a training snapshot: only the weights replaced, against loading the whole
/// model folder again (date-iso, which ships a timeline).
fn snapshot_table(root: &std::path::Path) {
    table_header(
        true,
        "| model | replace weights ms (median/p95) | load the whole model ms | replace / load |",
    );
    let folder = ModelFolder::read(&root.join("models/date-iso")).unwrap();
    let snapshot =
        std::fs::read(root.join("models/date-iso/timeline/step-000256.safetensors")).unwrap();
    let mut session = Session::load(folder.files(), Device::flex()).unwrap();
    let replace = time(|| {
        session.replace_weights(&snapshot).unwrap();
    });
    let load = time(|| {
        Session::load(folder.files(), Device::flex()).unwrap();
    });
    println!(
        "| date-iso | {:.3} / {:.3} | {:.3} / {:.3} | {:.2} |",
        replace.0,
        replace.1,
        load.0,
        load.1,
        replace.0 / load.0
    );
}
