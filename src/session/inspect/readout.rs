//! The read-back vectors put in place: one flat vector per tensor becomes the journey, split
//! per head where the model splits it.

use super::{causal_row, AttentionReads, FeedForwardReads, Inspect, Keys, LayerReads};
use crate::session::{Decoding, Session};
use crate::trace::journey::{
    mean_std, AttentionJourney, FeedForwardJourney, HeadJourney, Journey, NormPlacement, Stack,
};
use crate::trace::{Flags, Floats};

/// The read-back vectors, taken out one by one.
pub(super) struct Values(pub(super) Vec<Vec<f32>>);

impl Values {
    fn take(&mut self, index: usize) -> Vec<f32> {
        self.0
            .get_mut(index)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn floats(&mut self, index: usize) -> Floats {
        Floats(self.take(index))
    }

    fn maybe(&mut self, index: Option<usize>) -> Option<Floats> {
        index.map(|i| self.floats(i))
    }
}

impl Session {
    /// Put the read-back vectors in place.
    pub(super) fn journey(
        &self,
        state: &Decoding,
        request: Inspect,
        plan: LayerReads,
        mut values: Values,
    ) -> Journey {
        let config = &self.loaded.config;
        let trace = &state.trace;
        let source = Keys {
            tokens: trace.src_tokens.clone(),
            masked: trace.padding_mask.expand(1),
        };
        let (layers, heads, d_ff, token, token_id, self_keys) = match request.stack {
            Stack::Encoder => (
                config.n_encoder_layers,
                config.encoder_heads(),
                config.encoder_d_ff(),
                trace.src_tokens[request.position].clone(),
                trace.src_ids[request.position],
                source.clone(),
            ),
            Stack::Decoder => {
                let rows = trace.rows();
                let causal = causal_row(&trace.causal_mask, request.position);
                (
                    config.n_decoder_layers,
                    config.decoder_heads(),
                    config.decoder_d_ff(),
                    trace.tgt_tokens[request.position].clone(),
                    trace.tgt_ids[request.position],
                    Keys {
                        tokens: trace.tgt_tokens[..rows].to_vec(),
                        masked: causal.hidden.0,
                    },
                )
            }
        };
        let (embedding, positional) = match plan.embedding {
            Some((e, p)) => (Some(values.floats(e)), Some(values.floats(p))),
            None => (None, None),
        };
        let logits = values.maybe(plan.logits);
        let top = logits.as_ref().map(|l| self.candidates(l));
        Journey {
            stack: request.stack,
            layer: request.layer,
            layers,
            position: request.position,
            token,
            token_id,
            d_model: config.d_model,
            heads,
            d_k: config.d_model / heads.max(1),
            d_ff,
            norm: if config.norm_first {
                NormPlacement::Pre
            } else {
                NormPlacement::Post
            },
            activation: config.activation,
            layer_norm_eps: config.layer_norm_eps,
            embed_scale: self.loaded.model.embedding_scale(),
            input: values.floats(plan.input),
            embedding,
            positional,
            self_attention: attention_journey(&mut values, plan.self_attention, self_keys, heads),
            cross_attention: plan
                .cross_attention
                .map(|reads| attention_journey(&mut values, reads, source, heads)),
            feed_forward: feed_forward_journey(&mut values, plan.feed_forward),
            output: values.floats(plan.output),
            final_norm: values.maybe(plan.final_norm),
            logits,
            top,
        }
    }
}

/// One attention sub-layer's vectors, split per head.
fn attention_journey(
    values: &mut Values,
    reads: AttentionReads,
    keys: Keys,
    heads: usize,
) -> AttentionJourney {
    let (residual, normed, (mean, std)) =
        residual_and_norm(values, reads.sub_input, reads.residual, reads.normed);
    let per_head = |v: Vec<f32>| -> Vec<Floats> {
        let size = (v.len() / heads.max(1)).max(1);
        v.chunks(size).map(|c| Floats(c.to_vec())).collect()
    };
    let mut q = per_head(values.take(reads.q)).into_iter();
    let mut k = per_head(values.take(reads.keys)).into_iter();
    let mut v = per_head(values.take(reads.values)).into_iter();
    let mut scores = per_head(values.take(reads.scores)).into_iter();
    let mut scaled = per_head(values.take(reads.scaled)).into_iter();
    let mut weights = per_head(values.take(reads.weights)).into_iter();
    let mut outputs = per_head(values.take(reads.outputs)).into_iter();
    let mut next = move || HeadJourney {
        q: q.next().unwrap_or_default(),
        keys: k.next().unwrap_or_default(),
        values: v.next().unwrap_or_default(),
        scores: scores.next().unwrap_or_default(),
        scaled: scaled.next().unwrap_or_default(),
        weights: weights.next().unwrap_or_default(),
        output: outputs.next().unwrap_or_default(),
    };
    AttentionJourney {
        k_len: keys.tokens.len(),
        key_tokens: keys.tokens,
        masked: Flags(keys.masked),
        normed_input: values.maybe(reads.normed_input),
        heads: (0..heads).map(|_| next()).collect(),
        concat: values.floats(reads.concat),
        projected: values.floats(reads.projected),
        residual,
        normed,
        mean,
        std,
    }
}

/// The feed-forward sub-layer's vectors.
fn feed_forward_journey(values: &mut Values, reads: FeedForwardReads) -> FeedForwardJourney {
    let (residual, normed, (mean, std)) =
        residual_and_norm(values, reads.sub_input, reads.residual, reads.normed);
    let hidden = values.take(reads.hidden);
    FeedForwardJourney {
        normed_input: values.maybe(reads.normed_input),
        zeros: hidden.iter().filter(|&&h| h == 0.0).count(),
        hidden: Floats(hidden),
        projected: values.floats(reads.projected),
        residual,
        normed,
        mean,
        std,
    }
}

/// A sub-layer's residual sum and (post-norm) its LayerNorm, with the mean and standard
/// deviation of what its LayerNorm normalises: the residual sum after the sub-layer (post-norm)
/// or the sub-layer's input before it (pre-norm).
fn residual_and_norm(
    values: &mut Values,
    sub_input: usize,
    residual: usize,
    normed: Option<usize>,
) -> (Floats, Option<Floats>, (f32, f32)) {
    let sub_input = values.take(sub_input);
    let residual = values.take(residual);
    let normed = values.maybe(normed);
    let stats = mean_std(if normed.is_some() {
        &residual
    } else {
        &sub_input
    });
    (Floats(residual), normed, stats)
}
