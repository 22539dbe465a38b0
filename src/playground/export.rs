//! A model in training as a model folder (config.json, model.safetensors, the two tokenizers),
//! which the page downloads, `attnscope translate` and every other command open; and as a
//! [`LoadedModel`], which the page's views trace while it trains.

use burn::tensor::Tensor;

use super::measure::read;
use super::tasks::TaskData;
use super::trainer::Trainer;
use crate::error::{Error, Result};
use crate::files::folder::{LoadedModel, ModelFolder, FILE_NAMES};
use crate::files::walk::{transpose, walk, Slot};
use crate::files::weights::{serialize, HostTensor};
use crate::model::config::SpecialIds;
use crate::model::positional::{PositionalEncoding, PositionalTable};
use crate::text::{tokenizer_json, Granularity, TextTokenizer};

/// The task's two tokenizers, as files and loaded.
#[derive(Clone, Debug)]
pub(super) struct Vocabularies {
    source_json: String,
    target_json: String,
    source: TextTokenizer,
    target: TextTokenizer,
}

impl Vocabularies {
    /// Word-level tokenizers for the task's source and target words.
    pub fn new(data: &TaskData) -> Result<Self> {
        let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let source_json = tokenizer_json(Granularity::Words, &words(&data.source_words));
        let target_json = tokenizer_json(Granularity::Words, &words(&data.target_words));
        let load = |json: &str, file| {
            TextTokenizer::from_bytes(json.as_bytes(), file, SpecialIds::default())
        };
        Ok(Self {
            source: load(&source_json, FILE_NAMES.src_tokenizer)?,
            target: load(&target_json, FILE_NAMES.tgt_tokenizer)?,
            source_json,
            target_json,
        })
    }
}

/// A parameter waiting to be read back.
enum Pending {
    /// A `Linear` weight, stored transposed.
    Linear(String, Tensor<2>),
    /// A matrix or a vector, stored as is.
    Plain(String, Tensor<1>, Vec<usize>),
}

impl Trainer {
    /// The current weights as a model folder: `config.json`, `model.safetensors` (F32, so the
    /// folder decodes exactly as the trainer does) and the two tokenizers.
    pub async fn model_folder(&self) -> Result<ModelFolder> {
        let config = &self.model_config;
        let mut model = self.model();
        let mut pending = Vec::new();
        walk(config, Some(&mut model), &mut |name, shape, slot| {
            pending.push(
                match slot.ok_or(Error::Invariant("a parameter without its model slot"))? {
                    Slot::Linear(param) => Pending::Linear(name, param.val()),
                    Slot::Matrix(param) => {
                        Pending::Plain(name, param.val().flatten::<1>(0, 1), shape)
                    }
                    Slot::Vector(param) => Pending::Plain(name, param.val(), shape),
                },
            );
            Ok(())
        })?;
        let mut tensors = Vec::with_capacity(pending.len());
        for item in pending {
            tensors.push(match item {
                Pending::Linear(name, tensor) => {
                    let [rows, cols] = tensor.dims();
                    let data = transpose(&read(tensor).await?, rows, cols);
                    let shape = vec![cols, rows];
                    (name, HostTensor { shape, data })
                }
                Pending::Plain(name, tensor, shape) => {
                    let data = read(tensor).await?;
                    (name, HostTensor { shape, data })
                }
            });
        }
        Ok(ModelFolder {
            config: config.to_json()?.into_bytes(),
            weights: serialize(&tensors, false)?,
            src_tokenizer: self.vocabularies.source_json.clone().into_bytes(),
            tgt_tokenizer: self.vocabularies.target_json.clone().into_bytes(),
        })
    }

    /// The current weights as a loaded model (no autodiff), with the positional table the model
    /// adds: what a `Session` over the model in training is built from.
    pub async fn loaded_model(&self) -> Result<LoadedModel> {
        let model = self.model();
        let mut positional = PositionalTable::new(&self.model_config);
        if self.model_config.positional_encoding == PositionalEncoding::Learned {
            positional.values = read(model.positional_encoding.clone()).await?;
        }
        Ok(LoadedModel {
            config: self.model_config.clone(),
            model,
            positional,
            src_tokenizer: self.vocabularies.source.clone(),
            tgt_tokenizer: self.vocabularies.target.clone(),
        })
    }

    /// Write the model folder into `dir` (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub async fn save(&self, dir: &std::path::Path) -> Result<()> {
        self.model_folder().await?.write(dir)
    }
}
