//! What a model costs in the memory of the WebAssembly module that runs it, estimated from its
//! config and its weights file's size before either is read, so that a model that cannot fit is
//! refused before anything is allocated (and the model on screen keeps working).
//!
//! While a model loads, the module holds its weights file, every parameter as F32 (the file
//! may be F16), and a transposed copy of the target embedding when the output projection is
//! tied to it (see `put_weights`; the CPU module makes none). Counting that copy keeps the
//! figure above what the CPU module holds once its first sentence has packed the projections
//! (`model::packed`) into the room the freed file left: 2,147 MB against 2,261 at
//! opus-mt-tc-big's size (`benches/memory-big.mjs`). Decoding itself needs little beside:
//! activations of one sentence and the key/value cache.

use crate::error::{Error, Result};
use crate::files::weights::expected_tensors;
use crate::model::config::ModelConfig;

/// The most a wasm32 module's memory can grow to: 65,536 pages of 64 KiB.
pub const WASM32_BYTES: u64 = 4 << 30;

/// Room kept for the module's own code, stacks, tokenizers and one sentence's activations.
pub const OVERHEAD_BYTES: u64 = 256 << 20;

/// The model's parameters (every tensor of its weights file).
pub fn parameters(config: &ModelConfig) -> u64 {
    expected_tensors(config)
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>() as u64)
        .sum()
}

/// The bytes loading `config`'s model needs at its peak, with a weights file of `file_bytes`;
/// `copies` more F32 copies of the parameters are held beside (1 while an import writes the
/// converted file, else 0).
pub fn load_bytes(config: &ModelConfig, file_bytes: u64, copies: u64) -> u64 {
    let f32_bytes = parameters(config).saturating_mul(4);
    let tied = if config.tie_output {
        (config.tgt_vocab_size * config.d_model) as u64 * 4
    } else {
        0
    };
    file_bytes
        .saturating_add(f32_bytes.saturating_mul(1 + copies))
        .saturating_add(tied)
        .saturating_add(OVERHEAD_BYTES)
}

/// Refuse a model whose load would need more than `limit` bytes ([`Error::TooBig`], with the
/// sizes in MB).
pub fn check_fits(config: &ModelConfig, file_bytes: u64, copies: u64, limit: u64) -> Result<()> {
    let needed = load_bytes(config, file_bytes, copies);
    if needed <= limit {
        return Ok(());
    }
    Err(Error::TooBig {
        needed_mb: needed.div_ceil(1_000_000),
        params_m: parameters(config).div_ceil(1_000_000),
        limit_mb: limit / 1_000_000,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// opus-mt-tc-big's shape with attnscope's separate source and target tables.
    fn tc_big() -> ModelConfig {
        let mut config = ModelConfig::en_zh(57_000, 57_000);
        config.d_model = 1024;
        config.n_heads = 16;
        config.n_encoder_layers = 6;
        config.n_decoder_layers = 6;
        config.d_ff = 4096;
        config.attention_bias = true;
        config.tie_output = true;
        config
    }

    #[test]
    fn tc_big_fits_and_a_model_four_times_wider_does_not() {
        let config = tc_big();
        let params = parameters(&config);
        assert_eq!(params / 1_000_000, 293);
        // Its F16 file: about 585 MB; the load peaks near 2.2 GB.
        assert!(check_fits(&config, params * 2, 0, WASM32_BYTES).is_ok());
        let mut wide = config.clone();
        wide.d_model = 4096;
        wide.d_ff = 16_384;
        wide.n_heads = 32;
        let error = check_fits(&wide, parameters(&wide) * 2, 0, WASM32_BYTES).unwrap_err();
        let Error::TooBig {
            needed_mb,
            params_m,
            limit_mb,
        } = error
        else {
            panic!("{error}")
        };
        assert_eq!(limit_mb, 4294);
        assert_eq!(params_m, parameters(&wide).div_ceil(1_000_000));
        assert!(needed_mb > 4294, "{needed_mb}");
    }
}
