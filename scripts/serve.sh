#!/usr/bin/env bash
# Serve the page with the default model on http://127.0.0.1:8080 (PORT=… for another port).
# pkg/ is committed: when it is the build of this tree's sources (scripts/pkg-inputs.mjs check),
# the page is served at once, every module listed, with no wasm target, wasm-bindgen-cli or npm
# install (scripts/serve.mjs needs node alone). The page's bundle (pkg/page/) is checked apart: a
# change to www/ alone rebuilds it (scripts/build-page.mjs, npm ci first if need be), not the wasm
# modules; while it serves, the server rebuilds it after each change to www/. A build by another rustc will do here; the tests
# insist on the same one (docs/tests.md#the-committed-build-pkg).
# Otherwise it says which input differs and builds what it needs first. The page opens as soon as
# the CPU module is ready: on a bare machine wasm-bindgen-cli compiles beside the CPU module's
# cargo build, and the WebGPU module is built afterwards in the background (log:
# artifacts/webgpu-build.log); the page switches to it when it appears. The playground's training
# module follows it (artifacts/train-build.log). Until a module is rebuilt, a stale one is not listed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
started=$SECONDS
serve() { exec node scripts/serve.mjs --host 127.0.0.1 --port "${PORT:-8080}"; }

# The page's bundle (pkg/page/) first: when www/ changed it is rebuilt (esbuild, well under a
# second; npm ci first where node_modules is not this lock file's).
if ! node scripts/pkg-inputs.mjs check --only page; then
  ensure_npm
  node scripts/build-page.mjs
fi
if node scripts/pkg-inputs.mjs check --any-rustc --only wasm; then
  echo "first page ready after $((SECONDS - started)) s, every module listed"
  serve
fi
echo "==> building pkg/ for this tree"
mkdir -p artifacts
export PKG_LIST=current # a module left from other sources is not listed until it is rebuilt
listing="$ROOT/artifacts/pkg-inputs.txt"
pkg_listing "$listing"

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
wasm_package cpu "$listing"
wasm_manifest "$listing"
echo "first page ready after $((SECONDS - started)) s"

# The WebGPU and training modules, at low priority, while the page is in use; the server outlives
# a failure.
(nice -n 10 "$ROOT/scripts/build-wasm.sh" webgpu > artifacts/webgpu-build.log 2>&1 &&
  echo "WebGPU module ready after $((SECONDS - started)) s" ||
  echo "the WebGPU module failed to build (artifacts/webgpu-build.log); the page stays on the CPU"
nice -n 10 "$ROOT/scripts/build-wasm.sh" train train-webgpu > artifacts/train-build.log 2>&1 &&
  echo "training modules ready after $((SECONDS - started)) s" ||
  echo "the training modules failed to build (artifacts/train-build.log): the playground cannot train, or trains on the CPU") &
serve
