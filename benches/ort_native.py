#!/usr/bin/env python3
"""onnxruntime CPU (1 thread) on the exported graphs, on the same sentences as `benches/native.rs`.

    python3 benches/ort_native.py          # after benches/export_onnx.py; prints a markdown table

Token ids come from `attnscope trace --json`, so both engines see identical inputs and outputs.
"Forward" is encoder + decoder over the whole (teacher-forced) output, one pass: the same
computation as attnscope's `encode` + `recompute_decoder`. ORT's greedy decode recomputes the
prefix each step (no key/value cache in these graphs).
"""
import json
import pathlib
import subprocess
import time

import numpy as np
import onnxruntime as ort

ROOT = pathlib.Path(__file__).resolve().parent.parent
WARMUP, RUNS = 5, 30
WORDS = {
    "en-zh": (["i", "love", "eating", "apples", "and", "my", "father", "likes", "drinking", "tea", "every", "day"], " "),
    "date-iso": (["2", "9", " ", "a", "u", "g", "1", "5", "8"], ""),
}


def sentence(model, n):
    words, joiner = WORDS[model]
    return joiner.join(words[i % len(words)] for i in range(n - 1))


def timed(fn):
    for _ in range(WARMUP):
        fn()
    samples = []
    for _ in range(RUNS):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1e3)
    samples.sort()
    return samples[len(samples) // 2], samples[round((len(samples) - 1) * 0.95)]


def main():
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    print(f"onnxruntime {ort.__version__}, CPUExecutionProvider, 1 thread")
    print("| model | src tokens | out tokens | encode ms (median/p95) | decoder pass at full prefix ms | greedy decode (no cache) ms | forward (encode + full decode) ms |")
    print("|---|---|---|---|---|---|---|")
    for model in ["en-zh", "date-iso"]:
        out = ROOT / "benches" / "out" / model
        enc = ort.InferenceSession(str(out / "encoder.onnx"), opts, providers=["CPUExecutionProvider"])
        dec = ort.InferenceSession(str(out / "decoder.onnx"), opts, providers=["CPUExecutionProvider"])
        config = json.loads((ROOT / "models" / model / "config.json").read_text())
        for n in [8, 16, 32, 64]:
            if n > config["max_len"]:
                continue
            trace = json.loads(subprocess.run([str(ROOT / "target/release/attnscope"), "trace", "--model", str(ROOT / "models" / model), sentence(model, n), "--json"], check=True, capture_output=True).stdout)
            src = np.array([trace["srcIds"]], dtype=np.int64)
            assert src.shape[1] == n, (model, n, src.shape)
            tgt = np.array([trace["tgtIds"][:-1]], dtype=np.int64)
            bos, eos = config["bos_id"], config["eos_id"]
            memory = enc.run(["memory"], {"src_ids": src})[0]

            def greedy():
                mem = enc.run(["memory"], {"src_ids": src})[0]
                ids = [bos]
                while len(ids) < config["max_len"]:
                    logits = dec.run(["logits"], {"tgt_ids": np.array([ids], dtype=np.int64), "memory": mem})[0]
                    nxt = int(logits[0, -1].argmax())
                    if nxt == eos:
                        break
                    ids.append(nxt)
                return ids

            assert greedy()[1:] == trace["tgtIds"][1:-1] or greedy()[1:] == trace["tgtIds"][1:], "ORT greedy output differs"
            e = timed(lambda: enc.run(["memory"], {"src_ids": src}))
            d = timed(lambda: dec.run(["logits"], {"tgt_ids": tgt, "memory": memory}))
            g = timed(greedy)
            f = timed(lambda: dec.run(["logits"], {"tgt_ids": tgt, "memory": enc.run(["memory"], {"src_ids": src})[0]}))
            print(f"| {model} | {n} | {len(trace['tgtIds']) - 1} | {e[0]:.2f} / {e[1]:.2f} | {d[0]:.2f} / {d[1]:.2f} | {g[0]:.2f} / {g[1]:.2f} | {f[0]:.2f} / {f[1]:.2f} |")


if __name__ == "__main__":
    main()
