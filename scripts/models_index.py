#!/usr/bin/env python3
"""Write models/index.json: the models the page offers, with a content hash per file.

The page caches model files with the Cache API keyed by these hashes, so a retrained model is
fetched again and an unchanged one is not; a model's training timeline, where it has one, is
listed the same way. Run after training; a test checks it is current.

    python3 scripts/models_index.py [--check]
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "models"
DEFAULT = "en-zh"
# Read for the description and example the page lists; it also marks a folder as a model.
CONFIG = "config.json"
# The model's description in each page language and the credits its training data requires
# (CC-BY asks for them): copied into its index entry as "about", so each model shows its own.
ABOUT = "about.json"
# Training metrics: written next to the model, never loaded by the page; about.json is read here.
NOT_LOADED = {"metrics.json", ABOUT}
# The training timeline, where a model has one: timeline.json, one weights file per snapshot under
# timeline/ and the loss log it plots. Only the timeline strip loads them (the last snapshot is the
# model's own weights file).
TIMELINE = "timeline.json"
TIMELINE_DIR = "timeline"
TRAIN_LOG = "train_log.tsv"


def model_files(folder: pathlib.Path) -> list[pathlib.Path]:
    """The files the page loads from a model folder (the wasm module names them; they are the
    folder's .json and .safetensors files), sorted by name."""
    return sorted(
        p for p in folder.iterdir()
        if p.is_file() and p.suffix in (".json", ".safetensors") and p.name not in NOT_LOADED | {TIMELINE}
    )


def timeline_files(folder: pathlib.Path) -> list[pathlib.Path]:
    """The timeline's files, or none when the folder has no timeline.json: timeline.json, every
    file under timeline/ and train_log.tsv."""
    if not (folder / TIMELINE).is_file():
        return []
    snapshots = folder / TIMELINE_DIR
    return [
        folder / TIMELINE,
        *sorted(p for p in snapshots.rglob("*") if p.is_file() and not p.name.startswith(".")),
        *([folder / TRAIN_LOG] if (folder / TRAIN_LOG).is_file() else []),
    ]


def content_hash(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def build() -> str:
    models = []
    for folder in sorted(p for p in ROOT.iterdir() if (p / CONFIG).exists()):
        config = json.loads((folder / CONFIG).read_text())
        files = model_files(folder)
        timeline = timeline_files(folder)
        listed = sorted((p.relative_to(folder).as_posix(), p) for p in files + timeline)
        entry = {
            "name": folder.name,
            "description": config.get("description", ""),
            "example": config.get("example", ""),
            # Names relative to the folder ("timeline/step-000000.safetensors").
            "files": {name: content_hash(p) for name, p in listed},
            # The download to translate: the model files only, not the timeline's.
            "bytes": sum(p.stat().st_size for p in files),
        }
        if (folder / ABOUT).is_file():
            entry["about"] = json.loads((folder / ABOUT).read_text())
        if timeline:
            entry["timelineBytes"] = sum(p.stat().st_size for p in timeline)
        models.append(entry)
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
