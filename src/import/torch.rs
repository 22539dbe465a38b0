//! A PyTorch checkpoint (`pytorch_model.bin`, written by `torch.save(state_dict)`) read without
//! running any of it: the pickle inside is interpreted by a small machine that knows only what a
//! state dict holds (dicts, tuples, numbers, strings, `OrderedDict`, `_rebuild_tensor_v2` and the
//! storage types); any other opcode or global is an error that names it.
//!
//! - **Zip** (torch ≥ 1.6): `<prefix>/data.pkl`, storages in `<prefix>/data/<key>`, stored
//!   (uncompressed) entries, ZIP64 records for big archives ([`zip`]).
//! - **Legacy** (torch < 1.6): five pickles in a row (magic number, protocol, system info, the
//!   state dict, the storage keys), then each storage's element count and bytes ([`legacy`]).
//!
//! Depends on `std` only: the fuzz target (`fuzz/torch`) includes this file by `#[path]`, so that
//! fuzzing it never compiles burn.

use std::collections::HashMap;
use std::fmt;

// Explicit paths: the same files are found when this file is the crate's `import::torch` and when
// the fuzz target includes it by `#[path]` (which would otherwise look beside it).
#[path = "torch/legacy.rs"]
mod legacy;
#[path = "torch/pickle.rs"]
mod pickle;
#[path = "torch/zip.rs"]
mod zip;

use pickle::{StorageRef, TensorRef, Unpickled, Value};

/// A tensor of the checkpoint, contiguous, little-endian.
#[derive(Clone, Debug, PartialEq)]
pub struct TorchTensor {
    /// The state dict's key, e.g. `model.encoder.layers.0.fc1.weight`.
    pub name: String,
    pub dtype: TorchDtype,
    /// Row-major dimensions; empty for a scalar.
    pub shape: Vec<usize>,
    /// `shape.iter().product() * dtype.size()` bytes, row-major, little-endian.
    pub data: Vec<u8>,
}

/// The element types a state dict's storages can have (`torch.FloatStorage` and kin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TorchDtype {
    F32,
    F16,
    BF16,
    F64,
    I64,
    I32,
    I16,
    I8,
    U8,
    Bool,
}

impl TorchDtype {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            TorchDtype::F64 | TorchDtype::I64 => 8,
            TorchDtype::F32 | TorchDtype::I32 => 4,
            TorchDtype::F16 | TorchDtype::BF16 | TorchDtype::I16 => 2,
            TorchDtype::I8 | TorchDtype::U8 | TorchDtype::Bool => 1,
        }
    }

    /// The safetensors name of the type (`F32`, `BF16`, `BOOL`, …).
    pub fn name(self) -> &'static str {
        match self {
            TorchDtype::F32 => "F32",
            TorchDtype::F16 => "F16",
            TorchDtype::BF16 => "BF16",
            TorchDtype::F64 => "F64",
            TorchDtype::I64 => "I64",
            TorchDtype::I32 => "I32",
            TorchDtype::I16 => "I16",
            TorchDtype::I8 => "I8",
            TorchDtype::U8 => "U8",
            TorchDtype::Bool => "BOOL",
        }
    }

    /// The dtype of a `torch.<name>` storage class, the only classes a state dict's persistent
    /// ids name.
    fn from_storage_class(name: &str) -> Option<TorchDtype> {
        Some(match name {
            "FloatStorage" => TorchDtype::F32,
            "HalfStorage" => TorchDtype::F16,
            "BFloat16Storage" => TorchDtype::BF16,
            "DoubleStorage" => TorchDtype::F64,
            "LongStorage" => TorchDtype::I64,
            "IntStorage" => TorchDtype::I32,
            "ShortStorage" => TorchDtype::I16,
            "CharStorage" => TorchDtype::I8,
            "ByteStorage" => TorchDtype::U8,
            "BoolStorage" => TorchDtype::Bool,
            _ => return None,
        })
    }
}

/// Why a checkpoint could not be read; the message says where and what.
#[derive(Debug, Clone, PartialEq)]
pub struct TorchError(pub String);

impl TorchError {
    fn new(message: impl Into<String>) -> TorchError {
        TorchError(message.into())
    }

    /// The same error, said to happen in `place` (`data.pkl`, a zip entry, …).
    fn within(self, place: &str) -> TorchError {
        TorchError(format!("{place}: {}", self.0))
    }
}

impl fmt::Display for TorchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TorchError {}

type Result<T> = std::result::Result<T, TorchError>;

/// The tensors of a `torch.save(state_dict)` file, in the dict's order, each copied out of its
/// storage into contiguous bytes (tied weights come out once per key; views are gathered).
/// Entries of the dict that are not tensors (`_metadata`) are skipped.
pub fn read_state_dict(bytes: &[u8]) -> Result<Vec<TorchTensor>> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        let archive = zip::Archive::read(bytes)?;
        let unpickled = archive.state_dict()?;
        tensors(&unpickled, bytes.len(), |key| archive.storage(key))
    } else if bytes.first() == Some(&0x80) {
        let checkpoint = legacy::Legacy::read(bytes)?;
        tensors(&checkpoint.unpickled, bytes.len(), |key| {
            checkpoint.storage(key)
        })
    } else if bytes.get(257..262) == Some(b"ustar") {
        Err(TorchError::new(
            "a tar archive: the format of torch < 0.4, which this reader does not support",
        ))
    } else {
        let start = &bytes[..bytes.len().min(4)];
        Err(TorchError::new(format!(
            "not a PyTorch checkpoint: it starts with {start:02x?}, neither a zip archive \
             (torch ≥ 1.6, PK\\x03\\x04) nor a pickle (legacy torch, 0x80)"
        )))
    }
}

/// Tensors may repeat their storages (tied weights, expanded views), so the copies could outgrow
/// the file; more than this many times its size (plus a little for tiny files) is refused.
const OUTPUT_PER_INPUT_BYTE: usize = 4;
const OUTPUT_ALLOWANCE: usize = 1 << 20;

/// The state dict's tensors, keys in first-insertion order with the last value (as Python's
/// dict keeps them), copied out of the storages `storage` finds.
fn tensors<'a>(
    unpickled: &Unpickled,
    input_len: usize,
    storage: impl Fn(&str) -> Result<&'a [u8]>,
) -> Result<Vec<TorchTensor>> {
    let entries = unpickled.dict()?;
    // Python's dict: a repeated key keeps its first place and takes its last value.
    let mut order: Vec<&str> = Vec::new();
    let mut last: HashMap<&str, &Value> = HashMap::new();
    for (index, (key, value)) in entries.iter().enumerate() {
        let Value::Str(name) = key else {
            return Err(TorchError::new(format!(
                "the state dict's key #{index} is {}, not a string",
                key.kind()
            )));
        };
        if last.insert(name, value).is_none() {
            order.push(name);
        }
    }
    let chosen = order.into_iter().filter_map(|name| match last.get(name) {
        Some(Value::Tensor(tensor)) => Some((name, &**tensor)),
        _ => None,
    });
    let mut budget = input_len
        .saturating_mul(OUTPUT_PER_INPUT_BYTE)
        .saturating_add(OUTPUT_ALLOWANCE);
    let mut out = Vec::new();
    for (name, tensor) in chosen {
        let bytes = storage(&tensor.storage.key).map_err(|e| e.within(name))?;
        let data = gather(tensor, bytes, &mut budget).map_err(|e| e.within(name))?;
        out.push(TorchTensor {
            name: name.to_string(),
            dtype: tensor.storage.dtype,
            shape: tensor.shape.clone(),
            data,
        });
    }
    Ok(out)
}

/// The tensor's elements in row-major order, read from `storage` at its offset and strides.
/// Bounds were checked against the storage's declared element count when the tensor was
/// unpickled; here the bytes must match that count, and the copy must fit in `budget`.
fn gather(tensor: &TensorRef, storage: &[u8], budget: &mut usize) -> Result<Vec<u8>> {
    let StorageRef { dtype, numel, .. } = &*tensor.storage;
    let size = dtype.size();
    if numel.checked_mul(size) != Some(storage.len()) {
        return Err(TorchError::new(format!(
            "its storage '{}' holds {} bytes, not {numel} {} elements",
            tensor.storage.key,
            storage.len(),
            dtype.name()
        )));
    }
    let count = tensor.elements;
    let bytes = count
        .checked_mul(size)
        .filter(|&n| n <= *budget)
        .ok_or_else(|| {
            TorchError::new(format!(
                "its {count} elements would take more memory than the file justifies \
                 ({OUTPUT_PER_INPUT_BYTE}× its size)"
            ))
        })?;
    *budget -= bytes;
    let mut data = Vec::with_capacity(bytes);
    if count == 0 {
        return Ok(data);
    }
    let too_short = || TorchError::new("its view reaches past the end of its storage");
    let dims = tensor.shape.len();
    // Copy the innermost dimension in one run when its elements are adjacent.
    let (run, outer) = match (tensor.shape.last(), tensor.stride.last()) {
        (Some(&last), Some(1)) => (last, dims - 1),
        _ => (1, dims),
    };
    let mut index = vec![0usize; outer];
    loop {
        let start = index
            .iter()
            .zip(&tensor.stride)
            .fold(tensor.offset, |at, (i, s)| at + i * s); // ≤ the checked last element
        let piece = storage
            .get(start * size..(start + run) * size)
            .ok_or_else(too_short)?;
        data.extend_from_slice(piece);
        let mut dim = outer;
        loop {
            if dim == 0 {
                return Ok(data);
            }
            dim -= 1;
            index[dim] += 1;
            if index[dim] < tensor.shape[dim] {
                break;
            }
            index[dim] = 0;
        }
    }
}

/// Reads the input front to back; every read checks the length first, so a declared length
/// larger than what remains is an error before anything is allocated.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn at(bytes: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor { bytes, pos }
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        let left = self.remaining();
        let piece = self
            .pos
            .checked_add(len)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or_else(|| TorchError::new(format!("needs {len} bytes where {left} remain")))?;
        self.pos += len;
        Ok(piece)
    }

    /// [`Cursor::take`] of a length the input declares (which may not fit a `usize`).
    fn take_declared(&mut self, len: u64) -> Result<&'a [u8]> {
        let left = self.remaining();
        match usize::try_from(len) {
            Ok(len) if len <= left => self.take(len),
            _ => Err(TorchError::new(format!(
                "declares {len} bytes where {left} remain"
            ))),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        self.array().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32> {
        self.array().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64> {
        self.array().map(u64::from_le_bytes)
    }

    /// The bytes up to the next newline, which is consumed too.
    fn line(&mut self) -> Result<&'a [u8]> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| TorchError::new("finds no newline after its name"))?;
        let line = self.take(len)?;
        self.pos += 1;
        Ok(line)
    }
}

#[cfg(test)]
#[path = "torch/tests.rs"]
mod tests;
