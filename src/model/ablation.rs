//! Switching heads off, as Michel et al. (2019, "Are Sixteen Heads Really Better than One?")
//! mask them: a head's output is set to zero before `W_O`.
//!
//! `W_O` maps the concatenated heads `[h_0 … h_{n-1}]` (each `d_k` wide) to `d_model`, so
//! `W_O · concat(…, 0, …) = Σ_{j ≠ k} W_O[rows of head j] · h_j + b`: zeroing head `k`'s output is
//! exactly zeroing head `k`'s `d_k` input rows of `W_O`. [`Transformer::without_heads`] builds that
//! model once; every decoding path (greedy, cached steps, beam, the comparison session) then runs
//! it unchanged. The head's own attention weights are still computed and shown: only what it
//! passes on is gone.

use std::fmt;

use burn::module::Param;
use burn::tensor::{Tensor, TensorData};
use serde::Serialize;

use super::attention::{AttentionKind, MultiHeadAttention};
use super::config::ModelConfig;
use super::Transformer;
use crate::error::{Error, Result};

/// One head: its kind of attention, its layer in that stack and its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadRef {
    /// Encoder self-, decoder self- or cross-attention.
    pub kind: AttentionKind,
    /// Layer within its stack.
    pub layer: usize,
    /// Head within its layer.
    pub head: usize,
}

impl HeadRef {
    /// A head of `kind`.
    pub fn new(kind: AttentionKind, layer: usize, head: usize) -> Self {
        Self { kind, layer, head }
    }

    /// Read `KIND:LAYER:HEAD` (KIND `encoder`, `decoder` or `cross`; also the page's
    /// `encoderSelf`/`decoderSelf`).
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || Error::HeadSpec(text.to_string());
        let mut parts = text.trim().split(':');
        let kind = parts
            .next()
            .and_then(AttentionKind::parse)
            .ok_or_else(bad)?;
        let mut number = || parts.next().and_then(|p| p.trim().parse::<usize>().ok());
        let (layer, head) = (number().ok_or_else(bad)?, number().ok_or_else(bad)?);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(Self::new(kind, layer, head))
    }

    /// Whether `config` has this head; an error names the layer or head out of range.
    pub fn check(&self, config: &ModelConfig) -> Result<()> {
        let (layers, heads) = match self.kind {
            AttentionKind::EncoderSelf => (config.n_encoder_layers, config.encoder_heads()),
            _ => (config.n_decoder_layers, config.decoder_heads()),
        };
        if self.layer >= layers {
            return Err(Error::OutOfRange {
                what: "layer",
                index: self.layer,
                len: layers,
            });
        }
        if self.head >= heads {
            return Err(Error::OutOfRange {
                what: "head",
                index: self.head,
                len: heads,
            });
        }
        Ok(())
    }

    /// Every head of `config`, encoder first, then decoder self-, then cross-attention.
    pub fn all(config: &ModelConfig) -> Vec<HeadRef> {
        let mut heads = vec![];
        let stacks = [
            (
                AttentionKind::EncoderSelf,
                config.n_encoder_layers,
                config.encoder_heads(),
            ),
            (
                AttentionKind::DecoderSelf,
                config.n_decoder_layers,
                config.decoder_heads(),
            ),
            (
                AttentionKind::Cross,
                config.n_decoder_layers,
                config.decoder_heads(),
            ),
        ];
        for (kind, layers, per_layer) in stacks {
            for layer in 0..layers {
                heads.extend((0..per_layer).map(|head| HeadRef::new(kind, layer, head)));
            }
        }
        heads
    }
}

impl fmt::Display for HeadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            AttentionKind::EncoderSelf => "encoder",
            AttentionKind::DecoderSelf => "decoder",
            AttentionKind::Cross => "cross",
        };
        write!(f, "{kind}:{}:{}", self.layer, self.head)
    }
}

/// A set of heads switched off: sorted, without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Ablation(Vec<HeadRef>);

impl Ablation {
    /// These heads off.
    pub fn new(mut heads: Vec<HeadRef>) -> Self {
        heads.sort();
        heads.dedup();
        Self(heads)
    }

    /// Read `KIND:LAYER:HEAD[,KIND:LAYER:HEAD…]`; an empty text is no head.
    pub fn parse(text: &str) -> Result<Self> {
        let heads = text
            .split(',')
            .filter(|part| !part.trim().is_empty())
            .map(HeadRef::parse)
            .collect::<Result<Vec<_>>>()?;
        Ok(Self::new(heads))
    }

    /// The heads, sorted.
    pub fn heads(&self) -> &[HeadRef] {
        &self.0
    }

    /// Whether no head is off.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// This set with `head` added.
    pub fn with(&self, head: HeadRef) -> Self {
        let mut heads = self.0.clone();
        heads.push(head);
        Self::new(heads)
    }
}

impl fmt::Display for Ablation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(HeadRef::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

impl Transformer {
    /// This model with the heads of `ablation` switched off (their `W_O` input rows zeroed; the
    /// module docs say why that is the same thing). Tensors of untouched blocks are shared.
    pub fn without_heads(&self, config: &ModelConfig, ablation: &Ablation) -> Result<Transformer> {
        let mut model = self.clone();
        for head in ablation.heads() {
            head.check(config)?;
            let block = match head.kind {
                AttentionKind::EncoderSelf => &mut model.encoder_layers[head.layer].self_attn,
                AttentionKind::DecoderSelf => &mut model.decoder_layers[head.layer].self_attn,
                AttentionKind::Cross => &mut model.decoder_layers[head.layer].cross_attn,
            };
            zero_head_output(block, head.head);
        }
        Ok(model)
    }
}

/// Zero the `d_k` rows of `W_O` (burn stores it `[d_in, d_out]`) that head `head` feeds.
fn zero_head_output(block: &mut MultiHeadAttention, head: usize) {
    let weight = block.w_o.weight.val(); // [d_model (concatenated heads), d_model]
    let [d_in, _] = weight.dims();
    if d_in == 0 {
        // Dropped: its packed copy serves every pass and switches the head off
        // (`PackedWeights::drop_unpacked`, `PackedWeights::without_heads`).
        return;
    }
    let d_k = d_in / block.n_heads().max(1);
    let keep: Vec<f32> = (0..d_in)
        .map(|row| if row / d_k == head { 0.0 } else { 1.0 })
        .collect();
    let keep = Tensor::<1>::from_data(TensorData::new(keep, [d_in]), &weight.device());
    let zeroed = weight * keep.reshape([d_in, 1]); // [d_in, d_out]
    let id = block.w_o.weight.id;
    block.w_o.weight = Param::from_tensor(zeroed);
    block.w_o.weight.id = id;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_read_and_write_as_kind_layer_head() {
        let ablation = Ablation::parse("cross:2:1, encoder:0:3,cross:2:1").unwrap();
        assert_eq!(ablation.to_string(), "encoder:0:3,cross:2:1");
        assert_eq!(
            HeadRef::parse("decoderSelf:1:0").unwrap(),
            HeadRef::new(AttentionKind::DecoderSelf, 1, 0)
        );
        assert!(Ablation::parse("").unwrap().is_empty());
        for bad in [
            "cross",
            "cross:1",
            "cross:a:1",
            "self:0:0",
            "cross:0:0:0",
            "cross:-1:0",
        ] {
            let error = Ablation::parse(bad).unwrap_err();
            assert_eq!(error.key(), "error.headSpec", "{bad}");
        }
    }
}
