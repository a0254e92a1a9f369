package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMySQLSyncSnapshotMode is the action with --mysql-conf
// scan.startup.mode=snapshot (Paimon's MySqlActionUtils builds Flink CDC's
// StartupOptions.snapshot(), a bounded MySqlSource): it reads the table's
// snapshot into Paimon and exits by itself, where the default mode runs
// until stopped. A second run (a new snapshot into the existing table)
// brings the rows updated since, but not the deletion of a row gone: a
// snapshot has no deletes, in Paimon's action too.
func TestMySQLSyncSnapshotMode(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	srv.Exec(t, "CREATE TABLE `"+src+"`.orders (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32))")
	var vals []string
	for i := 1; i <= 50; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d.00, 'CREATED')", 1000+i, i))
	}
	srv.Exec(t, "INSERT INTO `"+src+"`.orders VALUES "+strings.Join(vals, ", "))
	e := newEnv(t)
	args := syncArgs(e, srv, src, "--table-conf", "bucket=1", "--mysql-conf", "scan.startup.mode=snapshot",
		"--mysql-conf", "scan.incremental.snapshot.chunk.size=8")
	r := e.run(3*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	want := srv.Table(t, src, "orders")
	if got := e.paimonSelect("SELECT * FROM orders ORDER BY id"); got != want {
		t.Fatalf("Paimon after the snapshot-only sync:\n%s\nwant:\n%s", got, want)
	}
	srv.Exec(t, "UPDATE `"+src+"`.orders SET status = 'PAID', amount = 100.00 WHERE id = 1001")
	srv.Exec(t, "DELETE FROM `"+src+"`.orders WHERE id = 1002")
	r = e.run(3*time.Minute, args...)
	if r.code != 0 {
		t.Fatalf("second run: exit %d:\n%s", r.code, r.all())
	}
	want = strings.Replace(srv.Table(t, src, "orders"), "1003, 3.00", "1002, 2.00, CREATED\n1003, 3.00", 1)
	if got := e.paimonSelect("SELECT * FROM orders ORDER BY id"); got != want {
		t.Fatalf("Paimon after the second snapshot-only sync:\n%s\nwant:\n%s", got, want)
	}
}
