package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTimeTravelPaimon reads a Paimon catalog table FOR SYSTEM_TIME AS OF
// a constant time through `sqlrun -f`, as Flink 1.20 with Paimon 1.4 does:
// the period is read in 'table.local-time-zone' (FlinkCalciteSqlValidator;
// UTC, the one zone sqlrun's sessions take),
// and Paimon's FlinkCatalog.getTable(ObjectPath, long) copies the table
// with 'scan.timestamp-millis', whose AbstractFileStoreTable.tryTimeTravel
// takes the schema of the latest snapshot at or before that time: the
// columns the table had then (a renamed column under its old name, an
// added one absent), the rows of that snapshot. Before, sqlrun refused
// every constant period with the temporal-join message.
func TestTimeTravelPaimon(t *testing.T) {
	wh := filepath.Join(t.TempDir(), "wh")
	run := paimonRunner(wh)
	if code, out := run(t, `CREATE TABLE t (id INT, name STRING, qty INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');
INSERT INTO t VALUES (1, 'a', 10);
ALTER TABLE t ADD price DOUBLE;
ALTER TABLE t RENAME name TO label;
INSERT INTO t VALUES (2, 'b', 20, 1.5);
INSERT INTO t VALUES (1, 'a2', 11, 2.5);
`); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	commit := func(id string) time.Time {
		raw, err := os.ReadFile(filepath.Join(wh, "default.db", "t", "snapshot", "snapshot-"+id))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			TimeMillis int64 `json:"timeMillis"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return time.UnixMilli(s.TimeMillis)
	}
	wall := func(at time.Time, zone string) string {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		return at.In(loc).Format("2006-01-02 15:04:05.000")
	}
	s1, s2 := commit("1"), commit("2")
	code, out := run(t, `SET 'table.local-time-zone' = 'UTC';
SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '`+wall(s1, "UTC")+`';
SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '`+wall(s2, "UTC")+`' ORDER BY id;
SELECT id, name FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '`+wall(s1, "UTC")+`' + INTERVAL '0.001' SECOND AS old;
SELECT cur.id, cur.label, old.name FROM t AS cur JOIN t FOR SYSTEM_TIME AS OF TIMESTAMP '`+wall(s1, "UTC")+`' AS old ON cur.id = old.id;
SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2000-01-01 00:00:00';
`)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		// snapshot 1: schema 0's columns, its one row.
		"| id | name | qty |\n+----+------+-----+\n|  1 |    a |  10 |\n+----+------+-----+\n1 row in set",
		// snapshot 2: schema 2 (price added, name renamed label).
		"| id | label | qty |  price |\n+----+-------+-----+--------+\n|  1 |     a |  10 | <NULL> |\n|  2 |     b |  20 |    1.5 |\n",
		// an expression of the time, with an alias.
		"| id | name |\n+----+------+\n|  1 |    a |\n",
		// a regular join of the table now with the table then.
		"| id | label | name |\n+----+-------+------+\n|  1 |    a2 |    a |\n",
		// before the first snapshot: no rows (Paimon's scan finds none).
		"Empty set",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, c := range []struct{ stmt, msg string }{
		{"SELECT * FROM t FOR SYSTEM_TIME AS OF PROCTIME();",
			"org.apache.flink.table.api.ValidationException: Unsupported time travel expression: PROCTIME() for the expression can not be reduced to a constant by Flink."},
		{"SELECT * FROM t FOR SYSTEM_TIME AS OF 1;",
			"The system time period specification expects Timestamp type but is 'INTEGER'"},
		{"CREATE TEMPORARY TABLE tmp (id INT) WITH ('connector' = 'datagen');\nSELECT * FROM tmp FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00';",
			"Querying a temporal table using 'FOR SYSTEM TIME AS OF' syntax with a constant timestamp '2020-01-01 00:00:00' is not supported yet."},
	} {
		code, out := run(t, c.stmt)
		if code == 0 || !strings.Contains(out, c.msg) {
			t.Errorf("%s: exit %d, want %q in\n%s", c.stmt, code, c.msg, out)
		}
	}
}
