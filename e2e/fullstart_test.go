package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// fullStartJob is seed 003's sync job, a stateless latest-full read of the
// Paimon orders table (the default scan mode) into MariaDB, with the sink
// option 'sink.orphans-on-full-start' = policy and extra source hints.
func fullStartJob(srv *mariadb.Server, db, policy, hints string) string {
	return "SET 'execution.checkpointing.interval' = '200ms';\n" + paimonTables + fmt.Sprintf(`
CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'jdbc',
    'url' = '%s',
    'table-name' = 'orders_rt',
    'username' = '%s',
    'password' = '%s',
    'sink.orphans-on-full-start' = '%s'
);
INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS('continuous.discovery-interval' = '100ms'%s) */;
`, srv.JDBCURL(db), srv.User, srv.Password, policy, hints)
}

// TestOrphansOnFullStart: seed 003 §十六's orphan rows (MariaDB keeps rows
// the Paimon table no longer has after a stateless latest-full re-sync)
// with sqlrun's opt-in 'sink.orphans-on-full-start'. 'report' lists them
// and changes nothing; 'delete' deletes exactly them before the job starts,
// and the job then follows the table from the snapshot the check read; a
// job restored with --resume is not reconciled; a source that does not
// start with a full read, and an empty source, are refused by name.
func TestOrphansOnFullStart(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (1001, 80.00, 'STALE'), (1004, 1.00, 'GONE'), (1005, 2.00, 'GONE')")
	e := newEnv(t)
	e.paimonSetup("", "(1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED'), (1003, 12.00, 'PAID')")
	table := func() string { return srv.Table(t, db, "orders_rt") }

	// report: the two orphans are listed, nothing is deleted, the job runs.
	p := e.start("-f", e.Write("report.sql", fullStartJob(srv, db, "report", "")))
	p.waitFor("the upserts of the full read", 30*time.Second, func() bool {
		return table() == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n1003, 12.00, PAID\n1004, 1.00, GONE\n1005, 2.00, GONE\n"
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("report job: exit %d\n%s", code, p.output())
	}
	out := p.output()
	for _, want := range []string{
		"[INFO] 'sink.orphans-on-full-start' of default_catalog.default_database.mysql_orders: the job starts from " +
			"default_catalog.default_database.orders at snapshot 1; 2 orphan row(s) found (report only, not deleted) (3 keys in the query, 3 in default_catalog.default_database.mysql_orders).",
		"| 1004 |", "| 1005 |",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("report output lacks %q:\n%s", want, out)
		}
	}

	// delete: the orphans go before the job writes; then it follows.
	job := e.Write("delete.sql", fullStartJob(srv, db, "delete", ""))
	p = e.start("-f", job)
	p.waitFor("the full read without orphans", 30*time.Second, func() bool {
		return table() == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n1003, 12.00, PAID\n"
	})
	if out := p.output(); !strings.Contains(out, "2 orphan row(s) deleted (3 keys in the query, 5 in") {
		t.Fatalf("delete output:\n%s", out)
	}
	e.paimonApply([]string{`{"before":{"id":1002,"amount":35.50,"status":"CREATED"},"after":null,"op":"d"}`,
		`{"before":null,"after":{"id":1006,"amount":6.00,"status":"PAID"},"op":"c"}`})
	p.waitFor("the changes after the pinned snapshot", 30*time.Second, func() bool {
		return table() == "1001, 80.00, CREATED\n1003, 12.00, PAID\n1006, 6.00, PAID\n"
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("delete job: exit %d\n%s", code, p.output())
	}

	// --resume restores the job's checkpoint: no full read, no check. An
	// orphan written meanwhile stays (the restored job never read it).
	srv.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (1007, 7.00, 'OTHER')")
	p = e.start("-f", job, "--resume")
	p.waitLine("nothing to reconcile", 30*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("resumed job: exit %d\n%s", code, p.output())
	}
	if got := table(); got != "1001, 80.00, CREATED\n1003, 12.00, PAID\n1006, 6.00, PAID\n1007, 7.00, OTHER\n" {
		t.Fatalf("after --resume: %s", got)
	}

	// A read that does not start with a full read is refused, naming it.
	r := e.runScript("latest.sql", fullStartJob(srv, db, "delete", ", 'scan.mode' = 'latest'"), time.Minute)
	if r.code == 0 || !strings.Contains(r.all(), "is read with scan mode 'latest', which does not start with a full read") {
		t.Fatalf("scan.mode latest: exit %d\n%s", r.code, r.all())
	}
	assertNoSecret(t, r.all())
	if got := table(); !strings.Contains(got, "1007") {
		t.Fatalf("a refused job changed the table: %s", got)
	}
}
