//! The exact recipes that build the two shipped models, and their evaluation (native only).
//!
//! `attnscope train date-iso --out models/date-iso`,
//! `attnscope train en-zh --data data --out models/en-zh` and
//! `attnscope train zh-en --data data --out models/zh-en` call these.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use burn::tensor::Device;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::files::folder::{write, LoadedModel, ModelFiles, ModelFolder, FILE_NAMES};
use crate::files::timeline::{snapshot_file, Snapshot, Timeline, TIMELINE_FILE};
use crate::files::weights::{replace_weights, save_weights};
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::text::{build_tokenizer, Granularity, TextTokenizer};
use crate::train::data::{dates, en_zh, metrics, read_tsv, split_holdout, Pair};
use crate::train::{
    greedy_decode, ids_to_text, read_checkpoint, tokenize_pairs, train, SnapshotPoint, TrainOptions,
};

/// Seed of the held-out date set (the training set never contains one of its sources).
pub const DATE_HELDOUT_SEED: u64 = 1001;
/// Size of the held-out date set.
pub const DATE_HELDOUT_SIZE: usize = 1000;
/// Seed of the HSK 95/5 split.
pub const EN_ZH_SPLIT_SEED: u64 = 7;
/// Seed of the Tatoeba held-out draw.
pub const TATOEBA_SPLIT_SEED: u64 = 17;
/// Held-out Tatoeba pairs.
pub const TATOEBA_HELDOUT: usize = 1000;
/// Tatoeba pairs with more English words than this are left out (of training and held-out).
pub const MAX_ENGLISH_WORDS: usize = 12;
/// English BPE vocabulary size (specials included).
pub const ENGLISH_SUBWORDS: usize = 4000;
/// The running example: the sentence the page opens with.
pub const EXAMPLE_SENTENCE: &str = "I love eating apples.";
/// The running example in Chinese (zh-en's example).
pub const EXAMPLE_SENTENCE_ZH: &str = "我爱吃苹果。";

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
    /// Checkpoint after every epoch into `<out>/checkpoint/` and resume from it.
    pub checkpoints: bool,
    /// Stop after this many epochs (to resume later with `checkpoints`).
    pub stop_after_epochs: Option<usize>,
    /// en-zh, zh-en: train with (`true`) or without the generated grammar sentences instead of
    /// the recipe's choice (en-zh without, zh-en with; README, "Data"), to measure what they add.
    pub grammar: Option<bool>,
}

/// One held-out set's figures.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetMetrics {
    /// Which set (`tatoeba`, `hsk`, `generated`, `hand-written`).
    pub name: String,
    /// Pairs in it.
    pub pairs: usize,
    /// Exact-match rate.
    pub exact_match: f64,
    /// Corpus chrF (sacrebleu's definition).
    pub chrf: f64,
}

/// What a training run measured, saved as `metrics.json` next to the model.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Model name.
    pub model: String,
    /// Training pairs used.
    pub train_pairs: usize,
    /// Held-out pairs evaluated (the first set).
    pub heldout_pairs: usize,
    /// Exact-match rate on the first held-out set.
    pub exact_match: f64,
    /// Corpus chrF on the first held-out set.
    pub chrf: f64,
    /// Every held-out set, the first one first.
    pub sets: Vec<SetMetrics>,
    /// Wall-clock training seconds.
    pub train_seconds: f64,
    /// Number of parameters.
    pub parameters: usize,
    /// Ten held-out examples of the first set drawn at random (seeded): (input, expected,
    /// produced).
    pub examples: Vec<(String, String, String)>,
    /// The config's example sentence and its translation.
    pub example_sentence: (String, String),
    /// Every held-out translation: (set, source, reference, output); not saved in
    /// `metrics.json` (`attnscope eval --dump` writes them).
    #[serde(skip)]
    pub outputs: Vec<[String; 4]>,
}

/// A held-out set by name.
pub struct Heldout {
    /// `tatoeba`, `hsk`, `generated`…
    pub name: &'static str,
    /// Its pairs.
    pub pairs: Vec<Pair>,
}

/// The hand-written date phrasings (`data/date-iso/handwritten.tsv`, written before the model
/// was trained), held out like the generated ones.
pub fn date_handwritten(data_dir: &Path) -> Result<Vec<Pair>> {
    read_tsv(
        &data_dir.join("date-iso/handwritten.tsv"),
        "source",
        "target",
    )
}

/// Sources never to generate: the hand-written ones (lower-cased, as the tokenizer sees them).
fn handwritten_sources(data_dir: &Path) -> Result<HashSet<String>> {
    Ok(date_handwritten(data_dir)?
        .into_iter()
        .map(|p| p.source.to_lowercase())
        .collect())
}

/// The held-out generated date pairs (none is a hand-written phrasing).
pub fn date_heldout(data_dir: &Path) -> Result<Vec<Pair>> {
    let exclude = handwritten_sources(data_dir)?;
    Ok(dates::date_pairs(
        DATE_HELDOUT_SIZE,
        DATE_HELDOUT_SEED,
        &exclude,
    ))
}

/// The date-iso training pairs (never a held-out or hand-written source).
pub fn date_train(count: usize, data_dir: &Path) -> Result<Vec<Pair>> {
    let mut exclude = handwritten_sources(data_dir)?;
    exclude.extend(
        date_heldout(data_dir)?
            .into_iter()
            .map(|p| p.source.to_lowercase()),
    );
    Ok(dates::date_pairs(count, 1, &exclude))
}

/// date-iso's held-out sets: generated, then hand-written.
pub fn date_sets(data_dir: &Path) -> Result<Vec<Heldout>> {
    Ok(vec![
        Heldout {
            name: "generated",
            pairs: date_heldout(data_dir)?,
        },
        Heldout {
            name: "hand-written",
            pairs: date_handwritten(data_dir)?,
        },
    ])
}

/// The English–Chinese data (English source, Chinese target; zh-en swaps each pair).
pub struct TranslationData {
    /// Training pairs: Tatoeba and HSK (and the generated grammar if asked), none held out.
    pub train: Vec<Pair>,
    /// 1,000 held-out Tatoeba pairs.
    pub tatoeba: Vec<Pair>,
    /// The 218 held-out HSK pairs.
    pub hsk: Vec<Pair>,
}

impl TranslationData {
    /// The same data in the other direction (Chinese source, English target).
    pub fn reversed(self) -> Self {
        let swap = |pairs: Vec<Pair>| -> Vec<Pair> {
            pairs
                .into_iter()
                .map(|p| Pair::new(p.target, p.source))
                .collect()
        };
        Self {
            train: swap(self.train),
            tatoeba: swap(self.tatoeba),
            hsk: swap(self.hsk),
        }
    }

    /// The held-out sets, Tatoeba first.
    pub fn heldout(self) -> Vec<Heldout> {
        vec![
            Heldout {
                name: "tatoeba",
                pairs: self.tatoeba,
            },
            Heldout {
                name: "hsk",
                pairs: self.hsk,
            },
        ]
    }
}

/// Text as the held-out rule compares it: lower case, letters and digits only, one space
/// between words (so "I'm home." and "im home" are the same sentence).
pub fn normalized(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// English → Chinese data from `data_dir/tatoeba/tatoeba.tsv` and `data_dir/en-zh/hsk.tsv`
/// (en-zh's training pairs; zh-en adds the grammar's, [`translation_data_with`]).
///
/// Held out: 1,000 Tatoeba pairs (seed 17) and 5 % of HSK (218 pairs, seed 7). A training pair
/// is dropped when its English or its Chinese, normalized, is one of a held-out pair's or the
/// running example's, so no held-out sentence is seen in training in either direction.
pub fn translation_data(data_dir: &Path) -> Result<TranslationData> {
    translation_data_with(data_dir, 0)
}

/// Sentences the grammar adds to the training pairs (`src/data/en_zh.rs`): zh-en trains with
/// them, en-zh without (README, "Data").
pub const GENERATED_SENTENCES: usize = 1500;

/// [`translation_data`] with `generated` grammar sentences in the training pairs (0: none).
pub fn translation_data_with(data_dir: &Path, generated: usize) -> Result<TranslationData> {
    let short = |p: &Pair| p.source.split_whitespace().count() <= MAX_ENGLISH_WORDS;
    let mut tatoeba: Vec<Pair> = read_tsv(&data_dir.join("tatoeba/tatoeba.tsv"), "en", "zh")?
        .into_iter()
        .filter(short)
        .collect();
    crate::train::data::shuffle(
        &mut tatoeba,
        &mut crate::session::sampling::Rng::new(TATOEBA_SPLIT_SEED),
    );
    let tatoeba_train = tatoeba.split_off(TATOEBA_HELDOUT.min(tatoeba.len()));
    let hsk = read_tsv(&data_dir.join("en-zh/hsk.tsv"), "en", "zh")?;
    let (hsk_train, hsk_heldout) = split_holdout(hsk, 0.05, EN_ZH_SPLIT_SEED);
    let held = tatoeba.iter().chain(&hsk_heldout);
    let mut unseen_en: HashSet<String> = held.clone().map(|p| normalized(&p.source)).collect();
    let mut unseen_zh: HashSet<String> = held.map(|p| normalized(&p.target)).collect();
    unseen_en.insert(normalized(EXAMPLE_SENTENCE));
    unseen_zh.insert(normalized(EXAMPLE_SENTENCE_ZH));
    let train = tatoeba_train
        .into_iter()
        .chain(hsk_train)
        .chain(en_zh::generated_sentences(generated, 11))
        .filter(|p| {
            !unseen_en.contains(&normalized(&p.source))
                && !unseen_zh.contains(&normalized(&p.target))
        })
        .collect();
    Ok(TranslationData {
        train,
        tatoeba,
        hsk: hsk_heldout,
    })
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
        checkpoints: None,
        stop_after_epochs: recipe.stop_after_epochs,
    }
}

/// Source and target vocabularies from the training pairs, each cut at its granularity and
/// keeping pieces seen at least `min_count` times (BPE: merges seen that often).
fn tokenizers(
    pairs: &[Pair],
    (source, source_min_count): (Granularity, usize),
    (target, target_min_count): (Granularity, usize),
) -> Result<(TextTokenizer, TextTokenizer)> {
    let src = build_tokenizer(
        source,
        pairs.iter().map(|p| p.source.as_str()),
        source_min_count,
    )?;
    let tgt = build_tokenizer(
        target,
        pairs.iter().map(|p| p.target.as_str()),
        target_min_count,
    )?;
    Ok((src, tgt))
}

/// Build `models/date-iso` (hand-written held-out phrasings from `data_dir`).
pub fn build_date_iso(data_dir: &Path, out: &Path, recipe: &RecipeOptions) -> Result<Metrics> {
    let train_pairs = date_train(DATE_TRAIN_SIZE, data_dir)?;
    let tokens = (
        (Granularity::CharactersWithSpaces, 1),
        (Granularity::Characters, 1),
    );
    let options = options(recipe, 8, 64, 2e-3, 400);
    let run = Run::prepare(out, &train_pairs, tokens, ModelConfig::date_iso, options)?;
    let sets = date_sets(data_dir)?;
    let timeline = &sets[0].pairs[..TIMELINE_HELDOUT_PAIRS];
    build(&run, &train_pairs, &sets, Some(timeline))
}

/// Generated date-iso training pairs.
pub const DATE_TRAIN_SIZE: usize = 50_000;

/// Build `models/en-zh` (English subwords → Chinese characters) from `data_dir`.
pub fn build_en_zh(data_dir: &Path, out: &Path, recipe: &RecipeOptions) -> Result<Metrics> {
    let data = recipe_data(data_dir, recipe.grammar.unwrap_or(false))?;
    let tokens = (ENGLISH_TOKENS, CHINESE_TOKENS);
    build_translation(data, out, recipe, ModelConfig::en_zh, tokens)
}

/// Build `models/zh-en` (Chinese characters → English subwords) from `data_dir`.
pub fn build_zh_en(data_dir: &Path, out: &Path, recipe: &RecipeOptions) -> Result<Metrics> {
    let data = recipe_data(data_dir, recipe.grammar.unwrap_or(true))?.reversed();
    let tokens = (CHINESE_TOKENS, ENGLISH_TOKENS);
    build_translation(data, out, recipe, ModelConfig::zh_en, tokens)
}

/// The translation data a recipe trains on: Tatoeba and HSK, and the grammar sentences if
/// `grammar`.
fn recipe_data(data_dir: &Path, grammar: bool) -> Result<TranslationData> {
    let generated = if grammar { GENERATED_SENTENCES } else { 0 };
    translation_data_with(data_dir, generated)
}

/// English: BPE subwords, merges seen at least twice.
const ENGLISH_TOKENS: (Granularity, usize) = (
    Granularity::Subwords {
        vocab_size: ENGLISH_SUBWORDS,
    },
    2,
);
/// Chinese: characters seen at least twice, punctuation full-width.
const CHINESE_TOKENS: (Granularity, usize) = (Granularity::Chinese, 2);

/// The shared recipe of the two translation models (see `TRANSLATION_*`).
fn build_translation(
    data: TranslationData,
    out: &Path,
    recipe: &RecipeOptions,
    preset: fn(usize, usize) -> ModelConfig,
    tokens: ((Granularity, usize), (Granularity, usize)),
) -> Result<Metrics> {
    let mut options = options(
        recipe,
        TRANSLATION_EPOCHS,
        TRANSLATION_BATCH,
        TRANSLATION_LEARNING_RATE,
        TRANSLATION_WARMUP,
    );
    if recipe.checkpoints {
        options.checkpoints = Some(out.join("checkpoint"));
    }
    let train_pairs = data.train.clone();
    let run = Run::prepare(out, &train_pairs, tokens, preset, options)?;
    // No timeline: these models' snapshots would not fit the folder budget.
    build(&run, &train_pairs, &data.heldout(), None)
}

/// Passes over the translation data.
pub const TRANSLATION_EPOCHS: usize = 13;
/// Sentence pairs per batch.
pub const TRANSLATION_BATCH: usize = 64;
/// Peak learning rate.
pub const TRANSLATION_LEARNING_RATE: f64 = 1e-3;
/// Warm-up steps.
pub const TRANSLATION_WARMUP: usize = 1000;

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
    /// Tokenizers from the training pairs (each side's granularity and minimum count), then the
    /// preset config for their vocabulary sizes.
    fn prepare(
        out: &'a Path,
        train_pairs: &[Pair],
        (source, target): ((Granularity, usize), (Granularity, usize)),
        preset: fn(usize, usize) -> ModelConfig,
        options: TrainOptions,
    ) -> Result<Self> {
        let (src, tgt) = tokenizers(train_pairs, source, target)?;
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
    heldout: &[Heldout],
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
        heldout.iter().map(|h| h.pairs.len()).sum::<usize>()
    );
    std::fs::create_dir_all(out).map_err(|e| Error::Io {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    let log_path = out.join("train_log.tsv");
    let io_error = |e: std::io::Error| Error::Io {
        path: log_path.display().to_string(),
        message: e.to_string(),
    };
    // A resumed run keeps the log lines before its checkpoint and appends the rest.
    let resumed = match &options.checkpoints {
        Some(dir) => read_checkpoint(dir)?,
        None => None,
    };
    let before = resumed.as_ref().map_or(0.0, |state| state.seconds);
    if let Some(state) = &resumed {
        let text = std::fs::read_to_string(&log_path).map_err(io_error)?;
        let kept: String = text
            .lines()
            .take(state.step + 1)
            .flat_map(|line| [line, "\n"])
            .collect();
        std::fs::write(&log_path, kept).map_err(io_error)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(resumed.is_some())
        .write(true)
        .truncate(resumed.is_none())
        .open(&log_path)
        .map_err(io_error)?;
    let mut log = std::io::BufWriter::new(file);
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
    let train_seconds = before + (started.elapsed() - snapshot_time).as_secs_f64();
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

/// How held-out sources are decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decoding {
    /// Greedy, batched (the figures in `metrics.json`).
    Greedy,
    /// The page's beam search: `width` beams, length penalty `alpha`; the best final.
    Beam {
        /// Beam width.
        width: usize,
        /// α of the length penalty `((5 + len) / 6)^α`.
        alpha: f64,
    },
}

/// Beam-search translations of `sources`, one at a time through the page's `Session::beam`.
pub fn translate_all_beam(
    session: &mut crate::Session,
    tokenizer: &crate::text::TextTokenizer,
    sources: &[&str],
    width: usize,
    alpha: f64,
) -> Result<Vec<String>> {
    let (eos, joiner) = (session.config().eos_id, session.config().tgt_joiner.clone());
    let mut outputs = Vec::with_capacity(sources.len());
    for source in sources {
        crate::block_on(session.start(source))?;
        let search = crate::block_on(session.beam(width, alpha))?;
        let best = search
            .finals
            .first()
            .ok_or(Error::Invariant("a beam search ended without a final"))?;
        let ids: Vec<u32> = best.ids.iter().copied().filter(|&id| id != eos).collect();
        outputs.push(ids_to_text(&ids, tokenizer, &joiner));
    }
    Ok(outputs)
}

/// Evaluate a saved model folder on its held-out sets (the first one is the headline).
pub fn evaluate(dir: &Path, heldout: &[Heldout]) -> Result<Metrics> {
    evaluate_with(dir, heldout, Decoding::Greedy)
}

/// [`evaluate`], decoding as `decoding` says.
pub fn evaluate_with(dir: &Path, heldout: &[Heldout], decoding: Decoding) -> Result<Metrics> {
    let folder = ModelFolder::read(dir)?;
    let loaded = LoadedModel::load(folder.files(), &Device::flex())?;
    // Beam search runs through a session over the same loaded model (its tensors are shared).
    let mut beam = match decoding {
        Decoding::Beam { width, alpha } => Some((
            crate::Session::new(loaded.clone(), Device::flex()),
            width,
            alpha,
        )),
        Decoding::Greedy => None,
    };
    let mut sets = vec![];
    let mut examples = vec![];
    let mut outputs = vec![];
    for (index, set) in heldout.iter().enumerate() {
        let sources: Vec<&str> = set.pairs.iter().map(|p| p.source.as_str()).collect();
        let hypotheses = match beam.as_mut() {
            Some((session, width, alpha)) => {
                translate_all_beam(session, &loaded.tgt_tokenizer, &sources, *width, *alpha)?
            }
            None => translate_all(&loaded, &sources)?,
        };
        let references: Vec<String> = set.pairs.iter().map(|p| p.target.clone()).collect();
        sets.push(SetMetrics {
            name: set.name.to_string(),
            pairs: set.pairs.len(),
            exact_match: metrics::exact_match(&hypotheses, &references),
            chrf: metrics::chrf(&hypotheses, &references),
        });
        outputs.extend(set.pairs.iter().zip(&hypotheses).map(|(p, h)| {
            [
                set.name.to_string(),
                p.source.clone(),
                p.target.clone(),
                h.clone(),
            ]
        }));
        if index == 0 {
            // Ten drawn at random (seeded), not picked.
            let mut order: Vec<usize> = (0..set.pairs.len()).collect();
            crate::train::data::shuffle(
                &mut order,
                &mut crate::session::sampling::Rng::new(EXAMPLES_SEED),
            );
            examples = order
                .into_iter()
                .take(10)
                .map(|i| {
                    let p = &set.pairs[i];
                    (p.source.clone(), p.target.clone(), hypotheses[i].clone())
                })
                .collect();
        }
    }
    let first = sets
        .first()
        .cloned()
        .ok_or_else(|| Error::Training("no held-out set".into()))?;
    let example = loaded.config.example.clone();
    let translated = translate_all(&loaded, &[example.as_str()])?.remove(0);
    let parameters = crate::files::weights::expected_tensors(&loaded.config)
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>())
        .sum();
    Ok(Metrics {
        model: loaded.config.name.clone(),
        train_pairs: 0,
        heldout_pairs: first.pairs,
        exact_match: first.exact_match,
        chrf: first.chrf,
        sets,
        train_seconds: 0.0,
        parameters,
        examples,
        example_sentence: (example, translated),
        outputs,
    })
}

/// Seed of the draw of the ten examples in `metrics.json`.
pub const EXAMPLES_SEED: u64 = 5;

/// The held-out sets of a shipped model, by its name.
pub fn heldout_for(name: &str, data_dir: &Path) -> Result<Vec<Heldout>> {
    match name {
        "date-iso" => date_sets(data_dir),
        "en-zh" => Ok(translation_data(data_dir)?.heldout()),
        "zh-en" => Ok(translation_data(data_dir)?.reversed().heldout()),
        other => Err(Error::Training(format!(
            "no held-out set is known for model {other:?}"
        ))),
    }
}
