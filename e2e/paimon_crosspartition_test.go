package e2e

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cross-partition upserts through the binary: a Paimon table whose primary
// key lacks its partition field, created as Flink + Paimon 1.4 create it
// (no 'bucket': dynamic bucket mode, KEY_DYNAMIC by
// KeyValueFileStore.bucketMode). Each writing job bootstraps the key index
// from the table (Paimon's IndexBootstrap), so order 1001 moving from
// dt='a' to dt='b' in a later job is deleted in 'a'
// (DeleteExistingProcessor).

const crossTables = `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE print_orders (id BIGINT, dt STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'print');
`

func crossCreate(producer string) string {
	return crossTables + `CREATE TABLE p.` + "`default`" + `.orders (id BIGINT, dt STRING, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('changelog-producer' = '` + producer + `');
`
}

// TestPaimonCrossPartitionMove: the streaming reader sees Paimon's
// changelog of the move (-D in the old partition, +I in the new one) and a
// batch read shows the order once.
func TestPaimonCrossPartitionMove(t *testing.T) {
	needPaimonCatalog(t)
	for _, producer := range []string{"input", "lookup"} {
		t.Run(producer, func(t *testing.T) {
			e := newEnv(t)
			if r := e.runScript("create.sql", "SET 'table.dml-sync' = 'true';\n"+crossCreate(producer)+
				"INSERT INTO p.`default`.orders VALUES (1001, 'a', 80.00), (1002, 'a', 5.00);\n", time.Minute); r.code != 0 {
				t.Fatalf("create: exit %d\n%s", r.code, r.all())
			}
			job := e.Write("job.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+crossTables+`
INSERT INTO print_orders SELECT * FROM p.`+"`default`"+`.orders /*+ OPTIONS('scan.mode' = 'latest-full',
  'continuous.discovery-interval' = '100ms') */;
`)
			p := e.start("-f", job)
			p.waitLine("+I[1001, a, 80.00]", 30*time.Second)
			p.waitLine("+I[1002, a, 5.00]", 30*time.Second)
			if r := e.runScript("move.sql", "SET 'table.dml-sync' = 'true';\n"+crossTables+
				"INSERT INTO p.`default`.orders VALUES (1001, 'b', 90.00);\n", time.Minute); r.code != 0 {
				t.Fatalf("move: exit %d\n%s", r.code, r.all())
			}
			// input: the DELETE Paimon writes carries the new row's values in
			// the old partition; lookup: the old row found there.
			want := []string{"+I[1001, a, 80.00]", "+I[1002, a, 5.00]", "-D[1001, a, 90.00]", "+I[1001, b, 90.00]"}
			if producer == "lookup" {
				want[2] = "-D[1001, a, 80.00]"
			}
			p.waitFor(fmt.Sprintf("changelog %v", want), 30*time.Second, func() bool {
				return len(crossChangelog(p.output())) >= len(want)
			})
			p.signal(syscall.SIGTERM)
			if code := p.wait(30 * time.Second); code != 0 {
				t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
			}
			got := crossChangelog(p.output())
			// The first snapshot's two rows come in file order.
			if strings.Join(got[2:], "\n") != strings.Join(want[2:], "\n") || len(got) != len(want) {
				t.Errorf("printed changelog:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+crossTables+
				"SELECT * FROM p.`default`.orders ORDER BY id;\n", time.Minute)
			if r.code != 0 {
				t.Fatalf("read: exit %d\n%s", r.code, r.all())
			}
			if got, want := tableRows(r.stdout), "|   id | dt | amount |\n| 1001 |  b |  90.00 |\n| 1002 |  a |   5.00 |\n"; got != want {
				t.Errorf("batch read:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

var crossPrinted = regexp.MustCompile(`(?m)^(?:\d+> )?([+-][IUD]\[.*\])$`)

func crossChangelog(out string) []string {
	var l []string
	for _, m := range crossPrinted.FindAllStringSubmatch(out, -1) {
		l = append(l, m[1])
	}
	return l
}

// TestPaimonCrossPartitionKillResume: a streaming job keeps moving 50 keys
// to later partitions (the partition is the latest id of the key divided
// by 800: a key never returns to a partition it left, so a row left
// behind there stays) and is killed with kill -9 three times and resumed; the
// restored job bootstraps the key index from the table as committed by the
// restored checkpoint. In the end every key is in the table once, in its
// last partition, with its full count: nothing lost, nothing duplicated.
func TestPaimonCrossPartitionKillResume(t *testing.T) {
	needPaimonCatalog(t)
	e := newEnv(t)
	create := `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE p.` + "`default`" + `.tgt (k INT, dt STRING, c BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  PARTITIONED BY (dt) WITH ('dynamic-bucket.target-row-num' = '7');
`
	if r := e.runScript("create.sql", create, time.Minute); r.code != 0 {
		t.Fatalf("create: exit %d\n%s", r.code, r.all())
	}
	script := e.Write("writer.sql", `SET 'execution.checkpointing.interval' = '300ms';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2400');
INSERT INTO p.`+"`default`"+`.tgt SELECT id % 50, CAST(MAX(id) / 800 AS STRING), COUNT(*) FROM gen GROUP BY id % 50;
`)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	p := e.start("-f", script)
	for i := 0; i < 3; i++ {
		d := time.Duration(400+rng.Intn(1200)) * time.Millisecond
		time.Sleep(d)
		p.signal(syscall.SIGKILL)
		if code := p.wait(10 * time.Second); code != -1 {
			t.Fatalf("kill -9 #%d: exit %d\n%s", i+1, code, p.output())
		}
		t.Logf("kill -9 #%d after %s", i+1, d)
		p = e.start("-f", script, "--resume", "--allow-fresh") // the kill may precede the first checkpoint
	}
	if code := p.wait(2 * time.Minute); code != 0 {
		t.Fatalf("writer: exit %d\n%s", code, p.output())
	}
	r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+
		"CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nSELECT * FROM p.`default`.tgt ORDER BY k;\n", time.Minute)
	if r.code != 0 {
		t.Fatalf("read: exit %d\n%s", r.code, r.all())
	}
	var want strings.Builder
	for k := 0; k < 50; k++ {
		last := 2350 + k
		if k == 0 {
			last = 2400
		}
		fmt.Fprintf(&want, "| %d | %d | 48 |\n", k, last/800)
	}
	got := regexp.MustCompile(` +`).ReplaceAllString(tableRows(r.stdout), " ")
	if got != want.String() {
		t.Fatalf("after 3 kill -9 and --resume:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestPaimonDynamicBucketKillResume: issue 15's crash test of index-file
// commits. A streaming job upserts 50 keys into a dynamic-bucket table (no
// 'bucket'; 7 keys per bucket, so 8 buckets and their HASH index files
// committed with the data; with deletion vectors also DELETION_VECTORS
// index files in the compactions' snapshots) and is killed with kill -9
// three times and resumed. In the end every key is there once with its
// full count; then a second job updates every key: each is routed by the
// committed hash index to the bucket that holds it, so the table still
// has 50 rows (a key missing from its bucket's index would get a second
// bucket and show twice).
func TestPaimonDynamicBucketKillResume(t *testing.T) {
	needPaimonCatalog(t)
	for _, c := range [][2]string{{"hash", ""}, {"hash-dv", ", 'deletion-vectors.enabled' = 'true'"}} {
		name, opts := c[0], c[1]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			create := `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE p.` + "`default`" + `.tgt (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('dynamic-bucket.target-row-num' = '7'` + opts + `);
`
			if r := e.runScript("create.sql", create, time.Minute); r.code != 0 {
				t.Fatalf("create: exit %d\n%s", r.code, r.all())
			}
			script := e.Write("writer.sql", `SET 'execution.checkpointing.interval' = '300ms';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2400');
INSERT INTO p.`+"`default`"+`.tgt SELECT id % 50, COUNT(*), SUM(id) FROM gen GROUP BY id % 50;
`)
			rng := rand.New(rand.NewSource(time.Now().UnixNano()))
			p := e.start("-f", script)
			for i := 0; i < 3; i++ {
				d := time.Duration(400+rng.Intn(1200)) * time.Millisecond
				time.Sleep(d)
				p.signal(syscall.SIGKILL)
				if code := p.wait(10 * time.Second); code != -1 {
					t.Fatalf("kill -9 #%d: exit %d\n%s", i+1, code, p.output())
				}
				t.Logf("kill -9 #%d after %s", i+1, d)
				p = e.start("-f", script, "--resume", "--allow-fresh")
			}
			if code := p.wait(2 * time.Minute); code != 0 {
				t.Fatalf("writer: exit %d\n%s", code, p.output())
			}
			read := func() string {
				r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+
					"CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nSELECT k, c FROM p.`default`.tgt ORDER BY k;\n", time.Minute)
				if r.code != 0 {
					t.Fatalf("read: exit %d\n%s", r.code, r.all())
				}
				return regexp.MustCompile(` +`).ReplaceAllString(tableRows(r.stdout), " ")
			}
			want := func(c int) string {
				var b strings.Builder
				for k := 0; k < 50; k++ {
					fmt.Fprintf(&b, "| %d | %d |\n", k, c)
				}
				return b.String()
			}
			if got := read(); got != want(48) {
				t.Fatalf("after 3 kill -9 and --resume:\n%s\nwant:\n%s", got, want(48))
			}
			if r := e.runScript("update.sql", "SET 'table.dml-sync' = 'true';\nSET 'execution.runtime-mode' = 'batch';\n"+
				"CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nINSERT INTO p.`default`.tgt SELECT k, 49, s FROM p.`default`.tgt;\n", time.Minute); r.code != 0 {
				t.Fatalf("update: exit %d\n%s", r.code, r.all())
			}
			if got := read(); got != want(49) {
				t.Fatalf("after updating every key:\n%s\nwant:\n%s", got, want(49))
			}
		})
	}
}
