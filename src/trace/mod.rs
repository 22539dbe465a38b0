//! The trace: every number the page shows, as one typed, serializable value per run.
//!
//! JSON field names are camelCase. Matrices are flat and row-major with their dimensions beside
//! them, in memory, in `attnscope trace --json` and across the wasm boundary alike (where each
//! flat vector crosses as one typed array's bytes, see [`Floats`]).

pub mod analysis;
pub mod journey;

use serde::Serialize;

pub use crate::flat::{Flags, Floats};
use crate::model::masks::Mask;
pub use crate::model::AttentionKind;
use crate::text::calendar::ImpossibleDate;

/// Attention weights of every layer and head of one kind.
///
/// # Shapes
/// `data` is row-major `[layers, heads, queries, keys]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttentionStack {
    /// Number of layers.
    pub layers: usize,
    /// Heads per layer.
    pub heads: usize,
    /// Query positions (rows).
    pub queries: usize,
    /// Key positions (columns).
    pub keys: usize,
    /// The weights.
    pub data: Floats,
}

impl AttentionStack {
    /// A stack from its flat data, row-major `[layers, heads, queries, keys]`.
    pub fn new(layers: usize, heads: usize, queries: usize, keys: usize, data: Vec<f32>) -> Self {
        Self {
            layers,
            heads,
            queries,
            keys,
            data: Floats(data),
        }
    }

    /// A stack with no query row yet.
    pub fn empty(layers: usize, heads: usize, keys: usize) -> Self {
        Self::new(layers, heads, 0, keys, vec![])
    }

    /// One head's `[queries, keys]` matrix.
    pub fn matrix(&self, layer: usize, head: usize) -> &[f32] {
        let size = self.queries * self.keys;
        let start = (layer * self.heads + head) * size;
        &self.data[start..start + size]
    }

    /// One weight.
    pub fn get(&self, layer: usize, head: usize, query: usize, key: usize) -> f32 {
        self.data[((layer * self.heads + head) * self.queries + query) * self.keys + key]
    }

    /// Append one query row to every head: `row` is `[layers, heads, keys]` with `keys` at
    /// least the current width. Earlier rows are widened with zeros (decoder self-attention,
    /// where each new position adds a key the earlier rows could not see).
    pub fn push_row(&mut self, row: &[f32], keys: usize) {
        let width = keys.max(self.keys);
        let blocks = self.layers * self.heads;
        let mut data = Vec::with_capacity(blocks * (self.queries + 1) * width);
        for block in 0..blocks {
            for query in 0..self.queries {
                let start = (block * self.queries + query) * self.keys;
                data.extend_from_slice(&self.data[start..start + self.keys]);
                data.resize(data.len() + width - self.keys, 0.0);
            }
            data.extend_from_slice(&row[block * keys..(block + 1) * keys]);
            data.resize(data.len() + width - keys, 0.0);
        }
        self.queries += 1;
        self.keys = width;
        self.data = Floats(data);
    }

    /// Keep the first `queries` rows and the first `keys` columns of every head.
    pub fn truncate(&mut self, queries: usize, keys: usize) {
        let (queries, keys) = (queries.min(self.queries), keys.min(self.keys));
        let mut data = Vec::with_capacity(self.layers * self.heads * queries * keys);
        for block in 0..self.layers * self.heads {
            for query in 0..queries {
                let start = (block * self.queries + query) * self.keys;
                data.extend_from_slice(&self.data[start..start + keys]);
            }
        }
        self.queries = queries;
        self.keys = keys;
        self.data = Floats(data);
    }
}

/// A next-token candidate with its probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Target vocabulary id.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// softmax(logits) at this step (before temperature).
    pub probability: f32,
}

/// One decoding step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// Decoder input position that produced this token (0 = the `<s>` position).
    pub position: usize,
    /// The token chosen.
    pub id: u32,
    /// Its text.
    pub token: String,
    /// Whether the person forced it rather than the model choosing it.
    pub forced: bool,
    /// The top-k candidates, most probable first.
    pub candidates: Vec<Candidate>,
}

/// Where long input was cut to fit `max_len`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// Tokens the input had.
    pub total_tokens: usize,
    /// Tokens kept.
    pub kept_tokens: usize,
    /// Byte offset in the input text where the cut falls.
    pub cut_at_byte: usize,
    /// Character offset of the cut (for the page).
    pub cut_at_char: usize,
}

/// The source side of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Source ids, ending with `</s>`.
    pub ids: Vec<u32>,
    /// Display strings, one per id.
    pub tokens: Vec<String>,
    /// Which tokens are outside the vocabulary.
    pub unknown: Vec<bool>,
    /// Set when the input was longer than the model accepts.
    pub truncation: Option<Truncation>,
}

/// A whole run: what the page shows and what `attnscope trace --json` prints, one type for both.
/// It grows as the session steps ([`Trace::push_step`], [`Trace::truncate`]); nothing rebuilds it.
///
/// Row `i` of the decoder matrices is decoder input position `i` (token `tgt_tokens[i]`), which
/// predicted `tgt_tokens[i + 1]`; so there is one row fewer than target tokens.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// Model name.
    pub model: String,
    /// Source ids, ending with `</s>`.
    pub src_ids: Vec<u32>,
    /// Source display strings.
    pub src_tokens: Vec<String>,
    /// Which source tokens are unknown.
    pub src_unknown: Vec<bool>,
    /// Truncation of the input, if any.
    pub truncation: Option<Truncation>,
    /// Target ids, starting with `<s>`.
    pub tgt_ids: Vec<u32>,
    /// Target display strings.
    pub tgt_tokens: Vec<String>,
    /// The output as text (without special tokens).
    pub output: String,
    /// Set when the output is written as a date, `YYYY-MM-DD`, that does not exist (2019-02-29):
    /// the output stays as the model wrote it, and the page and the CLI mark it by the calendar's
    /// rule ([`crate::text::calendar`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impossible_date: Option<ImpossibleDate>,
    /// Whether decoding has ended (end token, or no position left).
    pub finished: bool,
    /// `[layers, heads, src, src]`.
    pub encoder_self_attention: AttentionStack,
    /// `[layers, heads, rows, rows]`, zero above the diagonal. For a decoder without its causal
    /// mask (a playground switch) every row is the last full pass over the prefix, and
    /// `causal_mask` hides nothing.
    pub decoder_self_attention: AttentionStack,
    /// `[layers, heads, rows, src]`.
    pub cross_attention: AttentionStack,
    /// The decoding steps, one per decoder row.
    pub steps: Vec<Step>,
    /// The causal mask of decoder self-attention, `[rows, rows]`: true = hidden.
    pub causal_mask: Mask,
    /// The source padding mask, `[1, src]`, broadcast over the rows of encoder self-attention
    /// and cross-attention (all false for one sentence).
    pub padding_mask: Mask,
}

/// What a new trace starts from: the encoded source and the start token.
pub struct Started {
    /// Model name.
    pub model: String,
    /// The tokenized source.
    pub source: Source,
    /// The encoder's attention.
    pub encoder_self_attention: AttentionStack,
    /// Decoder layers (the decoder stacks start empty).
    pub decoder_layers: usize,
    /// Heads of each decoder attention (may differ from the encoder's).
    pub decoder_heads: usize,
    /// The decoder's first input token: id and text.
    pub start_token: (u32, String),
    /// Which source tokens are `<pad>`.
    pub padding_mask: Mask,
}

impl Trace {
    /// A run whose source is encoded and whose output holds only the start token.
    pub fn new(started: Started) -> Self {
        let Started {
            model,
            source,
            encoder_self_attention,
            decoder_layers,
            decoder_heads: heads,
            start_token,
            padding_mask,
        } = started;
        let src_len = source.ids.len();
        Self {
            model,
            src_ids: source.ids,
            src_tokens: source.tokens,
            src_unknown: source.unknown,
            truncation: source.truncation,
            tgt_ids: vec![start_token.0],
            tgt_tokens: vec![start_token.1],
            output: String::new(),
            impossible_date: None,
            finished: false,
            encoder_self_attention,
            decoder_self_attention: AttentionStack::empty(decoder_layers, heads, 0),
            cross_attention: AttentionStack::empty(decoder_layers, heads, src_len),
            steps: vec![],
            causal_mask: Mask::causal(0),
            padding_mask,
        }
    }

    /// Decoder rows so far (= steps taken).
    pub fn rows(&self) -> usize {
        self.steps.len()
    }

    /// Add one decoded step with its attention rows (the session then updates `output` and
    /// `finished`): `self_row` is `[layers, heads, rows + 1]`,
    /// `cross_row` is `[layers, heads, src]`.
    pub(crate) fn push_step(&mut self, step: Step, self_row: &[f32], cross_row: &[f32]) {
        let rows = self.rows() + 1;
        self.decoder_self_attention.push_row(self_row, rows);
        let src_len = self.cross_attention.keys;
        self.cross_attention.push_row(cross_row, src_len);
        self.causal_mask = Mask::causal(rows);
        self.push_token(step);
    }

    /// Add one decoded step of a decoder without its causal mask, with the pass over the whole
    /// prefix that made it ([`Self::set_full_pass`]).
    pub(crate) fn push_full_pass_step(
        &mut self,
        step: Step,
        self_attention: AttentionStack,
        cross: AttentionStack,
    ) {
        self.push_token(step);
        self.set_full_pass(self_attention, cross);
    }

    /// The step's token, at the end of the output.
    fn push_token(&mut self, step: Step) {
        self.tgt_ids.push(step.id);
        self.tgt_tokens.push(step.token.clone());
        self.steps.push(step);
    }

    /// Put the attention of one pass over the whole prefix in place of the decoder's stacks
    /// (`self_attention`: `[layers, heads, rows, rows]`, `cross`: `[layers, heads, rows, src]`):
    /// a decoder without its causal mask, where every earlier row changes with each new token.
    pub(crate) fn set_full_pass(&mut self, self_attention: AttentionStack, cross: AttentionStack) {
        let rows = self_attention.queries;
        self.decoder_self_attention = self_attention;
        self.cross_attention = cross;
        self.causal_mask = Mask::open(rows, rows);
    }

    /// Keep the first `rows` steps (the session then updates `output` and `finished`).
    pub(crate) fn truncate(&mut self, rows: usize) {
        let rows = rows.min(self.rows());
        self.decoder_self_attention.truncate(rows, rows);
        let src_len = self.cross_attention.keys;
        self.cross_attention.truncate(rows, src_len);
        self.steps.truncate(rows);
        self.tgt_ids.truncate(rows + 1);
        self.tgt_tokens.truncate(rows + 1);
        self.causal_mask = Mask::causal(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_serializes_flat_with_its_dimensions() {
        let stack = AttentionStack::new(1, 2, 1, 3, vec![0.0, 0.25, 0.75, 1.0, 0.0, 0.0]);
        let json = serde_json::to_value(&stack).unwrap();
        assert_eq!(json["layers"], 1);
        assert_eq!(json["heads"], 2);
        assert_eq!(json["queries"], 1);
        assert_eq!(json["keys"], 3);
        assert_eq!(json["data"][2], 0.75);
        assert_eq!(json["data"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn rows_grow_and_shrink_like_a_recomputed_stack() {
        // Two heads of a decoder self-attention stack built row by row.
        let mut stack = AttentionStack::empty(1, 2, 0);
        stack.push_row(&[1.0, 1.0], 1);
        stack.push_row(&[0.5, 0.5, 0.25, 0.75], 2);
        assert_eq!((stack.queries, stack.keys), (2, 2));
        assert_eq!(stack.matrix(0, 0), &[1.0, 0.0, 0.5, 0.5]);
        assert_eq!(stack.matrix(0, 1), &[1.0, 0.0, 0.25, 0.75]);
        stack.truncate(1, 1);
        assert_eq!(stack.data.0, vec![1.0, 1.0]);
    }
}
