//! Teacher-forced cross-entropy of a saved model: how well it predicts each reference token
//! given the ones before it (no label smoothing, no dropout), on its held-out sets and on its
//! own training pairs. Held-out minus training is how much of the training data it has learnt
//! by heart; decoding figures such as chrF cannot show that gap.

use burn::tensor::Device;
use serde::Serialize;

use super::batch_loss_parts;
use super::data::Pair;
use super::examples::tokenize_pairs;
use crate::error::Result;
use crate::files::folder::LoadedModel;

/// Pairs per forward pass (the training batch).
const BATCH: usize = 64;

/// One set's cross-entropy.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLoss {
    /// Which set (`tatoeba`, `hsk`, …, or `train`).
    pub name: String,
    /// Pairs scored.
    pub pairs: usize,
    /// Pairs left out because the model cannot hold them (as training leaves them out).
    pub dropped: usize,
    /// Target tokens scored (`</s>` included, `<s>` not).
    pub tokens: usize,
    /// Mean cross-entropy per target token, in nats (`None`, shown as `null`, without tokens).
    pub cross_entropy: Option<f64>,
    /// `exp(cross_entropy)`.
    pub perplexity: Option<f64>,
}

/// The cross-entropy of `loaded` (on `device`) on `pairs`, in batches of similar length,
/// summed in f64.
pub fn set_loss(
    loaded: &LoadedModel,
    device: &Device,
    name: &str,
    pairs: &[Pair],
) -> Result<SetLoss> {
    let config = &loaded.config;
    let (examples, dropped) =
        tokenize_pairs(pairs, config, &loaded.src_tokenizer, &loaded.tgt_tokenizer)?;
    let mut order: Vec<usize> = (0..examples.len()).collect();
    order.sort_by_key(|&i| (examples[i].src.len(), examples[i].tgt.len()));
    let (mut sum, mut tokens) = (0.0_f64, 0_usize);
    for batch in order.chunks(BATCH) {
        // Training's own teacher-forced batch loss, without label smoothing.
        let (batch_sum, count) =
            batch_loss_parts(&loaded.model, config, &examples, batch, 0.0, device);
        let (batch_sum, count): (f32, f32) = (batch_sum.into_scalar(), count.into_scalar());
        sum += f64::from(batch_sum);
        tokens += count as usize;
    }
    let cross_entropy = (tokens > 0).then(|| sum / tokens as f64);
    Ok(SetLoss {
        name: name.to_string(),
        pairs: examples.len(),
        dropped,
        tokens,
        cross_entropy,
        perplexity: cross_entropy.map(f64::exp),
    })
}
