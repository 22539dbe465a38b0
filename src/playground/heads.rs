//! The heads of a model in training, as the page's Heads panel reads them: heads.json, the format
//! `attnscope heads --json` writes ([`HeadsReport`]), over the first [`SENTENCES`] held-out
//! examples, each with the model's own greedy output, as the study of a shipped model does.

use super::measure::greedy;
use super::trainer::Trainer;
use crate::error::Result;
use crate::study::report::HeadsReport;
use crate::study::Sentence;

/// Held-out examples scored: the same ones at every step, so that scores move only because the
/// weights do. Few enough that scoring the baseline model (d 32, 2 heads, 1 + 1 layers) takes
/// about 15 ms natively (8.6 ms with 16).
pub const SENTENCES: usize = 32;

impl Trainer {
    /// heads.json of the current weights: every head's mean importance and roles over the first
    /// [`SENTENCES`] held-out examples.
    pub async fn heads_json(&self) -> Result<Vec<u8>> {
        let model = self.model();
        let config = &self.model_config;
        let sources: Vec<Vec<u32>> = self
            .data
            .heldout
            .iter()
            .take(SENTENCES)
            .map(|pair| pair.encoder_input(config.eos_id))
            .collect();
        let outputs = greedy(&model, config, &sources).await?;
        let sentences: Vec<Sentence> = sources
            .into_iter()
            .zip(outputs)
            .map(|(src, output)| Sentence::new(config, src, output))
            .collect();
        let report = HeadsReport::measure(&model, config, &sentences).await?;
        Ok(serde_json::to_vec(&report)?)
    }
}
