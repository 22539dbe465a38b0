#!/usr/bin/env bash
# Build the two browser modules: pkg/cpu/ (burn's flex CPU backend only: small, loads first)
# and pkg/webgpu/ (adds burn-wgpu; loaded only when WebGPU is used). Each is cargo (wasm32,
# release) → wasm-bindgen --target web (CLI pinned to Cargo.lock's version) → wasm-opt (npm's
# binaryen). Idempotent: a module whose cargo output did not change is not re-processed.
#   WASM_OPT_LEVEL=-O1 (default; -Oz made the gzipped modules larger and took 6.6 min) | -Oz | none
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_wasm_target
ensure_wasm_bindgen
ensure_npm

level="${WASM_OPT_LEVEL:--O1}"
raw=target/wasm32-unknown-unknown/release/attnscope.wasm

build() { # build NAME CARGO_FEATURE_ARGS...
  local name="$1"; shift
  stage "cargo build (wasm32, release, $name)" \
    cargo build --release --lib --target wasm32-unknown-unknown "$@"
  local stamp out="pkg/$name"
  stamp="$(sha256sum "$raw" | cut -d' ' -f1) $level"
  if [ -f "$out/attnscope_bg.wasm" ] && [ "$(cat "$out/.source-hash" 2>/dev/null)" = "$stamp" ]; then
    echo "$out is up to date"
    return
  fi
  rm -rf "$out.tmp"
  stage "wasm-bindgen ($name)" wasm-bindgen --target web --out-name attnscope \
    --remove-name-section --remove-producers-section --out-dir "$out.tmp" "$raw"
  if [ "$level" != none ]; then
    stage "wasm-opt $level ($name)" wasm-opt "$level" "$out.tmp/attnscope_bg.wasm" -o "$out.tmp/attnscope_bg.wasm"
  fi
  echo "$stamp" > "$out.tmp/.source-hash"
  rm -rf "$out" && mv "$out.tmp" "$out"
  echo "$out/attnscope_bg.wasm: $(stat -c %s "$out/attnscope_bg.wasm") bytes, $(gzip -9 -c "$out/attnscope_bg.wasm" | wc -c) gzipped"
}

mkdir -p pkg
build cpu
build webgpu --features webgpu

# The worker caches each module in the Cache API under its content hash.
python3 - <<'PY'
import hashlib, json, pathlib
pkg = pathlib.Path("pkg")
manifest = {d.name: hashlib.sha256((d / "attnscope_bg.wasm").read_bytes()).hexdigest()[:16]
            for d in sorted(pkg.iterdir()) if (d / "attnscope_bg.wasm").exists()}
(pkg / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
print("pkg/manifest.json:", manifest)
PY
