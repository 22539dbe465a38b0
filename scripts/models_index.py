#!/usr/bin/env python3
"""Write models/index.json: the models the page offers, with a content hash per file.

The page caches model files with the Cache API keyed by these hashes, so a retrained model is
fetched again and an unchanged one is not. Run after training; a test checks it is current.

    python3 scripts/models_index.py [--check]
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "models"
FILES = ["config.json", "model.safetensors", "src_tokenizer.json", "tgt_tokenizer.json"]
DEFAULT = "en-zh"


def build() -> str:
    models = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / "config.json").exists()):
        config = json.loads((folder / "config.json").read_text())
        models.append({
            "name": folder.name,
            "description": config.get("description", ""),
            "example": config.get("example", ""),
            "files": {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()[:16] for name in FILES},
            "bytes": sum((folder / name).stat().st_size for name in FILES),
        })
    names = [m["name"] for m in models]
    default = DEFAULT if DEFAULT in names else (names[0] if names else None)
    return json.dumps({"default": default, "models": models}, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    text = build()
    target = ROOT / "index.json"
    if "--check" in sys.argv:
        if not target.exists() or target.read_text() != text:
            print("models/index.json is out of date: run python3 scripts/models_index.py", file=sys.stderr)
            return 1
        print("models/index.json is current")
        return 0
    target.write_text(text)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
