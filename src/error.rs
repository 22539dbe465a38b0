//! One error type for the whole crate: every failure is a value with a readable message.

use thiserror::Error;

/// Everything that can go wrong in attnscope, from a corrupt model file to a finished decode.
#[derive(Debug, Error)]
pub enum Error {
    /// A model file that must be text is not UTF-8.
    #[error("{file} is not UTF-8 text: {message}")]
    NotUtf8 {
        /// Which file.
        file: &'static str,
        /// Where the bad bytes are.
        message: String,
    },
    /// `config.json` is not valid JSON or lacks a field.
    #[error("config.json is not a valid model config: {0}")]
    ConfigParse(String),
    /// A config value is outside the range this program accepts.
    #[error("config.json: {field} = {value} is out of range ({expected})")]
    ConfigRange {
        /// The offending field.
        field: &'static str,
        /// Its value, as text.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// The weights file is not a readable safetensors file.
    #[error("model.safetensors is not a valid safetensors file: {0}")]
    WeightsFormat(String),
    /// A tensor the config requires is not in the weights file.
    #[error("model.safetensors is missing tensor `{0}`")]
    MissingTensor(String),
    /// The weights file holds a tensor the model does not have.
    #[error("model.safetensors has unexpected tensor `{0}`")]
    UnexpectedTensor(String),
    /// A tensor has the wrong shape for the config.
    #[error("tensor `{name}` has shape {found:?}, expected {expected:?}")]
    TensorShape {
        /// Tensor name.
        name: String,
        /// Shape in the file.
        found: Vec<usize>,
        /// Shape the config implies.
        expected: Vec<usize>,
    },
    /// A tensor has a dtype other than F32 or F16.
    #[error("tensor `{name}` has dtype {dtype}, expected F32 or F16")]
    TensorDtype {
        /// Tensor name.
        name: String,
        /// The dtype found.
        dtype: String,
    },
    /// A tensor holds NaN or infinite values.
    #[error("tensor `{0}` contains NaN or infinite values")]
    NonFiniteWeights(String),
    /// A tokenizer file could not be read.
    #[error("{file} is not a valid tokenizer file: {message}")]
    Tokenizer {
        /// Which tokenizer file.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// The tokenizer and the config disagree (vocabulary size, special tokens).
    #[error("tokenizer and config disagree: {0}")]
    TokenizerMismatch(String),
    /// A file of the model folder could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The OS message.
        message: String,
    },
    /// The input text has no token to translate.
    #[error("the input is empty: type a sentence")]
    EmptyInput,
    /// A session call that needs `start` first.
    #[error("no sentence has been started yet")]
    NotStarted,
    /// A decoder view was asked for before any token was decoded.
    #[error("nothing has been decoded yet: step first")]
    NothingDecoded,
    /// Decoding already produced the end token or reached the length limit.
    #[error("decoding is finished ({0})")]
    Finished(&'static str),
    /// `back` at the start of the output.
    #[error("already at the start of the output")]
    AtStart,
    /// A token id or text the target vocabulary does not have.
    #[error("unknown target token: {0}")]
    UnknownToken(String),
    /// An index (layer, head, step) out of range.
    #[error("{what} {index} is out of range (0..{len})")]
    OutOfRange {
        /// What was indexed.
        what: &'static str,
        /// The index asked for.
        index: usize,
        /// The number available.
        len: usize,
    },
    /// Sampling parameters that make no sense.
    #[error("invalid sampling settings: {0}")]
    Sampling(String),
    /// The compute backend failed (device lost, readback error).
    #[error("the compute backend failed: {0}")]
    Backend(String),
    /// WebGPU was asked for and cannot be used here.
    #[error("WebGPU is not available here: {0}")]
    WebGpuUnavailable(String),
    /// An argument (command line or page) that cannot be used.
    #[error("{0}")]
    Usage(String),
    /// `timeline.json` is unreadable or lacks what was asked for.
    #[error("timeline.json: {0}")]
    Timeline(String),
    /// A value could not be written as JSON.
    #[error("cannot write JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Something this program guarantees did not hold: a bug, reported instead of a panic.
    #[error("internal error: {0}")]
    Invariant(&'static str),
    /// A checkpoint that cannot be imported, and why.
    #[error("import: {0}")]
    Import(String),
    /// Training data or settings problem.
    #[error("training: {0}")]
    Training(String),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
