#!/usr/bin/env bash
# The playground's budgets (issue 56): PyTorch eager (1 thread), the native CLI and the page's
# training worker, interleaved run by run in one invocation (benches/playground.mjs says what each
# figure is). Prints markdown tables; writes benches/out/playground.json. Not part of
# scripts/bench.sh or the tests: it needs PyTorch, which neither CI nor scripts/test.sh installs.
#
#   python3 -m venv ../venv-torch && ../venv-torch/bin/pip install torch   # the CPU wheel will do
#   cargo build --release && scripts/build-wasm.sh train
#   TORCH_PYTHON=../venv-torch/bin/python benches/playground.sh           # RUNS=5 by default
set -euo pipefail
cd "$(dirname "$0")/.."
python=${TORCH_PYTHON:-python3}
missing=()
"$python" -c 'import torch' 2> /dev/null || missing+=("PyTorch for $python (set TORCH_PYTHON)")
[ -x target/release/attnscope ] || missing+=("target/release/attnscope (cargo build --release)")
[ -f pkg/train/attnscope_bg.wasm ] || missing+=("pkg/train (scripts/build-wasm.sh train)")
[ -d node_modules/playwright-core ] || missing+=("playwright-core (npm ci)")
if [ ${#missing[@]} -gt 0 ]; then
  printf 'missing: %s\n' "${missing[@]}" >&2
  exit 1
fi
TORCH_PYTHON=$python exec node benches/playground.mjs
