package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMySQLSyncDatabasePrefixByDatabase: mysql_sync_database's
// --table_prefix_db / --table_suffix_db (SyncDatabaseActionBase.withDbPrefix,
// TableNameConverter.convert): the Paimon table of a MySQL table takes its
// database's prefix and suffix over --table_prefix / --table_suffix (the
// database named in any case), --table_mapping over both; two MySQL tables
// of one name in databases of different prefixes go to two Paimon tables
// instead of one merged. The names hold for the tables of when the action
// starts and for a table created while the combined-mode job runs.
// --eager_init true is accepted, and refused with 'tag.automatic-creation'
// (StoreMultiCommitter's eager committers then force empty snapshots).
func TestMySQLSyncDatabasePrefixByDatabase(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	dbs := []string{srv.NewDatabase(t), srv.NewDatabase(t)}
	sort.Strings(dbs)
	db1, db2 := dbs[0], dbs[1]
	const ddl = " (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(16)) ENGINE = InnoDB"
	for _, q := range []string{
		"CREATE TABLE `" + db1 + "`.orders" + ddl, "CREATE TABLE `" + db2 + "`.orders" + ddl,
		"CREATE TABLE `" + db1 + "`.customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40)) ENGINE = InnoDB",
		"CREATE TABLE `" + db2 + "`.customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40)) ENGINE = InnoDB",
		"INSERT INTO `" + db1 + "`.orders VALUES (1, 1.00, 'A'), (2, 2.00, 'A')",
		"INSERT INTO `" + db2 + "`.orders VALUES (2, 20.00, 'B'), (3, 30.00, 'B')",
		"INSERT INTO `" + db1 + "`.customers VALUES (1, 'Ada')", "INSERT INTO `" + db2 + "`.customers VALUES (2, 'Grace')",
	} {
		srv.Exec(t, q)
	}
	e := newEnv(t)
	m := newMirror(t, e, srv, db1)
	// syncDatabaseArgs names the tables ods_<table>: db1's take the
	// prefix p1_ and the suffix _s, db2's the prefix ods_ and the suffix
	// _b; customers of db2 is mapped.
	args := syncDatabaseArgs(e, srv, db1+"|"+db2, "--mode", "combined", "--table-suffix", "_s",
		"--table-prefix-db", strings.ToUpper(db1)+"=p1_", "--table_suffix_db", db2+" = _b",
		"--table-mapping", "customers=clients", "--table-conf", "bucket=1")

	r := e.run(time.Minute, append(args, "--eager-init", "true", "--table-conf", "tag.automatic-creation=process-time")...)
	want := "--eager_init true with Paimon table default.*'s 'tag.automatic-creation' = 'process-time'"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("--eager-init true with tag.automatic-creation: exit %d\n%s\nwant %q", r.code, r.all(), want)
	}
	// The refused run created the Paimon tables with 'tag.automatic-creation'
	// = 'process-time', which sqlrun's sink refuses to write: start afresh.
	if err := os.RemoveAll(filepath.Join(e.Dir, "wh")); err != nil {
		t.Fatal(err)
	}

	p := e.start(append(args, "--eager-init", "true")...)
	tables := [][2]string{{"p1_orders_s", db1 + "`.`orders"}, {"ods_orders_b", db2 + "`.`orders"}}
	equal := func(what string) {
		t.Helper()
		for _, tb := range tables {
			m.equal(p, what+": Paimon "+tb[0]+" equals MariaDB "+tb[1], "SELECT * FROM "+tb[0]+" ORDER BY id", "SELECT * FROM `"+tb[1]+"` ORDER BY id")
		}
	}
	equal("snapshot")
	// A mapped name is one Paimon table for both databases' customers.
	m.equal(p, "the mapped table", "SELECT * FROM clients ORDER BY id",
		"SELECT * FROM `"+db1+"`.customers UNION ALL SELECT * FROM `"+db2+"`.customers ORDER BY id")
	srv.Exec(t, "UPDATE `"+db1+"`.orders SET status = 'PAID' WHERE id = 1")
	srv.Exec(t, "DELETE FROM `"+db2+"`.orders WHERE id = 3")
	srv.Exec(t, "CREATE TABLE `"+db2+"`.items"+ddl)
	srv.Exec(t, "INSERT INTO `"+db2+"`.items VALUES (7, 7.00, 'NEW')")
	tables = append(tables, [2]string{"ods_items_b", db2 + "`.`items"})
	equal("binlog and a table created while running")
	for _, n := range []string{"ods_orders_s", "p1_orders_b", "ods_orders", "orders", "ods_items_s", "p1_items_b"} {
		if _, err := os.Stat(filepath.Join(e.Dir, "wh", "default.db", n)); !os.IsNotExist(err) {
			t.Errorf("Paimon table %s exists (%v)", n, err)
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output())
}

// TestMySQLSyncDatabaseCombinedOtherDatabase: with --mode combined, a
// table created in a database 'database-name' matches but --including_dbs
// does not is no table of the job
// (RichCdcMultiplexRecordEventParser.shouldSynchronizeCurrentDb), nor is
// a new table without a primary key (NewTableSchemaBuilder): the job goes
// on without stopping for them (one run of the job, one "Job ID"), and gets
// no Paimon table for them; a table created in an included database is
// added (the job's second run).
func TestMySQLSyncDatabaseCombinedOtherDatabase(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	dbs := []string{srv.NewDatabase(t), srv.NewDatabase(t)}
	sort.Strings(dbs)
	in, out := dbs[0], dbs[1]
	srv.Exec(t, "CREATE TABLE `"+in+"`.orders (id BIGINT NOT NULL PRIMARY KEY, status VARCHAR(16)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+in+"`.orders VALUES (1, 'A')")
	e := newEnv(t)
	m := newMirror(t, e, srv, in)
	p := e.start(syncDatabaseArgs(e, srv, in+"|"+out, "--mode", "combined", "--including-dbs", in, "--table-conf", "bucket=1")...)
	m.equal(p, "snapshot", "SELECT * FROM ods_orders ORDER BY id", "SELECT * FROM `"+in+"`.orders ORDER BY id")
	srv.Exec(t, "CREATE TABLE `"+out+"`.other (id BIGINT NOT NULL PRIMARY KEY) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+out+"`.other VALUES (1)")
	// Nor is a table without a primary key (NewTableSchemaBuilder).
	srv.Exec(t, "CREATE TABLE `"+in+"`.events (at BIGINT, what VARCHAR(8)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+in+"`.events VALUES (1, 'no key')")
	srv.Exec(t, "UPDATE `"+in+"`.orders SET status = 'B' WHERE id = 1")
	// The UPDATE comes after the CREATE TABLE in the binlog: once it is
	// in Paimon, a job that stopped at the CREATE has run again.
	m.equal(p, "the binlog past another database's CREATE TABLE", "SELECT * FROM ods_orders ORDER BY id", "SELECT * FROM `"+in+"`.orders ORDER BY id")
	if n := strings.Count(p.output(), "Job ID:"); n != 1 {
		t.Errorf("the job ran %d times, want once (a table of a database --including-dbs does not match or without a primary key stopped it):\n%s", n, p.output())
	}
	srv.Exec(t, "CREATE TABLE `"+in+"`.items (id BIGINT NOT NULL PRIMARY KEY, sku VARCHAR(8)) ENGINE = InnoDB")
	srv.Exec(t, "INSERT INTO `"+in+"`.items VALUES (1, 'X')")
	m.equal(p, "a table of the included database", "SELECT * FROM ods_items ORDER BY id", "SELECT * FROM `"+in+"`.items ORDER BY id")
	if n := strings.Count(p.output(), "Job ID:"); n != 2 {
		t.Errorf("the job ran %d times, want twice:\n%s", n, p.output())
	}
	for _, n := range []string{"ods_other", "ods_events"} {
		if _, err := os.Stat(filepath.Join(e.Dir, "wh", "default.db", n)); !os.IsNotExist(err) {
			t.Errorf("Paimon table %s exists (%v)", n, err)
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output())
}
