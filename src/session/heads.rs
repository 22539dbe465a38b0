//! Which heads the output needs: switch heads off ([`Ablation`]) and measure what the translation
//! loses. Every figure is teacher-forced on the intact model's output, so that the intact and the
//! ablated log-probabilities are of the same tokens at the same positions.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Int, Tensor, TensorData};
use serde::Serialize;

use super::readback::{flat, read_back};
use super::sampling::{next_token, Rng, Sampling};
use super::{target_text, Session};
use crate::error::{Error, Result};
use crate::flat::Floats;
use crate::model::ablation::{Ablation, HeadRef};
use crate::model::config::ModelConfig;
use crate::model::packed::PackedWeights;
use crate::model::{KeyValue, Transformer};

/// One output decoded twice: by the intact model and with heads off.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AblationReport {
    /// The heads switched off, as `KIND:LAYER:HEAD,…`.
    pub spec: String,
    /// The same heads, one by one.
    pub heads: Vec<HeadRef>,
    /// The intact output's ids after `<s>` (with `</s>` when it was produced).
    pub original: Vec<u32>,
    /// Their texts.
    pub original_tokens: Vec<String>,
    /// The greedy output with the heads off.
    pub ablated: Vec<u32>,
    /// Their texts.
    pub ablated_tokens: Vec<String>,
    /// Positions of `ablated` whose token is not the original's at the same position.
    pub changed: Vec<usize>,
    /// log p of each original token, intact model, teacher-forced.
    pub log_p: Floats,
    /// log p of the same tokens with the heads off, teacher-forced on the original output.
    pub log_p_ablated: Floats,
    /// `log_p − log_p_ablated`, per original token.
    pub drop: Floats,
    /// The sum of `drop`: how much the whole output's log-probability fell.
    pub total_drop: f32,
}

/// One head's importance for one output.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadImportance {
    /// The head.
    #[serde(flatten)]
    pub head: HeadRef,
    /// The fall of the output's total log-probability when this head alone is off.
    pub drop: f32,
}

/// Every head's importance for the current output, in [`HeadRef::all`]'s order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Importance {
    /// The intact output's total log-probability (teacher-forced).
    pub total_log_p: f32,
    /// Tokens scored (the output after `<s>`).
    pub tokens: usize,
    /// One per head.
    pub heads: Vec<HeadImportance>,
}

impl Session {
    /// The heads the session's own decoding runs without.
    pub fn ablation(&self) -> &Ablation {
        &self.ablation
    }

    /// The model with every head on.
    pub fn intact_model(&self) -> &Transformer {
        self.intact.as_ref().unwrap_or(&self.loaded.model)
    }

    /// Decode with the heads of `ablation` off from now on (an empty one switches every head back
    /// on). A head the model lacks is refused before anything changes. The sentence being decoded
    /// is dropped, as with new weights; its text is returned so the caller can decode it again.
    pub fn set_ablation(&mut self, ablation: Ablation) -> Result<Option<String>> {
        let config = &self.loaded.config;
        let intact = self
            .intact
            .take()
            .unwrap_or_else(|| self.loaded.model.clone());
        let model = match intact.without_heads(config, &ablation) {
            Ok(model) => model,
            Err(error) => {
                self.intact = (!self.ablation.is_empty()).then_some(intact);
                return Err(error);
            }
        };
        if ablation.is_empty() {
            self.loaded.model = intact;
        } else {
            self.loaded.model = model;
            self.intact = Some(intact);
        }
        self.ablation = ablation;
        // Made at once where the weights are packed: the unpacked ones may be dropped, and a
        // pass that needs no sentence (a padded batch) can come before the next `start`.
        self.packed = match &self.packed_intact {
            Some(intact) => Some(intact.without_heads(&self.loaded.config, &self.ablation)?),
            None => None,
        };
        Ok(self.state.take().map(|s| s.text))
    }

    /// The current output decoded again with `ablation`'s heads off (greedy), and every original
    /// token's log-probability with and without them.
    pub async fn ablate(&self, ablation: &Ablation) -> Result<AblationReport> {
        let config = &self.loaded.config;
        let trace = self.trace()?;
        let intact = Weights {
            model: self.intact_model(),
            packed: self.packed_intact.as_ref(),
        };
        let ablated_model = intact.without_heads(config, ablation)?;
        let ablated_model = ablated_model.as_ref();
        let (src, tgt) = (trace.src_ids.as_slice(), trace.tgt_ids.as_slice());
        let original = tgt.get(1..).unwrap_or_default().to_vec();
        let log_p = teacher_forced_packed(intact, config, &[src], &[tgt])
            .await?
            .remove(0);
        let log_p_ablated = teacher_forced_packed(ablated_model, config, &[src], &[tgt])
            .await?
            .remove(0);
        let ablated = greedy_packed(ablated_model, config, &[src])
            .await?
            .remove(0);
        let changed = (0..ablated.len())
            .filter(|&i| original.get(i) != Some(&ablated[i]))
            .collect();
        let drop: Vec<f32> = log_p
            .iter()
            .zip(&log_p_ablated)
            .map(|(a, b)| (a - b) as f32)
            .collect();
        let texts = |ids: &[u32]| -> Vec<String> {
            ids.iter()
                .map(|&id| target_text(&self.loaded.tgt_tokenizer, id))
                .collect()
        };
        Ok(AblationReport {
            spec: ablation.to_string(),
            heads: ablation.heads().to_vec(),
            original_tokens: texts(&original),
            ablated_tokens: texts(&ablated),
            original,
            ablated,
            changed,
            total_drop: drop.iter().sum(),
            log_p: Floats(log_p.iter().map(|&v| v as f32).collect()),
            log_p_ablated: Floats(log_p_ablated.iter().map(|&v| v as f32).collect()),
            drop: Floats(drop),
        })
    }

    /// Each head's importance for the current output: the fall of its total log-probability
    /// (teacher-forced) when that head alone is off. One pass per head.
    pub async fn importance(&self) -> Result<Importance> {
        let config = &self.loaded.config;
        let trace = self.trace()?;
        let intact = Weights {
            model: self.intact_model(),
            packed: self.packed_intact.as_ref(),
        };
        let (src, tgt) = (trace.src_ids.as_slice(), trace.tgt_ids.as_slice());
        let total = |log_p: Vec<Vec<f64>>| log_p.iter().flatten().sum::<f64>();
        let base = total(teacher_forced_packed(intact, config, &[src], &[tgt]).await?);
        let mut heads = vec![];
        for head in HeadRef::all(config) {
            let model = intact.without_heads(config, &Ablation::new(vec![head]))?;
            let ablated =
                total(teacher_forced_packed(model.as_ref(), config, &[src], &[tgt]).await?);
            heads.push(HeadImportance {
                head,
                drop: (base - ablated) as f32,
            });
        }
        Ok(Importance {
            total_log_p: base as f32,
            tokens: tgt.len().saturating_sub(1),
            heads,
        })
    }
}

/// Teacher-forced log-probabilities: for each sentence, `log p(target[i + 1] | source,
/// target[..= i])` for every `i`, in one padded batch. Each target starts with `<s>`.
///
/// # Shapes
/// `sources[b]: [src_len_b]`, `targets[b]: [tgt_len_b]` → `[batch][tgt_len_b − 1]`.
pub async fn teacher_forced(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[&[u32]],
    targets: &[&[u32]],
) -> Result<Vec<Vec<f64>>> {
    teacher_forced_packed(
        Weights {
            model,
            packed: None,
        },
        config,
        sources,
        targets,
    )
    .await
}

/// A model and, on the CPU of a wasm module, its projections packed (`model::packed`).
#[derive(Clone, Copy)]
struct Weights<'a> {
    model: &'a Transformer,
    packed: Option<&'a PackedWeights>,
}

/// A model with heads off and its packed projections likewise (sharing what they do not change).
struct AblatedWeights {
    model: Transformer,
    packed: Option<PackedWeights>,
}

impl Weights<'_> {
    fn without_heads(self, config: &ModelConfig, ablation: &Ablation) -> Result<AblatedWeights> {
        let packed = match self.packed {
            Some(packed) => Some(packed.without_heads(config, ablation)?),
            None => None,
        };
        let model = self.model.without_heads(config, ablation)?;
        Ok(AblatedWeights { model, packed })
    }
}

impl AblatedWeights {
    fn as_ref(&self) -> Weights<'_> {
        Weights {
            model: &self.model,
            packed: self.packed.as_ref(),
        }
    }
}

/// [`teacher_forced`] through packed projections where given.
async fn teacher_forced_packed(
    Weights { model, packed }: Weights<'_>,
    config: &ModelConfig,
    sources: &[&[u32]],
    targets: &[&[u32]],
) -> Result<Vec<Vec<f64>>> {
    if sources.len() != targets.len() || targets.iter().any(|t| t.len() < 2) {
        return Err(Error::Invariant(
            "teacher forcing needs a source and a target of two tokens or more per sentence",
        ));
    }
    let device = model.positional_encoding.device();
    let inputs: Vec<&[u32]> = targets.iter().map(|t| &t[..t.len() - 1]).collect();
    let next: Vec<&[u32]> = targets.iter().map(|t| &t[1..]).collect();
    let src = padded(sources, config.pad_id, &device);
    let encoded = model.encode_packed(src, None, packed);
    let cross = model.cross_key_values_packed(encoded.memory, packed);
    let tgt = padded(&inputs, config.pad_id, &device);
    let logits = model
        .decode_projected(tgt, &cross, &encoded.padding_mask, packed)
        .logits; // [batch, tgt_len, vocab]
    let [batch, len, _] = logits.dims();
    let chosen = padded(&next, config.pad_id, &device).reshape([batch, len, 1]);
    let log_p = log_softmax(logits, 2).gather(2, chosen); // [batch, tgt_len, 1]
    let values = read_back(vec![flat(log_p)]).await?.concat();
    Ok(next
        .iter()
        .enumerate()
        .map(|(b, row)| {
            let start = b * len;
            values[start..start + row.len()]
                .iter()
                .map(|&v| f64::from(v))
                .collect()
        })
        .collect())
}

/// Greedy decoding of a batch of sources with the key/value cache, by the session's rule
/// ([`next_token`]), so that evaluation measures what the page shows: per source, the ids after
/// `<s>`, ending with `</s>` when it was produced.
pub async fn greedy(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[&[u32]],
) -> Result<Vec<Vec<u32>>> {
    greedy_packed(
        Weights {
            model,
            packed: None,
        },
        config,
        sources,
    )
    .await
}

/// [`greedy`] through packed projections where given.
async fn greedy_packed(
    Weights { model, packed }: Weights<'_>,
    config: &ModelConfig,
    sources: &[&[u32]],
) -> Result<Vec<Vec<u32>>> {
    let device = model.positional_encoding.device();
    let src = padded(sources, config.pad_id, &device);
    let encoded = model.encode_packed(src, None, packed);
    let cross: Vec<KeyValue> = model.cross_key_values_packed(encoded.memory.clone(), packed);
    let mut cache: Vec<Option<KeyValue>> = vec![None; config.n_decoder_layers];
    // Greedy decoding draws no random numbers; the generator only fills the rule's signature.
    let mut rng = Rng::new(0);
    let mut current = vec![config.bos_id; sources.len()];
    let mut produced: Vec<Vec<u32>> = vec![vec![]; sources.len()];
    let mut done = vec![false; sources.len()];
    for position in 0..config.output_limit().saturating_sub(1) {
        let rows: Vec<&[u32]> = current.iter().map(std::slice::from_ref).collect();
        let tokens = padded(&rows, config.pad_id, &device); // [batch, 1]
        let output = model.decode_step(
            tokens,
            position,
            &cross,
            &encoded.padding_mask,
            &mut cache,
            packed,
        );
        let logits = read_back(vec![flat(output.logits)]).await?.concat(); // [batch × vocab]
        let never = config.never_generated_at(position + 1);
        for (row, scores) in logits.chunks(config.tgt_vocab_size).enumerate() {
            let id = next_token(scores, &never, &Sampling::Greedy, &mut rng);
            if !done[row] {
                produced[row].push(id);
                done[row] = id == config.eos_id;
            }
            current[row] = id;
        }
        if done.iter().all(|&d| d) {
            break;
        }
    }
    Ok(produced)
}

/// Rows of ids, padded at the end with `pad` to the longest: `[rows, longest]`.
pub fn padded(rows: &[&[u32]], pad: u32, device: &burn::tensor::Device) -> Tensor<2, Int> {
    let longest = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut values = Vec::with_capacity(rows.len() * longest);
    for row in rows {
        values.extend(row.iter().map(|&id| i64::from(id)));
        values.extend(std::iter::repeat_n(i64::from(pad), longest - row.len()));
    }
    Tensor::from_data(TensorData::new(values, [rows.len(), longest]), device)
}
