//! The exact recipes that build the two shipped models, and their evaluation (native only).
//!
//! `attnscope train date-iso --out models/date-iso` and
//! `attnscope train en-zh --data data/en-zh --out models/en-zh` call these.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use serde::Serialize;

use crate::config::ModelConfig;
use crate::data::{dates, en_zh, metrics, read_tsv, split_holdout, Pair};
use crate::error::{Error, Result};
use crate::folder::{write, LoadedModel, ModelFiles, ModelFolder, FILE_NAMES};
use crate::model::Transformer;
use crate::timeline::{snapshot_file, Snapshot, Timeline, TIMELINE_FILE};
use crate::tokenizer::{build_tokenizer, Granularity, TextTokenizer};
use crate::train::{
    greedy_decode, ids_to_text, tokenize_pairs, train, SnapshotPoint, TrainOptions,
};
use crate::weights::{replace_weights, save_weights};

/// Seed of the held-out date set (the training set never contains one of its sources).
pub const DATE_HELDOUT_SEED: u64 = 1001;
/// Size of the held-out date set.
pub const DATE_HELDOUT_SIZE: usize = 1000;
/// Seed of the en-zh 95/5 split.
pub const EN_ZH_SPLIT_SEED: u64 = 7;
/// The running example: the sentence the page opens with.
pub const EXAMPLE_SENTENCE: &str = "I love eating apples.";

/// Knobs a person may turn when rebuilding a model; the defaults are the shipped recipe.
#[derive(Clone, Debug)]
pub struct RecipeOptions {
    /// Training seed.
    pub seed: u64,
    /// Override the number of epochs.
    pub epochs: Option<usize>,
    /// Stop training after this many minutes.
    pub minutes: Option<f64>,
    /// Show a progress bar.
    pub progress: bool,
}

/// What a training run measured, saved as `metrics.json` next to the model.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Model name.
    pub model: String,
    /// Training pairs used.
    pub train_pairs: usize,
    /// Held-out pairs evaluated.
    pub heldout_pairs: usize,
    /// Exact-match rate on the held-out set.
    pub exact_match: f64,
    /// Corpus chrF on the held-out set.
    pub chrf: f64,
    /// Wall-clock training seconds.
    pub train_seconds: f64,
    /// Number of parameters.
    pub parameters: usize,
    /// A few held-out examples: (input, expected, produced).
    pub examples: Vec<(String, String, String)>,
    /// The example sentence's translation (en-zh only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub example_sentence: Option<String>,
}

/// The held-out date pairs.
pub fn date_heldout() -> Vec<Pair> {
    dates::date_pairs(DATE_HELDOUT_SIZE, DATE_HELDOUT_SEED, &HashSet::new())
}

/// The date-iso training pairs (never a held-out source).
pub fn date_train(count: usize) -> Vec<Pair> {
    let exclude: HashSet<String> = date_heldout().into_iter().map(|p| p.source).collect();
    dates::date_pairs(count, 1, &exclude)
}

/// The en-zh (train, held-out) pairs: HSK 95/5 split, plus glosses and generated sentences in train.
pub fn en_zh_data(data_dir: &Path) -> Result<(Vec<Pair>, Vec<Pair>)> {
    let hsk = read_tsv(&data_dir.join("hsk.tsv"), "en", "zh")?;
    let hsk: Vec<Pair> = hsk
        .into_iter()
        .filter(|p| !en_zh::is_example_sentence(&p.source))
        .collect();
    let (mut train, heldout) = split_holdout(hsk, 0.05, EN_ZH_SPLIT_SEED);
    let glosses = read_tsv(&data_dir.join("glosses.tsv"), "en", "zh")?;
    let glosses = en_zh::gloss_pairs(&glosses, &train);
    train.extend(glosses);
    train.extend(en_zh::generated_sentences(1500, 11));
    Ok((train, heldout))
}

fn options(
    recipe: &RecipeOptions,
    epochs: usize,
    batch_size: usize,
    learning_rate: f64,
    warmup_steps: usize,
) -> TrainOptions {
    TrainOptions {
        epochs: recipe.epochs.unwrap_or(epochs),
        batch_size,
        learning_rate,
        warmup_steps,
        label_smoothing: 0.1,
        seed: recipe.seed,
        time_limit: recipe.minutes.map(|m| Duration::from_secs_f64(m * 60.0)),
        progress: recipe.progress,
    }
}

/// Source and target vocabularies from the training pairs; targets are characters, every one kept.
fn tokenizers(
    pairs: &[Pair],
    source: Granularity,
    source_min_count: usize,
) -> Result<(TextTokenizer, TextTokenizer)> {
    let src = build_tokenizer(
        source,
        pairs.iter().map(|p| p.source.as_str()),
        source_min_count,
    )?;
    let tgt = build_tokenizer(
        Granularity::Characters,
        pairs.iter().map(|p| p.target.as_str()),
        1,
    )?;
    Ok((src, tgt))
}

/// Build `models/date-iso`.
pub fn build_date_iso(out: &Path, recipe: &RecipeOptions) -> Result<Metrics> {
    let train_pairs = date_train(40_000);
    let tokens = (Granularity::CharactersWithSpaces, 1);
    let options = options(recipe, 8, 64, 2e-3, 400);
    let run = Run::prepare(out, &train_pairs, tokens, ModelConfig::date_iso, options)?;
    let heldout = date_heldout();
    let timeline = &heldout[..TIMELINE_HELDOUT_PAIRS];
    build(&run, &train_pairs, &heldout, Some(timeline))
}

/// Build `models/en-zh` from the TSV files in `data_dir`.
pub fn build_en_zh(data_dir: &Path, out: &Path, recipe: &RecipeOptions) -> Result<Metrics> {
    let (train_pairs, heldout) = en_zh_data(data_dir)?;
    let options = options(recipe, 40, 48, 1e-3, 800);
    let run = Run::prepare(
        out,
        &train_pairs,
        (Granularity::Words, 2),
        ModelConfig::en_zh,
        options,
    )?;
    // No timeline: en-zh's snapshots would not fit the folder budget (README, "Watch it learn").
    build(&run, &train_pairs, &heldout, None)
}

/// How many held-out pairs each timeline snapshot is measured on.
pub const TIMELINE_HELDOUT_PAIRS: usize = 100;

/// Writes a training run's snapshots (F16) and, at the end, `timeline.json`.
struct TimelineRecorder<'a> {
    out: &'a Path,
    config: &'a ModelConfig,
    src: &'a TextTokenizer,
    tgt: &'a TextTokenizer,
    pairs: &'a [Pair],
    snapshots: Vec<Snapshot>,
    /// The model the snapshots are measured with: loaded with the first one, then only its
    /// weights are replaced.
    measured: Option<LoadedModel>,
    /// Time spent saving and measuring snapshots (not training time).
    elapsed: Duration,
}

impl<'a> TimelineRecorder<'a> {
    fn new(
        out: &'a Path,
        config: &'a ModelConfig,
        src: &'a TextTokenizer,
        tgt: &'a TextTokenizer,
        pairs: &'a [Pair],
    ) -> Self {
        Self {
            out,
            config,
            src,
            tgt,
            pairs,
            snapshots: vec![],
            measured: None,
            elapsed: Duration::ZERO,
        }
    }

    /// Save one snapshot and measure it. The final weights are the model file itself.
    fn record(&mut self, point: SnapshotPoint, mut model: Transformer) -> Result<()> {
        let started = Instant::now();
        let weights = save_weights(self.config, &mut model, true)?;
        let file = if point.last {
            FILE_NAMES.weights.to_string()
        } else {
            let file = snapshot_file(point.step);
            write(self.out, &file, &weights)?;
            file
        };
        // Measured on the F16 weights, exactly as they are shipped.
        let device = Device::flex();
        let loaded = match self.measured.take() {
            Some(mut loaded) => {
                replace_weights(&loaded.config, &mut loaded.model, &weights, &device)?;
                loaded
            }
            None => LoadedModel::load(
                ModelFiles {
                    config: self.config.to_json()?.as_bytes(),
                    weights: &weights,
                    src_tokenizer: self.src.to_json()?.as_bytes(),
                    tgt_tokenizer: self.tgt.to_json()?.as_bytes(),
                },
                &device,
            )?,
        };
        let sources: Vec<&str> = self.pairs.iter().map(|p| p.source.as_str()).collect();
        let outputs = translate_all(&loaded, &sources)?;
        let references: Vec<String> = self.pairs.iter().map(|p| p.target.clone()).collect();
        self.snapshots.push(Snapshot {
            step: point.step,
            file,
            loss: point.loss,
            loss_step: point.loss_step,
            heldout: metrics::exact_match(&outputs, &references),
        });
        self.measured = Some(loaded);
        self.elapsed += started.elapsed();
        Ok(())
    }

    fn write(self) -> Result<()> {
        let timeline = Timeline {
            model: self.config.name.clone(),
            heldout_metric: "exact match".into(),
            heldout_pairs: self.pairs.len(),
            snapshots: self.snapshots,
        };
        let json =
            serde_json::to_string_pretty(&timeline).map_err(|e| Error::Json(e.to_string()))?;
        write(self.out, TIMELINE_FILE, json.as_bytes())
    }
}

/// What one recipe trains: the model's config, its tokenizers, how to train, where to write.
struct Run<'a> {
    out: &'a Path,
    config: ModelConfig,
    src: TextTokenizer,
    tgt: TextTokenizer,
    options: TrainOptions,
}

impl<'a> Run<'a> {
    /// Tokenizers from the training pairs (source cut at `granularity`, pieces seen at least
    /// `min_count` times), then the preset config for their vocabulary sizes.
    fn prepare(
        out: &'a Path,
        train_pairs: &[Pair],
        (granularity, min_count): (Granularity, usize),
        preset: fn(usize, usize) -> ModelConfig,
        options: TrainOptions,
    ) -> Result<Self> {
        let (src, tgt) = tokenizers(train_pairs, granularity, min_count)?;
        Ok(Self {
            out,
            config: preset(src.vocab_size(), tgt.vocab_size()),
            src,
            tgt,
            options,
        })
    }
}

/// Train `run` on `train_pairs`, write the model folder, evaluate on `heldout`; with
/// `timeline_pairs`, also keep the training snapshots measured on those pairs.
fn build(
    run: &Run<'_>,
    train_pairs: &[Pair],
    heldout: &[Pair],
    timeline_pairs: Option<&[Pair]>,
) -> Result<Metrics> {
    let Run {
        out,
        config,
        src,
        tgt,
        options,
    } = run;
    let (out, config, src, tgt) = (*out, config, src, tgt);
    let (examples, dropped) = tokenize_pairs(train_pairs, config, src, tgt)?;
    eprintln!(
        "{}: {} training pairs ({dropped} too long), vocab {} → {}, {} held out",
        config.name,
        examples.len(),
        src.vocab_size(),
        tgt.vocab_size(),
        heldout.len()
    );
    std::fs::create_dir_all(out).map_err(|e| Error::Io {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    let log_path = out.join("train_log.tsv");
    let mut log =
        std::io::BufWriter::new(std::fs::File::create(&log_path).map_err(|e| Error::Io {
            path: log_path.display().to_string(),
            message: e.to_string(),
        })?);
    let started = Instant::now();
    let mut snapshot_time = Duration::ZERO;
    let mut model = match timeline_pairs {
        Some(pairs) => {
            let mut recorder = TimelineRecorder::new(out, config, src, tgt, pairs);
            let model = train(
                config,
                &examples,
                options,
                &mut log,
                Some(&mut |point, model| recorder.record(point, model)),
            )?;
            snapshot_time = recorder.elapsed;
            recorder.write()?;
            model
        }
        None => train(config, &examples, options, &mut log, None)?,
    };
    let train_seconds = (started.elapsed() - snapshot_time).as_secs_f64();
    drop(log);
    ModelFolder {
        config: config.to_json()?.into_bytes(),
        weights: save_weights(config, &mut model, true)?,
        src_tokenizer: src.to_json()?.into_bytes(),
        tgt_tokenizer: tgt.to_json()?.into_bytes(),
    }
    .write(out)?;
    let mut metrics = evaluate(out, heldout)?;
    metrics.train_pairs = examples.len();
    metrics.train_seconds = train_seconds;
    let json = serde_json::to_string_pretty(&metrics).map_err(|e| Error::Json(e.to_string()))?;
    write(out, "metrics.json", json.as_bytes())?;
    Ok(metrics)
}

/// Translate many sentences with batched greedy decoding (the saved model, on the CPU).
pub fn translate_all(loaded: &LoadedModel, sources: &[&str]) -> Result<Vec<String>> {
    let config = &loaded.config;
    let ids = sources
        .iter()
        .map(|text| {
            let mut ids = loaded.src_tokenizer.encode(text)?.ids;
            ids.truncate(config.max_len - 1);
            ids.push(config.eos_id);
            Ok(ids)
        })
        .collect::<Result<Vec<_>>>()?;
    let outputs = greedy_decode(&loaded.model, config, &ids, 64)?;
    Ok(outputs
        .iter()
        .map(|o| ids_to_text(o, &loaded.tgt_tokenizer, &config.tgt_joiner))
        .collect())
}

/// Evaluate a saved model folder on held-out pairs.
pub fn evaluate(dir: &Path, heldout: &[Pair]) -> Result<Metrics> {
    let folder = ModelFolder::read(dir)?;
    let loaded = LoadedModel::load(folder.files(), &Device::flex())?;
    let sources: Vec<&str> = heldout.iter().map(|p| p.source.as_str()).collect();
    let hypotheses = translate_all(&loaded, &sources)?;
    let references: Vec<String> = heldout.iter().map(|p| p.target.clone()).collect();
    let example_sentence = (loaded.config.name == "en-zh")
        .then(|| translate_all(&loaded, &[EXAMPLE_SENTENCE]).map(|mut v| v.remove(0)))
        .transpose()?;
    let parameters = crate::weights::expected_tensors(&loaded.config)
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>())
        .sum();
    Ok(Metrics {
        model: loaded.config.name.clone(),
        train_pairs: 0,
        heldout_pairs: heldout.len(),
        exact_match: metrics::exact_match(&hypotheses, &references),
        chrf: metrics::chrf(&hypotheses, &references),
        train_seconds: 0.0,
        parameters,
        examples: heldout
            .iter()
            .zip(&hypotheses)
            .take(8)
            .map(|(p, h)| (p.source.clone(), p.target.clone(), h.clone()))
            .collect(),
        example_sentence,
    })
}

/// The held-out set of a shipped model, by its name.
pub fn heldout_for(name: &str, data_dir: &Path) -> Result<Vec<Pair>> {
    match name {
        "date-iso" => Ok(date_heldout()),
        "en-zh" => Ok(en_zh_data(data_dir)?.1),
        other => Err(Error::Training(format!(
            "no held-out set is known for model {other:?}"
        ))),
    }
}
