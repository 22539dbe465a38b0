//! The keys and values of one attention block: projected once (the encoder output for every
//! decoding step) or grown one step at a time (the decoder's cache).

use burn::tensor::Tensor;

/// Keys and values of one attention block, already split into heads.
#[derive(Clone, Debug)]
pub struct KeyValue {
    /// `[batch, heads, k_len, d_k]`
    pub keys: Tensor<4>,
    /// `[batch, heads, k_len, d_k]`
    pub values: Tensor<4>,
}

impl KeyValue {
    /// Append `other` along the key axis (a new decoding step).
    pub fn append(self, other: KeyValue) -> KeyValue {
        KeyValue {
            keys: Tensor::cat(vec![self.keys, other.keys], 2),
            values: Tensor::cat(vec![self.values, other.values], 2),
        }
    }

    /// Keep the first `len` keys (undo decoding steps).
    pub fn truncate(self, len: usize) -> KeyValue {
        KeyValue {
            keys: self.keys.narrow(2, 0, len),
            values: self.values.narrow(2, 0, len),
        }
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.keys.dims()[2]
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
