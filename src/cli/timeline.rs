//! `timeline`: a model's training snapshots, each one's loss, held-out figure, output for a
//! text, and the mean entropy of cross-attention per layer.

use std::path::PathBuf;

use burn::tensor::Device;
use clap::Args;

use super::decoding::{read_snapshot, read_timeline};
use crate::files::folder::ModelFolder;
use crate::session::layer_entropy;
use crate::{block_on, Result, Session};

/// The arguments of `attnscope timeline`.
#[derive(Args)]
pub(super) struct TimelineArgs {
    /// Model folder (with timeline.json).
    #[arg(long, default_value = "models/date-iso")]
    model: PathBuf,
    /// The text to translate with every snapshot.
    text: String,
    /// Print JSON rows instead of a table.
    #[arg(long)]
    json: bool,
}

/// One row of `attnscope timeline`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TimelineRow<'a> {
    step: usize,
    loss: f32,
    heldout: f64,
    output: &'a str,
    cross_entropy: Vec<f32>,
}

/// Translate the text with every snapshot and print one row each.
pub(super) fn run(args: &TimelineArgs) -> Result<()> {
    let TimelineArgs { model, text, json } = args;
    let (model, json) = (model.as_path(), *json);
    let timeline = read_timeline(model)?;
    let folder = ModelFolder::read(model)?;
    let mut session = Session::load(folder.files(), Device::flex())?;
    if !json {
        println!(
            "{:>6}  {:>7}  {:>9}  {:<24}  mean cross-attention entropy per layer (nats)",
            "step", "loss", timeline.heldout_metric, "output"
        );
    }
    for snapshot in &timeline.snapshots {
        session.replace_weights(&read_snapshot(model, snapshot)?)?;
        let trace = block_on(session.translate(text))?;
        let row = TimelineRow {
            step: snapshot.step,
            loss: snapshot.loss,
            heldout: snapshot.heldout,
            output: &trace.output,
            cross_entropy: layer_entropy(&trace.cross_attention),
        };
        if json {
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
