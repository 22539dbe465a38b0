//! `PRODUCTS=1 cargo bench --bench native`: the weight products of en-zh's forward at 32 source
//! tokens (20 decoder rows), each alone through burn's CPU backend, two ways, alternated call by
//! call: `linear(x, W)` as the model calls it (`W` stored `[d_in, d_out]`, which gemm reads
//! unpacked), and `(Wᵀ · xᵀ)ᵀ` from a `[d_out, d_in]` copy (each output's weights contiguous).
//! Cold: a 48 MB walk first (it evicts the code and the page tables' entries too, so it overstates
//! a forward's layers); hot: the same call again at once. onnxruntime's side is
//! `benches/ort_products.py`. Issue 58's eleventh session: where native forward's time goes.
//! A second table times the packed kernel that a native session runs on an x86-64 CPU with AVX2
//! and FMA (`src/model/packed/x86.rs`, the twelfth session) on the same shapes, hot: its
//! multiply-adds per ns, fastest and median call.

use std::time::Instant;

use attnscope::model::packed::PackedLinear;
use burn::tensor::module::linear;
use burn::tensor::{Device, Distribution, Tensor};

use super::stats;

/// (rows, inputs, outputs): one of query, key, value or output (both engines project them one by
/// one), the feed-forward's two, the logits, one row (a cached step); and query, key and value
/// fused, and the cross-attention's keys and values fused (neither engine fuses them).
const SHAPES: [(usize, usize, usize); 8] = [
    (32, 192, 192),
    (32, 192, 768),
    (32, 768, 192),
    (20, 192, 2878),
    (1, 192, 192),
    (1, 768, 192),
    (32, 192, 576),
    (32, 192, 384),
];

const SAMPLES: usize = 41;

fn micros(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e6
}

/// One shape: (hot, cold) µs of each way, and the largest difference between their outputs.
fn shape(rows: usize, inputs: usize, outputs: usize, walk: &mut [u8]) -> ([f64; 4], f32) {
    let device = Device::flex();
    let x: Tensor<2> = Tensor::random([rows, inputs], Distribution::Normal(0.0, 1.0), &device);
    let w: Tensor<2> = Tensor::random([inputs, outputs], Distribution::Normal(0.0, 0.05), &device);
    let b: Tensor<1> = Tensor::random([outputs], Distribution::Normal(0.0, 1.0), &device);
    let w_t = Tensor::<2>::from_data(w.clone().transpose().into_data(), &device); // [d_out, d_in]
    let b_t: Tensor<2> = b.clone().reshape([outputs, 1]);
    let as_called = || {
        linear(
            x.clone().reshape([1, rows, inputs]),
            w.clone(),
            Some(b.clone()),
        )
    };
    let transposed = || (w_t.clone().matmul(x.clone().transpose()) + b_t.clone()).transpose();
    let values = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap_or_default();
    let difference = values(as_called().reshape([rows, outputs]))
        .iter()
        .zip(values(transposed()))
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    let mut flush = || {
        for i in (0..walk.len()).step_by(64) {
            walk[i] = walk[i].wrapping_add(1);
        }
    };
    for _ in 0..5 {
        as_called().into_data();
        transposed().into_data();
    }
    let mut samples: [Vec<f64>; 4] = Default::default();
    for _ in 0..SAMPLES {
        flush();
        samples[1].push(micros(|| drop(as_called().into_data())));
        samples[0].push(micros(|| drop(as_called().into_data())));
        flush();
        samples[3].push(micros(|| drop(transposed().into_data())));
        samples[2].push(micros(|| drop(transposed().into_data())));
    }
    (samples.map(|s| stats(s).0), difference)
}

pub fn products() {
    let mut walk = vec![1u8; 48 << 20];
    println!(
        "| rows × inputs → outputs | as called, hot µs | cold µs | (Wᵀ·xᵀ)ᵀ, hot µs | cold µs | hot ratio | cold ratio | largest difference |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (rows, inputs, outputs) in SHAPES {
        let ([hot, cold, t_hot, t_cold], difference) = shape(rows, inputs, outputs, &mut walk);
        println!(
            "| {rows} × {inputs} → {outputs} | {hot:.1} | {cold:.1} | {t_hot:.1} | {t_cold:.1} | {:.2} | {:.2} | {difference:.1e} |",
            t_hot / hot,
            t_cold / cold
        );
    }
    packed_products();
}

/// The packed kernel alone on each shape, hot: fastest and median of 201 calls.
fn packed_products() {
    println!();
    println!("| rows × inputs → outputs | packed, fastest µs | multiply-adds per ns | median µs | multiply-adds per ns |");
    println!("|---|---|---|---|---|");
    for (rows, inputs, outputs) in SHAPES {
        let w: Vec<f32> = (0..inputs * outputs)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 500.0)
            .collect();
        let x: Vec<f32> = (0..rows * inputs)
            .map(|i| ((i * 13 % 17) as f32 - 8.0) / 3.0)
            .collect();
        let Ok(packed) = PackedLinear::new(&w, inputs, outputs, Some(vec![0.1; outputs])) else {
            continue;
        };
        let mut out = vec![0.0; rows * outputs];
        for _ in 0..50 {
            packed.apply(&x, &mut out);
        }
        let mut samples: Vec<f64> = (0..201)
            .map(|_| micros(|| packed.apply(&x, &mut out)))
            .collect();
        samples.sort_by(f64::total_cmp);
        let rate = |us: f64| (rows * inputs * outputs) as f64 / us / 1e3;
        let (fastest, median) = (samples[0], samples[100]);
        println!(
            "| {rows} × {inputs} → {outputs} | {fastest:.1} | {:.1} | {median:.1} | {:.1} |",
            rate(fastest),
            rate(median)
        );
    }
}
