//! One position through one layer, every vector from the model: the layer's input, each
//! attention sub-layer head by head (q, every k_j and v_j, q·k_j, ÷√d_k, the weights, Σ α_j v_j),
//! the heads concatenated, W_O, the residual and the LayerNorm, the feed-forward network, and
//! after the decoder's last layer the logits.
//!
//! Computed on demand, for the sentence the session holds. Only the layers below the asked one
//! run again (for this one sequence, as the head-stages view does); cross-attention reads the
//! encoder output's keys and values the session already projected. The asked layer runs for the
//! one query position, with the model's own blocks; everything comes back in one transfer.

use burn::nn::Embedding;
use burn::tensor::{Bool, Tensor};

mod readout;

use self::readout::Values;
use super::readback::{flat, read_back};
use super::{Decoding, Session};
use crate::error::{Error, Result};
use crate::model::masks::Mask;
use crate::model::packed::{project, PackedAttention, PackedLinear};
use crate::model::{AttentionInput, FeedForward, KeyValue, MultiHeadAttention, Residual};
use crate::trace::journey::{Journey, Stack};
use crate::trace::Flags;

/// Which position of which layer to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inspect {
    /// The stack.
    pub stack: Stack,
    /// The layer within it.
    pub layer: usize,
    /// The position: a source position, or a decoder input position already decoded (row
    /// `position` of the trace, which predicted target token `position + 1`).
    pub position: usize,
}

/// Tensors gathered for one read-back; each `push` answers the index of its flat vector.
#[derive(Default)]
struct Reads(Vec<Tensor<1>>);

impl Reads {
    fn push<const D: usize>(&mut self, tensor: Tensor<D>) -> usize {
        self.0.push(flat(tensor));
        self.0.len() - 1
    }
}

/// One attention sub-layer for one query: the block, its residual, the query position's input
/// `[1, 1, d_model]`, the keys and values `[1, heads, k_len, d_k]`, the mask `[1, 1, 1, k_len]`.
struct AttentionStep<'a> {
    block: &'a MultiHeadAttention,
    /// The block's projections packed, where the session packs them.
    packed: Option<&'a PackedAttention>,
    residual: &'a Residual,
    x: Tensor<3>,
    kv: &'a KeyValue,
    mask: Tensor<4, Bool>,
}

/// Where each vector of one attention sub-layer sits in the read-back.
struct AttentionReads {
    sub_input: usize,
    normed_input: Option<usize>,
    q: usize,
    keys: usize,
    values: usize,
    scores: usize,
    scaled: usize,
    weights: usize,
    outputs: usize,
    concat: usize,
    projected: usize,
    residual: usize,
    normed: Option<usize>,
}

/// Where each vector of the feed-forward sub-layer sits in the read-back.
struct FeedForwardReads {
    sub_input: usize,
    normed_input: Option<usize>,
    hidden: usize,
    projected: usize,
    residual: usize,
    normed: Option<usize>,
}

/// Where everything of the layer sits in the read-back.
struct LayerReads {
    input: usize,
    embedding: Option<(usize, usize)>,
    self_attention: AttentionReads,
    cross_attention: Option<AttentionReads>,
    feed_forward: FeedForwardReads,
    output: usize,
    final_norm: Option<usize>,
    logits: Option<usize>,
}

/// The key labels and mask flags of one attention sub-layer.
#[derive(Clone)]
struct Keys {
    tokens: Vec<String>,
    masked: Vec<bool>,
}

impl Session {
    /// Everything position `request.position` computes in layer `request.layer` of
    /// `request.stack`, for the sentence being decoded. A decoder position must already have
    /// been decoded (`NothingDecoded` before the first step).
    pub async fn inspect(&self, request: Inspect) -> Result<Journey> {
        let state = self.state()?;
        let config = &self.loaded.config;
        let trace = &state.trace;
        let (layers, len) = match request.stack {
            Stack::Encoder => (config.n_encoder_layers, trace.src_ids.len()),
            Stack::Decoder if trace.rows() == 0 => return Err(Error::NothingDecoded),
            Stack::Decoder => (config.n_decoder_layers, trace.rows()),
        };
        for (what, index, len) in [
            ("layer", request.layer, layers),
            ("position", request.position, len),
        ] {
            if index >= len {
                return Err(Error::OutOfRange { what, index, len });
            }
        }
        let mut reads = Reads::default();
        let plan = match request.stack {
            Stack::Encoder => self.encoder_reads(state, request, &mut reads)?,
            Stack::Decoder => self.decoder_reads(state, request, &mut reads)?,
        };
        let values = Values(read_back(reads.0).await?);
        Ok(self.journey(state, request, plan, values))
    }

    /// The encoder layers below `request.layer` again, then that layer for the one position.
    fn encoder_reads(
        &self,
        state: &Decoding,
        request: Inspect,
        reads: &mut Reads,
    ) -> Result<LayerReads> {
        let missing = Error::Invariant("a checked encoder layer is missing");
        let model = &self.loaded.model;
        let layer = model.encoder_layers.get(request.layer).ok_or(missing)?;
        let packed = self.packed.as_ref();
        let (x, _, padding_mask) =
            model.run_encoder(state.src.clone(), None, request.layer, packed);
        let layer_packed = packed.and_then(|p| p.encoder.get(request.layer));
        let self_packed = layer_packed.map(|l| &l.self_attn);
        let ids = &state.trace.src_ids;
        let (x_query, input, embedding) =
            self.input_reads(&x, (&model.src_embed, false), ids, request, reads);
        // Every source position's keys and values: [1, heads, src_len, d_k].
        let kv = layer
            .self_attn
            .project_key_value(layer.residual_1.input(x), self_packed);
        let step = AttentionStep {
            block: &layer.self_attn,
            packed: self_packed,
            residual: &layer.residual_1,
            x: x_query,
            kv: &kv,
            mask: padding_mask,
        };
        let (x, self_attention) = self.attention_reads(step, reads)?;
        let ffn = (&layer.ffn, layer_packed.map(|l| &l.ffn));
        let (x, feed_forward) = self.feed_forward_reads(ffn, &layer.residual_2, x, reads);
        let last = request.layer + 1 == model.encoder_layers.len();
        let final_norm = model
            .encoder_norm
            .as_ref()
            .filter(|_| last)
            .map(|norm| reads.push(norm.forward(x.clone())));
        Ok(LayerReads {
            input,
            embedding,
            self_attention,
            cross_attention: None,
            feed_forward,
            output: reads.push(x),
            final_norm,
            logits: None,
        })
    }

    /// The decoder layers below `request.layer` again over the decoded prefix (causal mask,
    /// the session's cross-attention keys and values), then that layer for the one position.
    fn decoder_reads(
        &self,
        state: &Decoding,
        request: Inspect,
        reads: &mut Reads,
    ) -> Result<LayerReads> {
        let model = &self.loaded.model;
        let missing = Error::Invariant("a checked decoder layer is missing");
        let layer = model.decoder_layers.get(request.layer).ok_or(missing)?;
        let cross = state.cross.get(request.layer).ok_or(Error::Invariant(
            "no cross-attention keys for a checked layer",
        ))?;
        let tgt = self.decoder_inputs(state)?; // [1, rows]
        let padding_mask = &state.encoded.padding_mask;
        let packed = self.packed.as_ref();
        let x = model.decoder_below(tgt, &state.cross, padding_mask, request.layer, packed);
        let layer_packed = packed.and_then(|p| p.decoder.get(request.layer));
        let self_packed = layer_packed.map(|l| &l.self_attn);
        let ids = &state.trace.tgt_ids;
        let (x_query, input, embedding) =
            self.input_reads(&x, (&model.tgt_embed, true), ids, request, reads);
        // Every decoded position's keys and values, the later ones masked: [1, heads, rows, d_k].
        let kv = layer
            .self_attn
            .project_key_value(layer.residual_1.input(x), self_packed);
        let causal = causal_row(&state.trace.causal_mask, request.position);
        let step = AttentionStep {
            block: &layer.self_attn,
            packed: self_packed,
            residual: &layer.residual_1,
            x: x_query,
            kv: &kv,
            mask: causal.to_tensor(&self.device),
        };
        let (x, self_attention) = self.attention_reads(step, reads)?;
        let step = AttentionStep {
            block: &layer.cross_attn,
            packed: layer_packed.map(|l| &l.cross_attn),
            residual: &layer.residual_2,
            x,
            kv: cross,
            mask: padding_mask.clone(),
        };
        let (x, cross_attention) = self.attention_reads(step, reads)?;
        let ffn = (&layer.ffn, layer_packed.map(|l| &l.ffn));
        let (x, feed_forward) = self.feed_forward_reads(ffn, &layer.residual_3, x, reads);
        let last = request.layer + 1 == model.decoder_layers.len();
        let (mut final_norm, mut logits) = (None, None);
        if last {
            let normed = model.decoder_norm.as_ref().map(|n| n.forward(x.clone()));
            final_norm = normed.clone().map(|n| reads.push(n));
            let packed = self.packed.as_ref().map(|p| &p.projection);
            let projected = model.logits(normed.unwrap_or_else(|| x.clone()), packed);
            logits = Some(reads.push(projected)); // [1, 1, tgt_vocab]
        }
        Ok(LayerReads {
            input,
            embedding,
            self_attention,
            cross_attention: Some(cross_attention),
            feed_forward,
            output: reads.push(x),
            final_norm,
            logits,
        })
    }

    /// The layer's input `x` (`[1, len, d_model]`) at the asked position, `[1, 1, d_model]`,
    /// and where it sits; at layer 0 also its two parts, the token embedding (× √d_model when
    /// the model scales it) and the positional encoding, from `table` and the stack's `ids`.
    fn input_reads(
        &self,
        x: &Tensor<3>,
        (table, target): (&Embedding, bool),
        ids: &[u32],
        request: Inspect,
        reads: &mut Reads,
    ) -> (Tensor<3>, usize, Option<(usize, usize)>) {
        let position = request.position;
        let model = &self.loaded.model;
        let embedding = (request.layer == 0).then(|| {
            let id = self.ids_tensor(&ids[position..=position], 1);
            let kept = self.packed.as_ref().map(|p| (p, target));
            let token = model.token_embedding(table, id, kept); // [1, 1, d_model]
            let positional = model.positional_encoding.clone().narrow(0, position, 1); // [1, d_model]
            (reads.push(token), reads.push(positional))
        });
        let query = x.clone().narrow(1, position, 1); // [1, 1, d_model]
        let input = reads.push(query.clone());
        (query, input, embedding)
    }

    /// One attention sub-layer for one query, through the model's own block: the sub-layer's
    /// result `[1, 1, d_model]` and where its vectors sit.
    fn attention_reads(
        &self,
        step: AttentionStep<'_>,
        reads: &mut Reads,
    ) -> Result<(Tensor<3>, AttentionReads)> {
        let AttentionStep {
            block,
            packed,
            residual,
            x,
            kv,
            mask,
        } = step;
        let norm_first = self.loaded.config.norm_first;
        let input = residual.input(x.clone()); // [1, 1, d_model]
        let query = project(&block.w_q, packed.map(|p| &p.w_q), input.clone()); // [1, 1, heads × d_k]
        let attention = block.forward(
            AttentionInput::cross(input.clone(), kv)
                .mask(Some(mask))
                .keep_scores(true)
                .packed(packed),
        );
        let scores = attention
            .raw_scores
            .ok_or(Error::Invariant("attention kept no raw scores"))?; // [1, heads, 1, k_len]
        let [_, heads, _, d_k] = kv.values.dims();
        let scaled = block.scale_scores(scores.clone());
        let outputs = attention.weights.clone().matmul(kv.values.clone()); // [1, heads, 1, d_k]
        let concat = outputs.clone().swap_dims(1, 2).reshape([1, 1, heads * d_k]);
        let context = attention.context; // [1, 1, d_model]
        let sum = x.clone() + context.clone();
        let result = residual.output(x.clone(), context.clone());
        let reads = AttentionReads {
            sub_input: reads.push(x),
            normed_input: norm_first.then(|| reads.push(input)),
            q: reads.push(query),
            keys: reads.push(kv.keys.clone()),
            values: reads.push(kv.values.clone()),
            scores: reads.push(scores),
            scaled: reads.push(scaled),
            weights: reads.push(attention.weights),
            outputs: reads.push(outputs),
            concat: reads.push(concat),
            projected: reads.push(context),
            residual: reads.push(sum),
            normed: (!norm_first).then(|| reads.push(result.clone())),
        };
        Ok((result, reads))
    }

    /// The feed-forward sub-layer for one position (through its packed copy where given): its
    /// result `[1, 1, d_model]` and where its vectors sit.
    fn feed_forward_reads(
        &self,
        (ffn, packed): (&FeedForward, Option<&[PackedLinear; 2]>),
        residual: &Residual,
        x: Tensor<3>,
        reads: &mut Reads,
    ) -> (Tensor<3>, FeedForwardReads) {
        let config = &self.loaded.config;
        let input = residual.input(x.clone()); // [1, 1, d_model]
        let hidden = ffn.hidden_with(input.clone(), packed.map(|p| &p[0])); // [1, 1, d_ff]
        let projected = ffn.project_with(hidden.clone(), packed.map(|p| &p[1])); // [1, 1, d_model]
        let sum = x.clone() + projected.clone();
        let result = residual.output(x.clone(), projected.clone());
        let reads = FeedForwardReads {
            sub_input: reads.push(x),
            normed_input: config.norm_first.then(|| reads.push(input)),
            hidden: reads.push(hidden),
            projected: reads.push(projected),
            residual: reads.push(sum),
            normed: (!config.norm_first).then(|| reads.push(result.clone())),
        };
        (result, reads)
    }
}

/// Row `position` of the causal mask, as a one-row mask.
fn causal_row(causal: &Mask, position: usize) -> Mask {
    Mask {
        rows: 1,
        cols: causal.cols,
        hidden: Flags(
            (0..causal.cols)
                .map(|k| causal.hides(position, k))
                .collect(),
        ),
    }
}
