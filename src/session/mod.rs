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
pub mod heads;
mod inspect;
mod readback;
mod recompute;
pub mod sampling;
mod source;
mod stages;
mod step;

pub use answer::Answer;
pub use attribution::Attribution;
pub use batch::PaddedBatch;
pub use beam::{length_penalty, BeamFinal, BeamNode, BeamSearch, MAX_BEAM_WIDTH};
pub use heads::{AblationReport, HeadImportance, Importance};
pub use inspect::Inspect;
pub use stages::{layer_entropy, masked_softmax, mean_row_entropy, Focus, HeadStages};

use std::collections::BTreeMap;

use burn::tensor::{Device, Int, Tensor, TensorData};

use self::readback::{flat, read_back};
use crate::error::{Error, Result};
use crate::files::folder::{LoadedModel, ModelFiles};
use crate::files::stream::RawTensor;
use crate::model::ablation::Ablation;
use crate::model::config::ModelConfig;
use crate::model::masks::Mask;
use crate::model::packed::PackedWeights;
use crate::model::positional::PositionalTable;
use crate::model::{EncoderOutput, KeyValue, Transformer};
use crate::session::sampling::{Rng, Sampling};
use crate::text::{join_pieces, visible, TextTokenizer};
use crate::trace::{AttentionStack, Started, Trace};

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
    /// The heads switched off (`heads.rs`); `loaded.model` is the model without them.
    ablation: Ablation,
    /// The model with every head on, kept while `ablation` is not empty.
    intact: Option<Transformer>,
    /// The intact model's projections packed for the CPU (`model::packed`): built by the first
    /// `start`, shared with twins, dropped when the weights change. Once they are built, the
    /// models' own projection matrices are dropped (`PackedWeights::drop_unpacked`): every pass
    /// goes through these.
    packed_intact: Option<PackedWeights>,
    /// `loaded.model`'s: `packed_intact` with `ablation`'s heads off, sharing every other matrix
    /// (made again when the ablation changes).
    packed: Option<PackedWeights>,
    /// Where the weights are packed: as the device wants, everywhere, or nowhere.
    packing: Packing,
}

/// Where a session packs its model's weights ([`PackedWeights`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Packing {
    /// Where the device wants them packed ([`PackedWeights::for_device`]).
    Device,
    /// On any device: [`Session::pack_everywhere`].
    Everywhere,
    /// On no device: [`Session::pack_nowhere`].
    Nowhere,
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
            ablation: Ablation::default(),
            intact: None,
            packed_intact: None,
            packed: None,
            packing: Packing::Device,
        }
    }

    /// Pack the weights on any device, as the CPU of a wasm module does, and drop the unpacked
    /// projection matrices the same way: how native tests reach that path on a CPU whose native
    /// build keeps gemm (`PackedWeights::for_device`).
    pub fn pack_everywhere(&mut self) {
        self.packing = Packing::Everywhere;
    }

    /// Keep burn's kernels (gemm on the CPU) on any device: the reference that native tests and
    /// benches hold the packed path to, where a native build packs (`PackedWeights::for_device`).
    pub fn pack_nowhere(&mut self) {
        self.packing = Packing::Nowhere;
    }

    /// Load the files onto `device` and open a session.
    pub fn load(files: ModelFiles<'_>, device: Device) -> Result<Self> {
        Ok(Self::new(LoadedModel::load(files, &device)?, device))
    }

    /// Load from a streamed weights file's tensors straight into packed weights, each freed once
    /// used (`files::packed_load`; `texts`: config, source and target tokenizers): how the CPU
    /// of a wasm module loads. The session packs again as such a module does (new weights).
    /// `half`: see [`LoadedModel::load_packed`].
    pub fn load_packed(
        texts: [&[u8]; 3],
        tensors: BTreeMap<String, RawTensor>,
        device: Device,
        half: Option<bool>,
    ) -> Result<Self> {
        let (loaded, packed) = LoadedModel::load_packed(texts, tensors, &device, half)?;
        let mut session = Self::new(loaded, device);
        // Every head on: the model's own packed weights are these (shared). A pass before any
        // sentence (the padding demo's batch) reads them too: the model's matrices are empty.
        session.packed = Some(packed.clone());
        session.packed_intact = Some(packed);
        session.packing = Packing::Everywhere;
        Ok(session)
    }

    /// A second session over the same weights (shared, not copied: burn's tensors and the
    /// packed copies are reference-counted), with every head on, greedy, and no sentence: the
    /// page's comparison view decodes in one without costing a second copy of the model.
    pub fn twin(&self) -> Self {
        let mut loaded = self.loaded.clone();
        loaded.model = self.intact_model().clone();
        let mut twin = Self::new(loaded, self.device.clone());
        twin.packed_intact = self.packed_intact.clone();
        twin.packed = self.packed_intact.clone();
        twin.packing = self.packing;
        twin
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
    /// Heads that were switched off stay off.
    pub fn replace_weights(&mut self, bytes: &[u8]) -> Result<Option<String>> {
        let loaded = &mut self.loaded;
        let model = self.intact.as_mut().unwrap_or(&mut loaded.model);
        crate::files::weights::replace_weights(&loaded.config, model, bytes, &self.device)?;
        if let Some(intact) = &self.intact {
            loaded.model = intact.without_heads(&loaded.config, &self.ablation)?;
        }
        self.packed_intact = None;
        self.packed = None;
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
        self.pack().await?;
        let src = self.ids_tensor(&source.ids, 1);
        let packed = self.packed.as_ref();
        let encoded = self.loaded.model.encode_packed(src.clone(), None, packed);
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
        let cross = self
            .loaded
            .model
            .cross_key_values_packed(encoded.memory.clone(), packed);
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

    /// Pack the weights where the device wants them ([`PackedWeights::for_device`]): the intact
    /// model's once, and the model's own from them (heads off where the ablation says).
    async fn pack(&mut self) -> Result<()> {
        if self.packed.is_some() {
            return Ok(());
        }
        if self.packed_intact.is_none() {
            // Every pass goes through the packed copy from now on: the intact model's matrices
            // are dropped as they are packed, and the model with heads off (if any) drops its own.
            let intact = self.intact.as_mut().unwrap_or(&mut self.loaded.model);
            self.packed_intact = match self.packing {
                Packing::Everywhere => Some(PackedWeights::new_dropping(intact).await?),
                Packing::Device => PackedWeights::for_device(intact, &self.device).await?,
                Packing::Nowhere => None,
            };
            if self.packed_intact.is_some() && self.intact.is_some() {
                PackedWeights::drop_unpacked(&mut self.loaded.model);
            }
        }
        self.packed = match &self.packed_intact {
            Some(intact) => Some(intact.without_heads(&self.loaded.config, &self.ablation)?),
            None => None,
        };
        Ok(())
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
        } else if trace.tgt_ids.len() >= config.output_limit() {
            Some("the output reached the model's maximum length")
        } else {
            None
        }
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
}

/// Target ids as the text the page shows for them: `<s>`, `</s>` and `<pad>` left out, each
/// other id's display text ([`target_text`]) joined with the config's joiner (a space at word
/// starts). Evaluation scores this same text.
pub fn output_text(config: &ModelConfig, tokenizer: &TextTokenizer, ids: &[u32]) -> String {
    let never = [config.bos_id, config.eos_id, config.pad_id];
    let pieces: Vec<String> = ids
        .iter()
        .filter(|id| !never.contains(id))
        .map(|&id| target_text(tokenizer, id))
        .collect();
    join_pieces(pieces.iter().map(String::as_str), &config.tgt_joiner)
}

/// The display text of a target id (`#id` for an id the vocabulary lacks).
pub(crate) fn target_text(tokenizer: &TextTokenizer, id: u32) -> String {
    tokenizer
        .token(id)
        .map(visible)
        .unwrap_or_else(|| format!("#{id}"))
}
