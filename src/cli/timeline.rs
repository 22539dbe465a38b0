//! `timeline`: a model's training snapshots, each one's loss, held-out figure, output for a
//! text, and the mean entropy of cross-attention per layer; `timeline --record` turns a
//! folder's weight snapshots into recordings.

use std::path::PathBuf;

use burn::tensor::Device;
use clap::Args;

use super::decoding::read_snapshot;
use crate::files::folder::ModelFolder;
use crate::files::timeline::{read_timeline, Snapshot, Timeline};
use crate::session::layer_entropy;
use crate::trace::AttentionStack;
use crate::train::recording::{read_recording, record_timeline, recorded_sentences};
use crate::train::sets::heldout_for;
use crate::{block_on, Error, Result, Session};

/// The arguments of `attnscope timeline`.
#[derive(Args)]
pub(super) struct TimelineArgs {
    /// Model folder (with timeline.json).
    #[arg(long, default_value = "models/date-iso")]
    model: PathBuf,
    /// The text to translate with every snapshot (one of the recorded sentences, for a
    /// recorded timeline).
    #[arg(required_unless_present = "record")]
    text: Option<String>,
    /// Print JSON rows instead of a table.
    #[arg(long)]
    json: bool,
    /// Replace the weight snapshots by recordings of the running example and held-out
    /// sentences (what `train en-zh` does), read from --data.
    #[arg(long)]
    record: bool,
    /// With --record: the data folder of the held-out sentences.
    #[arg(long, default_value = "data")]
    data: PathBuf,
}

/// One row of `attnscope timeline`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TimelineRow {
    step: usize,
    loss: f32,
    heldout: f64,
    output: String,
    cross_entropy: Vec<f32>,
}

/// The output and cross-attention of `text` at `snapshot`: recorded, or decoded with its weights.
fn snapshot_row(
    args: &TimelineArgs,
    timeline: &Timeline,
    session: &mut Session,
    snapshot: &Snapshot,
    text: &str,
) -> Result<(String, Vec<f32>)> {
    if !snapshot.recorded {
        session.replace_weights(&read_snapshot(&args.model, snapshot)?)?;
        let trace = block_on(session.translate(text))?;
        return Ok((trace.output.clone(), layer_entropy(&trace.cross_attention)));
    }
    let index = timeline
        .sentences
        .iter()
        .position(|s| s == text)
        .ok_or_else(|| {
            Error::Usage(format!(
                "{text:?} is not one of the recorded sentences: {}",
                timeline.sentences.join(" | ")
            ))
        })?;
    let recording = read_recording(&args.model.join(&snapshot.file))?;
    let trace = recording
        .answers
        .get(index)
        .map(|answer| &answer["trace"])
        .ok_or(Error::Timeline(format!(
            "{} lacks an answer",
            snapshot.file
        )))?;
    let output = trace["output"].as_str().unwrap_or_default().to_string();
    let cross: AttentionStack = serde_json::from_value(trace["crossAttention"].clone())?;
    Ok((output, layer_entropy(&cross)))
}

/// Translate the text with every snapshot and print one row each.
pub(super) fn run(args: &TimelineArgs) -> Result<()> {
    if args.record {
        let heldout = heldout_for("en-zh", &args.data)?;
        return record_timeline(&args.model, &recorded_sentences(&heldout[0].pairs));
    }
    let text = args.text.as_deref().unwrap_or_default();
    let timeline = read_timeline(&args.model)?;
    let folder = ModelFolder::read(&args.model)?;
    let mut session = Session::load(folder.files(), Device::flex())?;
    if !args.json {
        println!(
            "{:>6}  {:>7}  {:>9}  {:<24}  mean cross-attention entropy per layer (nats)",
            "step", "loss", timeline.heldout_metric, "output"
        );
    }
    for snapshot in &timeline.snapshots {
        let (output, cross_entropy) = snapshot_row(args, &timeline, &mut session, snapshot, text)?;
        let row = TimelineRow {
            step: snapshot.step,
            loss: snapshot.loss,
            heldout: snapshot.heldout,
            output,
            cross_entropy,
        };
        if args.json {
            let line = serde_json::to_string(&row)?;
            println!("{line}");
        } else {
            let output: String = row.output.chars().take(24).collect();
            let entropy: Vec<String> = row
                .cross_entropy
                .iter()
                .map(|e| format!("{e:.3}"))
                .collect();
            println!(
                "{:>6}  {:>7.4}  {:>8.1}%  {output:<24}  {}",
                row.step,
                row.loss,
                100.0 * row.heldout,
                entropy.join("  ")
            );
        }
    }
    Ok(())
}
