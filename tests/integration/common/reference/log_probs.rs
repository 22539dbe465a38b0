//! Log-probabilities and greedy decoding from the plain-loop forward pass.

use super::Reference;

/// Log-probabilities from the plain-loop forward pass.
impl Reference {
    /// `log p(tgt[i + 1] | src, tgt[..= i])` for every `i` (`tgt` starts with `<s>`).
    pub fn teacher_forced(&self, src: &[u32], tgt: &[u32]) -> Vec<f64> {
        let (memory, _) = self.encode(src);
        let (logits, _, _) = self.decode(&tgt[..tgt.len() - 1], src, &memory);
        let vocab = logits.1;
        tgt[1..]
            .iter()
            .enumerate()
            .map(|(i, &id)| log_softmax(&logits.2[i * vocab..(i + 1) * vocab])[id as usize])
            .collect()
    }

    /// Greedy decoding, the whole prefix decoded again at each step: the ids after `<s>`, with
    /// `</s>` when it is produced. `<pad>` and `<s>` are never chosen.
    pub fn greedy(&self, src: &[u32]) -> Vec<u32> {
        let (memory, _) = self.encode(src);
        let config = &self.config;
        let mut tgt = vec![config.bos_id];
        for _ in 1..config.max_len {
            let (logits, _, _) = self.decode(&tgt, src, &memory);
            let vocab = logits.1;
            let row = &logits.2[(tgt.len() - 1) * vocab..tgt.len() * vocab];
            let best = (0..vocab as u32)
                .filter(|&t| t != config.pad_id && t != config.bos_id)
                .max_by(|&a, &b| row[a as usize].total_cmp(&row[b as usize]))
                .unwrap();
            tgt.push(best);
            if best == config.eos_id {
                break;
            }
        }
        tgt.split_off(1)
    }
}

/// log softmax of one row, in f64.
pub fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
    row.iter().map(|&v| v as f64 - max - sum.ln()).collect()
}
