#!/usr/bin/env python3
"""The pruning curves of the shipped models: docs/pruning.png from models/*/heads.json
(docs/heads.md; `attnscope heads --prune --json` writes those files).

    python3 -m venv benches/.venv && benches/.venv/bin/pip install -r benches/requirements.txt
    benches/.venv/bin/python scripts/plot_heads.py [out.png]

One panel per model: the held-out score (chrF for the translators, exact match for dates) against
the number of heads switched off, least important first. The dashed line is the intact score
less 1 chrF (less 1 point of exact match for dates). Prints, per model, how many heads go before
the score falls below that line.
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ["en-zh", "zh-en", "date-iso"]


def scaled(curve):
    """Scores on a 0–100 scale (exact match is a share)."""
    factor = 100.0 if curve["metric"] == "exactMatch" else 1.0
    return [(p["removed"], p["score"] * factor) for p in curve["points"]]


def heads_before_loss(points, loss=1.0):
    """The most heads removed while the score stays within `loss` of the intact score."""
    intact = points[0][1]
    kept = 0
    for removed, score in points:
        if score < intact - loss:
            break
        kept = removed
    return kept


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "pruning.png"
    studies = []
    for name in MODELS:
        path = ROOT / "models" / name / "heads.json"
        if path.exists():
            study = json.loads(path.read_text())
            if study.get("pruning"):
                studies.append((name, study))
    fig, axes = plt.subplots(1, len(studies), figsize=(4.2 * len(studies), 3.4), squeeze=False)
    for ax, (name, study) in zip(axes[0], studies):
        curve = study["pruning"]
        points = scaled(curve)
        xs, ys = zip(*points)
        total = len(study["heads"])
        label = "exact match (%)" if curve["metric"] == "exactMatch" else "chrF"
        ax.plot(xs, ys, marker="o", markersize=2.5, color="tab:blue")
        ax.axhline(ys[0] - 1.0, color="tab:red", linestyle="--", linewidth=1)
        kept = heads_before_loss(points)
        ax.axvline(kept, color="tab:gray", linestyle=":", linewidth=1)
        ax.set_title(f"{name}: {kept} of {total} heads off within 1 point", fontsize=9)
        ax.set_xlabel("heads switched off (least important first)", fontsize=8)
        ax.set_ylabel(f"held-out {label}, {curve['pairs']} pairs", fontsize=8)
        ax.set_xlim(0, total)
        ax.set_ylim(0, max(ys) * 1.08)
        ax.grid(alpha=0.3)
        print(f"{name}: intact {ys[0]:.2f}; {kept} of {total} heads off before the score falls by 1")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
