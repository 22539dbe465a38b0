#!/usr/bin/env python3
"""onnxruntime CPU (1 thread): the weight products of `PRODUCTS=1 cargo bench --bench native`
(benches/split/products.rs), each a MatMul + Add graph with its weights as initializers (which
onnxruntime packs once, at session creation), hot and cold as there; then the share of each
operator in en-zh's forward (encoder.onnx + decoder.onnx, 32 source tokens) by onnxruntime's own
profiler, and each MatMul's kernel time inside that forward by its shapes. A product timed alone
includes Python's call into onnxruntime (compare the one-row products); the profiler's times do
not, but profiling slows the whole run.

    benches/.venv/bin/python benches/ort_products.py     # after benches/export_onnx.py models/en-zh benches/out/en-zh
"""
import collections
import json
import pathlib
import tempfile
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from inputs import ROOT, bench_sentence, trace
from onnx_decode import FILES

SHAPES = [(32, 192, 192), (32, 192, 768), (32, 768, 192), (20, 192, 2878), (1, 192, 192), (1, 768, 192), (32, 192, 576), (32, 192, 384)]
SAMPLES = 41


def options(profile_dir=None):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    if profile_dir:
        opts.enable_profiling = True
        opts.profile_file_prefix = str(pathlib.Path(profile_dir) / "ort")
    return opts


def product_session(rows, inputs, outputs):
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((inputs, outputs)) * 0.05).astype(np.float32)
    b = rng.standard_normal(outputs).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])],
        "product",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, rows, inputs])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, rows, outputs])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return ort.InferenceSession(model.SerializeToString(), options(), providers=["CPUExecutionProvider"])


def products():
    walk = np.ones(48 << 20, dtype=np.uint8)
    print("| rows × inputs → outputs | hot µs | madd/ns | cold µs | madd/ns |\n|---|---|---|---|---|")
    for rows, inputs, outputs in SHAPES:
        session = product_session(rows, inputs, outputs)
        feed = {"x": np.random.default_rng(1).standard_normal((1, rows, inputs)).astype(np.float32)}

        def product():
            t = time.perf_counter()
            session.run(None, feed)
            return (time.perf_counter() - t) * 1e6

        for _ in range(5):
            product()
        hot, cold = [], []
        for _ in range(SAMPLES):
            walk[::64] += 1
            cold.append(product())
            hot.append(product())
        hot, cold = sorted(hot)[SAMPLES // 2], sorted(cold)[SAMPLES // 2]
        madds = rows * inputs * outputs
        print(f"| {rows} × {inputs} → {outputs} | {hot:.1f} | {madds / hot / 1e3:.1f} | {cold:.1f} | {madds / cold / 1e3:.1f} |")


def operator_shares(runs=200):
    out, model_dir = ROOT / "benches" / "out" / "en-zh", ROOT / "models" / "en-zh"
    t = trace(model_dir, bench_sentence(model_dir, "en-zh", 32))
    src = np.array([t["srcIds"]], dtype=np.int64)
    tgt = np.array([t["tgtIds"][:-1]], dtype=np.int64)
    with tempfile.TemporaryDirectory() as profiles:
        enc, dec = (ort.InferenceSession(str(out / FILES[k]), options(profiles), providers=["CPUExecutionProvider"]) for k in ("encoder", "decoder"))
        for _ in range(runs):
            dec.run(None, {"tgt_ids": tgt, "memory": enc.run(None, {"src_ids": src})[0]})
        print(f"\nen-zh forward, {src.shape[1]} source tokens, {tgt.shape[1]} decoder rows, {runs} runs: each operator's share of the nodes' time\n")
        print("| graph | nodes ms a run | MatMul | FusedMatMul | Add | LayerNormalization | Transpose + Reshape | Softmax | other |\n|---|---|---|---|---|---|---|---|---|")
        durations = collections.defaultdict(list)
        for name, session in (("encoder", enc), ("decoder", dec)):
            by = collections.Counter()
            for event in json.loads(pathlib.Path(session.end_profiling()).read_text()):
                if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
                    by[event["args"]["op_name"]] += event["dur"]
                    if event["args"]["op_name"] == "MatMul":
                        shapes = [next(iter(t.values())) for t in event["args"]["input_type_shape"] + event["args"]["output_type_shape"]]
                        durations[f"{name}: " + " → ".join("×".join(map(str, d)) for d in shapes)].append(event["dur"])
            total = sum(by.values())
            share = lambda *ops: f"{100 * sum(by[o] for o in ops) / total:.1f} %"
            named = ("MatMul", "FusedMatMul", "Add", "LayerNormalization", "Transpose", "Reshape", "Softmax")
            other = f"{100 * sum(v for k, v in by.items() if k not in named) / total:.1f} %"
            print(f"| {name} | {total / runs / 1e3:.3f} | {share('MatMul')} | {share('FusedMatMul')} | {share('Add')} | {share('LayerNormalization')} | {share('Transpose', 'Reshape')} | {share('Softmax')} | {other} |")
        matmuls = {k: (len(v) // runs, sorted(v)[len(v) // 2]) for k, v in durations.items()}
        print("\nEach MatMul inside the forward, by its operands' shapes (onnxruntime's kernel time, no Python call): median µs a call\n")
        print("| input → output | calls a forward | median µs |\n|---|---|---|")
        for shape, (count, median) in sorted(matmuls.items(), key=lambda kv: -kv[1][0] * kv[1][1]):
            print(f"| {shape} | {count} | {median:.1f} |")


if __name__ == "__main__":
    print(f"onnxruntime {ort.__version__}, 1 thread\n")
    products()
    operator_shares()
