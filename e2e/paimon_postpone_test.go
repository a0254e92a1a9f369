package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Postpone bucket tables ('bucket' = -2, Paimon 1.2+) through the binary.
// A batch INSERT writes straight into real buckets, as Paimon 1.4's
// default 'postpone.batch-write-fixed-bucket' does: a new partition gets
// as many buckets as the sink has writers (PostponeBatchWriteOperator), a
// partition with files keeps its count. A streaming INSERT goes into the
// partitions' bucket-postpone directories as Avro files (Paimon's
// PostponeBucketSink / PostponeBucketWriter), invisible to batch reads
// until CALL sys.compact replays them into real buckets: as many as the
// partition has, 'postpone.default-bucket-num' (1) for a new one.

const postponeTables = `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
`

func TestPaimonPostponeBucket(t *testing.T) {
	needPaimonCatalog(t)
	e := newEnv(t)
	if r := e.runScript("write.sql", "SET 'table.dml-sync' = 'true';\nSET 'execution.runtime-mode' = 'batch';\n"+postponeTables+
		"CREATE TABLE p.`default`.orders (id BIGINT, dt STRING, amount DECIMAL(10, 2), PRIMARY KEY (id, dt) NOT ENFORCED)\n"+
		"  PARTITIONED BY (dt) WITH ('bucket' = '-2', 'changelog-producer' = 'input');\n"+
		"INSERT INTO p.`default`.orders /*+ OPTIONS('sink.parallelism' = '2') */ VALUES (1001, 'a', 80.00), (1002, 'a', 5.00), (1003, 'a', 7.00), (1004, 'a', 9.00);\n"+
		"INSERT INTO p.`default`.orders VALUES (1001, 'a', 90.00), (2001, 'b', 1.00);\n"+
		"USE CATALOG p;\nCALL sys.compact(`table` => 'default.orders');\n", 2*time.Minute); r.code != 0 {
		t.Fatalf("write: exit %d\n%s", r.code, r.all())
	}
	r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+postponeTables+
		"SELECT * FROM p.`default`.orders ORDER BY id;\n", time.Minute)
	if r.code != 0 {
		t.Fatalf("read: exit %d\n%s", r.code, r.all())
	}
	want := "|   id | dt | amount |\n| 1001 |  a |  90.00 |\n| 1002 |  a |   5.00 |\n| 1003 |  a |   7.00 |\n| 1004 |  a |   9.00 |\n| 2001 |  b |   1.00 |\n"
	if got := tableRows(r.stdout); got != want {
		t.Errorf("batch read:\n%s\nwant:\n%s", got, want)
	}
	// Partition a has the two buckets of the first (two-writer) INSERT,
	// b the one bucket of the second; nothing is in bucket-postpone.
	tbl := filepath.Join(e.Dir, "wh", "default.db", "orders")
	var dirs []string
	for _, dt := range []string{"a", "b"} {
		ents, err := os.ReadDir(filepath.Join(tbl, "dt="+dt))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ents {
			dirs = append(dirs, "dt="+dt+"/"+d.Name())
		}
	}
	sort.Strings(dirs)
	if got := strings.Join(dirs, " "); got != "dt=a/bucket-0 dt=a/bucket-1 dt=b/bucket-0" {
		t.Errorf("bucket directories: %s", got)
	}

	s := e.runScript("stream.sql", postponeTables+
		"INSERT INTO p.`default`.orders VALUES (3001, 'c', 1.00), (1002, 'a', 50.00), (3001, 'c', 2.00);\n", 2*time.Minute)
	if s.code != 0 {
		t.Fatalf("streaming INSERT into a postpone bucket table: exit %d\n%s", s.code, s.all())
	}
	pending, _ := filepath.Glob(filepath.Join(tbl, "dt=c", "bucket-postpone", "data--u-*-s-0-w-*.avro"))
	if len(pending) != 1 {
		t.Errorf("bucket-postpone files of dt=c: %v", pending)
	}
	if r := e.runScript("read2.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+postponeTables+
		"SELECT * FROM p.`default`.orders ORDER BY id;\n", time.Minute); tableRows(r.stdout) != want {
		t.Errorf("batch read before compaction (exit %d):\n%s\nwant:\n%s", r.code, r.all(), want)
	}
	if r := e.runScript("compact.sql", "SET 'table.dml-sync' = 'true';\nSET 'execution.runtime-mode' = 'batch';\n"+postponeTables+
		"USE CATALOG p;\nCALL sys.compact(`table` => 'default.orders');\n", 2*time.Minute); r.code != 0 {
		t.Fatalf("compact: exit %d\n%s", r.code, r.all())
	}
	r = e.runScript("read3.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+postponeTables+
		"SELECT * FROM p.`default`.orders ORDER BY id;\n", time.Minute)
	want = "|   id | dt | amount |\n| 1001 |  a |  90.00 |\n| 1002 |  a |  50.00 |\n| 1003 |  a |   7.00 |\n| 1004 |  a |   9.00 |\n| 2001 |  b |   1.00 |\n| 3001 |  c |   2.00 |\n"
	if got := tableRows(r.stdout); got != want {
		t.Errorf("batch read after compaction (exit %d):\n%s\nwant:\n%s", r.code, r.all(), want)
	}
	for _, d := range []string{"dt=a/bucket-2", "dt=c/bucket-0"} {
		_, err := os.Stat(filepath.Join(tbl, d))
		if want := d == "dt=c/bucket-0"; (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", d, err == nil, want)
		}
	}
}
