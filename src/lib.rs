//! attnscope: an encoder-decoder Transformer you can watch think.
//!
//! Layers, in one direction of dependency:
//! `model` (burn modules) → `folder` (validated loading) → `session` (tokenizers, device,
//! step-by-step decoding, the growing trace) → `wasm` (the `#[wasm_bindgen]` boundary).
//! The model knows nothing of wasm.

pub mod analysis;
pub mod config;
pub mod error;
pub mod folder;
pub mod masks;
pub mod model;
pub mod positional;
pub mod sampling;
pub mod session;
pub mod timeline;
pub mod tokenizer;
pub mod trace;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
pub mod weights;

pub use config::ModelConfig;
pub use error::{Error, Result};
pub use folder::{LoadedModel, ModelFiles, FILE_NAMES};
pub use session::{Focus, HeadStages, Session};
pub use trace::{AttentionKind, AttentionStack, Trace};

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod data;
#[cfg(not(target_arch = "wasm32"))]
pub mod import;
#[cfg(not(target_arch = "wasm32"))]
pub mod recipes;
#[cfg(not(target_arch = "wasm32"))]
pub mod spm;
#[cfg(not(target_arch = "wasm32"))]
pub mod train;

/// Run a future to completion on this thread (native CPU work completes without waiting).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
