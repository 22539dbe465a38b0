#!/usr/bin/env python3
"""Average the weights of several F32 safetensors files (checkpoint averaging).

    python3 scripts/average_checkpoints.py OUT.safetensors e28.safetensors e29.safetensors ...

Each input is a training checkpoint's `weights.safetensors` (F32, every epoch of one run:
`train` overwrites `<out>/checkpoint/` after each epoch, so copy it out as the run goes).
Every tensor of the output is the element-wise mean of the inputs' tensors of that name, in
F32, in the first input's tensor order; the files must hold the same names, shapes and dtypes.
Put the output as `model.safetensors` into a copy of the run's folder (config and tokenizers)
and `attnscope eval --model` it. Plain Python, no numpy: about 4 s an input for 5.2 M weights.
"""
import array
import json
import struct
import sys


def read(path):
    """The header (without `__metadata__`) and the raw data bytes of one file."""
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    header.pop("__metadata__", None)
    return header, data


def floats(data, entry):
    start, end = entry["data_offsets"]
    values = array.array("f")
    values.frombytes(data[start:end])
    if sys.byteorder != "little":
        values.byteswap()
    return values


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: average_checkpoints.py OUT IN IN [IN ...]")
    out, inputs = argv[1], argv[2:]
    first, data = read(inputs[0])
    names = sorted(first, key=lambda n: first[n]["data_offsets"][0])
    layout = {n: (e["dtype"], e["shape"]) for n, e in first.items()}
    if any(e["dtype"] != "F32" for e in first.values()):
        sys.exit(f"{inputs[0]}: only F32 tensors can be averaged")
    sums = [array.array("d", floats(data, first[n])) for n in names]
    for path in inputs[1:]:
        header, data = read(path)
        if {n: (e["dtype"], e["shape"]) for n, e in header.items()} != layout:
            sys.exit(f"{path}: its tensors differ from {inputs[0]}'s")
        for total, name in zip(sums, names):
            for i, v in enumerate(floats(data, header[name])):
                total[i] += v
    scale = 1.0 / len(inputs)
    blob = bytearray()
    header = {}
    for name, total in zip(names, sums):
        mean = array.array("f", (v * scale for v in total))
        if sys.byteorder != "little":
            mean.byteswap()
        header[name] = {
            "dtype": "F32",
            "shape": first[name]["shape"],
            "data_offsets": [len(blob), len(blob) + len(mean) * 4],
        }
        blob += mean.tobytes()
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)
    print(f"{out}: the mean of {len(inputs)} files, {len(blob) // 4:,} weights")


if __name__ == "__main__":
    main(sys.argv)
