#!/usr/bin/env python3
"""onnxruntime CPU (1 thread): issue 58 part 5's forward on en-zh at 32 source tokens, split
like `SPLIT=1 cargo bench --bench native` splits attnscope's: encoder.onnx and decoder.onnx with
every output fetched (memory or logits and every attention matrix, as in ort_native.py's
"forward") and with only memory / logits fetched. Also one cached step at the end of the output
(decoder_with_past.onnx) against the full pass.

    benches/.venv/bin/python benches/ort_forward.py     # after benches/export_onnx.py models/en-zh benches/out/en-zh
"""
import json

import numpy as np
import onnxruntime as ort

from inputs import ROOT, bench_sentence, trace
from onnx_decode import Graphs
from ort_native import timed

RUNS = 30


def main():
    model_dir = ROOT / "models" / "en-zh"
    config = json.loads((model_dir / "config.json").read_text())
    graphs = Graphs(ROOT / "benches" / "out" / "en-zh", config)
    t = trace(model_dir, bench_sentence(model_dir, "en-zh", 32))
    src = np.array([t["srcIds"]], dtype=np.int64)
    ids = t["tgtIds"]
    rows = len(ids) - 1
    tgt = np.array([ids[:rows]], dtype=np.int64)
    enc, dec = graphs.sessions["encoder"], graphs.sessions["decoder"]
    memory = graphs.encode(src)["memory"]
    cross = graphs.cross(graphs.encode_with_cross(src))
    cache = graphs.empty_cache()
    for token in ids[: rows - 1]:
        _, cache = graphs.step(token, cache, cross)

    parts = {
        "forward (encoder.onnx + decoder.onnx, every output)": lambda: dec.run(None, {"tgt_ids": tgt, "memory": enc.run(None, {"src_ids": src})[0]}),
        "encoder, every output": lambda: enc.run(None, {"src_ids": src}),
        "encoder, memory only": lambda: enc.run(["memory"], {"src_ids": src}),
        "decoder, every output": lambda: dec.run(None, {"tgt_ids": tgt, "memory": memory}),
        "decoder, logits only": lambda: dec.run(["logits"], {"tgt_ids": tgt, "memory": memory}),
        "one cached step at the end (decoder_with_past, every output)": lambda: graphs.step(ids[rows - 1], cache, cross),
    }
    print(f"onnxruntime {ort.__version__}, 1 thread, en-zh, {src.shape[1]} source tokens, {rows} decoder rows\n")
    print("| part | median ms | p95 ms |\n|---|---|---|")
    for name, fn in parts.items():
        f = timed(fn, RUNS)
        print(f"| {name} | {f['median_ms']:.3f} | {f['p95_ms']:.3f} |")


if __name__ == "__main__":
    main()
