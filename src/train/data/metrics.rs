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

/// Corpus-level chrF score in 0..=100.
pub fn chrf(hypotheses: &[String], references: &[String]) -> f64 {
    const ORDER: usize = 6;
    const BETA: f64 = 2.0;
    let mut precision = 0.0;
    let mut recall = 0.0;
    let mut orders = 0.0;
    for n in 1..=ORDER {
        let (mut matches, mut hyp_total, mut ref_total) = (0usize, 0usize, 0usize);
        for (h, r) in hypotheses.iter().zip(references) {
            let (hyp, reference) = (ngrams(h, n), ngrams(r, n));
            hyp_total += hyp.values().sum::<usize>();
            ref_total += reference.values().sum::<usize>();
            matches += hyp
                .iter()
                .map(|(g, c)| (*c).min(reference.get(g).copied().unwrap_or(0)))
                .sum::<usize>();
        }
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
    }
}
