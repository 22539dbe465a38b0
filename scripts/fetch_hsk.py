#!/usr/bin/env python3
"""Fetch the HSK sentence pairs from PyPI and write the TSV files the en-zh model trains on.

    python3 scripts/fetch_hsk.py            # writes data/en-zh/hsk.tsv

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
    with open(OUT / "hsk.tsv", "w", encoding="utf-8") as tsv:
        tsv.write("id\tlevel\ten\tzh\n")
        for s in sentences:
            tsv.write(f"{s['id']}\t{s['hsk_level']}\t{clean(s['translation']['en'])}\t{clean(s['chinese'])}\n")
    print(f"wrote {len(sentences)} sentence pairs to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
