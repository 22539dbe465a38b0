//! The `attnscope` command line: translate, trace, train and evaluate (native only).
//!
//! This file parses the arguments and dispatches; each command group has its own file:
//! `decoding` (loading a model and decoding as asked), `show` (translate, trace, positional),
//! `timeline`, `inspect`, `train` (train, eval), `models` (import, random) and `heads`.

mod decoding;
mod heads;
mod inspect;
mod models;
mod playground;
mod show;
mod timeline;
mod train;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::Result;
use decoding::{decode, session, Decode};

#[derive(Parser)]
#[command(
    name = "attnscope",
    version,
    about = "A Transformer you can watch think"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Translate a sentence and print the output.
    Translate(Decode),
    /// Print every attention matrix of a translation.
    Trace(show::TraceArgs),
    /// Print a model's training timeline: each snapshot's step, loss, held-out figure, output for
    /// the text, and the mean entropy of cross-attention per layer.
    Timeline(timeline::TimelineArgs),
    /// Follow one token through one layer: every vector (q, k, v, q·k, weights, Σαv, W_O,
    /// residual, LayerNorm, feed-forward, logits). See docs/json.md, "Journey JSON".
    Inspect(inspect::InspectArgs),
    /// Print the model's positional-encoding table and its PE(t)·PE(t+Δ) curves as JSON.
    Positional(show::PositionalArgs),
    /// Train one of the shipped models from scratch.
    Train(train::TrainArgs),
    /// Convert a Hugging Face checkpoint folder into an attnscope model folder.
    Import(models::ImportArgs),
    /// Write a randomly initialised model of a standard size (to time it: its output is noise).
    Random(models::RandomArgs),
    /// Evaluate a model folder on its held-out set.
    Eval(train::EvalArgs),
    /// Which heads matter: each head's mean importance and roles over held-out sentences, and
    /// with --prune the held-out score as heads are switched off.
    Heads(heads::HeadsArgs),
    /// Train a toy model from scratch with the paper's design choices as switches (the page's
    /// playground), or run one of its four experiments, and print the curve.
    Playground(playground::PlaygroundArgs),
}

/// Run one command.
fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Translate(args) => show::translate(&args),
        Command::Trace(args) => show::trace(args),
        Command::Timeline(args) => timeline::run(&args),
        Command::Inspect(args) => inspect::run(args),
        Command::Positional(args) => show::positional(&args),
        Command::Train(args) => train::train(args),
        Command::Import(args) => models::import(args),
        Command::Random(args) => models::random(&args),
        Command::Eval(args) => train::eval(args),
        Command::Heads(args) => heads::run(&args),
        Command::Playground(args) => playground::playground(&args),
    }
}

/// Parse the arguments, run, print errors as one line.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `--help` and `--version` as clap prints them; a usage error as one line like every other
/// error (clap's own spans several: the error, a tip, the usage, a pointer to `--help`), with
/// clap's exit status 2.
fn usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    let rendered = error.render().to_string();
    let mut line = String::new();
    for part in rendered.lines().map(str::trim).filter(|text| {
        !text.is_empty() && !text.starts_with("Usage:") && !text.starts_with("For more")
    }) {
        if !line.is_empty() {
            // A list ("arguments were not provided:") goes on after its colon.
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    eprintln!("{line} (see --help)");
    ExitCode::from(2)
}
