#!/usr/bin/env bash
# Every benchmark, printed as markdown tables (timings are reported, never asserted):
#   1. native: attnscope on burn's CPU backend (cargo bench) and onnxruntime CPU, same weights,
#      same sentences, 1 thread;
#   2. browser: attnscope CPU wasm, attnscope WebGPU wasm and onnxruntime-web (with and without
#      its key/value cache) in one page, loaded $REPEATS times per model, then the real page
#      (first heatmap cold/warm, keystroke-to-redraw, long tasks, memory), sizes;
#   3. benches/out/results.json (one record per measurement) and RESULTS.md's generated tables.
# onnxruntime CPU runs $REPEATS times too (separate processes): ratios come with their spread.
# Installs its own tools: a Python venv (benches/.venv) and benches/node_modules.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
REPEATS="${REPEATS:-3}"
mkdir -p benches/out
rm -rf benches/out/records && mkdir -p benches/out/records

ort_native_runs() { # onnxruntime CPU in REPEATS separate processes, one records file each
  local run
  for run in $(seq "$REPEATS"); do
    benches/.venv/bin/python benches/ort_native.py --run "$run" --json "benches/out/records/ort_native-$run.json"
  done | tee benches/out/ort_native.md
}

ensure_npm
ensure_chromium
"$ROOT/scripts/build-wasm.sh"
stage "cargo build (native, release)" cargo build --release
if [ ! -x benches/.venv/bin/python ]; then python3 -m venv benches/.venv; fi
benches/.venv/bin/pip install -q -r benches/requirements.txt
(cd benches && npm ci --no-audit --no-fund --silent)

for model in en-zh date-iso; do
  stage "ONNX export + check ($model)" benches/.venv/bin/python benches/export_onnx.py "models/$model" "benches/out/$model"
done
stage "native: attnscope (burn flex)" bash -c 'set -o pipefail; cargo bench --bench native 2>/dev/null | tee benches/out/native.md'
stage "native: onnxruntime, $REPEATS runs" ort_native_runs
stage "browser" env PAGE_LOADS="$REPEATS" bash -c 'set -o pipefail; node benches/browser.mjs en-zh date-iso | tee benches/out/browser.md'
stage "browser: translate time per shipped model" bash -c 'set -o pipefail; node benches/translate.mjs | tee benches/out/translate.md'
stage "browser: large random models (opus-mt and base size)" bash -c 'set -o pipefail; node benches/big-model.mjs | tee benches/out/big-model.md'
stage "results.json and RESULTS.md tables" node benches/tables.mjs
