//! Building tokenizers for training (native only): the vocabularies attnscope counts or learns,
//! written as the `tokenizer.json` documents of [`super::document`].

use std::collections::HashMap;

use serde_json::{json, Value};
use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
use tokenizers::{AddedToken, Trainer};

use super::{tokenizer_json, Granularity, TextTokenizer, FULL_WIDTH_PUNCTUATION, SPECIAL_TOKENS};
use crate::error::{Error, Result};
use crate::model::config::SpecialIds;

/// How pieces seen equally often are ordered: alphabetically, full-width punctuation as its
/// ASCII form (so [`Granularity::Chinese`] gives the ids [`Granularity::Characters`] gave,
/// and the models trained before punctuation was kept full-width keep theirs).
fn tie_order(piece: &str) -> String {
    piece
        .chars()
        .map(|c| {
            FULL_WIDTH_PUNCTUATION
                .iter()
                .find(|(_, wide)| *wide == c)
                .map_or(c, |(ascii, _)| *ascii)
        })
        .collect()
}

/// Build a tokenizer whose vocabulary is every piece seen in `texts` at least `min_count` times,
/// most frequent first (ties alphabetical, so the result is deterministic; see [`tie_order`]).
pub fn build_tokenizer<'a>(
    granularity: Granularity,
    texts: impl IntoIterator<Item = &'a str>,
    min_count: usize,
) -> Result<TextTokenizer> {
    let empty = TextTokenizer::from_bytes(
        tokenizer_json(granularity, &[]).as_bytes(),
        "new tokenizer",
        SpecialIds::default(),
    )?;
    if let Granularity::Subwords { vocab_size } = granularity {
        return build_subwords(&empty, texts, vocab_size, min_count);
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in texts {
        for piece in empty.pieces(text)? {
            *counts.entry(piece).or_default() += 1;
        }
    }
    let mut words: Vec<(String, usize)> = counts
        .into_iter()
        .filter(|(word, count)| *count >= min_count && !SPECIAL_TOKENS.contains(&word.as_str()))
        .collect();
    words.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then_with(|| tie_order(&a.0).cmp(&tie_order(&b.0)))
            .then_with(|| a.0.cmp(&b.0))
    });
    let words: Vec<String> = words.into_iter().map(|(word, _)| word).collect();
    TextTokenizer::from_bytes(
        tokenizer_json(granularity, &words).as_bytes(),
        "new tokenizer",
        SpecialIds::default(),
    )
}

/// Train a BPE vocabulary with the HF `tokenizers` trainer on the pieces `empty` cuts
/// `texts` into (its normalizer and pre-tokenizer), and wrap it in a tokenizer of that shape.
fn build_subwords<'a>(
    empty: &TextTokenizer,
    texts: impl IntoIterator<Item = &'a str>,
    vocab_size: usize,
    min_count: usize,
) -> Result<TextTokenizer> {
    let fail = |message: String| Error::Tokenizer {
        file: "new tokenizer".into(),
        message,
    };
    let texts: Vec<&str> = texts.into_iter().collect();
    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(vocab_size)
        .min_frequency(min_count as u64)
        .show_progress(false)
        .special_tokens(
            SPECIAL_TOKENS
                .iter()
                .map(|t| AddedToken::from(*t, true))
                .collect(),
        )
        .build();
    trainer
        .feed(texts.iter(), |text| {
            empty
                .pieces(text)
                .map_err(|e| Box::<dyn std::error::Error + Send + Sync>::from(e.to_string()))
        })
        .map_err(|e| fail(e.to_string()))?;
    let mut bpe = BPE::default();
    trainer.train(&mut bpe).map_err(|e| fail(e.to_string()))?;
    let mut model = serde_json::to_value(&bpe).map_err(|e| fail(e.to_string()))?;
    model["unk_token"] = json!(SPECIAL_TOKENS[1]);
    model["fuse_unk"] = json!(true);
    let mut document: Value =
        serde_json::from_str(&empty.to_json()?).map_err(|e| fail(e.to_string()))?;
    document["model"] = model;
    let bytes = serde_json::to_vec(&document).map_err(|e| fail(e.to_string()))?;
    TextTokenizer::from_bytes(&bytes, "new tokenizer", SpecialIds::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::join_pieces;

    #[test]
    fn chinese_keeps_its_punctuation_full_width_with_the_ids_characters_gave() {
        // Pieces seen equally often ("!", "(", "a", …) order as their ASCII forms would.
        let texts = ["你好，吗?", "a,b", "好?", "!():;"];
        let zh = build_tokenizer(Granularity::Chinese, texts, 1).unwrap();
        let plain = build_tokenizer(Granularity::Characters, texts, 1).unwrap();
        // Typed half-width or full-width, Chinese punctuation is one full-width token.
        let pieces = |text: &str| -> Vec<String> {
            let ids = zh.encode(text).unwrap().ids;
            ids.iter()
                .map(|&id| zh.token(id).unwrap().to_string())
                .collect()
        };
        for typed in ["你好,吗?", "你好，吗？"] {
            assert_eq!(pieces(typed), ["你", "好", "，", "吗", "？"]);
            assert_eq!(
                zh.encode(typed).unwrap().ids,
                plain.encode(typed).unwrap().ids
            );
        }
        assert_eq!(pieces("好!(a):b;").concat(), "好！（a）：b；");
        for id in 0..plain.vocab_size() as u32 {
            let wide = zh.token(id).unwrap();
            assert_eq!(tie_order(wide), plain.token(id).unwrap());
        }
    }

    #[test]
    fn subwords_split_unseen_words_and_show_word_starts() {
        let texts = [
            "I love eating apples.",
            "I love you.",
            "They are eating.",
            "The apples are red.",
            "Don't eat the apple!",
        ];
        let build = || build_tokenizer(Granularity::Subwords { vocab_size: 60 }, texts, 1).unwrap();
        let bpe = build();
        assert_eq!(
            bpe.to_json().unwrap(),
            build().to_json().unwrap(),
            "deterministic"
        );
        let encoded = bpe.encode("I love eating apples.").unwrap();
        assert_eq!(encoded.tokens.first().map(String::as_str), Some("▁I"));
        assert_eq!(encoded.tokens.last().map(String::as_str), Some("."));
        // Pieces joined back give the text, with spaces at the word starts.
        let pieces: Vec<&str> = encoded
            .ids
            .iter()
            .map(|&id| bpe.token(id).unwrap())
            .collect();
        assert_eq!(join_pieces(pieces, ""), "I love eating apples.");
        // An unseen word is made of known pieces; only an unseen character is `<unk>`.
        let unseen = bpe.encode("Theapples 🍎").unwrap();
        assert_eq!(unseen.unknown.iter().filter(|&&u| u).count(), 1);
        assert!(unseen.tokens.len() > 2);
        assert_eq!(
            unseen.tokens.concat().replace('▁', " ").trim(),
            "Theapples 🍎"
        );
    }
}
