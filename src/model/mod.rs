//! The Transformer of "Attention Is All You Need", read top to bottom like the paper:
//! embedding + positional encoding, multi-head attention, feed-forward, encoder layer,
//! decoder layer, the two stacks, the output projection.
//!
//! Every attention call returns its per-head weights (and, when probed, its raw scores QKᵀ):
//! nothing is stashed in the modules. The model is backend-agnostic: the `Device` it is built on
//! (flex on the CPU, wgpu for WebGPU) decides where it runs.

pub mod ablation;
mod attention;
pub mod config;
mod decoder;
pub mod dropout;
pub mod generation;
mod host_attention;
mod host_layers;
mod key_value;
mod layers;
pub mod masks;
pub mod packed;
pub mod positional;
mod presets;
pub mod softmax;
mod sublayers;
mod validate;

pub use attention::{
    AttentionConfig, AttentionInput, AttentionKind, AttentionOutput, KeyValue, MultiHeadAttention,
    Probe,
};
pub use layers::{DecoderInput, DecoderLayer, DecoderLayerAttention, EncoderLayer};
pub use positional::PositionalEncoding;
pub use sublayers::{FeedForward, FeedForwardConfig, Normalisation, Residual, ResidualConfig};

use burn::module::{Module, Param};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, Initializer, LayerNorm, LayerNormConfig,
    Linear, LinearConfig,
};
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};

use config::ModelConfig;
use packed::PackedWeights;
use positional::PositionalTable;

/// Encoder and decoder stacks with embeddings, positional encoding and the output projection.
#[derive(Module, Debug)]
pub struct Transformer {
    /// Source token embedding, `[src_vocab, d_model]`.
    pub src_embed: Embedding,
    /// Target token embedding, `[tgt_vocab, d_model]`.
    pub tgt_embed: Embedding,
    /// Encoder layers.
    pub encoder_layers: Vec<EncoderLayer>,
    /// Final encoder norm (pre-norm only).
    pub encoder_norm: Option<LayerNorm>,
    /// Decoder layers.
    pub decoder_layers: Vec<DecoderLayer>,
    /// Final decoder norm (pre-norm only).
    pub decoder_norm: Option<LayerNorm>,
    /// Output projection to target-vocabulary logits.
    pub projection: Linear,
    /// The positional table the model was built with, `[max_len, d_model]`: a constant, not a
    /// parameter. The sinusoidal table; zeros for a model without positions; for a learned
    /// table, its values when the model was loaded (the model adds `learned_positions`).
    pub positional_encoding: Tensor<2>,
    /// The learned positional table, `[max_len, d_model]` (`positional.weight`), when the
    /// config's `positional_encoding` is `learned`.
    pub learned_positions: Option<Param<Tensor<2>>>,
    #[module(skip)]
    positional: PositionalEncoding,
    dropout: Dropout,
    d_model: usize,
    embed_scale: bool,
    pad_id: u32,
    /// Training a tied model: the logits use `tgt_embed.weight` itself, so its gradient gets the
    /// projection's share (a loaded tied model has a contiguous copy in `projection.weight`,
    /// except where its weights are packed: [`Self::read_logits_from_embedding`]).
    tied_in_graph: bool,
}

/// The encoder's result.
#[derive(Clone, Debug)]
pub struct EncoderOutput {
    /// Encoder output (after the final norm in pre-norm): `[batch, src_len, d_model]`.
    pub memory: Tensor<3>,
    /// One attention per layer, weights `[batch, heads, src_len, src_len]`.
    pub attention: Vec<AttentionOutput>,
    /// `[batch, 1, 1, src_len]`, true at `<pad>` keys.
    pub padding_mask: Tensor<4, Bool>,
}

/// The decoder's result over a whole prefix or a step.
#[derive(Clone, Debug)]
pub struct DecoderOutput {
    /// Logits over the target vocabulary: `[batch, tgt_len, tgt_vocab]`.
    pub logits: Tensor<3>,
    /// Per layer.
    pub attention: Vec<DecoderLayerAttention>,
}

impl Transformer {
    /// A randomly initialised model for `config` on `device` (training starts here).
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self::with_positional(config, &PositionalTable::new(config), device)
    }

    /// A randomly initialised model that adds the given positional table to its embeddings.
    pub fn with_positional(
        config: &ModelConfig,
        positional: &PositionalTable,
        device: &Device,
    ) -> Self {
        let embedding = |vocab| {
            // N(0, d^-1/2): after the ×√d scaling the token vectors have unit scale, like the PE.
            EmbeddingConfig::new(vocab, config.d_model)
                .with_initializer(Initializer::Normal {
                    mean: 0.0,
                    std: (config.d_model as f64).powf(-0.5),
                })
                .init(device)
        };
        let norm = || {
            (config.norm_first && config.layer_norm).then(|| {
                LayerNormConfig::new(config.d_model)
                    .with_epsilon(config.layer_norm_eps)
                    .init(device)
            })
        };
        Self {
            src_embed: embedding(config.src_vocab_size),
            tgt_embed: embedding(config.tgt_vocab_size),
            encoder_layers: (0..config.n_encoder_layers)
                .map(|_| EncoderLayer::new(config, device))
                .collect(),
            encoder_norm: norm(),
            decoder_layers: (0..config.n_decoder_layers)
                .map(|_| DecoderLayer::new(config, device))
                .collect(),
            decoder_norm: norm(),
            projection: LinearConfig::new(config.d_model, config.tgt_vocab_size)
                .with_initializer(Initializer::XavierUniform { gain: 1.0 })
                .init(device),
            positional_encoding: Tensor::from_data(
                TensorData::new(
                    positional.values.to_vec(),
                    [positional.rows, positional.cols],
                ),
                device,
            ),
            learned_positions: (config.positional_encoding == PositionalEncoding::Learned).then(
                || {
                    Initializer::Normal {
                        mean: 0.0,
                        std: LEARNED_POSITIONS_STD,
                    }
                    .init([config.max_len, config.d_model], device)
                },
            ),
            positional: config.positional_encoding,
            dropout: DropoutConfig::new(config.dropout).init(),
            d_model: config.d_model,
            embed_scale: config.embed_scale,
            pad_id: config.pad_id,
            tied_in_graph: false,
        }
    }

    /// This model, computing its logits from the target embedding itself (`tie`, for training
    /// a `tie_output` model) or from `projection.weight`.
    pub fn tied_in_graph(mut self, tie: bool) -> Self {
        self.tied_in_graph = tie;
        // Unused while tied. Tracked, it was an orphan autodiff root each step (docs/models.md: 0.7 s).
        if tie {
            self.projection.weight = self.projection.weight.set_require_grad(false);
        }
        self
    }

    /// Read the logits from the target embedding itself from now on, as [`Self::tied_in_graph`]
    /// does, without touching `projection.weight`: a tied model loaded where its weights are
    /// packed (`model::packed::packs`), which keeps no transposed copy of the embedding there.
    pub(crate) fn read_logits_from_embedding(&mut self) {
        self.tied_in_graph = true;
    }

    /// What the token embedding is multiplied by: √d_model when the config scales it, else 1.
    pub fn embedding_scale(&self) -> f32 {
        if self.embed_scale {
            (self.d_model as f32).sqrt()
        } else {
            1.0
        }
    }

    /// The token embedding of `ids` from `embedding` (the source or the target table), times
    /// [`Transformer::embedding_scale`]. `kept`: packed weights and the side (`true`: target)
    /// whose table they keep instead of the model (a big model loaded packed: `packed::PackedTable`).
    ///
    /// # Shapes
    /// `ids: [batch, len]` → `[batch, len, d_model]`.
    pub fn token_embedding(
        &self,
        embedding: &Embedding,
        ids: Tensor<2, Int>,
        kept: Option<(&PackedWeights, bool)>,
    ) -> Tensor<3> {
        let x = kept.and_then(|(packed, target)| packed.embedding(target, &ids));
        let x = x.unwrap_or_else(|| embedding.forward(ids)); // [batch, len, d_model]
        if self.embed_scale {
            x.mul_scalar(self.embedding_scale())
        } else {
            x
        }
    }

    /// The rows `start..start + len` of the positional table the model adds (sinusoidal or
    /// learned), `None` for a model without positions.
    ///
    /// # Shapes
    /// `[len, d_model]`.
    pub fn positions(&self, start: usize, len: usize) -> Option<Tensor<2>> {
        let table = match self.positional {
            PositionalEncoding::Sinusoidal => self.positional_encoding.clone(),
            PositionalEncoding::Learned => self.learned_positions.as_ref()?.val(),
            PositionalEncoding::None => return None,
        };
        Some(table.narrow(0, start, len))
    }

    /// The token embedding plus the positional encoding from `start`.
    ///
    /// # Shapes
    /// `ids: [batch, len]` → `[batch, len, d_model]`.
    fn embed(
        &self,
        embedding: &Embedding,
        ids: Tensor<2, Int>,
        start: usize,
        kept: Option<(&PackedWeights, bool)>,
    ) -> Tensor<3> {
        let [_, len] = ids.dims();
        let x = self.token_embedding(embedding, ids, kept); // [batch, len, d_model]
        let x = match self.positions(start, len) {
            Some(pe) => x + pe.unsqueeze_dim::<3>(0), // + [1, len, d_model]
            None => x,
        };
        dropout::apply(&self.dropout, x)
    }

    /// `[batch, 1, 1, len]`, true where `ids` is `<pad>`.
    pub fn padding_mask(&self, ids: Tensor<2, Int>) -> Tensor<4, Bool> {
        let [batch, len] = ids.dims();
        ids.equal_elem(self.pad_id as i64)
            .reshape([batch, 1, 1, len])
    }

    /// Run the encoder.
    ///
    /// # Shapes
    /// `src: [batch, src_len]` → memory `[batch, src_len, d_model]`.
    pub fn encode(&self, src: Tensor<2, Int>, probe: Option<Probe>) -> EncoderOutput {
        self.encode_packed(src, probe, None)
    }

    /// [`Self::encode`], through packed copies of the weights where given (the CPU).
    pub fn encode_packed(
        &self,
        src: Tensor<2, Int>,
        probe: Option<Probe>,
        packed: Option<&PackedWeights>,
    ) -> EncoderOutput {
        let layers = self.encoder_layers.len();
        let (mut x, attention, padding_mask) = self.run_encoder(src, probe, layers, packed);
        if let Some(norm) = &self.encoder_norm {
            x = norm.forward(x);
        }
        EncoderOutput {
            memory: x,
            attention,
            padding_mask,
        }
    }

    /// The embedding and the first `layers` encoder layers, keeping the probed layer's raw
    /// scores: the output of the last layer run, each layer's attention and the padding mask.
    pub(crate) fn run_encoder(
        &self,
        src: Tensor<2, Int>,
        probe: Option<Probe>,
        layers: usize,
        packed: Option<&PackedWeights>,
    ) -> (Tensor<3>, Vec<AttentionOutput>, Tensor<4, Bool>) {
        let padding_mask = self.padding_mask(src.clone());
        let mut x = self.embed(&self.src_embed, src, 0, packed.map(|p| (p, false)));
        let mut attention = Vec::with_capacity(layers);
        for (index, layer) in self.encoder_layers.iter().take(layers).enumerate() {
            let keep = probe
                == Some(Probe {
                    kind: AttentionKind::EncoderSelf,
                    layer: index,
                });
            let layer_packed = packed.and_then(|p| p.encoder.get(index));
            let mask = Some(padding_mask.clone());
            let (next, layer_attention) = layer.forward_packed(x, mask, keep, layer_packed);
            x = next;
            attention.push(layer_attention);
        }
        (x, attention, padding_mask)
    }

    /// The encoder up to and including `layer`, that layer's raw scores kept: what one encoder
    /// head's stages need. The layers above it, its own feed-forward and the final norm are
    /// skipped, so this costs `layer` layers and one attention, not the whole stack. `None` when
    /// the encoder has no such layer.
    ///
    /// # Shapes
    /// `src: [batch, src_len]` → weights and raw scores `[batch, heads, src_len, src_len]`.
    pub fn encode_through(
        &self,
        src: Tensor<2, Int>,
        layer: usize,
        packed: Option<&PackedWeights>,
    ) -> Option<AttentionOutput> {
        let probed = self.encoder_layers.get(layer)?;
        let (x, _, padding_mask) = self.run_encoder(src, None, layer, packed);
        let packed = packed.and_then(|p| p.encoder.get(layer));
        Some(probed.attend(x, Some(padding_mask), true, packed))
    }
}

/// The spread of a fresh learned positional table: about a fifth of a scaled token
/// embedding's (1 per dimension), so that position starts as a hint, not as noise over the
/// tokens.
const LEARNED_POSITIONS_STD: f64 = 0.2;

/// The last of `attention` when exactly `layers` layers ran (`None` when the stack is shorter).
fn last_of<T>(mut attention: Vec<T>, layers: usize) -> Option<T> {
    if attention.len() == layers {
        attention.pop()
    } else {
        None
    }
}
