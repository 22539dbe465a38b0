//! The masks, each written once: which keys a query may not see. The model builds its mask
//! tensors from these, the trace carries them, and the page draws them from the trace.

use burn::tensor::{Bool, Device, Tensor, TensorData};
use serde::Serialize;

use crate::flat::Flags;

/// A boolean matrix, row-major, true = the key is hidden from the query. A mask with one row
/// applies to every query (the padding mask).
///
/// # Shapes
/// `hidden` is `[rows, cols]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mask {
    /// Query positions (1 for a mask shared by every query).
    pub rows: usize,
    /// Key positions.
    pub cols: usize,
    /// The flags.
    pub hidden: Flags,
}

impl Mask {
    /// The causal mask over `len` decoder positions: position `q` may not see any `k > q`, so
    /// a decoder trained on whole sentences cannot peek at the token it must predict.
    pub fn causal(len: usize) -> Self {
        Self::causal_keys(len, len)
    }

    /// A mask that hides nothing: a decoder without its causal mask (the playground's switch).
    pub fn open(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            hidden: Flags(vec![false; rows * cols]),
        }
    }

    /// The causal mask of the last `queries` positions of a prefix of `keys` positions (the
    /// earlier ones' keys come from a cache): query `q` sits at `keys - queries + q` and may not
    /// see any later key. With `queries == keys` it is [`Mask::causal`].
    pub fn causal_keys(queries: usize, keys: usize) -> Self {
        let offset = keys.saturating_sub(queries);
        let hidden = (0..queries * keys)
            .map(|i| i % keys > offset + i / keys)
            .collect();
        Self {
            rows: queries,
            cols: keys,
            hidden: Flags(hidden),
        }
    }

    /// The padding mask of a source: `<pad>` keys are hidden from every query.
    pub fn padding(ids: &[u32], pad_id: u32) -> Self {
        Self {
            rows: 1,
            cols: ids.len(),
            hidden: Flags(ids.iter().map(|&id| id == pad_id).collect()),
        }
    }

    /// Whether `query` may not see `key` (a one-row mask answers for every query).
    pub fn hides(&self, query: usize, key: usize) -> bool {
        let row = if self.rows == 1 { 0 } else { query };
        self.hidden
            .get(row * self.cols + key)
            .copied()
            .unwrap_or(false)
    }

    /// The mask over `[queries, cols]`, one row per query.
    pub fn expand(&self, queries: usize) -> Vec<bool> {
        (0..queries * self.cols)
            .map(|i| self.hides(i / self.cols.max(1), i % self.cols.max(1)))
            .collect()
    }

    /// As a tensor that broadcasts over `[batch, heads, rows, cols]`.
    ///
    /// # Shapes
    /// → `[1, 1, rows, cols]`.
    pub fn to_tensor(&self, device: &Device) -> Tensor<4, Bool> {
        Tensor::<2, Bool>::from_data(
            TensorData::new(self.hidden.0.clone(), [self.rows, self.cols]),
            device,
        )
        .reshape([1, 1, self.rows, self.cols])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causal_hides_exactly_the_future() {
        let mask = Mask::causal(3);
        let expected = [
            [false, true, true],
            [false, false, true],
            [false, false, false],
        ];
        for (q, row) in expected.iter().enumerate() {
            for (k, &hidden) in row.iter().enumerate() {
                assert_eq!(mask.hides(q, k), hidden, "query {q}, key {k}");
            }
        }
    }

    #[test]
    fn causal_keys_offsets_the_queries_to_the_end_of_the_prefix() {
        // Two new queries at positions 2 and 3 of a four-key prefix.
        let mask = Mask::causal_keys(2, 4);
        assert_eq!(
            mask.expand(2),
            [false, false, false, true, false, false, false, false]
        );
        assert_eq!(Mask::causal_keys(3, 3), Mask::causal(3));
    }

    #[test]
    fn padding_applies_to_every_query() {
        let mask = Mask::padding(&[5, 3, 0, 0], 0);
        assert_eq!((mask.rows, mask.cols), (1, 4));
        assert!(mask.hides(7, 2) && mask.hides(0, 3) && !mask.hides(7, 1));
        assert_eq!(
            mask.expand(2),
            [false, false, true, true, false, false, true, true]
        );
    }
}
