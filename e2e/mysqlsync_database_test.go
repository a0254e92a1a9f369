package e2e

import (
	"context"
	gosql "database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// syncDatabaseArgs is `sqlrun action mysql-sync-database` of the MariaDB
// database db into the Paimon database default of $DIR/wh, with the
// Paimon tables named ods_<table>.
func syncDatabaseArgs(e *env, srv *mariadb.Server, db string, extra ...string) []string {
	return append([]string{"action", "mysql-sync-database",
		"--warehouse", filepath.Join(e.Dir, "wh"), "--database", "default", "--table-prefix", "ods_",
		"--mysql-conf", "hostname=" + srv.Host, "--mysql-conf", fmt.Sprint("port=", srv.Port),
		"--mysql-conf", "username=" + srv.User, "--mysql-conf", "password=" + srv.Password,
		"--mysql-conf", "database-name=" + db, "--mysql-conf", "scan.incremental.snapshot.chunk.size=50",
		"-D", "execution.checkpointing.interval=200ms"}, extra...)
}

// mysqlRows is a MariaDB query's rows as paimonSelect prints them.
func mysqlRows(t *testing.T, srv *mariadb.Server, query string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range srv.Query(t, query) {
		for i := range r {
			if r[i] == "NULL" {
				r[i] = "<NULL>"
			}
		}
		b.WriteString(strings.Join(r, ", ") + "\n")
	}
	return b.String()
}

// mirror compares Paimon tables a sync action writes with their MariaDB
// tables (of database db, whose statements exec runs); on failure the
// test logs the last two results compared.
type mirror struct {
	t         *testing.T
	e         *env
	srv       *mariadb.Server
	h         *gosql.DB
	got, want string
}

func newMirror(t *testing.T, e *env, srv *mariadb.Server, db string) *mirror {
	m := &mirror{t: t, e: e, srv: srv, h: srv.DB(t, db)}
	t.Cleanup(func() {
		if t.Failed() && m.got != m.want {
			t.Logf("last compared: got\n%s\nwant\n%s", m.got, m.want)
		}
	})
	return m
}

// exec runs statements in order, failing the test at the first error.
func (m *mirror) exec(qs ...string) {
	m.t.Helper()
	for _, q := range qs {
		if _, err := m.h.Exec(q); err != nil {
			m.t.Fatalf("%s: %v", q, err)
		}
	}
}

// equal waits (2 minutes at most, failing the test) until the Paimon
// query prints what the MariaDB query does.
func (m *mirror) equal(p *proc, what, paimon, mysql string) {
	m.t.Helper()
	p.waitFor(what, 2*time.Minute, func() bool {
		m.want = mysqlRows(m.t, m.srv, mysql)
		m.got = m.e.paimonSelect(paimon)
		return m.got == m.want
	})
}

// TestMySQLSyncDatabaseAction is Paimon's mysql_sync_database
// (MySqlSyncDatabaseAction) on MariaDB: one Paimon table per MySQL table
// with a primary key, named with --table-prefix, a table excluded by
// --excluding-tables and a table without a primary key not synchronized
// (logNonPkTables); INSERT / UPDATE / DELETE on every table during and
// after the snapshot; an ALTER TABLE ... ADD COLUMN of one table
// mid-stream, which that table's Paimon table follows; then SIGKILL, more
// changes while down, and --resume: each Paimon table equals its MariaDB
// table row by row.
func TestMySQLSyncDatabaseAction(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	e := newEnv(t)
	m := newMirror(t, e, srv, src)
	exec := m.exec
	exec("CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB",
		"CREATE TABLE items (order_id BIGINT NOT NULL, line INT NOT NULL, sku VARCHAR(16), qty INT, PRIMARY KEY (order_id, line)) ENGINE = InnoDB",
		"CREATE TABLE customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40)) ENGINE = InnoDB",
		"CREATE TABLE tmp_audit (id INT NOT NULL PRIMARY KEY, what VARCHAR(40)) ENGINE = InnoDB",
		"CREATE TABLE events (at BIGINT, what VARCHAR(40)) ENGINE = InnoDB")
	for i := 0; i < 300; i++ {
		exec(fmt.Sprintf("INSERT INTO orders VALUES (%d, %d.50, 'CREATED')", 1000+i, i%50),
			fmt.Sprintf("INSERT INTO items VALUES (%d, 1, 'SKU%d', %d), (%d, 2, 'SKU%d', 1)", 1000+i, i%7, i%5+1, 1000+i, i%11))
	}
	exec("INSERT INTO customers VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')",
		"INSERT INTO tmp_audit VALUES (1, 'boot')", "INSERT INTO events VALUES (1, 'boot')")
	args := syncDatabaseArgs(e, srv, src, "--excluding-tables", "tmp_.*", "--table-conf", "bucket=1")
	const jobName = "MySQL-Paimon_Database_Sync__default"
	queries := map[string][2]string{
		"orders":    {"SELECT * FROM ods_orders ORDER BY id", "SELECT * FROM `" + src + "`.orders ORDER BY id"},
		"items":     {"SELECT * FROM ods_items ORDER BY order_id, line", "SELECT * FROM `" + src + "`.items ORDER BY order_id, line"},
		"customers": {"SELECT * FROM ods_customers ORDER BY id", "SELECT * FROM `" + src + "`.customers ORDER BY id"},
	}
	equal := func(p *proc, what string) {
		t.Helper()
		for _, name := range []string{"customers", "items", "orders"} {
			q := queries[name]
			m.equal(p, what+": Paimon ods_"+name+" equals MariaDB "+name, q[0], q[1])
		}
	}
	p := e.start(args...)
	// Changes while the snapshot is read (50-row chunks).
	exec("UPDATE orders SET status = 'PAID' WHERE id % 3 = 0", "DELETE FROM items WHERE order_id % 10 = 0 AND line = 2",
		"UPDATE customers SET name = 'Ada L.' WHERE id = 1", "INSERT INTO orders VALUES (2000, 9.99, 'NEW')")
	equal(p, "snapshot")
	out := p.output()
	for _, s := range []string{
		"[INFO] Didn't find primary keys for tables '" + src + ".events'. These tables won't be synchronized.",
		"[INFO] Created Paimon table default.ods_orders from MySQL table " + src + ".orders.",
		"[INFO] Created Paimon table default.ods_items from MySQL table " + src + ".items.",
		"[INFO] Created Paimon table default.ods_customers from MySQL table " + src + ".customers.",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	for _, n := range []string{"ods_tmp_audit", "ods_events"} {
		if _, err := os.Stat(filepath.Join(e.Dir, "wh", "default.db", n)); !os.IsNotExist(err) {
			t.Errorf("Paimon table %s exists (%v): it should not be synchronized", n, err)
		}
	}
	// The binlog phase: every table changes, then one table gains a column.
	exec("UPDATE orders SET amount = amount + 1 WHERE id BETWEEN 1100 AND 1150",
		"DELETE FROM orders WHERE id = 1005", "INSERT INTO customers VALUES (4, 'Barbara')",
		"UPDATE items SET qty = qty * 10 WHERE order_id = 1001", "INSERT INTO tmp_audit VALUES (2, 'ignored')")
	equal(p, "binlog")
	exec("ALTER TABLE items ADD COLUMN note VARCHAR(20)",
		"INSERT INTO items VALUES (3000, 1, 'SKU1', 2, 'gift')",
		"UPDATE items SET note = 'rush' WHERE order_id = 1002",
		"UPDATE orders SET status = 'SHIPPED' WHERE id = 1002")
	equal(p, "ADD COLUMN")
	if !strings.Contains(p.output(), "[INFO] Paimon table default.ods_items follows the schema of MySQL table "+src+".items: added column note VARCHAR(20).") {
		t.Errorf("the action did not say it added the column:\n%s", p.output())
	}
	// SIGKILL after a checkpoint, changes while down, --resume.
	seen := latestCheckpoint(e.checkpointDir(), jobName)
	exec("UPDATE orders SET status = 'LATE' WHERE id % 7 = 0", "DELETE FROM items WHERE order_id BETWEEN 1200 AND 1210")
	p.waitFor("a new completed checkpoint", 2*time.Minute, func() bool {
		return latestCheckpoint(e.checkpointDir(), jobName) > seen
	})
	exec("UPDATE customers SET name = 'Grace H.' WHERE id = 2", "INSERT INTO orders VALUES (2001, 1.00, 'NEW')")
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit %d\n%s", code, p.output())
	}
	exec("DELETE FROM customers WHERE id = 3", "UPDATE items SET note = 'down' WHERE order_id = 1003",
		"INSERT INTO orders VALUES (2002, 2.00, 'NEW')")
	p = e.start(append(args, "--resume")...)
	equal(p, "--resume")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output())
}

// TestMySQLSyncMetadataColumns: --metadata-column of Paimon's CDC actions
// (CdcMetadataProcessor's MySQL converters): table_name and database_name
// as STRING NOT NULL, op_ts as TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL,
// the binlog event's time (0 for rows of the snapshot, OpTsConverter's
// doc), appended after the table's columns; with the table action
// (--metadata-column-prefix) and the database action.
func TestMySQLSyncMetadataColumns(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1001, 80.00, 'CREATED')")
	e := newEnv(t)
	table := e.start(syncArgs(e, srv, src, "--metadata-column", "table_name,database_name,op_ts", "--metadata-column-prefix", "src_")...)
	table.waitFor("the snapshot", time.Minute, func() bool {
		return e.paimonSelect("SELECT id FROM orders") == "1001\n"
	})
	before := time.Now().Add(-time.Second).UTC().Truncate(time.Second)
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1002, 5.00, 'NEW')")
	// op_ts printed in UTC: an instant.
	q := "SET 'table.local-time-zone' = 'UTC';\nSELECT id, src_table_name, src_database_name, src_op_ts FROM orders ORDER BY id"
	var got string
	table.waitFor("the binlog row", time.Minute, func() bool {
		got = e.paimonSelect(q)
		return strings.Count(got, "\n") == 2
	})
	lines := strings.Split(got, "\n")
	if want := "1001, orders, " + src + ", 1970-01-01 00:00:00.000"; lines[0] != want {
		t.Errorf("snapshot row: %q, want %q", lines[0], want)
	}
	f := strings.Split(lines[1], ", ")
	at, err := time.Parse("2006-01-02 15:04:05.000", f[len(f)-1])
	if strings.Join(f[:3], ", ") != "1002, orders, "+src || err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("binlog row: %q (%v), want op_ts between %s and now", lines[1], err, before)
	}
	if s := e.schemaFile(0); !strings.Contains(s, `"name" : "src_table_name",
    "type" : "STRING NOT NULL"`) || !strings.Contains(s, `"name" : "src_op_ts",
    "type" : "TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL"`) {
		t.Errorf("Paimon schema 0:\n%s", s)
	}
	table.signal(syscall.SIGTERM)
	if code := table.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, table.output())
	}
	db := e.start(syncDatabaseArgs(e, srv, src, "--metadata-column", "table_name")...)
	db.waitFor("the database action's table", time.Minute, func() bool {
		return e.paimonSelect("SELECT id, table_name FROM ods_orders ORDER BY id") == "1001, orders\n1002, orders\n"
	})
	db.signal(syscall.SIGTERM)
	if code := db.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, db.output())
	}
	r := e.run(time.Minute, syncArgs(e, srv, src, "--metadata-column", "row_kind")...)
	if r.code != 2 || !strings.Contains(r.stderr, `--metadata_column "row_kind": MySQL's metadata columns are database_name, table_name and op_ts`) {
		t.Errorf("unknown metadata column: exit %d\n%s", r.code, r.all())
	}
	assertNoSecret(t, table.output()+db.output())
}

// TestMySQLSyncDatabaseStopsTogether: the sources of the database
// action's job end their input together at an ALTER TABLE, whatever
// phase each is in. Table c is locked (LOCK TABLES ... WRITE), so its
// source cannot read its first snapshot chunk; the ALTER of table a comes
// once a's source reads the binlog (its replication connection, of a user
// of this test's own, is in the process list), then writes to c, then the
// lock ends. Before, c's source read its snapshot after the ALTER,
// started its binlog past it and never ended, so the job never stopped
// for the ALTER and a's Paimon table silently stopped following a. Now
// every Paimon table equals its MariaDB table, a's with the added column,
// within a bounded wait.
func TestMySQLSyncDatabaseStopsTogether(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	e := newEnv(t)
	m := newMirror(t, e, srv, src)
	user, password := "u_"+src, "Pw-"+src
	addSecret(password)
	for _, host := range []string{"127.0.0.1", "localhost", "%"} {
		srv.Exec(t, fmt.Sprintf("CREATE USER '%s'@'%s' IDENTIFIED BY '%s'", user, host, password))
		srv.Exec(t, fmt.Sprintf("GRANT ALL ON *.* TO '%s'@'%s'", user, host))
	}
	m.exec("CREATE TABLE a (id INT NOT NULL PRIMARY KEY, v VARCHAR(20)) ENGINE = InnoDB",
		"CREATE TABLE c (id INT NOT NULL PRIMARY KEY, v VARCHAR(20)) ENGINE = InnoDB",
		"INSERT INTO a VALUES (1, 'a1'), (2, 'a2')")
	var vals []string
	for k := 0; k < 180; k++ {
		vals = append(vals, fmt.Sprintf("(%d, 'v%d')", k, k))
	}
	m.exec("INSERT INTO c VALUES " + strings.Join(vals, ", "))
	ctx := context.Background()
	lock, err := m.h.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, "LOCK TABLES c WRITE"); err != nil {
		t.Fatal(err)
	}
	args := syncDatabaseArgs(e, srv, src, "--table-conf", "bucket=1")
	for i, a := range args {
		switch a {
		case "username=" + srv.User:
			args[i] = "username=" + user
		case "password=" + srv.Password:
			args[i] = "password=" + password
		}
	}
	p := e.start(args...)
	p.waitFor("a's source reading the binlog", 2*time.Minute, func() bool {
		return len(srv.Query(t, "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Binlog Dump'", user)) > 0
	})
	m.exec("ALTER TABLE a ADD COLUMN note VARCHAR(20)",
		"INSERT INTO a VALUES (3, 'a3', 'new')", "UPDATE a SET note = 'x' WHERE id = 1")
	for _, q := range []string{"UPDATE c SET v = 'locked' WHERE id % 3 = 0", "INSERT INTO c VALUES (5000, 'new')", "UNLOCK TABLES"} {
		if _, err := lock.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	m.equal(p, "a after its ALTER", "SELECT * FROM ods_a ORDER BY id", "SELECT * FROM `"+src+"`.a ORDER BY id")
	m.exec("UPDATE c SET v = 'later' WHERE id % 5 = 0", "INSERT INTO a VALUES (4, 'a4', 'later')", "DELETE FROM c WHERE id % 7 = 0")
	for _, n := range []string{"a", "c"} {
		m.equal(p, "Paimon ods_"+n+" equals MariaDB "+n, "SELECT * FROM ods_"+n+" ORDER BY id", "SELECT * FROM `"+src+"`."+n+" ORDER BY id")
	}
	if !strings.Contains(p.output(), "[INFO] Paimon table default.ods_a follows the schema of MySQL table "+src+".a: added column note VARCHAR(20).") {
		t.Errorf("the action did not say it added the column:\n%s", p.output())
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output())
}
