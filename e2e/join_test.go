package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// joinJob enriches a datagen order stream (ids 1..n, customer id % 50)
// with a Paimon customers table (ids 0..39: ten customers are missing) by
// a LEFT JOIN into MariaDB keyed by order id. The Paimon source follows
// the table after its snapshot, so the job runs until it is stopped.
func joinJob(e *env, n, rate int) string {
	return fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '1500ms';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s/wh');
CREATE TABLE gen (id BIGINT) WITH (
  'connector' = 'datagen', 'rows-per-second' = '%d',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');
CREATE TABLE mysql_enriched (id BIGINT, cust BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '$JDBC_URL', 'table-name' = 'enriched',
  'username' = '$USER', 'password' = '$PASSWORD',
  'sink.buffer-flush.max-rows' = '50', 'sink.buffer-flush.interval' = '100ms');
INSERT INTO mysql_enriched
SELECT o.id, c.cid, c.name
FROM (SELECT id, MOD(id, 50) AS cust FROM gen) AS o
LEFT JOIN p.`+"`default`"+`.customers AS c ON o.cust = c.cid;
`, e.Dir, rate, n)
}

// expectedJoin is the join's final result, as mariadb.Server.Table prints it.
func expectedJoin(n int) string {
	var b strings.Builder
	for id := 1; id <= n; id++ {
		if c := id % 50; c < 40 {
			fmt.Fprintf(&b, "%d, %d, customer-%d\n", id, c, c)
		} else {
			fmt.Fprintf(&b, "%d, NULL, NULL\n", id)
		}
	}
	return b.String()
}

// TestJoinKillResume: a streaming LEFT JOIN (regular join state on both
// sides, null-padded rows retracted when their customer arrives) from
// datagen and a Paimon table into MariaDB is killed with SIGKILL after a
// checkpoint and resumed with --resume: MariaDB ends equal to the join of
// the sources, as an uninterrupted run would leave it.
func TestJoinKillResume(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.enriched (id BIGINT NOT NULL PRIMARY KEY, cust BIGINT, name VARCHAR(32)) ENGINE = InnoDB")
	e := newEnv(t)
	e.Vars["$JDBC_URL"], e.Vars["$USER"], e.Vars["$PASSWORD"] = srv.JDBCURL(db), srv.User, srv.Password
	addSecret(srv.Password)
	var rows []string
	for c := 0; c < 40; c++ {
		rows = append(rows, fmt.Sprintf("(%d, 'customer-%d')", c, c))
	}
	load := fmt.Sprintf(`SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s/wh');
CREATE TABLE p.`+"`default`"+`.customers (cid BIGINT, name STRING, PRIMARY KEY (cid) NOT ENFORCED) WITH ('bucket' = '2');
INSERT INTO p.`+"`default`"+`.customers VALUES %s;
`, e.Dir, strings.Join(rows, ", "))
	if r := e.runScript("load.sql", load, 2*time.Minute); r.code != 0 {
		t.Fatalf("load customers: %s", r.all())
	}
	const n = 3000
	script := e.Write("job.sql", joinJob(e, n, 150))
	const job = "insert-into_default_catalog.default_database.mysql_enriched"
	p := e.start("-f", script)
	p.waitFor("a completed checkpoint", time.Minute, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), job)) >= 1
	})
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit code %d\n%s", code, p.output())
	}
	want := expectedJoin(n)
	killed := srv.Table(t, db, "enriched")
	if killed == want {
		t.Fatal("the job wrote everything before the kill; slow the source")
	}
	t.Logf("killed with %d rows in MariaDB", strings.Count(killed, "\n"))

	p = e.start("-f", script, "--resume")
	p.waitFor("MariaDB to hold the join of the sources", 2*time.Minute, func() bool {
		return srv.Table(t, db, "enriched") == want
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("stop after resume: exit %d\n%s", code, p.output())
	}
	if got := srv.Table(t, db, "enriched"); got != want {
		t.Fatalf("after the stop MariaDB changed:\n%s", got)
	}
	assertNoSecretInFiles(t, e, script)
}
