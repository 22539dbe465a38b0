//! One token's journey through one layer (`Session::inspect`, `attnscope inspect`), recomputed
//! vector by vector in plain loops from the saved weights (`common::journey`), ≤ 1e-4: the
//! layer input, every head's q, keys, values, scores, weights and output, the concatenation,
//! W_O, the residuals, the norms with their mean and std, the feed-forward activations, the
//! logits. The head weights equal the trace's rows; the top tokens equal the step's candidates.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use attnscope::files::folder::ModelFolder;
use attnscope::session::Inspect;
use attnscope::trace::journey::{Journey, NormPlacement, Stack};
use attnscope::{block_on, Session, Trace};
use common::journey::expected;
use common::reference::Reference;
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
    let output = common::attnscope_ok(binary, &args);
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
    let text = common::attnscope_ok(binary, &args[..args.len() - 1]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("苹"));
}

/// docs/json.md's "Journey JSON" tables list exactly the fields `inspect` serialises: the top level,
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
    let keys = common::json_keys;
    let documented = |table: &str| common::readme_table_fields("### Journey JSON", table);
    let attention = &journey["crossAttention"];
    let mut attention_keys = keys(attention);
    attention_keys.remove("heads");
    attention_keys.extend(
        keys(&attention["heads"][0])
            .into_iter()
            .map(|k| format!("heads[h].{k}")),
    );
    assert_eq!(documented("Journey fields:"), keys(&journey));
    assert_eq!(documented("Each attention sub-layer"), attention_keys);
    assert_eq!(documented("`feedForward`:"), keys(&journey["feedForward"]));
}
