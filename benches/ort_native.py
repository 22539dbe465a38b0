#!/usr/bin/env python3
"""onnxruntime CPU (1 thread) on the exported graphs, with and without the key/value cache, on
the bench sentences (`benches/web/sentences.json`, as `benches/native.rs` builds them).

    python3 benches/ort_native.py [--run K] [--json PATH]   # after benches/export_onnx.py

Prints a markdown table; with --json writes one record per measurement (engine, model, stage,
src_tokens, out_tokens, median_ms, p95_ms, runs, run) for benches/tables.mjs. Token ids come
from `attnscope trace --json`, and both decoders' greedy output is checked against them first.

Stages (out_tokens K = decoder steps, </s> included):
  encode           encoder.onnx (no cache) / encoder_with_cross_kv.onnx (cache: + cross K/V)
  cached_step      one cached step, the mean over the K steps of the greedy decode (argmax included)
  greedy           the whole greedy translation from source ids, with the cache
  greedy_uncached  the same without the cache: the decoder re-runs the prefix at every step
  full_redecode    one pass of decoder.onnx over the whole output prefix (K rows)
  forward          encoder.onnx + that pass (attnscope's encode + recompute_decoder)
"""
import argparse
import json
import pathlib
import time

import numpy as np
import onnxruntime as ort

from inputs import ROOT, bench_lengths, bench_sentence, trace
from onnx_decode import Graphs, next_token

WARMUP = 5
MODELS = ["en-zh", "date-iso"]
CACHED, UNCACHED = "onnxruntime-cpu", "onnxruntime-cpu-nocache"


def timed(fn, runs, per=1):
    """median and p95 ms of fn() over `runs` runs after WARMUP, each divided by `per`."""
    for _ in range(WARMUP):
        fn()
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1e3 / per)
    samples.sort()
    return {"median_ms": samples[(len(samples) - 1) // 2], "p95_ms": samples[round((len(samples) - 1) * 0.95)], "runs": runs}


def measure(graphs, src, ids, runs):
    """Every stage of one sentence: {(engine, stage): figures}."""
    rows = len(ids) - 1
    tgt = np.array([ids[:rows]], dtype=np.int64)
    memory = graphs.encode(src)["memory"]
    cross = graphs.cross(graphs.encode_with_cross(src))

    def steps():
        cache = graphs.empty_cache()
        for token in ids[:rows]:
            out, cache = graphs.step(token, cache, cross)
            next_token(out["logits"][0, -1], graphs.config)

    dec = graphs.sessions["decoder"]
    return {
        (UNCACHED, "encode"): timed(lambda: graphs.sessions["encoder"].run(None, {"src_ids": src}), runs),
        (UNCACHED, "full_redecode"): timed(lambda: dec.run(None, {"tgt_ids": tgt, "memory": memory}), runs),
        (UNCACHED, "greedy_uncached"): timed(lambda: graphs.greedy_uncached(src), runs),
        (UNCACHED, "forward"): timed(lambda: dec.run(None, {"tgt_ids": tgt, "memory": graphs.encode(src)["memory"]}), runs),
        (CACHED, "encode"): timed(lambda: graphs.encode_with_cross(src), runs),
        (CACHED, "cached_step"): timed(steps, runs, per=rows),
        (CACHED, "greedy"): timed(lambda: graphs.greedy_cached(src), runs),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=int, default=1, help="which run this is (recorded)")
    parser.add_argument("--runs", type=int, default=30, help="samples per measurement")
    parser.add_argument("--json", type=pathlib.Path, help="write the records here")
    args = parser.parse_args()
    print(f"onnxruntime {ort.__version__}, CPUExecutionProvider, 1 thread; run {args.run}, median / p95 ms over {args.runs} runs\n")
    print("| model | src tokens | out tokens | engine | encode | cached step | greedy | greedy (no cache) | full re-decode | forward |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    records = []
    for model in MODELS:
        model_dir = ROOT / "models" / model
        config = json.loads((model_dir / "config.json").read_text())
        graphs = Graphs(ROOT / "benches" / "out" / model, config)
        if not graphs.export.get("check", {}).get("tokensIdentical"):
            raise SystemExit(f"{model}: the ONNX export was not checked (run benches/export_onnx.py: its check must pass)")
        for n in bench_lengths(config):
            t = trace(model_dir, bench_sentence(model_dir, model, n))
            src = np.array([t["srcIds"]], dtype=np.int64)
            assert src.shape[1] == n, (model, n, src.shape)
            ids = t["tgtIds"]
            for name, greedy in [("cached", graphs.greedy_cached), ("uncached", graphs.greedy_uncached)]:
                if greedy(src) != ids:
                    raise SystemExit(f"onnxruntime greedy output ({name}) differs from attnscope's: {model}, {n} tokens")
            figures = measure(graphs, src, ids, args.runs)
            for (engine, stage), f in figures.items():
                records.append({"engine": engine, "model": model, "stage": stage, "src_tokens": n, "out_tokens": len(ids) - 1, **f, "run": args.run})
            for engine in [CACHED, UNCACHED]:
                cells = []
                for stage in ["encode", "cached_step", "greedy", "greedy_uncached", "full_redecode", "forward"]:
                    f = figures.get((engine, stage))
                    cells.append(f"{f['median_ms']:.2f} / {f['p95_ms']:.2f}" if f else "–")
                print(f"| {model} | {n} | {len(ids) - 1} | {engine} | {' | '.join(cells)} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        meta = {"onnxruntime": ort.__version__, "threads": 1}
        args.json.write_text(json.dumps({"source": "ort_native.py", "meta": meta, "records": records}, indent=1) + "\n")


if __name__ == "__main__":
    main()
