//! The shipped models meet their targets: each held-out figure is recomputed here from the
//! model folder and the data, and must equal the one in the folder's `metrics.json`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashSet;

use attnscope::block_on;
use attnscope::files::folder::LoadedModel;
use attnscope::train::agreement::human_agreement;
use attnscope::train::data::metrics::{chrf, exact_match};
use attnscope::train::data::Pair;
use attnscope::train::evaluate::translate_all;
use attnscope::train::loss::set_loss;
use attnscope::train::sets::{
    date_impossible, date_sets, normalized, translation_data, translation_data_with, Heldout,
    EXAMPLE_SENTENCE, EXAMPLE_SENTENCE_ZH, GENERATED_SENTENCES,
};
use burn::tensor::Device;
use serde_json::Value;

fn data_dir() -> std::path::PathBuf {
    common::repo().join("data")
}

fn metrics(name: &str) -> Value {
    let path = common::repo()
        .join("models")
        .join(name)
        .join("metrics.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (exact match, chrF) of the shipped model on one held-out set, and its translations as
/// (set, source, reference, output).
fn score(loaded: &LoadedModel, set: &Heldout) -> (f64, f64, Vec<[String; 4]>) {
    let sources: Vec<&str> = set.pairs.iter().map(|p| p.source.as_str()).collect();
    let outputs = translate_all(loaded, &sources).unwrap();
    let references: Vec<String> = set.pairs.iter().map(|p| p.target.clone()).collect();
    let rows = set
        .pairs
        .iter()
        .zip(&outputs)
        .map(|(p, o)| {
            [
                set.name.into(),
                p.source.clone(),
                p.target.clone(),
                o.clone(),
            ]
        })
        .collect();
    (
        exact_match(&outputs, &references),
        chrf(&outputs, &references),
        rows,
    )
}

/// Recompute every held-out set's figures and compare them with `metrics.json`; returns them.
fn recomputed(name: &str, sets: &[Heldout]) -> Vec<(f64, f64)> {
    recomputed_with_outputs(name, sets).0
}

/// [`recomputed`], and every translation as (set, source, reference, output).
fn recomputed_with_outputs(name: &str, sets: &[Heldout]) -> (Vec<(f64, f64)>, Vec<[String; 4]>) {
    let folder = common::shipped(name);
    let loaded = LoadedModel::load(folder.files(), &Device::flex()).unwrap();
    let saved = metrics(name);
    let saved_sets = saved["sets"].as_array().unwrap();
    assert_eq!(saved_sets.len(), sets.len());
    let mut rows = vec![];
    let figures = sets
        .iter()
        .zip(saved_sets)
        .map(|(set, saved)| {
            assert_eq!(saved["name"], set.name);
            assert_eq!(saved["pairs"], set.pairs.len());
            let (exact, chrf, outputs) = score(&loaded, set);
            rows.extend(outputs);
            let close = |a: f64, key: &str| (a - saved[key].as_f64().unwrap()).abs() < 1e-6;
            assert!(
                close(exact, "exactMatch"),
                "{name}/{}: exact {exact} vs {saved}",
                set.name
            );
            assert!(
                close(chrf, "chrf"),
                "{name}/{}: chrF {chrf} vs {saved}",
                set.name
            );
            (exact, chrf)
        })
        .collect();
    (figures, rows)
}

/// `metrics.json`'s `humanAgreement` is what the held-out translations give against Tatoeba's
/// second human translations; returns the model's share of the two humans' agreement.
fn check_human_agreement(name: &str, reversed: bool, rows: &[[String; 4]]) -> f64 {
    let ours = human_agreement(&data_dir(), reversed, rows).unwrap();
    let saved = metrics(name)["humanAgreement"].clone();
    assert_eq!(serde_json::to_value(&ours).unwrap(), saved, "{name}");
    ours.model_share
}

#[test]
fn no_held_out_sentence_is_trained_on_in_either_direction() {
    // With the grammar sentences: zh-en's training pairs, a superset of en-zh's.
    let data = translation_data_with(&data_dir(), GENERATED_SENTENCES).unwrap();
    assert_eq!((data.tatoeba.len(), data.hsk.len()), (1000, 218));
    let trained_en: HashSet<String> = data.train.iter().map(|p| normalized(&p.source)).collect();
    let trained_zh: HashSet<String> = data.train.iter().map(|p| normalized(&p.target)).collect();
    for pair in data.tatoeba.iter().chain(&data.hsk) {
        assert!(!trained_en.contains(&normalized(&pair.source)), "{pair:?}");
        assert!(!trained_zh.contains(&normalized(&pair.target)), "{pair:?}");
    }
    assert!(!trained_en.contains(&normalized(EXAMPLE_SENTENCE)));
    assert!(!trained_zh.contains(&normalized(EXAMPLE_SENTENCE_ZH)));
    assert_eq!(normalized("I'm home!"), "i m home");
}

#[test]
fn en_zh_translates_the_running_example_and_meets_its_chrf_target() {
    let mut session = common::session(&common::shipped("en-zh"));
    let trace = block_on(session.translate(EXAMPLE_SENTENCE)).unwrap();
    assert_eq!(
        trace.output.trim_end_matches('。'),
        "我爱吃苹果",
        "{:?}",
        trace.output
    );
    // English is cut into subwords; a word start shows its ▁.
    assert_eq!(
        trace.src_tokens,
        ["▁I", "▁love", "▁eating", "▁apples", ".", "</s>"]
    );
    // en-zh trains without the grammar sentences (docs/data.md).
    let data = translation_data(&data_dir()).unwrap();
    assert_eq!(metrics("en-zh")["trainPairs"], data.train.len());
    let (figures, rows) = recomputed_with_outputs("en-zh", &data.heldout());
    // Two people translating the same Tatoeba sentence agree at chrF 35.8 (2,160 sentences).
    let share = check_human_agreement("en-zh", false, &rows);
    assert!(share >= 0.81, "{share:.3} of two humans' agreement");
    // Issue 28 asks for 29.0 (81 % of the two humans' 35.8); this model reaches 29.16
    // (docs/models.md, "The models"): the floors guard what it has.
    assert!(
        figures[0].1 >= 29.1,
        "Tatoeba chrF {:.2} < 29.1",
        figures[0].1
    );
    assert!(figures[1].1 >= 25.6, "HSK chrF {:.2} < 25.6", figures[1].1);
    // Its questions end in a full-width ？ (Chinese punctuation, not NFKC's ASCII).
    let question = block_on(session.translate("Do you like tea?")).unwrap();
    assert!(question.output.ends_with('？'), "{:?}", question.output);
}

/// `eval --loss`'s cross-entropy is the stepper's own probabilities: en-zh decodes the running
/// example to its reference token by token, so the teacher-forced batch loss of that pair is the
/// mean −ln p of each step's chosen token as the page shows it (decoded step by step through
/// the key/value cache, another path through the model).
#[test]
fn the_loss_of_the_running_example_is_its_steps_probabilities() {
    let folder = common::shipped("en-zh");
    let mut session = common::session(&folder);
    let trace = block_on(session.translate(EXAMPLE_SENTENCE)).unwrap();
    assert_eq!(trace.output, "我爱吃苹果。");
    let nats: Vec<f64> = trace
        .steps
        .iter()
        .map(|step| {
            assert_eq!(
                step.candidates[0].id, step.id,
                "greedy picks the most probable"
            );
            -f64::from(step.candidates[0].probability).ln()
        })
        .collect();
    // 我 爱 吃 苹 果 。 </s>
    assert_eq!(nats.len(), 7);
    let device = Device::flex();
    let loaded = LoadedModel::load(folder.files(), &device).unwrap();
    let pair = Pair::new(EXAMPLE_SENTENCE, "我爱吃苹果。");
    let loss = set_loss(&loaded, &device, "example", &[pair]).unwrap();
    assert_eq!((loss.pairs, loss.dropped, loss.tokens), (1, 0, 7));
    let mean = nats.iter().sum::<f64>() / 7.0;
    let cross_entropy = loss.cross_entropy.unwrap();
    assert!(
        (cross_entropy - mean).abs() < 1e-4,
        "{cross_entropy} against {mean}"
    );
    assert!((loss.perplexity.unwrap() - mean.exp()).abs() < 1e-3);
    // A pair the model cannot hold is left out, as training leaves it out.
    let long = Pair::new(EXAMPLE_SENTENCE.repeat(20), "我爱吃苹果。");
    let loss = set_loss(&loaded, &device, "long", &[long]).unwrap();
    assert_eq!((loss.pairs, loss.dropped, loss.tokens), (0, 1, 0));
    assert_eq!((loss.cross_entropy, loss.perplexity), (None, None));
}

#[test]
fn zh_en_translates_the_running_example_back() {
    let mut session = common::session(&common::shipped("zh-en"));
    let trace = block_on(session.translate(EXAMPLE_SENTENCE_ZH)).unwrap();
    let accepted = ["I love eating apples.", "I love to eat apples."];
    assert!(
        accepted.contains(&trace.output.as_str()),
        "{:?}",
        trace.output
    );
    assert_eq!(trace.src_tokens[..5], ["我", "爱", "吃", "苹", "果"]);
    // zh-en trains with them: without, 我爱吃苹果。 came out as "I love apple." (docs/data.md).
    let data = translation_data_with(&data_dir(), GENERATED_SENTENCES)
        .unwrap()
        .reversed();
    assert_eq!(metrics("zh-en")["trainPairs"], data.train.len());
    let (figures, rows) = recomputed_with_outputs("zh-en", &data.heldout());
    // Two people translating the same Chinese sentence agree at chrF 63.5 (4,374 sentences).
    let share = check_human_agreement("zh-en", true, &rows);
    assert!(share >= 0.77, "{share:.3} of two humans' agreement");
    assert!(figures[0].1 >= 48.9, "Tatoeba chrF {:.2}", figures[0].1);
    // 30 epochs on 2 threads, seed 43: 48.95 and 45.26; seed 42 gave 48.48 and 43.44, 21 epochs
    // 47.89 and 42.64 (docs/models.md, "The shipped zh-en").
    assert!(figures[1].1 >= 45.2, "HSK chrF {:.2}", figures[1].1);
}

#[test]
fn date_iso_reads_the_dates_people_type_and_refuses_the_rest() {
    let sets = date_sets(&data_dir()).unwrap();
    let figures = recomputed("date-iso", &sets);
    // The held-out set is drawn as the training pairs are: since issue 55 a quarter of them are
    // near misses, 67 of them 29 February of a leap year, which this model refuses (65 of its 68
    // misses; the model before it scored 88.5 % on this set, 87 of its misses invented dates).
    assert!(
        figures[0].0 >= 0.932,
        "generated held-out exact match {:.3}",
        figures[0].0
    );
    assert!(sets[1].pairs.len() >= 50);
    let mut session = common::session(&common::shipped("date-iso"));
    for (text, expected) in [
        ("the first of January 2000", "2000-01-01"),
        ("the twenty-first of June 1999", "1999-06-21"),
        ("2000-01-01", "2000-01-01"),
        ("12/25/2023", "2023-12-25"),
        ("31 February 2021", "invalid"),
        ("hello", "invalid"),
        ("Friday, the 29th of August 1958", "1958-08-29"),
        // Near misses (issue 55): days past a month's end are refused, as the model before this
        // one did not, and a month's last day is read.
        ("29 February 2019", "invalid"),
        ("February 30, 2024", "invalid"),
        ("2023-02-29", "invalid"),
        ("29.02.2019", "invalid"),
        ("April 31, 2023", "invalid"),
        ("31/12/1999", "1999-12-31"),
        ("30 April 2023", "2023-04-30"),
        ("28.02.2019", "2019-02-28"),
    ] {
        assert_eq!(
            block_on(session.translate(text)).unwrap().output,
            expected,
            "{text}"
        );
    }
}

/// date-iso never invents a date: every impossible month (13–99) and day (00, 32–99), in each
/// numeric order (day first, month first, year first) and with each of `/`, `.`, `-`, answers
/// `invalid` (1,404 texts, none of them trained on); and it keeps its figures on the 55
/// hand-written phrasings it had before the ten impossible ones were added (52 of 55 since
/// issue 55: it refuses Feb 29, 2000 and 29 February 2024, and reads the thirty-second of May
/// 2000 as 2000-05-31). Every day past a month's end is tests/integration/date_sweep.rs's.
#[test]
fn date_iso_never_invents_a_date() {
    let texts = date_impossible();
    assert_eq!(texts.len(), 1404);
    let folder = common::shipped("date-iso");
    let loaded = LoadedModel::load(folder.files(), &Device::flex()).unwrap();
    let sources: Vec<&str> = texts.iter().map(String::as_str).collect();
    let outputs = translate_all(&loaded, &sources).unwrap();
    let invented: Vec<String> = texts
        .iter()
        .zip(&outputs)
        .filter(|(_, output)| *output != "invalid")
        .map(|(text, output)| format!("{text} → {output}"))
        .collect();
    assert!(
        invented.is_empty(),
        "{} of {} impossible dates got a date: {:?}",
        invented.len(),
        texts.len(),
        &invented[..invented.len().min(20)]
    );
    let sets = date_sets(&data_dir()).unwrap();
    let handwritten = &sets[1].pairs;
    assert_eq!(handwritten.len(), 65);
    let first: Vec<&str> = handwritten[..55]
        .iter()
        .map(|p| p.source.as_str())
        .collect();
    let outputs = translate_all(&loaded, &first).unwrap();
    let references: Vec<String> = handwritten[..55].iter().map(|p| p.target.clone()).collect();
    let exact = exact_match(&outputs, &references);
    assert!(
        exact >= 52.0 / 55.0 - 1e-9,
        "the 55 first hand-written phrasings: {exact:.3}"
    );
}
