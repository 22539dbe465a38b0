//! Training and evaluation data: the HSK sentence pairs, the generated grammar, the dates
//! (`dates` draws the pairs, `date_formats` writes a date in words, `numeric_dates` in numbers),
//! and the two metrics (exact match, chrF). Native only: the page never trains.

pub mod date_formats;
pub mod dates;
pub mod en_zh;
pub mod metrics;
pub mod numeric_dates;

use std::path::Path;

use crate::error::{Error, Result};
use crate::session::sampling::Rng;

/// One source → target example.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    /// The input text.
    pub source: String,
    /// The expected output text.
    pub target: String,
}

impl Pair {
    /// A pair from two strings.
    pub fn new(source: impl Into<String>, target: impl Into<String>) -> Self {
        Self {
            source: source.into(),
            target: target.into(),
        }
    }
}

/// Read two named columns of a tab-separated file with a header line.
pub fn read_tsv(path: &Path, source_column: &str, target_column: &str) -> Result<Vec<Pair>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| Error::Training(format!("{} has no column {name:?}", path.display())))
    };
    let (s, t) = (column(source_column)?, column(target_column)?);
    Ok(lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            Some(Pair::new(*fields.get(s)?, *fields.get(t)?))
        })
        .filter(|p| !p.source.is_empty() && !p.target.is_empty())
        .collect())
}

/// Shuffle deterministically (Fisher–Yates with our seeded generator).
pub fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// Split off a held-out fraction, deterministically from `seed`: (train, held out).
pub fn split_holdout(mut pairs: Vec<Pair>, fraction: f64, seed: u64) -> (Vec<Pair>, Vec<Pair>) {
    shuffle(&mut pairs, &mut Rng::new(seed));
    let held = ((pairs.len() as f64) * fraction).round() as usize;
    let train = pairs.split_off(held);
    (train, pairs)
}
