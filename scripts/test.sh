#!/usr/bin/env bash
# Run every check: formatting and lints (JavaScript, shell, Rust), native tests, the wasm build,
# wasm-bindgen-test in headless Chromium, and the Playwright browser tests. Installs what it needs
# (idempotent).
# Exits non-zero if any stage failed; the last lines are each test runner's summary.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
mkdir -p artifacts
failed=()

run_stage() { # run_stage NAME LOGFILE COMMAND...
  local name="$1" log="$2"; shift 2
  stage "$name" bash -c 'set -o pipefail; "$@" 2>&1 | tee "'"$log"'"' _ "$@" || failed+=("$name")
}

stage "install: wasm target, wasm-bindgen-cli, npm packages, chromium, shellcheck" bash -c '
  source scripts/lib.sh; ensure_wasm_target && ensure_wasm_bindgen && ensure_npm && ensure_chromium && ensure_shellcheck' ||
  failed+=("install")

run_stage "biome (JavaScript format + lint)" artifacts/biome.log npx biome ci www tests/browser benches scripts
run_stage "import graph: no cycle in www/, no test code in shipped files" artifacts/imports.log node scripts/check-imports.mjs
run_stage "shellcheck" artifacts/shellcheck.log shellcheck scripts/*.sh .ci/run
run_stage "file sizes (≤ 400 lines in src/ and www/)" artifacts/sizes.log scripts/check-sizes.sh

run_stage "cargo fmt --check" artifacts/fmt.log cargo fmt --all -- --check
run_stage "models/index.json is current" artifacts/index.log python3 scripts/models_index.py --check
run_stage "docs/heads.md's heads table is heads.json's" artifacts/heads-table.log python3 scripts/heads_table.py --check docs/heads.md
run_stage "links and anchors in README.md and docs/" artifacts/links.log node scripts/check-links.mjs
run_stage "clippy (native)" artifacts/clippy.log cargo clippy --release --all-targets -- -D warnings
run_stage "cargo test (native)" artifacts/cargo-test.log cargo test --release
run_stage "wasm build" artifacts/wasm-build.log scripts/build-wasm.sh
run_stage "clippy (wasm32)" artifacts/clippy-wasm.log \
  cargo clippy --release --lib --target wasm32-unknown-unknown --features webgpu -- -D warnings
# Same profile as the WebGPU module, so its dependencies are built once. wasm-bindgen-test-runner
# gives chromedriver a few seconds to bind its port; once in four clean-clone runs (2026-12-03) it
# did not ("driver failed to bind port during startup"), before any test ran. Such a start is
# tried once more; a test that fails is not.
wasm_tests() {
  local first=artifacts/wasm-test-first-start.log
  cargo test --profile wasm-webgpu --target wasm32-unknown-unknown --features webgpu --test web 2>&1 |
    tee "$first"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ] && grep -q "driver failed to bind port during startup" "$first"; then
    echo "chromedriver did not start: once more"
    cargo test --profile wasm-webgpu --target wasm32-unknown-unknown --features webgpu --test web
  else
    return "$rc"
  fi
}
export -f wasm_tests
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=300 \
  run_stage "wasm-bindgen-test (headless Chromium)" artifacts/wasm-test.log wasm_tests
run_stage "browser tests (Playwright)" artifacts/browser-test.log \
  node --test --test-concurrency=1 tests/browser/

echo
echo "==================== summary ===================="
count() { # count LOG PASS_REGEX FAIL_REGEX: sum the numbers a runner printed
  local log="$1"
  [ -f "$log" ] || { echo "0 0"; return; }
  awk -v pr="$2" -v fr="$3" '
    match($0, pr) { s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); p += s }
    match($0, fr) { s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); f += s }
    END { print p + 0, f + 0 }' "$log"
}
read -r cp cf < <(count artifacts/cargo-test.log '^test result: [a-zA-Z]+\. [0-9]+ passed' '; [0-9]+ failed')
read -r wp wf < <(count artifacts/wasm-test.log '^test result: [a-zA-Z]+\. [0-9]+ passed' '; [0-9]+ failed')
read -r bp bf < <(count artifacts/browser-test.log '^# pass [0-9]+' '^# fail [0-9]+')
echo "stages failed: ${failed[*]:-none}"
echo "cargo: $cp passed, $cf failed"
echo "wasm: $wp passed, $wf failed"
echo "browser: $bp passed, $bf failed"
total_failed=$((cf + wf + bf + ${#failed[@]}))
echo "total: $((cp + wp + bp)) passed, $total_failed failed"
[ ${#failed[@]} -eq 0 ] || exit 1
