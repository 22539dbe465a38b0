//! Any bytes as `config.json`: parse and validate, then (if it passes) the weight table it implies
//! must be computable without overflow or huge allocation.
#![no_main]

use attnscope::files::weights::expected_tensors;
use attnscope::ModelConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(config) = ModelConfig::from_json(text) {
            let _ = expected_tensors(&config);
        }
    }
});
