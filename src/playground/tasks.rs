//! The four toy tasks, generated from a seed: copy, reverse and sort a row of digits, and
//! translate into a tiny made-up language. Each task sets aside a held-out set first; the
//! training stream never yields one of its sources, so held-out figures measure what the model
//! worked out, not what it memorised.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::language;
use crate::model::config::SpecialIds;
use crate::session::sampling::Rng;
use crate::text::SPECIAL_TOKENS;

/// Held-out examples per task.
pub const HELDOUT: usize = 500;
/// The shortest and longest digit rows.
pub const DIGITS_LEN: (usize, usize) = (4, 8);
/// The digit tasks' symbols.
const DIGITS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
/// Mixed into the seed of the held-out draw, so it is not the training stream's start.
const HELDOUT_SALT: u64 = 0x4845_4C44_4F55_5421;

/// What the model learns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Write the digits as they came: `3 1 4` → `3 1 4`.
    Copy,
    /// Write them backwards: `3 1 4` → `4 1 3`.
    #[default]
    Reverse,
    /// Write them in ascending order: `3 1 4` → `1 3 4`.
    Sort,
    /// Translate into a made-up language whose adjectives follow their noun and whose verb comes
    /// last: `big cat sees small dog` → `miko gra baru lin vidu`.
    Language,
}

impl Task {
    /// Every task.
    pub const ALL: [Task; 4] = [Task::Copy, Task::Reverse, Task::Sort, Task::Language];

    /// The name a link and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Task::Copy => "copy",
            Task::Reverse => "reverse",
            Task::Sort => "sort",
            Task::Language => "language",
        }
    }

    /// The steps after which the baseline model gets every held-out example right, with every
    /// seed measured (docs/playground.md): sorting, which must count repeated digits, takes
    /// twice as long as the others.
    pub fn baseline_steps(self) -> usize {
        match self {
            Task::Sort => 3000,
            Task::Copy | Task::Reverse | Task::Language => 1500,
        }
    }

    /// One line saying what the task is.
    pub fn description(self) -> &'static str {
        match self {
            Task::Copy => "copy 4 to 8 digits",
            Task::Reverse => "reverse 4 to 8 digits",
            Task::Sort => "sort 4 to 8 digits",
            Task::Language => "translate into a made-up language (adjective after noun, verb last)",
        }
    }
}

/// One example as model ids, without `<s>` or `</s>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pair {
    /// Source ids.
    pub source: Vec<u32>,
    /// Target ids.
    pub target: Vec<u32>,
}

impl Pair {
    /// The source as the encoder reads it: its ids, then `</s>` (`eos`).
    pub fn encoder_input(&self, eos: u32) -> Vec<u32> {
        [self.source.as_slice(), &[eos]].concat()
    }
}

/// A task's vocabularies, its held-out set and the rule that makes examples.
#[derive(Clone, Debug)]
pub struct TaskData {
    /// Which task.
    pub task: Task,
    /// Source words, in id order after the special tokens.
    pub source_words: Vec<&'static str>,
    /// Target words, likewise.
    pub target_words: Vec<&'static str>,
    /// Examples set aside before training: never drawn for it.
    pub heldout: Vec<Pair>,
    heldout_sources: HashSet<Vec<u32>>,
}

/// The id of the `index`-th word of a vocabulary (after the special tokens).
fn word_id(index: usize) -> u32 {
    (SPECIAL_TOKENS.len() + index) as u32
}

/// A number in `0..n` (n small: the modulo bias is below 1e-17).
pub(super) fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n.max(1) as u64) as usize
}

impl TaskData {
    /// The task with its held-out set drawn from `seed`.
    pub fn new(task: Task, seed: u64) -> Self {
        let (source_words, target_words) = match task {
            Task::Language => (language::english_words(), language::made_up_words()),
            _ => (DIGITS.to_vec(), DIGITS.to_vec()),
        };
        let mut data = Self {
            task,
            source_words,
            target_words,
            heldout: Vec::with_capacity(HELDOUT),
            heldout_sources: HashSet::with_capacity(HELDOUT),
        };
        let mut rng = Rng::new(seed ^ HELDOUT_SALT);
        while data.heldout.len() < HELDOUT {
            let pair = data.draw(&mut rng);
            if data.heldout_sources.insert(pair.source.clone()) {
                data.heldout.push(pair);
            }
        }
        data
    }

    /// Source vocabulary size, special tokens included.
    pub fn source_vocab_size(&self) -> usize {
        SPECIAL_TOKENS.len() + self.source_words.len()
    }

    /// Target vocabulary size, special tokens included.
    pub fn target_vocab_size(&self) -> usize {
        SPECIAL_TOKENS.len() + self.target_words.len()
    }

    /// Any example of the task.
    pub fn draw(&self, rng: &mut Rng) -> Pair {
        if self.task == Task::Language {
            let (source, target) = language::sentence(rng);
            return Pair {
                source: source.into_iter().map(word_id).collect(),
                target: target.into_iter().map(word_id).collect(),
            };
        }
        let len = DIGITS_LEN.0 + below(rng, DIGITS_LEN.1 - DIGITS_LEN.0 + 1);
        let source: Vec<u32> = (0..len)
            .map(|_| word_id(below(rng, DIGITS.len())))
            .collect();
        let mut target = source.clone();
        match self.task {
            Task::Reverse => target.reverse(),
            Task::Sort => target.sort_unstable(),
            Task::Copy | Task::Language => {}
        }
        Pair { source, target }
    }

    /// `size` training examples: drawn from `rng`, skipping every held-out source.
    pub fn training_batch(&self, rng: &mut Rng, size: usize) -> Vec<Pair> {
        let mut batch = Vec::with_capacity(size);
        while batch.len() < size {
            let pair = self.draw(rng);
            if !self.heldout_sources.contains(&pair.source) {
                batch.push(pair);
            }
        }
        batch
    }

    /// Whether `source` is held out.
    pub fn is_heldout(&self, source: &[u32]) -> bool {
        self.heldout_sources.contains(source)
    }

    /// Ids as the words they stand for, space-separated (`<s>`, `</s>` and `<pad>` left out).
    pub fn text(&self, words: &[&'static str], ids: &[u32]) -> String {
        let specials = SpecialIds::default();
        let skip = [specials.pad, specials.bos, specials.eos];
        let pieces: Vec<&str> = ids
            .iter()
            .filter(|id| !skip.contains(id))
            .map(|&id| {
                (id as usize)
                    .checked_sub(SPECIAL_TOKENS.len())
                    .and_then(|index| words.get(index).copied())
                    .unwrap_or(SPECIAL_TOKENS[1])
            })
            .collect();
        pieces.join(" ")
    }

    /// A pair as readable text: source → target.
    pub fn pair_text(&self, pair: &Pair) -> (String, String) {
        (
            self.text(&self.source_words, &pair.source),
            self.text(&self.target_words, &pair.target),
        )
    }

    /// The first held-out source, as text (the model's example input).
    pub fn example(&self) -> String {
        self.heldout
            .first()
            .map(|pair| self.pair_text(pair).0)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_the_rule_and_training_never_sees_a_heldout_source() {
        for task in Task::ALL {
            let data = TaskData::new(task, 7);
            assert_eq!(data.heldout.len(), HELDOUT);
            let mut rng = Rng::new(7);
            for pair in data.training_batch(&mut rng, 2000) {
                assert!(!data.is_heldout(&pair.source), "{task:?}");
                let mut expected = pair.source.clone();
                match task {
                    Task::Copy => {}
                    Task::Reverse => expected.reverse(),
                    Task::Sort => expected.sort_unstable(),
                    Task::Language => continue,
                }
                assert_eq!(pair.target, expected);
                assert!((4..=8).contains(&pair.source.len()));
            }
        }
        let reverse = TaskData::new(Task::Reverse, 7);
        assert_eq!(reverse.source_vocab_size(), 14);
        let pair = Pair {
            source: vec![7, 5, 8],
            target: vec![8, 5, 7],
        };
        assert_eq!(
            reverse.pair_text(&pair),
            ("3 1 4".to_string(), "4 1 3".to_string())
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_heldout_set() {
        let (a, b) = (TaskData::new(Task::Sort, 3), TaskData::new(Task::Sort, 3));
        assert_eq!(a.heldout, b.heldout);
        assert_ne!(a.heldout, TaskData::new(Task::Sort, 4).heldout);
    }
}
