//! One token's journey through one layer (`Session::inspect`, `attnscope inspect`), recomputed
//! vector by vector in plain loops from the saved weights (`common::reference`), ≤ 1e-4: the
//! layer input, every head's q, keys, values, scores, weights and output, the concatenation,
//! W_O, the residuals, the norms with their mean and std, the feed-forward activations, the
//! logits. The head weights equal the trace's rows; the top tokens equal the step's candidates.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use attnscope::files::folder::ModelFolder;
use attnscope::session::Inspect;
use attnscope::trace::journey::{
    AttentionJourney, FeedForwardJourney, HeadJourney, Journey, NormPlacement, Stack,
};
use attnscope::trace::{Flags, Floats};
use attnscope::ModelConfig;
use attnscope::{block_on, Session, Trace};
use common::reference::{Matrix, Reference};
use serde_json::Value;

/// Absolute tolerance, for every number (logits and raw scores included).
const TOLERANCE: f64 = 1e-4;

/// Every number of `got` within [`TOLERANCE`] of `want`, every name, string and null the same;
/// `Err` names the first path that differs.
fn compare(path: &str, got: &Value, want: &Value) -> Result<(), String> {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            if (a - b).abs() <= TOLERANCE {
                Ok(())
            } else {
                Err(format!("{path}: {a} vs reference {b}"))
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (x, y))| compare(&format!("{path}[{i}]"), x, y)),
        (Value::Object(a), Value::Object(b)) if a.len() == b.len() => {
            a.iter().try_for_each(|(k, x)| {
                let y = b
                    .get(k)
                    .ok_or_else(|| format!("{path}.{k}: not in the reference"))?;
                compare(&format!("{path}.{k}"), x, y)
            })
        }
        _ if got == want => Ok(()),
        _ => Err(format!("{path}: {got} vs reference {want}")),
    }
}

fn row(m: &Matrix, i: usize) -> Matrix {
    (1, m.1, m.2[i * m.1..(i + 1) * m.1].to_vec())
}

fn floats(m: &Matrix) -> Floats {
    Floats(m.2.clone())
}

/// Mean and population standard deviation, in f64.
fn stats(values: &[f32]) -> (f32, f32) {
    let n = values.len() as f64;
    let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = values
        .iter()
        .map(|&v| (v as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean as f32, var.sqrt() as f32)
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
    let pre = r.config.norm_first;
    let heads = if prefix.starts_with("encoder") {
        r.config.encoder_heads()
    } else {
        r.config.decoder_heads()
    };
    let (d, bias, n) = (r.config.d_model, r.config.attention_bias, kv_in.0);
    let dk = d / heads;
    let q_in = if pre {
        r.layer_norm(x, norm)
    } else {
        x.clone()
    };
    let q = r.linear(&q_in, &format!("{prefix}.w_q"), bias);
    let k = r.linear(kv_in, &format!("{prefix}.w_k"), bias);
    let v = r.linear(kv_in, &format!("{prefix}.w_v"), bias);
    let hidden = &keys.1;
    let mut concat = vec![];
    let mut journeys = vec![];
    for h in 0..heads {
        let part = |m: &Matrix, j: usize| m.2[j * d + h * dk..j * d + (h + 1) * dk].to_vec();
        let q_h = part(&q, 0);
        let k_h: Vec<f32> = (0..n).flat_map(|j| part(&k, j)).collect();
        let v_h: Vec<f32> = (0..n).flat_map(|j| part(&v, j)).collect();
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
        concat.extend_from_slice(&output);
        let f32s = |v: &[f64]| Floats(v.iter().map(|&x| x as f32).collect());
        journeys.push(HeadJourney {
            q: Floats(q_h),
            keys: Floats(k_h),
            values: Floats(v_h),
            scores: f32s(&scores),
            scaled: f32s(&scaled),
            weights: f32s(&weights),
            output: Floats(output),
        });
    }
    let projected = r.linear(&(1, d, concat.clone()), &format!("{prefix}.w_o"), bias);
    let residual = Reference::add(x, &projected);
    let normed = (!pre).then(|| r.layer_norm(&residual, norm));
    let (mean, std) = stats(if pre { &x.2 } else { &residual.2 });
    let result = normed.clone().unwrap_or_else(|| residual.clone());
    let journey = AttentionJourney {
        k_len: n,
        key_tokens: keys.0,
        masked: Flags(keys.1),
        normed_input: pre.then(|| floats(&q_in)),
        heads: journeys,
        concat: Floats(concat),
        projected: floats(&projected),
        residual: floats(&residual),
        normed: normed.as_ref().map(floats),
        mean,
        std,
    };
    (journey, result)
}

/// The feed-forward sub-layer for one row `x`, in plain loops.
fn feed_forward(
    r: &Reference,
    prefix: &str,
    norm: &str,
    x: &Matrix,
) -> (FeedForwardJourney, Matrix) {
    let pre = r.config.norm_first;
    let input = if pre {
        r.layer_norm(x, norm)
    } else {
        x.clone()
    };
    let hidden = r.ffn_hidden(&input, prefix);
    let projected = r.linear(&hidden, &format!("{prefix}.linear_2"), true);
    let residual = Reference::add(x, &projected);
    let normed = (!pre).then(|| r.layer_norm(&residual, norm));
    let (mean, std) = stats(if pre { &x.2 } else { &residual.2 });
    let result = normed.clone().unwrap_or_else(|| residual.clone());
    let journey = FeedForwardJourney {
        normed_input: pre.then(|| floats(&input)),
        zeros: hidden.2.iter().filter(|&&h| h == 0.0).count(),
        hidden: floats(&hidden),
        projected: floats(&projected),
        residual: floats(&residual),
        normed: normed.as_ref().map(floats),
        mean,
        std,
    };
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
fn expected(r: &Reference, trace: &Trace, request: Inspect) -> Journey {
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

/// The trace's weights for `request`'s heads: `[sub-layer][head][keys]`.
fn trace_rows(trace: &Trace, request: Inspect, heads: usize) -> Vec<Vec<Vec<f32>>> {
    let Inspect {
        stack,
        layer,
        position,
    } = request;
    let stacks = match stack {
        Stack::Encoder => vec![&trace.encoder_self_attention],
        Stack::Decoder => vec![&trace.decoder_self_attention, &trace.cross_attention],
    };
    stacks
        .into_iter()
        .map(|s| {
            (0..heads)
                .map(|h| s.matrix(layer, h)[position * s.keys..(position + 1) * s.keys].to_vec())
                .collect()
        })
        .collect()
}

/// A sentence to decode: the text, and a target prefix to force first (as `--prefix`).
type Sentence<'a> = (&'a str, Option<&'a str>);

/// A session that decoded `sentence` to the end, and its trace.
fn decoded(folder: &ModelFolder, (text, prefix): Sentence<'_>) -> (Session, Trace) {
    let mut session = common::session(folder);
    block_on(async {
        session.start(text).await.unwrap();
        if let Some(prefix) = prefix {
            session.set_prefix(prefix).await.unwrap();
        }
        session.run_to_end().await.unwrap();
    });
    let trace = session.trace().unwrap().clone();
    (session, trace)
}

/// Every vector of the session's journey against the plain loops; the head weights against the
/// trace. Returns the journey.
fn check(
    folder: &ModelFolder,
    sentence: Sentence<'_>,
    stack: Stack,
    layer: usize,
    position: usize,
) -> Journey {
    let reference = Reference::new(folder);
    let (session, trace) = decoded(folder, sentence);
    let request = Inspect {
        stack,
        layer,
        position,
    };
    let journey = block_on(session.inspect(request)).unwrap();
    let want = expected(&reference, &trace, request);
    let what = format!(
        "{} {stack:?} layer {layer} position {position}",
        trace.model
    );
    compare(
        &what,
        &serde_json::to_value(&journey).unwrap(),
        &serde_json::to_value(&want).unwrap(),
    )
    .unwrap();
    let sub_layers = std::iter::once(&journey.self_attention).chain(&journey.cross_attention);
    for (sub_layer, rows) in sub_layers.zip(trace_rows(&trace, request, journey.heads)) {
        for (head, row) in sub_layer.heads.iter().zip(rows) {
            common::assert_close(&format!("{what}: trace row"), &head.weights, &row, 1e-6);
        }
    }
    journey
}

/// The index of `token` among the trace's target tokens.
fn target_position(folder: &ModelFolder, text: &str, token: &str) -> usize {
    let (_, trace) = decoded(folder, (text, None));
    trace
        .tgt_tokens
        .iter()
        .position(|t| t == token)
        .unwrap_or_else(|| panic!("{token} not in {:?}", trace.tgt_tokens))
}

#[test]
fn en_zh_pre_norm_journeys_match_the_reference() {
    let folder = common::shipped("en-zh");
    let text = "I love eating apples.";
    // 苹果 is two characters in en-zh's target vocabulary: 苹 (position 4) and 果.
    let apple = target_position(&folder, text, "苹");
    let last = 2;
    for layer in [0, last] {
        check(&folder, (text, None), Stack::Encoder, layer, 3);
        let journey = check(&folder, (text, None), Stack::Decoder, layer, apple);
        assert_eq!(journey.logits.is_some(), layer == last);
        assert_eq!(journey.embedding.is_some(), layer == 0);
    }
}

#[test]
fn date_iso_post_norm_journeys_match_the_reference() {
    let folder = common::shipped("date-iso");
    let text = "Friday, the 29th of August 1958";
    for layer in [0, 1] {
        check(&folder, (text, None), Stack::Encoder, layer, 4);
        let journey = check(&folder, (text, None), Stack::Decoder, layer, 7);
        assert_eq!(journey.norm, NormPlacement::Post);
        assert!(journey.feed_forward.normed.is_some() && journey.final_norm.is_none());
    }
}

#[test]
fn every_architecture_option_journey_matches_the_reference() {
    // A forced prefix, so that a random model has a later step to look at.
    let sentence = ("I love eating noodles every day.", Some("我爱吃"));
    for (name, change) in common::reference::architecture_options() {
        for norm_first in [false, true] {
            eprintln!("{name}, norm_first {norm_first}");
            let folder = common::tiny_model_with(norm_first, 4, change);
            for layer in [0, 1] {
                check(&folder, sentence, Stack::Encoder, layer, 2);
                check(&folder, sentence, Stack::Decoder, layer, 3);
            }
        }
    }
}

#[test]
fn random_pre_norm_and_post_norm_journeys_match_the_reference() {
    let sentence = ("I love eating noodles every day.", Some("我爱吃"));
    for norm_first in [true, false] {
        let folder = common::tiny_model(norm_first, 1);
        for layer in [0, 1] {
            check(&folder, sentence, Stack::Encoder, layer, 5);
            check(&folder, sentence, Stack::Decoder, layer, 2);
            check(&folder, sentence, Stack::Decoder, layer, 3);
        }
    }
}

/// The comparison sees which head is which: with heads 0 and 1 swapped it fails.
#[test]
fn swapping_two_heads_fails_the_comparison() {
    let folder = common::shipped("en-zh");
    let text = "I love eating apples.";
    let reference = Reference::new(&folder);
    let mut session = common::session(&folder);
    let trace = block_on(session.translate(text)).unwrap().clone();
    for request in [
        Inspect {
            stack: Stack::Encoder,
            layer: 1,
            position: 2,
        },
        Inspect {
            stack: Stack::Decoder,
            layer: 2,
            position: 3,
        },
    ] {
        let mut journey = block_on(session.inspect(request)).unwrap();
        let want = serde_json::to_value(expected(&reference, &trace, request)).unwrap();
        compare(
            "as computed",
            &serde_json::to_value(&journey).unwrap(),
            &want,
        )
        .unwrap();
        let sub_layer = journey
            .cross_attention
            .as_mut()
            .unwrap_or(&mut journey.self_attention);
        sub_layer.heads.swap(0, 1);
        let error = compare("swapped", &serde_json::to_value(&journey).unwrap(), &want)
            .expect_err("swapped heads must not pass");
        assert!(error.contains("heads[0]"), "{error}");
    }
}

#[test]
fn top_equals_the_steps_candidates_and_positions_are_checked() {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    block_on(session.start("I love eating apples.")).unwrap();
    let decoder = |position| Inspect {
        stack: Stack::Decoder,
        layer: 2,
        position,
    };
    assert!(
        block_on(session.inspect(decoder(0))).is_err(),
        "nothing decoded yet"
    );
    let trace = block_on(session.translate("I love eating apples."))
        .unwrap()
        .clone();
    for (p, step) in trace.steps.iter().enumerate() {
        let journey = block_on(session.inspect(decoder(p))).unwrap();
        let top = journey.top.unwrap();
        assert_eq!(
            top.iter().map(|c| c.id).collect::<Vec<_>>(),
            step.candidates.iter().map(|c| c.id).collect::<Vec<_>>(),
            "step {p}"
        );
        for (a, b) in top.iter().zip(&step.candidates) {
            assert!((a.probability - b.probability).abs() < 1e-5, "step {p}");
        }
    }
    let rows = trace.steps.len();
    assert!(block_on(session.inspect(decoder(rows))).is_err());
    let layer = Inspect {
        stack: Stack::Encoder,
        layer: 3,
        position: 0,
    };
    assert!(block_on(session.inspect(layer)).is_err());
}

#[test]
fn cli_prints_the_journey_json_with_the_documented_names() {
    let binary = env!("CARGO_BIN_EXE_attnscope");
    let args = [
        "inspect",
        "--model",
        "models/en-zh",
        "I love eating apples.",
        "--stack",
        "decoder",
        "--layer",
        "2",
        "--position",
        "4",
        "--json",
    ];
    let output = common::attnscope(binary, &args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    for name in [
        "input",
        "embedding",
        "positional",
        "output",
        "selfAttention",
        "crossAttention",
        "feedForward",
        "finalNorm",
        "logits",
        "top",
    ] {
        assert!(json.get(name).is_some(), "{name}");
    }
    assert!(json["embedding"].is_null() && json["positional"].is_null());
    for sub in ["selfAttention", "crossAttention"] {
        for name in [
            "normedInput",
            "residual",
            "normed",
            "mean",
            "std",
            "heads",
            "concat",
            "projected",
            "keyTokens",
            "masked",
        ] {
            assert!(json[sub].get(name).is_some(), "{sub}.{name}");
        }
        for name in [
            "q", "keys", "values", "scores", "scaled", "weights", "output",
        ] {
            assert!(
                json[sub]["heads"][0].get(name).is_some(),
                "{sub}.heads[0].{name}"
            );
        }
    }
    for name in [
        "normedInput",
        "hidden",
        "zeros",
        "projected",
        "residual",
        "normed",
        "mean",
        "std",
    ] {
        assert!(
            json["feedForward"].get(name).is_some(),
            "feedForward.{name}"
        );
    }
    assert_eq!(json["token"], "苹");
    assert_eq!(json["top"][0]["token"], "果");
    let text = common::attnscope(binary, &args[..args.len() - 1]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("苹"));
}

/// The backticked names in the first cell of each row of the README table after `heading`, within
/// the "Journey JSON" section.
fn documented_journey_fields(heading: &str) -> std::collections::BTreeSet<String> {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let section = readme
        .split("### Journey JSON")
        .nth(1)
        .expect("README has a Journey JSON section");
    let section = section.split("\n#").next().unwrap();
    section
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("README's Journey JSON section has {heading}"))
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| line.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2).map(str::to_string))
        .filter(|name| name != "field")
        .collect()
}

/// The README's "Journey JSON" tables list exactly the fields `inspect` serialises: the top level,
/// an attention sub-layer (with `heads[h].…` for a head's), and the feed-forward sub-layer.
#[test]
fn readme_documents_every_journey_field() {
    let folder = common::shipped("en-zh");
    let (session, _) = decoded(&folder, ("I love eating apples.", None));
    let request = Inspect {
        stack: Stack::Decoder,
        layer: session.config().n_decoder_layers - 1,
        position: 1,
    };
    let journey = serde_json::to_value(block_on(session.inspect(request)).unwrap()).unwrap();
    let keys = |value: &Value| -> std::collections::BTreeSet<String> {
        value.as_object().unwrap().keys().cloned().collect()
    };
    let attention = &journey["crossAttention"];
    let mut attention_keys = keys(attention);
    attention_keys.remove("heads");
    attention_keys.extend(
        keys(&attention["heads"][0])
            .into_iter()
            .map(|k| format!("heads[h].{k}")),
    );
    assert_eq!(documented_journey_fields("Journey fields:"), keys(&journey));
    assert_eq!(
        documented_journey_fields("Each attention sub-layer"),
        attention_keys
    );
    assert_eq!(
        documented_journey_fields("`feedForward`:"),
        keys(&journey["feedForward"])
    );
}
