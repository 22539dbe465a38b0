#!/usr/bin/env bash
# Every benchmark, printed as markdown tables (timings are reported, never asserted):
#   1. native: attnscope on burn's CPU backend (cargo bench) and onnxruntime CPU, same weights,
#      same sentences, 1 thread;
#   2. browser: attnscope CPU wasm, attnscope WebGPU wasm and onnxruntime-web in one page, then
#      the real page (first heatmap cold/warm, keystroke-to-redraw, long tasks, memory), sizes.
# Installs its own tools: a Python venv (benches/.venv) and benches/node_modules.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
mkdir -p benches/out

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
stage "native: onnxruntime" bash -c 'set -o pipefail; benches/.venv/bin/python benches/ort_native.py | tee benches/out/ort_native.md'
stage "browser" bash -c 'set -o pipefail; node benches/browser.mjs en-zh | tee benches/out/browser.md'
stage "browser: translate time per shipped model" bash -c 'set -o pipefail; node benches/translate.mjs | tee benches/out/translate.md'
