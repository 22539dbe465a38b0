#!/usr/bin/env python3
"""Make tests/fixtures/chrf.json: sacrebleu's corpus chrF on real model outputs.

    pip install -r scripts/requirements-data.txt
    attnscope eval --model models/en-zh --dump /tmp/en-zh.tsv
    attnscope eval --model models/zh-en --dump /tmp/zh-en.tsv
    python3 scripts/chrf_fixture.py /tmp/en-zh.tsv /tmp/zh-en.tsv

For each dump (set, source, reference, output) and each held-out set in it, the fixture keeps
the first 200 (output, reference) pairs and sacrebleu's corpus chrF of them (its defaults:
character 6-grams, beta 2, whitespace removed), and the score of the whole set. For the
held-out Tatoeba pairs with a second human translation (scripts/human_agreement.py), it keeps
the outputs scored against both translations at once (multi-reference chrF); and for each
direction, the two human translations of every short Tatoeba sentence that has two, scored
against each other. The Rust test (tests/integration/metrics.rs) recomputes each with
attnscope's chrF and asserts agreement to 1e-6.
"""
import csv
import json
import pathlib
import sys

import sacrebleu

from human_agreement import translations, two_humans, with_second

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "chrf.json"
KEEP = 200


def main() -> int:
    cases = []
    signature = ""
    for dump in sys.argv[1:]:
        rows = list(csv.DictReader(open(dump, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE))
        model = pathlib.Path(dump).stem
        for name in dict.fromkeys(r["set"] for r in rows):
            kept = [r for r in rows if r["set"] == name][:KEEP]
            hyps = [r["output"] for r in kept]
            refs = [r["reference"] for r in kept]
            metric = sacrebleu.metrics.CHRF()
            score = metric.corpus_score(hyps, [refs]).score
            signature = str(metric.get_signature())
            cases.append({"name": f"{model}/{name}", "hypotheses": hyps, "references": refs, "sacrebleu": score})
            print(f"{model}/{name}: {len(kept)} pairs, sacrebleu chrF {score:.4f}")
    found = {"en": translations("en", "zh"), "zh": translations("zh", "en")}
    multi = []
    for dump in sys.argv[1:]:
        model = pathlib.Path(dump).stem
        _, kept = with_second(dump, found["zh" if model == "zh-en" else "en"])
        output, reference, other = (list(c) for c in zip(*kept))
        score = sacrebleu.corpus_chrf(output, [reference, other]).score
        multi.append({"name": f"{model}/tatoeba, two references", "hypotheses": output, "references": [reference, other], "sacrebleu": score})
        print(f"{model}: {len(output)} held-out pairs with a second translation, multi-reference chrF {score:.4f}")
    humans = {}
    for source in ("en", "zh"):
        count, score = two_humans(found[source])
        humans[source] = {"sentences": count, "sacrebleu": score}
        print(f"{source}: {count} sentences with two translations, one against the other: chrF {score:.6f}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    meta = {"sacrebleu": sacrebleu.__version__, "signature": signature}
    OUT.write_text(json.dumps({"made_with": meta, "cases": cases, "multi_reference": multi, "two_humans": humans}, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
