//! `SERVE=1 cargo bench --bench native`: native forward on request, for `benches/ort_interleaved.py`
//! to alternate with onnxruntime's forward by forward in one run (issue 58's twelfth session).
//! The host's speed moves by up to 2× within a second; two processes one after the other, seconds
//! apart, do not see the same host.
//!
//! Reads lines from stdin: `forward N` times N forwards (`start`, then `recompute_decoder` over
//! the translation, on en-zh at 32 source tokens) and prints one line: the median ms of each and
//! their sum, as `RESULTS.md`'s row adds them. Anything else (or the end of input) stops.
//! `SERVE=gemm` keeps burn's gemm ([`attnscope::Session::pack_nowhere`]) for a comparison.

use std::io::BufRead;
use std::time::Instant;

use attnscope::block_on;

use super::{sentence, shipped, stats};

fn millis(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

pub fn serve(root: &std::path::Path) {
    // Two sessions: `start` clears the output, so the re-decodes run in a second session that
    // keeps its translation (the same weights and sentence).
    let (mut first, mut second) = (shipped(root, "en-zh"), shipped(root, "en-zh"));
    if std::env::var("SERVE").is_ok_and(|v| v == "gemm") {
        // burn's gemm and tensor chain, as before the packed path reached native builds.
        first.pack_nowhere();
        second.pack_nowhere();
    }
    let text = sentence(&first, "en-zh", 32);
    block_on(first.translate(&text)).unwrap();
    block_on(second.translate(&text)).unwrap();
    let rows = second.trace().unwrap().rows();
    println!("ready en-zh 32 source tokens, {rows} decoder rows");
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut words = line.split_whitespace();
        match (
            words.next(),
            words.next().and_then(|n| n.parse::<usize>().ok()),
        ) {
            (Some("forward"), Some(n)) => {
                let (mut start, mut redecode) = (vec![], vec![]);
                for _ in 0..n {
                    start.push(millis(|| {
                        block_on(first.start(&text)).unwrap();
                    }));
                    redecode.push(millis(|| {
                        block_on(second.recompute_decoder()).unwrap();
                    }));
                }
                let (start, redecode) = (stats(start).0, stats(redecode).0);
                println!("{start:.4} {redecode:.4} {:.4}", start + redecode);
            }
            _ => break,
        }
    }
}
