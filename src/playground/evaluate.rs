//! The held-out figures of a model in training: teacher-forced loss and attention entropy from
//! one pass over the held-out set, and exact match under real greedy decoding.

use burn::tensor::Tensor;

use super::measure::{cross_entropy, entropy_sum, greedy, not_pad, read, Batch};
use super::report::{AttentionEntropy, Evaluation, Sample};
use super::trainer::Trainer;
use crate::error::{Error, Result};

/// Held-out examples shown as text in each evaluation.
const SAMPLES: usize = 5;

impl Trainer {
    /// The held-out loss (teacher-forced), the attention entropy and the greedy exact match
    /// of the current weights.
    pub async fn evaluate(&self) -> Result<Evaluation> {
        let model = self.model();
        let config = &self.model_config;
        let (pad, eos) = (config.pad_id, config.eos_id);
        let device = model.positional_encoding.device();
        let heldout = &self.data.heldout;
        let batch = Batch::new(heldout, config, &device);
        let (encoded, decoded) = batch.forward(&model);
        let (src_rows, tgt_rows) = (not_pad(&batch.src, pad), not_pad(&batch.tgt_in, pad));
        let encoder: Vec<Tensor<4>> = encoded
            .attention
            .iter()
            .map(|a| a.weights.clone())
            .collect();
        let layers = &decoded.attention;
        let decoder: Vec<Tensor<4>> = layers
            .iter()
            .map(|a| a.self_attention.weights.clone())
            .collect();
        let cross: Vec<Tensor<4>> = layers
            .iter()
            .map(|a| a.cross_attention.weights.clone())
            .collect();
        let (loss, tokens) = cross_entropy(decoded.logits.clone(), batch.tgt_out.clone(), pad);
        let (e_sum, e_rows) = entropy_sum(&encoder, &src_rows);
        let (d_sum, d_rows) = entropy_sum(&decoder, &tgt_rows);
        let (c_sum, c_rows) = entropy_sum(&cross, &tgt_rows);
        let parts = vec![loss, tokens, e_sum, e_rows, d_sum, d_rows, c_sum, c_rows];
        let figures = read(Tensor::cat(parts, 0)).await?; // [8]
        let ratio = |i: usize| -> Result<f64> {
            match (figures.get(i), figures.get(i + 1)) {
                (Some(&sum), Some(&count)) => Ok(f64::from(sum) / f64::from(count).max(1.0)),
                _ => Err(Error::Invariant("an evaluation read back too few figures")),
            }
        };
        let sources: Vec<Vec<u32>> = heldout.iter().map(|pair| pair.encoder_input(eos)).collect();
        let outputs = greedy(&model, config, &sources).await?;
        let right = |(pair, output): (&super::tasks::Pair, &Vec<u32>)| {
            output.len() == pair.target.len() + 1
                && output.starts_with(&pair.target)
                && output.last() == Some(&eos)
        };
        let correct = heldout.iter().zip(&outputs).filter(|&p| right(p)).count();
        let bag = |ids: &[u32]| {
            let mut ids: Vec<u32> = ids.iter().copied().filter(|&id| id != eos).collect();
            ids.sort_unstable();
            ids
        };
        let same_tokens = heldout
            .iter()
            .zip(&outputs)
            .filter(|(pair, output)| bag(&pair.target) == bag(output))
            .count();
        let samples = heldout
            .iter()
            .zip(&outputs)
            .take(SAMPLES)
            .map(|(pair, output)| {
                let (source, expected) = self.data.pair_text(pair);
                Sample {
                    source,
                    expected,
                    output: self.data.text(&self.data.target_words, output),
                    correct: right((pair, output)),
                }
            })
            .collect();
        Ok(Evaluation {
            step: self.steps(),
            heldout_loss: ratio(0)?,
            exact_match: correct as f64 / heldout.len().max(1) as f64,
            correct,
            same_tokens: same_tokens as f64 / heldout.len().max(1) as f64,
            total: heldout.len(),
            entropy: AttentionEntropy {
                encoder_self: ratio(2)?,
                decoder_self: ratio(4)?,
                cross: ratio(6)?,
            },
            samples,
        })
    }
}
