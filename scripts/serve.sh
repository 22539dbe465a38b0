#!/usr/bin/env bash
# Serve the page with the default model on http://127.0.0.1:8080 (PORT=… for another port),
# building what it needs first. The page opens as soon as the CPU module is ready: on a bare
# machine wasm-bindgen-cli compiles beside the CPU module's cargo build, and the WebGPU module is
# built afterwards in the background (log: artifacts/webgpu-build.log); the page switches to it
# when it appears. A later start, with both built, takes seconds.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
mkdir -p artifacts
started=$SECONDS

ensure_wasm_target
ensure_npm
bindgen=""
if ! has_wasm_bindgen; then
  echo "==> installing wasm-bindgen-cli beside the CPU module's build (log: artifacts/wasm-bindgen-install.log)"
  ensure_wasm_bindgen > artifacts/wasm-bindgen-install.log 2>&1 &
  bindgen=$!
fi
wasm_compile cpu
if [ -n "$bindgen" ]; then
  stage "waiting for wasm-bindgen-cli" wait "$bindgen" || {
    tail -20 artifacts/wasm-bindgen-install.log
    exit 1
  }
fi
wasm_package cpu
wasm_manifest
echo "first page ready after $((SECONDS - started)) s"

# The WebGPU module, at low priority, while the page is in use; the server outlives a failure.
(nice -n 10 "$ROOT/scripts/build-wasm.sh" webgpu > artifacts/webgpu-build.log 2>&1 &&
  echo "WebGPU module ready after $((SECONDS - started)) s" ||
  echo "the WebGPU module failed to build (artifacts/webgpu-build.log); the page stays on the CPU") &
exec node scripts/serve.mjs --host 127.0.0.1 --port "${PORT:-8080}"
