//! Choosing the next token on the host, after the logits are read back: greedy, or temperature
//! and top-k sampling with a seeded generator (reproducible on every backend).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::softmax;

/// How the next token is chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "mode")]
pub enum Sampling {
    /// Always the most probable token.
    Greedy,
    /// Sample from softmax(logits / temperature) restricted to the `top_k` most probable tokens.
    Sample {
        /// > 0; below 1 sharpens, above 1 flattens.
        temperature: f32,
        /// How many candidates may be drawn (≥ 1).
        top_k: usize,
        /// Seed of the generator; the same seed gives the same choices.
        seed: u64,
    },
}

impl Sampling {
    /// Reject settings that cannot be used.
    pub fn validate(&self) -> Result<()> {
        if let Sampling::Sample {
            temperature, top_k, ..
        } = self
        {
            if !(temperature.is_finite() && *temperature > 0.0 && *temperature <= 100.0) {
                return Err(Error::Sampling(format!(
                    "temperature must be in (0, 100], got {temperature}"
                )));
            }
            if *top_k == 0 {
                return Err(Error::Sampling("top_k must be at least 1".into()));
            }
        }
        Ok(())
    }
}

/// SplitMix64: tiny, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The whole state: `Rng::new(rng.state())` continues exactly where `rng` is.
    pub fn state(&self) -> u64 {
        self.0
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// softmax over `logits`: the exponentials in f32 by the vectorised exp of the attention
/// softmax (within 2.5e-7 relative of std's), their sum and the division in f64. libm's scalar
/// f64 `exp` over a 4,000-token vocabulary was ~6 % of a translation on wasm.
pub fn probabilities(logits: &[f32], temperature: f32) -> Vec<f32> {
    let max = softmax::max(logits);
    let exps: Vec<f32> = logits
        .iter()
        .map(|&l| softmax::exp((l - max) / temperature))
        .collect();
    let sum: f64 = exps.iter().map(|&e| e as f64).sum();
    exps.iter().map(|&e| (e as f64 / sum) as f32).collect()
}

/// log softmax over `logits`, computed in f64.
pub fn log_probabilities(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let log_sum = logits
        .iter()
        .map(|&l| (l as f64 - max).exp())
        .sum::<f64>()
        .ln();
    logits.iter().map(|&l| l as f64 - max - log_sum).collect()
}

/// Indices of the `k` largest values, largest first (ties: lower index first).
///
/// One pass keeping a small sorted buffer: O(n·k) for the handful of candidates shown, instead
/// of sorting the whole vocabulary on every step.
pub fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    let k = k.min(values.len());
    let mut best: Vec<usize> = Vec::with_capacity(k + 1);
    if k == 0 {
        return best;
    }
    // `a` ranks above `b`: larger value, or equal value and lower index; NaN ranks last.
    let above = |a: usize, b: usize| match values[a].partial_cmp(&values[b]) {
        Some(order) => order.is_gt(),
        None => !values[a].is_nan() && values[b].is_nan(),
    };
    for i in 0..values.len() {
        if best.len() == k && !above(i, best[k - 1]) {
            continue;
        }
        let at = best.iter().position(|&b| above(i, b)).unwrap_or(best.len());
        best.insert(at, i);
        best.truncate(k);
    }
    best
}

/// The decoding rule, the one the page, the CLI and training's evaluation all use: the tokens a
/// translation can never contain (`never`, e.g. `<pad>` and `<s>`) are ruled out, then
/// `sampling` chooses among the rest.
pub fn next_token(logits: &[f32], never: &[u32], sampling: &Sampling, rng: &mut Rng) -> u32 {
    let mut allowed = logits.to_vec();
    rule_out(&mut allowed, never, f32::NEG_INFINITY);
    choose(&allowed, sampling, rng) as u32
}

/// Set the scores of the `never` ids to `minus_infinity`, so that no ranking picks them.
pub fn rule_out<T: Copy>(scores: &mut [T], never: &[u32], minus_infinity: T) {
    for &id in never {
        if let Some(score) = scores.get_mut(id as usize) {
            *score = minus_infinity;
        }
    }
}

/// Choose a token index from `logits`.
pub fn choose(logits: &[f32], sampling: &Sampling, rng: &mut Rng) -> usize {
    match sampling {
        Sampling::Greedy => top_k(logits, 1).first().copied().unwrap_or(0),
        Sampling::Sample {
            temperature,
            top_k: k,
            ..
        } => {
            let probs = probabilities(logits, *temperature);
            let pool = top_k(&probs, *k);
            let total: f64 = pool.iter().map(|&i| probs[i] as f64).sum();
            let mut target = rng.next_f64() * total;
            for &i in &pool {
                target -= probs[i] as f64;
                if target <= 0.0 {
                    return i;
                }
            }
            pool.last().copied().unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_takes_the_argmax_and_sampling_respects_top_k() {
        let logits = [0.1, 3.0, 2.9, -1.0];
        let mut rng = Rng::new(7);
        assert_eq!(choose(&logits, &Sampling::Greedy, &mut rng), 1);
        let sampling = Sampling::Sample {
            temperature: 1.0,
            top_k: 2,
            seed: 7,
        };
        for _ in 0..200 {
            let i = choose(&logits, &sampling, &mut rng);
            assert!(i == 1 || i == 2);
        }
    }

    #[test]
    fn top_k_matches_a_full_sort() {
        let mut rng = Rng::new(3);
        for n in [0, 1, 5, 40, 1788] {
            let mut values: Vec<f32> = (0..n)
                .map(|_| (rng.next_f64() * 8.0).round() as f32)
                .collect();
            if n > 3 {
                values[2] = f32::NAN;
            }
            for k in [0, 1, 5, 50] {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&a, &b| {
                    let key = |i: usize| {
                        if values[i].is_nan() {
                            f32::NEG_INFINITY
                        } else {
                            values[i]
                        }
                    };
                    key(b).total_cmp(&key(a)).then(a.cmp(&b))
                });
                order.truncate(k);
                assert_eq!(top_k(&values, k), order, "n {n} k {k}");
            }
        }
    }

    #[test]
    fn same_seed_same_choices() {
        let logits: Vec<f32> = (0..50).map(|i| (i as f32 * 0.37).sin()).collect();
        let sampling = Sampling::Sample {
            temperature: 1.5,
            top_k: 10,
            seed: 1,
        };
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..20)
                .map(|_| choose(&logits, &sampling, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }

    #[test]
    fn bad_settings_are_rejected() {
        assert!(Sampling::Sample {
            temperature: 0.0,
            top_k: 3,
            seed: 0
        }
        .validate()
        .is_err());
        assert!(Sampling::Sample {
            temperature: f32::NAN,
            top_k: 3,
            seed: 0
        }
        .validate()
        .is_err());
        assert!(Sampling::Sample {
            temperature: 1.0,
            top_k: 0,
            seed: 0
        }
        .validate()
        .is_err());
        assert!(Sampling::Greedy.validate().is_ok());
    }
}
