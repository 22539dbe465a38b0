//! The Transformer of "Attention Is All You Need", read top to bottom like the paper:
//! embedding + positional encoding, multi-head attention, feed-forward, encoder layer,
//! decoder layer, the two stacks, the output projection.
//!
//! Every attention call returns its per-head weights (and, when probed, its raw scores QKᵀ):
//! nothing is stashed in the modules. The model is backend-agnostic: the `Device` it is built on
//! (flex on the CPU, wgpu for WebGPU) decides where it runs.

use burn::module::{Module, Param};
use burn::nn::{
    Dropout, DropoutConfig, Embedding, EmbeddingConfig, Initializer, LayerNorm, LayerNormConfig,
    Linear, LinearConfig,
};
use burn::tensor::activation::{relu, softmax};
use burn::tensor::{Bool, Device, Int, Tensor, TensorData};

use crate::config::ModelConfig;
use crate::positional::sinusoidal_table;
use crate::trace::AttentionKind;

/// Which attention block's raw scores to keep during a forward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The kind of attention.
    pub kind: AttentionKind,
    /// The layer within its stack.
    pub layer: usize,
}

/// Keys and values of one attention block, already split into heads.
#[derive(Clone, Debug)]
pub struct KeyValue {
    /// `[batch, heads, k_len, d_k]`
    pub keys: Tensor<4>,
    /// `[batch, heads, k_len, d_k]`
    pub values: Tensor<4>,
}

impl KeyValue {
    /// Append `other` along the key axis (a new decoding step).
    pub fn append(self, other: KeyValue) -> KeyValue {
        KeyValue {
            keys: Tensor::cat(vec![self.keys, other.keys], 2),
            values: Tensor::cat(vec![self.values, other.values], 2),
        }
    }

    /// Keep the first `len` keys (undo decoding steps).
    pub fn truncate(self, len: usize) -> KeyValue {
        KeyValue {
            keys: self.keys.narrow(2, 0, len),
            values: self.values.narrow(2, 0, len),
        }
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.keys.dims()[2]
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one attention call produces.
#[derive(Clone, Debug)]
pub struct AttentionOutput {
    /// Heads concatenated and projected by `w_o`: `[batch, q_len, d_model]`.
    pub context: Tensor<3>,
    /// softmax(mask(QKᵀ/√d_k)): `[batch, heads, q_len, k_len]`.
    pub weights: Tensor<4>,
    /// QKᵀ before scaling and masking, kept only when probed: `[batch, heads, q_len, k_len]`.
    pub raw_scores: Option<Tensor<4>>,
}

// ---------------------------------------------------------------------------------------------
// Multi-head attention
// ---------------------------------------------------------------------------------------------

/// Multi-head attention with the seeds' four bias-free projections `w_q, w_k, w_v, w_o`.
#[derive(Module, Debug)]
pub struct MultiHeadAttention {
    /// Query projection, `[d_model, d_model]`.
    pub w_q: Linear,
    /// Key projection.
    pub w_k: Linear,
    /// Value projection.
    pub w_v: Linear,
    /// Output projection applied to the concatenated heads.
    pub w_o: Linear,
    dropout: Dropout,
    n_heads: usize,
    d_k: usize,
    mask_value: f64,
}

impl MultiHeadAttention {
    /// A randomly initialised block (Xavier-uniform projections).
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        let linear = || {
            LinearConfig::new(config.d_model, config.d_model)
                .with_bias(false)
                .with_initializer(Initializer::XavierUniform { gain: 1.0 })
                .init(device)
        };
        Self {
            w_q: linear(),
            w_k: linear(),
            w_v: linear(),
            w_o: linear(),
            dropout: DropoutConfig::new(config.dropout).init(),
            n_heads: config.n_heads,
            d_k: config.d_k(),
            mask_value: config.mask_value,
        }
    }

    /// `[batch, len, d_model]` → `[batch, heads, len, d_k]`.
    fn split_heads(&self, x: Tensor<3>) -> Tensor<4> {
        let [batch, len, _] = x.dims();
        x.reshape([batch, len, self.n_heads, self.d_k])
            .swap_dims(1, 2)
    }

    /// Project keys and values once, e.g. the encoder output for every decoding step.
    ///
    /// # Shapes
    /// `x: [batch, k_len, d_model]` → keys and values `[batch, heads, k_len, d_k]`.
    pub fn project_key_value(&self, x: Tensor<3>) -> KeyValue {
        KeyValue {
            keys: self.split_heads(self.w_k.forward(x.clone())),
            values: self.split_heads(self.w_v.forward(x)),
        }
    }

    /// Attend from `query_input` to already projected keys and values.
    ///
    /// `mask` is true where a key must not be seen; it broadcasts over `[batch, heads, q_len, k_len]`.
    ///
    /// # Shapes
    /// `query_input: [batch, q_len, d_model]`, `kv: [batch, heads, k_len, d_k]`
    /// → context `[batch, q_len, d_model]`, weights `[batch, heads, q_len, k_len]`.
    pub fn attend(
        &self,
        query_input: Tensor<3>,
        kv: &KeyValue,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> AttentionOutput {
        let query = self.split_heads(self.w_q.forward(query_input)); // [batch, heads, q_len, d_k]
        let raw = query.matmul(kv.keys.clone().swap_dims(2, 3)); // [batch, heads, q_len, k_len]
                                                                 // Without the 1/√d_k the dot products grow with d_k and softmax saturates.
        let mut scores = raw.clone().div_scalar((self.d_k as f32).sqrt());
        if let Some(mask) = mask {
            scores = scores.mask_fill(mask, self.mask_value);
        }
        let weights = softmax(scores, 3); // [batch, heads, q_len, k_len]
        let heads = self
            .dropout
            .forward(weights.clone())
            .matmul(kv.values.clone()); // [batch, heads, q_len, d_k]
        let [batch, n_heads, q_len, d_k] = heads.dims();
        let concatenated = heads.swap_dims(1, 2).reshape([batch, q_len, n_heads * d_k]); // [batch, q_len, d_model]
        AttentionOutput {
            context: self.w_o.forward(concatenated),
            weights,
            raw_scores: keep_raw_scores.then_some(raw),
        }
    }

    /// Project `key_value_input` and attend to it.
    ///
    /// # Shapes
    /// `query_input: [batch, q_len, d_model]`, `key_value_input: [batch, k_len, d_model]`.
    pub fn forward(
        &self,
        query_input: Tensor<3>,
        key_value_input: Tensor<3>,
        mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> AttentionOutput {
        let kv = self.project_key_value(key_value_input);
        self.attend(query_input, &kv, mask, keep_raw_scores)
    }
}

// ---------------------------------------------------------------------------------------------
// Position-wise feed-forward network
// ---------------------------------------------------------------------------------------------

/// linear_1 → ReLU → dropout → linear_2, applied to every position alone.
#[derive(Module, Debug)]
pub struct FeedForward {
    /// `d_model → d_ff`, with bias.
    pub linear_1: Linear,
    /// `d_ff → d_model`, with bias.
    pub linear_2: Linear,
    dropout: Dropout,
}

impl FeedForward {
    /// A randomly initialised block.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        let xavier = Initializer::XavierUniform { gain: 1.0 };
        Self {
            linear_1: LinearConfig::new(config.d_model, config.d_ff)
                .with_initializer(xavier.clone())
                .init(device),
            linear_2: LinearConfig::new(config.d_ff, config.d_model)
                .with_initializer(xavier)
                .init(device),
            dropout: DropoutConfig::new(config.dropout).init(),
        }
    }

    /// # Shapes
    /// `[batch, len, d_model]` → `[batch, len, d_model]`.
    pub fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        self.linear_2
            .forward(self.dropout.forward(relu(self.linear_1.forward(x))))
    }
}

// ---------------------------------------------------------------------------------------------
// Add & Norm
// ---------------------------------------------------------------------------------------------

/// One residual connection around a sublayer, with its LayerNorm in either placement.
#[derive(Module, Debug)]
pub struct Residual {
    /// The LayerNorm (`weight`/`bias` in PyTorch's names, `gamma`/`beta` in burn's).
    pub norm: LayerNorm,
    dropout: Dropout,
    norm_first: bool,
}

impl Residual {
    /// A fresh residual connection.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            norm: LayerNormConfig::new(config.d_model)
                .with_epsilon(config.layer_norm_eps)
                .init(device),
            dropout: DropoutConfig::new(config.dropout).init(),
            norm_first: config.norm_first,
        }
    }

    /// The sublayer's input: `norm(x)` in pre-norm, `x` itself in post-norm.
    pub fn input(&self, x: Tensor<3>) -> Tensor<3> {
        if self.norm_first {
            self.norm.forward(x)
        } else {
            x
        }
    }

    /// Combine: `x + dropout(y)` in pre-norm, `norm(x + dropout(y))` in post-norm.
    pub fn output(&self, x: Tensor<3>, sublayer_output: Tensor<3>) -> Tensor<3> {
        let sum = x + self.dropout.forward(sublayer_output);
        if self.norm_first {
            sum
        } else {
            self.norm.forward(sum)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Encoder layer
// ---------------------------------------------------------------------------------------------

/// Self-attention, Add & Norm, feed-forward, Add & Norm.
#[derive(Module, Debug)]
pub struct EncoderLayer {
    /// Self-attention over the source.
    pub self_attn: MultiHeadAttention,
    /// Feed-forward network.
    pub ffn: FeedForward,
    /// Around the self-attention (`norm_1`).
    pub residual_1: Residual,
    /// Around the feed-forward network (`norm_2`).
    pub residual_2: Residual,
}

impl EncoderLayer {
    /// A randomly initialised layer.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            self_attn: MultiHeadAttention::new(config, device),
            ffn: FeedForward::new(config, device),
            residual_1: Residual::new(config, device),
            residual_2: Residual::new(config, device),
        }
    }

    /// # Shapes
    /// `x: [batch, src_len, d_model]`, `padding_mask: [batch, 1, 1, src_len]`
    /// → `[batch, src_len, d_model]` and the attention (weights `[batch, heads, src_len, src_len]`).
    pub fn forward(
        &self,
        x: Tensor<3>,
        padding_mask: Option<Tensor<4, Bool>>,
        keep_raw_scores: bool,
    ) -> (Tensor<3>, AttentionOutput) {
        let input = self.residual_1.input(x.clone());
        let attention = self
            .self_attn
            .forward(input.clone(), input, padding_mask, keep_raw_scores);
        let x = self.residual_1.output(x, attention.context.clone());
        let x = self
            .residual_2
            .output(x.clone(), self.ffn.forward(self.residual_2.input(x)));
        (x, attention)
    }
}

// ---------------------------------------------------------------------------------------------
// Decoder layer
// ---------------------------------------------------------------------------------------------

/// Masked self-attention, cross-attention, feed-forward, each with Add & Norm.
#[derive(Module, Debug)]
pub struct DecoderLayer {
    /// Masked self-attention over the target prefix.
    pub self_attn: MultiHeadAttention,
    /// Cross-attention: queries from the decoder, keys and values from the encoder output.
    pub cross_attn: MultiHeadAttention,
    /// Feed-forward network.
    pub ffn: FeedForward,
    /// Around the self-attention (`norm_1`).
    pub residual_1: Residual,
    /// Around the cross-attention (`norm_2`).
    pub residual_2: Residual,
    /// Around the feed-forward network (`norm_3`).
    pub residual_3: Residual,
}

/// What a decoder layer returns besides its output.
#[derive(Clone, Debug)]
pub struct DecoderLayerAttention {
    /// Masked self-attention.
    pub self_attention: AttentionOutput,
    /// Cross-attention.
    pub cross_attention: AttentionOutput,
}

impl DecoderLayer {
    /// A randomly initialised layer.
    pub fn new(config: &ModelConfig, device: &Device) -> Self {
        Self {
            self_attn: MultiHeadAttention::new(config, device),
            cross_attn: MultiHeadAttention::new(config, device),
            ffn: FeedForward::new(config, device),
            residual_1: Residual::new(config, device),
            residual_2: Residual::new(config, device),
            residual_3: Residual::new(config, device),
        }
    }

    /// One decoder layer, either over a whole prefix (`cache = None`, `self_mask` causal) or
    /// for new positions appended to a key/value cache (`cache = Some`, the cache grows).
    ///
    /// # Shapes
    /// `x: [batch, tgt_len, d_model]`, `memory: [batch, heads, src_len, d_k]` (projected encoder
    /// output), `self_mask: [1|batch, 1, tgt_len, keys]`, `cross_mask: [batch, 1, 1, src_len]`
    /// → `[batch, tgt_len, d_model]`.
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        &self,
        x: Tensor<3>,
        memory: &KeyValue,
        self_mask: Option<Tensor<4, Bool>>,
        cross_mask: Option<Tensor<4, Bool>>,
        cache: Option<&mut Option<KeyValue>>,
        keep_self_scores: bool,
        keep_cross_scores: bool,
    ) -> (Tensor<3>, DecoderLayerAttention) {
        let input = self.residual_1.input(x.clone());
        let new_kv = self.self_attn.project_key_value(input.clone());
        let kv = match cache {
            Some(slot) => {
                let grown = match slot.take() {
                    Some(previous) => previous.append(new_kv),
                    None => new_kv,
                };
                *slot = Some(grown.clone());
                grown
            }
            None => new_kv,
        };
        let self_attention = self
            .self_attn
            .attend(input, &kv, self_mask, keep_self_scores);
        let x = self.residual_1.output(x, self_attention.context.clone());

        let input = self.residual_2.input(x.clone());
        let cross_attention = self
            .cross_attn
            .attend(input, memory, cross_mask, keep_cross_scores);
        let x = self.residual_2.output(x, cross_attention.context.clone());

        let x = self
            .residual_3
            .output(x.clone(), self.ffn.forward(self.residual_3.input(x)));
        (
            x,
            DecoderLayerAttention {
                self_attention,
                cross_attention,
            },
        )
    }
}

// ---------------------------------------------------------------------------------------------
// The whole model
// ---------------------------------------------------------------------------------------------

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
    /// The sinusoidal table, `[max_len, d_model]`: a constant, not a parameter.
    pub positional_encoding: Tensor<2>,
    dropout: Dropout,
    d_model: usize,
    embed_scale: bool,
    pad_id: u32,
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
            config.norm_first.then(|| {
                LayerNormConfig::new(config.d_model)
                    .with_epsilon(config.layer_norm_eps)
                    .init(device)
            })
        };
        let table = sinusoidal_table(config.max_len, config.d_model);
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
                TensorData::new(table, [config.max_len, config.d_model]),
                device,
            ),
            dropout: DropoutConfig::new(config.dropout).init(),
            d_model: config.d_model,
            embed_scale: config.embed_scale,
            pad_id: config.pad_id,
        }
    }

    /// Token embedding (×√d_model when configured) plus the positional encoding from `start`.
    ///
    /// # Shapes
    /// `ids: [batch, len]` → `[batch, len, d_model]`.
    fn embed(&self, embedding: &Embedding, ids: Tensor<2, Int>, start: usize) -> Tensor<3> {
        let [_, len] = ids.dims();
        let mut x = embedding.forward(ids); // [batch, len, d_model]
        if self.embed_scale {
            x = x.mul_scalar((self.d_model as f32).sqrt());
        }
        let pe = self
            .positional_encoding
            .clone()
            .narrow(0, start, len)
            .unsqueeze_dim::<3>(0); // [1, len, d_model]
        self.dropout.forward(x + pe)
    }

    /// `[batch, 1, 1, len]`, true where `ids` is `<pad>`.
    pub fn padding_mask(&self, ids: Tensor<2, Int>) -> Tensor<4, Bool> {
        let [batch, len] = ids.dims();
        ids.equal_elem(self.pad_id as i64)
            .reshape([batch, 1, 1, len])
    }

    /// `[1, 1, len, len]`, true above the diagonal: position i may not see j > i.
    pub fn causal_mask(len: usize, device: &Device) -> Tensor<4, Bool> {
        let mask: Vec<bool> = (0..len * len).map(|k| k % len > k / len).collect();
        Tensor::<2, Bool>::from_data(TensorData::new(mask, [len, len]), device)
            .reshape([1, 1, len, len])
    }

    /// Run the encoder.
    ///
    /// # Shapes
    /// `src: [batch, src_len]` → memory `[batch, src_len, d_model]`.
    pub fn encode(&self, src: Tensor<2, Int>, probe: Option<Probe>) -> EncoderOutput {
        let padding_mask = self.padding_mask(src.clone());
        let mut x = self.embed(&self.src_embed, src, 0);
        let mut attention = Vec::with_capacity(self.encoder_layers.len());
        for (index, layer) in self.encoder_layers.iter().enumerate() {
            let keep = probe
                == Some(Probe {
                    kind: AttentionKind::EncoderSelf,
                    layer: index,
                });
            let (next, layer_attention) = layer.forward(x, Some(padding_mask.clone()), keep);
            x = next;
            attention.push(layer_attention);
        }
        if let Some(norm) = &self.encoder_norm {
            x = norm.forward(x);
        }
        EncoderOutput {
            memory: x,
            attention,
            padding_mask,
        }
    }

    /// The encoder output projected into each decoder layer's cross-attention keys and values.
    pub fn cross_key_values(&self, memory: Tensor<3>) -> Vec<KeyValue> {
        self.decoder_layers
            .iter()
            .map(|layer| layer.cross_attn.project_key_value(memory.clone()))
            .collect()
    }

    /// Run the decoder over a whole target prefix with the causal mask (training, full recompute).
    ///
    /// # Shapes
    /// `tgt: [batch, tgt_len]`, `memory: [batch, src_len, d_model]` → logits `[batch, tgt_len, tgt_vocab]`.
    pub fn decode(
        &self,
        tgt: Tensor<2, Int>,
        encoded: &EncoderOutput,
        probe: Option<Probe>,
    ) -> DecoderOutput {
        let [_, len] = tgt.dims();
        // The causal mask alone: in a padded batch every <pad> sits after the last real token,
        // so causality already hides it from every real position (pad rows carry no loss).
        // Masking target <pad> ids as well would make this path differ from step-by-step
        // decoding whenever a model emits the <pad> id as a token.
        let self_mask = Self::causal_mask(len, &tgt.device());
        let x = self.embed(&self.tgt_embed, tgt, 0);
        let cross = self.cross_key_values(encoded.memory.clone());
        self.run_decoder(
            x,
            &cross,
            Some(self_mask),
            &encoded.padding_mask,
            None,
            probe,
        )
    }

    /// One decoding step for the tokens at `position`, growing `cache` (one slot per layer).
    ///
    /// # Shapes
    /// `tokens: [batch, 1]` → logits `[batch, 1, tgt_vocab]`; each layer's self-attention
    /// weights are `[batch, heads, 1, position + 1]`, cross-attention `[batch, heads, 1, src_len]`.
    pub fn decode_step(
        &self,
        tokens: Tensor<2, Int>,
        position: usize,
        cross: &[KeyValue],
        padding_mask: &Tensor<4, Bool>,
        cache: &mut [Option<KeyValue>],
    ) -> DecoderOutput {
        let x = self.embed(&self.tgt_embed, tokens, position);
        self.run_decoder(x, cross, None, padding_mask, Some(cache), None)
    }

    fn run_decoder(
        &self,
        mut x: Tensor<3>,
        cross: &[KeyValue],
        self_mask: Option<Tensor<4, Bool>>,
        padding_mask: &Tensor<4, Bool>,
        mut cache: Option<&mut [Option<KeyValue>]>,
        probe: Option<Probe>,
    ) -> DecoderOutput {
        let mut attention = Vec::with_capacity(self.decoder_layers.len());
        for (index, (layer, memory)) in self.decoder_layers.iter().zip(cross).enumerate() {
            let keep_self = probe
                == Some(Probe {
                    kind: AttentionKind::DecoderSelf,
                    layer: index,
                });
            let keep_cross = probe
                == Some(Probe {
                    kind: AttentionKind::Cross,
                    layer: index,
                });
            let slot = cache.as_deref_mut().and_then(|slots| slots.get_mut(index));
            let (next, layer_attention) = layer.forward(
                x,
                memory,
                self_mask.clone(),
                Some(padding_mask.clone()),
                slot,
                keep_self,
                keep_cross,
            );
            x = next;
            attention.push(layer_attention);
        }
        if let Some(norm) = &self.decoder_norm {
            x = norm.forward(x);
        }
        DecoderOutput {
            logits: self.projection.forward(x),
            attention,
        }
    }

    /// Replace a parameter tensor, keeping nothing of the random one (used by the loader).
    pub fn param<const D: usize>(tensor: Tensor<D>) -> Param<Tensor<D>> {
        Param::from_tensor(tensor)
    }
}
