#!/usr/bin/env python3
"""Native forward, attnscope against onnxruntime CPU (1 thread), interleaved in one run: issue
58's twelfth session. `ort_forward.py` and `SPLIT=1 cargo bench --bench native` run one after
the other, seconds apart, and this host's speed moves by up to 2x within a second, so a round's
ratio measured so swings from 0.8x to 1.9x. Here the native bench runs as a server (`SERVE=1`,
benches/split/serve.rs) and the engines take turns forward by forward: the same forward as
RESULTS.md's row (attnscope's `start` + `recompute_decoder`; onnxruntime's encoder.onnx +
decoder.onnx with every output, as in ort_forward.py), en-zh, 32 source tokens. A run's ratio is
the sum of attnscope's two medians over onnxruntime's median; the budget's rule reads the median
and the spread of RUNS runs.

    cargo bench --bench native --no-run
    benches/.venv/bin/python benches/ort_interleaved.py [RUNS] [PAIRS] [gemm]    # 5 runs of 41 pairs

`gemm` races attnscope's earlier native path instead (burn's gemm and tensor chain, SERVE=gemm).
"""
import json
import statistics
import subprocess
import sys
import time

import numpy as np

from inputs import ROOT, bench_sentence, trace
from onnx_decode import Graphs


def native_bench():
    """The native bench's executable, as `cargo bench --no-run` reports it."""
    out = subprocess.run(
        ["cargo", "bench", "--bench", "native", "--no-run", "--message-format", "json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for line in out.splitlines():
        message = json.loads(line)
        if message.get("target", {}).get("name") == "native" and message.get("executable"):
            return message["executable"]
    sys.exit("no native bench executable: run `cargo bench --bench native --no-run`")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 41
    serve = sys.argv[3] if len(sys.argv) > 3 else "1"
    model_dir = ROOT / "models" / "en-zh"
    config = json.loads((model_dir / "config.json").read_text())
    graphs = Graphs(ROOT / "benches" / "out" / "en-zh", config)
    t = trace(model_dir, bench_sentence(model_dir, "en-zh", 32))
    src = np.array([t["srcIds"]], dtype=np.int64)
    rows = len(t["tgtIds"]) - 1
    tgt = np.array([t["tgtIds"][:rows]], dtype=np.int64)
    enc, dec = graphs.sessions["encoder"], graphs.sessions["decoder"]

    def forward():
        return dec.run(None, {"tgt_ids": tgt, "memory": enc.run(None, {"src_ids": src})[0]})

    server = subprocess.Popen(
        [native_bench()], env={"SERVE": serve, "PATH": "/usr/bin:/bin"}, cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )

    def ours():
        server.stdin.write("forward 1\n")
        server.stdin.flush()
        start, redecode, _ = map(float, server.stdout.readline().split())
        return start, redecode

    path = "burn's gemm" if serve == "gemm" else "the session's own"
    print(server.stdout.readline().strip(), f"(onnxruntime: {rows} decoder rows); attnscope: {path} path")
    for _ in range(5):  # warm-up
        ours()
        forward()
    print("\n| run | attnscope start + re-decode ms (medians) | onnxruntime forward ms | ratio |\n|---|---|---|---|")
    ratios = []
    for index in range(runs):
        starts, redecodes, theirs = [], [], []
        for _ in range(pairs):
            start, redecode = ours()
            starts.append(start)
            redecodes.append(redecode)
            began = time.perf_counter()
            forward()
            theirs.append((time.perf_counter() - began) * 1e3)
        mine = statistics.median(starts) + statistics.median(redecodes)
        ratio = mine / statistics.median(theirs)
        ratios.append(ratio)
        print(f"| {index + 1} | {statistics.median(starts):.3f} + {statistics.median(redecodes):.3f} = {mine:.3f} "
              f"| {statistics.median(theirs):.3f} | {ratio:.2f} |")
    server.stdin.write("quit\n")
    server.stdin.close()
    server.wait()
    print(f"\nratio: median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}) "
          f"over {runs} runs of {pairs} forwards of each engine, taking turns")


if __name__ == "__main__":
    main()
