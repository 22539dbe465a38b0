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
    benches/.venv/bin/python benches/ort_interleaved.py [RUNS] [PAIRS]    # 5 runs of 41 forwards each

attnscope's earlier native path (burn's gemm and tensor chain, SERVE=gemm) takes its turn too.
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


class Server:
    """The native bench as a server (SERVE=`mode`): one forward a request."""

    def __init__(self, executable, mode):
        self.process = subprocess.Popen(
            [executable], env={"SERVE": mode, "PATH": "/usr/bin:/bin"}, cwd=ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.ready = self.process.stdout.readline().strip()

    def forward(self):
        """(start, re-decode) ms of one forward."""
        self.process.stdin.write("forward 1\n")
        self.process.stdin.flush()
        start, redecode, _ = map(float, self.process.stdout.readline().split())
        return start, redecode

    def close(self):
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        self.process.wait()


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 41
    model_dir = ROOT / "models" / "en-zh"
    config = json.loads((model_dir / "config.json").read_text())
    graphs = Graphs(ROOT / "benches" / "out" / "en-zh", config)
    t = trace(model_dir, bench_sentence(model_dir, "en-zh", 32))
    src = np.array([t["srcIds"]], dtype=np.int64)
    rows = len(t["tgtIds"]) - 1
    tgt = np.array([t["tgtIds"][:rows]], dtype=np.int64)
    enc, dec = graphs.sessions["encoder"], graphs.sessions["decoder"]

    def forward():
        began = time.perf_counter()
        dec.run(None, {"tgt_ids": tgt, "memory": enc.run(None, {"src_ids": src})[0]})
        return (time.perf_counter() - began) * 1e3

    executable = native_bench()
    ours, gemm = Server(executable, "1"), Server(executable, "gemm")
    print(ours.ready, f"(onnxruntime: {rows} decoder rows)")
    for _ in range(5):  # warm-up
        ours.forward(), gemm.forward(), forward()
    print("\n| run | attnscope start + re-decode ms (medians) | onnxruntime forward ms | ratio "
          "| attnscope on burn's gemm ms | its ratio |\n|---|---|---|---|---|---|")
    ratios, gemm_ratios = [], []
    for index in range(runs):
        mine, theirs, old = ([], []), [], ([], [])
        for _ in range(pairs):
            for server, parts in ((ours, mine), (gemm, old)):
                start, redecode = server.forward()
                parts[0].append(start)
                parts[1].append(redecode)
            theirs.append(forward())
        sum_mine = statistics.median(mine[0]) + statistics.median(mine[1])
        sum_old = statistics.median(old[0]) + statistics.median(old[1])
        theirs = statistics.median(theirs)
        ratios.append(sum_mine / theirs)
        gemm_ratios.append(sum_old / theirs)
        print(f"| {index + 1} | {statistics.median(mine[0]):.3f} + {statistics.median(mine[1]):.3f} = {sum_mine:.3f} "
              f"| {theirs:.3f} | {ratios[-1]:.2f} | {sum_old:.3f} | {gemm_ratios[-1]:.2f} |")
    ours.close()
    gemm.close()
    for name, values in (("ratio", ratios), ("on burn's gemm", gemm_ratios)):
        print(f"\n{name}: median {statistics.median(values):.2f} (min {min(values):.2f}, max {max(values):.2f}) "
              f"over {runs} runs of {pairs} forwards of each engine, taking turns", end="")
    print()


if __name__ == "__main__":
    main()
