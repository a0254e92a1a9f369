package e2e

import (
	"fmt"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMySQLSyncMergeShards: 'database-name' as a regular expression over
// several MariaDB databases. The database action merges the tables of one
// name into one Paimon table (JdbcSchemasInfo.mergeShards,
// JdbcSchemaUtils.mergeSchema: the union of the columns, a type widened
// to the widest), drops the databases --excluding_dbs names
// (RichCdcMultiplexRecordEventParser.shouldSynchronizeCurrentDb), names a
// table by --table_mapping (TableNameConverter); a shard's ADD COLUMN
// reaches the merged table; a shard whose column type cannot merge fails
// the action with Paimon's message. The table action merges every table
// it captures (JdbcSchemasInfo.mergeAll).
func TestMySQLSyncMergeShards(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	dbs := []string{srv.NewDatabase(t), srv.NewDatabase(t), srv.NewDatabase(t)}
	sort.Strings(dbs)
	db1, db2, db3 := dbs[0], dbs[1], dbs[2]
	srv.Exec(t, "CREATE TABLE `"+db1+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(16)) ENGINE = InnoDB")
	srv.Exec(t, "CREATE TABLE `"+db2+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32), note VARCHAR(10)) ENGINE = InnoDB")
	srv.Exec(t, "CREATE TABLE `"+db3+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status INT) ENGINE = InnoDB")
	srv.Exec(t, "CREATE TABLE `"+db1+"`.customers (id INT NOT NULL PRIMARY KEY, name VARCHAR(40)) ENGINE = InnoDB")
	for i := 0; i < 120; i++ {
		srv.Exec(t, fmt.Sprintf("INSERT INTO `%s`.orders VALUES (%d, %d.25, 'CREATED')", db1, i, i))
		srv.Exec(t, fmt.Sprintf("INSERT INTO `%s`.orders VALUES (%d, %d.75, 'NEW', 'n%d')", db2, 1000+i, i, i))
	}
	srv.Exec(t, "INSERT INTO `"+db3+"`.orders VALUES (5000, 1.00, 1)")
	srv.Exec(t, "INSERT INTO `"+db1+"`.customers VALUES (1, 'Ada'), (2, 'Grace')")
	e := newEnv(t)
	regex := db1 + "|" + db2 + "|" + db3

	// db3's status INT does not merge with VARCHAR.
	r := e.run(time.Minute, syncDatabaseArgs(e, srv, regex)...)
	wantErr := "Column status have different types when merging schemas.\nCurrent table '[" + db1 + "," + db2 + "].orders' field: `status` VARCHAR(32)\nTo be merged table '" + db3 + ".orders' field: `status` INT"
	if r.code != 1 || !strings.Contains(r.stderr, wantErr) {
		t.Errorf("incompatible shard: exit %d\n%s\nwant %q", r.code, r.all(), wantErr)
	}

	args := syncDatabaseArgs(e, srv, regex, "--excluding-dbs", db3, "--table-mapping", "CUSTOMERS=clients", "--table-conf", "bucket=1")
	merged := "SELECT id, amount, status, NULL FROM `" + db1 + "`.orders UNION ALL SELECT id, amount, status, note FROM `" + db2 + "`.orders ORDER BY id"
	equal := newMirror(t, e, srv, db1).equal
	p := e.start(args...)
	srv.Exec(t, "UPDATE `"+db2+"`.orders SET status = 'SHIPPED TO THE CUSTOMER' WHERE id % 7 = 0")
	srv.Exec(t, "DELETE FROM `"+db1+"`.orders WHERE id % 5 = 0")
	equal(p, "the shards merged", "SELECT id, amount, status, note FROM ods_orders ORDER BY id", merged)
	equal(p, "the mapped table", "SELECT * FROM clients ORDER BY id", "SELECT * FROM `"+db1+"`.customers ORDER BY id")
	out := p.output()
	if s := "[INFO] Created Paimon table default.ods_orders from MySQL table [" + db1 + "," + db2 + "].orders."; !strings.Contains(out, s) {
		t.Errorf("output lacks %q:\n%s", s, out)
	}
	if s := e.paimonSelect("SELECT COUNT(*) FROM ods_orders WHERE id = 5000"); s != "0\n" {
		t.Errorf("the excluded database's row in Paimon: %q", s)
	}
	// A shard gains a column: the merged table follows.
	srv.Exec(t, "ALTER TABLE `"+db1+"`.orders ADD COLUMN prio INT")
	srv.Exec(t, "INSERT INTO `"+db1+"`.orders VALUES (500, 5.00, 'RUSH', 9)")
	srv.Exec(t, "INSERT INTO `"+db2+"`.orders VALUES (1500, 6.00, 'NEW', 'late')")
	srv.Exec(t, "UPDATE `"+db1+"`.customers SET name = 'Ada L.' WHERE id = 1")
	srv.Exec(t, "INSERT INTO `"+db3+"`.orders VALUES (5001, 1.00, 2)")
	merged = "SELECT id, amount, status, NULL, prio FROM `" + db1 + "`.orders UNION ALL SELECT id, amount, status, note, NULL FROM `" + db2 + "`.orders ORDER BY id"
	equal(p, "a shard's ADD COLUMN", "SELECT id, amount, status, note, prio FROM ods_orders ORDER BY id", merged)
	equal(p, "the mapped table's change", "SELECT * FROM clients ORDER BY id", "SELECT * FROM `"+db1+"`.customers ORDER BY id")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}

	// The table action: every captured table into one.
	tbl := e.start(syncArgs(e, srv, db1+"|"+db2, "--table-conf", "bucket=1")...)
	equal(tbl, "the table action's merged table", "SELECT id, amount, status, note, prio FROM orders ORDER BY id", merged)
	if s := "[INFO] Created Paimon table default.orders from MySQL table {" + db1 + ".orders," + db2 + ".orders}."; !strings.Contains(tbl.output(), s) {
		t.Errorf("output lacks %q:\n%s", s, tbl.output())
	}
	tbl.signal(syscall.SIGTERM)
	if code := tbl.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, tbl.output())
	}
	assertNoSecret(t, p.output()+tbl.output())
}
