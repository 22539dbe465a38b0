//! CC-CEDICT words as extra training pairs for the translators (`train --dictionary N`):
//! `data_dir/cedict/cedict.tsv`, written by `scripts/fetch_cedict.py`, the most frequent words
//! first.

use std::path::Path;

use super::data::{read_tsv, Pair};
use super::sets::Unseen;
use crate::error::{Error, Result};
use crate::text::TextTokenizer;

/// The dictionary's first `n` words as pairs the way round a recipe's go (Chinese source with
/// `reversed`), leaving out each word that `chinese` (the run's Chinese tokenizer) cannot
/// spell without `<unk>`, and each whose English or Chinese `unseen` forbids.
pub fn dictionary_pairs(
    data_dir: &Path,
    n: usize,
    reversed: bool,
    chinese: &TextTokenizer,
    unseen: &Unseen,
) -> Result<Vec<Pair>> {
    let path = data_dir.join("cedict/cedict.tsv");
    let words = read_tsv(&path, "en", "zh").map_err(|e| {
        Error::Training(format!(
            "--dictionary needs {} (python3 scripts/fetch_cedict.py writes it): {e}",
            path.display()
        ))
    })?;
    let mut pairs = Vec::new();
    for word in words.into_iter().take(n) {
        let spelled = !chinese.encode(&word.target)?.unknown.contains(&true);
        if spelled && unseen.allows(&word.source, &word.target) {
            pairs.push(if reversed {
                Pair::new(word.target, word.source)
            } else {
                word
            });
        }
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::sets::translation_data;

    /// A scratch data folder whose dictionary has `rows`, most frequent first.
    fn folder(rows: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("cedict")).unwrap();
        let text = format!("zh\ten\tfrequency\n{rows}");
        std::fs::write(dir.path().join("cedict/cedict.tsv"), text).unwrap();
        dir
    }

    /// The shipped data's held-out rule and a Chinese tokenizer of every character seen twice
    /// in `sentences`.
    fn rules(sentences: &[&str]) -> (Unseen, TextTokenizer) {
        let unseen = translation_data(Path::new("data")).unwrap().unseen;
        let twice = sentences.iter().chain(sentences).copied();
        let chinese =
            crate::text::build_tokenizer(crate::text::Granularity::Chinese, twice, 2).unwrap();
        (unseen, chinese)
    }

    #[test]
    fn keeps_the_first_words_the_vocabulary_spells_and_no_held_out_side() {
        // 手表: 手 and 表 are in no sentence; 吃苹果 / "I love eating apples": the running
        // example's English; 我爱吃苹果 is its Chinese. All their characters are spelled.
        let rows = "苹果\tapple\t50\n手表\twristwatch\t40\n吃苹果\tI love eating apples\t30\n\
                    我爱吃苹果\tlove apples\t20\n我爱\tI love\t10\n";
        let scratch = folder(rows);
        let dir = scratch.path();
        let (unseen, chinese) = rules(&["我爱吃苹果。"]);
        let four = dictionary_pairs(dir, 4, false, &chinese, &unseen).unwrap();
        assert_eq!(four, [Pair::new("apple", "苹果")]);
        let five = dictionary_pairs(dir, 5, false, &chinese, &unseen).unwrap();
        assert_eq!(
            five,
            [Pair::new("apple", "苹果"), Pair::new("I love", "我爱")]
        );
        let zh_en = dictionary_pairs(dir, 5, true, &chinese, &unseen).unwrap();
        assert_eq!(
            zh_en,
            [Pair::new("苹果", "apple"), Pair::new("我爱", "I love")]
        );
    }

    #[test]
    fn a_missing_dictionary_says_which_script_writes_it() {
        let dir = std::env::temp_dir().join("attnscope-dictionary-none");
        let (unseen, chinese) = rules(&["我"]);
        let err = dictionary_pairs(&dir, 10, true, &chinese, &unseen)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cedict/cedict.tsv") && err.contains("scripts/fetch_cedict.py"),
            "{err}"
        );
    }
}
