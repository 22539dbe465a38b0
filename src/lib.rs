//! attnscope: an encoder-decoder Transformer you can watch think.
//!
//! The folders are the layers, and dependencies point one way (no cycle):
//! `model` (burn modules, config, masks, positional tables) ← `files` (validated model-folder
//! I/O) ← `session` (step-by-step decoding, sampling, beam search) ← `wasm` (the browser
//! boundary) and `cli`. `trace` holds the output types the session fills and the page draws;
//! it uses only `model` (the masks), `flat` (vectors as they cross to the page) and
//! `text::calendar` (an output date that does not exist). `text` (tokenizers, the calendar) is
//! used by `files`, `session` and `trace`. The model knows nothing of the trace or of
//! wasm. `import` (Hugging Face Marian checkpoints) reads a folder's files from disk for the CLI
//! or from memory for the page's worker.
//!
//! Native-only tools live in folders of their own, gated once here: `train` (the loop, recipes,
//! evaluation, data) and `cli`. `playground` (a toy model trained from scratch) and `study`
//! (which heads matter and what they do, over many sentences, which the playground scores its
//! model in training with) are shared: native, and in the wasm module built with the `train`
//! feature (autodiff and optim), which the page loads only for it; `study`'s pruning curve and
//! held-out decoding stay native.

pub mod error;
pub mod files;
pub mod flat;
pub mod import;
pub mod model;
#[cfg(any(not(target_arch = "wasm32"), feature = "train"))]
pub mod playground;
pub mod session;
#[cfg(any(not(target_arch = "wasm32"), feature = "train"))]
pub mod study;
pub mod text;
pub mod trace;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};
pub use files::folder::{LoadedModel, ModelFiles, FILE_NAMES};
pub use model::config::ModelConfig;
pub use session::{Focus, HeadStages, Session};
pub use trace::{AttentionKind, AttentionStack, Trace};

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(not(target_arch = "wasm32"))]
pub mod train;

/// Run a future to completion on this thread (native CPU work completes without waiting).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
