package e2e

import (
	"math/rand"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPaimonToPaimonKillResume: issue 6's crash test. A streaming copy job
// (Paimon src → Paimon tgt, latest-full with a consumer-id) is killed with
// kill -9 at random points while a writer job keeps updating src, then
// restarted with --resume each time (the writer is killed and resumed
// once too); in the end src holds the writer's exact result and tgt equals
// src.
func TestPaimonToPaimonKillResume(t *testing.T) {
	needPaimon(t)
	e := newEnv(t)
	create := `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE p.` + "`default`" + `.src (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('bucket' = '2', 'changelog-producer' = 'input', 'consumer.expiration-time' = '1 d');
CREATE TABLE p.` + "`default`" + `.tgt (k INT, c BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('bucket' = '2');
`
	if r := e.runScript("create.sql", create, time.Minute); r.code != 0 {
		t.Fatalf("create: exit %d\n%s", r.code, r.all())
	}
	tables := `
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');
CREATE TABLE src WITH ('connector' = 'paimon', 'path' = '$DIR/wh/default.db/src') LIKE p.` + "`default`" + `.src;
CREATE TABLE tgt WITH ('connector' = 'paimon', 'path' = '$DIR/wh/default.db/tgt') LIKE p.` + "`default`" + `.tgt;
`
	writerScript := e.Write("writer.sql", "SET 'execution.checkpointing.interval' = '300ms';\n"+tables+`
CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2400');
-- id % 50 is an INT (Flink's MOD type), the key type of src.
INSERT INTO src SELECT id % 50, COUNT(*), SUM(id) FROM gen GROUP BY id % 50;
`)
	writer := e.start("-f", writerScript)
	copyJob := e.Write("copy.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+tables+`
INSERT INTO tgt SELECT * FROM src /*+ OPTIONS('scan.mode' = 'latest-full', 'consumer-id' = 'copy',
  'continuous.discovery-interval' = '100ms') */;
`)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	p := e.start("-f", copyJob)
	for i := 0; i < 3; i++ {
		d := time.Duration(300+rng.Intn(1200)) * time.Millisecond
		time.Sleep(d)
		p.signal(syscall.SIGKILL)
		if code := p.wait(10 * time.Second); code != -1 {
			t.Fatalf("kill -9 #%d: exit %d\n%s", i+1, code, p.output())
		}
		t.Logf("kill -9 #%d after %s", i+1, d)
		p = e.start("-f", copyJob, "--resume", "--allow-fresh") // the kill may precede the first checkpoint
		if i == 1 {
			// The writer too: its Paimon commits must be exactly-once.
			writer.signal(syscall.SIGKILL)
			t.Logf("kill -9 of the writer: exit %d", writer.wait(10*time.Second))
			writer = e.start("-f", writerScript, "--resume", "--allow-fresh")
		}
	}
	if code := writer.wait(time.Minute); code != 0 {
		t.Fatalf("writer: exit %d\n%s", code, writer.output())
	}
	snapshot := func() (string, string) {
		r := e.runScript("compare.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+tables+`
SELECT * FROM src ORDER BY k;
SELECT * FROM tgt ORDER BY k;
`, time.Minute)
		if r.code != 0 {
			t.Fatalf("compare: exit %d\n%s", r.code, r.all())
		}
		parts := strings.Split(r.stdout, "SELECT * FROM tgt")
		if len(parts) != 2 {
			t.Fatalf("compare output:\n%s", r.stdout)
		}
		src := parts[0][strings.Index(parts[0], "SELECT * FROM src"):]
		return tableRows(src), tableRows(parts[1])
	}
	var src, tgt string
	deadline := time.Now().Add(40 * time.Second)
	for {
		src, tgt = snapshot()
		if src == tgt || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if rows := strings.Split(strings.TrimSpace(src), "\n"); len(rows) != 50 || strings.Count(src, "| 48 |") != 50 {
		t.Errorf("src should hold 50 keys with count 48 each (ids 1..2400):\n%s", src)
	}
	if src != tgt {
		t.Fatalf("after 3 kill -9 and --resume, tgt differs from src:\nsrc:\n%s\ntgt:\n%s\ncopy job output:\n%s", src, tgt, p.output())
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("copy job SIGTERM: exit %d", code)
	}
}

// tableRows keeps the data rows of a tableau/batch table print.
func tableRows(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "|") && !strings.Contains(l, " k |") {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
