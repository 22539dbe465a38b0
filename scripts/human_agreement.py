#!/usr/bin/env python3
"""How far apart two human translators are on Tatoeba: the ceiling behind en-zh's chrF.

    pip install -r scripts/requirements-data.txt
    attnscope eval --model models/en-zh --dump /tmp/en-zh.tsv
    python3 scripts/human_agreement.py /tmp/en-zh.tsv

Tatoeba often has two or more Chinese translations of one English sentence, written by
different people. Scoring one against the other with sacrebleu's chrF (its defaults: character
6-grams, beta 2) gives the figure a translation as good as a second human's gets against a
single reference. Printed:

- every English sentence of 12 words or fewer with two distinct Chinese translations: the
  first against the second (in the file's order); the same for Chinese sentences with two
  English translations (zh-en's ceiling);
- with an `eval --dump` of en-zh: the held-out Tatoeba pairs whose English has another
  translation in data/tatoeba/tatoeba.tsv (so never trained on), that other translation and
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


def main() -> int:
    rows = [r for r in read(TSV) if len(r["en"].split()) <= MAX_ENGLISH_WORDS]
    for source, target, name in [("en", "zh", "English sentences with two Chinese"), ("zh", "en", "Chinese sentences with two English")]:
        found = {}
        for row in rows:
            seen = found.setdefault(row[source], [])
            if row[target] not in seen:
                seen.append(row[target])
        pairs = [t[:2] for t in found.values() if len(t) >= 2]
        first, second = [p[0] for p in pairs], [p[1] for p in pairs]
        print(f"Tatoeba, {len(pairs)} {name} translations: one human against the other, chrF {chrf(first, second):.1f}")
        if source == "en":
            translations = found
    for dump in sys.argv[1:]:
        rows = [r for r in read(dump) if r["set"] == "tatoeba"]
        other, output, reference = [], [], []
        for row in rows:
            alternatives = [zh for zh in translations.get(row["source"], []) if zh != row["reference"]]
            if alternatives:
                other.append(alternatives[0])
                output.append(row["output"])
                reference.append(row["reference"])
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
