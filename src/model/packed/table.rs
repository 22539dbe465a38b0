//! A big model's token-embedding tables kept beside its packed projections, in F16
//! ([`PackedTable`]): the model's own `Embedding` matrices are then empty, and a lookup reads
//! the rows of its ids from here. A tied model's target table is its vocabulary projection's
//! packed weights themselves (output `id`'s weights are row `id`), so it costs nothing more.

use std::sync::Arc;

use burn::tensor::{Int, Tensor, TensorData};

use super::tiles::read_le;
use super::{PackedLinear, PackedWeights};

/// Where a kept table's rows are.
#[derive(Clone, Debug)]
pub enum PackedTable {
    /// A weights file's `[vocab, d_model]` rows, its own little-endian bytes (`width` bytes a
    /// value: 2 for F16, 4 for F32).
    Rows {
        /// The file's bytes of the table.
        bytes: Arc<Vec<u8>>,
        /// Bytes per value.
        width: usize,
        /// Values per row.
        d_model: usize,
    },
    /// The packed vocabulary projection's weights (a tied model's target table).
    Projection,
}

impl PackedTable {
    /// Row `id` into `out` (`d_model` values); zeros for an id past the table.
    fn row(&self, projection: &PackedLinear, id: usize, out: &mut [f32]) {
        match self {
            PackedTable::Rows {
                bytes,
                width,
                d_model,
            } => {
                let row = width * d_model;
                let start = id.saturating_mul(row);
                let Some(bytes) = bytes.get(start..start.saturating_add(row)) else {
                    out.fill(0.0);
                    return;
                };
                read_le(bytes, *width, out);
            }
            PackedTable::Projection => projection.weights_of(id, out),
        }
    }

    /// Values per row.
    fn d_model(&self, projection: &PackedLinear) -> usize {
        match self {
            PackedTable::Rows { d_model, .. } => *d_model,
            PackedTable::Projection => projection.d_in(),
        }
    }
}

impl PackedWeights {
    /// The token embedding of `ids` (`[batch, len]`) from the source (`target` false) or the
    /// target table, when that table is kept here: `[batch, len, d_model]`, not yet scaled.
    /// `None` when the model keeps its own table (or the ids cannot be read: they are on the
    /// CPU, where reading is immediate).
    pub fn embedding(&self, target: bool, ids: &Tensor<2, Int>) -> Option<Tensor<3>> {
        let table = match target {
            true => self.tgt_table.as_ref()?,
            false => self.src_table.as_ref()?,
        };
        let [batch, len] = ids.dims();
        let data = ids.clone().try_into_data().ok()?;
        let d = table.d_model(&self.projection);
        let mut values = vec![0.0; batch * len * d];
        for (id, out) in data.iter::<i64>().zip(values.chunks_exact_mut(d)) {
            let id = usize::try_from(id).unwrap_or(usize::MAX);
            table.row(&self.projection, id, out);
        }
        let data = TensorData::new(values, [batch, len, d]);
        Some(Tensor::from_data(data, &ids.device()))
    }
}
