#!/usr/bin/env bash
# bench-scale.sh — `make bench-scale`: keyed state at scale (issue 24),
# hashmap vs rocksdb (sqlrun's LSM) side by side, for ChangelogNormalize and
# GROUP BY (SUM, COUNT(*), MAX over insert-only input) with 1M and 5M keys
# (SIZES="1000000 5000000 20000000" adds 20M). Each case is its own process
# (bench/scale) so peak RSS is the case's own; it prints, per case: input
# time, peak RSS, memory per key (peak RSS above the process's start, over
# keys), checkpoint bytes per key, the duration of the checkpoint of the
# full state and of the longest checkpoint, the longest synchronous part of
# a checkpoint (how long a subtask stopped processing rows for one:
# runtime.CheckpointStats.MaxSyncDuration), and the longest stall of the
# output while input was flowing, with the CPU time the process got during
# it (bench/scale -stalldump says more about each stall).
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
# The batch read (OPS read): READ_SIZES rows of the write's shape written by
# `sqlrun -f` as above (not measured), then, alternately READ_RUNS times,
# `sqlrun -f` in batch mode reading the table and DuckDB (one thread,
# scripts/compat/duckdb-read.mjs) reading the latest snapshot's data files
# (the same Parquet bytes): one query that touches every column (COUNT(*),
# MAX(k), MAX(s1..s20)), one that reads a key and 2 columns (COUNT(*),
# MAX(k), MAX(s1), MAX(s2)), that one over the rows WHERE s3 < '8' AND
# k > 0 (about a quarter), and one whose rows leave the scan under that
# WHERE (COUNT(*), MAX(k), MAX(CONCAT(s1, s2)): the concatenation is
# computed per row, so the aggregate reads rows, not partials). Rows per CPU-second net of each engine's
# start-up (the median CPU of the same process running no scan: sqlrun
# planning `SELECT 1`, DuckDB opening), medians, and peak RSS; the answers
# of both must agree.
#
# Env: SIZES (keys), OPS (write commits read normalize groupby), BACKENDS (hashmap
#      rocksdb), INTERVAL (checkpoint interval, default 5s), TMPDIR
#      (checkpoints, tables), WRITE_SIZES (rows, default 1M 4M 16M),
#      WRITE_BUFFER (write-buffer-size, default 256 mb), READ_SIZES (rows,
#      default 4M), READ_RUNS (alternating runs per engine, default 3),
#      TIMEOUT (per normalize/groupby case, default 30m: a case that has not
#      finished its input by then prints how far it got, its peak RSS, its
#      checkpoints and longest output stall so far, and counts as failed).
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
SIZES=${SIZES:-"1000000 5000000"}
OPS=${OPS:-"write commits read normalize groupby"}
READ_SIZES=${READ_SIZES:-4000000}
READ_RUNS=${READ_RUNS:-3}
WRITE_SIZES=${WRITE_SIZES:-"1000000 4000000 16000000"}
WRITE_BUFFER=${WRITE_BUFFER:-"256 mb"}
BACKENDS=${BACKENDS:-"hashmap rocksdb"}
INTERVAL=${INTERVAL:-5s}
TIMEOUT=${TIMEOUT:-30m}
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
# median: the median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# label Q: the read benchmark's name for query Q.
label() {
	case $1 in
	all) echo 'every column' ;;
	three) echo 'key + 2 columns' ;;
	filter) echo 'key + 2 cols, filtered' ;;
	rows) echo 'filtered rows out' ;;
	esac
}
# read_bench N: sqlrun's batch read of an N-row table next to DuckDB's read
# of the same data files.
read_bench() {
	local n=$1 cols="" opts="" all="COUNT(*) AS n, MAX(k) AS mk" i r e q dir="$BIN/r$1" files live found
	for i in $(seq 1 20); do
		cols="$cols, s$i STRING"
		opts="$opts, 'fields.s$i.length' = '10'"
		all="$all, MAX(s$i) AS m$i"
	done
	mkdir -p "$dir"
	cat >"$dir/w.sql" <<EOF
SET 'table.dml-sync' = 'true';
CREATE TABLE src (k INT$cols) WITH ('connector' = 'datagen', 'rows-per-second' = '0', 'number-of-rows' = '$n'$opts);
CREATE TABLE t (k INT$cols, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '$dir/t',
  'bucket' = '1', 'auto-create' = 'true', 'write-buffer-size' = '$WRITE_BUFFER');
INSERT INTO t SELECT * FROM src;
EOF
	for q in none three all filter rows live; do
		cat >"$dir/$q.sql" <<EOF
SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE t (k INT$cols, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'paimon', 'path' = '$dir/t');
EOF
	done
	echo "SELECT 1 AS one;" >>"$dir/none.sql"
	echo "SELECT COUNT(*) AS n, MAX(k) AS mk, MAX(s1) AS m1, MAX(s2) AS m2 FROM t;" >>"$dir/three.sql"
	echo "SELECT $all FROM t;" >>"$dir/all.sql"
	echo "SELECT COUNT(*) AS n, MAX(k) AS mk, MAX(s1) AS m1, MAX(s2) AS m2 FROM t WHERE s3 < '8' AND k > 0;" >>"$dir/filter.sql"
	echo "SELECT COUNT(*) AS n, MAX(k) AS mk, MAX(CONCAT(s1, s2)) AS m12 FROM t WHERE s3 < '8' AND k > 0;" >>"$dir/rows.sql"
	echo "SELECT SUM(file_size_in_bytes) AS live, COUNT(*) AS files, MAX(level) AS maxlevel FROM \`t\$files\`;" >>"$dir/live.sql"
	if ! (cd "$dir" && HOME="$dir" "$BIN/sqlrun" -f w.sql >"$dir/w.out" 2>&1); then
		echo "#   read $n rows: the table's write failed: $(tail -3 "$dir/w.out" | tr '\n' ' ' | cut -c1-200)"
		fail=1
		rm -rf "$dir"
		return
	fi
	live=$(cd "$dir" && HOME="$dir" "$BIN/sqlrun" -f live.sql 2>/dev/null | grep -E '^\| *[0-9]' | head -1)
	files=$(find "$dir/t" -name 'data-*' | sort)
	found=$(cat $files | wc -c)
	# DuckDB reads the data files found on disk: they must be the latest
	# snapshot's (one INSERT, one commit: no older files).
	if [ "$(echo "$live" | awk -F'|' '{ print $2 + 0 }')" != "$found" ]; then
		echo "#   read $n rows: data files on disk ($found bytes) are not the latest snapshot's ($live)"
		fail=1
		rm -rf "$dir"
		return
	fi
	echo "# read $n rows: table of $(echo "$live" | awk -F'|' '{ printf "%d data files up to level %d", $3, $4 }'), $(awk -v b="$found" 'BEGIN { printf "%.1f MiB", b / 1048576 }')"
	for r in $(seq 1 "$READ_RUNS"); do
		for q in none three all filter rows; do
			(cd "$dir" && HOME="$dir" measure "sq-$q-$r" "$BIN/sqlrun" -f "$q.sql") || fail=1
			[ -f "$BIN/sq-$q-$r.time" ] && awk '{ print $1 + $2, $3 }' "$BIN/sq-$q-$r.time" >>"$dir/sq-$q"
			if [ -d scripts/compat/node_modules/@duckdb/node-api ]; then
				measure "dd-$q-$r" node scripts/compat/duckdb-read.mjs "$q" $files || fail=1
				[ -f "$BIN/dd-$q-$r.time" ] && awk '{ print $1 + $2, $3 }' "$BIN/dd-$q-$r.time" >>"$dir/dd-$q"
			fi
		done
	done
	# The answers: sqlrun's tableau row and DuckDB's JSON, as value lists.
	for q in three all filter rows; do
		sqans=$(grep -E '^\| *[0-9]' "$BIN/sq-$q-1.out" | tr -d ' ' | tr '|' ' ' | xargs)
		if [ -f "$BIN/dd-$q-1.out" ]; then
			ddans=$(node -e 'const o = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(Object.values(o).join(" "))' <"$BIN/dd-$q-1.out")
			if [ "$sqans" != "$ddans" ]; then
				echo "#   $q: the answers differ: sqlrun [$sqans], DuckDB [$ddans]"
				fail=1
			fi
		fi
	done
	for e in sq dd; do
		[ -f "$dir/$e-none" ] || continue
		local base
		base=$(cut -d' ' -f1 "$dir/$e-none" | median)
		for q in three all filter rows; do
			local c p
			c=$(cut -d' ' -f1 "$dir/$e-$q" | median)
			p=$(cut -d' ' -f2 "$dir/$e-$q" | sort -n | tail -1)
			awk -v c="$c" -v b="$base" -v n="$n" 'BEGIN { if (c - b > 0) print n / (c - b); else print 0 }' >"$dir/$e-$q.rate"
			printf 'read %9d rows  %-6s %-24s %10.0f rows/cpu-s  (CPU %5.2f s, start-up %4.2f s)  peak RSS %5.0f MiB\n' \
				"$n" "$([ "$e" = sq ] && echo sqlrun || echo duckdb)" \
				"$(label "$q")" \
				"$(cat "$dir/$e-$q.rate")" "$c" "$base" "$(awk -v p="$p" 'BEGIN { print p / 1024 }')"
		done
	done
	for q in three all filter rows; do
		[ -f "$dir/dd-$q.rate" ] && awk -v a="$(cat "$dir/sq-$q.rate")" -v b="$(cat "$dir/dd-$q.rate")" -v q="$(label "$q")" \
			'BEGIN { if (b > 0) printf "#   %s: sqlrun / DuckDB rows per CPU-second: %.2f (goal 0.8)\n", q, a / b }'
	done
	echo "#   $READ_RUNS alternating runs each, medians; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	rm -rf "$dir"
}
if [[ " $OPS " == *" read "* ]]; then
	[ -d scripts/compat/node_modules/@duckdb/node-api ] || bash scripts/compat/install.sh >/dev/null 2>&1
	echo "# Batch read: the write's table (bucket 1) by sqlrun -f (batch), DuckDB $(cd scripts/compat && node -p "require('./node_modules/@duckdb/node-api/package.json').version" 2>/dev/null || echo '?') threads 1 reading its data files"
	for n in $READ_SIZES; do
		read_bench "$n"
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
		[ "$op" = write ] || [ "$op" = commits ] || [ "$op" = read ] && continue
		for b in $BACKENDS; do
			"$BIN/scale" -op "$op" -keys "$n" -backend "$b" -interval "$INTERVAL" -timeout "$TIMEOUT" || fail=1
		done
	done
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
