package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMySQLSyncDatabaseCombined: Paimon's mysql_sync_database with --mode
// combined (MultiTablesSinkMode.COMBINED): besides the tables of when the
// job starts, a MySQL table created while the job runs that
// --including-tables matches and --excluding-tables does not gets a
// Paimon table (RichCdcMultiplexRecordEventParser, NewTableSchemaBuilder)
// and is synchronized: rows written right after its CREATE TABLE, while
// the job adds it, then its binlog; an ADD COLUMN of it is followed. An
// excluded table, a table --including-tables does not match and one
// without a primary key get none. Then a table is created and written
// just before a SIGKILL and another while the action is down: after
// --resume every Paimon table equals its MariaDB table row by row.
// --multiple-table-partition-keys partitions a table the running job
// creates (NewTableSchemaBuilder), not one created when the action starts
// (on --resume: beforeBuildingSourceSink, whose key would not fit the
// primary key here).
func TestMySQLSyncDatabaseCombined(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	e := newEnv(t)
	m := newMirror(t, e, srv, src)
	exec := m.exec
	const ddl = " (id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT, sku VARCHAR(16)) ENGINE = InnoDB"
	// rows writes n rows to table in transactions of 25, ids from first.
	rows := func(table string, first, n int) {
		t.Helper()
		for i := first; i < first+n; i += 25 {
			var vals []string
			for j := i; j < min(i+25, first+n); j++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, 'SKU%d')", j, 1000+j%50, j%13))
			}
			exec("INSERT INTO " + table + " VALUES " + strings.Join(vals, ", "))
		}
	}
	exec("CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB",
		"INSERT INTO orders VALUES (1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED'), (1003, 12.00, 'CREATED')")
	args := syncDatabaseArgs(e, srv, src, "--mode", "combined", "--including-tables", "orders|items.*",
		"--excluding-tables", "items_tmp", "--table-conf", "bucket=1",
		"--multiple-table-partition-keys", "items_p=region", "--multiple_table_partition_keys", "items_3 = order_id")
	const jobName = "MySQL-Paimon_Database_Sync__default"
	tables := []string{"orders"}
	equal := func(p *proc, what string) {
		t.Helper()
		for _, n := range tables {
			m.equal(p, what+": Paimon ods_"+n+" equals MariaDB "+n,
				"SELECT * FROM ods_"+n+" ORDER BY id", "SELECT * FROM `"+src+"`."+n+" ORDER BY id")
		}
	}
	absent := func(names ...string) {
		t.Helper()
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(e.Dir, "wh", "default.db", "ods_"+n)); !os.IsNotExist(err) {
				t.Errorf("Paimon table ods_%s exists (%v): it should not be synchronized", n, err)
			}
		}
	}
	p := e.start(args...)
	equal(p, "snapshot")

	// Created while the job runs, and written at once: the job adds the
	// table while the rows arrive.
	exec("CREATE TABLE items" + ddl)
	rows("items", 1, 200)
	exec("UPDATE items SET sku = 'X' WHERE id % 3 = 0", "DELETE FROM items WHERE id % 7 = 0",
		"UPDATE orders SET status = 'PAID' WHERE id = 1001",
		"CREATE TABLE items_tmp"+ddl, "INSERT INTO items_tmp VALUES (1, 1, 'tmp')",
		"CREATE TABLE other"+ddl, "INSERT INTO other VALUES (1, 1, 'other')",
		"CREATE TABLE items_log (at BIGINT, what VARCHAR(20)) ENGINE = InnoDB", "INSERT INTO items_log VALUES (1, 'no key')")
	rows("items", 201, 50)
	exec("CREATE TABLE items_p (id BIGINT NOT NULL, region CHAR(2) NOT NULL, sku VARCHAR(16), PRIMARY KEY (id, region)) ENGINE = InnoDB",
		"INSERT INTO items_p VALUES (1, 'EU', 'a'), (2, 'US', 'b'), (3, 'EU', 'c')", "UPDATE items_p SET sku = 'd' WHERE id = 2")
	tables = append(tables, "items", "items_p")
	equal(p, "a table created while running")
	if out := p.output(); !strings.Contains(out, "[INFO] Created Paimon table default.ods_items from MySQL table "+src+".items.") {
		t.Errorf("the action did not say it created ods_items:\n%s", out)
	}
	absent("items_tmp", "other", "items_log")
	if got := partitionKeys(t, filepath.Join(e.Dir, "wh", "default.db", "ods_items_p")); got != "[region]" {
		t.Errorf("ods_items_p partition keys %s, want [region]", got)
	}

	// The new table's schema changes are followed as the others'.
	exec("ALTER TABLE items ADD COLUMN qty INT", "INSERT INTO items VALUES (5000, 1001, 'NEW', 3)",
		"UPDATE items SET qty = 1 WHERE id = 1", "UPDATE orders SET status = 'SHIPPED' WHERE id = 1002")
	equal(p, "ADD COLUMN of the new table")

	// SIGKILL after a checkpoint, a table created and written just before
	// it and another while the action is down, then --resume.
	seen := latestCheckpoint(e.checkpointDir(), jobName)
	exec("UPDATE items SET sku = 'Y' WHERE id % 5 = 0")
	p.waitFor("a new completed checkpoint", 2*time.Minute, func() bool {
		return latestCheckpoint(e.checkpointDir(), jobName) > seen
	})
	exec("CREATE TABLE items_2" + ddl)
	rows("items_2", 1, 60)
	exec("UPDATE orders SET amount = amount + 1")
	p.signal(syscall.SIGKILL)
	if code := p.wait(10 * time.Second); code != -1 {
		t.Fatalf("kill -9: exit %d\n%s", code, p.output())
	}
	rows("items_2", 61, 40)
	exec("CREATE TABLE items_3"+ddl, "DELETE FROM items WHERE id < 20", "UPDATE items_2 SET sku = 'Z' WHERE id % 4 = 0")
	rows("items_3", 1, 80)
	p = e.start(append(args, "--resume")...)
	tables = append(tables, "items_2", "items_3")
	equal(p, "--resume")
	if got := partitionKeys(t, filepath.Join(e.Dir, "wh", "default.db", "ods_items_3")); got != "[]" {
		t.Errorf("ods_items_3 partition keys %s, want [] (created when the action started)", got)
	}

	// And one more after the resume, altered right after its creation:
	// the ALTER lands while the job adds the table (before its source
	// reads the columns, or in its binlog).
	exec("CREATE TABLE items_4" + ddl)
	rows("items_4", 1, 30)
	exec("ALTER TABLE items_4 ADD COLUMN qty INT", "INSERT INTO items_4 VALUES (100, 1, 'Q', 7)",
		"UPDATE items_4 SET qty = id WHERE id < 5")
	exec("UPDATE items_3 SET order_id = 0 WHERE id < 10", "DELETE FROM items_2 WHERE id > 90")
	tables = append(tables, "items_4")
	equal(p, "a table created after --resume")
	absent("items_tmp", "other", "items_log")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
	assertNoSecret(t, p.output())
}

// partitionKeys are the partition keys of the Paimon table at dir, as
// its first schema has them.
func partitionKeys(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		PartitionKeys []string `json:"partitionKeys"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(s.PartitionKeys)
}
