//! The decoder stack: over a whole target prefix (training, a full recompute, one probed
//! layer) or step by step with a key/value cache (decoding), and the output projection.

use burn::tensor::{Bool, Int, Tensor};

use super::packed::{project, project_tied, PackedLinear, PackedWeights};
use super::{
    last_of, AttentionKind, DecoderInput, DecoderLayerAttention, DecoderOutput, EncoderOutput,
    KeyValue, Probe, Transformer,
};

impl Transformer {
    /// The decoder over a whole target prefix (causal mask), up to and including `probe.layer`,
    /// with that layer's raw scores of `probe.kind` kept, reading the cross-attention keys and
    /// values already projected (`cross`, one per layer). The same numbers as [`Self::decode`]'s
    /// for that layer, without its feed-forward, the layers above it, the final norm and the
    /// vocabulary projection. `None` when the decoder has no such layer.
    ///
    /// # Shapes
    /// `tgt: [batch, tgt_len]`, `padding_mask: [batch, 1, 1, src_len]`.
    pub fn decode_through(
        &self,
        tgt: Tensor<2, Int>,
        cross: &[KeyValue],
        padding_mask: &Tensor<4, Bool>,
        probe: Probe,
        packed: Option<&PackedWeights>,
    ) -> Option<DecoderLayerAttention> {
        let layers = probe.layer + 1;
        let input = DecoderRun {
            through: true,
            ..DecoderRun::prefix(cross, padding_mask, Some(probe), packed)
        };
        let (_, attention) = self.run_prefix(tgt, input, layers);
        last_of(attention, layers)
    }

    /// The encoder output projected into each decoder layer's cross-attention keys and values.
    pub fn cross_key_values(&self, memory: Tensor<3>) -> Vec<KeyValue> {
        self.cross_key_values_packed(memory, None)
    }

    /// [`Self::cross_key_values`], through packed copies of the weights where given (the CPU).
    pub fn cross_key_values_packed(
        &self,
        memory: Tensor<3>,
        packed: Option<&PackedWeights>,
    ) -> Vec<KeyValue> {
        let layers = self.decoder_layers.iter().enumerate();
        layers
            .map(|(index, layer)| {
                let p = packed.and_then(|p| p.decoder.get(index));
                let cross = p.map(|p| &p.cross_attn);
                layer.cross_attn.project_key_value(memory.clone(), cross)
            })
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
        let cross = self.cross_key_values(encoded.memory.clone());
        let layers = self.decoder_layers.len();
        let input = DecoderRun::prefix(&cross, &encoded.padding_mask, probe, None);
        let (x, attention) = self.run_prefix(tgt, input, layers);
        self.decoder_output(x, attention, None)
    }

    /// [`Self::decode`] (no probe) from the cross-attention keys and values already projected
    /// (`cross`, one per layer: a session keeps them from the encoder's pass), through packed
    /// copies of the weights where given (the CPU).
    ///
    /// # Shapes
    /// `tgt: [batch, tgt_len]`, `padding_mask: [batch, 1, 1, src_len]` → logits
    /// `[batch, tgt_len, tgt_vocab]`.
    pub fn decode_projected(
        &self,
        tgt: Tensor<2, Int>,
        cross: &[KeyValue],
        padding_mask: &Tensor<4, Bool>,
        packed: Option<&PackedWeights>,
    ) -> DecoderOutput {
        let layers = self.decoder_layers.len();
        let input = DecoderRun::prefix(cross, padding_mask, None, packed);
        let (x, attention) = self.run_prefix(tgt, input, layers);
        self.decoder_output(x, attention, packed.map(|p| &p.projection))
    }

    /// The output of the first `layers` decoder layers over a whole target prefix (the causal
    /// mask), from the cross-attention keys and values already projected, through packed copies
    /// of the weights where given: the input of layer `layers`.
    ///
    /// # Shapes
    /// `tgt: [batch, tgt_len]` → `[batch, tgt_len, d_model]`.
    pub(crate) fn decoder_below(
        &self,
        tgt: Tensor<2, Int>,
        cross: &[KeyValue],
        padding_mask: &Tensor<4, Bool>,
        layers: usize,
        packed: Option<&PackedWeights>,
    ) -> Tensor<3> {
        let input = DecoderRun::prefix(cross, padding_mask, None, packed);
        self.run_prefix(tgt, input, layers).0
    }

    /// The first `layers` decoder layers over a whole target prefix, with the causal mask.
    fn run_prefix(
        &self,
        tgt: Tensor<2, Int>,
        input: DecoderRun<'_>,
        layers: usize,
    ) -> (Tensor<3>, Vec<DecoderLayerAttention>) {
        // The causal mask alone (each decoder self-attention block applies it): in a padded batch
        // every <pad> sits after the last real token, so causality already hides it from every
        // real position (pad rows carry no loss). Masking target <pad> ids as well would make
        // this path differ from step-by-step decoding whenever a model emits the <pad> id.
        let x = self.embed(&self.tgt_embed, tgt, 0, input.packed.map(|p| (p, true)));
        self.run_decoder(x, input, layers)
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
        packed: Option<&PackedWeights>,
    ) -> DecoderOutput {
        let x = self.embed(&self.tgt_embed, tokens, position, packed.map(|p| (p, true)));
        let input = DecoderRun {
            cross,
            padding_mask,
            cache: Some(cache),
            probe: None,
            packed,
            through: false,
        };
        let (x, attention) = self.run_decoder(x, input, self.decoder_layers.len());
        self.decoder_output(x, attention, packed.map(|r| &r.projection))
    }

    /// The first `layers` decoder layers: the output of the last one run and each one's
    /// attention.
    fn run_decoder(
        &self,
        mut x: Tensor<3>,
        mut run: DecoderRun<'_>,
        layers: usize,
    ) -> (Tensor<3>, Vec<DecoderLayerAttention>) {
        let mut attention = Vec::with_capacity(layers);
        let stack = self.decoder_layers.iter().zip(run.cross).take(layers);
        for (index, (layer, memory)) in stack.enumerate() {
            let keep_scores = run
                .probe
                .filter(|p| p.layer == index && p.kind != AttentionKind::EncoderSelf)
                .map(|p| p.kind);
            let slot = run
                .cache
                .as_deref_mut()
                .and_then(|slots| slots.get_mut(index));
            let input = DecoderInput::new(x, memory)
                .cross_mask(run.padding_mask.clone())
                .cache(slot)
                .keep_scores(keep_scores)
                .packed(run.packed.and_then(|r| r.decoder.get(index)))
                .attention_only(run.through && index + 1 == layers);
            let (next, layer_attention) = layer.forward(input);
            x = next;
            attention.push(layer_attention);
        }
        (x, attention)
    }

    /// The final norm (pre-norm models) and the vocabulary projection after the last layer.
    fn decoder_output(
        &self,
        mut x: Tensor<3>,
        attention: Vec<DecoderLayerAttention>,
        packed: Option<&PackedLinear>,
    ) -> DecoderOutput {
        if let Some(norm) = &self.decoder_norm {
            x = norm.forward(x);
        }
        let logits = self.logits(x, packed);
        DecoderOutput { logits, attention }
    }

    /// The vocabulary projection: through its packed copy where given; else from the target
    /// embedding itself when the logits read it (training a tied model, or a loaded tied model
    /// that keeps no copy of its own: `files::weights`), else `projection`.
    ///
    /// # Shapes
    /// `x: [batch, len, d_model]` → `[batch, len, tgt_vocab]`.
    pub(crate) fn logits(&self, x: Tensor<3>, packed: Option<&PackedLinear>) -> Tensor<3> {
        match (packed, self.tied_in_graph) {
            (None, true) => project_tied(&self.tgt_embed, self.projection.bias.as_ref(), x),
            _ => project(&self.projection, packed, x),
        }
    }
}

/// What the decoder layers read besides their input: the cross-attention keys and values (one
/// per layer), the masks, the key/value cache of step-by-step decoding, the probe.
struct DecoderRun<'a> {
    cross: &'a [KeyValue],
    padding_mask: &'a Tensor<4, Bool>,
    cache: Option<&'a mut [Option<KeyValue>]>,
    probe: Option<Probe>,
    /// Packed copies of the weights (the CPU).
    packed: Option<&'a PackedWeights>,
    /// Only the last layer's attention is wanted (`decode_through`): its feed-forward is skipped.
    through: bool,
}

impl<'a> DecoderRun<'a> {
    /// A pass over a whole prefix: no cache.
    fn prefix(
        cross: &'a [KeyValue],
        padding_mask: &'a Tensor<4, Bool>,
        probe: Option<Probe>,
        packed: Option<&'a PackedWeights>,
    ) -> Self {
        Self {
            cross,
            padding_mask,
            cache: None,
            probe,
            packed,
            through: false,
        }
    }
}
