package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blobAlterCastRows are the rows of the blob_alter_cast fixtures, Parquet
// and ORC alike (UPSTREAM_README's "Recall with schema-1").
var blobAlterCastRows = []string{
	"1970-01-05 00:00:00.000000000 | 0 | 1 | 100 | 2024-11-26 06:38:56.001000001 | 0.020 | x'4c696c79' | TRUE | <NULL>",
	"1969-11-18 00:00:00.000000000 | 0 | 1 | 110 | 2024-11-26 06:38:56.011000011 | 11.120 | x'416c696365' | TRUE | <NULL>",
	"1971-03-21 00:00:00.000000000 | 0 | 1 | 120 | 2024-11-26 06:38:56.021000021 | 22.220 | x'426f62' | FALSE | <NULL>",
	"1957-11-01 00:00:00.000000000 | 0 | 1 | 130 | 2024-11-26 06:38:56.031000031 | 333.320 | x'43696e6479' | FALSE | <NULL>",
	"2091-09-07 00:00:00.000000000 | 0 | 1 | 140 | 2024-11-26 06:38:56.041000041 | 444.420 | x'44617665' | TRUE | <NULL>",
	"2024-11-26 06:38:56.054000154 | 0 | 1 | 150 | 2024-11-26 15:28:31 | 55.002 | x'4170706c65' | TRUE | 56",
	"2024-11-26 06:38:56.064000164 | 0 | 1 | 160 | 2024-11-26 15:28:41 | 666.012 | x'42616e616e61' | FALSE | 66",
	"2024-11-26 06:38:56.074000174 | 0 | 1 | 170 | 2024-11-26 15:28:51 | -77.022 | x'436865727279' | TRUE | 76",
	"2024-11-26 06:38:56.084000184 | 0 | 1 | 180 | 2024-11-26 15:29:01 | 8.032 | x'44757269616e' | TRUE | -86",
	"2024-11-26 06:38:56.094000194 | 0 | 1 | 190 | I'm strange | -999.420 | x'456c6465726265727279' | FALSE | 96"}

// TestJavaFixturesRead is the differential test of issue 13: tables that
// Paimon Java wrote (testdata/paimon/java, provenance in PROVENANCE.md) are
// read through `sqlrun -f` in batch mode, and the rows must equal the rows
// each fixture's source states (its README.md quotes them).
func TestJavaFixturesRead(t *testing.T) {
	for _, c := range []struct {
		fixture, db, table, cols string
		want                     []string
		order                    string // ORDER BY, when not cols
		from                     string // the FROM clause, when not db.table
	}{
		{"pk_mor_partitioned", "pk_table_scan_and_read_mor", "pk_table_scan_and_read_mor", "f0, f1, f2, f3", []string{
			"Alice | 10 | 1 | 19.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
			"Lucy | 20 | 1 | 14.1", "Marco | 10 | 0 | 21.1", "Marco2 | 10 | 0 | 31.1", "Paul | 20 | 1 | 18.1",
			"Skye | 10 | 0 | 21.0", "Skye2 | 10 | 0 | 31.0",
			"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 10 | 1 | 11.0"}, "", ""},
		// merge-engine partial-update with ignore-delete.
		{"pk_partial_update", "pk_table_partial_update", "pk_table_partial_update", "k0, k1, v0, v1, v2", []string{
			"0 | 1 | 100.0 | TRUE | new_apple", "1 | 0 | 2.0 | FALSE | <NULL>", "1 | 1 | 133.3 | FALSE | banana", "2 | 1 | 144.4 | TRUE | orange"}, "", ""},
		// Schema evolution: old files' columns mapped by field id (b → c,
		// d → a), columns added later read as NULL (UPSTREAM_README's
		// "Recall with schema-1, result").
		{"append_partitioned_schema_evolution", "append_table_with_alter_table", "append_table_with_alter_table", "key0, key1, k, c, d, a, e", []string{
			"0 | 1 | 16 | 13 | <NULL> | 15 | <NULL>", "0 | 1 | 26 | 23 | <NULL> | 25 | <NULL>", "0 | 1 | 36 | 33 | <NULL> | 35 | <NULL>",
			"0 | 1 | 66 | 63 | 517 | 65 | 618", "0 | 1 | 76 | 73 | 527 | 75 | 628", "0 | 1 | 86 | 83 | 537 | 85 | 638",
			"1 | 1 | 46 | 43 | <NULL> | 45 | <NULL>", "1 | 1 | 56 | 53 | <NULL> | 55 | <NULL>",
			"1 | 1 | 96 | 93 | 547 | 95 | 648", "1 | 1 | 106 | 103 | 557 | 105 | 658"}, "", ""},
		// deletion-vectors.enabled (DataTableBatchScan reads above level 0).
		{"pk_dv_golden_java21", "default", "test_pk_global_index_golden", "id, name, category", []string{
			"1 | name-1 | odd", "2 | name-2 | even", "3 | name-3 | odd", "4 | name-4 | even", "5 | name-5 | odd", "6 | name-6 | even"}, "", ""},
		// ORC data files and ORC manifests ('file.format' = 'manifest.format'
		// = 'orc', zstd): the PK table above in ORC (paimon-cpp's
		// TestWithPKWithMorBatchScanLatestSnapshot asserts the same rows).
		{"orc_pk_mor", "pk_table_scan_and_read_mor", "pk_table_scan_and_read_mor", "f0, f1, f2, f3", []string{
			"Alice | 10 | 1 | 19.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
			"Lucy | 20 | 1 | 14.1", "Marco | 10 | 0 | 21.1", "Marco2 | 10 | 0 | 31.1", "Paul | 20 | 1 | 18.1",
			"Skye | 10 | 0 | 21.0", "Skye2 | 10 | 0 | 31.0",
			"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 10 | 1 | 11.0"}, "", ""},
		// ORC with deletion vectors: the batch scan reads above level 0 and
		// drops the rows the vectors mark (TestWithPKWithDvBatchScanSnapshot6).
		{"orc_pk_dv", "pk_table_scan_and_read_dv", "pk_table_scan_and_read_dv", "f0, f1, f2, f3", []string{
			"Alex | 10 | 0 | 16.1", "Alice | 10 | 1 | 19.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
			"Lucy | 20 | 1 | 14.1", "Paul | 20 | 1 | 18.1",
			"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 10 | 1 | 11.0"}, "", ""},
		// ORC ROW/ARRAY/MAP columns in a PK table with DELETE and
		// UPDATE_BEFORE rows (TestWithPKWithNestedType).
		{"orc_pk_nested", "pk_table_nested_type", "pk_table_nested_type", "shopId, dt, hr, col0, col1, col2", []string{
			"1001 | 2025-04-14 | 10 | 10 | (str-1, 100, [1, NULL, 2]) | {1=1, 101=101}",
			"1004 | 2025-04-14 | 10 | 40 | (str-4, 400, [4, NULL, 5]) | {4=4, 104=104}",
			"1005 | 2025-04-14 | 10 | 50 | (str-5, 500, [5, NULL, 6]) | {5=5, 105=105}",
			"1006 | 2025-04-14 | 10 | 60 | (str-6, 600, [6, NULL, 7]) | {6=6, 106=106}",
			"1007 | 2025-04-14 | 10 | 70 | (str-7, 700, [7, NULL, 8]) | {7=7, 107=107}"}, "shopId", ""},
		// ORC STRING/INT/DOUBLE, partitions (UPSTREAM_README's snapshot-1).
		{"orc_append_10", "append_10", "append_10", "f0, f1, f2, f3", []string{
			"Alice | 10 | 1 | 11.1", "Bob | 10 | 0 | 12.1", "Emily | 10 | 0 | 13.1", "Lucy | 20 | 1 | 14.1", "Tony | 10 | 0 | 14.1"}, "", ""},
		// ORC DATE, TIMESTAMP(9) before 1900 with nanoseconds, DECIMAL(23,5)
		// (more than 18 digits), BYTES; four snapshots with a full
		// compaction (UPSTREAM_README; read_inte_test.cpp asserts a subset).
		{"orc_append_complex", "append_complex_data", "append_complex_data", "f1, f2, f3, f4, f5, f6", []string{
			"10 | 1 | <NULL> | 1899-01-01 00:59:20.001001001 | 0.00000 | x'666174'",
			"10 | 1 | 1970-01-01 | 2008-12-28 00:00:00.000123456 | <NULL> | x'646164'",
			"10 | 1 | 1970-04-11 | 2008-12-28 00:00:00.000123450 | -123.45000 | x'656174'",
			"10 | 1 | 1973-05-19 | 2033-05-18 03:33:20.000000000 | 123456789987654321.45678 | x'616464'",
			"10 | 1 | 2024-07-05 | 2033-05-18 03:33:20.000001001 | 12.30000 | x'636174'",
			"10 | 1 | 2024-10-10 | 2024-10-10 10:10:10.100100100 | 1728551410100.10010 | <NULL>",
			"20 | 0 | 1969-09-23 | <NULL> | 0.00000 | x'676574'",
			"20 | 1 | 1966-08-16 | 1899-01-01 00:59:20.001001001 | -123456789987654321.45678 | x'626164'"}, "", ""},
		// ORC MAP<TINYINT, SMALLINT>, ARRAY<FLOAT>, ROW<BOOLEAN, BIGINT>,
		// TIMESTAMP(9), DATE, DECIMAL(2,2) written in Asia/Shanghai with
		// Paimon's field ids as ORC attributes (UPSTREAM_README).
		{"orc_append_nested", "append_complex_build_in_fieldid", "append_complex_build_in_fieldid", "f1, f2, f3, f4, f5, f6", []string{
			"{1=64, 2=32} | [2.2, 3.2] | (TRUE, 2) | 1970-01-01 00:00:00.000000000 | 1970-01-25 | <NULL>",
			"{127=32767, -128=-32768} | [1.1, 1.2] | (FALSE, 2222) | 1970-01-01 00:02:03.123123000 | 1970-09-03 | 0.12",
			"{0=0} | [0.1, 0.2] | (TRUE, 2) | 1970-01-01 00:02:03.123123000 | 1976-09-22 | 0.22"}, "f5", ""},
		// TIMESTAMP(0/3/6/9) and TIMESTAMP_LTZ(0/3/6/9) in ORC (LTZ as
		// 'timestamp with local time zone'), written in Asia/Shanghai
		// (UPSTREAM_README; scan_and_read_inte_test.cpp
		// TestAppendWithMultipleTsPrecisionAndTimezone).
		{"orc_timestamps", "append_with_multiple_ts_precision_and_timezone", "append_with_multiple_ts_precision_and_timezone",
			"ts_sec, ts_milli, ts_micro, ts_nano, ts_tz_sec, ts_tz_milli, ts_tz_micro, ts_tz_nano", []string{
				"1970-01-01 00:00:01 | 1970-01-01 00:00:00.001 | 1970-01-01 00:00:00.000001 | 1970-01-01 00:00:00.000000001 | 1970-01-01 00:00:02 | 1970-01-01 00:00:00.002 | 1970-01-01 00:00:00.000002 | 1970-01-01 00:00:00.000000002",
				"1970-01-01 00:00:03 | 1970-01-01 00:00:00.003 | <NULL> | 1970-01-01 00:00:00.000000003 | 1970-01-01 00:00:04 | 1970-01-01 00:00:00.004 | 1970-01-01 00:00:00.000004 | 1970-01-01 00:00:00.000000004",
				"1970-01-01 00:00:05 | 1970-01-01 00:00:00.005 | <NULL> | <NULL> | 1970-01-01 00:00:06 | <NULL> | 1970-01-01 00:00:00.000006 | <NULL>"}, "ts_tz_sec", ""},
		// The same columns with Paimon's default 'orc.timestamp-ltz.legacy.type'
		// = 'true': the legacy writer shifted the LTZ instants by its zone
		// (Asia/Shanghai); the values are those UPSTREAM_README lists.
		{"orc_timestamps_legacy", "timestamp_index", "timestamp_index",
			"ts_sec, ts_milli, ts_micro, ts_nano, ts_tz_sec, ts_tz_milli, ts_tz_micro, ts_tz_nano", []string{
				"<NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL>",
				"1969-12-31 23:30:35 | 1969-12-31 23:30:34.999 | 1969-12-31 23:30:34.999001 | 1969-12-31 23:30:34.999001001 | 1969-12-31 23:30:35 | 1969-12-31 23:30:34.999 | 1969-12-31 23:30:34.999001 | 1969-12-31 23:30:34.999001001",
				"1969-12-31 23:30:55 | 1969-12-31 23:30:54.999 | 1969-12-31 23:30:54.999001 | 1969-12-31 23:30:54.999001001 | 1969-12-31 23:30:55 | 1969-12-31 23:30:54.999 | 1969-12-31 23:30:54.999001 | 1969-12-31 23:30:54.999001001",
				"1969-12-31 23:31:15 | 1969-12-31 23:31:14.999 | 1969-12-31 23:31:14.999001 | 1969-12-31 23:31:14.999001001 | 1969-12-31 23:31:15 | 1969-12-31 23:31:14.999 | 1969-12-31 23:31:14.999001 | 1969-12-31 23:31:14.999001001",
				"2025-04-25 00:56:42 | 2025-04-25 00:56:42.001 | 2025-04-25 00:56:42.001001 | 2025-04-25 00:56:42.001001001 | 2025-04-25 00:56:42 | 2025-04-25 00:56:42.001 | 2025-04-25 00:56:42.001001 | 2025-04-25 00:56:42.001001001",
				"2025-04-25 01:00:02 | 2025-04-25 01:00:02.001 | 2025-04-25 01:00:02.001001 | 2025-04-25 01:00:02.001001001 | 2025-04-25 01:00:02 | 2025-04-25 01:00:02.001 | 2025-04-25 01:00:02.001001 | 2025-04-25 01:00:02.001001001",
				"2025-04-25 01:00:02 | 2025-04-25 01:00:02.001 | 2025-04-25 01:00:02.001001 | 2025-04-25 01:00:02.001001001 | 2025-04-25 01:00:02 | 2025-04-25 01:00:02.001 | 2025-04-25 01:00:02.001001 | 2025-04-25 01:00:02.001001001",
				"2025-04-25 01:01:42 | 2025-04-25 01:01:42.001 | 2025-04-25 01:01:42.001001 | 2025-04-25 01:01:42.001001001 | 2025-04-25 01:01:42 | 2025-04-25 01:01:42.001 | 2025-04-25 01:01:42.001001 | 2025-04-25 01:01:42.001001001"}, "ts_nano", ""},
		// Avro data files ('file.format' = 'avro', zstandard):
		// timestamp-millis/-micros and local-timestamp-millis/-micros.
		{"avro_timestamps", "append_with_multiple_ts_precision_and_timezone", "append_with_multiple_ts_precision_and_timezone",
			"ts_sec, ts_milli, ts_micro, ts_tz_sec, ts_tz_milli, ts_tz_micro", []string{
				"1970-01-01 00:00:05 | <NULL> | 1970-01-01 00:00:00.000005 | 1970-01-01 00:00:06 | <NULL> | 1970-01-01 00:00:00.000006",
				"1970-01-01 00:00:01 | 1970-01-01 00:00:00.001 | 1970-01-01 00:00:00.000001 | 1970-01-01 00:00:02 | 1970-01-01 00:00:00.002 | 1970-01-01 00:00:00.000002",
				"<NULL> | 1970-01-01 00:00:00.003 | <NULL> | <NULL> | 1970-01-01 00:00:00.004 | <NULL>"}, "ts_milli", ""},
		// Paimon 0.9-era layouts: Parquet data with ORC manifests (append,
		// bucket 2; UPSTREAM_README's adds of snapshots 1–5, a full
		// compaction keeping them all).
		{"append_09", "append_09", "append_09", "f0, f1, f2, f3", []string{
			"Alex | 10 | 0 | 16.1", "Alice | 10 | 1 | 11.1", "Bob | 10 | 0 | 12.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1",
			"Emily | 10 | 0 | 13.1", "Emily | 10 | 0 | 15.1", "Lily | 10 | 0 | 17.1", "Lucy | 20 | 1 | 14.1", "Paul | 20 | 1 | <NULL>",
			"Tony | 10 | 0 | 14.1"}, "", ""},
		// Avro manifests whose writer schema is ["null", record] (a nullable
		// row, as that writer declared it), deletion vectors: the latest
		// snapshot (8) reads as read_inte_test.cpp TestPkTableWithSnapshot8
		// asserts.
		{"pk_09_dv", "pk_09", "pk_09", "f0, f3, f1", []string{
			"Alex | 16.1 | 10", "Alice | 21.1 | 10", "Bob | 12.1 | 10", "David | 17.1 | 10", "Emily | 13.1 | 10", "Lucy | 14.1 | 20",
			"Paul | 18.1 | 20", "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 11.0 | 10",
			"Whether I shall turn out to be the hero of my own life. | 19.1 | 10"}, "f0", ""},
		// Time travel to snapshot 6 with a filter (TestPkTableWithSnapshot6).
		{"pk_09_dv", "pk_09", "pk_09", "f0, f1, f2, f3", []string{
			"Alex | 10 | 0 | 16.1", "Alice | 10 | 1 | 19.1", "David | 10 | 0 | 17.1", "Paul | 20 | 1 | 18.1",
			"Whether I shall turn out to be the hero of my own life. | 10 | 1 | 19.1"}, "f0",
			"`pk_09`.`pk_09` /*+ OPTIONS('scan.snapshot-id' = '6') */ WHERE f3 > 15"},
		// merge-engine first-row with ignore-delete: the batch scan of
		// snapshot 5 reads above level 0 only (scan_and_read_inte_test.cpp
		// TestWithPKWithFirstRowBatchScanSnapshot5).
		{"pk_first_row", "pk_table_scan_and_read_first_row", "pk_table_scan_and_read_first_row", "f0, f1, f2, f3", []string{
			"Alex | 10 | 0 | 16.1", "Alice | 10 | 1 | 11.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
			"Lucy | 20 | 1 | 14.1", "Paul | 20 | 1 | 18.1", "Tony | 10 | 0 | 14.1",
			"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 10 | 1 | 11.0"}, "f0", ""},
		// Schema evolution with casts (DATE→TIMESTAMP(9), TIMESTAMP(9)→STRING,
		// DECIMAL(5,2)→(6,3), STRING→BOOLEAN, BIGINT dropped, renames,
		// a move and an added column): UPSTREAM_README's "Recall with
		// schema-1" rows.
		{"append_alter_with_cast", "append_table_alter_table_with_cast", "append_table_alter_table_with_cast", "f4, key0, key1, f3, f1, f2, f0, f6", []string{
			"1970-01-05 00:00:00.000000000 | 0 | 1 | 100 | 2024-11-26 06:38:56.001000001 | 0.020 | TRUE | <NULL>",
			"1969-11-18 00:00:00.000000000 | 0 | 1 | 110 | 2024-11-26 06:38:56.011000011 | 11.120 | TRUE | <NULL>",
			"1971-03-21 00:00:00.000000000 | 0 | 1 | 120 | 2024-11-26 06:38:56.021000021 | 22.220 | FALSE | <NULL>",
			"2024-11-26 06:38:56.054000054 | 0 | 1 | 150 | 2024-11-26 15:28:31 | 55.002 | TRUE | 56",
			"2024-11-26 06:38:56.064000064 | 0 | 1 | 160 | 2024-11-26 15:28:41 | 666.012 | FALSE | 66",
			"2024-11-26 06:38:56.074000074 | 0 | 1 | 170 | 2024-11-26 15:28:51 | -77.022 | TRUE | 76",
			"1957-11-01 00:00:00.000000000 | 1 | 1 | 130 | 2024-11-26 06:38:56.031000031 | 333.320 | FALSE | <NULL>",
			"2091-09-07 00:00:00.000000000 | 1 | 1 | 140 | 2024-11-26 06:38:56.041000041 | 444.420 | TRUE | <NULL>",
			"2024-11-26 06:38:56.084000084 | 1 | 1 | 180 | 2024-11-26 15:29:01 | 8.032 | TRUE | -86",
			"2024-11-26 06:38:56.094000094 | 1 | 1 | 190 | I'm strange | -999.420 | FALSE | 96"}, "key0, f3", ""},
		// A primary-key table (deletion vectors) whose key column was renamed
		// (key2 → key_2) and whose columns were dropped, renamed, moved and
		// added: UPSTREAM_README's "Recall with schema-1" rows.
		{"pk_alter_renamed_key", "pk_table_with_alter_table", "pk_table_with_alter_table", "key1, k, key_2, c, d, a, key0, e", []string{
			"1 | Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 2 | 4 | <NULL> | 6 | 0 | <NULL>",
			"1 | Alice | 12 | 94 | <NULL> | 96 | 0 | <NULL>",
			"1 | Paul | 502 | 504 | 508 | 506 | 0 | 509",
			"1 | Bob | 22 | 24 | <NULL> | 26 | 1 | <NULL>",
			"1 | Emily | 32 | 34 | <NULL> | 36 | 1 | <NULL>",
			"1 | Alex | 52 | 514 | 518 | 516 | 1 | 519",
			"1 | David | 62 | 64 | <NULL> | 66 | 1 | <NULL>",
			"1 | Whether I shall turn out to be the hero of my own life. | 72 | 74 | <NULL> | 76 | 1 | <NULL>"}, "key0, key_2", ""},
		// Data evolution (DataEvolutionSplitRead): files of one row-id range
		// read as one, each column from the newest file that wrote it
		// (_WRITE_COLS), a column no file wrote NULL; new rows 4-5 have only
		// f2, f3. Before, "parquet file ... has no column f3".
		{"data_evolution", "data_evolution_with_index", "data_evolution_with_index", "f0, f1, f2, f3", []string{
			"Lily | 2 | 102 | 2.1", "Alice | 4 | 104 | 3.1", "Bob | 6 | 106 | 4.1", "David | 8 | 108 | 5.1",
			"<NULL> | <NULL> | 202 | 6.1", "<NULL> | <NULL> | 204 | 7.1"}, "f2", ""},
		{"orc_data_evolution", "data_evolution_with_index", "data_evolution_with_index", "f0, f1, f2, f3", []string{
			"Lily | 2 | 102 | 2.1", "Alice | 4 | 104 | 3.1", "Bob | 6 | 106 | 4.1", "David | 8 | 108 | 5.1",
			"<NULL> | <NULL> | 202 | 6.1", "<NULL> | <NULL> | 204 | 7.1"}, "f2", ""},
		// Data evolution across a schema change with casts: two files per
		// row-id range, each written with its own schema (UPSTREAM_README's
		// "Recall with schema-1").
		{"data_evolution_alter_cast", "append_table_alter_table_with_cast_with_data_evolution", "append_table_alter_table_with_cast_with_data_evolution", "f4, key0, key1, f3, f1, f2, f0, f6", []string{
			"1970-01-05 00:00:00.000000000 | 0 | 1 | 100 | 2024-11-26 06:38:56.001000001 | 0.020 | TRUE | <NULL>",
			"1969-11-18 00:00:00.000000000 | 0 | 1 | 110 | 2024-11-26 06:38:56.011000011 | 11.120 | TRUE | <NULL>",
			"1971-03-21 00:00:00.000000000 | 0 | 1 | 120 | 2024-11-26 06:38:56.021000021 | 22.220 | FALSE | <NULL>",
			"1957-11-01 00:00:00.000000000 | 0 | 1 | 130 | 2024-11-26 06:38:56.031000031 | 333.320 | FALSE | <NULL>",
			"2091-09-07 00:00:00.000000000 | 0 | 1 | 140 | 2024-11-26 06:38:56.041000041 | 444.420 | TRUE | <NULL>",
			"2024-11-26 06:38:56.054000154 | 0 | 1 | 150 | 2024-11-26 15:28:31 | 55.002 | TRUE | 56",
			"2024-11-26 06:38:56.064000164 | 0 | 1 | 160 | 2024-11-26 15:28:41 | 666.012 | FALSE | 66",
			"2024-11-26 06:38:56.074000174 | 0 | 1 | 170 | 2024-11-26 15:28:51 | -77.022 | TRUE | 76",
			"2024-11-26 06:38:56.084000184 | 0 | 1 | 180 | 2024-11-26 15:29:01 | 8.032 | TRUE | -86",
			"2024-11-26 06:38:56.094000194 | 0 | 1 | 190 | I'm strange | -999.420 | FALSE | 96"}, "f3", ""},
		// BLOB columns (Paimon 1.3+): the values are in .blob files of their
		// own (BlobFormatWriter), several per row-id range whose first row
		// ids continue one another (DataEvolutionSplitRead's
		// SpecialFieldBunch), read as BYTES as Flink reads a BLOB. Expected:
		// UPSTREAM_README's "Recall with schema-1"; the blob column was
		// renamed to f5 and moved after f2. Before, "unsupported Paimon data
		// type: \"BLOB NOT NULL\"".
		{"blob_alter_cast", "blob_append_table_alter_table_with_cast_with_data_evolution", "blob_append_table_alter_table_with_cast_with_data_evolution", "f4, key0, key1, f3, f1, f2, f5, f0, f6", blobAlterCastRows, "f3", ""},
		{"orc_blob_alter_cast", "blob_append_table_alter_table_with_cast_with_data_evolution", "blob_append_table_alter_table_with_cast_with_data_evolution", "f4, key0, key1, f3, f1, f2, f5, f0, f6", blobAlterCastRows, "f3", ""},
		// A BLOB first column, f2 overwritten by a later file for the same
		// rows (UPSTREAM_README).
		{"blob_dense_stats", "blob_data_evolution_with_dense_stats", "blob_data_evolution_with_dense_stats", "f0, f1, f2, f3", []string{"x'4c696c79' | 2 | 102 | 2.1", "x'416c696365' | 4 | 104 | 3.1"}, "f1", ""},
		{"orc_blob_dense_stats", "blob_data_evolution_with_dense_stats", "blob_data_evolution_with_dense_stats", "f0, f1, f2, f3", []string{"x'4c696c79' | 2 | 102 | 2.1", "x'416c696365' | 4 | 104 | 3.1"}, "f1", ""},
		// 'index-file-in-data-file-dir' = true: the deletion vectors live in
		// the bucket directories (TestPkDvTableIndexInDataAndNoExternalPath).
		// Before, "open .../index/index-...: no such file or directory".
		{"pk_dv_index_in_data", "pk_dv_index_in_data_no_external", "pk_dv_index_in_data_no_external", "f0, f1, f2, f3", []string{
			"Alex | 10 | 0 | 16.1", "Alice | 10 | 1 | 19.1", "Bob | 10 | 0 | 12.1", "David | 10 | 0 | 17.1", "Emily | 10 | 0 | 13.1",
			"Lucy | 20 | 1 | 14.1", "Paul | 20 | 1 | 18.1",
			"Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference. | 10 | 1 | 11.0"}, "", ""},
		// Partition values '', ' ' and NULL share the directory
		// f0=__DEFAULT_PARTITION__ but keep their values, also when pruned
		// (TestWithMultipleEmptyPartitionValue).
		{"empty_partition_values", "append_with_empty_partition_with_empty_value", "append_with_empty_partition_with_empty_value", "f0, CHAR_LENGTH(f0), f1, f2, f3", []string{
			"<NULL> | <NULL> | 100 | 2 | 16.1", " | 0 | 50 | 1 | 14.1", " | 0 | 200 | -3 | 12.1", " | 1 | 100 | 0 | 15.1",
			"2024 | 4 | 100 | -2 | 11.1", "2024 | 4 | 300 | 1 | 13.1", "2025 | 4 | 500 | -1 | 15.1"}, "f0, f1", ""},
		{"empty_partition_values", "", "", "f0, CHAR_LENGTH(f0), f1", []string{" | 0 | 50", " | 0 | 200"}, "f1",
			"`append_with_empty_partition_with_empty_value`.`append_with_empty_partition_with_empty_value` WHERE f0 = ''"},
		{"empty_partition_values", "", "", "f1", []string{"100"}, "f1",
			"`append_with_empty_partition_with_empty_value`.`append_with_empty_partition_with_empty_value` WHERE f0 IS NULL"},
		// Row tracking: a compacted file that stores _ROW_ID and
		// _SEQUENCE_NUMBER as columns (TestReadCompactFiles).
		{"row_tracking_compacted", "append_table_row_tracking_with_compact", "append_table_row_tracking_with_compact", "f0, f1, f2, f3", []string{
			"Lily | 2 | 12 | 2.1", "Alice | 3 | 13 | 3.1", "Bob | 4 | 14 | 4.1", "David | 5 | 15 | 5.1"}, "f1", ""},
	} {
		name := c.fixture
		if c.from != "" {
			name += "_query"
		}
		t.Run(name, func(t *testing.T) {
			// Read a copy: a read must not depend on writing, and the
			// repository's files stay untouched whatever happens.
			wh := filepath.Join(t.TempDir(), "wh")
			if err := os.CopyFS(wh, os.DirFS(filepath.Join("..", "..", "testdata", "paimon", "java", c.fixture))); err != nil {
				t.Fatal(err)
			}
			from := c.from
			if from == "" {
				from = "`" + c.db + "`.`" + c.table + "`"
			}
			order := c.order
			if order == "" {
				order = c.cols
			}
			script := writeScript(t, `SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.display.max-column-width' = '200';
SET 'table.local-time-zone' = 'UTC';
CREATE CATALOG j WITH ('type' = 'paimon', 'warehouse' = 'file://`+wh+`');
USE CATALOG j;
SELECT `+c.cols+` FROM `+from+` ORDER BY `+order+`;
`)
			code, out, errOut := runCLI(t, "-f", script)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			var got []string
			header := true
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "|") {
					continue
				}
				if header { // the column names
					header = false
					continue
				}
				var cells []string
				for _, cell := range strings.Split(strings.Trim(l, "|"), "|") {
					cells = append(cells, strings.TrimSpace(cell))
				}
				got = append(got, strings.Join(cells, " | "))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("rows\n%s\nwant\n%s\n(output:\n%s%s)", strings.Join(got, "\n"), strings.Join(c.want, "\n"), out, errOut)
			}
		})
	}
}

// TestBlobTableRefusals: what sqlrun does not do with BLOB columns fails
// by name and changes nothing: writing a table that has one (Paimon writes
// the values to .blob files), reading one as descriptors
// ('blob-as-descriptor'), and CREATE TABLE with 'blob-field'. Reading the
// other columns with 'blob-as-descriptor' set still works.
func TestBlobTableRefusals(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	if err := os.CopyFS(wh, os.DirFS(filepath.Join("..", "..", "testdata", "paimon", "java", "blob_dense_stats"))); err != nil {
		t.Fatal(err)
	}
	const table = "j.blob_data_evolution_with_dense_stats.blob_data_evolution_with_dense_stats"
	snapshots := func() []string {
		names, _ := filepath.Glob(filepath.Join(wh, "blob_data_evolution_with_dense_stats.db", "blob_data_evolution_with_dense_stats", "snapshot", "snapshot-*"))
		return names
	}
	before := snapshots()
	for _, c := range []struct{ stmt, want string }{
		{"INSERT INTO " + table + " VALUES (x'00', 1, 2, 3.0);", "tables with BLOB columns are not supported for writing: column f0 is a BLOB"},
		{"SELECT * FROM " + table + " /*+ OPTIONS('blob-as-descriptor' = 'true') */;", "BLOB column f0 with 'blob-as-descriptor' = 'true'"},
		{"CREATE TABLE j.`default`.t (id INT, pic BYTES) WITH ('blob-field' = 'pic', 'row-tracking.enabled' = 'true', 'data-evolution.enabled' = 'true');",
			"'blob-field' = 'pic'"},
		{"SELECT f1, f2 FROM " + table + " /*+ OPTIONS('blob-as-descriptor' = 'true') */ ORDER BY f1;", ""},
	} {
		script := writeScript(t, `SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE CATALOG j WITH ('type' = 'paimon', 'warehouse' = 'file://`+wh+`');
`+c.stmt+"\n")
		code, out, errOut := runCLI(t, "-f", script)
		if c.want == "" {
			if code != 0 || !strings.Contains(out, "|  4 | 104 |") {
				t.Errorf("%s: exit %d\n%s%s", c.stmt, code, out, errOut)
			}
			continue
		}
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want an error with %q\n%s%s", c.stmt, code, c.want, out, errOut)
		}
	}
	if after := snapshots(); len(after) != len(before) {
		t.Errorf("snapshots %v, before %v", after, before)
	}
	if _, err := os.Stat(filepath.Join(wh, "default.db", "t")); !os.IsNotExist(err) {
		t.Errorf("table t created: %v", err)
	}
}

// TestFallbackBranchRefused: a table whose 'scan.fallback-branch' names an
// existing branch is read by Paimon's batch scan from two branches
// (FallbackReadFileStoreTable: 20240725 from main, 20240726 from rt, so
// four rows). sqlrun reads one branch, so the batch read fails by name
// instead of returning main's two rows; an option naming a branch that
// does not exist is ignored, as FileStoreTableFactory does. Before, the
// batch read returned two rows and no error.
func TestFallbackBranchRefused(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	if err := os.CopyFS(wh, os.DirFS(filepath.Join("..", "..", "testdata", "paimon", "java", "fallback_branch"))); err != nil {
		t.Fatal(err)
	}
	run := func(hint string) (int, string, string) {
		script := writeScript(t, `SET 'execution.runtime-mode' = 'batch';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE CATALOG j WITH ('type' = 'paimon', 'warehouse' = 'file://`+wh+`');
SELECT dt, name, amount FROM j.append_table_with_rt_branch.append_table_with_rt_branch `+hint+` ORDER BY dt, name;
`)
		return runCLI(t, "-f", script)
	}
	if code, out, errOut := run(""); code == 0 || !strings.Contains(errOut, "'scan.fallback-branch' = 'rt' makes a batch read take partitions from branch rt") {
		t.Errorf("fallback read: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run("/*+ OPTIONS('scan.fallback-branch' = 'nope') */")
	if code != 0 || !strings.Contains(out, "| 20240725 |  apple |      5 |") || !strings.Contains(out, "2 rows in set") {
		t.Errorf("missing fallback branch: exit %d\n%s%s", code, out, errOut)
	}
}
