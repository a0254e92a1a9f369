package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// segmentsSQL upserts customer segments into the Paimon segments table.
func segmentsSQL(e *env, rows []string) string {
	return fmt.Sprintf(`SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s/wh');
CREATE TABLE IF NOT EXISTS p.`+"`default`"+`.segments (cust INT, segment STRING, PRIMARY KEY (cust) NOT ENFORCED)
  WITH ('bucket' = '1', 'changelog-producer' = 'input');
INSERT INTO p.`+"`default`"+`.segments VALUES %s;
`, e.Dir, strings.Join(rows, ", "))
}

// ordersSQL inserts orders ids from..to into the Paimon table, customer
// id % 50 (or cust when it is not negative), amount id.50.
func ordersSQL(e *env, from, to, cust int) string {
	var rows []string
	for id := from; id <= to; id++ {
		c := id % 50
		if cust >= 0 {
			c = cust
		}
		rows = append(rows, fmt.Sprintf("(%d, %d, %d.50)", id, c, id))
	}
	return fmt.Sprintf(`SET 'execution.runtime-mode' = 'batch';
SET 'table.dml-sync' = 'true';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s/wh');
CREATE TABLE IF NOT EXISTS p.`+"`default`"+`.orders (id BIGINT, cust INT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
  WITH ('bucket' = '2', 'changelog-producer' = 'input');
INSERT INTO p.`+"`default`"+`.orders VALUES %s;
`, e.Dir, strings.Join(rows, ", "))
}

// TestLookupJoinKillResume: a streaming job reads a Paimon orders table
// (changelog-producer input) and enriches each order by a lookup join
// (FOR SYSTEM_TIME AS OF its processing time) with a MariaDB customers
// table through the jdbc connector's PARTIAL cache, and by a regular LEFT
// JOIN with a second Paimon table (customer segments, customers 0..29),
// into a MariaDB serving table. Killed with SIGKILL after a checkpoint;
// while it is down, new orders are committed to Paimon, some for a
// customer added to MariaDB meanwhile, and segments for customers 35 and
// 77; resumed with --resume, it ends with MariaDB equal to the LEFT JOINs
// of the orders with the customers (customers 40..49 missing, so their
// orders keep NULL names) and the segments: the orders of customer 35
// written NULL-padded before the kill get the segment from the restored
// join state. No order before the kill names the new customer, so the
// result does not depend on when each row was looked up.
func TestLookupJoinKillResume(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(32)) ENGINE = InnoDB")
	srv.Exec(t, "CREATE TABLE `"+db+"`.enriched (id BIGINT NOT NULL PRIMARY KEY, cust INT, name VARCHAR(32), amount DECIMAL(10, 2), segment VARCHAR(16)) ENGINE = InnoDB")
	var cs []string
	for c := 0; c < 40; c++ {
		cs = append(cs, fmt.Sprintf("(%d, 'customer-%d')", c, c))
	}
	srv.Exec(t, "INSERT INTO `"+db+"`.customers VALUES "+strings.Join(cs, ", "))
	e := newEnv(t)
	e.Vars["$JDBC_URL"], e.Vars["$USER"], e.Vars["$PASSWORD"] = srv.JDBCURL(db), srv.User, srv.Password
	addSecret(srv.Password)
	const n, m = 2000, 300
	if r := e.runScript("load1.sql", ordersSQL(e, 1, n, -1), 2*time.Minute); r.code != 0 {
		t.Fatalf("load orders: %s", r.all())
	}
	var segs []string
	for c := 0; c < 30; c++ {
		segs = append(segs, fmt.Sprintf("(%d, 'seg-%d')", c, c%3))
	}
	if r := e.runScript("segments1.sql", segmentsSQL(e, segs), 2*time.Minute); r.code != 0 {
		t.Fatalf("load segments: %s", r.all())
	}
	job := fmt.Sprintf(`
SET 'execution.checkpointing.interval' = '1s';
CREATE TABLE orders (id BIGINT, cust INT, amount DECIMAL(10, 2), proc_time AS PROCTIME(), PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '%s/wh/default.db/orders', 'continuous.discovery-interval' = '200ms');
CREATE TABLE customers (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '$JDBC_URL', 'table-name' = 'customers',
  'username' = '$USER', 'password' = '$PASSWORD',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100',
  'lookup.partial-cache.expire-after-write' = '1h');
CREATE TABLE segments (cust INT, segment STRING, PRIMARY KEY (cust) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '%s/wh/default.db/segments', 'continuous.discovery-interval' = '200ms');
CREATE TABLE mysql_enriched (id BIGINT, cust INT, name STRING, amount DECIMAL(10, 2), segment STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '$JDBC_URL', 'table-name' = 'enriched',
  'username' = '$USER', 'password' = '$PASSWORD',
  'sink.buffer-flush.max-rows' = '50', 'sink.buffer-flush.interval' = '100ms');
INSERT INTO mysql_enriched
SELECT o.id, o.cust, c.name, o.amount, s.segment
FROM orders AS o
LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.cust = c.id
LEFT JOIN segments AS s ON o.cust = s.cust;
`, e.Dir, e.Dir)
	script := e.Write("job.sql", job)
	const jobName = "insert-into_default_catalog.default_database.mysql_enriched"
	p := e.start("-f", script)
	p.waitFor("a completed checkpoint", time.Minute, func() bool {
		return len(completedCheckpoints(e.checkpointDir(), jobName)) >= 1
	})
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit code %d\n%s", code, p.output())
	}
	t.Logf("killed with %d rows in MariaDB", strings.Count(srv.Table(t, db, "enriched"), "\n"))

	// While the job is down: customer 77 joins MariaDB, and new orders
	// (some for customer 77) are committed to Paimon.
	srv.Exec(t, "INSERT INTO `"+db+"`.customers VALUES (77, 'customer-77')")
	if r := e.runScript("load2.sql", ordersSQL(e, n+1, n+m/2, -1), 2*time.Minute); r.code != 0 {
		t.Fatalf("load more orders: %s", r.all())
	}
	if r := e.runScript("load3.sql", ordersSQL(e, n+m/2+1, n+m, 77), 2*time.Minute); r.code != 0 {
		t.Fatalf("load orders of customer 77: %s", r.all())
	}
	if r := e.runScript("segments2.sql", segmentsSQL(e, []string{"(35, 'seg-x')", "(77, 'seg-y')"}), 2*time.Minute); r.code != 0 {
		t.Fatalf("load more segments: %s", r.all())
	}
	var want strings.Builder
	for id := 1; id <= n+m; id++ {
		c := id % 50
		if id > n+m/2 {
			c = 77
		}
		name := "NULL"
		if c < 40 || c == 77 {
			name = fmt.Sprintf("customer-%d", c)
		}
		seg := "NULL"
		switch {
		case c < 30:
			seg = fmt.Sprintf("seg-%d", c%3)
		case c == 35:
			seg = "seg-x"
		case c == 77:
			seg = "seg-y"
		}
		fmt.Fprintf(&want, "%d, %d, %s, %d.50, %s\n", id, c, name, id, seg)
	}
	p = e.start("-f", script, "--resume")
	p.waitFor("MariaDB to hold the lookup and regular joins of the sources", 2*time.Minute, func() bool {
		return srv.Table(t, db, "enriched") == want.String()
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(time.Minute); code != 0 {
		t.Fatalf("stop after resume: exit %d\n%s", code, p.output())
	}
	if got := srv.Table(t, db, "enriched"); got != want.String() {
		t.Fatalf("after the stop MariaDB changed:\n%s", got)
	}
	assertNoSecretInFiles(t, e, script)
}
