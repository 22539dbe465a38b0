//! The shipped models' configs: `en-zh`, `zh-en` and `date-iso`, for vocabularies of the sizes
//! their tokenizers came out at.

use super::config::{Activation, ModelConfig, PositionalLayout, SpecialIds, TokenizerRules};
use super::generation::Generation;
use super::positional::PositionalEncoding;

impl ModelConfig {
    /// The `en-zh` model: English subwords in, Chinese characters out, pre-norm.
    pub fn en_zh(src_vocab_size: usize, tgt_vocab_size: usize) -> Self {
        Self {
            name: "en-zh".into(),
            description: "English → Chinese, trained on Tatoeba and HSK sentence pairs".into(),
            d_model: 192,
            n_heads: 4,
            n_encoder_layers: 3,
            n_decoder_layers: 3,
            d_ff: 768,
            max_len: 64,
            norm_first: true,
            src_vocab_size,
            tgt_vocab_size,
            layer_norm_eps: 1e-5,
            embed_scale: true,
            dropout: 0.1,
            mask_value: -1e9,
            pad_id: SpecialIds::default().pad,
            unk_id: SpecialIds::default().unk,
            bos_id: SpecialIds::default().bos,
            eos_id: SpecialIds::default().eos,
            tgt_joiner: String::new(),
            src_joiner: " ".into(),
            example: "I love eating apples.".into(),
            attention_bias: false,
            activation: Activation::Relu,
            tie_output: false,
            positional_layout: PositionalLayout::Interleaved,
            positional_encoding: PositionalEncoding::Sinusoidal,
            scaled_attention: true,
            causal_decoder: true,
            layer_norm: true,
            n_decoder_heads: None,
            d_ff_decoder: None,
            tokenizer_rules: TokenizerRules::Plain,
            generation: Generation::default(),
        }
    }

    /// The `zh-en` model: Chinese characters in, English subwords out; en-zh's architecture.
    pub fn zh_en(src_vocab_size: usize, tgt_vocab_size: usize) -> Self {
        Self {
            name: "zh-en".into(),
            description: "Chinese → English, trained on Tatoeba and HSK sentence pairs".into(),
            src_joiner: String::new(),
            example: "我爱吃苹果。".into(),
            ..Self::en_zh(src_vocab_size, tgt_vocab_size)
        }
    }

    /// The `date-iso` model: dates as people write them in, `YYYY-MM-DD` out, post-norm.
    pub fn date_iso(src_vocab_size: usize, tgt_vocab_size: usize) -> Self {
        Self {
            name: "date-iso".into(),
            description: "Human-readable dates → ISO 8601 (YYYY-MM-DD), character level".into(),
            d_model: 64,
            n_heads: 4,
            n_encoder_layers: 2,
            n_decoder_layers: 2,
            d_ff: 256,
            max_len: 48,
            norm_first: false,
            dropout: 0.05,
            src_joiner: String::new(),
            example: "Friday, the 29th of August 1958".into(),
            // The rest as en-zh: LayerNorm ε, embedding scale, mask value, special ids, joiner.
            ..Self::en_zh(src_vocab_size, tgt_vocab_size)
        }
    }
}
