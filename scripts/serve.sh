#!/usr/bin/env bash
# Build what the page needs (once) and serve it with the default model on http://127.0.0.1:8080
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
"$ROOT/scripts/build-wasm.sh"
exec node scripts/serve.mjs --host 127.0.0.1 --port "${PORT:-8080}"
