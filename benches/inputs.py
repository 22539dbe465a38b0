"""The benchmark's inputs, shared by export_onnx.py and ort_native.py: the sentences of
`benches/web/sentences.json` (the browser bench reads the same file) and attnscope's trace of
them (`attnscope trace --json`), so every engine sees the same token ids.
"""
import functools
import json
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "attnscope"
SENTENCES = json.loads((ROOT / "benches" / "web" / "sentences.json").read_text())


def trace(model_dir, text):
    """attnscope's trace of `text`: srcIds, tgtIds (with <s> and, when it ended, </s>), and every
    attention stack."""
    answer = subprocess.run([str(BINARY), "trace", "--model", str(model_dir), text, "--json"], check=True, capture_output=True)
    return json.loads(answer.stdout)["trace"]


@functools.cache
def _words(model_dir, name):
    spec = SENTENCES["models"][name]
    if not spec["oneTokenWords"]:
        return spec["candidates"]
    # A word is one token when its trace's source is that token and </s>.
    return [w for w in spec["candidates"] if len(trace(model_dir, w)["srcIds"]) == 2]


def bench_sentence(model_dir, name, n):
    """A sentence of exactly `n` source tokens (with </s>), as `benches/native.rs` and
    `benches/web/bench.js` build it."""
    words, joiner = _words(str(model_dir), name), SENTENCES["models"][name]["joiner"]
    return joiner.join(words[i % len(words)] for i in range(n - 1))


def bench_lengths(config):
    """The source lengths the bench times that fit the model."""
    spec = SENTENCES["models"].get(config["name"], {})
    return [n for n in spec.get("lengths", SENTENCES["lengths"]) if n <= config["max_len"]]


def check_sentences(model_dir, config):
    """The sentences the export is checked on: a few natural ones and every bench sentence."""
    name = config["name"] if config["name"] in SENTENCES["models"] else "en-zh"
    natural = SENTENCES["models"][name]["check"]
    return natural + [bench_sentence(model_dir, name, n) for n in bench_lengths(config)]
