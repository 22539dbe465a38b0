//! The independent reference `reference.rs`, `inspect.rs` and `heads.rs` (tests/integration/)
//! check against: the whole forward pass in plain loops (no burn), straight from the safetensors
//! file, layer by layer, optionally with heads switched off ([`Reference::without_heads`]); its
//! log-probabilities and greedy decoding are in `reference/log_probs.rs`.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;

use attnscope::files::folder::ModelFolder;
use attnscope::model::config::{Activation, PositionalLayout};
use attnscope::ModelConfig;
use safetensors::{Dtype, SafeTensors};

pub mod log_probs;

pub struct Reference {
    pub config: ModelConfig,
    tensors: HashMap<String, Vec<f32>>,
    /// Heads switched off: each one's attention block (its tensor-name prefix) and index.
    heads_off: Vec<(String, usize)>,
}

/// Matrices are row-major `Vec<f32>` with `rows × cols`.
pub type Matrix = (usize, usize, Vec<f32>);

impl Reference {
    pub fn new(folder: &ModelFolder) -> Self {
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
        Self {
            config,
            tensors,
            heads_off: vec![],
        }
    }

    /// This reference with heads switched off, written `KIND:LAYER:HEAD[,…]` (KIND `encoder`,
    /// `decoder` or `cross`). Michel et al. (2019) mask a head by setting its output to zero
    /// before `W_O`; [`Self::attention`] does exactly that to the concatenated heads.
    pub fn without_heads(mut self, spec: &str) -> Self {
        for part in spec.split(',') {
            let fields: Vec<&str> = part.split(':').collect();
            let [kind, layer, head] = fields[..] else {
                panic!("not a head: {part}")
            };
            let block = match kind {
                "encoder" => format!("encoder.layers.{layer}.self_attn"),
                "decoder" => format!("decoder.layers.{layer}.self_attn"),
                "cross" => format!("decoder.layers.{layer}.cross_attn"),
                _ => panic!("not a kind: {kind}"),
            };
            self.heads_off.push((block, head.parse().unwrap()));
        }
        self
    }

    pub fn t(&self, name: &str) -> &[f32] {
        self.tensors
            .get(name)
            .unwrap_or_else(|| panic!("missing {name}"))
    }

    /// `x @ Wᵀ + b` with W stored `[out, in]` as PyTorch does.
    pub fn linear(&self, x: &Matrix, prefix: &str, bias: bool) -> Matrix {
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

    pub fn layer_norm(&self, x: &Matrix, prefix: &str) -> Matrix {
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

    pub fn add(a: &Matrix, b: &Matrix) -> Matrix {
        (a.0, a.1, a.2.iter().zip(&b.2).map(|(x, y)| x + y).collect())
    }

    /// Multi-head attention; `hidden(i, j)` is true where query i may not see key j.
    pub fn attention(
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
        // A head switched off still attends (its weights are returned); what it passes on, its
        // d_k columns of the concatenated heads, is zero before the W_O product.
        for (block, head) in &self.heads_off {
            if block == prefix {
                for i in 0..nq {
                    context[i * d + head * dk..i * d + (head + 1) * dk].fill(0.0);
                }
            }
        }
        (
            self.linear(&(nq, d, context), &format!("{prefix}.w_o"), bias),
            weights,
        )
    }

    /// The feed-forward network's hidden activations, after the activation: `[n, d_ff]`.
    pub fn ffn_hidden(&self, x: &Matrix, prefix: &str) -> Matrix {
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
        hidden
    }

    pub fn ffn(&self, x: &Matrix, prefix: &str) -> Matrix {
        let hidden = self.ffn_hidden(x, prefix);
        self.linear(&hidden, &format!("{prefix}.linear_2"), true)
    }

    /// Residual block: pre-norm `x + f(norm(x))`, post-norm `norm(x + f(x))`.
    pub fn residual(&self, x: &Matrix, norm: &str, f: impl FnOnce(&Matrix) -> Matrix) -> Matrix {
        if self.config.norm_first {
            Self::add(x, &f(&self.layer_norm(x, norm)))
        } else {
            self.layer_norm(&Self::add(x, &f(x)), norm)
        }
    }

    /// What the token embedding is multiplied by: √d_model, or 1.
    pub fn embed_scale(&self) -> f64 {
        if self.config.embed_scale {
            (self.config.d_model as f64).sqrt()
        } else {
            1.0
        }
    }

    /// The token embeddings of `ids` × [`Self::embed_scale`]: `[n, d]`.
    pub fn token_embedding(&self, table: &str, ids: &[u32]) -> Matrix {
        let d = self.config.d_model;
        let w = self.t(table);
        let scale = self.embed_scale();
        let out = ids
            .iter()
            .flat_map(|&id| (0..d).map(move |k| (w[id as usize * d + k] as f64 * scale) as f32))
            .collect();
        (ids.len(), d, out)
    }

    /// The sinusoidal encoding of position `pos`: `[d]`.
    pub fn positional(&self, pos: usize) -> Vec<f64> {
        let d = self.config.d_model;
        let half = d.div_ceil(2);
        (0..d)
            .map(|k| {
                // Frequency index i and sin/cos, in the paper's layout or sines-first (Marian).
                let (i, sine) = match self.config.positional_layout {
                    PositionalLayout::Interleaved => (k / 2, k % 2 == 0),
                    PositionalLayout::Split if k < half => (k, true),
                    PositionalLayout::Split => (k - half, false),
                };
                let angle = pos as f64 / 10000f64.powf(2.0 * i as f64 / d as f64);
                if sine {
                    angle.sin()
                } else {
                    angle.cos()
                }
            })
            .collect()
    }

    /// Token embedding × scale + positional encoding: the first layer's input, `[n, d]`.
    pub fn embed(&self, table: &str, ids: &[u32]) -> Matrix {
        let d = self.config.d_model;
        let w = self.t(table);
        let scale = self.embed_scale();
        let mut out = vec![0.0f32; ids.len() * d];
        for (pos, &id) in ids.iter().enumerate() {
            for (k, pe) in self.positional(pos).into_iter().enumerate() {
                out[pos * d + k] = (w[id as usize * d + k] as f64 * scale + pe) as f32;
            }
        }
        (ids.len(), d, out)
    }

    /// Encoder layer `l`: its output and its weights `[heads, n, n]`.
    pub fn encoder_layer(&self, l: usize, x: &Matrix, src: &[u32]) -> (Matrix, Vec<f32>) {
        let p = format!("encoder.layers.{l}");
        let pad = self.config.pad_id;
        let mut weights = vec![];
        let x = self.residual(x, &format!("{p}.norm_1"), |y| {
            let (out, w) = self.attention(&format!("{p}.self_attn"), y, y, &|_, j| src[j] == pad);
            weights = w;
            out
        });
        let x = self.residual(&x, &format!("{p}.norm_2"), |y| {
            self.ffn(y, &format!("{p}.ffn"))
        });
        (x, weights)
    }

    /// Encoder output and each layer's weights `[heads, n, n]`.
    pub fn encode(&self, src: &[u32]) -> (Matrix, Vec<Vec<f32>>) {
        let mut x = self.embed("src_embed.weight", src);
        let mut all = vec![];
        for l in 0..self.config.n_encoder_layers {
            let (next, weights) = self.encoder_layer(l, &x, src);
            x = next;
            all.push(weights);
        }
        if self.config.norm_first {
            x = self.layer_norm(&x, "encoder.norm");
        }
        (x, all)
    }

    /// Decoder layer `l` over the target prefix `x`: its output and its (self, cross) weights.
    pub fn decoder_layer(
        &self,
        l: usize,
        x: &Matrix,
        src: &[u32],
        memory: &Matrix,
    ) -> (Matrix, Vec<f32>, Vec<f32>) {
        let p = format!("decoder.layers.{l}");
        let pad = self.config.pad_id;
        let (mut sw, mut cw) = (vec![], vec![]);
        let x = self.residual(x, &format!("{p}.norm_1"), |y| {
            // Causal only, as the model: target <pad> ids are never masked as keys.
            let (out, w) = self.attention(&format!("{p}.self_attn"), y, y, &|i, j| j > i);
            sw = w;
            out
        });
        let x = self.residual(&x, &format!("{p}.norm_2"), |y| {
            let (out, w) =
                self.attention(&format!("{p}.cross_attn"), y, memory, &|_, j| src[j] == pad);
            cw = w;
            out
        });
        let x = self.residual(&x, &format!("{p}.norm_3"), |y| {
            self.ffn(y, &format!("{p}.ffn"))
        });
        (x, sw, cw)
    }

    /// Logits and each layer's (self, cross) weights for the target prefix `tgt`.
    pub fn decode(
        &self,
        tgt: &[u32],
        src: &[u32],
        memory: &Matrix,
    ) -> (Matrix, Vec<Vec<f32>>, Vec<Vec<f32>>) {
        let mut x = self.embed("tgt_embed.weight", tgt);
        let (mut selfs, mut crosses) = (vec![], vec![]);
        for l in 0..self.config.n_decoder_layers {
            let (next, sw, cw) = self.decoder_layer(l, &x, src, memory);
            x = next;
            selfs.push(sw);
            crosses.push(cw);
        }
        if self.config.norm_first {
            x = self.layer_norm(&x, "decoder.norm");
        }
        (self.project(&x), selfs, crosses)
    }

    /// Logits: `x @ Wᵀ + b`, W the projection's or, tied, the target embedding `[vocab, d]`.
    pub fn project(&self, x: &Matrix) -> Matrix {
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
pub fn erf(x: f64) -> f64 {
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

/// A change to a model's config, made before its weights are drawn.
pub type ConfigChange = fn(&mut ModelConfig);

/// Every architecture option a real checkpoint needs (attention biases, GELU and swish, a tied
/// output projection, Marian's sines-first positions, decoder heads and width of its own), one
/// at a time and all together, as changes to a config.
pub fn architecture_options() -> Vec<(&'static str, ConfigChange)> {
    vec![
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
        ("all together", |c| {
            c.attention_bias = true;
            c.activation = Activation::Swish;
            c.tie_output = true;
            c.positional_layout = PositionalLayout::Split;
            c.n_decoder_heads = Some(2);
            c.d_ff_decoder = Some(40);
        }),
    ]
}
