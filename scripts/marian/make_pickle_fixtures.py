#!/usr/bin/env python3
"""Fixtures for src/import/torch.rs (the pickle reader of pytorch_model.bin), in
tests/fixtures/pickle/:

- reduce_os_system.pkl: a pickle (protocol 2) whose REDUCE would run os.system("echo pwned");
  reduce_os_system.bin: the same pickle as archive/data.pkl in a stored zip, as torch lays it
  out. Python's own pickle writes them; nothing is unpickled here.
- small_state_dict.bin (torch's zip format) and small_state_dict_legacy.bin (torch < 1.6's,
  `_use_new_zipfile_serialization=False`), written by torch.save, and small_state_dict.json:
  each tensor's dtype, shape and contiguous little-endian bytes (hex), as torch reads them.
  Written only when torch is importable (python with torch: /work/venv-marian/bin/python).

Run from the repository root: python3 scripts/marian/make_pickle_fixtures.py
"""

import json
import os
import pickle
import sys
import zipfile
from collections import OrderedDict

OUT = os.path.join("tests", "fixtures", "pickle")


class RunsACommand:
    """Unpickling this calls os.system: what a state-dict reader must refuse."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


def write_malicious():
    data = pickle.dumps(RunsACommand(), protocol=2)
    with open(os.path.join(OUT, "reduce_os_system.pkl"), "wb") as f:
        f.write(data)
    path = os.path.join(OUT, "reduce_os_system.bin")
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, content in [("archive/data.pkl", data), ("archive/version", b"3\n")]:
            # A fixed date, so that the file is the same on every run.
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(entry, content, compress_type=zipfile.ZIP_STORED)
    # The global pickle wrote, which the reader's error must name (posix.system on Linux).
    print(f"reduce_os_system: {data!r}")


def small_state_dict(torch):
    """One of each case the reader handles: dtypes, a tied pair, a transposed view, a slice
    with a storage offset, and the _metadata a module's state_dict() carries."""
    weight = torch.arange(12, dtype=torch.float32).reshape(3, 4) * 0.5 - 1.0
    half = torch.tensor([0.1, -2.0, 65504.0, 1e-4, 3.5], dtype=torch.float16)
    bf16 = torch.tensor([[1.5, -0.25], [3.0e38, 1.0 / 3.0]], dtype=torch.bfloat16)
    tied = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    matrix = torch.arange(6, dtype=torch.float32).reshape(2, 3) + 10.0
    big = torch.arange(20, dtype=torch.float32).reshape(4, 5) - 7.25
    state = OrderedDict()
    state["encoder.weight"] = weight
    state["encoder.half"] = half
    state["encoder.bf16"] = bf16
    state["shared.weight"] = tied
    state["lm_head.weight"] = tied  # the same tensor: one storage, two keys
    state["matrix"] = matrix
    state["matrix_t"] = matrix.t()  # non-contiguous: strides (1, 3)
    state["sliced"] = big[1:3, 2:]  # storage offset 7, strides (5, 1)
    state["positions"] = torch.tensor([0, -1, 2**40], dtype=torch.int64)
    state["mask"] = torch.tensor([True, False, True])
    state._metadata = OrderedDict([("", {"version": 1}), ("encoder", {"version": 1})])
    return state


def expected(torch, state):
    rows = []
    names = {
        torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
        torch.int64: "I64", torch.bool: "BOOL",
    }
    for name, tensor in state.items():
        flat = tensor.contiguous().reshape(-1)
        raw = flat.view(torch.uint8)  # its bytes, little-endian on this machine
        rows.append({
            "name": name,
            "dtype": names[tensor.dtype],
            "shape": list(tensor.shape),
            "hex": bytes(raw.tolist()).hex(),
        })
    return rows


def write_torch():
    try:
        import torch
    except ImportError:
        print("torch is not importable: small_state_dict fixtures not written")
        return
    assert sys.byteorder == "little"
    state = small_state_dict(torch)
    torch.save(state, os.path.join(OUT, "small_state_dict.bin"))
    torch.save(state, os.path.join(OUT, "small_state_dict_legacy.bin"),
               _use_new_zipfile_serialization=False)
    # One tensor a line, so that the Rust test (std only) can read it without a JSON parser.
    rows = expected(torch, state)
    lines = ",\n".join(json.dumps(row) for row in rows)
    with open(os.path.join(OUT, "small_state_dict.json"), "w") as f:
        f.write(f'{{"torch": "{torch.__version__}", "tensors": [\n{lines}\n]}}\n')
    print(f"small_state_dict: {len(rows)} tensors, torch {torch.__version__}")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    write_malicious()
    write_torch()
