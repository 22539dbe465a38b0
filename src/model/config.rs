//! The model's hyper-parameters: one serde struct, saved next to the weights as `config.json`.

use serde::{Deserialize, Serialize};

use super::generation::Generation;
use super::positional::PositionalEncoding;
use crate::error::{Error, Result};

/// Largest accepted `d_model`, `d_ff`, `max_len`: bounds what a hostile config can make us allocate.
pub const MAX_WIDTH: usize = 4096;
/// Largest accepted sequence length (rows of the positional-encoding table).
pub const MAX_LEN: usize = 1024;
/// Largest accepted number of layers on either side.
pub const MAX_LAYERS: usize = 24;
/// Largest accepted vocabulary.
pub const MAX_VOCAB: usize = 200_000;

/// Every hyper-parameter of an encoder-decoder Transformer, with the paper's meaning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Short model name shown on the page, e.g. `en-zh`.
    #[serde(default)]
    pub name: String,
    /// One line describing the task.
    #[serde(default)]
    pub description: String,
    /// Width of every token vector (the paper's d_model).
    pub d_model: usize,
    /// Attention heads per attention block; d_k = d_model / n_heads.
    pub n_heads: usize,
    /// Encoder layers (the paper's N = 6).
    pub n_encoder_layers: usize,
    /// Decoder layers.
    pub n_decoder_layers: usize,
    /// Hidden width of the position-wise feed-forward network (the paper's d_ff).
    pub d_ff: usize,
    /// Longest sequence, source or target, including special tokens: rows of the PE table.
    pub max_len: usize,
    /// `true`: pre-norm, `x + sublayer(norm(x))` with a final norm per stack.
    /// `false`: post-norm, `norm(x + sublayer(x))` as in the paper. See also `layer_norm`.
    pub norm_first: bool,
    /// Source vocabulary size (rows of `src_embed.weight`).
    pub src_vocab_size: usize,
    /// Target vocabulary size (rows of `tgt_embed.weight` and `projection.weight`).
    pub tgt_vocab_size: usize,
    /// LayerNorm epsilon, inside the square root.
    #[serde(default = "default_layer_norm_eps")]
    pub layer_norm_eps: f64,
    /// Multiply embeddings by √d_model before adding the positional encoding (the paper does).
    #[serde(default = "default_true")]
    pub embed_scale: bool,
    /// Dropout used in training only (inference ignores it).
    #[serde(default = "default_dropout")]
    pub dropout: f64,
    /// Value written into masked attention scores before softmax (default −1e9).
    #[serde(default = "default_mask_value")]
    pub mask_value: f64,
    /// Id of `<pad>` in both vocabularies.
    #[serde(default)]
    pub pad_id: u32,
    /// Id of `<unk>` in both vocabularies.
    #[serde(default = "default_unk")]
    pub unk_id: u32,
    /// Id of the decoder's start token: `<s>`, or `<pad>` where the model starts from it
    /// (Marian), in which case `bos_id` equals `pad_id`.
    #[serde(default = "default_bos")]
    pub bos_id: u32,
    /// Id of `</s>`, the end token (appended to every source, ends every target).
    #[serde(default = "default_eos")]
    pub eos_id: u32,
    /// Text placed between target tokens when they are joined into a sentence ("" for characters).
    #[serde(default)]
    pub tgt_joiner: String,
    /// Text placed between source tokens when they are joined ("" for characters, " " for words).
    #[serde(default = "default_space")]
    pub src_joiner: String,
    /// An example input the page starts with.
    #[serde(default)]
    pub example: String,
    /// Biases on the four attention projections (`w_q`…`w_o.bias`), as Marian and BART have.
    #[serde(default)]
    pub attention_bias: bool,
    /// The feed-forward network's activation.
    #[serde(default)]
    pub activation: Activation,
    /// The output projection reuses the target embedding matrix (`projection.weight` is then
    /// not in the weights file); its bias stays (Marian's `final_logits_bias`).
    #[serde(default)]
    pub tie_output: bool,
    /// How the sinusoidal table lays out its sines and cosines.
    #[serde(default)]
    pub positional_layout: PositionalLayout,
    /// Where positions come from: the sinusoidal table, a learned one, or nothing.
    #[serde(default, skip_serializing_if = "PositionalEncoding::is_sinusoidal")]
    pub positional_encoding: PositionalEncoding,
    /// Divide attention scores by √d_k (the paper does; off only to watch softmax saturate).
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub scaled_attention: bool,
    /// Hide later target positions from the decoder's self-attention (off only to watch a
    /// decoder that reads the answer in training fail when it must write it).
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub causal_decoder: bool,
    /// LayerNorm in every residual connection, placed as `norm_first` says. `false`: none at
    /// all (`x + sublayer(x)`, no final norms), and `norm_first` must be `false`.
    #[serde(default = "default_true", skip_serializing_if = "is_true")]
    pub layer_norm: bool,
    /// Heads of the decoder's self- and cross-attention, where they differ from the encoder's
    /// `n_heads` (Marian keeps the two counts apart). Absent: `n_heads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_decoder_heads: Option<usize>,
    /// Hidden width of the decoder's feed-forward networks, where it differs from the
    /// encoder's `d_ff`. Absent: `d_ff`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d_ff_decoder: Option<usize>,
    /// The rules the tokenizers apply around their HF `tokenizers` pipeline.
    #[serde(default, skip_serializing_if = "TokenizerRules::is_plain")]
    pub tokenizer_rules: TokenizerRules,
    /// How the model asks to be decoded (an imported checkpoint's `generation_config.json`).
    /// Absent: the positional table's length, no forced `</s>`, no bad words.
    #[serde(default, skip_serializing_if = "Generation::is_default")]
    pub generation: Generation,
}

/// What the tokenizers do besides running their `tokenizer.json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenizerRules {
    /// Nothing: the file's pipeline alone (attnscope's own models).
    #[default]
    Plain,
    /// `MarianTokenizer`'s (imported opus-mt models): the literal text `</s>`, `<unk>`, `<pad>`
    /// is that token; a `>>code<<` that starts the text (or follows such a token) is one token;
    /// and a run of characters the SentencePiece model does not know is looked up whole in the
    /// joint vocabulary (`<unk>` if absent). `tokenizers` JSON cannot say these; the files mark
    /// vocabulary entries that this side's SentencePiece model lacks with a leading space
    /// (which the segmentation never sees, so never matches), and the rules strip it.
    Marian,
}

impl TokenizerRules {
    fn is_plain(&self) -> bool {
        *self == Self::Plain
    }
}

/// The feed-forward network's activation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// max(0, x), as in the paper.
    #[default]
    Relu,
    /// x·Φ(x) with the exact error function (not the tanh approximation).
    Gelu,
    /// x·sigmoid(x) (SiLU), as opus-mt models use.
    Swish,
}

/// Where the sines and cosines of the positional table go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PositionalLayout {
    /// The paper's: sin in even dimensions, cos in odd ones, PE(pos, 2i) and PE(pos, 2i+1).
    #[default]
    Interleaved,
    /// Marian's and fairseq's: sin in the first half, cos in the second, PE(pos, i) and
    /// PE(pos, d/2 + i), with the same frequencies.
    Split,
}

fn default_layer_norm_eps() -> f64 {
    1e-5
}
fn default_true() -> bool {
    true
}
fn is_true(value: &bool) -> bool {
    *value
}
fn default_dropout() -> f64 {
    0.1
}
fn default_mask_value() -> f64 {
    -1e9
}
fn default_unk() -> u32 {
    SpecialIds::default().unk
}
fn default_bos() -> u32 {
    SpecialIds::default().bos
}
fn default_eos() -> u32 {
    SpecialIds::default().eos
}

/// The ids of the special tokens `<pad>`, `<unk>`, `<s>`, `</s>`. The config owns them; the
/// tokenizers are checked against them when a model loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialIds {
    /// `<pad>`.
    pub pad: u32,
    /// `<unk>`.
    pub unk: u32,
    /// `<s>`.
    pub bos: u32,
    /// `</s>`.
    pub eos: u32,
}

impl Default for SpecialIds {
    /// The ids new tokenizers give the special tokens: 0, 1, 2, 3.
    fn default() -> Self {
        Self {
            pad: 0,
            unk: 1,
            bos: 2,
            eos: 3,
        }
    }
}

fn default_space() -> String {
    " ".into()
}

/// Source ids as the model reads them ([`ModelConfig::fit_source`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FittedSource {
    /// The kept ids, then `</s>`.
    pub ids: Vec<u32>,
    /// How many of the input's ids were kept.
    pub kept: usize,
    /// How many ids the input had.
    pub total: usize,
}

impl FittedSource {
    /// Whether the input was cut.
    pub fn is_cut(&self) -> bool {
        self.kept < self.total
    }
}

impl ModelConfig {
    /// The special-token ids.
    pub fn special_ids(&self) -> SpecialIds {
        SpecialIds {
            pad: self.pad_id,
            unk: self.unk_id,
            bos: self.bos_id,
            eos: self.eos_id,
        }
    }

    /// The one rule for fitting source ids into `max_len`: the first `max_len - 1` of `ids`,
    /// then `</s>`. The session cuts what the page shows with it (and notes the cut), evaluation
    /// measures that same input, and training drops a pair it would cut.
    pub fn fit_source(&self, ids: &[u32]) -> FittedSource {
        let kept = ids.len().min(self.max_len.saturating_sub(1));
        let mut fitted = ids[..kept].to_vec();
        fitted.push(self.eos_id);
        FittedSource {
            ids: fitted,
            kept,
            total: ids.len(),
        }
    }

    /// Heads of each encoder self-attention.
    pub fn encoder_heads(&self) -> usize {
        self.n_heads
    }

    /// Heads of each decoder self- and cross-attention.
    pub fn decoder_heads(&self) -> usize {
        self.n_decoder_heads.unwrap_or(self.n_heads)
    }

    /// Hidden width of the encoder's feed-forward networks.
    pub fn encoder_d_ff(&self) -> usize {
        self.d_ff
    }

    /// Hidden width of the decoder's feed-forward networks.
    pub fn decoder_d_ff(&self) -> usize {
        self.d_ff_decoder.unwrap_or(self.d_ff)
    }

    /// d_k of the encoder's heads: the width of one head's queries and keys.
    pub fn d_k(&self) -> usize {
        self.d_model / self.n_heads.max(1)
    }

    /// Parse and validate `config.json`.
    pub fn from_json(text: &str) -> Result<Self> {
        let config: Self =
            serde_json::from_str(text).map_err(|e| Error::ConfigParse(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Serialize as pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_round_trip() {
        for config in [
            ModelConfig::en_zh(3000, 1500),
            ModelConfig::date_iso(80, 16),
        ] {
            config.validate().unwrap();
            let back = ModelConfig::from_json(&config.to_json().unwrap()).unwrap();
            assert_eq!(back, config);
        }
    }

    #[test]
    fn out_of_range_values_are_typed_errors() {
        type Change = fn(&mut ModelConfig);
        let changes: [(&str, Change); 3] = [
            ("n_heads", |c| c.n_heads = 3),
            ("d_model", |c| c.d_model = 0),
            ("max_len", |c| c.max_len = 1 << 40),
        ];
        for (field, change) in changes {
            let mut config = ModelConfig::date_iso(80, 16);
            change(&mut config);
            match config.validate() {
                Err(Error::ConfigRange { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: expected ConfigRange, got {other:?}"),
            }
        }
        assert!(matches!(
            ModelConfig::from_json("{"),
            Err(Error::ConfigParse(_))
        ));
        assert!(matches!(
            ModelConfig::from_json("[]"),
            Err(Error::ConfigParse(_))
        ));
    }
}
