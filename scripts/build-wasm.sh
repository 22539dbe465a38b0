#!/usr/bin/env bash
# Build the two browser modules: pkg/cpu/ (burn's flex CPU backend only: small, loads first)
# and pkg/webgpu/ (adds burn-wgpu; loaded only when WebGPU is used). Each is cargo (wasm32;
# profile release for the CPU module, wasm-webgpu for the other) → wasm-bindgen --target web
# (CLI pinned to Cargo.lock's version) → wasm-opt (npm's binaryen). Idempotent: a module whose
# cargo output did not change is not re-processed. pkg/manifest.json lists the modules present.
#   scripts/build-wasm.sh [cpu] [webgpu]   (both by default; scripts/serve.sh builds them apart)
#   WASM_OPT_LEVEL=-O1 (default; -Oz gives larger gzipped modules and takes far longer) | -Oz | none
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_wasm_target
ensure_wasm_bindgen
ensure_npm

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(cpu webgpu)
for name in "${modules[@]}"; do
  wasm_compile "$name"
  wasm_package "$name"
done
wasm_manifest
