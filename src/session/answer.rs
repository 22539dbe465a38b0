//! What the session answers: one type for the page (through the wasm module) and for
//! `attnscope trace --json`.

use super::{Attribution, BeamSearch, HeadStages};
use crate::trace::analysis::Analysis;
use crate::trace::Trace;

/// What every call that changes the sentence answers, on the page and in `attnscope trace
/// --json` alike: the whole trace, and the focused head's stages when asked for.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer<'a> {
    /// The trace so far.
    pub trace: &'a Trace,
    /// The focused head's stages (`None` when no head is focused or its kind has no row yet).
    pub stages: Option<HeadStages>,
    /// Mean and max over heads, rollout, source attribution (always on the page; CLI
    /// `--analysis`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// The beam search that chose the output (CLI `--beam`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beam: Option<BeamSearch>,
    /// One output token's occlusion attribution (CLI `--attribution`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
}

impl<'a> Answer<'a> {
    /// The trace and the focused head's stages, nothing else.
    pub fn new(trace: &'a Trace, stages: Option<HeadStages>) -> Self {
        Self {
            trace,
            stages,
            analysis: None,
            beam: None,
            attribution: None,
        }
    }
}
