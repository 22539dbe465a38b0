//! One error type for the whole crate: every failure is a value with a readable message.
//!
//! Each error is also a message the page can translate: a stable [`Error::key`] (`error.…`), the
//! values its text names ([`Error::params`]), and the English text with `{name}` placeholders
//! ([`Error::english`]), which is the only copy of the English: `Display` fills it in.

use std::fmt;

use thiserror::Error;

/// Everything that can go wrong in attnscope, from a corrupt model file to a finished decode.
///
/// The English text of each variant is in [`Error::english`], next to its key.
#[derive(Debug, Error)]
pub enum Error {
    /// A model file that must be text is not UTF-8.
    NotUtf8 {
        /// Which file.
        file: &'static str,
        /// Where the bad bytes are.
        message: String,
    },
    /// `config.json` is not valid JSON or lacks a field.
    ConfigParse(String),
    /// A config value is outside the range this program accepts.
    ConfigRange {
        /// The offending field.
        field: &'static str,
        /// Its value, as text.
        value: String,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// The weights file is not a readable safetensors file.
    WeightsFormat(String),
    /// A tensor the config requires is not in the weights file.
    MissingTensor(String),
    /// The weights file holds a tensor the model does not have.
    UnexpectedTensor(String),
    /// A tensor has the wrong shape for the config.
    TensorShape {
        /// Tensor name.
        name: String,
        /// Shape in the file.
        found: Vec<usize>,
        /// Shape the config implies.
        expected: Vec<usize>,
    },
    /// A tensor has a dtype other than F32 or F16.
    TensorDtype {
        /// Tensor name.
        name: String,
        /// The dtype found.
        dtype: String,
    },
    /// A tensor holds NaN or infinite values.
    NonFiniteWeights(String),
    /// A tokenizer file could not be read.
    Tokenizer {
        /// Which tokenizer file.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// The tokenizer and the config disagree (vocabulary size, special tokens).
    TokenizerMismatch(String),
    /// A file of the model folder could not be read.
    Io {
        /// The path.
        path: String,
        /// The OS message.
        message: String,
    },
    /// The input text has no token to translate.
    EmptyInput,
    /// A session call that needs `start` first.
    NotStarted,
    /// A decoder view was asked for before any token was decoded.
    NothingDecoded,
    /// Decoding already produced the end token or reached the length limit.
    Finished(&'static str),
    /// `back` at the start of the output.
    AtStart,
    /// A token id or text the target vocabulary does not have.
    UnknownToken(String),
    /// An index (layer, head, step) out of range.
    OutOfRange {
        /// What was indexed.
        what: &'static str,
        /// The index asked for.
        index: usize,
        /// The number available.
        len: usize,
    },
    /// Sampling parameters that make no sense.
    Sampling(String),
    /// The compute backend failed (device lost, readback error).
    Backend(String),
    /// WebGPU was asked for and cannot be used here.
    WebGpuUnavailable(String),
    /// An argument (command line or page) that cannot be used.
    Usage(String),
    /// A head named as `KIND:LAYER:HEAD` that cannot be read.
    HeadSpec(String),
    /// `timeline.json` is unreadable or lacks what was asked for.
    Timeline(String),
    /// A value could not be written as JSON.
    Json(#[from] serde_json::Error),
    /// Something this program guarantees did not hold: a bug, reported instead of a panic.
    Invariant(&'static str),
    /// A checkpoint that cannot be imported, and why.
    Import(String),
    /// Training data or settings problem.
    Training(String),
    /// A model too big for the memory it would run in, refused before anything is allocated.
    TooBig {
        /// The memory the model needs, in MB.
        needed_mb: u64,
        /// Its parameters, in millions.
        params_m: u64,
        /// The most the module can address, in MB.
        limit_mb: u64,
    },
}

impl Error {
    /// The message key (`error.…`) and the English text, with a `{name}` for every value in
    /// [`Error::params`].
    fn message(&self) -> (&'static str, &'static str) {
        match self {
            Self::NotUtf8 { .. } => ("error.notUtf8", "{file} is not UTF-8 text: {message}"),
            Self::ConfigParse(_) => (
                "error.configParse",
                "config.json is not a valid model config: {message}",
            ),
            Self::ConfigRange { .. } => (
                "error.configRange",
                "config.json: {field} = {value} is out of range ({expected})",
            ),
            Self::WeightsFormat(_) => (
                "error.weightsFormat",
                "model.safetensors is not a valid safetensors file: {message}",
            ),
            Self::MissingTensor(_) => (
                "error.missingTensor",
                "model.safetensors is missing tensor `{name}`",
            ),
            Self::UnexpectedTensor(_) => (
                "error.unexpectedTensor",
                "model.safetensors has unexpected tensor `{name}`",
            ),
            Self::TensorShape { .. } => (
                "error.tensorShape",
                "tensor `{name}` has shape {found}, expected {expected}",
            ),
            Self::TensorDtype { .. } => (
                "error.tensorDtype",
                "tensor `{name}` has dtype {dtype}, expected F32 or F16",
            ),
            Self::NonFiniteWeights(_) => (
                "error.nonFiniteWeights",
                "tensor `{name}` contains NaN or infinite values",
            ),
            Self::Tokenizer { .. } => (
                "error.tokenizer",
                "{file} is not a valid tokenizer file: {message}",
            ),
            Self::TokenizerMismatch(_) => (
                "error.tokenizerMismatch",
                "tokenizer and config disagree: {message}",
            ),
            Self::Io { .. } => ("error.io", "cannot read {path}: {message}"),
            Self::EmptyInput => ("error.emptyInput", "the input is empty: type a sentence"),
            Self::NotStarted => ("error.notStarted", "no sentence has been started yet"),
            Self::NothingDecoded => (
                "error.nothingDecoded",
                "nothing has been decoded yet: press “Step ▶” first",
            ),
            Self::Finished(_) => ("error.finished", "decoding is finished ({reason})"),
            Self::AtStart => ("error.atStart", "already at the start of the output"),
            Self::UnknownToken(_) => ("error.unknownToken", "unknown target token: {token}"),
            Self::OutOfRange { .. } => (
                "error.outOfRange",
                "{what} {index} is out of range (0..{len})",
            ),
            Self::Sampling(_) => ("error.sampling", "invalid sampling settings: {message}"),
            Self::Backend(_) => ("error.backend", "the compute backend failed: {message}"),
            Self::WebGpuUnavailable(_) => (
                "error.webGpuUnavailable",
                "WebGPU is not available here: {reason}",
            ),
            Self::Usage(_) => ("error.usage", "{message}"),
            Self::HeadSpec(_) => (
                "error.headSpec",
                "“{spec}” is not a head: write KIND:LAYER:HEAD, KIND being encoder, decoder or cross",
            ),
            Self::Timeline(_) => ("error.timeline", "timeline.json: {message}"),
            Self::Json(_) => ("error.json", "cannot write JSON: {message}"),
            Self::Invariant(_) => ("error.invariant", "internal error: {message}"),
            Self::Import(_) => ("error.import", "import: {message}"),
            Self::Training(_) => ("error.training", "training: {message}"),
            Self::TooBig { .. } => (
                "error.tooBig",
                "this model needs about {needed} MB to load ({params} million parameters as F32, plus its file while it is read), more than the {limit} MB a WebAssembly module can address; nothing was loaded",
            ),
        }
    }

    /// The stable message key of this error (`error.notUtf8`, `error.tensorShape`, …): the page
    /// looks it up in its message catalogues.
    pub fn key(&self) -> &'static str {
        self.message().0
    }

    /// The English text with a `{name}` placeholder for each of [`Error::params`].
    pub fn english(&self) -> &'static str {
        self.message().1
    }

    /// The values the message names, by placeholder name (shapes as `[2, 3]`).
    pub fn params(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::NotUtf8 { file, message } => {
                vec![("file", (*file).to_string()), ("message", message.clone())]
            }
            Self::ConfigRange {
                field,
                value,
                expected,
            } => vec![
                ("field", (*field).to_string()),
                ("value", value.clone()),
                ("expected", (*expected).to_string()),
            ],
            Self::MissingTensor(name)
            | Self::UnexpectedTensor(name)
            | Self::NonFiniteWeights(name) => vec![("name", name.clone())],
            Self::TensorShape {
                name,
                found,
                expected,
            } => vec![
                ("name", name.clone()),
                ("found", format!("{found:?}")),
                ("expected", format!("{expected:?}")),
            ],
            Self::TensorDtype { name, dtype } => {
                vec![("name", name.clone()), ("dtype", dtype.clone())]
            }
            Self::Tokenizer { file, message } => {
                vec![("file", file.clone()), ("message", message.clone())]
            }
            Self::Io { path, message } => {
                vec![("path", path.clone()), ("message", message.clone())]
            }
            Self::EmptyInput | Self::NotStarted | Self::NothingDecoded | Self::AtStart => {
                Vec::new()
            }
            Self::Finished(reason) => vec![("reason", (*reason).to_string())],
            Self::UnknownToken(token) => vec![("token", token.clone())],
            Self::HeadSpec(spec) => vec![("spec", spec.clone())],
            Self::TooBig {
                needed_mb,
                params_m,
                limit_mb,
            } => vec![
                ("needed", needed_mb.to_string()),
                ("params", params_m.to_string()),
                ("limit", limit_mb.to_string()),
            ],
            Self::OutOfRange { what, index, len } => vec![
                ("what", (*what).to_string()),
                ("index", index.to_string()),
                ("len", len.to_string()),
            ],
            Self::WebGpuUnavailable(reason) => vec![("reason", reason.clone())],
            Self::Json(error) => vec![("message", error.to_string())],
            Self::Invariant(message) => vec![("message", (*message).to_string())],
            Self::ConfigParse(message)
            | Self::WeightsFormat(message)
            | Self::TokenizerMismatch(message)
            | Self::Sampling(message)
            | Self::Backend(message)
            | Self::Usage(message)
            | Self::Timeline(message)
            | Self::Import(message)
            | Self::Training(message) => vec![("message", message.clone())],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fill(self.english(), &self.params()))
    }
}

/// `text` with each `{name}` replaced by its value from `params`, in one pass (a value that
/// itself holds braces is written as it is); an unknown `{name}` stays as written.
fn fill(text: &str, params: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let value = params.iter().find(|(n, _)| *n == name)?;
            Some((&value.1, close))
        });
        match value {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests;
