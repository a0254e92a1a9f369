#!/usr/bin/env bash
# Compares a benchmark at a base revision with the working tree, side by
# side: both test binaries are built first, then run alternately, so the
# machine's load hits both halves alike (on the shared 2-vCPU VM the same
# binary's CPU-time figures move up to 1.6x between runs).
#
# Usage: scripts/abbench.sh <base-rev> <package> <bench-regex> [rounds] [metric] [benchtime]
#   scripts/abbench.sh HEAD~3 ./connectors/paimon/table 'WritePK$' 5 rows/cpu-s 100000x
# metric is the unit to read from the benchmark line (default rows/cpu-s);
# benchtime is go test's -benchtime (default 1s; a fixed count such as
# 100000x, what make bench uses, keeps b.N and so the work the same on
# both sides: WritePK's compactions depend on how many rows it writes).
# Flags for both test binaries beyond these go in ABBENCH_ARGS, e.g.
#   ABBENCH_ARGS=-tablewriter.rows=1000000 scripts/abbench.sh HEAD~1 ./connectors/paimon/table 'TableWriter$' 3 rows/cpu-s 1x
# Prints one line per round and the medians.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,16p' "$0"; exit 2; }
rev=$1 pkg=$2 re=$3 rounds=${4:-5} unit=${5:-rows/cpu-s} benchtime=${6:-1s}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git -C "$root" worktree add --detach "$tmp/base" "$rev" >/dev/null 2>&1
(cd "$tmp/base" && go test -c -o "$tmp/base.test" "$pkg")
(cd "$root" && go test -c -o "$tmp/new.test" "$pkg")
dir="$root/$pkg"
measure() { (cd "$dir" && "$1" -test.run '^$' -test.bench "$re" -test.benchtime "$benchtime" -test.cpu 1 ${ABBENCH_ARGS:-} 2>&1) |
  awk -v u="$unit" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' | paste -sd' ' -; }
: >"$tmp/b"; : >"$tmp/n"
for i in $(seq "$rounds"); do
  b=$(measure "$tmp/base.test"); n=$(measure "$tmp/new.test")
  echo "round $i: $rev $b | working tree $n"
  echo "$b" >>"$tmp/b"; echo "$n" >>"$tmp/n"
done
median() { sort -n | awk '{a[NR] = $1} END {printf "%.0f\n", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "median ($unit, first benchmark matched): $rev $(cut -d' ' -f1 "$tmp/b" | median) | working tree $(cut -d' ' -f1 "$tmp/n" | median)"
