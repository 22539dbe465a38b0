//! Recordings instead of snapshots: a model whose snapshots do not fit the repository (en-zh,
//! 10 MB each) keeps, for a fixed set of sentences, what each snapshot answered. Each snapshot's
//! weights are loaded once more, every sentence is translated exactly as the page translates it,
//! and the weights file gives way to its [`Recording`].

use std::io::{Read, Write};
use std::path::Path;

use burn::tensor::Device;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use super::data::Pair;
use super::sets::EXAMPLE_SENTENCE;
use crate::error::{Error, Result};
use crate::files::folder::{read_file, write, ModelFolder};
use crate::files::timeline::{read_timeline, recording_file, Recording, TIMELINE_FILE};
use crate::session::{Answer, Focus};
use crate::trace::analysis::Analysis;
use crate::{block_on, Session};

/// How many sentences a recorded timeline keeps.
pub const RECORDED_SENTENCES: usize = 8;
/// The words of a recorded held-out sentence: short enough to read its heatmaps at a glance.
const RECORDED_WORDS: std::ops::RangeInclusive<usize> = 3..=8;

/// The sentences a recorded timeline keeps: the running example, then the first held-out pairs
/// of 3 to 8 words.
pub fn recorded_sentences(heldout: &[Pair]) -> Vec<String> {
    let short = heldout
        .iter()
        .map(|p| p.source.trim())
        .filter(|s| RECORDED_WORDS.contains(&s.split_whitespace().count()));
    std::iter::once(EXAMPLE_SENTENCE)
        .chain(short)
        .take(RECORDED_SENTENCES)
        .map(str::to_string)
        .collect()
}

/// How many tokens a recording decodes at most: an early snapshot never stops on its own, and
/// 64 tokens of noise from 8 sentences would fill 9 MB a snapshot (16: 0.5 MB gzipped). Every recorded sentence's
/// final translation is shorter.
pub const RECORDED_TOKENS: usize = 16;

/// What `session` answers for `text` as the page asks it, as JSON: decoded greedily (for at most
/// [`RECORDED_TOKENS`] tokens), with the default head's stages and the analysis. Written straight
/// from the f32 values (a `serde_json::Value` would hold them as f64 and print 17 digits).
fn answer(session: &mut Session, text: &str) -> Result<String> {
    block_on(async {
        session.start(text).await?;
        for _ in 0..RECORDED_TOKENS {
            if session.finished() {
                break;
            }
            session.step().await?;
        }
        Ok::<_, Error>(())
    })?;
    let stages = block_on(session.stages(Focus::DEFAULT))?;
    let trace = session.trace()?;
    let answer = Answer {
        analysis: Some(Analysis::of(trace)),
        ..Answer::new(trace, stages)
    };
    Ok(serde_json::to_string(&answer)?)
}

/// `bytes`, gzipped.
fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .map_err(|e| Error::Io {
            path: "(gzip)".into(),
            message: e.to_string(),
        })
}

/// The recording in the file at `path` (gzipped, or plain JSON).
pub fn read_recording(path: &Path) -> Result<Recording> {
    let bytes = read_file(path)?;
    let json = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut json = Vec::new();
        GzDecoder::new(bytes.as_slice())
            .read_to_end(&mut json)
            .map_err(|e| Error::Timeline(format!("{}: {e}", path.display())))?;
        json
    } else {
        bytes
    };
    serde_json::from_slice(&json).map_err(|e| Error::Timeline(format!("{}: {e}", path.display())))
}

/// Replace every weights snapshot of the timeline in `out` but the last (the shipped weights)
/// by its recording of `sentences`; `timeline.json` then lists them.
pub fn record_timeline(out: &Path, sentences: &[String]) -> Result<()> {
    let mut timeline = read_timeline(out)?;
    if !timeline.sentences.is_empty() && timeline.sentences != sentences {
        return Err(Error::Timeline(
            "it is already recorded, with other sentences".into(),
        ));
    }
    let folder = ModelFolder::read(out)?;
    let mut session = Session::load(folder.files(), Device::flex())?;
    let last = timeline.snapshots.len().saturating_sub(1);
    for snapshot in timeline.snapshots[..last].iter_mut() {
        if snapshot.recorded {
            continue;
        }
        let weights_path = out.join(&snapshot.file);
        session.replace_weights(&read_file(&weights_path)?)?;
        let answers = sentences
            .iter()
            .map(|text| answer(&mut session, text))
            .collect::<Result<Vec<_>>>()?;
        // A `Recording`, written by hand to keep each answer's own text.
        let json = format!(
            "{{\"step\":{},\"answers\":[{}]}}",
            snapshot.step,
            answers.join(",")
        );
        let file = recording_file(snapshot.step);
        write(out, &file, &gzip(json.as_bytes())?)?;
        std::fs::remove_file(&weights_path).map_err(|e| Error::Io {
            path: weights_path.display().to_string(),
            message: e.to_string(),
        })?;
        snapshot.file = file;
        snapshot.recorded = true;
    }
    timeline.sentences = sentences.to_vec();
    let json = serde_json::to_string_pretty(&timeline)?;
    write(out, TIMELINE_FILE, json.as_bytes())
}
