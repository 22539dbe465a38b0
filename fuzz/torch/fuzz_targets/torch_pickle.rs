//! Any bytes as `pytorch_model.bin`: tensors or a `TorchError`, never a panic, never an
//! allocation beyond what the bytes justify (run with -malloc_limit_mb), never anything run.
//! The reader is included by path, so this package compiles it alone, without burn.
#![no_main]

#[allow(dead_code)]
#[path = "../../../src/import/torch.rs"]
mod torch;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(tensors) = torch::read_state_dict(bytes) {
        for tensor in tensors {
            // What the importer relies on: the bytes are exactly the shape's elements.
            let elements: usize = tensor.shape.iter().product();
            assert_eq!(tensor.data.len(), elements * tensor.dtype.size(), "{}", tensor.name);
        }
    }
});
