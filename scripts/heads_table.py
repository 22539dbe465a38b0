#!/usr/bin/env python3
"""The roles table of docs/heads.md for a model, from its heads.json (`attnscope heads --json`).

    python3 scripts/heads_table.py [MODEL]                 # print the Markdown table (default en-zh)
    python3 scripts/heads_table.py --check [docs/heads.md] # fail if that page's table is not this one

One row per head, the most important first: its held-out importance (mean fall of the output's
total log-probability with the head alone off), the share of sentences it hurts, the roles it
plays (score ≥ threshold) and, for a head with none, its highest score.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- heads-table en-zh: scripts/heads_table.py writes it -->"
END = "<!-- /heads-table -->"
KINDS = {"encoderSelf": "encoder", "decoderSelf": "decoder", "cross": "cross"}
PAGE = "docs/heads.md"


def describe(score):
    return f"{score['role']} {score['score']:.3f}"


def table(model="en-zh"):
    study = json.loads((ROOT / "models" / model / "heads.json").read_text())
    lines = [
        f"| head ({study['sentences']} held-out sentences) | importance | hurts | roles (score) | highest score without a role |",
        "|---|---:|---:|---|---|",
    ]
    for head in sorted(study["heads"], key=lambda h: -h["importance"]):
        name = f"{KINDS[head['kind']]}:{head['layer']}:{head['head']}"
        by_role = {s["role"]: s for s in head["scores"]}
        roles = ", ".join(describe(by_role[r]) for r in head["roles"]) or "—"
        others = [s for s in head["scores"] if s["role"] not in head["roles"]]
        best = describe(max(others, key=lambda s: s["score"])) if others and not head["roles"] else ""
        lines.append(
            f"| `{name}` | {head['importance']:.3f} | {head['hurtShare'] * 100:.0f} % | {roles} | {best} |"
        )
    return "\n".join(lines)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        page = sys.argv[2] if len(sys.argv) > 2 else PAGE
        text = (ROOT / page).read_text()
        start, end = text.find(BEGIN), text.find(END)
        if start < 0 or end < 0:
            sys.exit(f"{page}: no heads table between {BEGIN} and {END}")
        shown = text[start + len(BEGIN):end].strip()
        if shown != table():
            sys.exit(f"{page}: the heads table is not models/en-zh/heads.json's; run scripts/heads_table.py")
        print(f"{page}'s heads table is models/en-zh/heads.json's")
        return
    print(table(sys.argv[1] if len(sys.argv) > 1 else "en-zh"))


if __name__ == "__main__":
    main()
