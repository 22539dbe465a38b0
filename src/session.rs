//! A session owns a model, its tokenizers and its device, and decodes one sentence step by step.
//!
//! Every method that reads numbers back from the device is `async` and reads with
//! `into_data_async` only, so the same code runs on the CPU and on WebGPU in a browser.
//! Each step reads back one flat tensor (logits and every attention row together).

use burn::tensor::{Device, Int, Tensor, TensorData};

use crate::config::ModelConfig;
use crate::error::{Error, Result};
use crate::model::{DecoderOutput, EncoderOutput, KeyValue, Probe, Transformer};
use crate::positional::sinusoidal_table;
use crate::sampling::{choose, probabilities, top_k, Rng, Sampling};
use crate::tokenizer::{visible, TextTokenizer};
use crate::trace::{
    masked_softmax, mean_row_entropy, AttentionKind, AttentionStack, Candidate, Pipeline, Source,
    Step, Trace, Truncation,
};
use crate::weights::load_model;

/// The files of a model folder, as bytes.
#[derive(Clone, Copy, Debug)]
pub struct ModelFiles<'a> {
    /// `config.json`.
    pub config: &'a [u8],
    /// `model.safetensors`.
    pub weights: &'a [u8],
    /// `src_tokenizer.json`.
    pub src_tokenizer: &'a [u8],
    /// `tgt_tokenizer.json`.
    pub tgt_tokenizer: &'a [u8],
}

/// A loaded model ready to run.
#[derive(Clone, Debug)]
pub struct LoadedModel {
    /// Hyper-parameters.
    pub config: ModelConfig,
    /// Weights on the device.
    pub model: Transformer,
    /// Source tokenizer.
    pub src_tokenizer: TextTokenizer,
    /// Target tokenizer.
    pub tgt_tokenizer: TextTokenizer,
}

impl LoadedModel {
    /// Validate and load every file; any problem is a typed error, never a panic.
    pub fn load(files: ModelFiles<'_>, device: &Device) -> Result<Self> {
        let text =
            std::str::from_utf8(files.config).map_err(|e| Error::ConfigParse(e.to_string()))?;
        let config = ModelConfig::from_json(text)?;
        let src_tokenizer = TextTokenizer::from_bytes(files.src_tokenizer, "src_tokenizer.json")?;
        let tgt_tokenizer = TextTokenizer::from_bytes(files.tgt_tokenizer, "tgt_tokenizer.json")?;
        for (side, tokenizer, size) in [
            ("source", &src_tokenizer, config.src_vocab_size),
            ("target", &tgt_tokenizer, config.tgt_vocab_size),
        ] {
            if tokenizer.vocab_size() != size {
                return Err(Error::TokenizerMismatch(format!(
                    "the {side} tokenizer has {} tokens, config.json says {size}",
                    tokenizer.vocab_size()
                )));
            }
        }
        let model = load_model(&config, files.weights, device)?;
        Ok(Self {
            config,
            model,
            src_tokenizer,
            tgt_tokenizer,
        })
    }
}

/// What one decoding step returns.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepResult {
    /// The token chosen and the candidates.
    pub step: Step,
    /// This position's decoder self-attention row: `[layers, heads, 1, position + 1]`.
    pub decoder_self_attention: AttentionStack,
    /// This position's cross-attention row: `[layers, heads, 1, src_len]`.
    pub cross_attention: AttentionStack,
    /// Whether decoding has ended (end token, or no room left).
    pub finished: bool,
}

struct StepRecord {
    step: Step,
    self_rows: AttentionStack,
    cross_rows: AttentionStack,
}

struct Decoding {
    source: Source,
    src: Tensor<2, Int>,
    encoded: EncoderOutput,
    cross: Vec<KeyValue>,
    cache: Vec<Option<KeyValue>>,
    encoder_attention: AttentionStack,
    tgt_ids: Vec<u32>,
    steps: Vec<StepRecord>,
}

/// Step-by-step decoding of one sentence at a time.
pub struct Session {
    loaded: LoadedModel,
    positional: Vec<f32>,
    device: Device,
    sampling: Sampling,
    rng: Rng,
    candidates: usize,
    state: Option<Decoding>,
}

/// Read a list of tensors back in one transfer, as one flat vector each.
async fn read_back(parts: Vec<Tensor<1>>) -> Result<Vec<Vec<f32>>> {
    let lengths: Vec<usize> = parts.iter().map(|t| t.dims()[0]).collect();
    let flat = Tensor::cat(parts, 0);
    let data = flat
        .into_data_async()
        .await
        .map_err(|e| Error::Backend(format!("{e:?}")))?;
    let values: Vec<f32> = data
        .try_into_vec::<f32>()
        .map_err(|e| Error::Backend(format!("{e:?}")))?;
    let mut out = Vec::with_capacity(lengths.len());
    let mut offset = 0;
    for length in lengths {
        out.push(
            values
                .get(offset..offset + length)
                .ok_or_else(|| Error::Backend("short readback".into()))?
                .to_vec(),
        );
        offset += length;
    }
    Ok(out)
}

fn flat<const D: usize>(tensor: Tensor<D>) -> Tensor<1> {
    let n: usize = tensor.dims().iter().product();
    tensor.reshape([n])
}

fn stack(
    layers: usize,
    heads: usize,
    queries: usize,
    keys: usize,
    parts: Vec<Vec<f32>>,
) -> AttentionStack {
    AttentionStack {
        layers,
        heads,
        queries,
        keys,
        data: parts.concat(),
    }
}

impl Session {
    /// A session over a loaded model, greedy by default, showing 5 candidates per step.
    pub fn new(loaded: LoadedModel, device: Device) -> Self {
        let positional = sinusoidal_table(loaded.config.max_len, loaded.config.d_model);
        Self {
            loaded,
            positional,
            device,
            sampling: Sampling::Greedy,
            rng: Rng::new(0),
            candidates: 5,
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

    /// The model and tokenizers.
    pub fn loaded(&self) -> &LoadedModel {
        &self.loaded
    }

    /// The device in use.
    pub fn device(&self) -> &Device {
        &self.device
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

    /// How many candidates each step reports (1..=50).
    pub fn set_candidates(&mut self, count: usize) {
        self.candidates = count.clamp(1, 50);
    }

    /// Tokenize a source text, cut to fit `max_len` (keeping room for `</s>`).
    pub fn tokenize_source(&self, text: &str) -> Result<Source> {
        let encoded = self.loaded.src_tokenizer.encode(text)?;
        if encoded.ids.is_empty() {
            return Err(Error::EmptyInput);
        }
        let room = self.loaded.config.max_len - 1;
        let total = encoded.ids.len();
        let truncation = (total > room).then(|| {
            let cut_at_byte = encoded.spans[room].0;
            Truncation {
                total_tokens: total,
                kept_tokens: room,
                cut_at_byte,
                cut_at_char: text
                    .get(..cut_at_byte)
                    .map(|s| s.chars().count())
                    .unwrap_or(0),
            }
        });
        let keep = total.min(room);
        let eos = self.loaded.config.eos_id;
        let mut ids = encoded.ids[..keep].to_vec();
        let mut tokens = encoded.tokens[..keep].to_vec();
        let mut unknown = encoded.unknown[..keep].to_vec();
        ids.push(eos);
        tokens.push(self.target_text(eos));
        unknown.push(false);
        Ok(Source {
            ids,
            tokens,
            unknown,
            truncation,
        })
    }

    fn ids_tensor(&self, ids: &[u32], batch: usize) -> Tensor<2, Int> {
        let values: Vec<i64> = ids.iter().map(|&id| id as i64).collect();
        let len = values.len() / batch.max(1);
        Tensor::from_data(TensorData::new(values, [batch, len]), &self.device)
    }

    /// Encode a sentence and get ready to decode it. Returns the source tokens.
    pub async fn start(&mut self, text: &str) -> Result<Source> {
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
        let data = read_back(parts).await?;
        let encoder_attention = stack(config.n_encoder_layers, config.n_heads, len, len, data);
        let cross = self.loaded.model.cross_key_values(encoded.memory.clone());
        self.state = Some(Decoding {
            source: source.clone(),
            src,
            encoded,
            cross,
            cache: vec![None; config.n_decoder_layers],
            encoder_attention,
            tgt_ids: vec![config.bos_id],
            steps: vec![],
        });
        Ok(source)
    }

    fn state(&self) -> Result<&Decoding> {
        self.state.as_ref().ok_or(Error::NotStarted)
    }

    /// Whether the last token is `</s>` or there is no position left.
    pub fn finished(&self) -> bool {
        match &self.state {
            Some(state) => self.finish_reason(state).is_some(),
            None => false,
        }
    }

    fn finish_reason(&self, state: &Decoding) -> Option<&'static str> {
        if state.steps.last().map(|s| s.step.id) == Some(self.loaded.config.eos_id) {
            Some("the end token was produced")
        } else if state.tgt_ids.len() >= self.loaded.config.max_len {
            Some("the output reached the model's maximum length")
        } else {
            None
        }
    }

    /// Decode one more token (the model's choice).
    pub async fn step(&mut self) -> Result<StepResult> {
        self.step_with(None).await
    }

    /// Decode one more token; `forced` replaces the model's choice with a given target id.
    pub async fn step_with(&mut self, forced: Option<u32>) -> Result<StepResult> {
        if let Some(id) = forced {
            if id as usize >= self.loaded.config.tgt_vocab_size {
                return Err(Error::UnknownToken(format!("id {id}")));
            }
        }
        let state = self.state.as_ref().ok_or(Error::NotStarted)?;
        if let Some(reason) = self.finish_reason(state) {
            return Err(Error::Finished(reason));
        }
        let position = state.tgt_ids.len() - 1;
        let input = self.ids_tensor(&state.tgt_ids[position..], 1);
        let config = self.loaded.config.clone();
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
                if let Some(state) = self.state.as_mut() {
                    state.cache = saved_cache;
                }
                return Err(error);
            }
        };
        let layers = config.n_decoder_layers;
        let mut data = data.into_iter();
        let logits = data.next().unwrap_or_default();
        let self_rows: Vec<Vec<f32>> = data.by_ref().take(layers).collect();
        let cross_rows: Vec<Vec<f32>> = data.collect();
        let probs = probabilities(&logits, 1.0);
        let candidates = top_k(&probs, self.candidates)
            .into_iter()
            .map(|i| Candidate {
                id: i as u32,
                token: self.target_text(i as u32),
                probability: probs[i],
            })
            .collect();
        let id = match forced {
            Some(id) => id,
            None => {
                // Never choose <pad> or <s>: they are not tokens a translation can contain.
                let mut allowed = logits.clone();
                for special in [config.pad_id, config.bos_id] {
                    if let Some(l) = allowed.get_mut(special as usize) {
                        *l = f32::NEG_INFINITY;
                    }
                }
                choose(&allowed, &self.sampling, &mut self.rng) as u32
            }
        };
        let step = Step {
            position,
            id,
            token: self.target_text(id),
            forced: forced.is_some(),
            candidates,
        };
        let src_len = self.state()?.source.ids.len();
        let record = StepRecord {
            step: step.clone(),
            self_rows: stack(layers, config.n_heads, 1, position + 1, self_rows),
            cross_rows: stack(layers, config.n_heads, 1, src_len, cross_rows),
        };
        let result = StepResult {
            step,
            decoder_self_attention: record.self_rows.clone(),
            cross_attention: record.cross_rows.clone(),
            finished: false,
        };
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        state.tgt_ids.push(id);
        state.steps.push(record);
        let finished = self.finished();
        Ok(StepResult { finished, ..result })
    }

    /// Undo the last step.
    pub fn back(&mut self) -> Result<()> {
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        if state.steps.pop().is_none() {
            return Err(Error::AtStart);
        }
        state.tgt_ids.pop();
        let keep = state.steps.len();
        state.cache = state
            .cache
            .drain(..)
            .map(|slot| slot.filter(|_| keep > 0).map(|kv| kv.truncate(keep)))
            .collect();
        Ok(())
    }

    /// Back to the start token, keeping the encoded source.
    pub fn reset(&mut self) -> Result<()> {
        let bos = self.loaded.config.bos_id;
        let layers = self.loaded.config.n_decoder_layers;
        let state = self.state.as_mut().ok_or(Error::NotStarted)?;
        state.steps.clear();
        state.tgt_ids = vec![bos];
        state.cache = vec![None; layers];
        Ok(())
    }

    /// Replace the output with `prefix` (target text, tokenized) and stop there; `step` continues.
    pub async fn set_prefix(&mut self, prefix: &str) -> Result<Vec<StepResult>> {
        let encoded = self.loaded.tgt_tokenizer.encode(prefix)?;
        if let Some(unknown) = encoded.unknown.iter().position(|&u| u) {
            return Err(Error::UnknownToken(encoded.tokens[unknown].clone()));
        }
        self.set_prefix_ids(&encoded.ids).await
    }

    /// Replace the output with the given target ids.
    pub async fn set_prefix_ids(&mut self, ids: &[u32]) -> Result<Vec<StepResult>> {
        self.reset()?;
        let mut results = Vec::with_capacity(ids.len());
        for &id in ids {
            results.push(self.step_with(Some(id)).await?);
        }
        Ok(results)
    }

    /// Replace the last token with `id` (a clicked candidate); later steps continue from it.
    pub async fn replace_last(&mut self, id: u32) -> Result<StepResult> {
        self.back()?;
        self.step_with(Some(id)).await
    }

    /// Step until the end token or the length limit; returns the steps taken.
    pub async fn run_to_end(&mut self) -> Result<Vec<StepResult>> {
        let mut results = vec![];
        while !self.finished() {
            results.push(self.step().await?);
        }
        Ok(results)
    }

    /// Start, decode to the end, and return the trace.
    pub async fn translate(&mut self, text: &str) -> Result<Trace> {
        self.start(text).await?;
        self.run_to_end().await?;
        self.trace()
    }

    /// The text of a target id.
    pub fn target_text(&self, id: u32) -> String {
        self.loaded
            .tgt_tokenizer
            .token(id)
            .map(visible)
            .unwrap_or_else(|| format!("#{id}"))
    }

    /// The output so far as text (without special tokens).
    pub fn output(&self) -> String {
        let config = &self.loaded.config;
        match &self.state {
            Some(state) => state
                .tgt_ids
                .iter()
                .filter(|&&id| id != config.bos_id && id != config.eos_id && id != config.pad_id)
                .map(|&id| self.target_text(id))
                .collect::<Vec<_>>()
                .join(&config.tgt_joiner),
            None => String::new(),
        }
    }

    /// Everything decoded so far as one trace.
    pub fn trace(&self) -> Result<Trace> {
        let state = self.state()?;
        let config = &self.loaded.config;
        let (layers, heads) = (config.n_decoder_layers, config.n_heads);
        let rows = state.steps.len();
        let src_len = state.source.ids.len();
        let mut decoder_self = AttentionStack::zeros(layers, heads, rows, rows);
        let mut cross = AttentionStack::zeros(layers, heads, rows, src_len);
        for (q, record) in state.steps.iter().enumerate() {
            for l in 0..layers {
                for h in 0..heads {
                    for k in 0..=q {
                        decoder_self.set(l, h, q, k, record.self_rows.get(l, h, 0, k));
                    }
                    for k in 0..src_len {
                        cross.set(l, h, q, k, record.cross_rows.get(l, h, 0, k));
                    }
                }
            }
        }
        Ok(Trace {
            model: config.name.clone(),
            src_ids: state.source.ids.clone(),
            src_tokens: state.source.tokens.clone(),
            src_unknown: state.source.unknown.clone(),
            truncation: state.source.truncation.clone(),
            tgt_ids: state.tgt_ids.clone(),
            tgt_tokens: state
                .tgt_ids
                .iter()
                .map(|&id| self.target_text(id))
                .collect(),
            output: self.output(),
            encoder_self_attention: state.encoder_attention.clone(),
            decoder_self_attention: decoder_self,
            cross_attention: cross,
            steps: state.steps.iter().map(|r| r.step.clone()).collect(),
            causal_mask: (0..rows)
                .map(|q| (0..rows).map(|k| k > q).collect())
                .collect(),
            padding_mask: state
                .source
                .ids
                .iter()
                .map(|&id| id == config.pad_id)
                .collect(),
            positional_encoding: self
                .positional
                .chunks(config.d_model)
                .map(<[f32]>::to_vec)
                .collect(),
        })
    }

    /// Recompute the decoder over the whole prefix at once (no cache): decoder self-attention
    /// and cross-attention stacks, and the logits of every position `[rows, tgt_vocab]`.
    /// Equal to the step-by-step trace; used to check the cache and to time a full re-decode.
    pub async fn recompute_decoder(&self) -> Result<(AttentionStack, AttentionStack, Vec<f32>)> {
        let state = self.state()?;
        let config = &self.loaded.config;
        let rows = state.steps.len();
        let output = self.decode_prefix(state, None)?;
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
        let self_parts: Vec<Vec<f32>> = data.by_ref().take(layers).collect();
        let cross_parts: Vec<Vec<f32>> = data.by_ref().take(layers).collect();
        let logits = data.next().unwrap_or_default();
        let src_len = state.source.ids.len();
        Ok((
            stack(layers, config.n_heads, rows, rows, self_parts),
            stack(layers, config.n_heads, rows, src_len, cross_parts),
            logits,
        ))
    }

    /// The decoder over every input position decoded so far, in one pass (causal mask).
    fn decode_prefix(&self, state: &Decoding, probe: Option<Probe>) -> Result<DecoderOutput> {
        let rows = state.steps.len();
        if rows == 0 {
            return Err(Error::NothingDecoded);
        }
        let tgt = self.ids_tensor(&state.tgt_ids[..rows], 1);
        Ok(self.loaded.model.decode(tgt, &state.encoded, probe))
    }

    /// One head's attention stage by stage, recomputed with the raw scores kept.
    pub async fn pipeline(
        &self,
        kind: AttentionKind,
        layer: usize,
        head: usize,
    ) -> Result<Pipeline> {
        let state = self.state()?;
        let config = &self.loaded.config;
        let layers = match kind {
            AttentionKind::EncoderSelf => config.n_encoder_layers,
            _ => config.n_decoder_layers,
        };
        if layer >= layers {
            return Err(Error::OutOfRange {
                what: "layer",
                index: layer,
                len: layers,
            });
        }
        if head >= config.n_heads {
            return Err(Error::OutOfRange {
                what: "head",
                index: head,
                len: config.n_heads,
            });
        }
        let probe = Some(Probe { kind, layer });
        let rows = state.steps.len();
        let tgt_tokens: Vec<String> = state.tgt_ids[..rows]
            .iter()
            .map(|&id| self.target_text(id))
            .collect();
        let (attention, query_tokens, key_tokens) = match kind {
            AttentionKind::EncoderSelf => {
                let encoded = self.loaded.model.encode(state.src.clone(), probe);
                let attention = encoded.attention.into_iter().nth(layer);
                (
                    attention,
                    state.source.tokens.clone(),
                    state.source.tokens.clone(),
                )
            }
            AttentionKind::DecoderSelf | AttentionKind::Cross => {
                let output = self.decode_prefix(state, probe)?;
                let layer_attention = output.attention.into_iter().nth(layer);
                if kind == AttentionKind::Cross {
                    (
                        layer_attention.map(|a| a.cross_attention),
                        tgt_tokens,
                        state.source.tokens.clone(),
                    )
                } else {
                    (
                        layer_attention.map(|a| a.self_attention),
                        tgt_tokens.clone(),
                        tgt_tokens,
                    )
                }
            }
        };
        let attention = attention.ok_or(Error::OutOfRange {
            what: "layer",
            index: layer,
            len: layers,
        })?;
        let raw = attention
            .raw_scores
            .ok_or_else(|| Error::Backend("raw scores were not kept".into()))?;
        let mut data = read_back(vec![flat(raw), flat(attention.weights)])
            .await?
            .into_iter();
        let (raw_all, weights_all) = (
            data.next().unwrap_or_default(),
            data.next().unwrap_or_default(),
        );
        let (queries, keys) = (query_tokens.len(), key_tokens.len());
        let size = queries * keys;
        let mask: Vec<bool> = (0..size)
            .map(|i| {
                let (q, k) = (i / keys, i % keys);
                let padded = kind != AttentionKind::DecoderSelf
                    && state.source.ids.get(k) == Some(&config.pad_id);
                padded || (kind == AttentionKind::DecoderSelf && k > q)
            })
            .collect();
        let scale = (config.d_k() as f32).sqrt();
        let mut entropy = vec![];
        let mut unscaled_entropy = vec![];
        for h in 0..config.n_heads {
            let head_raw = &raw_all[h * size..(h + 1) * size];
            entropy.push(mean_row_entropy(
                &weights_all[h * size..(h + 1) * size],
                keys,
            ));
            unscaled_entropy.push(mean_row_entropy(
                &masked_softmax(head_raw, &mask, keys),
                keys,
            ));
        }
        let raw = raw_all[head * size..(head + 1) * size].to_vec();
        Ok(Pipeline {
            kind,
            layer,
            head,
            d_k: config.d_k(),
            queries,
            keys,
            query_tokens,
            key_tokens,
            scaled: raw.iter().map(|v| v / scale).collect(),
            unscaled_softmax: masked_softmax(&raw, &mask, keys),
            softmax: weights_all[head * size..(head + 1) * size].to_vec(),
            raw,
            mask,
            entropy,
            unscaled_entropy,
        })
    }

    /// Encode several sentences as one padded batch: the padding-mask demonstration.
    pub async fn padded_batch(&self, texts: &[&str]) -> Result<PaddedBatch> {
        let config = &self.loaded.config;
        let sources = texts
            .iter()
            .map(|t| self.tokenize_source(t))
            .collect::<Result<Vec<_>>>()?;
        let len = sources.iter().map(|s| s.ids.len()).max().unwrap_or(0);
        let mut ids = vec![];
        let mut tokens = vec![];
        for source in &sources {
            let pad = len - source.ids.len();
            ids.extend(
                source
                    .ids
                    .iter()
                    .copied()
                    .chain(std::iter::repeat_n(config.pad_id, pad)),
            );
            tokens.push(
                source
                    .tokens
                    .iter()
                    .cloned()
                    .chain(std::iter::repeat_n("<pad>".to_string(), pad))
                    .collect::<Vec<_>>(),
            );
        }
        let batch = sources.len();
        let encoded = self.loaded.model.encode(self.ids_tensor(&ids, batch), None);
        let parts = encoded
            .attention
            .iter()
            .map(|a| flat(a.weights.clone()))
            .collect();
        let data = read_back(parts).await?;
        // data[layer] is [batch, heads, len, len]; regroup per sentence.
        let per = config.n_heads * len * len;
        let attention = (0..batch)
            .map(|b| AttentionStack {
                layers: config.n_encoder_layers,
                heads: config.n_heads,
                queries: len,
                keys: len,
                data: data
                    .iter()
                    .flat_map(|layer| layer[b * per..(b + 1) * per].to_vec())
                    .collect(),
            })
            .collect();
        let padding_mask = ids
            .chunks(len.max(1))
            .map(|row| row.iter().map(|&id| id == config.pad_id).collect())
            .collect();
        Ok(PaddedBatch {
            tokens,
            padding_mask,
            encoder_self_attention: attention,
        })
    }
}

/// A padded batch of sentences through the encoder.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaddedBatch {
    /// Each sentence's tokens, padded with `<pad>` to the longest.
    pub tokens: Vec<Vec<String>>,
    /// `[batch][len]`, true at `<pad>`.
    pub padding_mask: Vec<Vec<bool>>,
    /// Each sentence's encoder self-attention `[layers, heads, len, len]`.
    pub encoder_self_attention: Vec<AttentionStack>,
}
