//! heads.json: every head's mean importance and roles over a set of sentences, the one format
//! `attnscope heads --json` prints and the playground's model in training is scored into. The
//! page reads it (www/worker/model-folder.js `parseHeads`) for the Heads panel.

use serde::Serialize;

use super::roles::{self, HeadRoles, Role, RoleScore};
use super::{importance, MeanImportance, Sentence};
use crate::error::Result;
use crate::model::config::ModelConfig;
use crate::model::Transformer;

/// One head's row: its importance, the roles it plays and every role's score.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadRow {
    /// The head, its mean importance and the share of sentences it hurts when off.
    #[serde(flatten)]
    pub importance: MeanImportance,
    /// The roles whose score reaches the threshold, the highest score first.
    pub roles: Vec<Role>,
    /// Every role that applies to the head's kind, with its score.
    pub scores: Vec<RoleScore>,
}

/// heads.json.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadsReport {
    /// The model's name (`config.json`'s).
    pub model: String,
    /// Sentences measured.
    pub sentences: usize,
    /// One row per head, in [`crate::model::ablation::HeadRef::all`]'s order.
    pub heads: Vec<HeadRow>,
}

impl HeadsReport {
    /// The report of `importance` and `roles`, both in `HeadRef::all`'s order, measured over
    /// `sentences` sentences.
    pub fn new(
        config: &ModelConfig,
        sentences: usize,
        importance: Vec<MeanImportance>,
        roles: Vec<HeadRoles>,
    ) -> Self {
        let heads = importance
            .into_iter()
            .zip(roles)
            .map(|(importance, roles)| HeadRow {
                importance,
                roles: roles.roles,
                scores: roles.scores,
            })
            .collect();
        Self {
            model: config.name.clone(),
            sentences,
            heads,
        }
    }

    /// Measure every head's importance and roles over `sentences`.
    pub async fn measure(
        model: &Transformer,
        config: &ModelConfig,
        sentences: &[Sentence],
    ) -> Result<Self> {
        let importance = importance(model, config, sentences).await?;
        let roles = roles::score(model, config, sentences).await?;
        Ok(Self::new(config, sentences.len(), importance, roles))
    }
}
