#!/usr/bin/env bash
# Build the four browser modules: pkg/cpu/ (burn's flex CPU backend only: small, loads first),
# pkg/webgpu/ (adds burn-wgpu; loaded only when WebGPU is used), pkg/train/ (the CPU module
# with burn's autodiff and optimizers: the playground's training worker loads it when the
# playground opens) and pkg/train-webgpu/ (the training module with burn-wgpu too: the training
# worker loads it only when the learner picked WebGPU). Each is cargo (wasm32;
# profile release for the CPU modules, wasm-webgpu for the WebGPU ones) → wasm-bindgen --target web
# (CLI pinned to Cargo.lock's version) → wasm-opt (npm's binaryen). Idempotent: a module whose
# cargo output did not change is not re-processed. pkg/manifest.json lists the modules present and,
# once all of them are the build of one tree, the hash of its inputs (pkg/inputs.txt): pkg/ is
# committed, and scripts/serve.sh serves it without building when they are this tree's
# (docs/tests.md#the-committed-build-pkg). Last, the page's bundle: scripts/build-page.mjs.
#   scripts/build-wasm.sh [cpu] [webgpu] [train] [train-webgpu]
#     (by default scripts/pkg-inputs.mjs's MODULES; scripts/serve.sh builds them apart)
#   WASM_OPT_LEVEL=-O1 (default; -Oz gives larger gzipped modules and takes far longer) | -Oz | none
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_wasm_target
ensure_wasm_bindgen
ensure_npm

modules=("$@")
[ ${#modules[@]} -gt 0 ] || read -ra modules < <(node scripts/pkg-inputs.mjs modules)
# The inputs as cargo is about to read them: an edit during the build leaves pkg/ recorded as the
# build of the tree before it, which the next check finds stale.
listing="$(mktemp)"
work="$(mktemp -d)"
# On any exit (a cargo build that failed), a module still being packaged finishes first (a minute
# at most) and its output is printed, before $work goes.
trap 'wait; cat "$work"/*.log 2>/dev/null || true; rm -rf "$listing" "$work"' EXIT
pkg_listing "$listing"
# Each module's wasm-bindgen and wasm-opt (on one core: 30-60 s each, 2026-12-07) run while cargo
# builds the next module, from a copy of its cargo output (the next build of the same profile
# writes the same path). Their output is printed in order, as each is done.
packaging=()
for name in "${modules[@]}"; do
  wasm_compile "$name"
  cp "$(wasm_raw "$name")" "$work/$name.wasm"
  wasm_package "$name" "$listing" "$work/$name.wasm" > "$work/$name.log" 2>&1 &
  packaging+=("$!")
done
packaged=0
for i in "${!modules[@]}"; do
  wait "${packaging[$i]}" || packaged=1
  cat "$work/${modules[$i]}.log" && rm "$work/${modules[$i]}.log"
done
[ "$packaged" -eq 0 ] || { echo "packaging a module failed (its output is above)"; exit 1; }
wasm_manifest "$listing"
# The page's bundle (pkg/page/, esbuild: well under a second) is its own build with its own
# listing; a change to www/ alone needs only this step.
stage "the page's bundle (scripts/build-page.mjs)" node scripts/build-page.mjs
