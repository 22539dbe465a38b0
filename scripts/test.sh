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

# pkg/ is committed (docs/tests.md#the-committed-build-pkg): first, before the wasm build below
# rebuilds it, whether it is this tree's build; its module hashes are kept for the byte comparison.
# A build by another rustc of the same sources passes here (the toolchain is the machine's, not
# the tree's); its bytes are then not compared.
pkg_current() {
  node scripts/pkg-inputs.mjs check --any-rustc ||
    { echo "pkg/ is stale: run scripts/build-wasm.sh and commit pkg/ (git add pkg/)"; return 1; }
}
export -f pkg_current
cp pkg/manifest.json artifacts/pkg-manifest-before.json 2>/dev/null || rm -f artifacts/pkg-manifest-before.json
run_stage "pkg/ is current: its recorded inputs are this tree's" artifacts/pkg-inputs.log pkg_current
pkg_was_current=${#failed[@]} # 0: no stage has failed yet, this one included
# The modules name their dependencies' sources by absolute path, under cargo's home: a build made
# under another home differs in those strings alone, and its bytes are not compared.
cargo_home="$(cd "${CARGO_HOME:-$HOME/.cargo}" 2>/dev/null && pwd)"
pkg_same_home=1
[ -n "$cargo_home" ] && grep -qaF "$cargo_home/registry/src/" pkg/cpu/attnscope_bg.wasm 2>/dev/null &&
  node scripts/pkg-inputs.mjs check > /dev/null 2>&1 && pkg_same_home=0

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
# The build is reproducible (docs/tests.md#the-committed-build-pkg): the same inputs and cargo home
# give the same modules, byte for byte. Compared only when the inputs matched (a stale pkg/ has
# failed above) and pkg/ was built under this cargo home.
if [ "$pkg_was_current" -eq 0 ] && [ "$pkg_same_home" -eq 0 ]; then
  run_stage "pkg/ is current: its modules are this build's, byte for byte" artifacts/pkg-bytes.log \
    node scripts/pkg-inputs.mjs bytes artifacts/pkg-manifest-before.json
elif [ "$pkg_was_current" -eq 0 ]; then
  echo "pkg/ was built under another cargo home than $cargo_home or by another rustc: its bytes are not compared"
fi
run_stage "clippy (wasm32)" artifacts/clippy-wasm.log \
  cargo clippy --release --lib --target wasm32-unknown-unknown --features webgpu,train -- -D warnings
# Same profile as the WebGPU module, so its dependencies are built once. The test binary alone is
# linked without LTO: `cargo rustc` passes `-C lto=off` to it and not to its dependencies (the
# profile's fat LTO took 159 s for this one binary on 2 cores, 2026-12-07; without, 4 s). LTO
# changes no result, and the shipped modules, LTO'd, are what the browser tests load.
# wasm-bindgen-test-runner gives chromedriver a few seconds to bind its port; once in four
# clean-clone runs (2026-12-03) it did not ("driver failed to bind port during startup"), before
# any test ran. Such a start is tried once more; a test that fails is not.
wasm_tests() {
  local first=artifacts/wasm-test-first-start.log exe
  exe=$(cargo rustc --profile wasm-webgpu --target wasm32-unknown-unknown --features webgpu --test web \
    --message-format=json-render-diagnostics -- -C lto=off -C codegen-units=16 |
    node -e 'let found = "";
      for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
        const m = line.startsWith("{") ? JSON.parse(line) : null;
        if (m?.reason === "compiler-artifact" && m.target.name === "web" && m.executable) found = m.executable;
      }
      if (!found) process.exit(1);
      console.log(found);') || { echo "the wasm test binary did not build"; return 1; }
  wasm-bindgen-test-runner "$exe" 2>&1 | tee "$first"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ] && grep -q "driver failed to bind port during startup" "$first"; then
    echo "chromedriver did not start: once more"
    wasm-bindgen-test-runner "$exe"
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
