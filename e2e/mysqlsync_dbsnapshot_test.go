package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMySQLSyncDatabaseSnapshotMode: mysql_sync_database with
// --mysql-conf scan.startup.mode=snapshot (Flink CDC's bounded source)
// writes every table's snapshot, its sources sharing one binlog connection
// each stopping at its own last high watermark, and exits by itself.
func TestMySQLSyncDatabaseSnapshotMode(t *testing.T) {
	needPaimon(t)
	srv := needMariaDB(t)
	addSecret(srv.Password)
	src := srv.NewDatabase(t)
	for _, tb := range []string{"orders", "items"} {
		srv.Exec(t, "CREATE TABLE `"+src+"`."+tb+" (id BIGINT NOT NULL PRIMARY KEY, note VARCHAR(32))")
		var vals []string
		for i := 1; i <= 120; i++ {
			vals = append(vals, fmt.Sprintf("(%d, '%s-%d')", i, tb, i))
		}
		srv.Exec(t, "INSERT INTO `"+src+"`."+tb+" VALUES "+strings.Join(vals, ", "))
	}
	e := newEnv(t)
	r := e.run(3*time.Minute, syncDatabaseArgs(e, srv, src, "--table-conf", "bucket=1", "--mysql-conf", "scan.startup.mode=snapshot")...)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.all())
	}
	for _, tb := range []string{"orders", "items"} {
		want := mysqlRows(t, srv, "SELECT * FROM `"+src+"`."+tb+" ORDER BY id")
		if got := e.paimonSelect("SELECT * FROM ods_" + tb + " ORDER BY id"); got != want {
			t.Errorf("Paimon ods_%s:\n%s\nwant:\n%s", tb, got, want)
		}
	}
}
