//! What one pass of the model gives the trainer: the teacher-forced cross-entropy (the training
//! loss and the held-out loss), the attention entropy, and greedy decoding, each read back
//! asynchronously (a synchronous read panics on WebGPU in the browser).

use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor};

use super::tasks::Pair;
use crate::error::Result;
use crate::model::config::ModelConfig;
pub(super) use crate::model::packed::read;
use crate::model::{DecoderOutput, EncoderOutput, Transformer};
use crate::session::heads::padded;
use crate::session::sampling::{next_token, Rng, Sampling};

/// A batch of pairs as the model reads them, padded at the end with `<pad>`.
pub(super) struct Batch {
    /// Source ids then `</s>`: `[batch, src_len]`.
    pub src: Tensor<2, Int>,
    /// `<s>` then the target ids: `[batch, tgt_len]`.
    pub tgt_in: Tensor<2, Int>,
    /// The target ids then `</s>`: `[batch, tgt_len]`.
    pub tgt_out: Tensor<2, Int>,
}

impl Batch {
    /// The batch of `pairs` on `device`.
    pub fn new(pairs: &[Pair], config: &ModelConfig, device: &Device) -> Self {
        let rows = |make: &dyn Fn(&Pair) -> Vec<u32>| -> Tensor<2, Int> {
            let rows: Vec<Vec<u32>> = pairs.iter().map(make).collect();
            let slices: Vec<&[u32]> = rows.iter().map(Vec::as_slice).collect();
            padded(&slices, config.pad_id, device)
        };
        let with = |first: &[u32], second: &[u32]| [first, second].concat();
        Self {
            src: rows(&|p| with(&p.source, &[config.eos_id])),
            tgt_in: rows(&|p| with(&[config.bos_id], &p.target)),
            tgt_out: rows(&|p| with(&p.target, &[config.eos_id])),
        }
    }

    /// The teacher-forced pass: every target position predicted from the ones before it (all
    /// of them, when the decoder is not causal).
    pub fn forward(&self, model: &Transformer) -> (EncoderOutput, DecoderOutput) {
        let encoded = model.encode(self.src.clone(), None);
        let decoded = model.decode(self.tgt_in.clone(), &encoded, None);
        (encoded, decoded)
    }
}

/// The cross-entropy summed over non-pad target positions, and their count.
///
/// # Shapes
/// `logits: [batch, len, vocab]`, `targets: [batch, len]` → two one-element tensors.
pub(super) fn cross_entropy(
    logits: Tensor<3>,
    targets: Tensor<2, Int>,
    pad: u32,
) -> (Tensor<1>, Tensor<1>) {
    let [batch, len, _] = logits.dims();
    let log_probs = log_softmax(logits, 2); // [batch, len, vocab]
    let nll = log_probs
        .gather(2, targets.clone().reshape([batch, len, 1]))
        .reshape([batch, len])
        .neg(); // [batch, len]
    let keep = targets.equal_elem(pad as i64).bool_not().float(); // [batch, len]
    ((nll * keep.clone()).sum(), keep.sum())
}

/// The entropy of attention rows, in nats, summed over the rows of the queries `keep` marks in
/// every block of `weights`, and the number of those rows.
///
/// # Shapes
/// each of `weights: [batch, heads, q_len, k_len]`, `keep: [batch, q_len]` (1 or 0).
pub(super) fn entropy_sum(weights: &[Tensor<4>], keep: &Tensor<2>) -> (Tensor<1>, Tensor<1>) {
    let device = keep.device();
    let mut sum = Tensor::<1>::zeros([1], &device);
    let mut rows = Tensor::<1>::zeros([1], &device);
    for w in weights {
        let [batch, heads, q_len, _] = w.dims();
        let plogp = w.clone() * w.clone().clamp_min(1e-30).log(); // [batch, heads, q_len, k_len]
        let per_row = plogp.sum_dim(3).reshape([batch, heads, q_len]).neg(); // [batch, heads, q_len]
        let mask = keep.clone().reshape([batch, 1, q_len]); // [batch, 1, q_len]
        sum = sum + (per_row * mask).sum();
        rows = rows + keep.clone().sum().mul_scalar(heads as f32);
    }
    (sum, rows)
}

/// `[batch, len]` as 1 where `ids` is not `<pad>`, else 0.
pub(super) fn not_pad(ids: &Tensor<2, Int>, pad: u32) -> Tensor<2> {
    ids.clone().equal_elem(pad as i64).bool_not().float()
}

/// Greedy decoding of `sources` (each ending with `</s>`), the page's decoding rule, in one
/// batch: each output holds the ids after `<s>`, with `</s>` when it was produced.
///
/// A causal decoder decodes step by step with its key/value cache, as `translate` does. A
/// decoder trained without the causal mask is run over the whole prefix at every step: that is
/// the only way it can be run, since each position's state depends on the positions after it.
pub(super) async fn greedy(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[Vec<u32>],
) -> Result<Vec<Vec<u32>>> {
    let rows: Vec<&[u32]> = sources.iter().map(Vec::as_slice).collect();
    if config.causal_decoder {
        return crate::session::heads::greedy(model, config, &rows).await;
    }
    let device = model.positional_encoding.device();
    let encoded = model.encode(padded(&rows, config.pad_id, &device), None);
    let mut prefixes = vec![vec![config.bos_id]; rows.len()];
    let mut produced: Vec<Vec<u32>> = vec![vec![]; rows.len()];
    let mut done = vec![false; rows.len()];
    // Greedy decoding draws no random numbers; the generator only fills the rule's signature.
    let mut rng = Rng::new(0);
    for position in 0..config.output_limit().saturating_sub(1) {
        let prefix_rows: Vec<&[u32]> = prefixes.iter().map(Vec::as_slice).collect();
        let tgt = padded(&prefix_rows, config.pad_id, &device); // [batch, position + 1]
        let logits = model.decode(tgt, &encoded, None).logits; // [batch, position + 1, vocab]
        let last = logits.narrow(1, position, 1); // [batch, 1, vocab]
        let scores = read(last).await?;
        let never = config.never_generated_at(position + 1);
        for (row, scores) in scores.chunks(config.tgt_vocab_size).enumerate() {
            let id = next_token(scores, &never, &Sampling::Greedy, &mut rng);
            if !done[row] {
                produced[row].push(id);
                done[row] = id == config.eos_id;
            }
            prefixes[row].push(id);
        }
        if done.iter().all(|&d| d) {
            break;
        }
    }
    Ok(produced)
}
