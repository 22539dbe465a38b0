//! One token's journey through one layer recomputed in plain loops from the saved weights
//! ([`Reference`]): what `Session::inspect` must return, for `tests/integration/inspect.rs`.

use attnscope::session::Inspect;
use attnscope::trace::journey::{
    mean_std, AttentionJourney, FeedForwardJourney, HeadJourney, Journey, NormPlacement, Stack,
};
use attnscope::trace::{Flags, Floats};
use attnscope::ModelConfig;
use attnscope::Trace;

use super::reference::{Matrix, Reference};

fn row(m: &Matrix, i: usize) -> Matrix {
    (1, m.1, m.2[i * m.1..(i + 1) * m.1].to_vec())
}

fn floats(m: &Matrix) -> Floats {
    Floats(m.2.clone())
}

/// What every sub-layer's journey ends with: its input LayerNorm'd (pre-norm), its output, the
/// residual connection and the LayerNorm after it (post-norm), and the statistics it normalises.
struct AddNorm {
    normed_input: Option<Floats>,
    projected: Floats,
    residual: Floats,
    normed: Option<Floats>,
    mean: f32,
    std: f32,
}

/// The sub-layer `sublayer` around the row `x` in plain loops: it gets the sub-layer's input
/// (`x`, LayerNorm'd by `norm` in pre-norm) and gives what it found on the way and its output.
/// Returns those findings, the [`AddNorm`] around them, and the sub-layer's result.
fn residual_block<T>(
    r: &Reference,
    norm: &str,
    x: &Matrix,
    sublayer: impl FnOnce(&Matrix) -> (T, Matrix),
) -> (T, AddNorm, Matrix) {
    let pre = r.config.norm_first;
    let input = if pre {
        r.layer_norm(x, norm)
    } else {
        x.clone()
    };
    let (found, projected) = sublayer(&input);
    let residual = Reference::add(x, &projected);
    let normed = (!pre).then(|| r.layer_norm(&residual, norm));
    let (mean, std) = mean_std(if pre { &x.2 } else { &residual.2 });
    let result = normed.clone().unwrap_or_else(|| residual.clone());
    let end = AddNorm {
        normed_input: pre.then(|| floats(&input)),
        projected: floats(&projected),
        residual: floats(&residual),
        normed: normed.as_ref().map(floats),
        mean,
        std,
    };
    (found, end, result)
}

/// `$journey { fields }`, completed with the fields every sub-layer's journey ends with, taken
/// from the [`AddNorm`] `$end`.
macro_rules! ending_with {
    ($journey:ident { $($field:ident: $value:expr),* $(,)? }, $end:expr) => {{
        let end: AddNorm = $end;
        $journey {
            $($field: $value,)*
            normed_input: end.normed_input,
            projected: end.projected,
            residual: end.residual,
            normed: end.normed,
            mean: end.mean,
            std: end.std,
        }
    }};
}

/// Head `h` (of width `dk`) of one query row `q` over the keys `k` and values `v` (`n` rows of
/// d_model), `hidden` keys masked, in f64.
fn head(q: &Matrix, k: &Matrix, v: &Matrix, h: usize, dk: usize, hidden: &[bool]) -> HeadJourney {
    let (d, n) = (q.1, k.0);
    let part = |m: &Matrix, j: usize| m.2[j * d + h * dk..j * d + (h + 1) * dk].to_vec();
    let q_h = part(q, 0);
    let k_h: Vec<f32> = (0..n).flat_map(|j| part(k, j)).collect();
    let v_h: Vec<f32> = (0..n).flat_map(|j| part(v, j)).collect();
    let scores: Vec<f64> = (0..n)
        .map(|j| {
            (0..dk)
                .map(|c| q_h[c] as f64 * k_h[j * dk + c] as f64)
                .sum()
        })
        .collect();
    let scaled: Vec<f64> = scores.iter().map(|s| s / (dk as f64).sqrt()).collect();
    let max = (0..n)
        .filter(|&j| !hidden[j])
        .map(|j| scaled[j])
        .fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = (0..n)
        .map(|j| {
            if hidden[j] {
                0.0
            } else {
                (scaled[j] - max).exp()
            }
        })
        .collect();
    let sum: f64 = exps.iter().sum();
    let weights: Vec<f64> = exps.iter().map(|e| e / sum).collect();
    let output: Vec<f32> = (0..dk)
        .map(|c| {
            (0..n)
                .map(|j| weights[j] * v_h[j * dk + c] as f64)
                .sum::<f64>() as f32
        })
        .collect();
    let f32s = |v: &[f64]| Floats(v.iter().map(|&x| x as f32).collect());
    HeadJourney {
        q: Floats(q_h),
        keys: Floats(k_h),
        values: Floats(v_h),
        scores: f32s(&scores),
        scaled: f32s(&scaled),
        weights: f32s(&weights),
        output: Floats(output),
    }
}

/// One attention sub-layer for the query input `x` (one row), over keys and values projected
/// from `kv_in`, in plain loops: the expected journey and the sub-layer's result.
fn attention(
    r: &Reference,
    prefix: &str,
    norm: &str,
    x: &Matrix,
    kv_in: &Matrix,
    keys: (Vec<String>, Vec<bool>),
) -> (AttentionJourney, Matrix) {
    let heads = if prefix.starts_with("encoder") {
        r.config.encoder_heads()
    } else {
        r.config.decoder_heads()
    };
    let (d, bias) = (r.config.d_model, r.config.attention_bias);
    let dk = d / heads;
    let ((journeys, concat), end, result) = residual_block(r, norm, x, |q_in| {
        let q = r.linear(q_in, &format!("{prefix}.w_q"), bias);
        let k = r.linear(kv_in, &format!("{prefix}.w_k"), bias);
        let v = r.linear(kv_in, &format!("{prefix}.w_v"), bias);
        let journeys: Vec<HeadJourney> = (0..heads)
            .map(|h| head(&q, &k, &v, h, dk, &keys.1))
            .collect();
        let concat: Vec<f32> = journeys.iter().flat_map(|j| j.output.0.clone()).collect();
        let projected = r.linear(&(1, d, concat.clone()), &format!("{prefix}.w_o"), bias);
        ((journeys, concat), projected)
    });
    let journey = ending_with!(
        AttentionJourney {
            k_len: kv_in.0,
            key_tokens: keys.0,
            masked: Flags(keys.1),
            heads: journeys,
            concat: Floats(concat),
        },
        end
    );
    (journey, result)
}

/// The feed-forward sub-layer for one row `x`, in plain loops.
fn feed_forward(
    r: &Reference,
    prefix: &str,
    norm: &str,
    x: &Matrix,
) -> (FeedForwardJourney, Matrix) {
    let (hidden, end, result) = residual_block(r, norm, x, |input| {
        let hidden = r.ffn_hidden(input, prefix);
        let projected = r.linear(&hidden, &format!("{prefix}.linear_2"), true);
        (hidden, projected)
    });
    let journey = ending_with!(
        FeedForwardJourney {
            zeros: hidden.2.iter().filter(|&&h| h == 0.0).count(),
            hidden: floats(&hidden),
        },
        end
    );
    (journey, result)
}

/// What differs between the stacks: the ids, embedding table, weight-name prefix, sizes and
/// the self-attention's keys.
struct Side {
    ids: Vec<u32>,
    table: &'static str,
    name: &'static str,
    layers: usize,
    heads: usize,
    d_ff: usize,
    self_keys: (Vec<String>, Vec<bool>),
}

fn side(c: &ModelConfig, trace: &Trace, stack: Stack, p: usize) -> Side {
    let pad = |ids: &[u32]| ids.iter().map(|&id| id == c.pad_id).collect();
    match stack {
        Stack::Encoder => Side {
            ids: trace.src_ids.clone(),
            table: "src_embed.weight",
            name: "encoder",
            layers: c.n_encoder_layers,
            heads: c.encoder_heads(),
            d_ff: c.encoder_d_ff(),
            self_keys: (trace.src_tokens.clone(), pad(&trace.src_ids)),
        },
        Stack::Decoder => {
            let rows = trace.steps.len();
            Side {
                ids: trace.tgt_ids[..rows].to_vec(),
                table: "tgt_embed.weight",
                name: "decoder",
                layers: c.n_decoder_layers,
                heads: c.decoder_heads(),
                d_ff: c.decoder_d_ff(),
                self_keys: (
                    trace.tgt_tokens[..rows].to_vec(),
                    (0..rows).map(|j| j > p).collect(),
                ),
            }
        }
    }
}

/// The whole expected journey of `request`, from the weights and the trace's tokens.
pub fn expected(r: &Reference, trace: &Trace, request: Inspect) -> Journey {
    let c = &r.config;
    let Inspect {
        stack,
        layer,
        position: p,
    } = request;
    let src = &trace.src_ids;
    let source = (
        trace.src_tokens.clone(),
        src.iter().map(|&id| id == c.pad_id).collect::<Vec<_>>(),
    );
    let encoder = stack == Stack::Encoder;
    let side = side(c, trace, stack, p);
    let (memory, _) = r.encode(src);
    let mut x = r.embed(side.table, &side.ids);
    for l in 0..layer {
        x = if encoder {
            r.encoder_layer(l, &x, src).0
        } else {
            r.decoder_layer(l, &x, src, &memory).0
        };
    }
    let name = |part: &str| format!("{}.layers.{layer}.{part}", side.name);
    let kv_in = if c.norm_first {
        r.layer_norm(&x, &name("norm_1"))
    } else {
        x.clone()
    };
    let input = row(&x, p);
    let (self_attention, y) = attention(
        r,
        &name("self_attn"),
        &name("norm_1"),
        &input,
        &kv_in,
        side.self_keys,
    );
    let (cross_attention, y) = if encoder {
        (None, y)
    } else {
        let (journey, y) = attention(r, &name("cross_attn"), &name("norm_2"), &y, &memory, source);
        (Some(journey), y)
    };
    let ffn_norm = name(if encoder { "norm_2" } else { "norm_3" });
    let (feed_forward, output) = feed_forward(r, &name("ffn"), &ffn_norm, &y);
    let last = layer + 1 == side.layers;
    let final_norm =
        (last && c.norm_first).then(|| r.layer_norm(&output, &format!("{}.norm", side.name)));
    let logits = (last && !encoder).then(|| r.project(final_norm.as_ref().unwrap_or(&output)));
    let token = if encoder {
        trace.src_tokens[p].clone()
    } else {
        trace.tgt_tokens[p].clone()
    };
    Journey {
        stack,
        layer,
        layers: side.layers,
        position: p,
        token,
        token_id: side.ids[p],
        d_model: c.d_model,
        heads: side.heads,
        d_k: c.d_model / side.heads,
        d_ff: side.d_ff,
        norm: if c.norm_first {
            NormPlacement::Pre
        } else {
            NormPlacement::Post
        },
        activation: c.activation,
        layer_norm_eps: c.layer_norm_eps,
        embed_scale: r.embed_scale() as f32,
        embedding: (layer == 0).then(|| floats(&r.token_embedding(side.table, &[side.ids[p]]))),
        positional: (layer == 0)
            .then(|| Floats(r.positional(p).iter().map(|&v| v as f32).collect())),
        input: floats(&input),
        self_attention,
        cross_attention,
        feed_forward,
        output: floats(&output),
        final_norm: final_norm.as_ref().map(floats),
        logits: logits.as_ref().map(floats),
        // The step's candidates; the logits they come from are checked above.
        top: logits.map(|_| trace.steps[p].candidates.clone()),
    }
}
