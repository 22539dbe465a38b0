//! An independent reference: the whole forward pass in plain loops (no burn), straight from the
//! safetensors file, compared with every attention matrix of the trace (≤ 1e-4).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::needless_range_loop)]

mod common;

use std::collections::HashMap;

use attnscope::files::folder::ModelFolder;
use attnscope::model::config::{Activation, PositionalLayout};
use attnscope::{block_on, AttentionStack, ModelConfig};
use safetensors::{Dtype, SafeTensors};

struct Reference {
    config: ModelConfig,
    tensors: HashMap<String, Vec<f32>>,
}

/// Matrices are row-major `Vec<f32>` with `rows × cols`.
type Matrix = (usize, usize, Vec<f32>);

impl Reference {
    fn new(folder: &ModelFolder) -> Self {
        let config: ModelConfig = serde_json::from_slice(&folder.config).unwrap();
        let file = SafeTensors::deserialize(&folder.weights).unwrap();
        let mut tensors = HashMap::new();
        for (name, view) in file.tensors() {
            let values = match view.dtype() {
                Dtype::F32 => view
                    .data()
                    .chunks(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect(),
                Dtype::F16 => view
                    .data()
                    .chunks(2)
                    .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                    .collect(),
                other => panic!("unexpected dtype {other:?}"),
            };
            tensors.insert(name, values);
        }
        Self { config, tensors }
    }

    fn t(&self, name: &str) -> &[f32] {
        self.tensors
            .get(name)
            .unwrap_or_else(|| panic!("missing {name}"))
    }

    /// `x @ Wᵀ + b` with W stored `[out, in]` as PyTorch does.
    fn linear(&self, x: &Matrix, prefix: &str, bias: bool) -> Matrix {
        let (n, d_in, ref xs) = *x;
        let w = self.t(&format!("{prefix}.weight"));
        let d_out = w.len() / d_in;
        let b = bias.then(|| self.t(&format!("{prefix}.bias")));
        let mut out = vec![0.0f32; n * d_out];
        for i in 0..n {
            for o in 0..d_out {
                let mut s = b.map_or(0.0, |b| b[o] as f64);
                for k in 0..d_in {
                    s += xs[i * d_in + k] as f64 * w[o * d_in + k] as f64;
                }
                out[i * d_out + o] = s as f32;
            }
        }
        (n, d_out, out)
    }

    fn layer_norm(&self, x: &Matrix, prefix: &str) -> Matrix {
        let (n, d, ref xs) = *x;
        let (g, b) = (
            self.t(&format!("{prefix}.weight")),
            self.t(&format!("{prefix}.bias")),
        );
        let mut out = vec![0.0; n * d];
        for i in 0..n {
            let row = &xs[i * d..(i + 1) * d];
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / d as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / d as f64;
            for k in 0..d {
                out[i * d + k] = ((row[k] as f64 - mean)
                    / (var + self.config.layer_norm_eps).sqrt()
                    * g[k] as f64
                    + b[k] as f64) as f32;
            }
        }
        (n, d, out)
    }

    fn add(a: &Matrix, b: &Matrix) -> Matrix {
        (a.0, a.1, a.2.iter().zip(&b.2).map(|(x, y)| x + y).collect())
    }

    /// Multi-head attention; `hidden(i, j)` is true where query i may not see key j.
    fn attention(
        &self,
        prefix: &str,
        q_in: &Matrix,
        kv_in: &Matrix,
        hidden: &dyn Fn(usize, usize) -> bool,
    ) -> (Matrix, Vec<f32>) {
        // Encoder blocks have the encoder's head count; decoder blocks (self and cross) theirs.
        let h = if prefix.starts_with("encoder") {
            self.config.encoder_heads()
        } else {
            self.config.decoder_heads()
        };
        let d = self.config.d_model;
        let dk = d / h;
        let bias = self.config.attention_bias;
        let q = self.linear(q_in, &format!("{prefix}.w_q"), bias);
        let k = self.linear(kv_in, &format!("{prefix}.w_k"), bias);
        let v = self.linear(kv_in, &format!("{prefix}.w_v"), bias);
        let (nq, nk) = (q_in.0, kv_in.0);
        let mut weights = vec![0.0f32; h * nq * nk];
        let mut context = vec![0.0f32; nq * d];
        for head in 0..h {
            for i in 0..nq {
                let mut scores = vec![0.0f64; nk];
                for j in 0..nk {
                    let dot: f64 = (0..dk)
                        .map(|c| {
                            q.2[i * d + head * dk + c] as f64 * k.2[j * d + head * dk + c] as f64
                        })
                        .sum();
                    scores[j] = if hidden(i, j) {
                        self.config.mask_value
                    } else {
                        dot / (dk as f64).sqrt()
                    };
                }
                let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let sum: f64 = exps.iter().sum();
                for j in 0..nk {
                    let p = exps[j] / sum;
                    weights[(head * nq + i) * nk + j] = p as f32;
                    for c in 0..dk {
                        context[i * d + head * dk + c] +=
                            (p * v.2[j * d + head * dk + c] as f64) as f32;
                    }
                }
            }
        }
        (
            self.linear(&(nq, d, context), &format!("{prefix}.w_o"), bias),
            weights,
        )
    }

    fn ffn(&self, x: &Matrix, prefix: &str) -> Matrix {
        let mut hidden = self.linear(x, &format!("{prefix}.linear_1"), true);
        let activation = self.config.activation;
        hidden.2.iter_mut().for_each(|v| {
            let x = *v as f64;
            *v = match activation {
                Activation::Relu => x.max(0.0),
                // x·Φ(x) = x/2 · (1 + erf(x/√2)), erf from its Taylor series (|x| small here)
                // or its asymptote.
                Activation::Gelu => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
                Activation::Swish => x / (1.0 + (-x).exp()),
            } as f32
        });
        self.linear(&hidden, &format!("{prefix}.linear_2"), true)
    }

    /// Residual block: pre-norm `x + f(norm(x))`, post-norm `norm(x + f(x))`.
    fn residual(&self, x: &Matrix, norm: &str, f: impl FnOnce(&Matrix) -> Matrix) -> Matrix {
        if self.config.norm_first {
            Self::add(x, &f(&self.layer_norm(x, norm)))
        } else {
            self.layer_norm(&Self::add(x, &f(x)), norm)
        }
    }

    fn embed(&self, table: &str, ids: &[u32]) -> Matrix {
        let d = self.config.d_model;
        let w = self.t(table);
        let scale = if self.config.embed_scale {
            (d as f64).sqrt()
        } else {
            1.0
        };
        let mut out = vec![0.0f32; ids.len() * d];
        let half = d.div_ceil(2);
        for (pos, &id) in ids.iter().enumerate() {
            for k in 0..d {
                // Frequency index i and sin/cos, in the paper's layout or sines-first (Marian).
                let (i, sine) = match self.config.positional_layout {
                    PositionalLayout::Interleaved => (k / 2, k % 2 == 0),
                    PositionalLayout::Split if k < half => (k, true),
                    PositionalLayout::Split => (k - half, false),
                };
                let angle = pos as f64 / 10000f64.powf(2.0 * i as f64 / d as f64);
                let pe = if sine { angle.sin() } else { angle.cos() };
                out[pos * d + k] = (w[id as usize * d + k] as f64 * scale + pe) as f32;
            }
        }
        (ids.len(), d, out)
    }

    /// Encoder output and each layer's weights `[heads, n, n]`.
    fn encode(&self, src: &[u32]) -> (Matrix, Vec<Vec<f32>>) {
        let mut x = self.embed("src_embed.weight", src);
        let pad = self.config.pad_id;
        let mut all = vec![];
        for l in 0..self.config.n_encoder_layers {
            let p = format!("encoder.layers.{l}");
            let mut weights = vec![];
            x = self.residual(&x, &format!("{p}.norm_1"), |y| {
                let (out, w) =
                    self.attention(&format!("{p}.self_attn"), y, y, &|_, j| src[j] == pad);
                weights = w;
                out
            });
            x = self.residual(&x, &format!("{p}.norm_2"), |y| {
                self.ffn(y, &format!("{p}.ffn"))
            });
            all.push(weights);
        }
        if self.config.norm_first {
            x = self.layer_norm(&x, "encoder.norm");
        }
        (x, all)
    }

    /// Logits and each layer's (self, cross) weights for the target prefix `tgt`.
    fn decode(
        &self,
        tgt: &[u32],
        src: &[u32],
        memory: &Matrix,
    ) -> (Matrix, Vec<Vec<f32>>, Vec<Vec<f32>>) {
        let mut x = self.embed("tgt_embed.weight", tgt);
        let pad = self.config.pad_id;
        let (mut selfs, mut crosses) = (vec![], vec![]);
        for l in 0..self.config.n_decoder_layers {
            let p = format!("decoder.layers.{l}");
            let (mut sw, mut cw) = (vec![], vec![]);
            x = self.residual(&x, &format!("{p}.norm_1"), |y| {
                // Causal only, as the model: target <pad> ids are never masked as keys.
                let (out, w) = self.attention(&format!("{p}.self_attn"), y, y, &|i, j| j > i);
                sw = w;
                out
            });
            x = self.residual(&x, &format!("{p}.norm_2"), |y| {
                let (out, w) =
                    self.attention(&format!("{p}.cross_attn"), y, memory, &|_, j| src[j] == pad);
                cw = w;
                out
            });
            x = self.residual(&x, &format!("{p}.norm_3"), |y| {
                self.ffn(y, &format!("{p}.ffn"))
            });
            selfs.push(sw);
            crosses.push(cw);
        }
        if self.config.norm_first {
            x = self.layer_norm(&x, "decoder.norm");
        }
        (self.project(&x), selfs, crosses)
    }

    /// Logits: `x @ Wᵀ + b`, W the projection's or, tied, the target embedding `[vocab, d]`.
    fn project(&self, x: &Matrix) -> Matrix {
        if !self.config.tie_output {
            return self.linear(x, "projection", true);
        }
        let (n, d, ref xs) = *x;
        let (w, b) = (self.t("tgt_embed.weight"), self.t("projection.bias"));
        let vocab = b.len();
        let mut out = vec![0.0f32; n * vocab];
        for i in 0..n {
            for o in 0..vocab {
                let dot: f64 = (0..d)
                    .map(|c| xs[i * d + c] as f64 * w[o * d + c] as f64)
                    .sum();
                out[i * vocab + o] = (dot + b[o] as f64) as f32;
            }
        }
        (n, vocab, out)
    }
}

/// The error function (Abramowitz–Stegun 7.1.26 is too coarse for 1e-4 after a few layers, so
/// a series for |x| < 3 and 1 beyond).
fn erf(x: f64) -> f64 {
    if x.abs() >= 3.0 {
        return x.signum() * (1.0 - (-x * x).exp() / (x.abs() * std::f64::consts::PI.sqrt()));
    }
    // erf(x) = 2/√π Σ (−1)^n x^(2n+1) / (n! (2n+1))
    let mut term = x;
    let mut sum = x;
    for n in 1..60 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    2.0 / std::f64::consts::PI.sqrt() * sum
}

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
    type Change = fn(&mut ModelConfig);
    let options: [(&str, Change); 6] = [
        ("attention biases", |c| c.attention_bias = true),
        ("gelu", |c| c.activation = Activation::Gelu),
        ("swish", |c| c.activation = Activation::Swish),
        ("tied output", |c| c.tie_output = true),
        ("split positions", |c| {
            c.positional_layout = PositionalLayout::Split
        }),
        ("decoder heads and width of its own", |c| {
            c.n_decoder_heads = Some(2);
            c.d_ff_decoder = Some(40);
        }),
    ];
    let all: Change = |c| {
        c.attention_bias = true;
        c.activation = Activation::Swish;
        c.tie_output = true;
        c.positional_layout = PositionalLayout::Split;
        c.n_decoder_heads = Some(2);
        c.d_ff_decoder = Some(40);
    };
    for (name, change) in options.into_iter().chain([("all together", all)]) {
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
