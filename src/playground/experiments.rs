//! The four experiments, each two runs that differ in one switch. The page's preset buttons and
//! the `playground --experiment` command both build them from here; docs/playground.md records
//! what they measured over five seeds.

use serde::Serialize;

use super::config::PlaygroundConfig;
use super::tasks::Task;
use crate::error::{Error, Result};
use crate::model::PositionalEncoding;

/// One run of an experiment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Arm {
    /// The switch's value in this run (`sinusoidal`, `none`, `on`, `off`, `1`, `4`).
    pub label: &'static str,
    /// The run's settings.
    pub config: PlaygroundConfig,
}

/// Two runs that differ in one switch.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Experiment {
    /// `A`, `B`, `C` or `D`.
    pub id: &'static str,
    /// The setting the runs differ in, as [`PlaygroundConfig`] names it.
    pub switch: &'static str,
    /// The paper's choice first, then the other.
    pub arms: [Arm; 2],
}

/// The ids of the experiments, in order.
pub const EXPERIMENT_IDS: [&str; 4] = ["A", "B", "C", "D"];

/// Every experiment, with `seed`.
pub fn experiments(seed: u64) -> Vec<Experiment> {
    EXPERIMENT_IDS
        .iter()
        .filter_map(|id| experiment(id, seed).ok())
        .collect()
}

/// The experiment `id` (`A` to `D`, either case), with `seed`.
pub fn experiment(id: &str, seed: u64) -> Result<Experiment> {
    let base = PlaygroundConfig {
        seed,
        ..PlaygroundConfig::default()
    };
    type Run = (&'static str, PlaygroundConfig);
    let pair = |id, switch, (a, first): Run, (b, second): Run| Experiment {
        id,
        switch,
        arms: [
            Arm {
                label: a,
                config: first,
            },
            Arm {
                label: b,
                config: second,
            },
        ],
    };
    let with = |change: &dyn Fn(&mut PlaygroundConfig)| {
        let mut config = base.clone();
        change(&mut config);
        config
    };
    let experiment = match id.to_ascii_uppercase().as_str() {
        // A: reverse with positional encoding, then without.
        "A" => pair(
            "A",
            "positional",
            ("sinusoidal", base.clone()),
            ("none", with(&|c| c.positional = PositionalEncoding::None)),
        ),
        // B: the decoder's causal mask on, then off.
        "B" => pair(
            "B",
            "causalDecoder",
            ("on", base.clone()),
            ("off", with(&|c| c.causal_decoder = false)),
        ),
        // C: ÷√d_k on, then off, at d_k = 64 (one head of width 64), where scores unscaled
        // have a spread of about 8 at the start.
        "C" => {
            let wide = |scaled| {
                with(&|c| {
                    c.d_model = 64;
                    c.heads = 1;
                    c.scaled_attention = scaled;
                })
            };
            pair(
                "C",
                "scaledAttention",
                ("on", wide(true)),
                ("off", wide(false)),
            )
        }
        // D: 1 head against 4 on the reordering task.
        "D" => {
            let heads = |heads| {
                with(&|c| {
                    c.task = Task::Language;
                    c.heads = heads;
                })
            };
            pair("D", "heads", ("4", heads(4)), ("1", heads(1)))
        }
        _ => {
            return Err(Error::Usage(format!(
                "no experiment {id}: the experiments are A, B, C and D"
            )))
        }
    };
    Ok(experiment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_experiment_differs_in_its_switch_alone() {
        for experiment in experiments(3) {
            let [a, b] = &experiment.arms;
            a.config.validate().unwrap();
            b.config.validate().unwrap();
            let (a, b) = (
                serde_json::to_value(&a.config).unwrap(),
                serde_json::to_value(&b.config).unwrap(),
            );
            let differing: Vec<&String> = a
                .as_object()
                .unwrap()
                .iter()
                .filter(|(key, value)| b[key.as_str()] != **value)
                .map(|(key, _)| key)
                .collect();
            assert_eq!(differing, [experiment.switch], "{}", experiment.id);
            assert_eq!(a["seed"], 3);
        }
        assert!(experiment("e", 1).is_err());
    }
}
