#!/usr/bin/env python3
"""Cost per output token as the source grows: benches/cost-per-token.png from
benches/out/results.json (RESULTS.md section 8; benches/tables.mjs renders the same figures as
a table).

    benches/.venv/bin/python benches/plot_cost.py [results.json] [out.png]

One panel per model (the random base-size model, en-zh if measured), attnscope CPU wasm and
onnxruntime-web with its cache: per output token = each page load's median greedy translation ÷
its out tokens (solid), and the mean cached step (dashed); the line is the median over page
loads, the band their min–max.
"""
import json
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

ROOT = pathlib.Path(__file__).resolve().parent.parent
LENGTHS = [8, 16, 32, 64, 128]
MODELS = {"random-base": "random base size (d 512, 6+6 layers, vocab 32,000)", "en-zh": "en-zh (d 192, 3+3 layers)"}
ENGINES = {"attnscope-cpu-wasm": ("attnscope CPU (wasm)", "tab:blue"), "onnxruntime-web": ("onnxruntime-web, cache", "tab:orange")}
MEASURES = {"greedy": ("greedy ÷ out tokens", "-"), "cached_step": ("one cached step", "--")}


def per_load(records, engine, model, measure, n):
    """One figure per page load (ms per output token)."""
    rows = [r for r in records if r["engine"] == engine and r["model"] == model and r["stage"] == measure and r["src_tokens"] == n]
    if measure == "greedy":
        return [r["median_ms"] / r["out_tokens"] for r in rows]
    return [r["median_ms"] for r in rows]


def out_tokens(records, model):
    """The out tokens of each source length, as attnscope's CPU rows have them."""
    seen = {r["src_tokens"]: r["out_tokens"] for r in records if r["model"] == model and r["engine"] == "attnscope-cpu-wasm" and r["stage"] == "greedy"}
    return [seen[n] for n in LENGTHS if n in seen]


def main():
    source = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "benches/out/results.json"
    target = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "benches/cost-per-token.png"
    results = json.loads(source.read_text())
    records = results["records"]
    models = [m for m in MODELS if any(r["model"] == m and r["engine"] == "attnscope-cpu-wasm" for r in records)]
    if not models:
        raise SystemExit(f"{source}: no attnscope CPU records of {', '.join(MODELS)}")
    fig, axes = plt.subplots(1, len(models), figsize=(max(6.4, 4.6 * len(models)), 3.8), squeeze=False)
    for ax, model in zip(axes[0], models):
        for engine, (engine_name, colour) in ENGINES.items():
            for measure, (measure_name, style) in MEASURES.items():
                xs, mid, low, high = [], [], [], []
                for n in LENGTHS:
                    values = per_load(records, engine, model, measure, n)
                    if values:
                        xs.append(n)
                        mid.append(statistics.median(values))
                        low.append(min(values))
                        high.append(max(values))
                if not xs:
                    continue
                ax.plot(xs, mid, style, color=colour, marker="o", markersize=3, label=f"{engine_name}: {measure_name}")
                ax.fill_between(xs, low, high, color=colour, alpha=0.15, linewidth=0)
        outs = out_tokens(records, model)
        loads = len({r["run"] for r in records if r["model"] == model and r["engine"] in ENGINES})
        ax.set_title(f"{MODELS[model]}\nout tokens {', '.join(map(str, outs))}; {loads} page load{'s' if loads > 1 else ''}", fontsize=8)
        ax.set_xscale("log", base=2)
        ax.set_xticks(LENGTHS, [str(n) for n in LENGTHS])
        ax.set_xlabel("source tokens", fontsize=8)
        ax.set_ylabel("ms per output token", fontsize=8)
        ax.set_ylim(bottom=0)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=6.5, loc="upper left")
    samples = min(r["runs"] for r in records if r["model"] in models and r["engine"] in ENGINES and r["stage"] in MEASURES)
    smoke = f"SMOKE RUN ({samples} samples a measurement): do not quote.\n" if samples < 10 else ""
    fig.suptitle(
        f"{smoke}Cost per output token, headless Chromium, 1 thread\nmedian over page loads, band min–max "
        f"(commit {results.get('commit')}, {results.get('generated', '')[:10]})",
        fontsize=8,
    )
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(f"wrote {target} ({target.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
