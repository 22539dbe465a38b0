//! `import` and `random`: model folders made from a Hugging Face checkpoint, or with random
//! weights of a standard size (to time it).

use std::collections::HashSet;
use std::path::PathBuf;

use burn::tensor::Device;
use clap::Args;

use crate::files::folder::ModelFolder;
use crate::files::weights::{expected_tensors, save_weights};
use crate::import::{marian, CheckpointDir, ImportOptions};
use crate::model::config::{Activation, PositionalLayout, SpecialIds};
use crate::model::Transformer;
use crate::text::{tokenizer_json, Granularity, TextTokenizer, SPECIAL_TOKENS, WORD_START};
use crate::{Error, LoadedModel, ModelConfig, Result};

/// The arguments of `attnscope import`.
#[derive(Args)]
pub(super) struct ImportArgs {
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
}

/// The arguments of `attnscope random`.
#[derive(Args)]
pub(super) struct RandomArgs {
    /// `opus-mt` (opus-mt-en-zh's shape: d_model 512, 6+6 layers, 8 heads, d_ff 2048,
    /// vocabulary 65,001, Marian's options), `tc-big` (opus-mt-tc-big's: d_model 1024, 6+6
    /// layers, 16 heads, d_ff 4096, vocabulary 57,000 a side), `base` (the paper's base model,
    /// vocabulary 32,000), or `views` (6+6 layers of 8 heads at d_model 64 and the donor's own
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
}

/// Convert a checkpoint folder, check that it loads, write it, and say what it holds.
pub(super) fn import(args: ImportArgs) -> Result<()> {
    let ImportArgs {
        kind,
        dir,
        out,
        name,
        half,
        example,
    } = args;
    if kind != "marian" {
        return Err(Error::Usage(format!(
            "unknown checkpoint kind {kind:?}: use marian"
        )));
    }
    let options = ImportOptions {
        name,
        half,
        example,
    };
    let imported = marian(&CheckpointDir(&dir), &options)?;
    // The folder must load before it is written.
    LoadedModel::load(imported.folder.files(), &Device::flex())?;
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
    Ok(())
}

/// The shape of a `random` preset.
struct Preset {
    /// Vocabulary size (None: the donor's).
    vocab: Option<usize>,
    d_model: usize,
    d_ff: usize,
    heads: usize,
    /// Marian's options (biases, swish, tied output, sines-first positions).
    marian: bool,
}

impl Preset {
    fn named(name: &str) -> Result<Self> {
        let (vocab, d_model, d_ff, heads, marian) = match name {
            "opus-mt" => (Some(65_001), 512, 2048, 8, true),
            "tc-big" => (Some(57_000), 1024, 4096, 16, true),
            "base" => (Some(32_000), 512, 2048, 8, false),
            "views" => (None, 64, 128, 8, true),
            other => {
                return Err(Error::Usage(format!(
                    "unknown preset {other:?}: use opus-mt, tc-big, base or views"
                )))
            }
        };
        Ok(Self {
            vocab,
            d_model,
            d_ff,
            heads,
            marian,
        })
    }

    /// The model's config for vocabularies of these sizes.
    fn config(
        &self,
        name: &str,
        src_vocab: usize,
        tgt_vocab: usize,
        max_len: usize,
    ) -> ModelConfig {
        let mut config = ModelConfig::en_zh(src_vocab, tgt_vocab);
        config.name = format!("random-{name}");
        config.description = format!("Random weights, {name} size: for timing only");
        config.d_model = self.d_model;
        config.n_heads = self.heads;
        config.n_encoder_layers = 6;
        config.n_decoder_layers = 6;
        config.d_ff = self.d_ff;
        config.max_len = max_len;
        config.norm_first = false;
        if self.marian {
            config.attention_bias = true;
            config.activation = Activation::Swish;
            config.tie_output = true;
            config.positional_layout = PositionalLayout::Split;
        }
        config
    }

    /// `words` cut or padded with filler entries (`prefix` and a number) to the preset's
    /// vocabulary, specials aside.
    fn fill(&self, mut words: Vec<String>, prefix: &str) -> Vec<String> {
        let Some(vocab) = self.vocab else {
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
    }
}

/// A donor tokenizer's entries, specials left out, each once (`strip`: without the word-start
/// mark, lower-cased).
fn donor_entries(bytes: &[u8], strip: bool) -> Result<Vec<String>> {
    let tokenizer = TextTokenizer::from_bytes(bytes, "donor tokenizer", SpecialIds::default())?;
    let mut seen = HashSet::new();
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
}

/// A random model of a standard shape with word-level tokenizers: the source's words and the
/// target's characters come from an existing model, padded with filler entries to the size.
pub(super) fn random(args: &RandomArgs) -> Result<()> {
    let preset = Preset::named(&args.preset)?;
    let out = args.out.as_path();
    let donor = ModelFolder::read(&args.words_from)?;
    let src_words = preset.fill(donor_entries(&donor.src_tokenizer, true)?, "w");
    let tgt_words = preset.fill(donor_entries(&donor.tgt_tokenizer, false)?, "c");
    let size = |words: &Vec<String>| words.len() + SPECIAL_TOKENS.len();
    let config = preset.config(
        &args.preset,
        size(&src_words),
        size(&tgt_words),
        args.max_len,
    );
    config.validate()?;
    let device = Device::flex();
    let mut model = Transformer::new(&config, &device);
    let weights = save_weights(&config, &mut model, !args.full_precision)?;
    let folder = ModelFolder {
        config: config.to_json()?.into_bytes(),
        weights,
        src_tokenizer: tokenizer_json(Granularity::Words, &src_words).into_bytes(),
        tgt_tokenizer: tokenizer_json(Granularity::Characters, &tgt_words).into_bytes(),
    };
    // It must load as the page would load it before it is written.
    LoadedModel::load(folder.files(), &device)?;
    folder.write(out)?;
    let f = folder.files();
    println!(
        "wrote {} ({}): {} parameters, {} MB",
        out.display(),
        config.name,
        expected_tensors(&config)
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
