#!/usr/bin/env bash
# Compares a benchmark at a base revision with the working tree, side by
# side: both test binaries are built first, then run alternately, so the
# machine's load hits both halves alike (on the shared 2-vCPU VM the same
# binary's CPU-time figures move up to 1.6x between runs).
#
# Usage: scripts/abbench.sh <base-rev> <package> <bench-regex> [rounds] [metric] [benchtime]
#   scripts/abbench.sh HEAD~3 ./connectors/paimon/table 'WritePK$' 5 rows/cpu-s 100000x
# metric is the unit to read from the benchmark line (default rows/cpu-s),
# or several separated by commas (rows/cpu-s,first-rows/cpu-s,peak-RSS-MiB),
# each shown per round and as a median; every round also shows the load
# average it ran under (/proc/loadavg, 1 minute);
# benchtime is go test's -benchtime (default 1s; a fixed count such as
# 100000x, what make bench uses, keeps b.N and so the work the same on
# both sides: WritePK's compactions depend on how many rows it writes).
# Flags for both test binaries beyond these go in ABBENCH_ARGS, e.g.
#   ABBENCH_ARGS=-tablewriter.rows=1000000 scripts/abbench.sh HEAD~1 ./connectors/paimon/table 'TableWriter$' 3 rows/cpu-s 1x
# Prints one line per round and the medians.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,21p' "$0"; exit 2; }
rev=$1 pkg=$2 re=$3 rounds=${4:-5} unit=${5:-rows/cpu-s} benchtime=${6:-1s}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add --detach "$tmp/base" "$rev" >/dev/null 2>&1
(cd "$tmp/base" && go test -c -o "$tmp/base.test" "$pkg")
(cd "$root" && go test -c -o "$tmp/new.test" "$pkg")
dir="$root/$pkg"
units=${unit//,/ }
# measure prints the benchmark's value for each unit, space-separated.
measure() {
  local out
  out=$(cd "$dir" && "$1" -test.run '^$' -test.bench "$re" -test.benchtime "$benchtime" -test.cpu 1 ${ABBENCH_ARGS:-} 2>&1)
  for u in $units; do
    awk -v u="$u" '{for (i = 2; i <= NF; i++) if ($i == u) {print $(i-1); exit}}' <<<"$out" | grep . || echo -
  done | paste -sd' ' -
}
load() { cut -d' ' -f1 /proc/loadavg; }
: >"$tmp/b"; : >"$tmp/n"
echo "units: $units"
for i in $(seq "$rounds"); do
  l0=$(load); b=$(measure "$tmp/base.test"); l1=$(load); n=$(measure "$tmp/new.test"); l2=$(load)
  echo "round $i: $rev $b | working tree $n | load $l0 $l1 $l2"
  echo "$b" >>"$tmp/b"; echo "$n" >>"$tmp/n"
done
median() { grep -v '^-$' | sort -n | awk '{a[NR] = $1} END {if (NR == 0) {print "-"; exit} printf "%.0f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
k=0
for u in $units; do
  k=$((k + 1))
  echo "median $u: $rev $(cut -d' ' -f$k "$tmp/b" | median) | working tree $(cut -d' ' -f$k "$tmp/n" | median)"
done
