#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a short time each.
# Usage: scripts/fuzz.sh [duration]   (default 10s per target)
set -euo pipefail
t=${1:-10s}
cd "$(dirname "$0")/.."
status=0
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    echo "fuzz: $pkg $target ($t)"
    if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg" >/tmp/sqlrun-fuzz.log 2>&1; then
      cat /tmp/sqlrun-fuzz.log; status=1
    fi
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' 2>/dev/null || true)
exit $status
