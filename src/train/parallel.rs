//! Data-parallel training steps: a batch split across threads, one copy of the model each.
//!
//! Each thread runs the forward and backward pass of its share of the batch on its own fork of
//! the model (fresh autodiff leaves with the same parameter ids, so burn keeps the threads'
//! graphs apart), with its dropout masks drawn from its own generator, seeded from the run's
//! seed, the step and the thread's place. Each share's loss is its summed token losses over the
//! whole batch's token count, so the shares' gradients add up to the whole batch's gradient and
//! are added in thread order: the step is deterministic however the threads are scheduled.

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor};

use super::{backward, TrainOptions};
use crate::error::{Error, Result};
use crate::model::dropout::with_own_generator;
use crate::model::Transformer;
use crate::session::sampling::Rng;

/// The batch's mean token loss and its gradients, computed on `options.threads` threads.
/// `loss_parts` gives the summed token loss of some of the batch's rows (and their token count,
/// unused here: each share is divided by the whole batch's `tokens`).
pub(super) fn step<F>(
    model: &Transformer,
    batch: &[usize],
    tokens: usize,
    options: &TrainOptions,
    step: usize,
    loss_parts: F,
) -> Result<(f32, GradientsParams)>
where
    F: Fn(&Transformer, &[usize], &Device) -> (Tensor<1>, Tensor<1>) + Sync,
{
    let share = batch.len().div_ceil(options.threads.max(1)).max(1);
    let device = Device::flex().autodiff();
    let loss_parts = &loss_parts;
    let results: Vec<std::thread::Result<(f32, GradientsParams)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(share)
            .enumerate()
            .map(|(place, rows)| {
                let local = model.clone().fork(&device);
                let device = device.clone();
                let seed = share_seed(options.seed, step, place);
                scope.spawn(move || {
                    with_own_generator(seed, || {
                        let (sum, _) = loss_parts(&local, rows, &device);
                        backward(sum.div_scalar(tokens.max(1) as f32), &local)
                    })
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join()).collect()
    });
    let mut loss = 0.0;
    let mut parts = Vec::with_capacity(results.len());
    for result in results {
        let (value, grads) =
            result.map_err(|_| Error::Training("a training thread panicked".into()))?;
        loss += value;
        parts.push(grads);
    }
    let mut merge = Merge {
        parts,
        merged: GradientsParams::new(),
    };
    model.visit(&mut merge);
    Ok((loss, merge.merged))
}

/// The dropout seed of one thread's share of one step.
fn share_seed(seed: u64, step: usize, place: usize) -> u64 {
    let mut rng =
        Rng::new(seed ^ ((step as u64) << 8 | place as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    rng.next_u64()
}

/// Sums each parameter's gradients over the threads' parts, in their order.
struct Merge {
    parts: Vec<GradientsParams>,
    merged: GradientsParams,
}

impl ModuleVisitor for Merge {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let sum = self
            .parts
            .iter_mut()
            .filter_map(|part| part.remove::<D>(param.id))
            .reduce(|a, b| a + b);
        if let Some(sum) = sum {
            self.merged.register(param.id, sum);
        }
    }
}
