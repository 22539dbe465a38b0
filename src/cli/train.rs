//! `train` and `eval`: rebuild a shipped model from its recipe, or measure a model folder on
//! its held-out sets.

use std::path::PathBuf;

use clap::Args;

use crate::files::folder::{LoadedModel, ModelFolder};
use crate::model::ablation::Ablation;
use crate::train::agreement::human_agreement;
use crate::train::evaluate::{evaluate_with, Decoding, Metrics};
use crate::train::loss::set_loss;
use crate::train::recipes::{self, recipe_train_pairs, RecipeOptions};
use crate::train::sets::heldout_for;
use crate::{Error, ModelConfig, Result};

/// The arguments of `attnscope train`.
#[derive(Args)]
pub(super) struct TrainArgs {
    /// `date-iso`, `en-zh` or `zh-en`.
    recipe: String,
    /// Output model folder.
    #[arg(long)]
    out: PathBuf,
    /// Folder with tatoeba/tatoeba.tsv and en-zh/hsk.tsv (en-zh, zh-en).
    #[arg(long, default_value = "data")]
    data: PathBuf,
    /// Training seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Override the number of epochs.
    #[arg(long)]
    epochs: Option<usize>,
    /// Stop after this many minutes.
    #[arg(long)]
    minutes: Option<f64>,
    /// Checkpoint after every epoch into OUT/checkpoint/, and resume from one found there
    /// (refused, naming what differs, unless the model, the training settings and the
    /// tokenized training pairs are the same).
    #[arg(long)]
    resume: bool,
    /// Stop after this many epochs (with --resume: continue later where it stopped).
    #[arg(long)]
    stop_after_epochs: Option<usize>,
    /// en-zh, zh-en: train with (true) or without (false) the 1,500 generated grammar
    /// sentences, instead of the recipe's choice (en-zh without, zh-en with).
    #[arg(long)]
    grammar: Option<bool>,
    /// Tie the output projection to the target embedding (true) instead of the recipe's
    /// separate one (false).
    #[arg(long)]
    tie_output: Option<bool>,
    /// Dropout probability (0 ≤ p < 1) for every dropout in the model, instead of the recipe's
    /// (0.05 for date-iso, 0.2 for en-zh, 0.1 for zh-en).
    #[arg(long, value_parser = dropout_probability, allow_negative_numbers = true)]
    dropout: Option<f64>,
    /// Layers in each stack, encoder and decoder (1–12), instead of the recipe's (3 for en-zh
    /// and zh-en, 2 for date-iso).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=12))]
    layers: Option<u16>,
    /// d_model of every layer (a multiple of 4, 32–1024), with d_ff four times it, instead of
    /// the recipe's (192 for en-zh and zh-en, 64 for date-iso); the heads stay 4.
    #[arg(long, value_parser = model_width)]
    width: Option<usize>,
    /// en-zh, zh-en: English BPE vocabulary size, specials included (100–32000), instead of
    /// the recipe's 4000.
    #[arg(long, value_parser = clap::value_parser!(u16).range(100..=32000))]
    subwords: Option<u16>,
    /// en-zh, zh-en: also train on the first N words of CC-CEDICT (data/cedict/cedict.tsv,
    /// most frequent first, from `python3 scripts/fetch_cedict.py`), 1–100000.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    dictionary: Option<u32>,
    /// Threads that share each batch (data parallel), instead of the recipe's (2 for en-zh and
    /// zh-en, 1 for date-iso); each count trains other weights from the same seed (each thread
    /// draws its own dropout masks).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: Option<u16>,
}

/// The arguments of `attnscope eval`.
#[derive(Args)]
pub(super) struct EvalArgs {
    /// Model folder.
    #[arg(long)]
    model: PathBuf,
    /// Folder with tatoeba/tatoeba.tsv and en-zh/hsk.tsv (en-zh, zh-en).
    #[arg(long, default_value = "data")]
    data: PathBuf,
    /// Also write every held-out translation to this TSV (set, source, reference, output).
    #[arg(long)]
    dump: Option<PathBuf>,
    /// Decode with the page's beam search of this width (1–8) instead of greedily; the
    /// shipped `metrics.json` figures are greedy.
    #[arg(long)]
    beam: Option<usize>,
    /// The beam's length penalty α, `((5 + len) / 6)^α` (the page's default).
    #[arg(long, default_value_t = 1.0)]
    alpha: f64,
    /// Switch these heads off (`KIND:LAYER:HEAD,…`, as `translate --ablate`).
    #[arg(long, value_name = "KIND:LAYER:HEAD[,…]")]
    ablate: Option<String>,
    /// Write this evaluation's figures into the folder's `metrics.json`, keeping the training
    /// run's own (`trainPairs`, `trainSeconds`): greedy, every head on.
    #[arg(long)]
    update_metrics: bool,
    /// Instead of decoding, print the teacher-forced cross-entropy per target token on each
    /// held-out set and on the recipe's training pairs (docs/models.md, "Held-out loss").
    #[arg(long)]
    loss: bool,
    /// With --loss: score only this many training pairs, spread evenly over them (0: none).
    #[arg(long, requires = "loss")]
    train_sample: Option<usize>,
}

/// Train one of the shipped models from scratch and print its metrics.
pub(super) fn train(args: TrainArgs) -> Result<()> {
    let TrainArgs {
        recipe,
        out,
        data,
        seed,
        epochs,
        minutes,
        resume,
        stop_after_epochs,
        grammar,
        tie_output,
        dropout,
        layers,
        width,
        subwords,
        dictionary,
        threads,
    } = args;
    let options = RecipeOptions {
        seed,
        epochs,
        minutes,
        progress: true,
        checkpoints: resume,
        stop_after_epochs,
        grammar,
        tie_output,
        dropout,
        layers: layers.map(usize::from),
        width,
        subwords: subwords.map(usize::from),
        dictionary: dictionary.map(|n| n as usize),
        threads: threads.map(usize::from),
    };
    let metrics = match recipe.as_str() {
        "date-iso" => {
            refuse_translator_flags(&options)?;
            recipes::build_date_iso(&data, &out, &options)?
        }
        "en-zh" => recipes::build_en_zh(&data, &out, &options)?,
        "zh-en" => recipes::build_zh_en(&data, &out, &options)?,
        other => {
            return Err(Error::Usage(format!(
                "unknown recipe {other:?}: use date-iso, en-zh or zh-en"
            )))
        }
    };
    println!("{}", serde_json::to_string_pretty(&metrics)?);
    Ok(())
}

/// date-iso has no grammar sentences, no English subwords and no dictionary: refuse the flags
/// that would set them, rather than train as if they were not given.
fn refuse_translator_flags(options: &RecipeOptions) -> Result<()> {
    let given: Vec<&str> = [
        ("--grammar", options.grammar.is_some()),
        ("--subwords", options.subwords.is_some()),
        ("--dictionary", options.dictionary.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    let verb = if given.len() == 1 { "applies" } else { "apply" };
    Err(Error::Usage(format!(
        "{} only {verb} to en-zh and zh-en, not to date-iso",
        given.join(", ")
    )))
}

/// `--dropout`: a probability in [0, 1).
fn dropout_probability(text: &str) -> std::result::Result<f64, String> {
    let p: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..1.0).contains(&p) {
        Ok(p.abs()) // -0 as 0
    } else {
        Err(format!("{p} is not a dropout probability: use 0 ≤ p < 1"))
    }
}

/// `--width`'s parser: a d_model that the 4 heads split evenly (`ModelConfig::validate`),
/// 32–1024.
fn model_width(text: &str) -> std::result::Result<usize, String> {
    let width: usize = text
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number"))?;
    if (32..=1024).contains(&width) && width.is_multiple_of(4) {
        Ok(width)
    } else {
        Err(format!(
            "{width} is not a width: use a multiple of 4 in 32–1024"
        ))
    }
}

/// Evaluate a model folder on its held-out sets (by the model's name) and print the metrics;
/// with `--dump`, also write every translation.
pub(super) fn eval(args: EvalArgs) -> Result<()> {
    let EvalArgs {
        model,
        data,
        dump,
        beam,
        alpha,
        ablate,
        update_metrics,
        loss,
        train_sample,
    } = args;
    if update_metrics && (beam.is_some() || ablate.is_some()) {
        return Err(Error::Usage(
            "--update-metrics keeps metrics.json greedy with every head on: drop --beam and --ablate"
                .into(),
        ));
    }
    if loss {
        if beam.is_some() || ablate.is_some() || update_metrics || dump.is_some() {
            return Err(Error::Usage(
                "--loss does not decode: drop --beam, --ablate, --update-metrics and --dump".into(),
            ));
        }
        return print_loss(&model, &data, train_sample);
    }
    let ablation = Ablation::parse(ablate.as_deref().unwrap_or_default())?;
    let folder = ModelFolder::read(&model)?;
    let name = ModelConfig::from_json(&String::from_utf8_lossy(&folder.config))?.name;
    let heldout = heldout_for(&name, &data)?;
    let decoding = match beam {
        Some(width) => Decoding::Beam { width, alpha },
        None => Decoding::Greedy,
    };
    let mut metrics = evaluate_with(&model, &heldout, decoding, &ablation)?;
    if let Some(reversed) = translator_direction(&name) {
        metrics.human_agreement = Some(human_agreement(&data, reversed, &metrics.outputs)?);
    }
    if update_metrics {
        update_figures(&model, &metrics)?;
    }
    if let Some(path) = dump {
        let mut text = String::from("set\tsource\treference\toutput\n");
        for row in &metrics.outputs {
            text.push_str(&row.join("\t"));
            text.push('\n');
        }
        std::fs::write(&path, text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    println!("{}", serde_json::to_string_pretty(&metrics)?);
    Ok(())
}

/// `eval --loss`: the folder's cross-entropy on its held-out sets and its recipe's training
/// pairs (all, or `train_sample` of them spread evenly), as JSON.
fn print_loss(
    model: &std::path::Path,
    data: &std::path::Path,
    train_sample: Option<usize>,
) -> Result<()> {
    let folder = ModelFolder::read(model)?;
    let device = burn::tensor::Device::flex();
    let loaded = LoadedModel::load(folder.files(), &device)?;
    let name = loaded.config.name.clone();
    let mut sets = vec![];
    for set in heldout_for(&name, data)? {
        sets.push(set_loss(&loaded, &device, set.name, &set.pairs)?);
    }
    let train = match recipe_train_pairs(&name, data)? {
        Some(pairs) if train_sample != Some(0) => {
            let pairs = spread(pairs, train_sample);
            Some(set_loss(&loaded, &device, "train", &pairs)?)
        }
        _ => None,
    };
    // How much lower the training pairs' loss is than the headline held-out set's.
    let gap = sets
        .first()
        .and_then(|heldout| heldout.cross_entropy)
        .zip(train.as_ref().and_then(|train| train.cross_entropy))
        .map(|(heldout, train)| heldout - train);
    let report = serde_json::json!({
        "model": name,
        "sets": sets,
        "train": train,
        "gap": gap,
    });
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// At most `sample` of `pairs`, every k-th so that they span the whole list (all without one).
fn spread<T>(pairs: Vec<T>, sample: Option<usize>) -> Vec<T> {
    match sample {
        Some(n) if n > 0 && n < pairs.len() => {
            let every = pairs.len().div_ceil(n);
            pairs.into_iter().step_by(every).collect()
        }
        _ => pairs,
    }
}

/// en-zh: `Some(false)`, zh-en: `Some(true)` (Chinese → English); other models have no second
/// human translations.
fn translator_direction(name: &str) -> Option<bool> {
    match name {
        "en-zh" => Some(false),
        "zh-en" => Some(true),
        _ => None,
    }
}

/// Write `metrics` into `<model>/metrics.json`, keeping the training run's `trainPairs` and
/// `trainSeconds` from the file.
fn update_figures(model: &std::path::Path, metrics: &Metrics) -> Result<()> {
    let path = model.join("metrics.json");
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).map_err(io)?)?;
    let mut updated = metrics.clone();
    updated.train_pairs = saved["trainPairs"].as_u64().unwrap_or_default() as usize;
    updated.train_seconds = saved["trainSeconds"].as_f64().unwrap_or_default();
    std::fs::write(&path, serde_json::to_string_pretty(&updated)?).map_err(io)
}
