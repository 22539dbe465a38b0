//! The data sets the recipes train and evaluate on: generated and hand-written dates, Tatoeba
//! and HSK sentence pairs, and which of them are held out.

use std::collections::HashSet;
use std::path::Path;

use crate::error::{Error, Result};
use crate::session::sampling::Rng;
use crate::train::data::{dates, en_zh, numeric_dates, read_tsv, shuffle, split_holdout, Pair};

/// Seed of the held-out date set (the training set never contains one of its sources).
pub const DATE_HELDOUT_SEED: u64 = 1001;
/// Size of the held-out date set.
pub const DATE_HELDOUT_SIZE: usize = 1000;

/// The seed of the impossible numeric dates' years ([`date_impossible`]).
pub const DATE_IMPOSSIBLE_SEED: u64 = 1002;
/// Seed of the HSK 95/5 split.
pub const EN_ZH_SPLIT_SEED: u64 = 7;
/// Seed of the Tatoeba held-out draw.
pub const TATOEBA_SPLIT_SEED: u64 = 17;
/// Held-out Tatoeba pairs.
pub const TATOEBA_HELDOUT: usize = 1000;
/// Tatoeba pairs with more English words than this are left out (of training and held-out).
pub const MAX_ENGLISH_WORDS: usize = 12;
/// The running example: the sentence the page opens with.
pub const EXAMPLE_SENTENCE: &str = "I love eating apples.";
/// The running example in Chinese (zh-en's example).
pub const EXAMPLE_SENTENCE_ZH: &str = "我爱吃苹果。";

/// Generated date-iso training pairs.
pub const DATE_TRAIN_SIZE: usize = 50_000;

/// A held-out set by name.
pub struct Heldout {
    /// `tatoeba`, `hsk`, `generated`…
    pub name: &'static str,
    /// Its pairs.
    pub pairs: Vec<Pair>,
}

/// The hand-written date phrasings (`data/date-iso/handwritten.tsv`, written before the model
/// was trained), held out like the generated ones.
pub fn date_handwritten(data_dir: &Path) -> Result<Vec<Pair>> {
    read_tsv(
        &data_dir.join("date-iso/handwritten.tsv"),
        "source",
        "target",
    )
}

/// Sources never to generate: the hand-written ones (lower-cased, as the tokenizer sees them).
fn handwritten_sources(data_dir: &Path) -> Result<HashSet<String>> {
    Ok(date_handwritten(data_dir)?
        .into_iter()
        .map(|p| p.source.to_lowercase())
        .collect())
}

/// The held-out generated date pairs (none is a hand-written phrasing).
pub fn date_heldout(data_dir: &Path) -> Result<Vec<Pair>> {
    let exclude = handwritten_sources(data_dir)?;
    Ok(dates::date_pairs(
        DATE_HELDOUT_SIZE,
        DATE_HELDOUT_SEED,
        &exclude,
    ))
}

/// Every impossible numeric date (`numeric_dates::impossible_numeric_dates`), held out: the
/// exhaustive test asks the model for `invalid` on each.
pub fn date_impossible() -> Vec<String> {
    numeric_dates::impossible_numeric_dates(DATE_IMPOSSIBLE_SEED)
}

/// The date-iso training pairs (never a held-out, impossible-set or hand-written source).
pub fn date_train(count: usize, data_dir: &Path) -> Result<Vec<Pair>> {
    let mut exclude = handwritten_sources(data_dir)?;
    exclude.extend(date_impossible().iter().map(|text| text.to_lowercase()));
    exclude.extend(
        date_heldout(data_dir)?
            .into_iter()
            .map(|p| p.source.to_lowercase()),
    );
    Ok(dates::date_pairs(count, 1, &exclude))
}

/// date-iso's held-out sets: generated, then hand-written.
pub fn date_sets(data_dir: &Path) -> Result<Vec<Heldout>> {
    Ok(vec![
        Heldout {
            name: "generated",
            pairs: date_heldout(data_dir)?,
        },
        Heldout {
            name: "hand-written",
            pairs: date_handwritten(data_dir)?,
        },
    ])
}

/// The English–Chinese data (English source, Chinese target; zh-en swaps each pair).
pub struct TranslationData {
    /// Training pairs: Tatoeba and HSK (and the generated grammar if asked), none held out.
    pub train: Vec<Pair>,
    /// 1,000 held-out Tatoeba pairs.
    pub tatoeba: Vec<Pair>,
    /// The 218 held-out HSK pairs.
    pub hsk: Vec<Pair>,
    /// What no training pair may say on either side (the held-out pairs, the running example).
    pub unseen: Unseen,
}

/// The English and the Chinese, normalized, that no training pair may have on either side:
/// every held-out pair's and the running example's, so no held-out sentence is seen in training
/// in either direction.
#[derive(Clone, Debug)]
pub struct Unseen {
    english: HashSet<String>,
    chinese: HashSet<String>,
}

impl Unseen {
    /// From held-out (English, Chinese) pairs, and the running example.
    fn new<'a>(held: impl Iterator<Item = &'a Pair>) -> Self {
        let (mut english, mut chinese): (HashSet<String>, HashSet<String>) = held
            .map(|p| (normalized(&p.source), normalized(&p.target)))
            .unzip();
        english.insert(normalized(EXAMPLE_SENTENCE));
        chinese.insert(normalized(EXAMPLE_SENTENCE_ZH));
        Self { english, chinese }
    }

    /// Whether a pair with this English and this Chinese may be trained on.
    pub fn allows(&self, english: &str, chinese: &str) -> bool {
        !self.english.contains(&normalized(english)) && !self.chinese.contains(&normalized(chinese))
    }
}

impl TranslationData {
    /// The same data in the other direction (Chinese source, English target).
    pub fn reversed(self) -> Self {
        let swap = |pairs: Vec<Pair>| -> Vec<Pair> {
            pairs
                .into_iter()
                .map(|p| Pair::new(p.target, p.source))
                .collect()
        };
        Self {
            train: swap(self.train),
            tatoeba: swap(self.tatoeba),
            hsk: swap(self.hsk),
            unseen: self.unseen,
        }
    }

    /// The held-out sets, Tatoeba first.
    pub fn heldout(self) -> Vec<Heldout> {
        vec![
            Heldout {
                name: "tatoeba",
                pairs: self.tatoeba,
            },
            Heldout {
                name: "hsk",
                pairs: self.hsk,
            },
        ]
    }
}

/// Text as the held-out rule compares it: lower case, letters and digits only, one space
/// between words (so "I'm home." and "im home" are the same sentence).
pub fn normalized(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// English → Chinese data from `data_dir/tatoeba/tatoeba.tsv` and `data_dir/en-zh/hsk.tsv`
/// (en-zh's training pairs; zh-en adds the grammar's, [`translation_data_with`]).
///
/// Held out: 1,000 Tatoeba pairs (seed 17) and 5 % of HSK (218 pairs, seed 7). A training pair
/// is dropped when its English or its Chinese, normalized, is one of a held-out pair's or the
/// running example's, so no held-out sentence is seen in training in either direction.
pub fn translation_data(data_dir: &Path) -> Result<TranslationData> {
    translation_data_with(data_dir, 0)
}

/// Sentences the grammar adds to the training pairs (`src/train/data/en_zh.rs`): zh-en trains with
/// them, en-zh without (docs/data.md).
pub const GENERATED_SENTENCES: usize = 1500;

/// [`translation_data`] with `generated` grammar sentences in the training pairs (0: none).
pub fn translation_data_with(data_dir: &Path, generated: usize) -> Result<TranslationData> {
    let short = |p: &Pair| p.source.split_whitespace().count() <= MAX_ENGLISH_WORDS;
    let mut tatoeba: Vec<Pair> = read_tsv(&data_dir.join("tatoeba/tatoeba.tsv"), "en", "zh")?
        .into_iter()
        .filter(short)
        .collect();
    shuffle(&mut tatoeba, &mut Rng::new(TATOEBA_SPLIT_SEED));
    let tatoeba_train = tatoeba.split_off(TATOEBA_HELDOUT.min(tatoeba.len()));
    let hsk = read_tsv(&data_dir.join("en-zh/hsk.tsv"), "en", "zh")?;
    let (hsk_train, hsk_heldout) = split_holdout(hsk, 0.05, EN_ZH_SPLIT_SEED);
    let unseen = Unseen::new(tatoeba.iter().chain(&hsk_heldout));
    let train = tatoeba_train
        .into_iter()
        .chain(hsk_train)
        .chain(en_zh::generated_sentences(generated, 11))
        .filter(|p| unseen.allows(&p.source, &p.target))
        .collect();
    Ok(TranslationData {
        train,
        tatoeba,
        hsk: hsk_heldout,
        unseen,
    })
}

/// The held-out sets of a shipped model, by its name.
pub fn heldout_for(name: &str, data_dir: &Path) -> Result<Vec<Heldout>> {
    match name {
        "date-iso" => date_sets(data_dir),
        "en-zh" => Ok(translation_data(data_dir)?.heldout()),
        "zh-en" => Ok(translation_data(data_dir)?.reversed().heldout()),
        other => Err(Error::Training(format!(
            "no held-out set is known for model {other:?}"
        ))),
    }
}
