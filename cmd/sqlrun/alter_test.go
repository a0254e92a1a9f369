package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// paimonHead is the head of the Paimon catalog tests' scripts.
func paimonHead(wh string) string {
	return `SET 'sql-client.execution.result-mode' = 'tableau';
SET 'table.dml-sync' = 'true';
SET 'execution.runtime-mode' = 'batch';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = 'file://` + wh + `');
USE CATALOG p;
`
}

// paimonRunner runs script bodies through `sqlrun -f` after the head the
// Paimon catalog tests here share: tableau results, synchronous DML, batch
// mode, and catalog p on the warehouse wh. It returns the exit code and
// stdout with stderr.
func paimonRunner(wh string) func(t *testing.T, body string) (int, string) {
	head := paimonHead(wh)
	return func(t *testing.T, body string) (int, string) {
		t.Helper()
		code, out, errOut := runCLI(t, "-f", writeScript(t, head+body))
		return code, out + errOut
	}
}

// TestAlterTableColumnsPaimon runs ALTER TABLE ADD / MODIFY / DROP / RENAME
// on a Paimon table through `sqlrun -f`: each change writes the next
// schema file as Paimon's SchemaManager.commitChanges does (new field ids
// for added columns, ids kept by a rename and a type change), rows
// written before and after read back by field id in batch and streaming
// mode, and DESCRIBE / SHOW CREATE TABLE show the new columns.
func TestAlterTableColumnsPaimon(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	run := paimonRunner(wh)
	code, out := run(t, `CREATE TABLE t (id INT, v STRING, n INT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('bucket' = '1', 'changelog-producer' = 'input', 'sequence.field' = 'n');
INSERT INTO t VALUES (1, 'a', 10, 'd'), (2, 'b', 20, 'd');
ALTER TABLE t ADD c DOUBLE COMMENT 'added' AFTER id;
ALTER TABLE t ADD (x INT, e STRING FIRST);
ALTER TABLE t MODIFY n BIGINT COMMENT 'widened';
ALTER TABLE t DROP (e, x);
ALTER TABLE t RENAME v TO w;
ALTER TABLE t RENAME n TO seq;
ALTER TABLE t MODIFY w STRING AFTER seq;
INSERT INTO t VALUES (3, 3.5, 30, 'c', 'd'), (1, 1.5, 11, 'a2', 'd');
SELECT * FROM t ORDER BY id;
DESCRIBE t;
SHOW CREATE TABLE t;
SELECT schema_id, record_count FROM t$files ORDER BY schema_id;
`)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		// batch: the rows of schema 0 read by field id (c is new: NULL).
		"| id |      c | seq |  w | dt |",
		"|  1 |    1.5 |  11 | a2 |  d |",
		"|  2 | <NULL> |  20 |  b |  d |",
		"|  3 |    3.5 |  30 |  c |  d |",
		"|   id |    INT | FALSE | PRI(id, dt) |        |           |         |",
		"|    c | DOUBLE |  TRUE |             |        |           |   added |",
		"|  seq | BIGINT |  TRUE |             |        |           | widened |",
		"|    w | STRING |  TRUE |             |        |           |         |",
		"  `c` DOUBLE COMMENT 'added',\n  `seq` BIGINT COMMENT 'widened',\n  `w` VARCHAR(2147483647),\n",
		"|         0 |            2 |", "|         7 |            2 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}

	// Streaming from the first snapshot: both snapshots' changelogs as
	// written, the first read with schema 0's files mapped by field id.
	// The query is unbounded: stop it once the last row is out.
	stream := writeScript(t, paimonHead(wh)+`SET 'execution.runtime-mode' = 'streaming';
SELECT id, c, seq, w FROM t /*+ OPTIONS('scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1') */;
`)
	rows := []string{
		"| +I |           1 |                         <NULL> |                   10 |                              a |",
		"| +I |           2 |                         <NULL> |                   20 |                              b |",
		"| +I |           1 |                            1.5 |                   11 |                             a2 |",
		"| +I |           3 |                            3.5 |                   30 |                              c |",
	}
	out = runUntilOutput(t, rows[3], "-f", stream)
	if i := strings.Index(out, rows[0]); i < 0 || !strings.Contains(out[i:], strings.Join(rows, "\n")) {
		t.Fatalf("streaming rows: want\n%s\nin\n%s", strings.Join(rows, "\n"), out)
	}

	// The schema files are Paimon's TableSchema JSON: schema-7 keeps the ids
	// of id (0), v→w (1), n→seq (2) and dt (3), c took 4 (highestFieldId+1),
	// x and e took 5 and 6 and went with the DROP; options follow the
	// rename (sequence.field) as applyRenameColumnsToOptions does.
	raw, err := os.ReadFile(filepath.Join(wh, "default.db", "t", "schema", "schema-7"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Version int   `json:"version"`
		ID      int64 `json:"id"`
		Fields  []struct {
			ID          int     `json:"id"`
			Name        string  `json:"name"`
			Type        string  `json:"type"`
			Description *string `json:"description"`
		} `json:"fields"`
		HighestFieldID int               `json:"highestFieldId"`
		PartitionKeys  []string          `json:"partitionKeys"`
		PrimaryKeys    []string          `json:"primaryKeys"`
		Options        map[string]string `json:"options"`
		TimeMillis     int64             `json:"timeMillis"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields {
		d := ""
		if f.Description != nil {
			d = " '" + *f.Description + "'"
		}
		got = append(got, strings.TrimSpace(strings.Join([]string{strconv.Itoa(f.ID), f.Name, f.Type}, " ")+d))
	}
	want := []string{"0 id INT NOT NULL", "4 c DOUBLE 'added'", "2 seq BIGINT 'widened'", "1 w STRING", "3 dt STRING NOT NULL"}
	if !reflect.DeepEqual(got, want) || s.Version != 3 || s.ID != 7 || s.HighestFieldID != 6 || s.TimeMillis == 0 ||
		!reflect.DeepEqual(s.PrimaryKeys, []string{"id", "dt"}) || !reflect.DeepEqual(s.PartitionKeys, []string{"dt"}) ||
		!reflect.DeepEqual(s.Options, map[string]string{"bucket": "1", "changelog-producer": "input", "sequence.field": "seq"}) {
		t.Fatalf("schema-7:\n%s\nfields %q", raw, got)
	}

	// Refusals, each with Flink's or Paimon's message; none writes a schema.
	for _, c := range []struct{ stmt, msg string }{
		{"ALTER TABLE t DROP id;", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `id` is used as the primary key."},
		{"ALTER TABLE t DROP dt;", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `dt` is used as the partition keys."},
		{"ALTER TABLE t RENAME dt TO day;", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `dt` is used as the partition keys."},
		{"ALTER TABLE t DROP (c, c);", "Duplicate column `c`."},
		{"ALTER TABLE t DROP nope;", "The column `nope` does not exist in the base table."},
		{"ALTER TABLE t ADD c INT;", "Try to add a column `c` which already exists in the table."},
		{"ALTER TABLE t ADD z INT AFTER nope;", "Referenced column `nope` by 'AFTER' does not exist in the table."},
		{"ALTER TABLE t MODIFY nope INT;", "Try to modify a column `nope` which does not exist in the table."},
		{"ALTER TABLE t RENAME c TO w;", "The column `w` already existed in table schema."},
		{"ALTER TABLE t MODIFY id BIGINT;", "java.lang.UnsupportedOperationException: Cannot update primary key"},
		{"ALTER TABLE t ADD z INT NOT NULL;", "java.lang.IllegalArgumentException: Column z cannot specify NOT NULL in the default.t table."},
		{"ALTER TABLE t MODIFY c DOUBLE NOT NULL;", "java.lang.UnsupportedOperationException: Cannot update column type from nullable to non nullable for c. You can set table configuration option 'alter-column-null-to-not-null.disabled' = 'false' to allow converting null columns to not null"},
		{"ALTER TABLE t MODIFY seq DATE;", "java.lang.IllegalStateException: Column type seq[BIGINT] cannot be converted to DATE without loosing information."},
		{"ALTER TABLE t MODIFY id INT FIRST;", "java.lang.UnsupportedOperationException: Cannot move itself for column id"},
	} {
		code, out := run(t, c.stmt)
		if code == 0 || !strings.Contains(out, "[ERROR] Could not execute SQL statement. Reason:\n") || !strings.Contains(out, c.msg) {
			t.Errorf("%s: exit %d, want %q in\n%s", c.stmt, code, c.msg, out)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(wh, "default.db", "t", "schema")); len(ents) != 8 {
		t.Errorf("a refused ALTER wrote a schema: %d files", len(ents))
	}
}

// runUntilOutput runs sqlrun in-process until its output contains want
// (within 30 s), then stops it with SIGTERM and returns the output.
func runUntilOutput(t *testing.T, want string, args ...string) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	var out, errOut syncBuffer
	done := make(chan int)
	go func() { done <- run(args, strings.NewReader(""), &out, &errOut) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case code := <-done:
			t.Fatalf("sqlrun ended (exit %d) before printing %q:\n%s%s", code, want, out.String(), errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 30 s:\n%s%s", want, out.String(), errOut.String())
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("sqlrun did not stop after SIGTERM:\n%s", out.String())
	}
	return out.String()
}

// TestAlterTableNestedColumnsPaimon runs ALTER TABLE MODIFY of ROW and
// ARRAY<ROW> columns as Flink 1.20 with Paimon 1.4 runs it: FlinkCatalog
// turns the new type into nested schema changes
// (NestedSchemaUtils.generateNestedColumnUpdates) that SchemaManager
// applies, so a kept nested field keeps its id, a dropped one is gone and
// a re-added one gets a new id, and rows written before read back by id
// (SchemaEvolutionUtil.createCastExecutor). Before, sqlrun refused the
// ALTER ("not supported by sqlrun yet (nested types)").
func TestAlterTableNestedColumnsPaimon(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	run := paimonRunner(wh)
	code, out := run(t, `CREATE TABLE t (k INT, r ROW<a INT, b STRING, c ROW<x INT, q INT>>, arr ARRAY<ROW<x INT, y STRING>>,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1');
INSERT INTO t VALUES (1, ROW(1, 'bee', ROW(7, 0)), ARRAY[ROW(1, 'p'), ROW(2, 'q')]);
ALTER TABLE t MODIFY r ROW<a BIGINT, c ROW<x STRING, q INT, z INT>>;
ALTER TABLE t MODIFY r ROW<a BIGINT, c ROW<x STRING, q INT, z INT>, b STRING>;
ALTER TABLE t MODIFY arr ARRAY<ROW<x BIGINT, y STRING>>;
INSERT INTO t VALUES (2, ROW(2, ROW('eight', 0, 9), 'new'), ARRAY[ROW(3, 'r')]);
SELECT * FROM t ORDER BY k;
DESCRIBE t;
`)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		// r.b was dropped and added again: a new field, NULL for row 1.
		"| 1 | (1, (7, 0, NULL), NULL) | [(1, p), (2, q)] |",
		"| 2 | (2, (eight, 0, 9), new) |         [(3, r)] |",
		"|    r | ROW<`a` BIGINT, `c` ROW<`x` STRING, `q` INT, `z` INT>, `b` STRING> |  TRUE |",
		"|  arr |                                 ARRAY<ROW<`x` BIGINT, `y` STRING>> |  TRUE |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// The ids as Paimon assigns them: schema 0 takes them post-order per
	// column (ReassignFieldId: a=2 b=3 x=4 q=5 c=6), the first ALTER adds
	// z=10, the second b=11.
	raw, err := os.ReadFile(filepath.Join(wh, "default.db", "t", "schema", "schema-3"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Fields []struct {
			ID   int             `json:"id"`
			Type json.RawMessage `json:"type"`
		} `json:"fields"`
		HighestFieldID int `json:"highestFieldId"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`"id" : (\d+),\s*"name" : "(\w+)"`).FindAllStringSubmatch(string(raw), -1)
	var got []string
	for _, m := range ids {
		got = append(got, m[2]+"="+m[1])
	}
	if g := strings.Join(got, " "); g != "k=0 r=1 a=2 c=6 x=4 q=5 z=10 b=11 arr=7 x=8 y=9" || s.HighestFieldID != 11 {
		t.Errorf("schema-3 ids: %s, highest %d", g, s.HighestFieldID)
	}
	for _, c := range []struct{ stmt, msg string }{
		{"ALTER TABLE t MODIFY r ROW<c ROW<x STRING, q INT, z INT>, a BIGINT, b STRING>;",
			"java.lang.IllegalStateException: Order of existing fields in column r must be kept the same. However, field c and a have changed their orders."},
		{"ALTER TABLE t MODIFY r ROW<a BIGINT, c INT, b STRING>;",
			"java.lang.IllegalArgumentException: Column r.c can only be updated to row type, and cannot be updated to INTEGER type"},
		{"ALTER TABLE t MODIFY r ROW<a DATE, c ROW<x STRING, q INT, z INT>, b STRING>;",
			"java.lang.IllegalStateException: Column type a[BIGINT] cannot be converted to DATE without loosing information."},
		{"ALTER TABLE t MODIFY r ROW<a BIGINT, c ROW<x STRING, q INT, z INT>, b STRING, n INT NOT NULL>;",
			"java.lang.IllegalArgumentException: Column r.n cannot specify NOT NULL in the default.t table."},
		{"ALTER TABLE t MODIFY arr ARRAY<ROW<x BIGINT NOT NULL, y STRING>>;",
			"java.lang.UnsupportedOperationException: Cannot update column type from nullable to non nullable for arr.element.x."},
	} {
		code, out := run(t, c.stmt)
		if code == 0 || !strings.Contains(out, c.msg) {
			t.Errorf("%s: exit %d, want %q in\n%s", c.stmt, code, c.msg, out)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(wh, "default.db", "t", "schema")); len(ents) != 4 {
		t.Errorf("a refused ALTER wrote a schema: %d files", len(ents))
	}
}
