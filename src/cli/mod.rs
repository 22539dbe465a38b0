//! The `attnscope` command line: translate, trace, train and evaluate (native only).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use burn::tensor::Device;
use clap::{Args, Parser, Subcommand};

use crate::files::folder::{read_file, ModelFolder};
use crate::files::timeline::{Snapshot, Timeline, TIMELINE_FILE};
use crate::session::sampling::Sampling;
use crate::session::{mean_row_entropy, Answer, BeamSearch, Focus, HeadStages};
use crate::trace::analysis::Analysis;
use crate::trace::AttentionKind;
use crate::trace::AttentionStack;
use crate::train::recipes::{self, RecipeOptions};
use crate::{block_on, Error, Result, Session};

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

#[derive(Args)]
struct Decode {
    /// Model folder (config.json, model.safetensors, src_tokenizer.json, tgt_tokenizer.json).
    #[arg(long, default_value = "models/en-zh")]
    model: PathBuf,
    /// Sample with this temperature instead of greedy decoding.
    #[arg(long)]
    temperature: Option<f32>,
    /// With --temperature: sample among the k most probable tokens.
    #[arg(long, default_value_t = 5)]
    top_k: usize,
    /// With --temperature: the generator's seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Continue from this output prefix instead of starting empty.
    #[arg(long)]
    prefix: Option<String>,
    /// Decode with beam search of this width (1–8) instead of greedily; the output is the best
    /// hypothesis.
    #[arg(long, value_name = "WIDTH")]
    beam: Option<usize>,
    /// With --beam: α of the length penalty ((5 + len) / 6)^α.
    #[arg(long, default_value_t = 1.0)]
    length_penalty: f64,
    /// Use the training snapshot taken at this step (see `timeline`) instead of the final weights.
    #[arg(long)]
    checkpoint: Option<usize>,
    /// The text to translate.
    text: String,
}

#[derive(Subcommand)]
enum Command {
    /// Translate a sentence and print the output.
    Translate(Decode),
    /// Print every attention matrix of a translation.
    Trace {
        #[command(flatten)]
        decode: Decode,
        /// Print the answer as JSON: `{"trace": …, "stages": …}` (see README, "Trace JSON").
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
    },
    /// Print a model's training timeline: each snapshot's step, loss, held-out figure, output for
    /// the text, and the mean entropy of cross-attention per layer.
    Timeline {
        /// Model folder (with timeline.json).
        #[arg(long, default_value = "models/date-iso")]
        model: PathBuf,
        /// The text to translate with every snapshot.
        text: String,
        /// Print JSON rows instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print the model's positional-encoding table and its PE(t)·PE(t+Δ) curves as JSON.
    Positional {
        /// Model folder.
        #[arg(long, default_value = "models/en-zh")]
        model: PathBuf,
    },
    /// Train one of the shipped models from scratch.
    Train {
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
        /// Checkpoint after every epoch into OUT/checkpoint/, and resume from one found there.
        #[arg(long)]
        resume: bool,
        /// Stop after this many epochs (with --resume: continue later where it stopped).
        #[arg(long)]
        stop_after_epochs: Option<usize>,
        /// en-zh, zh-en: train with (true) or without (false) the 1,500 generated grammar
        /// sentences, instead of the recipe's choice (en-zh without, zh-en with).
        #[arg(long)]
        grammar: Option<bool>,
    },
    /// Convert a Hugging Face checkpoint folder into an attnscope model folder.
    Import {
        /// The checkpoint's kind: `marian` (MarianMT, the Helsinki-NLP/opus-mt-* models).
        kind: String,
        /// The Hugging Face folder: config.json, model.safetensors, source.spm, target.spm,
        /// vocab.json.
        dir: PathBuf,
        /// Output model folder.
        #[arg(long)]
        out: PathBuf,
        /// The model's name on the page (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// Store the weights as F16: half the size, attention within ~1e-3 of the F32 model.
        #[arg(long)]
        half: bool,
        /// The example sentence the page starts with.
        #[arg(long)]
        example: Option<String>,
    },
    /// Write a randomly initialised model of a standard size (to time it: its output is noise).
    Random {
        /// `opus-mt` (opus-mt-en-zh's shape: d_model 512, 6+6 layers, 8 heads, d_ff 2048,
        /// vocabulary 65,001, Marian's options), `base` (the paper's base model, vocabulary
        /// 32,000), or `views` (6+6 layers of 8 heads at d_model 64 and the donor's own
        /// vocabularies: as many attention maps as opus-mt, quick to run).
        preset: String,
        /// Output model folder.
        #[arg(long)]
        out: PathBuf,
        /// Tokenizer words from this model folder (its source and target vocabularies).
        #[arg(long, default_value = "models/en-zh")]
        words_from: PathBuf,
        /// Store the weights as F32 instead of F16.
        #[arg(long)]
        full_precision: bool,
        /// Rows of the positional table: the longest source, and where decoding stops (a
        /// random model never chooses </s>, so this sets the output length it is timed at).
        #[arg(long, default_value_t = 512)]
        max_len: usize,
    },
    /// Evaluate a model folder on its held-out set.
    Eval {
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
    },
}

fn read_timeline(model: &Path) -> Result<Timeline> {
    let bytes = read_file(&model.join(TIMELINE_FILE))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| Error::NotUtf8 {
        file: TIMELINE_FILE,
        message: e.to_string(),
    })?;
    Timeline::from_json(text)
}

fn read_snapshot(model: &Path, snapshot: &Snapshot) -> Result<Vec<u8>> {
    read_file(&model.join(&snapshot.file))
}

fn session(decode: &Decode) -> Result<Session> {
    let folder = ModelFolder::read(&decode.model)?;
    let mut session = Session::load(folder.files(), Device::flex())?;
    if let Some(step) = decode.checkpoint {
        let timeline = read_timeline(&decode.model)?;
        let bytes = read_snapshot(&decode.model, timeline.at(step)?)?;
        session.replace_weights(&bytes)?;
    }
    if let Some(temperature) = decode.temperature {
        session.set_sampling(Sampling::Sample {
            temperature,
            top_k: decode.top_k,
            seed: decode.seed,
        })?;
    }
    Ok(session)
}

/// Decode the text as asked; returns the beam search when there was one.
fn decode(session: &mut Session, decode: &Decode) -> Result<Option<BeamSearch>> {
    block_on(async {
        session.start(&decode.text).await?;
        if let Some(width) = decode.beam {
            let search = session.beam(width, decode.length_penalty).await?;
            let best = search
                .finals
                .first()
                .ok_or(Error::Invariant("a beam search without a hypothesis"))?;
            session.force_ids(&best.ids.clone()).await?;
            return Ok(Some(search));
        }
        if let Some(prefix) = &decode.prefix {
            session.set_prefix(prefix).await?;
        }
        session.run_to_end().await?;
        Ok(None)
    })
}

fn print_trace(trace: &crate::Trace) {
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

/// `cross:1:2` → the focus (Cross, 1, 2).
fn parse_focus(spec: &str) -> Result<Focus> {
    let bad = || {
        Error::Usage(format!("--stages {spec:?}: expected KIND:LAYER:HEAD, KIND one of encoderSelf, decoderSelf, cross"))
    };
    let mut parts = spec.split(':');
    let kind = parts
        .next()
        .and_then(AttentionKind::parse)
        .ok_or_else(bad)?;
    let layer = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    let head = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
    Ok(Focus { kind, layer, head })
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Translate(args) => {
            let mut session = session(&args)?;
            let _ = decode(&mut session, &args)?;
            let trace = session.trace()?;
            if let Some(cut) = &trace.truncation {
                eprintln!(
                    "note: the input was cut to {} of {} tokens",
                    cut.kept_tokens, cut.total_tokens
                );
            }
            println!("{}", trace.output);
        }
        Command::Trace {
            decode: args,
            json,
            stages,
            attribution,
            analysis,
        } => {
            let mut session = session(&args)?;
            let beam = decode(&mut session, &args)?;
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
                let text =
                    serde_json::to_string(&answer).map_err(|e| Error::Json(e.to_string()))?;
                println!("{text}");
            } else {
                print_trace(trace);
                if let Some(stages) = stages {
                    print_stages(&stages);
                }
            }
        }
        Command::Timeline { model, text, json } => print_timeline(&model, &text, json)?,
        Command::Positional { model } => {
            let folder = ModelFolder::read(&model)?;
            let session = Session::load(folder.files(), Device::flex())?;
            let view = session.positional().view();
            let text = serde_json::to_string(&view).map_err(|e| Error::Json(e.to_string()))?;
            println!("{text}");
        }
        Command::Train {
            recipe,
            out,
            data,
            seed,
            epochs,
            minutes,
            resume,
            stop_after_epochs,
            grammar,
        } => {
            let options = RecipeOptions {
                seed,
                epochs,
                minutes,
                progress: true,
                checkpoints: resume,
                stop_after_epochs,
                grammar,
            };
            let metrics = match recipe.as_str() {
                "date-iso" => recipes::build_date_iso(&data, &out, &options)?,
                "en-zh" => recipes::build_en_zh(&data, &out, &options)?,
                "zh-en" => recipes::build_zh_en(&data, &out, &options)?,
                other => {
                    return Err(Error::Usage(format!(
                        "unknown recipe {other:?}: use date-iso, en-zh or zh-en"
                    )))
                }
            };
            println!(
                "{}",
                serde_json::to_string_pretty(&metrics).map_err(|e| Error::Json(e.to_string()))?
            );
        }
        Command::Import {
            kind,
            dir,
            out,
            name,
            half,
            example,
        } => {
            if kind != "marian" {
                return Err(Error::Usage(format!(
                    "unknown checkpoint kind {kind:?}: use marian"
                )));
            }
            let options = crate::import::ImportOptions {
                name,
                half,
                example,
            };
            let imported = crate::import::marian(&dir, &options)?;
            // The folder must load before it is written.
            crate::LoadedModel::load(imported.folder.files(), &Device::flex())?;
            imported.folder.write(&out)?;
            for note in &imported.notes {
                println!("note: {note}");
            }
            let c = &imported.config;
            println!(
                "wrote {} ({}): d_model {}, {}+{} layers, {}/{} heads, vocabulary {}, {} MB of weights",
                out.display(),
                c.name,
                c.d_model,
                c.n_encoder_layers,
                c.n_decoder_layers,
                c.encoder_heads(),
                c.decoder_heads(),
                c.src_vocab_size,
                imported.folder.weights.len() / 1_000_000
            );
        }
        Command::Random {
            preset,
            out,
            words_from,
            full_precision,
            max_len,
        } => random_model(&preset, &out, &words_from, !full_precision, max_len)?,
        Command::Eval {
            model,
            data,
            dump,
            beam,
            alpha,
        } => {
            let folder = ModelFolder::read(&model)?;
            let name =
                crate::ModelConfig::from_json(&String::from_utf8_lossy(&folder.config))?.name;
            let heldout = recipes::heldout_for(&name, &data)?;
            let decoding = match beam {
                Some(width) => recipes::Decoding::Beam { width, alpha },
                None => recipes::Decoding::Greedy,
            };
            let metrics = recipes::evaluate_with(&model, &heldout, decoding)?;
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
            println!(
                "{}",
                serde_json::to_string_pretty(&metrics).map_err(|e| Error::Json(e.to_string()))?
            );
        }
    }
    Ok(())
}

/// A random model of a standard shape with word-level tokenizers: the source's words and the
/// target's characters come from an existing model, padded with filler entries to the size.
fn random_model(
    preset: &str,
    out: &Path,
    words_from: &Path,
    half: bool,
    max_len: usize,
) -> Result<()> {
    use crate::model::config::{Activation, PositionalLayout};
    use crate::text::{tokenizer_json, Granularity, TextTokenizer, SPECIAL_TOKENS, WORD_START};
    // Vocabulary (None: the donor's), d_model, d_ff, Marian's options.
    let (vocab, d_model, d_ff, marian) = match preset {
        "opus-mt" => (Some(65_001), 512, 2048, true),
        "base" => (Some(32_000), 512, 2048, false),
        "views" => (None, 64, 128, true),
        other => {
            return Err(Error::Usage(format!(
                "unknown preset {other:?}: use opus-mt, base or views"
            )))
        }
    };
    let donor = ModelFolder::read(words_from)?;
    let entries = |bytes: &[u8], strip: bool| -> Result<Vec<String>> {
        let tokenizer = TextTokenizer::from_bytes(
            bytes,
            "donor tokenizer",
            crate::model::config::SpecialIds::default(),
        )?;
        let mut seen = std::collections::HashSet::new();
        Ok((0..tokenizer.vocab_size() as u32)
            .filter_map(|id| tokenizer.token(id))
            .filter(|t| !SPECIAL_TOKENS.contains(t))
            .map(|t| {
                if strip {
                    t.trim_start_matches(WORD_START).to_lowercase()
                } else {
                    t.to_string()
                }
            })
            .filter(|t| !t.is_empty() && seen.insert(t.clone()))
            .collect())
    };
    let fill = |mut words: Vec<String>, prefix: &str| {
        let Some(vocab) = vocab else {
            return words;
        };
        let wanted = vocab - SPECIAL_TOKENS.len();
        words.truncate(wanted);
        let mut n = 0;
        while words.len() < wanted {
            words.push(format!("{prefix}{n}"));
            n += 1;
        }
        words
    };
    let src_words = fill(entries(&donor.src_tokenizer, true)?, "w");
    let tgt_words = fill(entries(&donor.tgt_tokenizer, false)?, "c");
    let size = |words: &Vec<String>| words.len() + SPECIAL_TOKENS.len();
    let mut config = crate::ModelConfig::en_zh(size(&src_words), size(&tgt_words));
    config.name = format!("random-{preset}");
    config.description = format!("Random weights, {preset} size: for timing only");
    config.d_model = d_model;
    config.n_heads = 8;
    config.n_encoder_layers = 6;
    config.n_decoder_layers = 6;
    config.d_ff = d_ff;
    config.max_len = max_len;
    config.norm_first = false;
    if marian {
        config.attention_bias = true;
        config.activation = Activation::Swish;
        config.tie_output = true;
        config.positional_layout = PositionalLayout::Split;
    }
    config.validate()?;
    let device = Device::flex();
    let mut model = crate::model::Transformer::new(&config, &device);
    let weights = crate::files::weights::save_weights(&config, &mut model, half)?;
    let folder = ModelFolder {
        config: config.to_json()?.into_bytes(),
        weights,
        src_tokenizer: tokenizer_json(Granularity::Words, &src_words).into_bytes(),
        tgt_tokenizer: tokenizer_json(Granularity::Characters, &tgt_words).into_bytes(),
    };
    // It must load as the page would load it before it is written.
    crate::LoadedModel::load(folder.files(), &device)?;
    folder.write(out)?;
    let f = folder.files();
    println!(
        "wrote {} ({}): {} parameters, {} MB",
        out.display(),
        config.name,
        crate::files::weights::expected_tensors(&config)
            .iter()
            .map(|(_, shape)| shape.iter().product::<usize>())
            .sum::<usize>(),
        [f.config, f.weights, f.src_tokenizer, f.tgt_tokenizer]
            .iter()
            .map(|b| b.len())
            .sum::<usize>()
            / 1_000_000
    );
    Ok(())
}

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

fn print_timeline(model: &Path, text: &str, json: bool) -> Result<()> {
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
            let line = serde_json::to_string(&row).map_err(|e| Error::Json(e.to_string()))?;
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

/// Mean row entropy of each layer's attention, averaged over its heads.
pub fn layer_entropy(stack: &AttentionStack) -> Vec<f32> {
    (0..stack.layers)
        .map(|layer| {
            let heads = stack.heads.max(1) as f32;
            (0..stack.heads)
                .map(|head| mean_row_entropy(stack.matrix(layer, head), stack.keys))
                .sum::<f32>()
                / heads
        })
        .collect()
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
