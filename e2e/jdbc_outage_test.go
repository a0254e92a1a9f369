package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// These tests stop MariaDB under seed 003's job (Paimon orders → MySQL
// orders_rt), so each starts a server of its own: the shared one serves
// tests running in parallel.

// outageJob is seed 003's job as examples/paimon_to_mysql.sql writes it,
// with the checkpoint setting and sink options given.
func outageJob(e *env, srv *mariadb.Server, db, head, sinkOpts string) string {
	return e.Write("job.sql", head+paimonTables+fmt.Sprintf(`
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
    'password' = '%s'%s
);
INSERT INTO mysql_orders
SELECT id, amount, status
FROM orders /*+ OPTIONS(
    'scan.mode' = 'latest-full',
    'consumer-id' = 'mysql-orders-v1',
    'continuous.discovery-interval' = '100ms'
) */;
`, srv.JDBCURL(db), srv.User, srv.Password, sinkOpts))
}

func outageSetup(t *testing.T) (*env, *mariadb.Server, string) {
	needPaimon(t)
	needMariaDB(t) // skips like the other JDBC tests when MariaDB cannot run
	if testing.Short() {
		t.Skip("stops a MariaDB server")
	}
	srv := mariadb.Start(t)
	addSecret(srv.Password)
	db := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB")
	e := newEnv(t)
	e.paimonSetup("", "(1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED')")
	return e, srv, db
}

const seedSinkOpts = `,
    'sink.buffer-flush.max-rows' = '100',
    'sink.buffer-flush.interval' = '1s',
    'sink.max-retries' = '3'`

// TestJDBCOutageWithoutCheckpointFails is issue 23's first finding: seed
// 003's job as written (no checkpointing, the interval timer is the only
// flush) with MySQL stopped while one row changes in Paimon. The timer's
// flush fails after sink.max-retries; that must fail the job by itself —
// no further row or checkpoint will come to ask — and the process must
// exit non-zero naming the table and the rows not written. Before the fix
// it ran on with "out 0 rows/s", never exited, and SIGTERM then exited 0.
func TestJDBCOutageWithoutCheckpointFails(t *testing.T) {
	e, srv, db := outageSetup(t)
	job := outageJob(e, srv, db, "", seedSinkOpts)
	p := e.start("-f", job)
	p.waitFor("the snapshot in MariaDB", 30*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n"
	})
	srv.Stop(t)
	e.paimonApply([]string{"SQL:INSERT INTO orders VALUES (1003, 12.00, 'PAID')"})
	// Retries take 0 + 1 + 2 s plus refused connects: the job must end by
	// itself well within this.
	code := p.wait(90 * time.Second)
	out := p.output()
	if code == 0 {
		t.Fatalf("the job lost a row and exited 0:\n%s", out)
	}
	for _, want := range []string{
		"JDBC UPSERT on table 'orders_rt' failed after 4 attempt(s) (sink.max-retries=3), 1 buffered row(s) not written",
		"job failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	srv.Resume(t)
	// The consumer never recorded progress past what was delivered: a
	// new run with the same consumer-id delivers the row.
	p = e.start("-f", job)
	p.waitFor("the row after the outage", 30*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n1003, 12.00, PAID\n"
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM after the outage: exit %d\n%s", code, p.output())
	}
}

// TestJDBCOutageWithinRetriesReconnects: the same job with a retry budget
// (sink.max-retries = 10: sleeps 0, 1, ... 9 s) longer than the outage.
// The server is restarted while the row waits in the writer; the old
// session is dead, so the flush must re-establish the connection
// (JdbcOutputFormat.flush → isConnectionValid → updateExecutor(true)), and
// the row arrives without a failure.
func TestJDBCOutageWithinRetriesReconnects(t *testing.T) {
	e, srv, db := outageSetup(t)
	port := freeTCPPort(t)
	job := outageJob(e, srv, db, fmt.Sprintf("SET 'metrics.reporter.prom.port' = '%d';\n", port),
		strings.Replace(seedSinkOpts, "'3'", "'10'", 1))
	p := e.start("-f", job)
	p.waitFor("the snapshot in MariaDB", 30*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n"
	})
	srv.Stop(t)
	e.paimonApply([]string{"SQL:INSERT INTO orders VALUES (1003, 12.00, 'PAID')"})
	p.waitFor("the row in the sink's buffer", 30*time.Second, func() bool { return sinkRecordsIn(port) >= 3 })
	srv.Resume(t)
	p.waitFor("the row after the restart", 60*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n1003, 12.00, PAID\n"
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}
}

// TestJDBCStopWhileDownIsNotClean is issue 25's sixth finding: SIGTERM
// while MySQL is down and a row waits in the sink's buffer (interval
// timer off, so only the stop's final flush can write it). The stop cannot
// flush, so there is no savepoint to resume from that covers the row: the
// process must not print "stopped" and exit 0, but exit non-zero saying
// which sink did not deliver how many rows.
func TestJDBCStopWhileDownIsNotClean(t *testing.T) {
	e, srv, db := outageSetup(t)
	port := freeTCPPort(t)
	job := outageJob(e, srv, db, fmt.Sprintf("SET 'metrics.reporter.prom.port' = '%d';\nSET 'execution.checkpointing.interval' = '10min';\n", port), `,
    'sink.buffer-flush.max-rows' = '2',
    'sink.buffer-flush.interval' = '0',
    'sink.max-retries' = '1'`)
	p := e.start("-f", job)
	p.waitFor("the snapshot in MariaDB", 30*time.Second, func() bool {
		return srv.Table(t, db, "orders_rt") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n"
	})
	srv.Stop(t)
	e.paimonApply([]string{"SQL:INSERT INTO orders VALUES (1003, 12.00, 'PAID')"})
	p.waitFor("the row in the sink's buffer", 30*time.Second, func() bool { return sinkRecordsIn(port) >= 3 })
	p.signal(syscall.SIGTERM)
	code := p.wait(60 * time.Second)
	out := p.output()
	if code == 0 || strings.Contains(out, "stopped with savepoint") || strings.Contains(out, ") stopped.") {
		t.Fatalf("a stop that could not flush was reported clean (exit %d):\n%s", code, out)
	}
	for _, want := range []string{
		"did not stop cleanly",
		"JDBC UPSERT on table 'orders_rt' failed after 2 attempt(s) (sink.max-retries=1), 1 buffered row(s) not written",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	srv.Resume(t)
}

// sinkRecordsIn reads the JDBC sink's numRecordsIn from the Prometheus
// endpoint (-1 when it does not answer yet).
func sinkRecordsIn(port int) int {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "flink_taskmanager_job_task_operator_numRecordsIn{") && strings.Contains(l, `operator_name="Sink: `) {
			n, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
			if err == nil {
				return int(n)
			}
		}
	}
	return -1
}
