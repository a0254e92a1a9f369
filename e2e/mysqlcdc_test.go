package e2e

import (
	"database/sql"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// cdcSource declares the MariaDB table db.orders as a 'mysql-cdc' source
// (Flink CDC 3.x's options) named mysql_orders.
func cdcSource(srv *mariadb.Server, db, extra string) string {
	return fmt.Sprintf(`
CREATE TABLE mysql_orders (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'mysql-cdc',
    'hostname' = '%s',
    'port' = '%d',
    'username' = '%s',
    'password' = '%s',
    'database-name' = '%s',
    'table-name' = 'orders'%s
);
`, srv.Host, srv.Port, srv.User, srv.Password, db, extra)
}

// paimonRows reads the Paimon table orders in batch mode, one line per row
// as mariadb.Server.Table prints them ("1001, 80.00, CREATED").
func (e *env) paimonRows() string {
	e.T.Helper()
	r := e.runScript("read.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+
		"CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nSELECT * FROM p.`default`.orders ORDER BY id;\n", time.Minute)
	if r.code != 0 {
		e.T.Fatalf("read Paimon orders: exit %d\n%s", r.code, r.all())
	}
	var b strings.Builder
	for _, l := range strings.Split(tableRows(r.stdout), "\n") {
		l = strings.Trim(strings.TrimSpace(l), "|")
		if l == "" || strings.Contains(l, " id ") {
			continue
		}
		f := strings.Split(l, "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		b.WriteString(strings.Join(f, ", ") + "\n")
	}
	return b.String()
}

// TestMySQLCDCSeedPipeline is seed 000's whole pipeline on one machine, per
// changelog producer: the order 1001 walk as real INSERT / UPDATE / DELETE
// statements on MariaDB → sqlrun mysql-cdc → Paimon orders → a print job
// and a JDBC sink into a second MariaDB database. mysql-cdc emits an UPDATE
// as -U/+U (Flink CDC's MySqlTableSource; Paimon's MySqlRecordParser of the
// CDC action would give -D/+I), so every producer prints -U/+U, and the
// served table ends equal to the source table.
func TestMySQLCDCSeedPipeline(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	for _, producer := range []string{"none", "input", "lookup", "full-compaction"} {
		t.Run(producer, func(t *testing.T) {
			t.Parallel()
			opts := ", 'changelog-producer' = '" + producer + "'"
			if producer == "full-compaction" {
				opts += ", 'full-compaction.delta-commits' = '1'"
			}
			cdcPipeline(t, srv, opts)
		})
	}
}

func cdcPipeline(t *testing.T, srv *mariadb.Server, opts string) {
	src, serve := srv.NewDatabase(t), srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB")
	srv.Exec(t, "CREATE TABLE `"+serve+"`.orders_rt (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED')")
	e := newEnv(t)
	if r := e.runScript("create.sql", paimonCreate(opts), time.Minute); r.code != 0 {
		t.Fatalf("create: %s", r.all())
	}
	cdc := e.start("-f", e.Write("cdc.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+cdcSource(srv, src, "")+
		"INSERT INTO orders SELECT * FROM mysql_orders;\n"))
	serveJob := e.Write("serve.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+fmt.Sprintf(`
CREATE TABLE mysql_orders_rt (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '%s', 'table-name' = 'orders_rt', 'username' = '%s', 'password' = '%s',
      'sink.buffer-flush.interval' = '100ms');
EXECUTE STATEMENT SET BEGIN
INSERT INTO print_orders SELECT id, amount, status FROM orders /*+ OPTIONS('scan.mode' = 'latest-full',
  'consumer-id' = 'print-v1', 'continuous.discovery-interval' = '100ms') */;
INSERT INTO mysql_orders_rt SELECT id, amount, status FROM orders /*+ OPTIONS('scan.mode' = 'latest-full',
  'consumer-id' = 'serve-v1', 'continuous.discovery-interval' = '100ms') */;
END;
`, srv.JDBCURL(serve), srv.User, srv.Password))
	// The serving job starts once the snapshot is in Paimon, so the print
	// sink's first lines are the snapshot.
	p := func() *proc {
		deadline := time.Now().Add(time.Minute)
		for e.paimonRows() != "1001, 80.00, CREATED\n1002, 35.50, CREATED\n" {
			if time.Now().After(deadline) || cdc.exited() {
				t.Fatalf("the snapshot never reached Paimon: %q\n%s", e.paimonRows(), cdc.output())
			}
			time.Sleep(100 * time.Millisecond)
		}
		return e.start("-f", serveJob)
	}()
	want := []string{"+I[1001, 80.00, CREATED]", "+I[1002, 35.50, CREATED]"}
	waitPrinted := func() {
		t.Helper()
		p.waitFor(fmt.Sprintf("changelog %v", want), time.Minute, func() bool {
			return len(changelogOf(p.output())) >= len(want)
		})
	}
	waitPrinted()
	// The walk, one statement (one transaction, one binlog event) at a
	// time, each waited for in the print sink's output.
	for _, step := range []struct {
		stmt  string
		lines []string
	}{
		{"UPDATE orders SET amount = 100.00 WHERE id = 1001", []string{"-U[1001, 80.00, CREATED]", "+U[1001, 100.00, CREATED]"}},
		{"UPDATE orders SET status = 'PAID' WHERE id = 1001", []string{"-U[1001, 100.00, CREATED]", "+U[1001, 100.00, PAID]"}},
		{"INSERT INTO orders VALUES (1003, 12.00, 'CREATED')", []string{"+I[1003, 12.00, CREATED]"}},
		{"DELETE FROM orders WHERE id = 1002", []string{"-D[1002, 35.50, CREATED]"}},
		{"UPDATE orders SET status = 'SHIPPED' WHERE id = 1001", []string{"-U[1001, 100.00, PAID]", "+U[1001, 100.00, SHIPPED]"}},
	} {
		srv.Exec(t, "USE `"+src+"`")
		srv.Exec(t, step.stmt)
		want = append(want, step.lines...)
		waitPrinted()
	}
	srcTable := srv.Table(t, src, "orders")
	p.waitFor("the served table to equal the source table", time.Minute, func() bool {
		return srv.Table(t, serve, "orders_rt") == srcTable
	})
	if got := changelogOf(p.output()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("printed changelog:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := e.paimonRows(); got != srcTable {
		t.Errorf("Paimon orders:\n%s\nMariaDB orders:\n%s", got, srcTable)
	}
	for _, q := range []*proc{p, cdc} {
		q.signal(syscall.SIGTERM)
		if code := q.wait(30 * time.Second); code != 0 {
			t.Errorf("SIGTERM: exit %d\n%s", code, q.output())
		}
	}
	assertNoSecret(t, cdc.output()+p.output())
}

// latestCheckpoint is the highest completed checkpoint's number (older ones
// are removed as newer ones complete), or 0.
func latestCheckpoint(dir, job string) int {
	n := 0
	for _, m := range completedCheckpoints(dir, job) {
		var c int
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(m)), "chk-%d", &c); err == nil && c > n {
			n = c
		}
	}
	return n
}

// TestMySQLCDCKillResume: a mysql-cdc → Paimon job is killed with kill -9
// while random INSERT / UPDATE / DELETE statements run on MariaDB (during
// the chunked snapshot and in the binlog phase), and resumed with --resume
// from its last checkpoint, several times. The Paimon table (a primary-key
// table: an upsert by key) ends equal to the MariaDB table row by row.
// Resuming is exact here (the checkpoint holds the binlog position and the
// rows of the transaction in progress already emitted), and the Paimon
// sink commits each checkpoint once, so the table is right even without the
// upsert's deduplication.
func TestMySQLCDCKillResume(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB")
	var vals []string
	for i := 1; i <= 3000; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d.00, 'CREATED')", i*2, i%97))
	}
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES "+strings.Join(vals, ", "))
	e := newEnv(t)
	if r := e.runScript("create.sql", paimonCreate(", 'changelog-producer' = 'input'"), time.Minute); r.code != 0 {
		t.Fatalf("create: %s", r.all())
	}
	job := e.Write("cdc.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+
		cdcSource(srv, src, ",\n    'scan.incremental.snapshot.chunk.size' = '100'")+
		"INSERT INTO orders SELECT * FROM mysql_orders;\n")
	const jobName = "insert-into_default_catalog.default_database.orders"

	h := srv.DB(t, src)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	next := 10000
	dml := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			var q string
			switch k := rng.Intn(10); {
			case k < 3:
				next++
				q = fmt.Sprintf("INSERT INTO orders VALUES (%d, 1.00, 'NEW')", next)
			case k < 8:
				q = fmt.Sprintf("UPDATE orders SET amount = amount + 1, status = 'U%d' WHERE id %% 50 = %d", i, rng.Intn(50))
			default:
				q = fmt.Sprintf("DELETE FROM orders WHERE id = %d", 2*(1+rng.Intn(3000)))
			}
			if _, err := h.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	// A transaction of many rows, so that kills land inside one.
	bigTx := func(tx *sql.Tx) {
		for i := 0; i < 200; i++ {
			next++
			if _, err := tx.Exec(fmt.Sprintf("INSERT INTO orders VALUES (%d, 2.00, 'TX')", next)); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := e.start("-f", job)
	kills := 0
	for round := 0; round < 4; round++ {
		seen := latestCheckpoint(e.checkpointDir(), jobName)
		done := make(chan struct{})
		go func() {
			defer close(done)
			tx, err := h.Begin()
			if err != nil {
				t.Error(err)
				return
			}
			bigTx(tx)
			if err := tx.Commit(); err != nil {
				t.Error(err)
			}
		}()
		dml(60)
		<-done
		p.waitFor("a new completed checkpoint", time.Minute, func() bool {
			return latestCheckpoint(e.checkpointDir(), jobName) > seen
		})
		p.signal(syscall.SIGKILL)
		if code := p.wait(10 * time.Second); code != -1 {
			t.Fatalf("kill -9: exit %d\n%s", code, p.output())
		}
		kills++
		dml(40) // while the job is down
		p = e.start("-f", job, "--resume")
	}
	dml(50)
	want := srv.Table(t, src, "orders")
	var got string
	p.waitFor("Paimon orders to equal MariaDB orders", 2*time.Minute, func() bool {
		got = e.paimonRows()
		return got == want
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	t.Logf("%d kill -9 and --resume, %d rows", kills, strings.Count(want, "\n"))
	assertNoSecret(t, p.output())
}
