//! Evaluation: held-out sets decoded as the page decodes them (the same source cut, the same
//! decoding rule, the same output text), scored with exact match and chrF.

use std::path::Path;

use burn::tensor::Device;
use serde::Serialize;

use super::agreement::HumanAgreement;
use super::data::{metrics, shuffle};
use super::sets::Heldout;
use crate::error::{Error, Result};
use crate::files::folder::{LoadedModel, ModelFolder};
use crate::files::weights::expected_tensors;
use crate::model::ablation::Ablation;
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::session::heads::greedy;
use crate::session::output_text;
use crate::session::sampling::Rng;
use crate::text::TextTokenizer;
use crate::Session;

/// One held-out set's figures.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetMetrics {
    /// Which set (`tatoeba`, `hsk`, `generated`, `hand-written`).
    pub name: String,
    /// Pairs in it.
    pub pairs: usize,
    /// Exact-match rate.
    pub exact_match: f64,
    /// Corpus chrF (sacrebleu's definition).
    pub chrf: f64,
}

/// What a training run measured, saved as `metrics.json` next to the model.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Model name.
    pub model: String,
    /// Training pairs used.
    pub train_pairs: usize,
    /// Held-out pairs evaluated (the first set).
    pub heldout_pairs: usize,
    /// Exact-match rate on the first held-out set.
    pub exact_match: f64,
    /// Corpus chrF on the first held-out set.
    pub chrf: f64,
    /// Every held-out set, the first one first.
    pub sets: Vec<SetMetrics>,
    /// Wall-clock training seconds.
    pub train_seconds: f64,
    /// Number of parameters.
    pub parameters: usize,
    /// Ten held-out examples of the first set drawn at random (seeded): (input, expected,
    /// produced).
    pub examples: Vec<(String, String, String)>,
    /// The config's example sentence and its translation.
    pub example_sentence: (String, String),
    /// The held-out Tatoeba figures beside two human translators' (the translators only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub human_agreement: Option<HumanAgreement>,
    /// Every held-out translation: (set, source, reference, output); not saved in
    /// `metrics.json` (`attnscope eval --dump` writes them).
    #[serde(skip)]
    pub outputs: Vec<[String; 4]>,
}

/// Translate many sentences with batched greedy decoding (the saved model, on the CPU), each
/// source cut as the page cuts it ([`ModelConfig::fit_source`]).
pub fn translate_all(loaded: &LoadedModel, sources: &[&str]) -> Result<Vec<String>> {
    let config = &loaded.config;
    let ids = sources
        .iter()
        .map(|text| loaded.source_ids(text))
        .collect::<Result<Vec<_>>>()?;
    let outputs = greedy_decode(&loaded.model, config, &ids, 64)?;
    Ok(outputs
        .iter()
        .map(|o| output_text(config, &loaded.tgt_tokenizer, o))
        .collect())
}

/// How held-out sources are decoded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decoding {
    /// Greedy, batched (the figures in `metrics.json`).
    Greedy,
    /// The page's beam search: `width` beams, length penalty `alpha`; the best final.
    Beam {
        /// Beam width.
        width: usize,
        /// α of the length penalty `((5 + len) / 6)^α`.
        alpha: f64,
    },
}

/// Beam-search translations of `sources`, one at a time through the page's `Session::beam`.
pub fn translate_all_beam(
    session: &mut Session,
    tokenizer: &TextTokenizer,
    sources: &[&str],
    width: usize,
    alpha: f64,
) -> Result<Vec<String>> {
    let mut outputs = Vec::with_capacity(sources.len());
    for source in sources {
        crate::block_on(session.start(source))?;
        let search = crate::block_on(session.beam(width, alpha))?;
        let best = search
            .finals
            .first()
            .ok_or(Error::Invariant("a beam search ended without a final"))?;
        outputs.push(output_text(session.config(), tokenizer, &best.ids));
    }
    Ok(outputs)
}

/// Evaluate a saved model folder on its held-out sets (the first one is the headline).
pub fn evaluate(dir: &Path, heldout: &[Heldout]) -> Result<Metrics> {
    evaluate_with(dir, heldout, Decoding::Greedy, &Ablation::default())
}

/// [`evaluate`], decoding as `decoding` says, with the heads of `ablation` switched off.
pub fn evaluate_with(
    dir: &Path,
    heldout: &[Heldout],
    decoding: Decoding,
    ablation: &Ablation,
) -> Result<Metrics> {
    let folder = ModelFolder::read(dir)?;
    let mut loaded = LoadedModel::load(folder.files(), &Device::flex())?;
    loaded.model = loaded.model.without_heads(&loaded.config, ablation)?;
    // Beam search runs through a session over the same loaded model (its tensors are shared).
    let mut beam = match decoding {
        Decoding::Beam { width, alpha } => {
            Some((Session::new(loaded.clone(), Device::flex()), width, alpha))
        }
        Decoding::Greedy => None,
    };
    let mut sets = vec![];
    let mut examples = vec![];
    let mut outputs = vec![];
    for (index, set) in heldout.iter().enumerate() {
        let sources: Vec<&str> = set.pairs.iter().map(|p| p.source.as_str()).collect();
        let hypotheses = match beam.as_mut() {
            Some((session, width, alpha)) => {
                translate_all_beam(session, &loaded.tgt_tokenizer, &sources, *width, *alpha)?
            }
            None => translate_all(&loaded, &sources)?,
        };
        let references: Vec<String> = set.pairs.iter().map(|p| p.target.clone()).collect();
        sets.push(SetMetrics {
            name: set.name.to_string(),
            pairs: set.pairs.len(),
            exact_match: metrics::exact_match(&hypotheses, &references),
            chrf: metrics::chrf(&hypotheses, &references),
        });
        outputs.extend(set.pairs.iter().zip(&hypotheses).map(|(p, h)| {
            [
                set.name.to_string(),
                p.source.clone(),
                p.target.clone(),
                h.clone(),
            ]
        }));
        if index == 0 {
            // Ten drawn at random (seeded), not picked.
            let mut order: Vec<usize> = (0..set.pairs.len()).collect();
            shuffle(&mut order, &mut Rng::new(EXAMPLES_SEED));
            examples = order
                .into_iter()
                .take(10)
                .map(|i| {
                    let p = &set.pairs[i];
                    (p.source.clone(), p.target.clone(), hypotheses[i].clone())
                })
                .collect();
        }
    }
    let first = sets
        .first()
        .cloned()
        .ok_or_else(|| Error::Training("no held-out set".into()))?;
    let example = loaded.config.example.clone();
    let translated = translate_all(&loaded, &[example.as_str()])?.remove(0);
    let parameters = expected_tensors(&loaded.config)
        .iter()
        .map(|(_, shape)| shape.iter().product::<usize>())
        .sum();
    Ok(Metrics {
        model: loaded.config.name.clone(),
        train_pairs: 0,
        heldout_pairs: first.pairs,
        exact_match: first.exact_match,
        chrf: first.chrf,
        sets,
        train_seconds: 0.0,
        parameters,
        examples,
        example_sentence: (example, translated),
        human_agreement: None,
        outputs,
    })
}

/// Seed of the draw of the ten examples in `metrics.json`.
pub const EXAMPLES_SEED: u64 = 5;

/// Greedy decoding of many sentences, `batch_size` at a time, by the session's rule
/// ([`greedy`]): the ids after `<s>`, ending with `</s>` when it was produced.
pub fn greedy_all(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[Vec<u32>],
    batch_size: usize,
) -> Result<Vec<Vec<u32>>> {
    let mut outputs = Vec::with_capacity(sources.len());
    for chunk in sources.chunks(batch_size.max(1)) {
        let rows: Vec<&[u32]> = chunk.iter().map(Vec::as_slice).collect();
        outputs.extend(crate::block_on(greedy(model, config, &rows))?);
    }
    Ok(outputs)
}

/// [`greedy_all`] without the `</s>`: the output tokens only.
pub fn greedy_decode(
    model: &Transformer,
    config: &ModelConfig,
    sources: &[Vec<u32>],
    batch_size: usize,
) -> Result<Vec<Vec<u32>>> {
    let mut outputs = greedy_all(model, config, sources, batch_size)?;
    for output in &mut outputs {
        if output.last() == Some(&config.eos_id) {
            output.pop();
        }
    }
    Ok(outputs)
}
