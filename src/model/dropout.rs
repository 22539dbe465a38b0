//! Dropout whose masks can come from the calling thread's own generator.
//!
//! burn's `Dropout` draws its masks from the backend's one global generator, so two threads
//! training at once would interleave their draws differently on every run. Inside
//! [`with_own_generator`] each mask is drawn instead from a generator of that thread's, seeded by
//! the caller: data-parallel training stays deterministic. Outside it, [`apply`] is burn's
//! `Dropout::forward`, draw for draw (the single-threaded recipes are unchanged).

use std::cell::RefCell;

use burn::nn::Dropout;
use burn::tensor::{Tensor, TensorData};

use crate::session::sampling::Rng;

thread_local! {
    static OWN: RefCell<Option<Rng>> = const { RefCell::new(None) };
}

/// Run `f` with dropout masks drawn from a generator of this thread's, seeded with `seed`.
pub fn with_own_generator<T>(seed: u64, f: impl FnOnce() -> T) -> T {
    let before = OWN.with(|own| own.replace(Some(Rng::new(seed))));
    let result = f();
    OWN.with(|own| own.replace(before));
    result
}

/// `dropout` applied to `input`: zero each element with probability `prob` and scale the rest by
/// `1 / (1 - prob)` while training (an autodiff device, the layer's training flag on), the input
/// itself otherwise.
pub fn apply<const D: usize>(dropout: &Dropout, input: Tensor<D>) -> Tensor<D> {
    let device = input.device();
    let training = dropout.training.is_enabled() && device.is_autodiff() && dropout.prob > 0.0;
    let dims = input.dims();
    // Outside `with_own_generator`: burn's own; inside, a mask while training, else nothing.
    let own = OWN.with(|own| {
        let mut own = own.borrow_mut();
        own.as_mut()
            .map(|rng| training.then(|| mask(rng, dims.iter().product(), dropout.prob)))
    });
    match own {
        None => dropout.forward(input),
        Some(None) => input,
        Some(Some(mask)) => input * Tensor::<D>::from_data(TensorData::new(mask, dims), &device),
    }
}

/// `len` mask values: 0 with probability `prob`, `1 / (1 - prob)` otherwise (two 32-bit draws
/// from each 64 random bits).
fn mask(rng: &mut Rng, len: usize, prob: f64) -> Vec<f32> {
    let keep = 1.0 - prob;
    let scale = (1.0 / keep) as f32;
    let threshold = (keep * 4_294_967_296.0) as u64;
    let value = |bits: u64| if bits < threshold { scale } else { 0.0 };
    let mut out = Vec::with_capacity(len + 1);
    while out.len() < len {
        let bits = rng.next_u64();
        out.push(value(bits & 0xFFFF_FFFF));
        out.push(value(bits >> 32));
    }
    out.truncate(len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_drop_at_the_asked_rate_and_scale_the_rest() {
        let mut rng = Rng::new(7);
        let values = mask(&mut rng, 100_001, 0.1);
        assert_eq!(values.len(), 100_001);
        let dropped = values.iter().filter(|&&v| v == 0.0).count();
        assert!((9_500..10_500).contains(&dropped), "{dropped} dropped");
        let scale = (1.0 / 0.9) as f32;
        assert!(values.iter().all(|&v| v == 0.0 || v == scale));
        // The same seed, the same mask.
        assert_eq!(values, mask(&mut Rng::new(7), 100_001, 0.1));
    }
}
