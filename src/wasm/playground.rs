//! The playground's training worker's boundary (the `train` feature's modules: pkg/train/ on the
//! CPU, pkg/train-webgpu/ with WebGPU too): one exported type, `Playground`, over
//! [`crate::playground::Trainer`] on burn's CPU backend or WebGPU, and
//! the facts the page builds its switches and presets from. Settings cross as the same camelCase
//! JSON a link carries, checked field by field; a divergence is an error with its own key
//! (`error.diverged`) and the step it stopped at. Every readback is async.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::{js_error, keyed_error, to_js};
use crate::error::Error;
use crate::playground::{
    experiments, PlaygroundConfig, Task, TrainError, Trainer, DIGITS_LEN, HELDOUT, MAX_BATCH,
    MAX_LEARNING_RATE, MAX_SEED, MAX_STEPS,
};
use burn::tensor::Device;

/// A training error as a `JsError` with its key and params, as [`js_error`] does for [`Error`].
fn train_error(error: TrainError) -> JsError {
    keyed_error(&error.to_string(), error.key(), error.params())
}

/// One task as the page offers it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskFact {
    name: &'static str,
    description: &'static str,
    steps: usize,
}

/// What the page's switches, presets and link checks are built from.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Facts {
    defaults: PlaygroundConfig,
    tasks: Vec<TaskFact>,
    experiments: Vec<crate::playground::Experiment>,
    max_learning_rate: f64,
    max_steps: usize,
    max_batch: usize,
    max_seed: u64,
    heldout: usize,
    digits: (usize, usize),
}

/// The defaults, the tasks, the four experiments (seed 1; the page sets its own) and the limits.
#[wasm_bindgen(js_name = playgroundFacts)]
pub fn playground_facts() -> Result<JsValue, JsError> {
    to_js(&Facts {
        defaults: PlaygroundConfig::default(),
        tasks: Task::ALL
            .iter()
            .map(|&task| TaskFact {
                name: task.name(),
                description: task.description(),
                steps: task.baseline_steps(),
            })
            .collect(),
        experiments: experiments(1),
        max_learning_rate: MAX_LEARNING_RATE,
        max_steps: MAX_STEPS,
        max_batch: MAX_BATCH,
        max_seed: MAX_SEED,
        heldout: HELDOUT,
        digits: DIGITS_LEN,
    })
}

/// Settings from a link or the page (camelCase JSON, only what differs from the defaults), whole
/// and checked: the first field out of range is named in the error.
#[wasm_bindgen(js_name = checkPlaygroundConfig)]
pub fn check_playground_config(json: &str) -> Result<JsValue, JsError> {
    to_js(&PlaygroundConfig::from_json(json).map_err(js_error)?)
}

/// A run as the panel shows it: its settings, its size, and a few held-out pairs as text.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info {
    config: PlaygroundConfig,
    parameters: usize,
    heldout: usize,
    examples: Vec<(String, String)>,
    example: String,
}

/// A model in training, on the CPU or on WebGPU.
#[wasm_bindgen]
pub struct Playground {
    trainer: Trainer,
}

impl Playground {
    /// A fresh run of the settings in `config` (camelCase JSON) on `device`.
    fn on(config: &str, device: &Device) -> Result<Playground, JsError> {
        super::constructors::run_once();
        let config = PlaygroundConfig::from_json(config).map_err(js_error)?;
        let trainer = Trainer::new(config, device).map_err(js_error)?;
        Ok(Self { trainer })
    }
}

#[wasm_bindgen]
impl Playground {
    /// A fresh run of the settings in `config` (camelCase JSON, as a link carries them).
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str) -> Result<Playground, JsError> {
        Self::on(config, &Device::flex())
    }

    /// A fresh run of `config` (as [`Playground::new`]) on `backend`: 'cpu' (burn's flex) or
    /// 'webgpu' (the worker's wgpu device, initialised asynchronously; only in a module built
    /// with the `webgpu` feature). The initial weights are the CPU's on both.
    pub async fn create(config: String, backend: String) -> Result<Playground, JsError> {
        let device = match backend.as_str() {
            "cpu" => Device::flex(),
            "webgpu" => super::backend::webgpu_device().await.map_err(js_error)?,
            other => {
                return Err(js_error(Error::Usage(format!(
                    "unknown training backend {other:?}: use cpu or webgpu"
                ))))
            }
        };
        Self::on(&config, &device)
    }

    /// The run's settings, its size, its held-out count and a few held-out pairs as text.
    pub fn info(&self) -> Result<JsValue, JsError> {
        let data = self.trainer.task();
        to_js(&Info {
            config: self.trainer.config().clone(),
            parameters: self.trainer.parameters(),
            heldout: data.heldout.len(),
            examples: data
                .heldout
                .iter()
                .take(4)
                .map(|p| data.pair_text(p))
                .collect(),
            example: data.example(),
        })
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u32 {
        u32::try_from(self.trainer.steps()).unwrap_or(u32::MAX)
    }

    /// Take `n` steps: each step's report ({ step, loss, learningRate }). A loss that is NaN or
    /// infinite stops the run (`error.diverged`); the weights of the step before stay.
    pub async fn step(&mut self, n: u32) -> Result<JsValue, JsError> {
        let reports = self.trainer.step(n as usize).await.map_err(train_error)?;
        to_js(&reports)
    }

    /// The held-out loss, attention entropy and greedy exact match of the current weights.
    pub async fn evaluate(&self) -> Result<JsValue, JsError> {
        to_js(&self.trainer.evaluate().await.map_err(js_error)?)
    }

    /// The model folder of the current weights: { config, weights, srcTokenizer, tgtTokenizer },
    /// each a Uint8Array of the file's bytes, named as modelFileNames() names them.
    #[wasm_bindgen(js_name = modelFolder)]
    pub async fn model_folder(&self) -> Result<JsValue, JsError> {
        let folder = self.trainer.model_folder().await.map_err(js_error)?;
        let object = js_sys::Object::new();
        let files: [(&str, &[u8]); 4] = [
            ("config", &folder.config),
            ("weights", &folder.weights),
            ("srcTokenizer", &folder.src_tokenizer),
            ("tgtTokenizer", &folder.tgt_tokenizer),
        ];
        for (name, bytes) in files {
            let array = js_sys::Uint8Array::from(bytes);
            js_sys::Reflect::set(&object, &name.into(), &array.into()).map_err(|_| {
                js_error(Error::Invariant("a model folder's file could not be set"))
            })?;
        }
        Ok(object.into())
    }

    /// heads.json of the current weights (as `attnscope heads --json` writes it, read by the
    /// model worker's parseHeads): every head's mean importance and roles over the first
    /// `HEADS_SENTENCES` held-out examples, each with the model's own greedy output. A
    /// Uint8Array of the file's bytes.
    pub async fn heads(&self) -> Result<Vec<u8>, JsError> {
        self.trainer.heads_json().await.map_err(js_error)
    }
}
