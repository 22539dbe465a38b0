//! Every error has its own key, and its English text names exactly its params.

use super::*;

/// One value of every variant.
fn one_of_each() -> Vec<Error> {
    let json = serde_json::from_str::<u8>("x").err();
    let mut all = vec![
        Error::NotUtf8 {
            file: "vocab.json",
            message: "byte 3".into(),
        },
        Error::ConfigParse("missing field `d_model`".into()),
        Error::ConfigRange {
            field: "n_heads",
            value: "0".into(),
            expected: "1..=64",
        },
        Error::WeightsFormat("header too large".into()),
        Error::MissingTensor("encoder.layers.0.ffn.linear_1.weight".into()),
        Error::UnexpectedTensor("extra".into()),
        Error::TensorShape {
            name: "embed".into(),
            found: vec![2, 3],
            expected: vec![3, 2],
        },
        Error::TensorDtype {
            name: "embed".into(),
            dtype: "I64".into(),
        },
        Error::NonFiniteWeights("embed".into()),
        Error::Tokenizer {
            file: "src.spm".into(),
            message: "bad piece".into(),
        },
        Error::TokenizerMismatch("vocabulary size 10 ≠ 12".into()),
        Error::Io {
            path: "model/config.json".into(),
            message: "not found".into(),
        },
        Error::EmptyInput,
        Error::NotStarted,
        Error::NothingDecoded,
        Error::Finished("the end token was produced"),
        Error::AtStart,
        Error::UnknownToken("id 99".into()),
        Error::OutOfRange {
            what: "layer",
            index: 7,
            len: 3,
        },
        Error::Sampling("temperature must be positive".into()),
        Error::Backend("device lost".into()),
        Error::WebGpuUnavailable("no adapter".into()),
        Error::Usage("unknown backend {gpu}".into()),
        Error::Timeline("no step 4".into()),
        Error::Invariant("a row per step"),
        Error::Import("unknown layer".into()),
        Error::Training("no examples".into()),
        Error::HeadSpec("cross:9".into()),
        Error::TooBig {
            needed_mb: 5200,
            params_m: 1200,
            limit_mb: 4032,
        },
    ];
    all.extend(json.map(Error::Json));
    all
}

/// The `{name}`s a text uses.
fn placeholders(text: &str) -> Vec<&str> {
    text.split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}').map(|(name, _)| name))
        .collect()
}

#[test]
fn every_variant_has_its_own_key_and_names_its_params() {
    let all = one_of_each();
    // Listing every variant without a wildcard: a new variant fails to compile here until it
    // has an example above.
    let mut seen = [false; 30];
    for error in &all {
        let index = match error {
            Error::NotUtf8 { .. } => 0,
            Error::ConfigParse(_) => 1,
            Error::ConfigRange { .. } => 2,
            Error::WeightsFormat(_) => 3,
            Error::MissingTensor(_) => 4,
            Error::UnexpectedTensor(_) => 5,
            Error::TensorShape { .. } => 6,
            Error::TensorDtype { .. } => 7,
            Error::NonFiniteWeights(_) => 8,
            Error::Tokenizer { .. } => 9,
            Error::TokenizerMismatch(_) => 10,
            Error::Io { .. } => 11,
            Error::EmptyInput => 12,
            Error::NotStarted => 13,
            Error::NothingDecoded => 14,
            Error::Finished(_) => 15,
            Error::AtStart => 16,
            Error::UnknownToken(_) => 17,
            Error::OutOfRange { .. } => 18,
            Error::Sampling(_) => 19,
            Error::Backend(_) => 20,
            Error::WebGpuUnavailable(_) => 21,
            Error::Usage(_) => 22,
            Error::Timeline(_) => 23,
            Error::Json(_) => 24,
            Error::Invariant(_) => 25,
            Error::Import(_) => 26,
            Error::Training(_) => 27,
            Error::HeadSpec(_) => 28,
            Error::TooBig { .. } => 29,
        };
        seen[index] = true;
    }
    assert!(seen.iter().all(|s| *s), "an example for every variant");

    let mut keys: Vec<&str> = all.iter().map(Error::key).collect();
    for key in &keys {
        let name = key.strip_prefix("error.").unwrap_or_default();
        assert!(
            name.starts_with(|c: char| c.is_ascii_lowercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "{key} is error.camelCase"
        );
    }
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), all.len(), "keys are distinct");

    for error in &all {
        let mut used = placeholders(error.english());
        let mut named: Vec<&str> = error.params().iter().map(|(n, _)| *n).collect();
        used.sort_unstable();
        named.sort_unstable();
        assert_eq!(
            used,
            named,
            "{}: its text uses exactly its params",
            error.key()
        );
    }
}

#[test]
fn the_message_is_the_english_filled_in() {
    let shape = Error::TensorShape {
        name: "embed".into(),
        found: vec![2, 3],
        expected: vec![3, 2],
    };
    assert_eq!(
        shape.to_string(),
        "tensor `embed` has shape [2, 3], expected [3, 2]"
    );
    let range = Error::OutOfRange {
        what: "layer",
        index: 7,
        len: 3,
    };
    assert_eq!(range.to_string(), "layer 7 is out of range (0..3)");
    // A value holding braces is written as it is, not filled in again.
    let usage = Error::Usage("unknown backend {message}".into());
    assert_eq!(usage.to_string(), "unknown backend {message}");
    assert_eq!(fill("a {x} {y}", &[("x", "1".into())]), "a 1 {y}");
}

/// The page says every error in its language: each key is in both catalogues
/// (`www/ui/i18n/*.json`), its English there is `Error::english()` to the letter, and the
/// Chinese uses the same placeholders.
#[test]
fn every_key_is_in_both_page_catalogues() {
    let catalogue = |name: &str| -> serde_json::Map<String, serde_json::Value> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("www/ui/i18n")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (en, zh) = (catalogue("en.json"), catalogue("zh-CN.json"));
    for error in one_of_each() {
        let key = error.key();
        assert_eq!(
            en.get(key).and_then(|v| v.as_str()),
            Some(error.english()),
            "{key} in en.json"
        );
        let chinese = zh
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("{key} in zh-CN.json"));
        let mut want = placeholders(error.english());
        let mut got = placeholders(chinese);
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{key}: the Chinese names the same params");
    }
}
