//! `translate`, `trace` and `positional`: a translation's output, every attention matrix (or
//! the answer as JSON), and the positional table.

use std::path::PathBuf;

use burn::tensor::Device;
use clap::Args;

use super::decoding::parse_focus;
use super::{decode, session, Decode};
use crate::files::folder::ModelFolder;
use crate::session::{Answer, HeadStages};
use crate::trace::analysis::Analysis;
use crate::{block_on, Result, Session, Trace};

/// The arguments of `attnscope trace`.
#[derive(Args)]
pub(super) struct TraceArgs {
    #[command(flatten)]
    decode: Decode,
    /// Print the answer as JSON: `{"trace": …, "stages": …}` (see docs/json.md, "Trace JSON").
    #[arg(long)]
    json: bool,
    /// Also give the occlusion attribution of this decoder row (it produced output token
    /// ROW + 1), beside its attention. In JSON it is the field `attribution`.
    #[arg(long, value_name = "ROW")]
    attribution: Option<usize>,
    /// Also give the summaries: mean and max over heads, encoder rollout, source attribution.
    /// In JSON it is the field `analysis`.
    #[arg(long)]
    analysis: bool,
    /// Also give one head's stages (raw QKᵀ → scaled → masked → softmax, and without the
    /// scaling, with per-head entropy), as `KIND:LAYER:HEAD`, KIND one of encoderSelf,
    /// decoderSelf, cross. In JSON it is the field `stages`.
    #[arg(long, value_name = "KIND:LAYER:HEAD")]
    stages: Option<String>,
}

/// The arguments of `attnscope positional`.
#[derive(Args)]
pub(super) struct PositionalArgs {
    /// Model folder.
    #[arg(long, default_value = "models/en-zh")]
    model: PathBuf,
}

/// Translate and print the output (with a note when the input was cut).
pub(super) fn translate(args: &Decode) -> Result<()> {
    let mut session = session(args)?;
    let _ = decode(&mut session, args)?;
    let trace = session.trace()?;
    if let Some(cut) = &trace.truncation {
        eprintln!(
            "note: the input was cut to {} of {} tokens",
            cut.kept_tokens, cut.total_tokens
        );
    }
    println!("{}", trace.output);
    note_impossible_date(trace);
    Ok(())
}

/// A note on stderr when the output is a date that does not exist: the output is printed as the
/// model wrote it, and marked here (and in `trace --json` as `trace.impossibleDate`).
fn note_impossible_date(trace: &Trace) {
    if let Some(date) = &trace.impossible_date {
        eprintln!(
            "note: {} is not a real date ({}); this is the model's output as it wrote it",
            trace.output,
            date.reason()
        );
    }
}

/// Translate, then print every attention matrix, or the answer as JSON.
pub(super) fn trace(args: TraceArgs) -> Result<()> {
    let TraceArgs {
        decode: decoding,
        json,
        stages,
        attribution,
        analysis,
    } = args;
    let mut session = session(&decoding)?;
    let beam = decode(&mut session, &decoding)?;
    let stages = match stages {
        Some(spec) => block_on(session.stages(parse_focus(&spec)?))?,
        None => None,
    };
    let attribution = match attribution {
        Some(row) => Some(block_on(session.attribution(row))?),
        None => None,
    };
    let trace = session.trace()?;
    if json {
        let answer = Answer {
            trace,
            stages,
            analysis: analysis.then(|| Analysis::of(trace)),
            beam,
            attribution,
        };
        let text = serde_json::to_string(&answer)?;
        println!("{text}");
    } else {
        print_trace(trace);
        if let Some(stages) = stages {
            print_stages(&stages);
        }
        note_impossible_date(trace);
    }
    Ok(())
}

/// Print the positional-encoding table and its PE(t)·PE(t+Δ) curves as JSON.
pub(super) fn positional(args: &PositionalArgs) -> Result<()> {
    let folder = ModelFolder::read(&args.model)?;
    let session = Session::load(folder.files(), Device::flex())?;
    let view = session.positional().view();
    let text = serde_json::to_string(&view)?;
    println!("{text}");
    Ok(())
}

/// Every attention matrix as a table.
fn print_trace(trace: &Trace) {
    println!("source: {}", trace.src_tokens.join(" | "));
    println!("target: {}", trace.tgt_tokens.join(" | "));
    let stacks = [
        (
            "encoder self-attention",
            &trace.encoder_self_attention,
            &trace.src_tokens,
            &trace.src_tokens,
        ),
        (
            "decoder self-attention",
            &trace.decoder_self_attention,
            &trace.tgt_tokens,
            &trace.tgt_tokens,
        ),
        (
            "cross-attention",
            &trace.cross_attention,
            &trace.tgt_tokens,
            &trace.src_tokens,
        ),
    ];
    for (title, stack, rows, cols) in stacks {
        for layer in 0..stack.layers {
            for head in 0..stack.heads {
                println!("\n{title}, layer {layer}, head {head}");
                println!(
                    "{:>10} {}",
                    "",
                    cols.iter().map(|c| format!("{c:>7}")).collect::<String>()
                );
                for q in 0..stack.queries {
                    let row: String = (0..stack.keys)
                        .map(|k| format!("{:>7.3}", stack.get(layer, head, q, k)))
                        .collect();
                    println!(
                        "{:>10} {row}",
                        rows.get(q).map(String::as_str).unwrap_or("")
                    );
                }
            }
        }
    }
}

/// One head's stages as tables.
fn print_stages(p: &HeadStages) {
    println!(
        "\nstages of {:?} layer {} head {} (d_k = {}):",
        p.kind, p.layer, p.head, p.d_k
    );
    for (name, values) in [
        ("raw QKᵀ", &p.raw),
        ("scaled", &p.scaled),
        ("softmax", &p.softmax),
        ("softmax without scaling", &p.unscaled_softmax),
    ] {
        println!("{name}:");
        for row in values.chunks(p.keys.max(1)) {
            let row: String = row.iter().map(|v| format!("{v:>9.4}")).collect();
            println!("  {row}");
        }
    }
    println!("entropy per head (nats): {:?}", p.entropy);
    println!("without scaling:         {:?}", p.unscaled_entropy);
}
