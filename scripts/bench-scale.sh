#!/usr/bin/env bash
# bench-scale.sh — `make bench-scale`: keyed state at scale (issue 24),
# hashmap vs rocksdb (sqlrun's LSM) side by side, for ChangelogNormalize and
# GROUP BY (SUM, COUNT(*), MAX over insert-only input) with 1M and 5M keys
# (SIZES="1000000 5000000 20000000" adds 20M). Each case is its own process
# (bench/scale) so peak RSS is the case's own; it prints, per case: input
# time, peak RSS, memory per key (peak RSS above the process's start, over
# keys), checkpoint bytes per key, the duration of the checkpoint of the
# full state and of the longest checkpoint, and the longest stall of the
# output while input was flowing.
#
# Env: SIZES (keys), OPS (normalize groupby), BACKENDS (hashmap rocksdb),
#      INTERVAL (checkpoint interval, default 5s), TMPDIR (checkpoints).
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
SIZES=${SIZES:-"1000000 5000000"}
OPS=${OPS:-"normalize groupby"}
BACKENDS=${BACKENDS:-"hashmap rocksdb"}
INTERVAL=${INTERVAL:-5s}
BIN=$(mktemp -d "${TMPDIR:-/tmp}/sqlrun-scale.XXXXXX")
trap 'rm -rf "$BIN"' EXIT
$GO build -o "$BIN/scale" ./bench/scale || exit 1
echo "# bench-scale $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# checkpoint interval $INTERVAL; input = keys rows + keys/5 updates; one source, one operator, one sink subtask"
fail=0
for n in $SIZES; do
	for op in $OPS; do
		for b in $BACKENDS; do
			"$BIN/scale" -op "$op" -keys "$n" -backend "$b" -interval "$INTERVAL" || fail=1
		done
	done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
