package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// syncArgs is `sqlrun action mysql-sync-table` of the MariaDB table
// db.orders into the Paimon table default.orders of $DIR/wh.
func syncArgs(e *env, srv *mariadb.Server, db string, extra ...string) []string {
	return append([]string{"action", "mysql-sync-table",
		"--warehouse", filepath.Join(e.Dir, "wh"), "--database", "default", "--table", "orders",
		"--mysql-conf", "hostname=" + srv.Host, "--mysql-conf", fmt.Sprint("port=", srv.Port),
		"--mysql-conf", "username=" + srv.User, "--mysql-conf", "password=" + srv.Password,
		"--mysql-conf", "database-name=" + db, "--mysql-conf", "table-name=orders",
		"-D", "execution.checkpointing.interval=200ms"}, extra...)
}

// paimonSelect reads a query over the Paimon warehouse in batch mode, one
// line per row ("1001, 80.00, CREATED").
func (e *env) paimonSelect(query string) string {
	e.T.Helper()
	r := e.runScript("select.sql", "SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'execution.runtime-mode' = 'batch';\n"+
		"CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '$DIR/wh');\nUSE CATALOG p;\n"+query+";\n", time.Minute)
	if r.code != 0 {
		return "error: " + r.all()
	}
	var b strings.Builder
	lines := strings.Split(tableRows(r.stdout), "\n")
	for i, l := range lines {
		l = strings.Trim(strings.TrimSpace(l), "|")
		if l == "" || i == 0 {
			continue // the header
		}
		f := strings.Split(l, "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		b.WriteString(strings.Join(f, ", ") + "\n")
	}
	return b.String()
}

// schemaFile is schema-N of the Paimon table default.orders.
func (e *env) schemaFile(n int) string {
	b, err := os.ReadFile(filepath.Join(e.Dir, "wh", "default.db", "orders", "schema", fmt.Sprint("schema-", n)))
	if err != nil {
		e.T.Fatal(err)
	}
	return string(b)
}

// TestMySQLSyncTableAction is seed 000's first hop as Paimon runs it:
// Paimon's MySQL CDC action (MySqlSyncTableAction) creates the Paimon table
// from the MariaDB table's schema and synchronizes it, an UPDATE arriving
// as -D[before] and +I[after] (MySqlRecordParser), which is why producer
// 'input' shows -D/+I in a streaming read of the table. An ALTER TABLE ...
// ADD COLUMN mid-stream appears in the Paimon table's schema and rows
// (UpdatedDataFieldsProcessFunction), as does a VARCHAR widened, while a
// narrowed type keeps Paimon's; then SIGTERM stops the action with a
// savepoint and --resume continues it.
func TestMySQLSyncTableAction(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32) COMMENT 'order status') ENGINE = InnoDB COMMENT 'the orders'")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED')")
	e := newEnv(t)
	action := e.start(syncArgs(e, srv, src, "--table-conf", "bucket=1", "--table-conf", "changelog-producer=input")...)
	action.waitFor("the snapshot in Paimon", time.Minute, func() bool {
		return e.paimonSelect("SELECT * FROM orders ORDER BY id") == "1001, 80.00, CREATED\n1002, 35.50, CREATED\n"
	})
	if got := e.schemaFile(0); !strings.Contains(got, `"fields" : [ {
    "id" : 0,
    "name" : "id",
    "type" : "BIGINT NOT NULL"
  }, {
    "id" : 1,
    "name" : "amount",
    "type" : "DECIMAL(10, 2)"
  }, {
    "id" : 2,
    "name" : "status",
    "type" : "VARCHAR(32)",
    "description" : "order status"
  } ]`) || !strings.Contains(got, `"primaryKeys" : [ "id" ]`) || !strings.Contains(got, `"changelog-producer" : "input"`) ||
		!strings.Contains(got, `"comment" : "the orders"`) {
		t.Errorf("Paimon schema 0:\n%s", got)
	}
	// A streaming read of the input producer's changelog.
	printer := e.start("-f", e.Write("print.sql", "SET 'execution.checkpointing.interval' = '200ms';\n"+paimonTables+
		"INSERT INTO print_orders SELECT id, amount, status FROM orders /*+ OPTIONS('scan.mode' = 'latest-full', 'continuous.discovery-interval' = '100ms') */;\n"))
	want := []string{"+I[1001, 80.00, CREATED]", "+I[1002, 35.50, CREATED]"}
	waitPrinted := func() {
		t.Helper()
		printer.waitFor(fmt.Sprintf("changelog %v", want), time.Minute, func() bool {
			return len(changelogOf(printer.output())) >= len(want)
		})
	}
	waitPrinted()
	for _, step := range []struct {
		stmt  string
		lines []string
	}{
		{"UPDATE orders SET amount = 100.00 WHERE id = 1001", []string{"-D[1001, 80.00, CREATED]", "+I[1001, 100.00, CREATED]"}},
		{"UPDATE orders SET status = 'PAID' WHERE id = 1001", []string{"-D[1001, 100.00, CREATED]", "+I[1001, 100.00, PAID]"}},
		{"DELETE FROM orders WHERE id = 1002", []string{"-D[1002, 35.50, CREATED]"}},
	} {
		srv.Exec(t, "USE `"+src+"`")
		srv.Exec(t, step.stmt)
		want = append(want, step.lines...)
		waitPrinted()
	}
	if got := changelogOf(printer.output()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changelog of producer input:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	printer.signal(syscall.SIGTERM)
	printer.wait(30 * time.Second)

	// ADD COLUMN mid-stream: the Paimon table gains the column, old rows
	// read it as NULL, new rows carry it.
	srv.Exec(t, "ALTER TABLE `"+src+"`.orders ADD COLUMN note VARCHAR(20) COMMENT 'a note'")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1003, 12.00, 'CREATED', 'gift')")
	srv.Exec(t, "UPDATE `"+src+"`.orders SET note = 'rush' WHERE id = 1001")
	wantRows := "1001, 100.00, PAID, rush\n1003, 12.00, CREATED, gift\n"
	var got string
	action.waitFor("the added column in Paimon", time.Minute, func() bool {
		got = e.paimonSelect("SELECT * FROM orders ORDER BY id")
		return got == wantRows
	})
	if !strings.Contains(action.output(), "[INFO] Paimon table default.orders follows the schema of MySQL table "+src+".orders: added column note VARCHAR(20).") {
		t.Errorf("the action did not say it added the column:\n%s", action.output())
	}
	if got := e.schemaFile(1); !strings.Contains(got, `{
    "id" : 3,
    "name" : "note",
    "type" : "VARCHAR(20)",
    "description" : "a note"
  } ]`) {
		t.Errorf("Paimon schema 1:\n%s", got)
	}
	// Type widening in the same family (VARCHAR(32) to VARCHAR(64)) is
	// followed; a narrower type (BIGINT to INT) keeps Paimon's type.
	srv.Exec(t, "ALTER TABLE `"+src+"`.orders MODIFY status VARCHAR(64) COMMENT 'order status'")
	srv.Exec(t, "UPDATE `"+src+"`.orders SET status = 'PAID AND PACKED IN THE WAREHOUSE, WAITING FOR PICKUP' WHERE id = 1003")
	srv.Exec(t, "ALTER TABLE `"+src+"`.orders MODIFY id INT NOT NULL")
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES (1004, 5.00, 'CREATED', NULL)")
	// (tableau cuts long strings: the long status is checked by length)
	action.waitFor("the widened column in Paimon", time.Minute, func() bool {
		got = e.paimonSelect("SELECT id, amount, CHAR_LENGTH(status), note FROM orders ORDER BY id")
		return got == "1001, 100.00, 4, rush\n1003, 12.00, 52, gift\n1004, 5.00, 7, <NULL>\n"
	})
	if !strings.Contains(action.output(), "follows the schema of MySQL table "+src+".orders: column status is now VARCHAR(64).") {
		t.Errorf("the action did not say it widened the column:\n%s", action.output())
	}
	if got := e.schemaFile(2); !strings.Contains(got, `"name" : "status",
    "type" : "VARCHAR(64)"`) || !strings.Contains(got, `"name" : "id",
    "type" : "BIGINT NOT NULL"`) {
		t.Errorf("Paimon schema 2:\n%s", got)
	}
	action.signal(syscall.SIGTERM)
	if code := action.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, action.output())
	}
	// While the action is down, more changes; --resume continues from the
	// savepoint.
	srv.Exec(t, "UPDATE `"+src+"`.orders SET status = 'SHIPPED' WHERE id = 1001")
	resumed := e.start(syncArgs(e, srv, src, "--table-conf", "bucket=1", "--table-conf", "changelog-producer=input", "--resume")...)
	resumed.waitFor("the change made while down", time.Minute, func() bool {
		got = e.paimonSelect("SELECT id, amount, status, note FROM orders WHERE id = 1001")
		return got == "1001, 100.00, SHIPPED, rush\n"
	})
	resumed.signal(syscall.SIGTERM)
	if code := resumed.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, resumed.output())
	}
	assertNoSecret(t, action.output()+resumed.output())
}

// TestMySQLSyncTableRefusals: what Paimon's action refuses, with its
// messages: a MySQL table without a primary key
// (MySqlSyncTableAction.validateMySqlTableInfos), an existing Paimon table
// whose schema the MySQL table's does not fit
// (CdcActionCommonUtils.assertSchemaCompatible), a missing mysql_conf key,
// an unknown --type-mapping.
func TestMySQLSyncTableRefusals(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT, amount DECIMAL(10, 2)) ENGINE = InnoDB")
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{syncArgs(e, srv, src), 1, "Source tables of MySQL table synchronization job cannot contain table which doesn't have primary keys.\nThey are: " + src + ".orders"},
		{syncArgs(e, srv, src, "--type-mapping", "to-bytes"), 2, "Unsupported type mapping option: to-bytes"},
		{[]string{"action", "mysql-sync-table", "--warehouse", "wh", "--database", "d", "--table", "t", "--mysql-conf", "hostname=h"}, 1, "mysql_conf [username] must be specified."},
		{[]string{"action", "mysql-sync-table", "--database", "d"}, 2, "--warehouse is required"},
	} {
		r := e.run(time.Minute, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: exit %d\n%s\nwant exit %d and %q", c.args[2:], r.code, r.all(), c.code, c.msg)
		}
		assertNoSecret(t, r.all())
	}
	srv.Exec(t, "ALTER TABLE `"+src+"`.orders ADD PRIMARY KEY (id)")
	if r := e.runScript("create.sql", paimonCreate(""), time.Minute); r.code != 0 {
		t.Fatalf("create: %s", r.all())
	}
	srv.Exec(t, "ALTER TABLE `"+src+"`.orders ADD COLUMN extra INT")
	r := e.run(time.Minute, syncArgs(e, srv, src)...)
	want := "Paimon schema and source table schema are not compatible.\nPaimon fields are: [`id` BIGINT NOT NULL, `amount` DECIMAL(10, 2), `status` STRING].\nSource table fields are: [`id` BIGINT NOT NULL, `amount` DECIMAL(10, 2), `extra` INT]"
	if r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("incompatible table: exit %d\n%s\nwant %q", r.code, r.all(), want)
	}
}
