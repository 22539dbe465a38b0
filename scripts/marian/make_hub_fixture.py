#!/usr/bin/env python3
"""The Hugging Face folder as people download it, for the page's drop test (issue 27).

It reuses the tiny multi-target checkpoint of make_fixtures.py (tests/fixtures/marian/
en_zh_swish_tied/hf, safetensors) and writes, into tests/fixtures/hub/, only what differs:

    pytorch_model.bin        the same weights, as `save_pretrained(safe_serialization=False)`
                             writes them (torch.save's zip archive holding a pickle)
    generation_config.json   the same settings with max_length 21, as opus-mt folders carry
                             their own (forced </s> at the limit, <pad> a bad word)
    generate.json            what transformers' plain `model.generate(input_ids)` gives for the
                             three fixture sentences from the folder hf/ + these two files
                             (no generate arguments: the generation config alone decides)

So a hub-style folder is hf/'s config.json, source.spm, target.spm, vocab.json,
tokenizer_config.json, plus these files, with either weights file. The script checks that
transformers loads that folder from pytorch_model.bin alone and generates exactly what
expected.json (made with max_new_tokens 20) says. NOT run in CI. From the repository root:

    nice -n 19 /work/venv-marian/bin/python scripts/marian/make_hub_fixture.py
"""

import json
import shutil
import tempfile
from pathlib import Path

import torch
from transformers import GenerationConfig, MarianMTModel, MarianTokenizer

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests/fixtures/marian/en_zh_swish_tied"
OUT = ROOT / "tests/fixtures/hub"
HF_FILES = ["config.json", "source.spm", "target.spm", "vocab.json", "tokenizer_config.json", "special_tokens_map.json"]


def main() -> None:
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    expected = json.loads((SOURCE / "expected.json").read_text(encoding="utf-8"))
    model = MarianMTModel.from_pretrained(str(SOURCE / "hf"), attn_implementation="eager")
    settings = model.generation_config.to_dict()
    settings["max_length"] = 21
    model.generation_config = GenerationConfig(**{k: v for k, v in settings.items() if not k.startswith("_") and k != "transformers_version"})
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "saved"
        model.save_pretrained(str(saved), safe_serialization=False)
        for name in ["pytorch_model.bin", "generation_config.json"]:
            shutil.copy(saved / name, OUT / name)
        # The folder a person downloads: hf/'s files, these two, and no safetensors.
        folder = Path(tmp) / "opus-mt-tiny-en-zh"
        folder.mkdir()
        for name in HF_FILES:
            shutil.copy(SOURCE / "hf" / name, folder / name)
        for name in ["pytorch_model.bin", "generation_config.json"]:
            shutil.copy(OUT / name, folder / name)
        tok = MarianTokenizer.from_pretrained(str(folder))
        hub = MarianMTModel.from_pretrained(str(folder), attn_implementation="eager").eval()
        cases = []
        for case in expected["cases"]:
            enc = tok(case["text"], return_tensors="pt")
            assert enc.input_ids[0].tolist() == case["input_ids"], case["text"]
            with torch.no_grad():
                ids = hub.generate(enc.input_ids, attention_mask=enc.attention_mask)[0].tolist()
            assert ids == case["generated_ids"], (case["text"], ids, case["generated_ids"])
            cases.append({"text": case["text"], "generated_ids": ids, "generated_text": tok.decode(ids, skip_special_tokens=True)})
    out = {
        "made_from": "tests/fixtures/marian/en_zh_swish_tied/hf",
        "versions": expected["versions"],
        "generation_config": json.loads((OUT / "generation_config.json").read_text()),
        "cases": cases,
    }
    (OUT / "generate.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print({c["text"]: len(c["generated_ids"]) for c in cases})


if __name__ == "__main__":
    main()
