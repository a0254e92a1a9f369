package mariadb

import (
	"testing"
	"time"
)

// TestStartRestart shows the harness end to end: a server comes up, the test
// user can write, status counters move, and a stop/resume keeps the data.
func TestStartRestart(t *testing.T) {
	s := Start(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.t (id INT PRIMARY KEY, v VARCHAR(10))")
	before := s.Status(t, "Com_insert")["Com_insert"]
	h := s.DB(t, db)
	if _, err := h.Exec("INSERT INTO t VALUES (1, 'a'), (2, NULL)"); err != nil {
		t.Fatal(err)
	}
	if got := s.Status(t, "Com_insert")["Com_insert"] - before; got != 1 {
		t.Fatalf("Com_insert moved by %d, want 1", got)
	}
	if s.External() {
		return
	}
	s.Restart(t, 100*time.Millisecond)
	if got, want := s.Table(t, db, "t"), "1, a\n2, NULL\n"; got != want {
		t.Fatalf("after restart got %q want %q", got, want)
	}
	if rows := s.Query(t, "SELECT @@log_bin"); rows[0][0] != "1" {
		t.Fatalf("binary log off: %v", rows)
	}
}
