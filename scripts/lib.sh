# Shared helpers for the scripts: idempotent installs and timed stages.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"

stage() { # stage NAME COMMAND... : run, print its duration, keep its exit status
  local name="$1"; shift
  local start=$SECONDS
  echo "==> $name"
  "$@"
  local status=$?
  echo "<== $name: $((SECONDS - start)) s (exit $status)"
  return $status
}

wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_wasm_target() {
  rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
}

ensure_wasm_bindgen() {
  local want; want="$(wasm_bindgen_version)"
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $want\$"; then
    # Without --locked: with it, cargo cannot resolve one of the CLI's locked dependencies.
    cargo install wasm-bindgen-cli --version "=$want" --force
  fi
}

ensure_npm() {
  # node_modules is (re)installed from package-lock.json whenever the lock file changes.
  local want have=""; want="$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)"
  [ -f "$ROOT/node_modules/.lock-hash" ] && have="$(cat "$ROOT/node_modules/.lock-hash")"
  if [ "$want" != "$have" ]; then
    (cd "$ROOT" && npm ci --no-audit --no-fund) && echo "$want" > "$ROOT/node_modules/.lock-hash"
  fi
}

apt_install() { # apt_install PACKAGE...: Debian packages, as root or through sudo
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

ensure_chromium() {
  # Debian's Chromium and ChromeDriver, plus a CJK font so Chinese renders in screenshots.
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || [ ! -d /usr/share/fonts/truetype/wqy ]; then
    apt_install chromium chromium-driver fonts-wqy-zenhei
  fi
}

ensure_shellcheck() {
  # Debian's ShellCheck, for the lint stage of the shell scripts.
  command -v shellcheck >/dev/null || apt_install shellcheck
}
