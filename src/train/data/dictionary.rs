//! CC-CEDICT words as extra training pairs for the translators (`train --dictionary N`):
//! `data_dir/cedict/cedict.tsv`, written by `scripts/fetch_cedict.py`, the most frequent words
//! first.

use std::collections::HashSet;
use std::path::Path;

use super::{read_tsv, Pair};
use crate::error::{Error, Result};
use crate::train::sets::{normalized, Heldout};

/// `pairs` and then the dictionary's first `n` words, each the way round `pairs` go (Chinese
/// source with `reversed`). A word is left out when one of its characters is in none of
/// `pairs`' Chinese (the model's vocabulary has no place for it), or when it is, normalized,
/// the Chinese of a pair in `heldout`.
pub fn with_dictionary(
    mut pairs: Vec<Pair>,
    data_dir: &Path,
    n: usize,
    reversed: bool,
    heldout: &[Heldout],
) -> Result<Vec<Pair>> {
    let path = data_dir.join("cedict/cedict.tsv");
    let words = read_tsv(&path, "en", "zh").map_err(|e| {
        Error::Training(format!(
            "--dictionary needs {} (python3 scripts/fetch_cedict.py writes it): {e}",
            path.display()
        ))
    })?;
    let chinese = |p: &Pair| {
        if reversed {
            p.source.clone()
        } else {
            p.target.clone()
        }
    };
    let known: HashSet<char> = pairs
        .iter()
        .flat_map(|p| chinese(p).chars().collect::<Vec<_>>())
        .collect();
    let held_out: HashSet<String> = heldout
        .iter()
        .flat_map(|set| &set.pairs)
        .map(|p| normalized(&chinese(p)))
        .collect();
    let extra: Vec<Pair> = words
        .into_iter()
        .take(n)
        .filter(|w| w.target.chars().all(|c| known.contains(&c)))
        .filter(|w| !held_out.contains(&normalized(&w.target)))
        .map(|w| {
            if reversed {
                Pair::new(w.target, w.source)
            } else {
                w
            }
        })
        .collect();
    pairs.extend(extra);
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data folder whose dictionary has four words, most frequent first.
    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "attnscope-dictionary-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(dir.join("cedict")).unwrap();
        let rows = "zh\ten\tfrequency\n苹果\tapple\t40\n手表\twristwatch\t30\n谢谢\tthank you\t20\n吃饭\teat a meal\t10\n";
        std::fs::write(dir.join("cedict/cedict.tsv"), rows).unwrap();
        dir
    }

    fn heldout(reversed: bool) -> Vec<Heldout> {
        let pair = if reversed {
            Pair::new("谢谢！", "Thanks!")
        } else {
            Pair::new("Thanks!", "谢谢！")
        };
        vec![Heldout {
            name: "tatoeba",
            pairs: vec![pair],
        }]
    }

    #[test]
    fn appends_the_first_words_that_the_vocabulary_can_spell_and_no_held_out_one() {
        let dir = folder("en-zh");
        let pairs = vec![
            Pair::new("I eat apples.", "我吃苹果。"),
            Pair::new("Rice.", "饭"),
        ];
        // 手表: 表 is in no training sentence; 谢谢 is a held-out sentence's Chinese.
        let three = with_dictionary(pairs.clone(), &dir, 3, false, &heldout(false)).unwrap();
        assert_eq!(three[2..], [Pair::new("apple", "苹果")]);
        let four = with_dictionary(pairs.clone(), &dir, 4, false, &heldout(false)).unwrap();
        assert_eq!(four[..2], pairs[..]);
        assert_eq!(
            four[2..],
            [Pair::new("apple", "苹果"), Pair::new("eat a meal", "吃饭")]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn turns_the_words_round_for_chinese_to_english() {
        let dir = folder("zh-en");
        let pairs = vec![
            Pair::new("我吃苹果。", "I eat apples."),
            Pair::new("饭", "Rice."),
        ];
        let out = with_dictionary(pairs, &dir, 4, true, &heldout(true)).unwrap();
        assert_eq!(
            out[2..],
            [Pair::new("苹果", "apple"), Pair::new("吃饭", "eat a meal")]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_missing_dictionary_says_which_script_writes_it() {
        let dir = std::env::temp_dir().join("attnscope-dictionary-none");
        let err = with_dictionary(Vec::new(), &dir, 10, true, &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cedict/cedict.tsv") && err.contains("scripts/fetch_cedict.py"),
            "{err}"
        );
    }
}
