//! A session owns a loaded model and its device, and decodes one sentence step by step. Its
//! trace grows with every step and shrinks with every step undone; nothing rebuilds it.
//!
//! Every method that reads numbers back from the device is `async` and reads with
//! `into_data_async` only, so the same code runs on the CPU and on WebGPU in a browser.
//! Each step reads back one flat tensor (logits and every attention row together).

mod answer;
mod attribution;
mod batch;
mod beam;
mod readback;
pub mod sampling;
mod source;
mod stages;

pub use answer::Answer;
pub use attribution::Attribution;
pub use batch::PaddedBatch;
pub use beam::{length_penalty, BeamFinal, BeamNode, BeamSearch, MAX_BEAM_WIDTH};
pub use stages::{masked_softmax, mean_row_entropy, Focus, HeadStages};

use burn::tensor::{Device, Int, Tensor, TensorData};

use self::readback::{flat, read_back};
use crate::error::{Error, Result};
use crate::files::folder::{LoadedModel, ModelFiles};
use crate::model::config::ModelConfig;
use crate::model::masks::Mask;
use crate::model::positional::PositionalTable;
use crate::model::{DecoderOutput, EncoderOutput, KeyValue, Probe};
use crate::session::sampling::{
    log_probabilities, next_token, probabilities, top_k, Rng, Sampling,
};
use crate::text::{join_pieces, visible};
use crate::trace::{AttentionStack, Candidate, Started, Step, Trace};

/// How many candidates each step reports.
const CANDIDATES: usize = 5;

/// The sentence being decoded: device state and the trace so far.
struct Decoding {
    text: String,
    src: Tensor<2, Int>,
    encoded: EncoderOutput,
    cross: Vec<KeyValue>,
    cache: Vec<Option<KeyValue>>,
    trace: Trace,
}

/// Step-by-step decoding of one sentence at a time.
pub struct Session {
    loaded: LoadedModel,
    device: Device,
    sampling: Sampling,
    rng: Rng,
    state: Option<Decoding>,
}

impl Session {
    /// A session over a loaded model, greedy by default.
    pub fn new(loaded: LoadedModel, device: Device) -> Self {
        Self {
            loaded,
            device,
            sampling: Sampling::Greedy,
            rng: Rng::new(0),
            state: None,
        }
    }

    /// Load the files onto `device` and open a session.
    pub fn load(files: ModelFiles<'_>, device: Device) -> Result<Self> {
        Ok(Self::new(LoadedModel::load(files, &device)?, device))
    }

    /// The model's config.
    pub fn config(&self) -> &ModelConfig {
        &self.loaded.config
    }

    /// The model's positional-encoding table.
    pub fn positional(&self) -> &PositionalTable {
        &self.loaded.positional
    }

    /// Set how tokens are chosen; a sampling seed restarts the generator.
    pub fn set_sampling(&mut self, sampling: Sampling) -> Result<()> {
        sampling.validate()?;
        if let Sampling::Sample { seed, .. } = sampling {
            self.rng = Rng::new(seed);
        }
        self.sampling = sampling;
        Ok(())
    }

    /// Put another set of weights for the same model in place (a training snapshot), keeping
    /// the structure. A file that does not fit the config is rejected before anything changes.
    /// The sentence being decoded is dropped (it was decoded with the old weights); its text is
    /// returned so the caller can decode it again.
    pub fn replace_weights(&mut self, bytes: &[u8]) -> Result<Option<String>> {
        let loaded = &mut self.loaded;
        crate::files::weights::replace_weights(
            &loaded.config,
            &mut loaded.model,
            bytes,
            &self.device,
        )?;
        Ok(self.state.take().map(|s| s.text))
    }

    fn ids_tensor(&self, ids: &[u32], batch: usize) -> Tensor<2, Int> {
        let values: Vec<i64> = ids.iter().map(|&id| id as i64).collect();
        let len = values.len() / batch.max(1);
        Tensor::from_data(TensorData::new(values, [batch, len]), &self.device)
    }

    /// Encode a sentence and get ready to decode it.
    pub async fn start(&mut self, text: &str) -> Result<&Trace> {
        let source = self.tokenize_source(text)?;
        let src = self.ids_tensor(&source.ids, 1);
        let encoded = self.loaded.model.encode(src.clone(), None);
        let config = &self.loaded.config;
        let len = source.ids.len();
        let parts = encoded
            .attention
            .iter()
            .map(|a| flat(a.weights.clone()))
            .collect();
        let data = read_back(parts).await?.concat();
        let (layers, heads) = (config.n_encoder_layers, config.encoder_heads());
        let encoder_self_attention = AttentionStack::new(layers, heads, len, len, data);
        let cross = self.loaded.model.cross_key_values(encoded.memory.clone());
        let trace = Trace::new(Started {
            model: config.name.clone(),
            padding_mask: Mask::padding(&source.ids, config.pad_id),
            source,
            encoder_self_attention,
            decoder_layers: config.n_decoder_layers,
            decoder_heads: config.decoder_heads(),
            start_token: (config.bos_id, self.target_text(config.bos_id)),
        });
        self.state = Some(Decoding {
            text: text.to_string(),
            src,
            encoded,
            cross,
            cache: vec![None; config.n_decoder_layers],
            trace,
        });
        self.trace()
    }

    fn state(&self) -> Result<&Decoding> {
        self.state.as_ref().ok_or(Error::NotStarted)
    }

    /// Everything decoded so far.
    pub fn trace(&self) -> Result<&Trace> {
        Ok(&self.state()?.trace)
    }

    /// Whether the last token is `</s>` or there is no position left.
    pub fn finished(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.trace.finished)
    }

    fn finish_reason(config: &ModelConfig, trace: &Trace) -> Option<&'static str> {
        if trace.steps.last().map(|s| s.id) == Some(config.eos_id) {
            Some("the end token was produced")
        } else if trace.tgt_ids.len() >= config.max_len {
            Some("the output reached the model's maximum length")
        } else {
            None
        }
    }

    /// Decode one more token (the model's choice).
    pub async fn step(&mut self) -> Result<&Step> {
        self.step_with(None).await
    }

    /// An error unless `id` is in the target vocabulary.
    fn check_target_id(&self, id: u32) -> Result<()> {
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
        let position = trace.rows();
        let input = self.ids_tensor(&trace.tgt_ids[position..], 1);
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        let saved_cache = state.cache.clone();
        let output = self.loaded.model.decode_step(
            input,
            position,
            &state.cross,
            &state.encoded.padding_mask,
            &mut state.cache,
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
        let id = match forced {
            Some(id) => id,
            None => next_token(
                &logits,
                &config.never_generated(),
                &self.sampling,
                &mut self.rng,
            ),
        };
        let tokenizer = &self.loaded.tgt_tokenizer;
        let text = |id: u32| target_text(tokenizer, id);
        let probs = probabilities(&logits, 1.0);
        let candidates = top_k(&probs, CANDIDATES)
            .into_iter()
            .map(|i| Candidate {
                id: i as u32,
                token: text(i as u32),
                probability: probs[i],
            })
            .collect();
        let step = Step {
            position,
            id,
            token: text(id),
            forced: forced.is_some(),
            candidates,
        };
        state.trace.push_step(step, &self_row, &cross_row);
        self.after_change()?;
        let trace = self.trace()?;
        trace
            .steps
            .last()
            .ok_or(Error::Invariant("a step was pushed and is not there"))
    }

    /// Bring the trace's derived fields (output text, finished) up to date.
    fn after_change(&mut self) -> Result<()> {
        let config = &self.loaded.config;
        let tokenizer = &self.loaded.tgt_tokenizer;
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        let trace = &mut state.trace;
        trace.finished = Self::finish_reason(config, trace).is_some();
        let never = [config.bos_id, config.eos_id, config.pad_id];
        let pieces: Vec<String> = trace
            .tgt_ids
            .iter()
            .filter(|id| !never.contains(id))
            .map(|&id| target_text(tokenizer, id))
            .collect();
        trace.output = join_pieces(pieces.iter().map(String::as_str), &config.tgt_joiner);
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
    pub fn back(&mut self) -> Result<()> {
        let rows = self.trace()?.rows();
        if rows == 0 {
            return Err(Error::AtStart);
        }
        self.truncate(rows - 1)
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

    /// The text of a target id.
    pub fn target_text(&self, id: u32) -> String {
        target_text(&self.loaded.tgt_tokenizer, id)
    }

    /// The output so far as text (without special tokens).
    pub fn output(&self) -> String {
        self.state
            .as_ref()
            .map(|s| s.trace.output.clone())
            .unwrap_or_default()
    }

    /// Recompute the decoder over the whole prefix at once (no cache): decoder self-attention
    /// and cross-attention stacks, and the logits of every position `[rows, tgt_vocab]`.
    /// Equal to the step-by-step trace; used to check the cache and to time a full re-decode.
    pub async fn recompute_decoder(&self) -> Result<(AttentionStack, AttentionStack, Vec<f32>)> {
        let state = self.state()?;
        let config = &self.loaded.config;
        let rows = state.trace.rows();
        let output = self.decode_prefix(state)?;
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
    async fn next_log_probs(
        &self,
        sources: &[u32],
        prefixes: &[u32],
        batch: usize,
    ) -> Result<Vec<Vec<f64>>> {
        let encoded = self
            .loaded
            .model
            .encode(self.ids_tensor(sources, batch), None);
        let tgt = self.ids_tensor(prefixes, batch);
        let len = prefixes.len() / batch.max(1);
        let logits = self.loaded.model.decode(tgt, &encoded, None).logits; // [batch, len, vocab]
        let last = logits.narrow(1, len - 1, 1); // [batch, 1, vocab]
        let values = read_back(vec![flat(last)]).await?.concat();
        Ok(values
            .chunks(self.loaded.config.tgt_vocab_size)
            .map(log_probabilities)
            .collect())
    }

    /// The decoder over every input position decoded so far (causal mask), up to the probed
    /// layer only, reading the cross-attention keys and values the session already holds.
    fn decode_through(
        &self,
        state: &Decoding,
        probe: Probe,
    ) -> Result<Option<crate::model::DecoderLayerAttention>> {
        let tgt = self.decoder_inputs(state)?;
        Ok(self
            .loaded
            .model
            .decode_through(tgt, &state.cross, &state.encoded.padding_mask, probe))
    }

    /// The decoder over every input position decoded so far, in one pass (causal mask).
    fn decode_prefix(&self, state: &Decoding) -> Result<DecoderOutput> {
        let tgt = self.decoder_inputs(state)?;
        Ok(self.loaded.model.decode(tgt, &state.encoded, None))
    }

    /// Every input position decoded so far (`<s>` and the tokens before the last), `[1, rows]`;
    /// `NothingDecoded` before the first step.
    fn decoder_inputs(&self, state: &Decoding) -> Result<Tensor<2, Int>> {
        let rows = state.trace.rows();
        if rows == 0 {
            return Err(Error::NothingDecoded);
        }
        Ok(self.ids_tensor(&state.trace.tgt_ids[..rows], 1))
    }
}

/// The display text of a target id (`#id` for an id the vocabulary lacks).
fn target_text(tokenizer: &crate::text::TextTokenizer, id: u32) -> String {
    tokenizer
        .token(id)
        .map(visible)
        .unwrap_or_else(|| format!("#{id}"))
}
