#!/usr/bin/env bash
# Keep files small enough to read: no source file in src/ or www/ over 400 lines (tests are
# elsewhere, in tests/). A file may exceed it only while it is named in scripts/long-files.txt
# (one path a line, '#' comments), which should stay empty; a listed file that is short again is
# an error too, so the list cannot go stale.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=400
allowed="$(grep -v '^\s*#' scripts/long-files.txt | sed '/^\s*$/d' || true)"
status=0
while IFS= read -r file; do
  [ -f "$file" ] || continue # deleted in the working tree, not yet committed
  lines=$(wc -l < "$file")
  listed=no
  grep -qxF "$file" <<< "$allowed" && listed=yes
  if [ "$lines" -gt "$LIMIT" ] && [ "$listed" = no ]; then
    echo "$file: $lines lines (over $LIMIT): split it at a seam"
    status=1
  elif [ "$lines" -le "$LIMIT" ] && [ "$listed" = yes ]; then
    echo "$file: $lines lines, no longer over $LIMIT: remove it from scripts/long-files.txt"
    status=1
  fi
done < <(git ls-files --cached --others --exclude-standard src www | grep -E '\.(rs|js|mjs|css|html)$')
while IFS= read -r file; do
  [ -n "$file" ] && [ ! -f "$file" ] && { echo "scripts/long-files.txt names $file, which does not exist"; status=1; }
done <<< "$allowed"
[ "$status" -eq 0 ] && echo "every source file in src/ and www/ is at most $LIMIT lines"
exit "$status"
