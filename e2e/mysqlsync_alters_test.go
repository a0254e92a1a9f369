package e2e

import (
	"syscall"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
)

// TestMySQLSyncAltersInBetween: rows written between two ALTER TABLEs the
// action has not read yet. Paimon's action reads each row change with the
// table's schema as of its place in the binlog (Debezium's schema history,
// the TableMapEvent's columns), and the Paimon table follows the schema
// changes as they arrive (UpdatedDataFieldsProcessFunction): a row
// written before a column was added reads it as NULL. Both actions, while
// running (the ALTERs and the rows between them back to back) and while
// down (SIGTERM, then ALTERs that add columns FIRST and AFTER, drop one
// and widen one, with rows between each, then --resume).
func TestMySQLSyncAltersInBetween(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	t.Run("table", func(t *testing.T) {
		src := srv.NewDatabase(t)
		e := newEnv(t)
		altersInBetween(t, e, srv, src, "orders", func(extra ...string) []string {
			return syncArgs(e, srv, src, append([]string{"--table-conf", "bucket=1"}, extra...)...)
		})
	})
	t.Run("database", func(t *testing.T) {
		src := srv.NewDatabase(t)
		e := newEnv(t)
		altersInBetween(t, e, srv, src, "ods_orders", func(extra ...string) []string {
			return syncDatabaseArgs(e, srv, src, append([]string{"--table-conf", "bucket=1"}, extra...)...)
		})
	})
}

func altersInBetween(t *testing.T, e *env, srv *mariadb.Server, src, paimonTable string, args func(extra ...string) []string) {
	m := newMirror(t, e, srv, src)
	exec := m.exec
	exec("CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = InnoDB",
		"INSERT INTO orders VALUES (1001, 80.00, 'CREATED'), (1002, 35.50, 'CREATED')")
	equal := func(p *proc, what, cols string) {
		t.Helper()
		m.equal(p, what+": Paimon "+paimonTable+" equals MariaDB orders",
			"SELECT "+cols+" FROM "+paimonTable+" ORDER BY id", "SELECT "+cols+" FROM `"+src+"`.orders ORDER BY id")
	}
	p := e.start(args()...)
	equal(p, "snapshot", "id, amount, status")
	// Running: the second ALTER is on the server before the action has
	// evolved the Paimon table for the first.
	exec("ALTER TABLE orders ADD COLUMN note VARCHAR(20)",
		"INSERT INTO orders VALUES (1003, 12.00, 'CREATED', 'gift')",
		"UPDATE orders SET note = 'rush' WHERE id = 1001",
		"ALTER TABLE orders ADD COLUMN prio INT AFTER id",
		"INSERT INTO orders VALUES (1004, 7, 5.00, 'CREATED', NULL)",
		"UPDATE orders SET prio = 1, note = 'late' WHERE id = 1003")
	equal(p, "two ALTERs while running", "id, prio, amount, status, note")
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("SIGTERM: exit %d\n%s", code, p.output())
	}
	// Down: every row change below is read after all the ALTERs ran.
	exec("UPDATE orders SET status = 'PAID' WHERE id = 1002",
		"ALTER TABLE orders ADD COLUMN region CHAR(2) NOT NULL DEFAULT 'EU' FIRST",
		"INSERT INTO orders VALUES ('US', 1005, 2, 9.00, 'CREATED', 'new')",
		"UPDATE orders SET note = 'down' WHERE id = 1004",
		"ALTER TABLE orders DROP COLUMN note, ADD COLUMN qty SMALLINT UNSIGNED AFTER amount",
		"INSERT INTO orders VALUES ('AS', 1006, NULL, 1.50, 65000, 'CREATED')",
		"UPDATE orders SET qty = 3 WHERE id = 1001",
		"ALTER TABLE orders MODIFY COLUMN status VARCHAR(64), ADD COLUMN kind ENUM('a', 'b') DEFAULT 'b'",
		"INSERT INTO orders VALUES ('EU', 1007, 4, 3.00, 1, 'BIG', 'a')",
		"DELETE FROM orders WHERE id = 1002")
	p = e.start(args("--resume")...)
	// Each row as its last change wrote it: Paimon does not fill a column
	// added with a DEFAULT into the rows written before (1003's region,
	// every row's kind but 1007's), and a row written after a column was
	// dropped has it NULL (1001's and 1006's note).
	want := "1001, EU, <NULL>, 80.00, 3, CREATED, <NULL>, <NULL>\n" +
		"1003, <NULL>, 1, 12.00, <NULL>, CREATED, <NULL>, late\n" +
		"1004, EU, 7, 5.00, <NULL>, CREATED, <NULL>, down\n" +
		"1005, US, 2, 9.00, <NULL>, CREATED, <NULL>, new\n" +
		"1006, AS, <NULL>, 1.50, 65000, CREATED, <NULL>, <NULL>\n" +
		"1007, EU, 4, 3.00, 1, BIG, a, <NULL>\n"
	p.waitFor("ALTERs while down: the rows in Paimon", 2*time.Minute, func() bool {
		m.got, m.want = e.paimonSelect("SELECT id, region, prio, amount, qty, status, kind, note FROM "+paimonTable+" ORDER BY id"), want
		return m.got == want
	})
	p.signal(syscall.SIGTERM)
	if code := p.wait(30 * time.Second); code != 0 {
		t.Errorf("SIGTERM: exit %d\n%s", code, p.output())
	}
}
