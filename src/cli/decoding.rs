//! Loading a model and decoding a text as the decoding options say (greedy, sampled, from a
//! prefix, beam search, with a training snapshot's weights).

use std::path::{Path, PathBuf};

use burn::tensor::Device;
use clap::Args;

use crate::files::folder::{read_file, ModelFolder};
use crate::files::timeline::{read_timeline, Snapshot};
use crate::model::ablation::{Ablation, HeadRef};
use crate::session::sampling::Sampling;
use crate::session::{BeamSearch, Focus};
use crate::{block_on, Error, Result, Session};

#[derive(Args)]
pub(super) struct Decode {
    /// Model folder (config.json, model.safetensors, src_tokenizer.json, tgt_tokenizer.json).
    #[arg(long, default_value = "models/en-zh")]
    pub(super) model: PathBuf,
    /// Sample with this temperature instead of greedy decoding.
    #[arg(long)]
    pub(super) temperature: Option<f32>,
    /// With --temperature: sample among the k most probable tokens.
    #[arg(long, default_value_t = 5)]
    pub(super) top_k: usize,
    /// With --temperature: the generator's seed.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Continue from this output prefix instead of starting empty.
    #[arg(long)]
    pub(super) prefix: Option<String>,
    /// Decode with beam search of this width (1–8) instead of greedily; the output is the best
    /// hypothesis.
    #[arg(long, value_name = "WIDTH")]
    pub(super) beam: Option<usize>,
    /// With --beam: α of the length penalty ((5 + len) / 6)^α.
    #[arg(long, default_value_t = 1.0)]
    pub(super) length_penalty: f64,
    /// Use the training snapshot taken at this step (see `timeline`) instead of the final weights.
    #[arg(long)]
    pub(super) checkpoint: Option<usize>,
    /// Switch these heads off (their output set to zero before W_O), e.g. `cross:2:1,encoder:0:3`;
    /// KIND is encoder, decoder or cross.
    #[arg(long, value_name = "KIND:LAYER:HEAD[,…]")]
    pub(super) ablate: Option<String>,
    /// The text to translate.
    pub(super) text: String,
}

/// A training snapshot's weights (a recorded snapshot has none).
pub(super) fn read_snapshot(model: &Path, snapshot: &Snapshot) -> Result<Vec<u8>> {
    if snapshot.recorded {
        return Err(Error::Timeline(format!(
            "the snapshot at step {} is a recording of the timeline's sentences, not weights: \
             see `attnscope timeline`",
            snapshot.step
        )));
    }
    read_file(&model.join(&snapshot.file))
}

/// The model folder loaded as asked: a snapshot's weights, sampling settings.
pub(super) fn session(decode: &Decode) -> Result<Session> {
    let folder = ModelFolder::read(&decode.model)?;
    let mut session = Session::load(folder.files(), Device::flex())?;
    if let Some(step) = decode.checkpoint {
        let timeline = read_timeline(&decode.model)?;
        let bytes = read_snapshot(&decode.model, timeline.at(step)?)?;
        session.replace_weights(&bytes)?;
    }
    if let Some(spec) = &decode.ablate {
        session.set_ablation(Ablation::parse(spec)?)?;
    }
    if let Some(temperature) = decode.temperature {
        session.set_sampling(Sampling::Sample {
            temperature,
            top_k: decode.top_k,
            seed: decode.seed,
        })?;
    }
    Ok(session)
}

/// Decode the text as asked; returns the beam search when there was one.
pub(super) fn decode(session: &mut Session, decode: &Decode) -> Result<Option<BeamSearch>> {
    block_on(async {
        session.start(&decode.text).await?;
        if let Some(width) = decode.beam {
            let search = session.beam(width, decode.length_penalty).await?;
            let best = search
                .finals
                .first()
                .ok_or(Error::Invariant("a beam search without a hypothesis"))?;
            session.force_ids(&best.ids.clone()).await?;
            return Ok(Some(search));
        }
        if let Some(prefix) = &decode.prefix {
            session.set_prefix(prefix).await?;
        }
        session.run_to_end().await?;
        Ok(None)
    })
}

/// `cross:1:2` → the focus (Cross, 1, 2).
pub(super) fn parse_focus(spec: &str) -> Result<Focus> {
    let head = HeadRef::parse(spec)?;
    Ok(Focus {
        kind: head.kind,
        layer: head.layer,
        head: head.head,
    })
}
