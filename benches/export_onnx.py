#!/usr/bin/env python3
"""Export an attnscope model folder to ONNX, built straight from `model.safetensors` with the
`onnx` package (no PyTorch), then check the ONNX outputs against attnscope's own trace.

    python3 benches/export_onnx.py models/en-zh benches/out/en-zh

Writes `encoder.onnx` (src_ids [1,S] → memory [1,S,d] and each layer's attention) and
`decoder.onnx` (tgt_ids [1,T], memory [1,S,d] → logits [1,T,V] and each layer's self- and
cross-attention). Batch 1 without padding; the decoder recomputes the whole prefix (no cache).
The check runs `attnscope trace --json` on a few sentences and compares every attention matrix
(≤ 1e-4) and the greedy tokens; it fails loudly rather than time a model that differs.
"""
import json
import math
import pathlib
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
OPSET = 17


def stack_layers(stack):
    """A trace's flat attention stack as an array [layers, heads, queries, keys]."""
    return np.array(stack["data"], dtype=np.float32).reshape(stack["layers"], stack["heads"], stack["queries"], stack["keys"])


def read_safetensors(path):
    raw = pathlib.Path(path).read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = {"F32": np.float32, "F16": np.float16}[info["dtype"]]
        out[name] = np.frombuffer(raw[base + start:base + end], dtype=dtype).reshape(info["shape"]).astype(np.float32)
    return out


def sinusoids(max_len, d):
    pe = np.zeros((max_len, d), dtype=np.float64)
    pos = np.arange(max_len)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = pos / np.power(10000.0, 2 * i / d)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe.astype(np.float32)


class Graph:
    """A tiny builder: named nodes and initializers."""

    def __init__(self, weights, config):
        self.w = weights
        self.c = config
        self.nodes = []
        self.inits = {}
        self.n = 0

    def name(self, hint):
        self.n += 1
        return f"{hint}_{self.n}"

    def const(self, name, array):
        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(np.asarray(array), name)
        return name

    def op(self, kind, inputs, hint=None, **attrs):
        out = self.name(hint or kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def weight_t(self, name):
        """nn.Linear weight [out, in] as the [in, out] matrix MatMul wants."""
        return self.const(f"{name}__T", self.w[name].T.copy())

    def linear(self, x, prefix, bias):
        y = self.op("MatMul", [x, self.weight_t(f"{prefix}.weight")])
        return self.op("Add", [y, self.const(f"{prefix}.bias", self.w[f"{prefix}.bias"])]) if bias else y

    def layer_norm(self, x, prefix):
        return self.op(
            "LayerNormalization",
            [x, self.const(f"{prefix}.weight", self.w[f"{prefix}.weight"]), self.const(f"{prefix}.bias", self.w[f"{prefix}.bias"])],
            axis=-1,
            epsilon=float(self.c["layer_norm_eps"]),
        )

    def heads(self, x, transpose_for_keys=False):
        h, dk = self.c["n_heads"], self.c["d_model"] // self.c["n_heads"]
        r = self.op("Reshape", [x, self.const(f"heads_shape", np.array([0, -1, h, dk], dtype=np.int64))])
        return self.op("Transpose", [r], perm=[0, 2, 3, 1] if transpose_for_keys else [0, 2, 1, 3])

    def attention(self, prefix, q_in, kv_in, mask):
        d, h = self.c["d_model"], self.c["n_heads"]
        q = self.heads(self.linear(q_in, f"{prefix}.w_q", False))
        k = self.heads(self.linear(kv_in, f"{prefix}.w_k", False), transpose_for_keys=True)
        v = self.heads(self.linear(kv_in, f"{prefix}.w_v", False))
        scores = self.op("Div", [self.op("MatMul", [q, k]), self.const("sqrt_dk", np.array(math.sqrt(d // h), dtype=np.float32))])
        if mask is not None:
            scores = self.op("Add", [scores, mask])
        weights = self.op("Softmax", [scores], axis=-1)
        ctx = self.op("Transpose", [self.op("MatMul", [weights, v])], perm=[0, 2, 1, 3])
        ctx = self.op("Reshape", [ctx, self.const("merge_shape", np.array([0, -1, d], dtype=np.int64))])
        return self.linear(ctx, f"{prefix}.w_o", False), weights

    def residual(self, x, norm, sublayer):
        if self.c["norm_first"]:
            y, extra = sublayer(self.layer_norm(x, norm))
            return self.op("Add", [x, y]), extra
        y, extra = sublayer(x)
        return self.layer_norm(self.op("Add", [x, y]), norm), extra

    def ffn(self, x, prefix):
        hidden = self.op("Relu", [self.linear(x, f"{prefix}.linear_1", True)])
        return self.linear(hidden, f"{prefix}.linear_2", True), None

    def embed(self, ids, table):
        x = self.op("Gather", [self.const(table, self.w[table]), ids], axis=0)
        if self.c["embed_scale"]:
            x = self.op("Mul", [x, self.const("embed_scale", np.array(math.sqrt(self.c["d_model"]), dtype=np.float32))])
        length = self.op("Gather", [self.op("Shape", [ids]), self.const("one", np.array([1], dtype=np.int64))], axis=0)
        pe = self.op("Slice", [self.const("pe", sinusoids(self.c["max_len"], self.c["d_model"])), self.const("zero", np.array([0], dtype=np.int64)), length, self.const("zero", np.array([0], dtype=np.int64))])
        return self.op("Add", [x, pe]), length

    def model(self, inputs, outputs, name):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, list(self.inits.values()))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="attnscope")
        # onnx 1.23 writes IR version 14 by default; onnxruntime-web 1.30 reads at most 13.
        model.ir_version = IR_VERSION
        onnx.checker.check_model(model)
        return model


def encoder(weights, c):
    g = Graph(weights, c)
    x, _ = g.embed("src_ids", "src_embed.weight")
    attn = []
    for layer in range(c["n_encoder_layers"]):
        p = f"encoder.layers.{layer}"
        x, w = g.residual(x, f"{p}.norm_1", lambda y, p=p: g.attention(f"{p}.self_attn", y, y, None))
        x, _ = g.residual(x, f"{p}.norm_2", lambda y, p=p: g.ffn(y, f"{p}.ffn"))
        attn.append(w)
    if c["norm_first"]:
        x = g.layer_norm(x, "encoder.norm")
    g.nodes.append(helper.make_node("Identity", [x], ["memory"]))
    for i, w in enumerate(attn):
        g.nodes.append(helper.make_node("Identity", [w], [f"encoder_attention_{i}"]))
    d, h = c["d_model"], c["n_heads"]
    return g.model(
        [helper.make_tensor_value_info("src_ids", TensorProto.INT64, [1, "S"])],
        [helper.make_tensor_value_info("memory", TensorProto.FLOAT, [1, "S", d])]
        + [helper.make_tensor_value_info(f"encoder_attention_{i}", TensorProto.FLOAT, [1, h, "S", "S"]) for i in range(len(attn))],
        "attnscope_encoder",
    )


def decoder(weights, c):
    g = Graph(weights, c)
    x, length = g.embed("tgt_ids", "tgt_embed.weight")
    n = c["max_len"]
    causal = np.triu(np.full((n, n), c["mask_value"], dtype=np.float32), k=1)
    zero = g.const("zero", np.array([0], dtype=np.int64))
    rows = g.op("Slice", [g.const("causal", causal), zero, length, zero])
    mask = g.op("Slice", [rows, zero, length, g.const("one", np.array([1], dtype=np.int64))])
    selfs, crosses = [], []
    for layer in range(c["n_decoder_layers"]):
        p = f"decoder.layers.{layer}"
        x, w = g.residual(x, f"{p}.norm_1", lambda y, p=p: g.attention(f"{p}.self_attn", y, y, mask))
        x, cw = g.residual(x, f"{p}.norm_2", lambda y, p=p: g.attention(f"{p}.cross_attn", y, "memory", None))
        x, _ = g.residual(x, f"{p}.norm_3", lambda y, p=p: g.ffn(y, f"{p}.ffn"))
        selfs.append(w)
        crosses.append(cw)
    if c["norm_first"]:
        x = g.layer_norm(x, "decoder.norm")
    logits = g.linear(x, "projection", True)
    g.nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    for i, (s, cr) in enumerate(zip(selfs, crosses)):
        g.nodes.append(helper.make_node("Identity", [s], [f"decoder_self_attention_{i}"]))
        g.nodes.append(helper.make_node("Identity", [cr], [f"cross_attention_{i}"]))
    d, h, v = c["d_model"], c["n_heads"], c["tgt_vocab_size"]
    outs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "T", v])]
    for i in range(len(selfs)):
        outs.append(helper.make_tensor_value_info(f"decoder_self_attention_{i}", TensorProto.FLOAT, [1, h, "T", "T"]))
        outs.append(helper.make_tensor_value_info(f"cross_attention_{i}", TensorProto.FLOAT, [1, h, "T", "S"]))
    return g.model(
        [helper.make_tensor_value_info("tgt_ids", TensorProto.INT64, [1, "T"]), helper.make_tensor_value_info("memory", TensorProto.FLOAT, [1, "S", d])],
        outs,
        "attnscope_decoder",
    )


CHECK_SENTENCES = {
    "en-zh": ["I love eating apples.", "My father likes drinking tea.", "The weather is nice today, so we eat noodles in the park."],
    "date-iso": ["Friday, the 29th of August 1958", "Aug 29, '58", "1 May 2000"],
}


def check(model_dir, out_dir, config):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    enc = ort.InferenceSession(str(out_dir / "encoder.onnx"), opts, providers=["CPUExecutionProvider"])
    dec = ort.InferenceSession(str(out_dir / "decoder.onnx"), opts, providers=["CPUExecutionProvider"])
    binary = pathlib.Path(__file__).resolve().parent.parent / "target" / "release" / "attnscope"
    worst = 0.0
    for text in CHECK_SENTENCES.get(config["name"], CHECK_SENTENCES["en-zh"]):
        answer = json.loads(subprocess.run([str(binary), "trace", "--model", str(model_dir), text, "--json"], check=True, capture_output=True).stdout)
        trace = answer["trace"]
        src = np.array([trace["srcIds"]], dtype=np.int64)
        enc_out = enc.run(None, {"src_ids": src})
        memory = enc_out[0]
        for layer, ours in enumerate(stack_layers(trace["encoderSelfAttention"])):
            worst = max(worst, float(np.abs(enc_out[1 + layer][0] - ours).max()))
        rows = len(trace["tgtIds"]) - 1
        tgt = np.array([trace["tgtIds"][:rows]], dtype=np.int64)
        dec_out = dec.run(None, {"tgt_ids": tgt, "memory": memory})
        for layer in range(config["n_decoder_layers"]):
            worst = max(worst, float(np.abs(dec_out[1 + 2 * layer][0] - stack_layers(trace["decoderSelfAttention"])[layer]).max()))
            worst = max(worst, float(np.abs(dec_out[2 + 2 * layer][0] - stack_layers(trace["crossAttention"])[layer]).max()))
        greedy = dec_out[0][0].argmax(-1).tolist()
        if greedy != trace["tgtIds"][1:]:
            raise SystemExit(f"ONNX greedy tokens differ from attnscope's for {text!r}: {greedy} vs {trace['tgtIds'][1:]}")
    if worst > 1e-4:
        raise SystemExit(f"ONNX attention differs from attnscope's by {worst}")
    print(f"check passed: every attention matrix within {worst:.2e} of attnscope's trace, greedy tokens identical")
    return worst


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    model_dir, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    config = json.loads((model_dir / "config.json").read_text())
    weights = read_safetensors(model_dir / "model.safetensors")
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx.save(encoder(weights, config), out_dir / "encoder.onnx")
    onnx.save(decoder(weights, config), out_dir / "decoder.onnx")
    print(f"wrote {out_dir}/encoder.onnx and decoder.onnx")
    worst = check(model_dir, out_dir, config)
    (out_dir / "check.json").write_text(json.dumps({"maxAbsAttentionDifference": worst}) + "\n")


if __name__ == "__main__":
    main()
