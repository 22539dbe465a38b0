//! The trainer: one model, burn's Adam and learning-rate schedulers, a stream of training
//! examples, and the run's history. Every method that reads a tensor is async and reads
//! asynchronously, so the same code runs natively (driven by [`crate::block_on`]), in a browser
//! worker on the CPU, and on WebGPU.

use std::sync::{Mutex, PoisonError};

use burn::module::Module;
use burn::optim::lr_scheduler::composed::ComposedLrSchedulerConfig;
use burn::optim::lr_scheduler::cosine::CosineAnnealingLrSchedulerConfig;
use burn::optim::lr_scheduler::linear::LinearLrSchedulerConfig;
use burn::optim::lr_scheduler::module_lr_scheduler::ModuleLrScheduler;
use burn::optim::lr_scheduler::sequential::SequentialLrSchedulerConfig;
use burn::optim::lr_scheduler::LrSchedulerConfig;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Device;

use super::config::PlaygroundConfig;
use super::export::Vocabularies;
use super::measure::{cross_entropy, read, Batch};
use super::report::{Divergence, StepReport, TrainError};
use super::tasks::TaskData;
use crate::error::{Error, Result};
use crate::files::walk::{walk, Slot};
use crate::model::config::ModelConfig;
use crate::model::Transformer;
use crate::session::sampling::Rng;

/// What the learning rate falls to at the end of the run, as a share of the peak.
const FINAL_RATE: f64 = 0.1;
/// Mixed into the seed of the training stream.
const STREAM_SALT: u64 = 0x5452_4149_4E21;

/// burn's random initialisers draw from one generator for the whole process: building two
/// models at once from two threads would interleave their draws.
static SEEDED_INIT: Mutex<()> = Mutex::new(());

/// A model in training with everything it needs to take the next step.
pub struct Trainer {
    pub(super) config: PlaygroundConfig,
    pub(super) model_config: ModelConfig,
    pub(super) data: TaskData,
    pub(super) vocabularies: Vocabularies,
    /// The autodiff device the model trains on.
    device: Device,
    pub(super) model: Transformer,
    /// The weights at the start of the last step taken (the ones its loss was measured with).
    previous: Option<Transformer>,
    optimizer: ModuleOptimizer,
    scheduler: ModuleLrScheduler,
    stream: Rng,
    steps: usize,
    history: Vec<StepReport>,
    stopped: Option<Divergence>,
}

impl Trainer {
    /// A fresh run of `config` on `device` (a CPU or WebGPU device; the trainer adds autodiff).
    /// The same config gives the same initial weights (on every backend), the same batches and,
    /// on the CPU, the same curve bit for bit.
    pub fn new(config: PlaygroundConfig, device: &Device) -> Result<Self> {
        config.validate()?;
        let data = TaskData::new(config.task, config.seed);
        let model_config = config.model_config(&data);
        model_config.validate()?;
        let device = device.clone().autodiff();
        // The initial weights are drawn on the CPU (burn's generator differs per backend), then
        // moved (detached, still trainable): every backend starts from the CPU's weights.
        let cpu = Device::flex().autodiff();
        let mut model = fresh_model(&model_config, &cpu, config.seed)?;
        if device != cpu {
            model = model.fork(&device);
        }
        Ok(Self {
            vocabularies: Vocabularies::new(&data)?,
            optimizer: AdamConfig::new()
                .with_beta_2(0.98)
                .with_epsilon(1e-9)
                .init(),
            scheduler: schedule(&config)?,
            stream: Rng::new(config.seed ^ STREAM_SALT),
            config,
            model_config,
            data,
            device,
            model,
            previous: None,
            steps: 0,
            history: Vec::new(),
            stopped: None,
        })
    }

    /// The settings of this run.
    pub fn config(&self) -> &PlaygroundConfig {
        &self.config
    }

    /// The model's config (what `config.json` will hold).
    pub fn model_config(&self) -> &ModelConfig {
        &self.model_config
    }

    /// The task: its vocabularies, held-out set and readable pairs.
    pub fn task(&self) -> &TaskData {
        &self.data
    }

    /// Optimizer steps the current weights have taken.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Every step's report so far (the training curve), including the steps taken before a
    /// divergence.
    pub fn history(&self) -> &[StepReport] {
        &self.history
    }

    /// Why the run stopped, if it did.
    pub fn stopped(&self) -> Option<Divergence> {
        self.stopped
    }

    /// The number of parameters.
    pub fn parameters(&self) -> usize {
        self.model.num_params()
    }

    /// Take `n` steps. A loss that is NaN or infinite stops the run: the error names the step,
    /// the weights go back to the ones the last finite loss was measured with, and every later
    /// call returns the same error (the reports of the steps before it are in
    /// [`Self::history`]).
    pub async fn step(&mut self, n: usize) -> std::result::Result<Vec<StepReport>, TrainError> {
        let mut reports = Vec::with_capacity(n);
        for _ in 0..n {
            if let Some(divergence) = self.stopped {
                return Err(TrainError::Diverged(divergence));
            }
            reports.push(self.one_step().await?);
        }
        Ok(reports)
    }

    async fn one_step(&mut self) -> std::result::Result<StepReport, TrainError> {
        let step = self.steps + 1;
        let pairs = self
            .data
            .training_batch(&mut self.stream, self.config.batch_size);
        let batch = Batch::new(&pairs, &self.model_config, &self.device);
        let (_, decoded) = batch.forward(&self.model);
        let (sum, count) = cross_entropy(decoded.logits, batch.tgt_out, self.model_config.pad_id);
        let loss = sum / count; // [1]
        let value = read(loss.clone())
            .await?
            .first()
            .copied()
            .unwrap_or(f32::NAN);
        let rate = self.scheduler.step();
        let learning_rate = rate.base();
        if !value.is_finite() {
            return Err(TrainError::Diverged(self.stop(step, value)));
        }
        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        let next = self.optimizer.step(rate, self.model.clone(), grads);
        self.previous = Some(std::mem::replace(&mut self.model, next));
        self.steps = step;
        let report = StepReport {
            step,
            loss: value,
            learning_rate,
        };
        self.history.push(report);
        Ok(report)
    }

    /// Stop at `step`: keep the weights the last finite loss was measured with.
    fn stop(&mut self, step: usize, loss: f32) -> Divergence {
        if let Some(previous) = self.previous.take() {
            self.model = previous;
            self.steps = self.steps.saturating_sub(1);
        }
        let divergence = Divergence {
            step,
            loss,
            kept_step: self.steps,
        };
        self.stopped = Some(divergence);
        divergence
    }

    /// The model as it is now, for inference (no autodiff): what the views trace. A learned
    /// positional table is also copied into `positional_encoding`, which the views read.
    pub fn model(&self) -> Transformer {
        let mut model = self.model.valid();
        if let Some(table) = &model.learned_positions {
            model.positional_encoding = table.val();
        }
        model
    }
}

/// A randomly initialised model from `seed`: every parameter drawn now, in the weights file's
/// order, while no other model is being built.
fn fresh_model(config: &ModelConfig, device: &Device, seed: u64) -> Result<Transformer> {
    let _only_one = SEEDED_INIT.lock().unwrap_or_else(PoisonError::into_inner);
    device.seed(seed);
    let mut model = Transformer::new(config, device);
    walk(config, Some(&mut model), &mut |_, _, slot| {
        // Reading a lazily initialised parameter draws its values.
        match slot.ok_or(Error::Invariant("a parameter without its model slot"))? {
            Slot::Linear(param) | Slot::Matrix(param) => drop(param.val()),
            Slot::Vector(param) => drop(param.val()),
        }
        Ok(())
    })?;
    Ok(model)
}

/// The learning rate at each step: a linear warm-up to the peak over `warmup` steps, a cosine
/// decay to a tenth of it at `steps`, then that tenth. burn's schedulers: the peak times a
/// sequence of shapes that run from 0 to 1.
fn schedule(config: &PlaygroundConfig) -> Result<ModuleLrScheduler> {
    let (warmup, steps) = (config.warmup, config.steps);
    let mut shapes = Vec::with_capacity(3);
    let mut milestones = Vec::with_capacity(2);
    if warmup > 0 {
        let ramp = LinearLrSchedulerConfig::new(1.0 / warmup as f64, 1.0, warmup);
        shapes.push(LrSchedulerConfig::Linear(ramp));
        milestones.push(warmup);
    }
    let decay = CosineAnnealingLrSchedulerConfig::new(1.0, steps - warmup).with_min_lr(FINAL_RATE);
    shapes.push(LrSchedulerConfig::Cosine(decay));
    milestones.push(steps);
    shapes.push(LrSchedulerConfig::Constant(FINAL_RATE));
    let shape = SequentialLrSchedulerConfig::new(shapes, milestones);
    ComposedLrSchedulerConfig::new()
        .with_schedulers(vec![
            LrSchedulerConfig::Constant(config.learning_rate),
            LrSchedulerConfig::Sequential(shape),
        ])
        .init()
        .map_err(Error::Training)
}
