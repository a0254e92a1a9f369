#!/usr/bin/env bash
# bench-joins.sh — `make bench-joins`: issue 17's join benchmark, each case
# in its own process (bench/joins) so its peak RSS is its own, jobs planned
# from SQL by sqlrun's planner as `sqlrun -f` plans them:
#
#   a regular INNER join of two datagen streams of KEYS rows each (id
#   sequence 1..KEYS on both sides, joined on id, into blackhole), on each
#   of BACKENDS (state.backend.type): input rows per CPU-second, the final
#   checkpoint's bytes per key (the join's whole state: every key's row on
#   both sides), peak RSS;
#
#   a lookup join of LOOKUP_ROWS datagen orders against a MariaDB
#   customers table of 10,000 rows (the orders' customer ids random over
#   1,000 of them), with 'lookup.cache' = 'PARTIAL' and without a cache:
#   rows per second (wall) and per CPU-second of sqlrun, MySQL queries per
#   row (the server's Com_select across the job), peak RSS. The server is a
#   throwaway mariadbd as the jdbc tests start theirs (or SQLRUN_MYSQL_DSN's);
#   without either the MariaDB cases fail and say so;
#
#   the same lookup join against a Paimon primary-key table of the same
#   10,000 customers (CACHES' "paimon"; Paimon's lookup: a local index of the
#   latest snapshot): rows per second and per CPU-second, peak RSS.
#
# Env: KEYS (default 1000000), BACKENDS (hashmap rocksdb), LOOKUP_ROWS
#      (default 200000), CACHES (none partial paimon), RUNS (runs per case, default
#      1), OPS (join lookup), TMPDIR (checkpoints).
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
KEYS=${KEYS:-1000000}
BACKENDS=${BACKENDS:-"hashmap rocksdb"}
LOOKUP_ROWS=${LOOKUP_ROWS:-200000}
CACHES=${CACHES:-"none partial paimon"}
RUNS=${RUNS:-1}
OPS=${OPS:-"join lookup"}
BIN=$(mktemp -d "${TMPDIR:-/tmp}/sqlrun-joins.XXXXXX")
trap 'rm -rf "$BIN"' EXIT
$GO build -o "$BIN/joins" ./bench/joins || exit 1
echo "# bench-joins $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# parallelism 1 (one source subtask per table, one join, one sink); CPU = user + system of the sqlrun process"
fail=0
for r in $(seq 1 "$RUNS"); do
	for op in $OPS; do
		case $op in
		join)
			for b in $BACKENDS; do
				"$BIN/joins" -op join -keys "$KEYS" -backend "$b" || fail=1
				echo "#   load average $(cut -d' ' -f1-3 /proc/loadavg)"
			done
			;;
		lookup)
			for c in $CACHES; do
				"$BIN/joins" -op lookup -rows "$LOOKUP_ROWS" -cache "$c" || fail=1
				echo "#   load average $(cut -d' ' -f1-3 /proc/loadavg)"
			done
			;;
		*)
			echo "unknown op $op" >&2
			fail=1
			;;
		esac
	done
done
exit $fail
