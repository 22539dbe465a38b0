//! `attnscope heads`: every head's mean importance and roles over the model's held-out sentences
//! (or a file of them), and with `--prune` the pruning curve (docs/heads.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::tensor::Device;
use clap::Args;
use serde::Serialize;

use crate::files::folder::{read_file, LoadedModel, ModelFolder};
use crate::study::prune::{self, Metric, PruneCurve};
use crate::study::report::{HeadRow, HeadsReport};
use crate::study::{self, roles};
use crate::train::data::Pair;
use crate::train::sets::heldout_for;
use crate::{block_on, Error, Result};

#[derive(Args)]
pub(super) struct HeadsArgs {
    /// Model folder.
    #[arg(long, default_value = "models/en-zh")]
    model: PathBuf,
    /// Sentences to measure on, one per line (a tab-separated line's first column is the
    /// source, its second the reference); by default the model's first held-out set.
    #[arg(long)]
    sentences: Option<PathBuf>,
    /// Folder with the held-out data (tatoeba/, en-zh/, date-iso/).
    #[arg(long, default_value = "data")]
    data: PathBuf,
    /// Measure on the first N sentences only.
    #[arg(long)]
    limit: Option<usize>,
    /// Also switch heads off in order of least importance and score the held-out translations
    /// after each (needs references).
    #[arg(long)]
    prune: bool,
    /// With --prune: score after every N-th head.
    #[arg(long, default_value_t = 1)]
    prune_stride: usize,
    /// Print JSON (the page reads it as the model folder's heads.json).
    #[arg(long)]
    json: bool,
}

/// What `attnscope heads --json` prints: heads.json, and the pruning curve when asked.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    #[serde(flatten)]
    heads: HeadsReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pruning: Option<PruneCurve>,
}

/// Measure and print.
pub(super) fn run(args: &HeadsArgs) -> Result<()> {
    let folder = ModelFolder::read(&args.model)?;
    let loaded = LoadedModel::load(folder.files(), &Device::flex())?;
    let config = &loaded.config;
    let mut pairs = match &args.sentences {
        Some(path) => read_sentences(path)?,
        None => heldout_for(&config.name, &args.data)?
            .into_iter()
            .next()
            .map(|set| set.pairs)
            .unwrap_or_default(),
    };
    pairs.truncate(args.limit.unwrap_or(usize::MAX));
    if pairs.is_empty() {
        return Err(Error::Usage("no sentence to measure heads on".into()));
    }
    let started = Instant::now();
    let sources: Vec<&str> = pairs.iter().map(|p| p.source.as_str()).collect();
    let sentences = study::sentences(&loaded, &sources)?;
    let importance = block_on(study::importance(&loaded.model, config, &sentences))?;
    eprintln!("importance: {:.1} s", started.elapsed().as_secs_f64());
    let roles = block_on(roles::score(&loaded.model, config, &sentences))?;
    eprintln!("roles: {:.1} s", started.elapsed().as_secs_f64());
    let pruning = if args.prune {
        if pairs.iter().any(|p| p.target.is_empty()) {
            return Err(Error::Usage(
                "--prune needs a reference for every sentence".into(),
            ));
        }
        let order = prune::least_important_first(&importance);
        let metric = Metric::for_model(&config.name);
        let curve = prune::curve(&loaded, &pairs, &order, metric, args.prune_stride)?;
        eprintln!("pruning: {:.1} s", started.elapsed().as_secs_f64());
        Some(curve)
    } else {
        None
    };
    let report = Report {
        heads: HeadsReport::new(config, sentences.len(), importance, roles),
        pruning,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

/// The report as a table, the most important head first.
fn print_report(report: &Report) {
    println!(
        "{}: {} sentences",
        report.heads.model, report.heads.sentences
    );
    println!(
        "{:<14} {:>10} {:>6}  roles (score / threshold)",
        "head", "importance", "hurts"
    );
    let mut rows: Vec<&HeadRow> = report.heads.heads.iter().collect();
    rows.sort_by(|a, b| b.importance.importance.total_cmp(&a.importance.importance));
    for row in rows {
        let roles: Vec<String> = row
            .scores
            .iter()
            .map(|s| {
                let mark = if row.roles.contains(&s.role) { "*" } else { "" };
                format!("{mark}{:?} {:.2}/{:.2}", s.role, s.score, s.threshold).to_lowercase()
            })
            .collect();
        println!(
            "{:<14} {:>10.3} {:>5.0}%  {}",
            row.importance.head.to_string(),
            row.importance.importance,
            row.importance.hurt_share * 100.0,
            roles.join("  ")
        );
    }
    if let Some(curve) = &report.pruning {
        println!(
            "pruning ({:?}, {} pairs): removed → score",
            curve.metric, curve.pairs
        );
        for point in &curve.points {
            let head = point.head.map(|h| h.to_string()).unwrap_or_default();
            println!("{:>4}  {:>8.3}  {head}", point.removed, point.score);
        }
    }
}

/// One sentence per line; a tab-separated line is `source<TAB>reference`.
fn read_sentences(path: &Path) -> Result<Vec<Pair>> {
    let bytes = read_file(path)?;
    let text = String::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
        file: "the sentences file",
        message: e.to_string(),
    })?;
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut parts = line.splitn(2, '\t');
            let source = parts.next().unwrap_or_default();
            Pair::new(source.trim(), parts.next().unwrap_or_default().trim())
        })
        .collect())
}
