#!/usr/bin/env bash
# Runs every Go fuzz target in the module for a short time each.
# Usage: scripts/fuzz.sh [duration]   (default 10s per target)
#
# A target fails when the fuzzer finds an input that fails (it writes it
# under testdata/fuzz/ and prints "Failing input written"). Go's fuzzing
# engine can also end a time-boxed run with a bare "context deadline
# exceeded" when the deadline falls while it coordinates its workers on a
# loaded machine (no input, nothing to reproduce); such a run is retried
# once and then reported as a warning, not a failure.
set -euo pipefail
t=${1:-10s}
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

# -fuzzminimizetime=1x: Go's engine minimizes every input that finds new
# coverage before it fuzzes on, and on the Parquet reader's inputs (a few
# KB whose coverage spans parquet-go) one minimization ran for a minute, so
# FuzzOpenRead executed 5 inputs in 30 s; with one attempt it runs
# thousands per second. Failing inputs are still written in full.
fuzz_once() { go test -run='^$' -fuzz="^$2\$" -fuzztime="$t" -fuzzminimizetime=1x "$1" >"$log" 2>&1; }

engine_timeout() {
  grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"
}

while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    echo "fuzz: $pkg $target ($t)"
    if fuzz_once "$pkg" "$target"; then continue; fi
    if engine_timeout; then
      echo "fuzz: $pkg $target: the fuzzing engine hit its deadline without an input; retrying once"
      if fuzz_once "$pkg" "$target"; then continue; fi
      if engine_timeout; then
        echo "fuzz: warning: $pkg $target: engine deadline again (no failing input)"
        continue
      fi
    fi
    cat "$log"; status=1
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' 2>/dev/null || true)
exit $status
