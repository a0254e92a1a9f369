#!/usr/bin/env bash
# bench.sh — `make bench`: run sqlrun's benchmarks with short benchtimes and
# print ONE table: metric, measured, target, published reference.
#
# Why short and one core: the figures are meant to be re-run by anyone on a
# laptop or a shared CI box in under ten minutes. Every Go benchmark runs
# with -cpu 1, and where the benchmark reports rows per CPU-second that is the
# figure shown, because wall-clock rows/s on a loaded machine measures the
# other tenants as much as sqlrun. Ratios (lookup vs none, sink vs driver)
# come from the same run, side by side, so load affects both halves.
#
# Usage: scripts/bench.sh [-v]        (-v also prints the raw `go test` output)
# Env:   BENCH_BUDGET=600 (seconds; a step that would start after it is skipped)
#        SQLRUN_MYSQL_DSN (optional; else the jdbc benchmark starts a throwaway
#        mariadbd as its tests do, or skips when none is installed)
#        BENCH_NO_GO=1 skips the Go benchmarks (only the sqlrun binary runs)
set -u
cd "$(dirname "$0")/.."

GO=${GO:-go}
BUDGET=${BENCH_BUDGET:-600}
VERBOSE=0
[ "${1:-}" = "-v" ] && VERBOSE=1
OUT=$(mktemp -d "${TMPDIR:-/tmp}/sqlrun-bench.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
START=$SECONDS

# step NAME TIMEOUT PKG BENCH BENCHTIME: one `go test -bench` run into $OUT/NAME.
step() {
	local name=$1 tmo=$2 pkg=$3 bench=$4 bt=$5
	if [ -n "${BENCH_NO_GO:-}" ]; then
		echo "skipped (BENCH_NO_GO)" >"$OUT/$name"
		return
	fi
	if (( SECONDS - START > BUDGET - tmo / 2 )); then
		echo "budget spent, skipped" >"$OUT/$name"
		return
	fi
	printf '  %-28s %s -bench %s -benchtime %s\n' "$name" "$pkg" "$bench" "$bt" >&2
	timeout "$tmo" "$GO" test -run '^$' -count 1 -cpu 1 -bench "$bench" -benchtime "$bt" "$pkg" >"$OUT/$name" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && echo "TIMEOUT after ${tmo}s" >>"$OUT/$name"
	(( VERBOSE )) && cat "$OUT/$name" >&2
}

# val NAME LINE-REGEX UNIT: the number before UNIT on the first benchmark line
# of step NAME matching LINE-REGEX; "-" when absent (skipped, failed).
val() {
	awk -v re="$2" -v unit="$3" '
		$1 ~ /^Benchmark/ && $1 ~ re {
			for (i = 2; i <= NF; i++) if ($i == unit) { print $(i-1); exit }
		}' "$OUT/$1" 2>/dev/null | head -1 | grep . || echo "-"
}

# why NAME: a short reason when step NAME produced no figure.
why() {
	if grep -q '^ok\|^PASS' "$OUT/$1" 2>/dev/null && grep -q '^Benchmark' "$OUT/$1"; then echo ""; return; fi
	local r
	r=$(grep -m1 -E 'SKIP|skipped|TIMEOUT|FAIL|budget' "$OUT/$1" 2>/dev/null | sed 's/^[[:space:]]*//' | cut -c1-40)
	echo "${r:-no output}"
}

# fmt N: 1234567.8 -> 1,234,568 (integers with thousands separators).
fmtn() {
	case $1 in -|"") echo "-" ;; *) LC_ALL=C printf "%.0f" "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' ;; esac
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }

echo "sqlrun bench: $(date -u '+%Y-%m-%d %H:%M UTC'); steps (each -cpu 1):" >&2

step runtime   240 ./exec/runtime/                   '^Benchmark(DatagenCalcBlackhole|DatagenGroupAggregate)$' 2000000x
step format    120 ./connectors/paimon/format/       '^Benchmark(WriteKV|ReadKV|ReadKVProjected)$' 3x
# not run: WriteBuffer, WriteBufferStringKey (mergetree's in-memory buffer alone),
#          WriteBufferSpill (a buffer spilling sorted runs to disk and merging them
#          at its flush, for scripts/abbench.sh; its figures are in
#          docs/performance.md),
#          DecodePacked (binrow: a packed record decoded with and without an unpack),
#          Writer (mergetree writer per producer, wall clock only: its lookup/none
#          ratio swung 0.2-1.2 on the loaded machine; WritePK vs WritePKLookup
#          give the same ratio in CPU time),
#          Lookup (mergetree lookup-level probes; the lookup producer's cost shows
#          in WritePKLookup vs WritePK),
#          Reader20Columns (datagen's reader alone; the runtime steps include it),
#          ReadPlainStrings (format: PLAIN string pages, which sqlrun does not write),
#          ReadFiltered, AggregateFiltered (format: the row and the column path of a
#          filter, for scripts/abbench.sh; make bench-scale OPS=read measures the
#          queries next to DuckDB),
#          SnapshotAndCatchUp (mysql-cdc next to mysqldump, wall clock against a
#          local MariaDB; its figures are in docs/performance.md),
#          CommitHistory (1,000 Paimon commits; scripts/bench-scale.sh runs it),
#          TableWriter (Paimon's TableWriterBenchmark method: a warm-up and three
#          iterations of 3M rows, about a minute of CPU; its figures are in
#          docs/performance.md),
#          KeyedState, KeyedStateZipf (the rocksdb backend's Get and Put per
#          row, over new keys and over Zipf-skewed keys, for scripts/abbench.sh;
#          bench/scale measures the jobs; their figures are in
#          docs/performance.md),
#          WritePostponePartitions (peak RSS of one sub-benchmark per process;
#          its figures are in docs/performance.md),
#          FirstTouch (mergetree: system time of faulting in 256 MiB in 4 KB and
#          in huge pages, one op per process; figures in docs/performance.md),
#          ZstdPage (format: a PLAIN string page through the Parquet codec and
#          through klauspost's zstd, which it replaced; figures in
#          docs/performance.md),
#          BatchDedup (operators: a batch ROW_NUMBER deduplication's live heap
#          with and without the constant rank bound, one comparison; figures in
#          docs/performance.md).
#          docs/gen's test fails when a benchmark is neither run here nor named
#          on this list.
# -benchtime is rows for the write, runtime, mergetree, jdbc and parser
# benchmarks (b.N rows or statements) but whole-table passes for the read
# benchmarks (ReadPK, ReadKV*, FollowChangelog, FullPhase), hence two units.
step table     300 ./connectors/paimon/table/        '^Benchmark(WritePK|WritePKLookup|WritePKDynamic|WritePKDynamicBuckets|WritePKDeletionVectors|WritePKPostpone|CompactPostpone)$' 100000x
step tableread 120 ./connectors/paimon/table/        '^BenchmarkReadPK$' 3x
step s3commit  300 ./connectors/paimon/table/        '^BenchmarkCommitS3$' 100x
step s3read    300 ./connectors/paimon/table/        '^BenchmarkReadS3$' 5x
step mergetree 180 ./connectors/paimon/mergetree/    '^BenchmarkMergeRead$' 100000x
step stream    180 ./connectors/paimon/stream/       '^Benchmark(FollowChangelog|FullPhase)$' 3x
step latency   120 ./connectors/paimon/stream/       '^BenchmarkCommitToRow$' 200x
step e2elat    180 ./bench/                          '^Benchmark(CommitToSink|LookupWait)$' 50x
step jdbc      300 ./connectors/jdbc/                '^BenchmarkUpsert$' 300000x
step jdbcmodes 240 ./connectors/jdbc/                '^BenchmarkDeliveryModes$' 200000x
step join      300 ./exec/runtime/operators/         '^BenchmarkRegularJoin$' 1000000x
step window    240 ./exec/runtime/operators/         '^BenchmarkWindowAggregate$' 10000000x
step parser    120 ./sql/parser/                     '^BenchmarkParseSeed(Insert|DDL)$' 2000x

# End to end through the binary: bounded jobs run by `sqlrun -e`, timed with
# their peak RSS (GNU time), so start-up, planning and the runtime all count.
# e2e NAME SQL: sets e2e_wall[NAME], e2e_rss[NAME] (KiB) or e2e_why[NAME].
declare -A e2e_wall e2e_rss e2e_why
BUILT=0 NOBUILD="budget spent"
if (( SECONDS - START < BUDGET - 60 )); then
	if $GO build -o "$OUT/sqlrun" ./cmd/sqlrun 2>"$OUT/build"; then
		BUILT=1
	else
		NOBUILD="build failed: $(grep -m1 . "$OUT/build" | cut -c1-40)"
	fi
fi
e2e() {
	local name=$1 stmts=$2
	e2e_wall[$name]="-" e2e_rss[$name]="-" e2e_why[$name]=""
	if (( ! BUILT )); then e2e_why[$name]=$NOBUILD; return; fi
	if (( SECONDS - START > BUDGET - 30 )); then e2e_why[$name]="budget spent"; return; fi
	printf '  %-28s sqlrun -e (%s)\n' "$name" "$(echo "$stmts" | grep -o "INSERT INTO [a-z_]*\|SELECT COUNT" | head -1)" >&2
	local t=()
	[ -x /usr/bin/time ] && t=(/usr/bin/time -f 'E2E %e %M' -o "$OUT/$name.time")
	if ! (cd "$OUT" && HOME="$OUT" timeout 120 "${t[@]}" ./sqlrun -e "$stmts" >"$OUT/$name" 2>&1); then
		e2e_why[$name]="failed: $(tail -1 "$OUT/$name" | cut -c1-40)"
	elif [ -s "$OUT/$name.time" ]; then
		read -r _ e2e_wall[$name] e2e_rss[$name] <"$OUT/$name.time"
	else
		e2e_why[$name]="no /usr/bin/time"
	fi
	(( VERBOSE )) && cat "$OUT/$name" "$OUT/$name.time" >&2
}
DATAGEN="CREATE TABLE src (id BIGINT, amount DECIMAL(10, 2), status STRING) WITH ('connector' = 'datagen',
  'rows-per-second' = '0', 'number-of-rows' = '%d', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '%d', 'fields.status.length' = '10');"
PAIMON="CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '$OUT/orders', 'bucket' = '1', 'auto-create' = 'true');"
E2E_ROWS=2000000
PAIMON_ROWS=500000
e2e blackhole "SET 'table.dml-sync' = 'true';
$(printf "$DATAGEN" $E2E_ROWS $E2E_ROWS)
CREATE TABLE sink (id BIGINT, amount DECIMAL(10, 2), status STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id, amount, status FROM src WHERE id > 0;"
e2e paimonwrite "SET 'table.dml-sync' = 'true';
$(printf "$DATAGEN" $PAIMON_ROWS $PAIMON_ROWS)
$PAIMON
INSERT INTO orders SELECT id, amount, status FROM src;"
e2e paimonread "SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
$PAIMON
SELECT COUNT(*) AS n, SUM(amount) AS total FROM orders;"
if [ -z "${e2e_why[paimonread]}" ] && ! grep -q "| *$PAIMON_ROWS |" "$OUT/paimonread"; then
	e2e_why[paimonread]="wrong count" e2e_wall[paimonread]="-"
fi

# End-to-end latency: one streaming sqlrun process runs three jobs for 10 s:
# datagen (200 rows/s) stamps each row with CURRENT_TIMESTAMP (UTC) into a
# print sink, and into a Paimon table (changelog-producer input, committed
# on each 1 s checkpoint) that a third job follows (discovery interval 50 ms)
# into another print sink. A reader stamps each printed line on arrival;
# latency = arrival - stamp, so it covers Calc -> sink -> stdout, and for
# Paimon the whole commit and streaming-read path (the checkpoint interval
# dominates it, as in Flink). Needs python3 for millisecond clocks.
lat_direct="-" lat_paimon="-" lat_why=""
if (( ! BUILT )); then
	lat_why=$NOBUILD
elif ! command -v python3 >/dev/null; then
	lat_why="no python3"
elif (( SECONDS - START > BUDGET - 30 )); then
	lat_why="budget spent"
else
	printf '  %-28s sqlrun -f (datagen -> print, datagen -> Paimon -> print), 10 s\n' latency-e2e >&2
	cat >"$OUT/lat.py" <<'PY'
import sys, time, re, datetime
pat = re.compile(r'^lat(\w*)> \+I\[(\d+), ([0-9T:. -]+)Z?\]')
d = {}
for line in sys.stdin:
    now = time.time()
    m = pat.match(line)
    if not m:
        continue
    base, _, frac = m.group(3).replace(' ', 'T').partition('.')
    t = datetime.datetime.strptime(base, '%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc).timestamp()
    d.setdefault(m.group(1) or 'direct', []).append((now - t - float('0.' + (frac or '0'))) * 1000)
for k, v in sorted(d.items()):
    v.sort()
    q = lambda f: v[min(len(v) - 1, int(f * len(v)))]
    print("LAT %s %d %.1f %.1f" % (k, len(v), q(0.5), q(0.99)))
PY
	cat >"$OUT/lat.sql" <<SQL
SET 'table.local-time-zone' = 'UTC';
SET 'execution.checkpointing.interval' = '1 s';
SET 'state.checkpoints.dir' = '$OUT/ckp';
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE p (id BIGINT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'print', 'print-identifier' = 'lat');
CREATE TABLE t (id BIGINT, ts TIMESTAMP_LTZ(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'paimon',
  'path' = '$OUT/lat_t', 'bucket' = '1', 'auto-create' = 'true', 'changelog-producer' = 'input',
  'continuous.discovery-interval' = '50 ms');
CREATE TABLE pp (id BIGINT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'print', 'print-identifier' = 'latpaimon');
INSERT INTO p SELECT id, CURRENT_TIMESTAMP FROM src;
INSERT INTO t SELECT id, CURRENT_TIMESTAMP FROM src;
INSERT INTO pp SELECT id, ts FROM t;
SQL
	(cd "$OUT" && HOME="$OUT" timeout -s TERM 10 ./sqlrun -f lat.sql 2>"$OUT/lat.err" | python3 lat.py >"$OUT/lat.out")
	read -r _ _ n p50 p99 < <(grep '^LAT direct' "$OUT/lat.out") && lat_direct="$p50 / $p99 ms (n=$n)"
	read -r _ _ n p50 p99 < <(grep '^LAT paimon' "$OUT/lat.out") && lat_paimon="$p50 / $p99 ms (n=$n)"
	[ "$lat_direct" = "-" ] && lat_why="failed: $(tail -1 "$OUT/lat.err" | cut -c1-40)"
	(( VERBOSE )) && cat "$OUT/lat.out" "$OUT/lat.err" >&2
fi

# ---- collect -------------------------------------------------------------
calc_cpu=$(val runtime 'CalcBlackhole/adjacent' rows/cpu-s)
calc_re_cpu=$(val runtime 'CalcBlackhole/reorder' rows/cpu-s)
agg_cpu=$(val runtime 'GroupAggregate' rows/cpu-s)
fw=$(val format 'WriteKV' rows/cpu-s)
fr=$(val format 'ReadKV$' rows/cpu-s)
frp=$(val format 'ReadKVProjected' rows/cpu-s)
tw_none=$(val table 'WritePK$' rows/cpu-s)
tw_look=$(val table 'WritePKLookup' rows/cpu-s)
tw_dyn=$(val table 'WritePKDynamic$' rows/cpu-s)
tw_dynb=$(val table 'WritePKDynamicBuckets' rows/cpu-s)
tw_dv=$(val table 'WritePKDeletionVectors' rows/cpu-s)
tw_pp=$(val table 'WritePKPostpone' rows/cpu-s)
tc_pp=$(val table 'CompactPostpone' rows/cpu-s)
tr_cpu=$(val tableread 'ReadPK' rows/cpu-s)
mr=$(val mergetree 'MergeRead' rows/s)
follow=$(val stream 'FollowChangelog' rows/s)
full=$(val stream 'FullPhase' rows/s)
lat=$(val latency 'CommitToRow' µs/commit-to-row)
c2s_in50=$(val e2elat 'CommitToSink/producer=input' p50-ms); c2s_in99=$(val e2elat 'CommitToSink/producer=input' p99-ms)
c2s_no50=$(val e2elat 'CommitToSink/producer=none' p50-ms); c2s_no99=$(val e2elat 'CommitToSink/producer=none' p99-ms)
lw_w50=$(val e2elat 'LookupWait' wait-p50-ms); lw_w99=$(val e2elat 'LookupWait' wait-p99-ms)
lw_n50=$(val e2elat 'LookupWait' nowait-p50-ms); lw_n99=$(val e2elat 'LookupWait' nowait-p99-ms)
lw_wc=$(val e2elat 'LookupWait' wait-commit-p50-ms); lw_nc=$(val e2elat 'LookupWait' nowait-commit-p50-ms)
# bench/README.md: commit instant = link(2) of the commit's first snapshot file;
# discovery-interval 0 except in the discovery=100ms case (what a real interval adds).
c2s_d50=$(val e2elat 'CommitToSink/producer=input/discovery' p50-ms); c2s_d99=$(val e2elat 'CommitToSink/producer=input/discovery' p99-ms)
declare -A drv sink pct
for n in 100 1000 5000; do
	drv[$n]=$(val jdbc "max-rows=$n" driver-rows/s)
	sink[$n]=$(val jdbc "max-rows=$n" sink-rows/s)
	pct[$n]=$(val jdbc "max-rows=$n" sink/driver-%)
done
s3_local=$(val s3commit 'CommitS3/local' ms/commit); s3_s3=$(val s3commit 'CommitS3/s3' ms/commit)
s3_req=$(val s3commit 'CommitS3/s3' requests/commit)
s3r_local=$(val s3read 'ReadS3/local' rows/s); s3r_s3=$(val s3read 'ReadS3/s3' rows/s); s3r_req=$(val s3read 'ReadS3/s3' requests/read)
join_cpu=$(val join 'RegularJoin' rows/cpu-s)
join_ck=$(val join 'RegularJoin' checkpoint-B/key)
join_heap=$(val join 'RegularJoin' heap-B/key)
win_cpu=$(val window 'WindowAggregate' rows/cpu-s)
win_ck=$(val window 'WindowAggregate' checkpoint-B/key)
win_heap=$(val window 'WindowAggregate' heap-B/key)
jm_def=$(val jdbcmodes 'DeliveryModes' default-rows/s)
jm_tx=$(val jdbcmodes 'DeliveryModes' transactional/default)
jm_ver=$(val jdbcmodes 'DeliveryModes' version/default)
jm_eo=$(val jdbcmodes 'DeliveryModes' exactly-once/default)
pins=$(val parser 'ParseSeedInsert' ns/op)
pddl=$(val parser 'ParseSeedDDL' ns/op)
# rate NAME ROWS: rows per wall second of e2e run NAME, or "- (why)".
rate() {
	local w=${e2e_wall[$1]}
	if [ "$w" = "-" ]; then echo "- (${e2e_why[$1]})"; return; fi
	fmtn "$(awk -v n="$2" -v s="$w" 'BEGIN{ if (s > 0) printf "%.0f", n / s; else print "-" }')"
}
rss() { local r=${e2e_rss[$1]}; if [ "$r" = "-" ]; then echo "- (${e2e_why[$1]})"; else echo "$((r / 1024)) MiB"; fi; }

# ---- print ---------------------------------------------------------------
model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
echo
mem=$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
echo "sqlrun make bench - $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs (${model:-unknown CPU}), ${mem:-unknown RAM}, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), $($GO env GOVERSION), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), took $((SECONDS - START)) s"
echo
row() { printf '| %-62s | %-26s | %-14s | %-54s |\n' "$1" "$2" "$3" "$4"; }
row "metric" "measured" "target" "published reference"
row "$(printf -- '-%.0s' {1..62})" "$(printf -- '-%.0s' {1..26})" "$(printf -- '-%.0s' {1..14})" "$(printf -- '-%.0s' {1..54})"
m() { local v; v=$(fmtn "$1"); [ "$v" = "-" ] && v="- ($2)"; echo "$v"; }
row "runtime datagen->Calc->blackhole, rows/cpu-s (adjacent cols)" "$(m "$calc_cpu" "$(why runtime)")" ">= 5,000,000" "Flink (Alibaba VVR) Nexmark q0-q2 ~0.5-0.8 M/s per CU"
row "runtime datagen->Calc->blackhole, rows/cpu-s (reordered)" "$(m "$calc_re_cpu" "$(why runtime)")" ">= 5,000,000" "-"
row "runtime datagen->GroupAggregate, input rows/cpu-s" "$(m "$agg_cpu" "$(why runtime)")" "-" "-"
row "Paimon table write, PK, producer none, rows/cpu-s" "$(m "$tw_none" "$(why table)")" ">= 200,000" "Java 64,800 rows/s parquet (i7-9750H)"
row "Paimon table write, PK, producer lookup, rows/cpu-s" "$(m "$tw_look" "$(why table)")" "-" "Java 94,000 rows/s (Apple M3 Pro)"
row "  lookup / none write ratio (same run)" "$(ratio "$tw_look" "$tw_none")" "-" "Paimon: lookup costs throughput"
row "Paimon table write, PK, dynamic bucket (bucket = -1), rows/cpu-s" "$(m "$tw_dyn" "$(why table)")" "-" "-"
row "  dynamic / fixed bucket write ratio (same run)" "$(ratio "$tw_dyn" "$tw_none")" ">= 0.70" "issue 15"
row "Paimon table write, PK, dynamic, 20k keys a bucket, rows/cpu-s" "$(m "$tw_dynb" "$(why table)")" "-" "-"
row "  same / fixed bucket write ratio (same run)" "$(ratio "$tw_dynb" "$tw_none")" ">= 0.70" "issue 15"
row "Paimon table write, PK, deletion vectors, rows/cpu-s" "$(m "$tw_dv" "$(why table)")" "-" "-"
row "  deletion vectors / fixed bucket write ratio (same run)" "$(ratio "$tw_dv" "$tw_none")" "-" "issue 15"
row "Paimon table write, PK, postpone bucket (bucket = -2, streaming), rows/cpu-s" "$(m "$tw_pp" "$(why table)")" "-" "-"
row "  postpone / fixed bucket write ratio (same run)" "$(ratio "$tw_pp" "$tw_none")" "-" "issue 15"
row "Paimon postpone compaction (CALL sys.compact), rows/cpu-s" "$(m "$tc_pp" "$(why table)")" "-" "-"
row "Paimon parquet KV file write, rows/cpu-s (100k rows)" "$(m "$fw" "$(why format)")" "-" "-"
row "Paimon parquet KV file read, rows/cpu-s" "$(m "$fr" "$(why format)")" "-" "-"
row "Paimon parquet KV file read, key + 2 of 20 cols, rows/cpu-s" "$(m "$frp" "$(why format)")" "-" "-"
row "Paimon table batch read (compacted), rows/cpu-s" "$(m "$tr_cpu" "$(why tableread)")" ">= 2,000,000" "-"
row "Paimon merge-on-read, 5 sorted runs, rows/s (wall)" "$(m "$mr" "$(why mergetree)")" "-" "-"
row "Paimon streaming changelog read (input), rows/s (wall)" "$(m "$follow" "$(why stream)")" "-" "-"
row "Paimon streaming full phase (5 L0 files), rows/s (wall)" "$(m "$full" "$(why stream)")" "-" "-"
row "Paimon commit of 1,000 rows, ms: local disk / S3 (loopback server)" "$s3_local / $s3_s3$( [ "$s3_s3" = "-" ] && echo " ($(why s3commit))")" "-" "-"
row "  S3 HTTP requests per commit (PUT, GET, HEAD, LIST)" "$s3_req" "-" "-"
row "Paimon batch read, 100k rows in 10 files, rows/s: local / S3" "$(fmtn "$s3r_local") / $(fmtn "$s3r_s3")$( [ "$s3r_s3" = "-" ] && echo " ($(why s3read))")" "-" "-"
row "  S3 HTTP requests per full read" "$s3r_req" "-" "-"
row "Paimon commit -> row at reader, mean us" "$(m "$lat" "$(why latency)")" "-" "-"
# pp P50 P99: "p50 / p99 ms", or "- (why)" when the e2elat step gave nothing.
pp() { if [ "$1" = "-" ]; then echo "- ($(why e2elat))"; else echo "$1 / $2 ms"; fi; }
row "Paimon commit -> sink of a streaming job, p50/p99, input" "$(pp "$c2s_in50" "$c2s_in99")" "-" "-"
row "Paimon commit -> sink of a streaming job, p50/p99, none" "$(pp "$c2s_no50" "$c2s_no99")" "-" "-"
row "  same, input, continuous.discovery-interval 100 ms" "$(pp "$c2s_d50" "$c2s_d99")" "-" "-"
row "lookup changelog commit -> sink p50/p99, lookup-wait true" "$(pp "$lw_w50" "$lw_w99")" "-" "Paimon: lookup-wait trades commit time"
row "lookup changelog commit -> sink p50/p99, lookup-wait false" "$(pp "$lw_n50" "$lw_n99")" "-" "  for changelog latency"
row "  commit p50 with lookup-wait true / false" "$(pp "$lw_wc" "$lw_nc")" "-" "-"
for n in 100 1000 5000; do
	row "JDBC upsert max-rows=$n: sink / driver alone, rows/s" "$(m "${sink[$n]}" "$(why jdbc)") / $(fmtn "${drv[$n]}")" "sink >= 90%" "$( [ "${pct[$n]}" = "-" ] && echo "-" || printf 'measured %.1f%%' "${pct[$n]}")"
done
row "regular join, 1M keys per side: rows/cpu-s" "$(m "$join_cpu" "$(why join)")" "-" "-"
row "  state per key: checkpoint bytes / Go heap bytes" "$join_ck / $join_heap" "-" "-"
row "TUMBLE window agg, 10M rows, 100k keys: rows/cpu-s" "$(m "$win_cpu" "$(why window)")" "-" "-"
row "  open window per key: checkpoint bytes / Go heap bytes" "$win_ck / $win_heap" "-" "-"
row "JDBC opt-in modes vs default ($(m "$jm_def" "$(why jdbcmodes)") rows/s): transactional-flush" "$jm_tx x" "-" "sqlrun only"
row "  sink.version-column / exactly-once (commit per checkpoint)" "$jm_ver x / $jm_eo x" "-" "sqlrun only"
row "parser: seed INSERT with hints, us/statement" "$( [ "$pins" = "-" ] && echo "- ($(why parser))" || awk -v n="$pins" 'BEGIN{printf "%.1f", n/1000}')" "-" "-"
row "parser: seed JDBC CREATE TABLE, us/statement" "$( [ "$pddl" = "-" ] && echo "- ($(why parser))" || awk -v n="$pddl" 'BEGIN{printf "%.1f", n/1000}')" "-" "-"
row "sqlrun -e: datagen->Calc->blackhole $(fmtn $E2E_ROWS) rows, rows/s" "$(rate blackhole $E2E_ROWS)" "-" "-"
row "  peak memory (max RSS) of that process" "$(rss blackhole)" "-" "-"
row "sqlrun -e: datagen->Paimon table $(fmtn $PAIMON_ROWS) rows, rows/s" "$(rate paimonwrite $PAIMON_ROWS)" "-" "-"
row "  peak memory (max RSS; write-buffer-size 256 mb)" "$(rss paimonwrite)" "-" "-"
row "sqlrun -e: batch COUNT/SUM over that table, rows/s" "$(rate paimonread $PAIMON_ROWS)" "-" "-"
row "  peak memory (max RSS) of that process" "$(rss paimonread)" "-" "-"
row "latency p50/p99: datagen->Calc->print (200 rows/s)" "$( [ "$lat_direct" = "-" ] && echo "- ($lat_why)" || echo "$lat_direct")" "-" "-"
row "latency p50/p99: datagen->Paimon->stream read->print" "$( [ "$lat_paimon" = "-" ] && echo "- ($lat_why)" || echo "$lat_paimon")" "-" "Paimon: visible after the checkpoint commits"
echo
echo "rows/cpu-s = rows per CPU-second of the benchmark process (one core); rows/s = wall clock."
echo "sqlrun -e rows: wall clock of the whole process (start-up, planning, job)."
echo "Paimon Java figures: TableWriterBenchmark (3M rows, k INT + 20 STRING(10), 1 bucket), JDK 8 / 11."
echo "Nexmark figure: Alibaba Cloud Realtime Compute for Apache Flink white paper (2026-03), q0-q2 4-6.5 M"
echo "  records/s on 8 CU (1 CU = 1 core + 4 GiB), Nexmark generator included; managed Flink, not 1.20 OSS."
