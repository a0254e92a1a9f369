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
# First the Paimon write (issue 24's write goals): WRITE_SIZES rows of the
# Paimon write benchmarks' shape (k INT random over the int range + 20
# random 10-character hex STRINGs, TableWriterBenchmark's row) inserted by
# `sqlrun -f` from datagen into a one-bucket primary-key table, side by side
# with DuckDB (@duckdb/node-api, one thread) writing the same shape of rows
# to one Parquet file with zstd (scripts/compat/duckdb-write.mjs). Per size
# and writer: CPU per row (user + system of the whole process, the row
# generator included on both sides), peak RSS, and bytes on disk.
#
# Then the commit's cost as history grows (OPS commits): table's
# BenchmarkCommitHistory, 1,000 checkpoints of 100 rows into one bucket, the
# CPU of a commit in the first 50 and in the last 50 (goal: within 1.5x).
#
# Env: SIZES (keys), OPS (write commits normalize groupby), BACKENDS (hashmap
#      rocksdb), INTERVAL (checkpoint interval, default 5s), TMPDIR
#      (checkpoints, tables), WRITE_SIZES (rows, default 1M 4M 16M),
#      WRITE_BUFFER (write-buffer-size, default 256 mb).
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
SIZES=${SIZES:-"1000000 5000000"}
OPS=${OPS:-"write commits normalize groupby"}
WRITE_SIZES=${WRITE_SIZES:-"1000000 4000000 16000000"}
WRITE_BUFFER=${WRITE_BUFFER:-"256 mb"}
BACKENDS=${BACKENDS:-"hashmap rocksdb"}
INTERVAL=${INTERVAL:-5s}
BIN=$(mktemp -d "${TMPDIR:-/tmp}/sqlrun-scale.XXXXXX")
trap 'rm -rf "$BIN"' EXIT
$GO build -o "$BIN/scale" ./bench/scale || exit 1
$GO build -o "$BIN/sqlrun" ./cmd/sqlrun || exit 1
echo "# bench-scale $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm), $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
fail=0

# measure NAME CMD...: runs CMD under /usr/bin/time; sets cpu (seconds,
# user + system) and peak (KiB), or says why not and returns 1.
measure() {
	local name=$1 u s
	shift
	if ! /usr/bin/time -f '%U %S %M' -o "$BIN/$name.time" "$@" >"$BIN/$name.out" 2>&1; then
		echo "#   $name failed: $(tail -3 "$BIN/$name.out" | tr '\n' ' ' | cut -c1-200)"
		return 1
	fi
	read -r u s peak <"$BIN/$name.time"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}
# figures N BYTES: CPU per row, peak RSS and bytes on disk of the last measure.
figures() {
	awk -v c="$cpu" -v n="$1" -v p="$peak" -v b="$2" \
		'BEGIN { printf "%5.2f us/row  peak RSS %6.0f MiB  on disk %7.1f MiB (%5.1f B/row)", c * 1e6 / n, p / 1024, b / 1048576, b / n }'
}
# write_bench N: the Paimon write of N rows by sqlrun, then DuckDB's.
write_bench() {
	local n=$1 cols="" opts="" i dir="$BIN/w$1" sq="-" dd="-" sqbytes=0 ddbytes=0
	for i in $(seq 1 20); do
		cols="$cols, s$i STRING"
		opts="$opts, 'fields.s$i.length' = '10'"
	done
	mkdir -p "$dir"
	cat >"$dir/w.sql" <<EOF
SET 'table.dml-sync' = 'true';
CREATE TABLE src (k INT$cols) WITH ('connector' = 'datagen', 'rows-per-second' = '0', 'number-of-rows' = '$n'$opts);
CREATE TABLE t (k INT$cols, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '$dir/t',
  'bucket' = '1', 'auto-create' = 'true', 'write-buffer-size' = '$WRITE_BUFFER');
INSERT INTO t SELECT * FROM src;
EOF
	cat >"$dir/live.sql" <<EOF
SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE t (k INT$cols, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '$dir/t');
SELECT SUM(file_size_in_bytes) AS live FROM \`t\$files\`;
EOF
	if (cd "$dir" && HOME="$dir" && measure "sqlrun$n" "$BIN/sqlrun" -f w.sql && figures "$n" "$(du -sb t | cut -f1)" >"$dir/fig" &&
		du -sb t | cut -f1 >"$dir/bytes" && find t -name 'data-*' | wc -l >"$dir/files"); then
		# Bytes on disk count the files older snapshots keep (until they
		# expire); the latest snapshot's data files are what compares with
		# DuckDB's one file.
		sqbytes=$(cd "$dir" && HOME="$dir" "$BIN/sqlrun" -f live.sql 2>/dev/null | grep -o '^| *[0-9][0-9]* *|' | tr -dc '0-9')
		sq="$(cat "$dir/fig"), $(cat "$dir/files") data files, latest snapshot's $(awk -v b="${sqbytes:-0}" -v n="$n" 'BEGIN { printf "%.1f MiB (%.1f B/row)", b / 1048576, b / n }')"
		[ -n "$sqbytes" ] || sqbytes=0
	else
		fail=1
	fi
	rm -rf "$dir/t"
	if [ -d scripts/compat/node_modules/@duckdb/node-api ]; then
		if measure "duckdb$n" node scripts/compat/duckdb-write.mjs "$n" "$dir/d.parquet"; then
			ddbytes=$(stat -c %s "$dir/d.parquet")
			dd=$(figures "$n" "$ddbytes")
		else
			fail=1
		fi
	else
		dd="skipped: @duckdb/node-api is not installed (scripts/compat/install.sh)"
	fi
	printf 'write %9d rows  sqlrun: %s\n' "$n" "$sq"
	printf 'write %9d rows  duckdb: %s\n' "$n" "$dd"
	if [ "$sqbytes" -gt 0 ] && [ "$ddbytes" -gt 0 ]; then
		awk -v a="$sqbytes" -v b="$ddbytes" 'BEGIN { printf "#   latest snapshot data files / DuckDB zstd file: %.2f\n", a / b }'
	fi
	echo "#   load average $(cut -d' ' -f1-3 /proc/loadavg)"
	rm -rf "$dir"
}
if [[ " $OPS " == *" write "* ]]; then
	[ -d scripts/compat/node_modules/@duckdb/node-api ] || bash scripts/compat/install.sh >/dev/null 2>&1
	echo "# Paimon write: k INT + 20 STRING(10), PRIMARY KEY (k), bucket 1, write-buffer-size $WRITE_BUFFER, one sqlrun -f per size"
	echo "# DuckDB: @duckdb/node-api $(cd scripts/compat && node -p "require('./node_modules/@duckdb/node-api/package.json').version" 2>/dev/null || echo '?'), threads 1, COPY TO parquet, zstd level 1"
	for n in $WRITE_SIZES; do
		write_bench "$n"
	done
fi
if [[ " $OPS " == *" commits "* ]]; then
	echo "# Paimon commits: 1,000 checkpoints of 100 rows (5,000 keys) into one bucket, CPU per commit (BenchmarkCommitHistory)"
	$GO test ./connectors/paimon/table -run '^$' -bench 'CommitHistory$' -benchtime 1x 2>&1 | grep -E '^Benchmark|FAIL' || fail=1
	echo "#   load average $(cut -d' ' -f1-3 /proc/loadavg)"
fi
[[ " $OPS " == *" normalize "* || " $OPS " == *" groupby "* ]] &&
	echo "# checkpoint interval $INTERVAL; input = keys rows + keys/5 updates; one source, one operator, one sink subtask"
for n in $SIZES; do
	for op in $OPS; do
		[ "$op" = write ] || [ "$op" = commits ] && continue
		for b in $BACKENDS; do
			"$BIN/scale" -op "$op" -keys "$n" -backend "$b" -interval "$INTERVAL" || fail=1
		done
	done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
