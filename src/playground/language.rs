//! A tiny made-up language for the reordering task. Sentences are `[adjective] noun verb
//! [adjective] noun` in English; the made-up language has a word for each English word, puts
//! each adjective after its noun and the verb last:
//!
//! | English | made-up |
//! |---|---|
//! | `cat sees dog` | `miko baru vidu` |
//! | `big cat sees small dog` | `miko gra baru lin vidu` |
//!
//! So the model must reorder, as translation between real languages does, and the cross-
//! attention map of a trained model is not a diagonal.

use super::tasks::below;
use crate::session::sampling::Rng;

/// Nouns: (English, made-up).
const NOUNS: [(&str, &str); 8] = [
    ("cat", "miko"),
    ("dog", "baru"),
    ("bird", "tipi"),
    ("fish", "salo"),
    ("fox", "ruka"),
    ("bear", "dobo"),
    ("mouse", "nupi"),
    ("horse", "keva"),
];
/// Adjectives.
const ADJECTIVES: [(&str, &str); 6] = [
    ("big", "gra"),
    ("small", "lin"),
    ("red", "ro"),
    ("old", "vek"),
    ("young", "nai"),
    ("happy", "felu"),
];
/// Verbs.
const VERBS: [(&str, &str); 6] = [
    ("sees", "vidu"),
    ("likes", "amu"),
    ("chases", "kuru"),
    ("bites", "moru"),
    ("helps", "hela"),
    ("finds", "trova"),
];

/// Every word pair in vocabulary order: nouns, adjectives, verbs.
fn lexicon() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    NOUNS.iter().chain(&ADJECTIVES).chain(&VERBS)
}

/// The English words, in vocabulary order.
pub fn english_words() -> Vec<&'static str> {
    lexicon().map(|(english, _)| *english).collect()
}

/// The made-up words, in the same order (word `i` translates English word `i`).
pub fn made_up_words() -> Vec<&'static str> {
    lexicon().map(|(_, made_up)| *made_up).collect()
}

/// A noun with an adjective half the time, as vocabulary indices: (noun, adjective).
fn phrase(rng: &mut Rng) -> (usize, Option<usize>) {
    let noun = below(rng, NOUNS.len());
    let adjective = (below(rng, 2) == 1).then(|| NOUNS.len() + below(rng, ADJECTIVES.len()));
    (noun, adjective)
}

/// One sentence as vocabulary indices: the English words and their translation.
pub fn sentence(rng: &mut Rng) -> (Vec<usize>, Vec<usize>) {
    let subject = phrase(rng);
    let verb = NOUNS.len() + ADJECTIVES.len() + below(rng, VERBS.len());
    let object = phrase(rng);
    translate(subject, verb, object)
}

/// `subject verb object` in English order and in the made-up language's.
fn translate(
    subject: (usize, Option<usize>),
    verb: usize,
    object: (usize, Option<usize>),
) -> (Vec<usize>, Vec<usize>) {
    let english = |(noun, adjective): (usize, Option<usize>)| adjective.into_iter().chain([noun]);
    let made_up = |(noun, adjective): (usize, Option<usize>)| [noun].into_iter().chain(adjective);
    (
        english(subject)
            .chain([verb])
            .chain(english(object))
            .collect(),
        made_up(subject)
            .chain(made_up(object))
            .chain([verb])
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjectives_follow_their_noun_and_the_verb_comes_last() {
        let (english, made_up) = (english_words(), made_up_words());
        let index = |w: &str| english.iter().position(|e| *e == w).unwrap();
        let (source, target) = translate(
            (index("cat"), Some(index("big"))),
            index("sees"),
            (index("dog"), Some(index("small"))),
        );
        let words = |ids: &[usize], table: &[&'static str]| -> Vec<&'static str> {
            ids.iter().map(|&i| table[i]).collect()
        };
        assert_eq!(
            words(&source, &english),
            ["big", "cat", "sees", "small", "dog"]
        );
        assert_eq!(
            words(&target, &made_up),
            ["miko", "gra", "baru", "lin", "vidu"]
        );
        let mut rng = Rng::new(5);
        for _ in 0..500 {
            let (source, target) = sentence(&mut rng);
            assert!((3..=5).contains(&source.len()));
            assert_eq!(source.len(), target.len());
            let verb = source.iter().find(|&&i| i >= index("sees")).unwrap();
            assert_eq!(target.last(), Some(verb));
        }
    }
}
