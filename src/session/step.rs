//! Decoding and editing the output one step at a time: the model's choice or a forced token,
//! undo, reset, a typed prefix. Each step reads back one flat tensor (logits and every
//! attention row together).

use super::readback::{flat, read_back};
use super::sampling::{next_token, probabilities, top_k};
use super::{output_text, Session, CANDIDATES};
use crate::error::{Error, Result};
use crate::text::calendar::impossible_iso_date;
use crate::trace::{Candidate, Step, Trace};

impl Session {
    /// Decode one more token (the model's choice).
    pub async fn step(&mut self) -> Result<&Step> {
        self.step_with(None).await
    }

    /// An error unless `id` is in the target vocabulary.
    pub(super) fn check_target_id(&self, id: u32) -> Result<()> {
        if id as usize >= self.loaded.config.tgt_vocab_size {
            return Err(Error::UnknownToken(format!("id {id}")));
        }
        Ok(())
    }

    /// Decode one more token; `forced` replaces the model's choice with a given target id.
    pub async fn step_with(&mut self, forced: Option<u32>) -> Result<&Step> {
        if let Some(id) = forced {
            self.check_target_id(id)?;
        }
        let config = &self.loaded.config;
        let trace = self.trace()?;
        if let Some(reason) = Self::finish_reason(config, trace) {
            return Err(Error::Finished(reason));
        }
        if !config.causal_decoder {
            return self.step_unmasked(forced).await;
        }
        let position = trace.rows();
        let length = trace.tgt_ids.len();
        let input = self.ids_tensor(&trace.tgt_ids[position..], 1);
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        let saved_cache = state.cache.clone();
        let output = self.loaded.model.decode_step(
            input,
            position,
            &state.cross,
            &state.encoded.padding_mask,
            &mut state.cache,
            self.packed.as_ref(),
        );
        let mut parts = vec![flat(output.logits)];
        parts.extend(
            output
                .attention
                .iter()
                .map(|a| flat(a.self_attention.weights.clone())),
        );
        parts.extend(
            output
                .attention
                .iter()
                .map(|a| flat(a.cross_attention.weights.clone())),
        );
        let data = match read_back(parts).await {
            Ok(data) => data,
            Err(error) => {
                state.cache = saved_cache;
                return Err(error);
            }
        };
        let layers = config.n_decoder_layers;
        let mut data = data.into_iter();
        let logits = data.next().unwrap_or_default();
        let self_row = data.by_ref().take(layers).collect::<Vec<_>>().concat();
        let cross_row = data.collect::<Vec<_>>().concat();
        let step = self.next_step(&logits, forced, position, length);
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        state.trace.push_step(step, &self_row, &cross_row);
        self.last_step()
    }

    /// The step at `position` after `logits` (the last position's, of an output `length` ids
    /// long): the model's choice, or `forced`.
    fn next_step(
        &mut self,
        logits: &[f32],
        forced: Option<u32>,
        position: usize,
        length: usize,
    ) -> Step {
        let config = &self.loaded.config;
        let id = match forced {
            Some(id) => id,
            None => next_token(
                logits,
                &config.never_generated_at(length),
                &self.sampling,
                &mut self.rng,
            ),
        };
        Step {
            position,
            id,
            token: self.target_text(id),
            forced: forced.is_some(),
            candidates: self.candidates(logits),
        }
    }

    /// After a step was pushed: the trace's derived fields brought up to date, and the step.
    fn last_step(&mut self) -> Result<&Step> {
        self.after_change()?;
        let trace = self.trace()?;
        trace
            .steps
            .last()
            .ok_or(Error::Invariant("a step was pushed and is not there"))
    }

    /// One more token from a decoder without its causal mask (a playground switch): each
    /// earlier position now sees the later ones, so every row changes with each new token and a
    /// key/value cache would keep stale ones. The whole prefix is decoded again, and its pass
    /// replaces the trace's decoder attention.
    async fn step_unmasked(&mut self, forced: Option<u32>) -> Result<&Step> {
        let state = self.state.as_ref().ok_or(Error::NotStarted)?;
        let position = state.trace.rows();
        let length = state.trace.tgt_ids.len();
        let (self_attention, cross, logits) = self.decode_ids(state, &state.trace.tgt_ids).await?;
        let vocab = self.loaded.config.tgt_vocab_size;
        let last = logits
            .get((length - 1) * vocab..length * vocab)
            .ok_or(Error::Invariant("a full pass read back too few logits"))?;
        let step = self.next_step(last, forced, position, length);
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        state.trace.push_full_pass_step(step, self_attention, cross);
        self.last_step()
    }

    /// A decoder without its causal mask: after the output was cut, the pass over what is left
    /// replaces the rows of the longer one (see [`Self::step_unmasked`]).
    async fn settle_unmasked(&mut self) -> Result<()> {
        let rows = self.trace()?.rows();
        if self.loaded.config.causal_decoder || rows == 0 {
            return Ok(());
        }
        let (self_attention, cross, _) = self.recompute_decoder().await?;
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        state.trace.set_full_pass(self_attention, cross);
        Ok(())
    }

    /// The most probable next tokens after `logits` (at temperature 1), as each step lists
    /// them and the journey's last layer shows them.
    pub(super) fn candidates(&self, logits: &[f32]) -> Vec<Candidate> {
        let probs = probabilities(logits, 1.0);
        top_k(&probs, CANDIDATES)
            .into_iter()
            .map(|i| Candidate {
                id: i as u32,
                token: self.target_text(i as u32),
                probability: probs[i],
            })
            .collect()
    }

    /// Bring the trace's derived fields (output text, impossible date, finished) up to date.
    fn after_change(&mut self) -> Result<()> {
        let config = &self.loaded.config;
        let tokenizer = &self.loaded.tgt_tokenizer;
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        let trace = &mut state.trace;
        trace.finished = Self::finish_reason(config, trace).is_some();
        trace.output = output_text(config, tokenizer, &trace.tgt_ids);
        trace.impossible_date = impossible_iso_date(&trace.output);
        Ok(())
    }

    /// Keep the first `steps` steps (the key/value cache shrinks with them).
    pub fn truncate(&mut self, steps: usize) -> Result<()> {
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        if steps > state.trace.rows() {
            return Err(Error::OutOfRange {
                what: "step",
                index: steps,
                len: state.trace.rows() + 1,
            });
        }
        state.trace.truncate(steps);
        state.cache = state
            .cache
            .drain(..)
            .map(|slot| slot.filter(|_| steps > 0).map(|kv| kv.truncate(steps)))
            .collect();
        self.after_change()
    }

    /// Undo the last step.
    pub async fn back(&mut self) -> Result<()> {
        let rows = self.trace()?.rows();
        if rows == 0 {
            return Err(Error::AtStart);
        }
        self.truncate(rows - 1)?;
        self.settle_unmasked().await
    }

    /// Back to the start token, keeping the encoded source.
    pub fn reset(&mut self) -> Result<()> {
        self.truncate(0)
    }

    /// Keep `index` steps and force `id` as the next one (a clicked candidate). Nothing changes
    /// when `id` or `index` cannot be used.
    pub async fn force(&mut self, index: usize, id: u32) -> Result<&Step> {
        self.check_target_id(id)?;
        self.truncate(index)?;
        self.step_with(Some(id)).await
    }

    /// Replace the last token with `id`; later steps continue from it.
    pub async fn replace_last(&mut self, id: u32) -> Result<&Step> {
        let rows = self.trace()?.rows();
        if rows == 0 {
            return Err(Error::AtStart);
        }
        self.force(rows - 1, id).await
    }

    /// Replace the output with `prefix` (target text, tokenized) and stop there; `step` continues.
    pub async fn set_prefix(&mut self, prefix: &str) -> Result<()> {
        let encoded = self.loaded.tgt_tokenizer.encode(prefix)?;
        if let Some(unknown) = encoded.unknown.iter().position(|&u| u) {
            return Err(Error::UnknownToken(encoded.tokens[unknown].clone()));
        }
        self.set_prefix_ids(&encoded.ids).await
    }

    /// Replace the output with the given target ids.
    pub async fn set_prefix_ids(&mut self, ids: &[u32]) -> Result<()> {
        self.reset()?;
        for &id in ids {
            self.step_with(Some(id)).await?;
        }
        Ok(())
    }

    /// Step until the end token or the length limit; returns how many steps were taken.
    pub async fn run_to_end(&mut self) -> Result<usize> {
        let mut taken = 0;
        while !self.finished() {
            self.step().await?;
            taken += 1;
        }
        Ok(taken)
    }

    /// Start, decode to the end, and return the trace.
    pub async fn translate(&mut self, text: &str) -> Result<&Trace> {
        self.start(text).await?;
        self.run_to_end().await?;
        self.trace()
    }
}
