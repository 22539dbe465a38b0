//! Passes over the whole decoded prefix at once (no key/value cache): checking the cache,
//! timing a full re-decode, scoring many prefixes in one batch, and probing one layer.

use burn::tensor::{Int, Tensor};

use super::readback::{flat, read_back};
use super::sampling::log_probabilities;
use super::{Decoding, Session};
use crate::error::{Error, Result};
use crate::model::{DecoderLayerAttention, Probe};
use crate::trace::AttentionStack;

impl Session {
    /// Recompute the decoder over the whole prefix at once (no cache): decoder self-attention
    /// and cross-attention stacks, and the logits of every position `[rows, tgt_vocab]`.
    /// Equal to the step-by-step trace; used to check the cache and to time a full re-decode.
    pub async fn recompute_decoder(&self) -> Result<(AttentionStack, AttentionStack, Vec<f32>)> {
        let state = self.state()?;
        let rows = state.trace.rows();
        if rows == 0 {
            return Err(Error::NothingDecoded);
        }
        self.decode_ids(state, &state.trace.tgt_ids[..rows]).await
    }

    /// The decoder over the input positions `ids` (`<s>` first) in one pass, no cache: the
    /// self-attention and cross-attention stacks and the logits of every position.
    ///
    /// # Shapes
    /// returns `[layers, heads, rows, rows]`, `[layers, heads, rows, src]` and `[rows, tgt_vocab]`
    /// (flat), with `rows = ids.len()`.
    pub(super) async fn decode_ids(
        &self,
        state: &Decoding,
        ids: &[u32],
    ) -> Result<(AttentionStack, AttentionStack, Vec<f32>)> {
        let config = &self.loaded.config;
        let rows = ids.len();
        let tgt = self.ids_tensor(ids, 1);
        let padding_mask = &state.encoded.padding_mask;
        let output = self.loaded.model.decode_projected(
            tgt,
            &state.cross,
            padding_mask,
            self.packed.as_ref(),
        );
        let layers = config.n_decoder_layers;
        let mut parts: Vec<Tensor<1>> = output
            .attention
            .iter()
            .map(|a| flat(a.self_attention.weights.clone()))
            .collect();
        parts.extend(
            output
                .attention
                .iter()
                .map(|a| flat(a.cross_attention.weights.clone())),
        );
        parts.push(flat(output.logits));
        let mut data = read_back(parts).await?.into_iter();
        let self_parts = data.by_ref().take(layers).collect::<Vec<_>>().concat();
        let cross_parts = data.by_ref().take(layers).collect::<Vec<_>>().concat();
        let logits = data.next().unwrap_or_default();
        let src_len = state.trace.src_ids.len();
        let heads = config.decoder_heads();
        Ok((
            AttentionStack::new(layers, heads, rows, rows, self_parts),
            AttentionStack::new(layers, heads, rows, src_len, cross_parts),
            logits,
        ))
    }

    /// log p of every next token after each of `batch` target prefixes (row-major
    /// `[batch, len]`, each starting with `<s>`), each read against its own source (row-major
    /// `[batch, src_len]`): one batched pass, no cache.
    ///
    /// # Shapes
    /// returns `[batch][tgt_vocab]`.
    pub(super) async fn next_log_probs(
        &self,
        sources: &[u32],
        prefixes: &[u32],
        batch: usize,
    ) -> Result<Vec<Vec<f64>>> {
        let (model, packed) = (&self.loaded.model, self.packed.as_ref());
        let encoded = model.encode_packed(self.ids_tensor(sources, batch), None, packed);
        let cross = model.cross_key_values_packed(encoded.memory, packed);
        let tgt = self.ids_tensor(prefixes, batch);
        let len = prefixes.len() / batch.max(1);
        let logits = model
            .decode_projected(tgt, &cross, &encoded.padding_mask, packed)
            .logits; // [batch, len, vocab]
        let last = logits.narrow(1, len - 1, 1); // [batch, 1, vocab]
        let values = read_back(vec![flat(last)]).await?.concat();
        Ok(values
            .chunks(self.loaded.config.tgt_vocab_size)
            .map(log_probabilities)
            .collect())
    }

    /// The decoder over every input position decoded so far (causal mask), up to the probed
    /// layer only, reading the cross-attention keys and values the session already holds.
    pub(super) fn decode_through(
        &self,
        state: &Decoding,
        probe: Probe,
    ) -> Result<Option<DecoderLayerAttention>> {
        let tgt = self.decoder_inputs(state)?;
        Ok(self.loaded.model.decode_through(
            tgt,
            &state.cross,
            &state.encoded.padding_mask,
            probe,
            self.packed.as_ref(),
        ))
    }

    /// Every input position decoded so far (`<s>` and the tokens before the last), `[1, rows]`;
    /// `NothingDecoded` before the first step.
    pub(super) fn decoder_inputs(&self, state: &Decoding) -> Result<Tensor<2, Int>> {
        let rows = state.trace.rows();
        if rows == 0 {
            return Err(Error::NothingDecoded);
        }
        Ok(self.ids_tensor(&state.trace.tgt_ids[..rows], 1))
    }
}
