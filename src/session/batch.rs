//! Several sentences through the encoder as one padded batch: the padding mask at work.

use serde::Serialize;

use super::readback::{flat, read_back};
use super::Session;
use crate::error::Result;
use crate::model::masks::Mask;
use crate::trace::AttentionStack;

/// A padded batch of sentences through the encoder.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaddedBatch {
    /// Each sentence's tokens, padded with `<pad>` to the longest.
    pub tokens: Vec<Vec<String>>,
    /// Each sentence's padding mask, `[1, len]`.
    pub padding_mask: Vec<Mask>,
    /// Each sentence's encoder self-attention `[layers, heads, len, len]`.
    pub encoder_self_attention: Vec<AttentionStack>,
}

impl Session {
    /// Encode several sentences as one padded batch.
    pub async fn padded_batch(&self, texts: &[&str]) -> Result<PaddedBatch> {
        let config = &self.loaded.config;
        let sources = texts
            .iter()
            .map(|t| self.tokenize_source(t))
            .collect::<Result<Vec<_>>>()?;
        let len = sources.iter().map(|s| s.ids.len()).max().unwrap_or(0);
        let pad_text = self.target_text(config.pad_id);
        let mut ids = vec![];
        let mut tokens = vec![];
        for source in &sources {
            let pad = len - source.ids.len();
            let padded = source
                .ids
                .iter()
                .copied()
                .chain(std::iter::repeat_n(config.pad_id, pad));
            ids.extend(padded);
            let padded = source
                .tokens
                .iter()
                .cloned()
                .chain(std::iter::repeat_n(pad_text.clone(), pad));
            tokens.push(padded.collect::<Vec<_>>());
        }
        let batch = sources.len();
        let src = self.ids_tensor(&ids, batch);
        let encoded = self
            .loaded
            .model
            .encode_packed(src, None, self.packed.as_ref());
        let parts = encoded
            .attention
            .iter()
            .map(|a| flat(a.weights.clone()))
            .collect();
        let data = read_back(parts).await?;
        // data[layer] is [batch, heads, len, len]; regroup per sentence.
        let per = config.encoder_heads() * len * len;
        let (layers, heads) = (config.n_encoder_layers, config.encoder_heads());
        let encoder_self_attention = (0..batch)
            .map(|b| {
                let sentence = data
                    .iter()
                    .flat_map(|layer| layer[b * per..(b + 1) * per].to_vec())
                    .collect();
                AttentionStack::new(layers, heads, len, len, sentence)
            })
            .collect();
        let padding_mask = ids
            .chunks(len.max(1))
            .map(|row| Mask::padding(row, config.pad_id))
            .collect();
        Ok(PaddedBatch {
            tokens,
            padding_mask,
            encoder_self_attention,
        })
    }
}
