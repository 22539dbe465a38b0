//! `PRODUCTS=1 cargo bench --bench native`: the weight products of en-zh's forward at 32 source
//! tokens (20 decoder rows), each alone through burn's `linear` (gemm), hot (the call before left
//! the weights in the caches) and cold (a 48 MB walk first, as between layers of a forward).
//! onnxruntime's side is `benches/ort_products.py`, the same shapes as one MatMul + Add graph.
//! Issue 58's eleventh session: where native forward's gap to onnxruntime lies.

use std::time::Instant;

use burn::tensor::module::linear;
use burn::tensor::{Device, Distribution, Tensor};

/// (rows, inputs, outputs): query/key/value together, one projection, the feed-forward's two,
/// cross-attention's keys and values, the logits; then one row (a cached step).
pub const SHAPES: [(usize, usize, usize); 8] = [
    (32, 192, 576),
    (32, 192, 192),
    (32, 192, 768),
    (32, 768, 192),
    (32, 192, 384),
    (20, 192, 2878),
    (1, 192, 576),
    (1, 768, 192),
];

const SAMPLES: usize = 41;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

pub fn products() {
    let device = Device::flex();
    let mut walk = vec![1u8; 48 << 20];
    println!(
        "| rows × inputs → outputs | hot µs | madd/ns | cold µs | madd/ns |\n|---|---|---|---|---|"
    );
    for (rows, inputs, outputs) in SHAPES {
        let x: Tensor<3> =
            Tensor::random([1, rows, inputs], Distribution::Normal(0.0, 1.0), &device);
        let w: Tensor<2> =
            Tensor::random([inputs, outputs], Distribution::Normal(0.0, 0.05), &device);
        let b: Tensor<1> = Tensor::random([outputs], Distribution::Normal(0.0, 1.0), &device);
        let product = || {
            let t = Instant::now();
            linear(x.clone(), w.clone(), Some(b.clone())).into_data();
            t.elapsed().as_secs_f64() * 1e6
        };
        for _ in 0..5 {
            product();
        }
        let (mut hot, mut cold) = (Vec::new(), Vec::new());
        for _ in 0..SAMPLES {
            hot.push(product());
            for i in (0..walk.len()).step_by(64) {
                walk[i] = walk[i].wrapping_add(1);
            }
            cold.push(product());
        }
        let madds = (rows * inputs * outputs) as f64;
        let (hot, cold) = (median(hot), median(cold));
        println!(
            "| {rows} × {inputs} → {outputs} | {hot:.1} | {:.1} | {cold:.1} | {:.1} |",
            madds / hot / 1e3,
            madds / cold / 1e3
        );
    }
}
