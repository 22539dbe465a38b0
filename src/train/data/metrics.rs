//! Evaluation metrics: exact match and chrF (Popović 2015, as sacreBLEU computes it: character
//! n-grams of order 1..=6 without whitespace, corpus statistics, β = 2).

use std::collections::HashMap;

/// Fraction of hypotheses equal to their reference.
pub fn exact_match(hypotheses: &[String], references: &[String]) -> f64 {
    if hypotheses.is_empty() {
        return 0.0;
    }
    let hits = hypotheses
        .iter()
        .zip(references)
        .filter(|(h, r)| h == r)
        .count();
    hits as f64 / hypotheses.len() as f64
}

fn ngrams(text: &str, n: usize) -> HashMap<Vec<char>, usize> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut counts = HashMap::new();
    if chars.len() >= n {
        for window in chars.windows(n) {
            *counts.entry(window.to_vec()).or_insert(0) += 1;
        }
    }
    counts
}

const ORDER: usize = 6;
const BETA: f64 = 2.0;

/// One sentence's counts per n-gram order: (hypothesis n-grams, reference n-grams, matches).
type Statistics = [[usize; 3]; ORDER];

fn statistics(hypothesis: &str, reference: &str) -> Statistics {
    let mut out = [[0; 3]; ORDER];
    for (n, counts) in (1..=ORDER).zip(&mut out) {
        let (hyp, reference) = (ngrams(hypothesis, n), ngrams(reference, n));
        let matches = hyp
            .iter()
            .map(|(g, c)| (*c).min(reference.get(g).copied().unwrap_or(0)))
            .sum::<usize>();
        // As sacreBLEU: a hypothesis's n-grams of an order the reference is too short to have
        // are not counted.
        let hyp_total = match reference.is_empty() {
            true => 0,
            false => hyp.values().sum(),
        };
        *counts = [hyp_total, reference.values().sum(), matches];
    }
    out
}

/// sacreBLEU's chrF of summed statistics: precision and recall averaged over the orders that
/// have n-grams on both sides, then their F-β.
fn f_score(statistics: &Statistics) -> f64 {
    let (mut precision, mut recall, mut orders) = (0.0, 0.0, 0.0);
    for &[hyp_total, ref_total, matches] in statistics {
        if hyp_total > 0 && ref_total > 0 {
            precision += matches as f64 / hyp_total as f64;
            recall += matches as f64 / ref_total as f64;
            orders += 1.0;
        }
    }
    if orders == 0.0 {
        return 0.0;
    }
    let (p, r) = (precision / orders, recall / orders);
    if p + r == 0.0 {
        return 0.0;
    }
    100.0 * (1.0 + BETA * BETA) * p * r / (BETA * BETA * p + r)
}

/// Corpus-level chrF score in 0..=100.
pub fn chrf(hypotheses: &[String], references: &[String]) -> f64 {
    let references: Vec<Vec<String>> = references.iter().map(|r| vec![r.clone()]).collect();
    chrf_multi(hypotheses, &references)
}

/// Corpus-level chrF against several references per sentence, as sacreBLEU scores it: each
/// sentence keeps the statistics of the reference it scores best against (the first on a tie).
pub fn chrf_multi(hypotheses: &[String], references: &[Vec<String>]) -> f64 {
    let mut total: Statistics = [[0; 3]; ORDER];
    for (hypothesis, refs) in hypotheses.iter().zip(references) {
        let mut best: Option<(f64, Statistics)> = None;
        for reference in refs {
            let stats = statistics(hypothesis, reference);
            let score = f_score(&stats);
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, stats));
            }
        }
        for (sum, counts) in total
            .iter_mut()
            .zip(best.map(|(_, s)| s).unwrap_or_default())
        {
            for (a, b) in sum.iter_mut().zip(counts) {
                *a += b;
            }
        }
    }
    f_score(&total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrf_bounds_and_order() {
        let refs = vec!["我爱吃苹果。".to_string()];
        assert!((chrf(&refs, &refs) - 100.0).abs() < 1e-9);
        assert_eq!(chrf(&["你好".to_string()], &refs), 0.0);
        let close = chrf(&["我爱吃香蕉。".to_string()], &refs);
        let far = chrf(&["他们去学校".to_string()], &refs);
        assert!(close > far && close < 100.0);
        assert_eq!(exact_match(&refs, &refs), 1.0);
        // Several references: each sentence meets the nearer one.
        let two = vec![vec!["他们去学校".to_string(), "我爱吃苹果。".to_string()]];
        assert!((chrf_multi(&refs, &two) - 100.0).abs() < 1e-9);
    }
}
