//! `model.safetensors` taken in as it streams, each tensor in a buffer of its own
//! ([`WeightsStream`]): the loader can then free every tensor as soon as it has used it, where a
//! file held whole stays whole until the last tensor is read (opus-mt-tc-big's 586 MB, held
//! beside the model it was becoming).
//!
//! The header is checked as safetensors checks it (its length, up to 1 MB here; its JSON; the
//! tensors' byte ranges following each other from the data's start to its end, no gap and no
//! overlap; each range the size its dtype and shape say).
//! Names, shapes and dtypes against the config are the loader's ([`super::weights`]).

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The largest header accepted: 1 MB (safetensors allows 100 MB). An attnscope file names a few
/// hundred tensors in tens of KB, and a header is parsed into JSON values first, which take many
/// times the text's size: a hostile 100 MB header could exhaust the module's memory.
const MAX_HEADER: usize = 1 << 20;

/// One tensor of the file: its dtype as the header names it (`F16`, `F32`, …), PyTorch shape,
/// and bytes (little-endian, row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct RawTensor {
    /// The header's dtype.
    pub dtype: String,
    /// PyTorch shape.
    pub shape: Vec<usize>,
    /// The tensor's bytes.
    pub bytes: Vec<u8>,
    /// Where they start and end in the file's data.
    range: (usize, usize),
}

impl RawTensor {
    /// Bytes per value of a dtype this program reads (F16, F32), else `None`.
    pub fn width(&self) -> Option<usize> {
        match self.dtype.as_str() {
            "F16" => Some(2),
            "F32" => Some(4),
            _ => None,
        }
    }

    /// Whether every value is finite (F16 or F32; another dtype is not looked at).
    pub fn finite(&self) -> bool {
        match self.width() {
            Some(2) => self
                .bytes
                .chunks_exact(2)
                .all(|b| u16::from_le_bytes([b[0], b[1]]) & 0x7c00 != 0x7c00),
            Some(_) => self
                .bytes
                .chunks_exact(4)
                .all(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0x7f80_0000 != 0x7f80_0000),
            None => true,
        }
    }

    /// The values in F32 (F16 widened exactly); an error for another dtype.
    pub fn to_f32(&self, name: &str) -> Result<Vec<f32>> {
        match self.width() {
            Some(2) => Ok(self
                .bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect()),
            Some(_) => Ok(self
                .bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()),
            None => Err(Error::TensorDtype {
                name: name.to_string(),
                dtype: self.dtype.clone(),
            }),
        }
    }
}

/// A header entry as safetensors writes it.
#[derive(serde::Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// A weights file filled chunk by chunk (the chunks cut anywhere), split into its tensors as
/// their bytes arrive.
#[derive(Debug, Default)]
pub struct WeightsStream {
    /// The file's announced size.
    size: usize,
    /// Bytes received so far.
    received: usize,
    /// The header's bytes (its 8-byte length first) until it is whole.
    header: Vec<u8>,
    /// Whether the header has been read (the data follows).
    header_read: bool,
    /// Every tensor, by where it starts in the data; filled in that order.
    tensors: Vec<(String, RawTensor)>,
    /// The tensor being filled.
    next: usize,
}

impl WeightsStream {
    /// An empty stream that will hold `size` bytes.
    pub fn new(size: usize) -> Self {
        Self {
            size,
            ..Self::default()
        }
    }

    /// A whole file, split.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut stream = Self::new(bytes.len());
        stream.push(bytes)?;
        Ok(stream)
    }

    /// Bytes received so far.
    pub fn received(&self) -> usize {
        self.received
    }

    /// Take in the next chunk: more than the announced size, or a header that is not
    /// safetensors', is refused.
    pub fn push(&mut self, mut chunk: &[u8]) -> Result<()> {
        if self.received + chunk.len() > self.size {
            return Err(Error::Usage(format!(
                "the weights file grew past its announced {} bytes",
                self.size
            )));
        }
        while !chunk.is_empty() {
            let taken = match self.header_read {
                false => self.take_header(chunk)?,
                true => self.take_data(chunk)?,
            };
            self.received += taken;
            chunk = &chunk[taken..];
        }
        Ok(())
    }

    /// Header bytes from `chunk`: how many were taken.
    fn take_header(&mut self, chunk: &[u8]) -> Result<usize> {
        let wanted = match self.header.len() < 8 {
            true => 8,
            false => 8 + self.header_len()?,
        };
        let taken = (wanted - self.header.len()).min(chunk.len());
        self.header.extend_from_slice(&chunk[..taken]);
        if self.header.len() == wanted && wanted > 8 {
            self.read_header()?;
        }
        Ok(taken)
    }

    /// The header's length, from its first 8 bytes.
    fn header_len(&self) -> Result<usize> {
        let mut len = [0u8; 8];
        len.copy_from_slice(&self.header[..8]);
        let len = u64::from_le_bytes(len);
        match usize::try_from(len) {
            Ok(len) if (1..=MAX_HEADER).contains(&len) && 8 + len <= self.size => Ok(len),
            _ => Err(format_error(format!("a header of {len} bytes"))),
        }
    }

    /// Parse the whole header: every tensor's range, checked, in data order.
    fn read_header(&mut self) -> Result<()> {
        let text = std::str::from_utf8(&self.header[8..])
            .map_err(|e| format_error(format!("the header is not UTF-8: {e}")))?;
        let mut entries: BTreeMap<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| format_error(format!("the header: {e}")))?;
        entries.remove("__metadata__");
        let data_len = self.size - self.header.len();
        let mut tensors = Vec::with_capacity(entries.len());
        for (name, value) in entries {
            let entry: Entry = serde_json::from_value(value)
                .map_err(|e| format_error(format!("tensor `{name}`: {e}")))?;
            let (begin, end) = entry.data_offsets;
            if begin > end {
                return Err(format_error(format!(
                    "tensor `{name}` ends before it starts"
                )));
            }
            let tensor = RawTensor {
                dtype: entry.dtype,
                shape: entry.shape,
                bytes: Vec::new(),
                range: (begin, end),
            };
            let values = tensor
                .shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d));
            let bytes = tensor.width().and_then(|w| values?.checked_mul(w));
            if bytes.is_some_and(|bytes| bytes != end - begin) {
                return Err(format_error(format!(
                    "tensor `{name}`'s bytes do not match its shape"
                )));
            }
            tensors.push((name, tensor));
        }
        tensors.sort_by_key(|(_, tensor)| tensor.range);
        let mut at = 0;
        for (name, tensor) in &tensors {
            if tensor.range.0 != at {
                return Err(format_error(format!(
                    "tensor `{name}` starts at byte {} of the data, not at {at}",
                    tensor.range.0
                )));
            }
            at = tensor.range.1;
        }
        let last = at; // where the contiguous tensors end
        if last > data_len {
            return Err(format_error(format!(
                "the file is cut short: its header lists {last} bytes of tensors, and it holds {data_len}"
            )));
        }
        if last < data_len {
            return Err(format_error(format!(
                "{} bytes follow the last tensor",
                data_len - last
            )));
        }
        self.tensors = tensors;
        self.header_read = true;
        self.header = Vec::new();
        Ok(())
    }

    /// Data bytes from `chunk` into the tensor being filled (the ranges follow each other,
    /// `read_header` checked it, so the next byte is always that tensor's). How many were taken.
    fn take_data(&mut self, chunk: &[u8]) -> Result<usize> {
        let Some((name, tensor)) = self.tensors.get_mut(self.next) else {
            return Ok(chunk.len()); // none: the header said the data is empty
        };
        let (begin, end) = tensor.range;
        let len = end - begin;
        if tensor.bytes.capacity() < len {
            tensor.bytes.try_reserve_exact(len).map_err(|_| {
                Error::Usage(format!(
                    "cannot reserve {} MB for tensor `{name}`",
                    len.div_ceil(1_000_000)
                ))
            })?;
        }
        let taken = (len - tensor.bytes.len()).min(chunk.len());
        tensor.bytes.extend_from_slice(&chunk[..taken]);
        if tensor.bytes.len() == len {
            self.next += 1;
        }
        Ok(taken)
    }

    /// The tensors by name, once the whole file has come; an error if it has not.
    pub fn finish(mut self) -> Result<BTreeMap<String, RawTensor>> {
        if self.received != self.size {
            return Err(Error::Usage(format!(
                "the weights file has {} of its {} bytes",
                self.received, self.size
            )));
        }
        if !self.header_read {
            return Err(format_error("the file ends inside its header".into()));
        }
        while let Some((_, tensor)) = self.tensors.get(self.next) {
            if tensor.range.0 != tensor.range.1 {
                break;
            }
            self.next += 1; // empty tensors at the very end
        }
        if self.next < self.tensors.len() {
            return Err(format_error("the file ends inside its data".into()));
        }
        Ok(self.tensors.into_iter().collect())
    }
}

fn format_error(message: String) -> Error {
    Error::WeightsFormat(message)
}

#[cfg(test)]
mod tests;
