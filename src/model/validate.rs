//! The ranges a config may take: every model folder a person opens is checked against them
//! before anything is built from it.

use super::config::{ModelConfig, MAX_LAYERS, MAX_LEN, MAX_VOCAB, MAX_WIDTH};
use crate::error::{Error, Result};

/// `value` within `lo..=hi`, else a range error naming `field` and `expected`.
fn range(
    field: &'static str,
    value: usize,
    lo: usize,
    hi: usize,
    expected: &'static str,
) -> Result<()> {
    if value < lo || value > hi {
        return Err(Error::ConfigRange {
            field,
            value: value.to_string(),
            expected,
        });
    }
    Ok(())
}

/// A float that must satisfy `ok`, else a range error naming `field` and `expected`.
fn number(field: &'static str, value: f64, ok: bool, expected: &'static str) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::ConfigRange {
        field,
        value: value.to_string(),
        expected,
    })
}

impl ModelConfig {
    /// Check every field against the ranges this program accepts.
    pub fn validate(&self) -> Result<()> {
        self.validate_shape()?;
        self.validate_numbers()?;
        self.validate_ids()?;
        self.validate_switches()?;
        self.validate_generation()
    }

    /// The architecture switches: one way to say "no LayerNorm".
    fn validate_switches(&self) -> Result<()> {
        if !self.layer_norm && self.norm_first {
            return Err(Error::ConfigRange {
                field: "norm_first",
                value: "true".into(),
                expected: "false when layer_norm is false (there is no norm to place)",
            });
        }
        Ok(())
    }

    /// Widths, heads, layers, lengths and vocabulary sizes.
    fn validate_shape(&self) -> Result<()> {
        range("d_model", self.d_model, 2, MAX_WIDTH, "2..=4096")?;
        for (field, heads) in [
            ("n_heads", self.n_heads),
            ("n_decoder_heads", self.decoder_heads()),
        ] {
            range(field, heads, 1, self.d_model, "1..=d_model")?;
            if !self.d_model.is_multiple_of(heads) {
                return Err(Error::ConfigRange {
                    field,
                    value: heads.to_string(),
                    expected: "a divisor of d_model",
                });
            }
        }
        let layers = "1..=24";
        range(
            "n_encoder_layers",
            self.n_encoder_layers,
            1,
            MAX_LAYERS,
            layers,
        )?;
        range(
            "n_decoder_layers",
            self.n_decoder_layers,
            1,
            MAX_LAYERS,
            layers,
        )?;
        range("d_ff", self.d_ff, 1, 4 * MAX_WIDTH, "1..=16384")?;
        range(
            "d_ff_decoder",
            self.decoder_d_ff(),
            1,
            4 * MAX_WIDTH,
            "1..=16384",
        )?;
        range("max_len", self.max_len, 2, MAX_LEN, "2..=1024")?;
        let vocab = "4..=200000";
        range("src_vocab_size", self.src_vocab_size, 4, MAX_VOCAB, vocab)?;
        range("tgt_vocab_size", self.tgt_vocab_size, 4, MAX_VOCAB, vocab)
    }

    /// LayerNorm ε, dropout and the mask value.
    fn validate_numbers(&self) -> Result<()> {
        let eps = self.layer_norm_eps;
        number(
            "layer_norm_eps",
            eps,
            eps.is_finite() && eps > 0.0 && eps < 1.0,
            "0 < eps < 1",
        )?;
        let dropout = self.dropout;
        number(
            "dropout",
            dropout,
            dropout.is_finite() && (0.0..1.0).contains(&dropout),
            "0 <= dropout < 1",
        )?;
        let mask = self.mask_value;
        number(
            "mask_value",
            mask,
            mask.is_finite() && mask <= -1e4,
            "a finite value <= -1e4",
        )
    }

    /// The special-token ids, inside both vocabularies.
    fn validate_ids(&self) -> Result<()> {
        let smallest_vocab = self.src_vocab_size.min(self.tgt_vocab_size);
        for (field, id) in [
            ("pad_id", self.pad_id),
            ("unk_id", self.unk_id),
            ("bos_id", self.bos_id),
            ("eos_id", self.eos_id),
        ] {
            if id as usize >= smallest_vocab {
                return Err(Error::ConfigRange {
                    field,
                    value: id.to_string(),
                    expected: "an id inside both vocabularies",
                });
            }
        }
        Ok(())
    }
}
