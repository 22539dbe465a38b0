#!/usr/bin/env python3
"""How far apart two human translators are on Tatoeba: the ceiling behind en-zh's chrF.

    pip install -r scripts/requirements-data.txt
    attnscope eval --model models/en-zh --dump /tmp/en-zh.tsv
    python3 scripts/human_agreement.py /tmp/en-zh.tsv

Tatoeba often has two or more Chinese translations of one English sentence, written by
different people. Scoring one against the other with sacrebleu's chrF (its defaults: character
6-grams, beta 2) gives the figure a translation as good as a second human's gets against a
single reference. `attnscope eval` computes the same in Rust (metrics.json's humanAgreement);
tests/integration/metrics.rs checks the two agree. Printed:

- every English sentence of 12 words or fewer with two distinct Chinese translations: the
  first against the second (in the file's order); the same for Chinese sentences with two
  English translations (zh-en's ceiling);
- with an `eval --dump` of en-zh (or of zh-en, named so): the held-out Tatoeba pairs whose
  source has another translation in data/tatoeba/tatoeba.tsv (so never trained on), that other
  translation and
  the model's output, each scored against the held-out reference; then the model against both
  human translations at once (multi-reference chrF) and against the second alone, and the
  held-out human against the second.
"""
import csv
import pathlib
import sys

import sacrebleu

TSV = pathlib.Path(__file__).resolve().parent.parent / "data" / "tatoeba" / "tatoeba.tsv"
MAX_ENGLISH_WORDS = 12


def read(path, **kwargs):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE, **kwargs))


def chrf(hypotheses, references):
    return sacrebleu.corpus_chrf(hypotheses, [references]).score


def translations(source, target):
    """Every short source sentence with its distinct translations, in the file's order."""
    found = {}
    for row in read(TSV):
        if len(row["en"].split()) > MAX_ENGLISH_WORDS:
            continue
        seen = found.setdefault(row[source], [])
        if row[target] not in seen:
            seen.append(row[target])
    return found


def two_humans(found):
    """(sentences with two translations, the first's chrF against the second)."""
    pairs = [t[:2] for t in found.values() if len(t) >= 2]
    return len(pairs), chrf([p[0] for p in pairs], [p[1] for p in pairs])


def with_second(dump, found):
    """The held-out Tatoeba rows of a dump, and (output, reference, second) of those whose
    source has another translation."""
    rows = [r for r in read(dump) if r["set"] == "tatoeba"]
    kept = []
    for row in rows:
        alternatives = [t for t in found.get(row["source"], []) if t != row["reference"]]
        if alternatives:
            kept.append((row["output"], row["reference"], alternatives[0]))
    return rows, kept


def main() -> int:
    found = {}
    for source, target, name in [("en", "zh", "English sentences with two Chinese"), ("zh", "en", "Chinese sentences with two English")]:
        found[source] = translations(source, target)
        count, score = two_humans(found[source])
        print(f"Tatoeba, {count} {name} translations: one human against the other, chrF {score:.1f}")
    for dump in sys.argv[1:]:
        # en-zh's dumps have English sources, zh-en's Chinese.
        rows, kept = with_second(dump, found["zh" if "zh-en" in dump else "en"])
        output, reference, other = (list(c) for c in zip(*kept))
        print(f"{dump}: {len(rows)} held-out Tatoeba pairs, model chrF {chrf([r['output'] for r in rows], [r['reference'] for r in rows]):.1f}")
        print(f"  the {len(reference)} with a second human translation, against the held-out reference:")
        print(f"    the second human: chrF {chrf(other, reference):.1f}")
        print(f"    the model:        chrF {chrf(output, reference):.1f}")
        # With both human translations as references, a model is scored against the nearer
        # one; a human cannot be (one reference is itself), so the held-out translator is
        # scored against the second instead: the same one-to-one agreement, the other way.
        multi = sacrebleu.corpus_chrf(output, [reference, other]).score
        print(f"  the same {len(reference)}, against both human translations (multi-reference):")
        print(f"    the model:        chrF {multi:.1f}")
        print(f"    the model, against the second human's alone: chrF {chrf(output, other):.1f}")
        print(f"    the held-out human, against the second's alone: chrF {chrf(reference, other):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
