//! Generated sentences from a small bilingual grammar, subject × verb phrase × object, e.g. "My
//! father likes drinking tea." → 我爸爸喜欢喝茶。 zh-en trains on them, en-zh no longer does
//! (`train --grammar true|false` overrides that, to measure what they add; docs/data.md). The
//! example sentence "I love eating apples." is never generated (see [`is_example_sentence`]).

use super::Pair;
use crate::session::sampling::Rng;

/// (English, Chinese, third person singular?)
const SUBJECTS: [(&str, &str, bool); 13] = [
    ("I", "我", false),
    ("You", "你", false),
    ("He", "他", true),
    ("She", "她", true),
    ("We", "我们", false),
    ("They", "他们", false),
    ("My mother", "我妈妈", true),
    ("My father", "我爸爸", true),
    ("My friend", "我的朋友", true),
    ("The children", "孩子们", false),
    ("My little brother", "我弟弟", true),
    ("My older sister", "我姐姐", true),
    ("The teacher", "老师", true),
];

/// (English for I/you/we/they, for he/she, Chinese, takes food (true) or drink (false))
const VERBS: [(&str, &str, &str, bool); 14] = [
    ("love eating", "loves eating", "爱吃", true),
    ("like eating", "likes eating", "喜欢吃", true),
    ("don't like eating", "doesn't like eating", "不喜欢吃", true),
    ("want to eat", "wants to eat", "想吃", true),
    ("often eat", "often eats", "常常吃", true),
    ("eat", "eats", "吃", true),
    ("are eating", "is eating", "在吃", true),
    ("love drinking", "loves drinking", "爱喝", false),
    ("like drinking", "likes drinking", "喜欢喝", false),
    (
        "don't like drinking",
        "doesn't like drinking",
        "不喜欢喝",
        false,
    ),
    ("want to drink", "wants to drink", "想喝", false),
    ("drink", "drinks", "喝", false),
    ("love", "loves", "爱", true),
    ("like", "likes", "喜欢", true),
];

const FOODS: [(&str, &str); 16] = [
    ("apples", "苹果"),
    ("bananas", "香蕉"),
    ("grapes", "葡萄"),
    ("watermelon", "西瓜"),
    ("noodles", "面条"),
    ("rice", "米饭"),
    ("dumplings", "饺子"),
    ("bread", "面包"),
    ("fish", "鱼"),
    ("meat", "肉"),
    ("eggs", "鸡蛋"),
    ("vegetables", "蔬菜"),
    ("fruit", "水果"),
    ("chocolate", "巧克力"),
    ("cake", "蛋糕"),
    ("oranges", "橙子"),
];

const DRINKS: [(&str, &str); 6] = [
    ("tea", "茶"),
    ("coffee", "咖啡"),
    ("milk", "牛奶"),
    ("water", "水"),
    ("juice", "果汁"),
    ("beer", "啤酒"),
];

/// Whether `text` is the example sentence "I love eating apples" (any case, any final punctuation).
pub fn is_example_sentence(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words == ["i", "love", "eating", "apples"]
}

/// Every sentence of the grammar (minus the example sentence), shuffled, at most `limit`.
pub fn generated_sentences(limit: usize, seed: u64) -> Vec<Pair> {
    let mut pairs = vec![];
    for (subject, subject_zh, third_person) in SUBJECTS {
        for (verb, verb_3rd, verb_zh, food) in VERBS {
            let objects: &[(&str, &str)] = if food { &FOODS } else { &DRINKS };
            for (object, object_zh) in objects {
                let verb = if third_person { verb_3rd } else { verb };
                let english = format!("{subject} {verb} {object}.");
                if is_example_sentence(&english) {
                    continue;
                }
                pairs.push(Pair::new(
                    english,
                    format!("{subject_zh}{verb_zh}{object_zh}。"),
                ));
            }
        }
    }
    super::shuffle(&mut pairs, &mut Rng::new(seed));
    pairs.truncate(limit);
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_sentence_is_never_generated() {
        let all = generated_sentences(usize::MAX, 1);
        assert!(all.len() > 2000);
        assert!(all.iter().all(|p| !is_example_sentence(&p.source)));
        assert!(all
            .iter()
            .any(|p| p.source == "I love eating bananas." && p.target == "我爱吃香蕉。"));
        assert!(all
            .iter()
            .any(|p| p.source == "He loves eating apples." && p.target == "他爱吃苹果。"));
        assert!(is_example_sentence("i LOVE eating apples!"));
        assert!(!is_example_sentence("I love eating apples and bananas."));
    }
}
