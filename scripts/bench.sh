#!/usr/bin/env bash
# Every benchmark, printed as markdown tables (timings are reported, never asserted):
#   1. native: attnscope on burn's CPU backend (cargo bench) and onnxruntime CPU, same weights,
#      same sentences, 1 thread;
#   2. browser: attnscope CPU wasm, attnscope WebGPU wasm and onnxruntime-web (with and without
#      its key/value cache) in one page, every shipped model (models/index.json), loaded $REPEATS
#      times per model (issue 58's race: a budget's median and spread over 5 runs), then the real page
#      (first heatmap cold/warm, keystroke-to-redraw, long tasks, memory), sizes;
#   3. the paper's base size (a random model, benches/out/random-base-160, max_len 160): its ONNX
#      export and check, then attnscope CPU wasm, WebGPU wasm (SwiftShader: $BASE_GPU_LENGTHS
#      source tokens, 1 run) and onnxruntime-web in one page, every engine decoding
#      $BASE_OUT_TOKENS tokens, sources of 8–128 tokens, $BASE_RUNS samples, $REPEATS loads;
#      and opus-mt-tc-big's shape (a random model, benches/out/random-tc-big) on the CPU module
#      in Node: its wasm memory through load, translations and the twin (benches/memory-big.mjs,
#      5 fresh processes);
#   4. the journey view's scrub time (benches/journey.mjs), what the first heatmap after a warm
#      reload is made of (benches/first-heatmap.mjs: the page's and the worker's phases), and the page's responsiveness budgets (benches/phases.mjs: long tasks of a large model's views,
#      the WebGPU device-lost switch), moved out of the tests, and a hover of the large model's
#      heatmap frame by frame (benches/hover.mjs); each after a pause (settle), on a quiet machine;
#   5. benches/out/results.json (one record per measurement), RESULTS.md's generated tables and
#      the cost-per-output-token plot (benches/cost-per-token.png).
# onnxruntime CPU runs $REPEATS times too (separate processes): ratios come with their spread.
# Installs its own tools: a Python venv (benches/.venv) and benches/node_modules.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
REPEATS="${REPEATS:-5}"
BASE_DIR=benches/out/random-base-160
BASE_RUNS="${BASE_RUNS:-10}"
BASE_OUT_TOKENS="${BASE_OUT_TOKENS:-32}"
BASE_GPU_LENGTHS="${BASE_GPU_LENGTHS:-32}"
mkdir -p benches/out
rm -rf benches/out/records && mkdir -p benches/out/records

settle() { # the page's frame and task budgets are timed on a quiet machine: the stage before has
  # ended (its browser and its worker threads too). Right after another stage, the hover's whole
  # frame measured 17.0 ms where it measured 12.2 ms a minute later (benches/RESULTS.md).
  sleep "${SETTLE_S:-20}"
}

native_runs() { # attnscope and onnxruntime CPU natively, alternating, REPEATS separate processes
  # each: run i of one engine sits next to run i of the other, so the per-run ratios pair
  # measurements taken seconds apart, not minutes.
  local run
  rm -f benches/out/native.md benches/out/native-*.md benches/out/ort_native.md
  for run in $(seq "$REPEATS"); do
    cargo bench --bench native 2>/dev/null | tee "benches/out/native-$run.md"
    benches/.venv/bin/python benches/ort_native.py --run "$run" --json "benches/out/records/ort_native-$run.json" |
      tee -a benches/out/ort_native.md
  done
}

base_model() { # the paper's base size with random weights, long enough for 128-token sources
  rm -rf "$BASE_DIR"
  target/release/attnscope random base --out "$BASE_DIR" --max-len 160
}

big_memory() { # issue 58 part 6: opus-mt-tc-big's shape (random) on the CPU module, in Node; each
  # run a fresh process (wasm memory never shrinks), its JSON line kept for the budget table
  [ -f benches/out/random-tc-big/model.safetensors ] ||
    target/release/attnscope random tc-big --out benches/out/random-tc-big --max-len 24
  rm -f benches/out/memory-big.jsonl
  for _ in 1 2 3 4 5; do node benches/memory-big.mjs >> benches/out/memory-big.jsonl; done
  node benches/memory-big.mjs --summary benches/out/memory-big.jsonl | tee benches/out/memory-big.md
}

browser_base() { # the base size on every browser engine, each decoding BASE_OUT_TOKENS tokens
  # WebGPU runs on SwiftShader (seconds a step at this size): 1 sample, and no warm-up beyond the
  # checked decode of the same sentence that precedes every measurement.
  env PAGE_LOADS="$REPEATS" RUNS="$BASE_RUNS" GPU_RUNS=1 GPU_WARMUP=0 GPU_LENGTHS="$BASE_GPU_LENGTHS" \
    OUT_TOKENS="$BASE_OUT_TOKENS" ENGINES=cpu,webgpu,ort REAL_PAGE=0 RECORDS=browser-base \
    node benches/browser.mjs "$BASE_DIR" | tee benches/out/browser-base.md
}

ensure_npm
ensure_chromium
"$ROOT/scripts/build-wasm.sh"
stage "cargo build (native, release)" cargo build --release
if [ ! -x benches/.venv/bin/python ]; then python3 -m venv benches/.venv; fi
benches/.venv/bin/pip install -q -r benches/requirements.txt
(cd benches && npm ci --no-audit --no-fund --silent)

# Every shipped model races onnxruntime-web (each needs its words in benches/web/sentences.json).
read -r -a SHIPPED <<<"$(node -p "require('./models/index.json').models.map((m) => m.name).join(' ')")"
for model in "${SHIPPED[@]}"; do
  stage "ONNX export + check ($model)" benches/.venv/bin/python benches/export_onnx.py "models/$model" "benches/out/$model"
done
stage "random model, base size (max_len 160)" base_model
stage "ONNX export + check (random base size)" benches/.venv/bin/python benches/export_onnx.py "$BASE_DIR" "$BASE_DIR/onnx"
stage "native: attnscope (burn flex) and onnxruntime CPU, alternating, $REPEATS runs each" native_runs
stage "browser" env PAGE_LOADS="$REPEATS" bash -c 'set -o pipefail; node benches/browser.mjs "$@" | tee benches/out/browser.md' - "${SHIPPED[@]}"
stage "browser: translate time per shipped model" bash -c 'set -o pipefail; node benches/translate.mjs | tee benches/out/translate.md'
stage "CPU module: opus-mt-tc-big's memory, 5 runs" big_memory
stage "browser: large random models (opus-mt and base size)" bash -c 'set -o pipefail; node benches/big-model.mjs | tee benches/out/big-model.md'
stage "browser: base size, $BASE_OUT_TOKENS output tokens, $REPEATS loads" browser_base
stage "browser: the journey view's scrub (another token or layer → redrawn)" bash -c 'set -o pipefail; node benches/journey.mjs | tee benches/out/journey.md'
settle
stage "browser: what the first heatmap after a warm reload is made of" bash -c 'set -o pipefail; node benches/first-heatmap.mjs en-zh | tee benches/out/first-heatmap.md'
settle
stage "browser: responsiveness budgets (long tasks, device-lost switch)" bash -c 'set -o pipefail; node benches/phases.mjs | tee benches/out/phases.md'
settle
stage "browser: a hover of the large model's 129 × 128 heatmap, frame by frame" bash -c 'set -o pipefail; node benches/hover.mjs | tee benches/out/hover.md'
stage "results.json and RESULTS.md tables" node benches/tables.mjs
stage "plot: cost per output token" benches/.venv/bin/python benches/plot_cost.py
