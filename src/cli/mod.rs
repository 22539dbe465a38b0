//! The `attnscope` command line: translate, trace, train and evaluate (native only).
//!
//! This file parses the arguments and dispatches; each command group has its own file:
//! `decoding` (loading a model and decoding as asked), `show` (translate, trace, positional),
//! `timeline`, `inspect`, `train` (train, eval), `models` (import, random) and `heads`.

mod decoding;
mod heads;
mod inspect;
mod models;
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
    /// residual, LayerNorm, feed-forward, logits). See README, "Journey JSON".
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
    }
}

/// Parse the arguments, run, print errors as one line.
pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
