#!/usr/bin/env python3
"""Make tests/fixtures/chrf.json: sacrebleu's corpus chrF on real model outputs.

    pip install -r scripts/requirements-data.txt
    attnscope eval --model models/en-zh --dump /tmp/en-zh.tsv
    attnscope eval --model models/zh-en --dump /tmp/zh-en.tsv
    python3 scripts/chrf_fixture.py /tmp/en-zh.tsv /tmp/zh-en.tsv

For each dump (set, source, reference, output) and each held-out set in it, the fixture keeps
the first 200 (output, reference) pairs and sacrebleu's corpus chrF of them (its defaults:
character 6-grams, beta 2, whitespace removed), and the score of the whole set. The Rust test
(tests/metrics.rs) recomputes each with attnscope's chrF and asserts agreement to 0.1.
"""
import csv
import json
import pathlib
import sys

import sacrebleu

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
    OUT.parent.mkdir(parents=True, exist_ok=True)
    meta = {"sacrebleu": sacrebleu.__version__, "signature": signature}
    OUT.write_text(json.dumps({"made_with": meta, "cases": cases}, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
