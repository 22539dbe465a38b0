//! Training examples: pairs tokenized (with the session's rule for the source), padded into
//! tensors, and batched by length.

use super::data::{shuffle, Pair};
use crate::error::Result;
use crate::model::config::ModelConfig;
use crate::session::sampling::Rng;
use crate::text::TextTokenizer;

/// One tokenized example.
#[derive(Clone, Debug)]
pub struct Example {
    /// Source ids ending with `</s>`.
    pub src: Vec<u32>,
    /// `<s>` target ids `</s>`.
    pub tgt: Vec<u32>,
}

/// Tokenize pairs; those too long for `max_len` are dropped (returned count): a source that
/// [`ModelConfig::fit_source`] would cut, or a target longer than `max_len` with `<s>` and `</s>`.
pub fn tokenize_pairs(
    pairs: &[Pair],
    config: &ModelConfig,
    src: &TextTokenizer,
    tgt: &TextTokenizer,
) -> Result<(Vec<Example>, usize)> {
    let mut examples = vec![];
    let mut dropped = 0;
    for pair in pairs {
        // The session's rule for the source; a pair it would cut is dropped instead.
        let source = config.fit_source(&src.encode(&pair.source)?.ids);
        let mut t = vec![config.bos_id];
        t.extend(tgt.encode(&pair.target)?.ids);
        t.push(config.eos_id);
        if source.is_cut() || t.len() > config.max_len {
            dropped += 1;
        } else {
            examples.push(Example {
                src: source.ids,
                tgt: t,
            });
        }
    }
    Ok((examples, dropped))
}

pub(super) use crate::session::heads::padded;

/// Batches of indices into `examples`, grouped by length.
pub(super) fn make_batches(
    examples: &[Example],
    batch_size: usize,
    rng: &mut Rng,
) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..examples.len()).collect();
    shuffle(&mut order, rng);
    // Sort by length (stable, so equal lengths stay shuffled), then cut into batches.
    order.sort_by_key(|&i| (examples[i].src.len(), examples[i].tgt.len()));
    let mut batches: Vec<Vec<usize>> = order
        .chunks(batch_size.max(1))
        .map(|c| c.to_vec())
        .collect();
    shuffle(&mut batches, rng);
    batches
}
