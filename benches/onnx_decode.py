"""The exported graphs under onnxruntime (CPU): greedy decoding with the key/value cache
(`encoder_with_cross_kv.onnx` once, then `decoder_with_past.onnx` one token a step) and without
it (`encoder.onnx`, then `decoder.onnx` over the whole prefix every step), by attnscope's
decoding rule. export_onnx.py checks with it; ort_native.py times it.
"""
import json
import pathlib

import numpy as np
import onnxruntime as ort

# The graphs export_onnx.py writes into a model's output folder, and the description of them
# that the bench page reads (file names, the empty cache's shape, the check's figures).
FILES = {
    "encoder": "encoder.onnx",
    "decoder": "decoder.onnx",
    "encoder_with_cross": "encoder_with_cross_kv.onnx",
    "decoder_with_past": "decoder_with_past.onnx",
}
EXPORT_JSON = "export.json"


def next_token(logits, config):
    """attnscope's greedy rule: the most likely id that is not <pad> or <s> (never generated)."""
    row = np.array(logits, dtype=np.float32, copy=True)
    row[[config["pad_id"], config["bos_id"]]] = -np.inf
    return int(row.argmax())


class Graphs:
    """The four sessions of one exported model, single-threaded like the browser."""

    def __init__(self, out_dir, config, threads=1):
        out_dir = pathlib.Path(out_dir)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = threads
        self.config = config
        self.export = json.loads((out_dir / EXPORT_JSON).read_text())
        self.sessions = {k: ort.InferenceSession(str(out_dir / f), opts, providers=["CPUExecutionProvider"]) for k, f in FILES.items()}
        self.past_names = [i.name for i in self.sessions["decoder_with_past"].get_inputs() if i.name.startswith("past_")]
        self.cross_names = [o.name for o in self.sessions["encoder_with_cross"].get_outputs() if o.name.startswith("cross_")]
        self.step_outputs = [o.name for o in self.sessions["decoder_with_past"].get_outputs()]

    # --- without the cache ---

    def encode(self, src):
        """src [1, S] int64 → every output of encoder.onnx by name (memory, encoder_attention_i)."""
        enc = self.sessions["encoder"]
        return dict(zip([o.name for o in enc.get_outputs()], enc.run(None, {"src_ids": src})))

    def decode(self, tgt, memory):
        """The whole prefix tgt [1, T] at once → logits [1, T, V] and every attention by name."""
        dec = self.sessions["decoder"]
        return dict(zip([o.name for o in dec.get_outputs()], dec.run(None, {"tgt_ids": tgt, "memory": memory})))

    def greedy_uncached(self, src):
        """Target ids from <s> to the last generated one: each step re-runs the whole prefix."""
        c = self.config
        memory = self.encode(src)["memory"]
        ids = [c["bos_id"]]
        while len(ids) < c["max_len"]:
            logits = self.sessions["decoder"].run(["logits"], {"tgt_ids": np.array([ids], dtype=np.int64), "memory": memory})[0]
            ids.append(next_token(logits[0, -1], c))
            if ids[-1] == c["eos_id"]:
                break
        return ids

    # --- with the cache ---

    def encode_with_cross(self, src):
        """src [1, S] → memory, encoder attention and each decoder layer's cross keys/values."""
        enc = self.sessions["encoder_with_cross"]
        return dict(zip([o.name for o in enc.get_outputs()], enc.run(None, {"src_ids": src})))

    def empty_cache(self):
        """Past keys/values of length 0, for the first step."""
        empty = np.zeros(self.export["pastShape"], dtype=np.float32)
        return {name: empty for name in self.past_names}

    def step(self, token, cache, cross):
        """One cached step: token → logits [1, 1, V], the grown cache, and the step's attention
        rows (decoder_self_attention_i [1, h, 1, P+1], cross_attention_i [1, h, 1, S])."""
        feeds = {"tgt_ids": np.array([[token]], dtype=np.int64), **cache, **cross}
        out = dict(zip(self.step_outputs, self.sessions["decoder_with_past"].run(None, feeds)))
        grown = {name: out[name.replace("past_", "present_", 1)] for name in self.past_names}
        return out, grown

    def cross(self, encoded):
        return {name: encoded[name] for name in self.cross_names}

    def steps(self, cross, ids):
        """Teacher-force `ids` (from <s>) through the cached decoder: each step's outputs."""
        cache, outs = self.empty_cache(), []
        for token in ids:
            out, cache = self.step(token, cache, cross)
            outs.append(out)
        return outs

    def greedy_cached(self, src, on_step=None):
        """Target ids from <s> to the last generated one, one cached step each; `on_step(out)`
        sees every step's outputs."""
        c = self.config
        cross = self.cross(self.encode_with_cross(src))
        cache, ids = self.empty_cache(), [c["bos_id"]]
        while len(ids) < c["max_len"]:
            out, cache = self.step(ids[-1], cache, cross)
            if on_step:
                on_step(out)
            ids.append(next_token(out["logits"][0, -1], c))
            if ids[-1] == c["eos_id"]:
                break
        return ids
