//! Sinusoidal positional encoding, exactly the paper's formula.
//!
//! PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); Marian and
//! fairseq put the same values in another order, sines first: PE(pos, i), PE(pos, d/2 + i)
//! ([`PositionalLayout::Split`]).
//! Low dimensions turn fast, high dimensions slowly; and since
//! sin(a)sin(b) + cos(a)cos(b) = cos(a − b), the dot product PE(t)·PE(t+Δ) depends on Δ alone.
//!
//! A model may instead learn its table (a `[max_len, d_model]` parameter, as BERT and GPT do),
//! or have none: attention alone cannot tell the order of its keys
//! ([`PositionalEncoding`], the config's `positional_encoding`).

use serde::{Deserialize, Serialize};

use super::config::{ModelConfig, PositionalLayout};
use crate::flat::Floats;

/// Where a model's tokens get their position from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PositionalEncoding {
    /// The paper's fixed sines and cosines, added to the embeddings.
    #[default]
    Sinusoidal,
    /// A trained `[max_len, d_model]` table (`positional.weight` in the weights file), added
    /// to the embeddings.
    Learned,
    /// Nothing: the encoder sees a bag of tokens, and only the decoder's causal mask says
    /// anything about order.
    None,
}

impl PositionalEncoding {
    /// Whether this is the default (config.json then leaves the field out).
    pub fn is_sinusoidal(&self) -> bool {
        *self == Self::Sinusoidal
    }
}

/// A model's positional-encoding table, computed once when the model is built or loaded; the
/// model adds it to the embeddings and the page draws it.
///
/// # Shapes
/// `values` is row-major `[rows, cols]` = `[max_len, d_model]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionalTable {
    /// Sinusoidal, learned (the values come from the weights file) or none (all zero).
    pub kind: PositionalEncoding,
    /// Where a sinusoidal table puts its sines and cosines.
    pub layout: PositionalLayout,
    /// `max_len`.
    pub rows: usize,
    /// `d_model`.
    pub cols: usize,
    /// The table.
    pub values: Vec<f32>,
}

/// What the page's positional view draws: the table and PE(t)·PE(t+Δ) for a few t.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PositionalView {
    /// Sinusoidal, learned or none: the page says what it shows when there are no sinusoids.
    pub kind: PositionalEncoding,
    /// Where a sinusoidal table puts its sines and cosines (`interleaved` or `split`).
    pub layout: PositionalLayout,
    /// `max_len`.
    pub rows: usize,
    /// `d_model`.
    pub cols: usize,
    /// The table, row-major `[rows, cols]`.
    pub table: Floats,
    /// The start positions t of the curves.
    pub starts: Vec<usize>,
    /// `[starts][Δ]`: PE(t)·PE(t+Δ) for Δ up to `rows / 2`.
    pub dot_products: Vec<Vec<f32>>,
}

/// Start positions of the dot-product curves the page shows.
const CURVE_STARTS: [usize; 4] = [0, 5, 10, 20];

impl PositionalTable {
    /// The table `config` implies before any weights are read: the sinusoidal one, or zeros
    /// where the model learns its table (the weights file has its values) or has none.
    pub fn new(config: &ModelConfig) -> Self {
        let (rows, cols) = (config.max_len, config.d_model);
        let values = match (config.positional_encoding, config.positional_layout) {
            (PositionalEncoding::Sinusoidal, PositionalLayout::Interleaved) => {
                sinusoidal_table(rows, cols)
            }
            (PositionalEncoding::Sinusoidal, PositionalLayout::Split) => {
                split_sinusoidal_table(rows, cols)
            }
            (PositionalEncoding::Learned | PositionalEncoding::None, _) => vec![0.0; rows * cols],
        };
        Self {
            kind: config.positional_encoding,
            layout: config.positional_layout,
            rows,
            cols,
            values,
        }
    }

    /// The table and its dot-product curves, for the page.
    pub fn view(&self) -> PositionalView {
        let starts = CURVE_STARTS.to_vec();
        PositionalView {
            kind: self.kind,
            layout: self.layout,
            rows: self.rows,
            cols: self.cols,
            table: Floats(self.values.clone()),
            dot_products: relative_dot_products(&self.values, self.cols, &starts, self.rows / 2),
            starts,
        }
    }
}

/// The PE table as a row-major `[max_len, d_model]` vector.
///
/// # Shapes
/// returns `max_len * d_model` values, row `pos` holding the encoding of position `pos`.
pub fn sinusoidal_table(max_len: usize, d_model: usize) -> Vec<f32> {
    let mut table = vec![0.0f32; max_len * d_model];
    for pos in 0..max_len {
        for dim in 0..d_model {
            let pair = (dim / 2) as f64; // i in the formula
            let angle = pos as f64 / 10000f64.powf(2.0 * pair / d_model as f64);
            table[pos * d_model + dim] = if dim % 2 == 0 {
                angle.sin()
            } else {
                angle.cos()
            } as f32;
        }
    }
    table
}

/// The same sines and cosines with the sines in the first half of each row and the cosines in
/// the second (Marian's `MarianSinusoidalPositionalEmbedding`, computed in f64 like it).
///
/// # Shapes
/// returns `max_len * d_model` values; for odd `d_model` the first half has the extra sine.
pub fn split_sinusoidal_table(max_len: usize, d_model: usize) -> Vec<f32> {
    let interleaved = sinusoidal_table(max_len, d_model);
    let sines = d_model.div_ceil(2);
    let mut table = vec![0.0f32; max_len * d_model];
    for pos in 0..max_len {
        let row = &interleaved[pos * d_model..(pos + 1) * d_model];
        for dim in 0..d_model {
            // Dimension 2i of the paper's table holds sin(·i), 2i+1 holds cos(·i).
            let source = if dim < sines {
                2 * dim
            } else {
                2 * (dim - sines) + 1
            };
            table[pos * d_model + dim] = row[source];
        }
    }
    table
}

/// PE(t)·PE(t+Δ) for Δ in `0..max_delta`, for each start position in `starts`.
///
/// # Shapes
/// returns `[starts.len()][max_delta]`.
pub fn relative_dot_products(
    table: &[f32],
    d_model: usize,
    starts: &[usize],
    max_delta: usize,
) -> Vec<Vec<f32>> {
    let rows = table.len() / d_model.max(1);
    starts
        .iter()
        .map(|&t| {
            (0..max_delta)
                .filter(|delta| t + delta < rows)
                .map(|delta| {
                    let a = &table[t * d_model..(t + 1) * d_model];
                    let b = &table[(t + delta) * d_model..(t + delta + 1) * d_model];
                    a.iter().zip(b).map(|(x, y)| x * y).sum()
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_formula() {
        let d = 16;
        let table = sinusoidal_table(50, d);
        for pos in [0usize, 1, 7, 49] {
            for i in 0..d / 2 {
                let w = 1.0 / 10000f64.powf(2.0 * i as f64 / d as f64);
                let sin = (pos as f64 * w).sin() as f32;
                let cos = (pos as f64 * w).cos() as f32;
                assert!((table[pos * d + 2 * i] - sin).abs() < 1e-6);
                assert!((table[pos * d + 2 * i + 1] - cos).abs() < 1e-6);
            }
        }
        // Position 0 is [0, 1, 0, 1, ...].
        assert_eq!(&table[..4], &[0.0, 1.0, 0.0, 1.0]);
    }

    #[test]
    fn dot_product_depends_only_on_the_offset() {
        let d = 64;
        let table = sinusoidal_table(100, d);
        let curves = relative_dot_products(&table, d, &[0, 10, 40], 30);
        assert!(curves.iter().all(|c| c.len() == 30));
        for ((a, b), c) in curves[0].iter().zip(&curves[1]).zip(&curves[2]) {
            assert!((a - b).abs() < 1e-4);
            assert!((a - c).abs() < 1e-4);
        }
        // PE(t)·PE(t) = d/2 (each sin²+cos² pair sums to 1).
        assert!((curves[0][0] - d as f32 / 2.0).abs() < 1e-4);
    }
}
