//! The one type the module exports: `Session`, a thin wrapper over
//! [`crate::session::Session`] for the worker, with the backend it runs on and the head whose
//! stages every answer carries. Each method is one call of the worker's; every answer is the
//! same [`Answer`] that `attnscope trace --json` prints, serialised once.

use burn::tensor::Device;
use wasm_bindgen::prelude::*;

use super::backend::webgpu_device;
use super::facts::{GREEDY, SAMPLE};
use super::{constructors, js_error, to_js, WeightsFile};
use crate::error::Error;
use crate::files::folder::ModelFiles;
use crate::model::ablation::Ablation;
use crate::session::sampling::Sampling;
use crate::session::{Answer, Focus};
use crate::trace::analysis::Analysis;
use crate::trace::AttentionKind;

/// A model, its decoding session and the backend it runs on, for the worker.
#[wasm_bindgen(js_name = Session)]
pub struct WebSession {
    session: crate::session::Session,
    backend: &'static str,
    focus: Focus,
}

#[wasm_bindgen(js_class = Session)]
impl WebSession {
    /// Load a model from its four files onto `"webgpu"` or `"cpu"` (the worker asks
    /// `chooseBackend` first). Bad files give a readable error, never a crash.
    pub async fn create(
        config: Vec<u8>,
        weights: Vec<u8>,
        src_tokenizer: Vec<u8>,
        tgt_tokenizer: Vec<u8>,
        backend: String,
    ) -> Result<WebSession, JsError> {
        constructors::run_once();
        let (device, backend) = match backend.as_str() {
            "cpu" => (Device::flex(), "cpu"),
            "webgpu" => (webgpu_device().await.map_err(js_error)?, "webgpu"),
            other => {
                return Err(js_error(Error::Usage(format!(
                    "unknown backend {other:?}: use webgpu or cpu"
                ))))
            }
        };
        let files = ModelFiles {
            config: &config,
            weights: &weights,
            src_tokenizer: &src_tokenizer,
            tgt_tokenizer: &tgt_tokenizer,
        };
        let session = crate::session::Session::load(files, device).map_err(js_error)?;
        Ok(Self::around(session, backend))
    }

    /// Load a model on the CPU from weights streamed into this module ([`WeightsFile`]), so
    /// that they are never held in JS as well, straight into packed weights: the file's
    /// tensors are taken from it (it is empty afterwards) and each freed once used.
    #[wasm_bindgen(js_name = createCpu)]
    pub fn create_cpu(
        config: Vec<u8>,
        weights: &mut WeightsFile,
        src_tokenizer: Vec<u8>,
        tgt_tokenizer: Vec<u8>,
    ) -> Result<WebSession, JsError> {
        constructors::run_once();
        let tensors = weights.take_tensors().map_err(js_error)?;
        let texts = [&config[..], &src_tokenizer[..], &tgt_tokenizer[..]];
        let session = crate::session::Session::load_packed(texts, tensors, Device::flex(), None)
            .map_err(js_error)?;
        Ok(Self::around(session, "cpu"))
    }

    /// `session` on `backend`, focused where a new page focuses.
    fn around(session: crate::session::Session, backend: &'static str) -> WebSession {
        WebSession {
            session,
            backend,
            focus: Focus::DEFAULT,
        }
    }

    /// A second session over the same weights, sharing them (the comparison view's): every head
    /// on, no sentence.
    pub fn twin(&self) -> WebSession {
        Self::around(self.session.twin(), self.backend)
    }

    /// The target-language codes a multi-target model reads at the start of the text
    /// (`>>cmn_Hans<<`, …); empty for a model with one target language.
    #[wasm_bindgen(js_name = languageCodes)]
    pub fn language_codes(&self) -> Vec<String> {
        self.session.language_codes()
    }

    /// `"webgpu"` or `"cpu"`.
    pub fn backend(&self) -> String {
        self.backend.to_string()
    }

    /// The model's config as a camelCase object.
    pub fn config(&self) -> Result<JsValue, JsError> {
        let value = serde_json::to_value(self.session.config()).map_err(|e| js_error(e.into()))?;
        to_js(&camel_case(value))
    }

    /// The positional-encoding table `[maxLen, dModel]` and PE(t)·PE(t+Δ) for a few t.
    #[wasm_bindgen(js_name = positionalEncoding)]
    pub fn positional_encoding(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.positional().view())
    }

    /// Which head's stages every answer carries. `kind`: encoderSelf, decoderSelf, cross.
    #[wasm_bindgen(js_name = setFocus)]
    pub fn set_focus(&mut self, kind: String, layer: u32, head: u32) -> Result<(), JsError> {
        let kind = AttentionKind::parse(&kind).ok_or_else(|| {
            js_error(Error::Usage(format!(
                "unknown attention kind {kind:?}: use encoderSelf, decoderSelf or cross"
            )))
        })?;
        let focus = Focus {
            kind,
            layer: layer as usize,
            head: head as usize,
        };
        focus.check(self.session.config()).map_err(js_error)?;
        self.focus = focus;
        Ok(())
    }

    /// The trace so far and the focused head's stages: `{trace, stages}`. The summaries the page
    /// draws beside them come from [`Session::analysis`], asked for after the answer has gone
    /// out, so that the first heatmap does not wait for them (or for their bytes to cross).
    pub async fn answer(&self) -> Result<JsValue, JsError> {
        let stages = self.session.stages(self.focus).await.map_err(js_error)?;
        let trace = self.session.trace().map_err(js_error)?;
        to_js(&Answer::new(trace, stages))
    }

    /// The summaries of the trace so far (the mean and max over heads, the encoder rollout, the
    /// source attribution), computed on the host from the trace the last answer carried.
    pub fn analysis(&self) -> Result<JsValue, JsError> {
        let trace = self.session.trace().map_err(js_error)?;
        to_js(&Analysis::of(trace))
    }

    /// Re-run the decoder over the whole output so far at once, without the cache, reading every
    /// attention matrix and the logits back (the benchmark's "full re-decode", to weigh a cached
    /// step against). Returns the number of decoder rows.
    #[wasm_bindgen(js_name = recomputeDecoder)]
    pub async fn recompute_decoder(&self) -> Result<u32, JsError> {
        let (self_attention, _, _) = self.session.recompute_decoder().await.map_err(js_error)?;
        Ok(self_attention.queries as u32)
    }

    /// Encode a sentence and decode it to the end.
    pub async fn translate(&mut self, text: String) -> Result<JsValue, JsError> {
        self.session.translate(&text).await.map_err(js_error)?;
        self.answer().await
    }

    /// Encode a sentence, ready to step.
    pub async fn start(&mut self, text: String) -> Result<JsValue, JsError> {
        self.session.start(&text).await.map_err(js_error)?;
        self.answer().await
    }

    /// Decode one more token.
    pub async fn step(&mut self) -> Result<JsValue, JsError> {
        self.session.step().await.map_err(js_error)?;
        self.answer().await
    }

    /// Decode until the end token.
    #[wasm_bindgen(js_name = runToEnd)]
    pub async fn run_to_end(&mut self) -> Result<JsValue, JsError> {
        self.session.run_to_end().await.map_err(js_error)?;
        self.answer().await
    }

    /// Undo the last step.
    pub async fn back(&mut self) -> Result<JsValue, JsError> {
        self.session.back().await.map_err(js_error)?;
        self.answer().await
    }

    /// Back to the start token.
    pub async fn reset(&mut self) -> Result<JsValue, JsError> {
        self.session.reset().map_err(js_error)?;
        self.answer().await
    }

    /// Keep `index` steps, force token `id` as the next, and decode to the end if asked.
    pub async fn force(
        &mut self,
        index: u32,
        id: u32,
        continue_to_end: bool,
    ) -> Result<JsValue, JsError> {
        self.session
            .force(index as usize, id)
            .await
            .map_err(js_error)?;
        if continue_to_end {
            self.session.run_to_end().await.map_err(js_error)?;
        }
        self.answer().await
    }

    /// Force the output to start with `prefix` (target text), then decode to the end.
    pub async fn prefix(&mut self, prefix: String) -> Result<JsValue, JsError> {
        self.session.set_prefix(&prefix).await.map_err(js_error)?;
        self.session.run_to_end().await.map_err(js_error)?;
        self.answer().await
    }

    /// Put a training snapshot's weights (`timeline/step-*.safetensors` of the same model) in
    /// place of the current ones and decode the current sentence again with them.
    #[wasm_bindgen(js_name = loadSnapshot)]
    pub async fn load_snapshot(&mut self, weights: Vec<u8>) -> Result<JsValue, JsError> {
        match self.session.replace_weights(&weights).map_err(js_error)? {
            Some(text) => self.translate(text).await,
            // No sentence yet: nothing to decode again.
            None => Ok(JsValue::NULL),
        }
    }

    /// Beam search (width 1 to [`crate::session::MAX_BEAM_WIDTH`], length penalty α) over the
    /// current source: the tree and the final ranking. The current sentence stays as it is.
    pub async fn beam(&self, width: u32, length_penalty: f64) -> Result<JsValue, JsError> {
        let search = self
            .session
            .beam(width as usize, length_penalty)
            .await
            .map_err(js_error)?;
        to_js(&search)
    }

    /// Replace the output with these target ids (a beam hypothesis), then decode to the end if
    /// asked.
    #[wasm_bindgen(js_name = forceIds)]
    pub async fn force_ids(
        &mut self,
        ids: Vec<u32>,
        continue_to_end: bool,
    ) -> Result<JsValue, JsError> {
        self.session.force_ids(&ids).await.map_err(js_error)?;
        if continue_to_end {
            self.session.run_to_end().await.map_err(js_error)?;
        }
        self.answer().await
    }

    /// Decode from now on with these heads off (`KIND:LAYER:HEAD,…`; empty: every head on), and
    /// decode the current sentence again with them; `null` when there is no sentence yet.
    #[wasm_bindgen(js_name = setAblation)]
    pub async fn set_ablation(&mut self, spec: String) -> Result<JsValue, JsError> {
        let ablation = Ablation::parse(&spec).map_err(js_error)?;
        match self.session.set_ablation(ablation).map_err(js_error)? {
            Some(text) => self.translate(text).await,
            None => Ok(JsValue::NULL),
        }
    }

    /// The current output decoded again with these heads off, and each original token's
    /// log-probability with and without them (teacher-forced). The session is unchanged.
    pub async fn ablate(&self, spec: String) -> Result<JsValue, JsError> {
        let ablation = Ablation::parse(&spec).map_err(js_error)?;
        let report = self.session.ablate(&ablation).await.map_err(js_error)?;
        to_js(&report)
    }

    /// Every head's importance for the current output: the fall of its total log-probability
    /// when that head alone is off (one teacher-forced pass per head).
    pub async fn importance(&self) -> Result<JsValue, JsError> {
        let importance = self.session.importance().await.map_err(js_error)?;
        to_js(&importance)
    }

    /// Occlusion attribution of decoder row `row`, beside its attention and rollout.
    pub async fn attribution(&self, row: u32) -> Result<JsValue, JsError> {
        let attribution = self
            .session
            .attribution(row as usize)
            .await
            .map_err(js_error)?;
        to_js(&attribution)
    }

    /// One token's journey through one layer: `stack` is `encoder` or `decoder`, `position` a
    /// source position or a decoded decoder row (README, "Journey JSON").
    pub async fn inspect(
        &self,
        stack: String,
        layer: u32,
        position: u32,
    ) -> Result<JsValue, JsError> {
        let stack = crate::trace::journey::Stack::parse(&stack).map_err(js_error)?;
        let (layer, position) = (layer as usize, position as usize);
        let request = crate::session::Inspect {
            stack,
            layer,
            position,
        };
        to_js(&self.session.inspect(request).await.map_err(js_error)?)
    }

    /// `mode` is [`GREEDY`] or [`SAMPLE`] (with temperature, top-k and seed).
    #[wasm_bindgen(js_name = setSampling)]
    pub fn set_sampling(
        &mut self,
        mode: &str,
        temperature: f32,
        top_k: u32,
        seed: u32,
    ) -> Result<(), JsError> {
        let sampling = match mode {
            GREEDY => Sampling::Greedy,
            SAMPLE => Sampling::Sample {
                temperature,
                top_k: top_k as usize,
                seed: seed as u64,
            },
            other => {
                return Err(js_error(Error::Usage(format!(
                    "unknown sampling mode {other:?}: use {GREEDY} or {SAMPLE}"
                ))))
            }
        };
        self.session.set_sampling(sampling).map_err(js_error)
    }

    /// Two (or more) sentences as one padded batch through the encoder: the padding mask at work.
    #[wasm_bindgen(js_name = paddedBatch)]
    pub async fn padded_batch(&self, texts: Vec<String>) -> Result<JsValue, JsError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let batch = self.session.padded_batch(&refs).await.map_err(js_error)?;
        to_js(&batch)
    }
}

fn camel_case(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let mut out = String::new();
                    let mut upper = false;
                    for c in key.chars() {
                        if c == '_' {
                            upper = true;
                        } else if upper {
                            out.extend(c.to_uppercase());
                            upper = false;
                        } else {
                            out.push(c);
                        }
                    }
                    (out, value)
                })
                .collect(),
        ),
        other => other,
    }
}
