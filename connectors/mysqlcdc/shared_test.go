package mysqlcdc

import (
	"fmt"
	"testing"
)

// TestSharedBinlog: two sources of one job with the same
// 'sqlrun.shared-binlog-server-id' (as `sqlrun action mysql-sync-database`
// declares them) read the binlog through one replication connection, each
// from its own position: transactions touching both tables reach each
// source once; a source restored from an older checkpoint makes the hub go
// back to it without the other source seeing an event twice (the strict
// apply fails on a doubled or lost row); both end equal to their tables.
func TestSharedBinlog(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	for _, n := range []string{"a", "b"} {
		s.Exec(t, "CREATE TABLE `"+db+"`."+n+" (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
		s.Exec(t, "INSERT INTO `"+db+"`."+n+" VALUES (1, 1.00, 'SNAP'), (2, 2.00, 'SNAP')")
	}
	srcA := newSource(t, s, db, "a", ordersSchema(), map[string]string{"server-id": "5410", OptSharedBinlog: "5420"})
	srcB := newSource(t, s, db, "b", ordersSchema(), map[string]string{"server-id": "5411", OptSharedBinlog: "5420"})
	a, b := start(t, srcA, nil), start(t, srcB, nil)
	a.until("the snapshot of a", a.snapshotDone)
	b.until("the snapshot of b", b.snapshotDone)
	hubsMu.Lock()
	var subs int
	for _, hb := range hubs {
		hb.mu.Lock()
		subs += len(hb.subs)
		hb.mu.Unlock()
	}
	n := len(hubs)
	hubsMu.Unlock()
	if n != 1 || subs != 2 {
		t.Fatalf("%d shared binlog connections with %d subscribers, want 1 with 2", n, subs)
	}
	write := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			tx, err := h.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				fmt.Sprintf("INSERT INTO a VALUES (%d, %d.00, 'NEW')", 100+i, i),
				fmt.Sprintf("INSERT INTO b VALUES (%d, %d.00, 'NEW')", 100+i, i),
				fmt.Sprintf("UPDATE a SET status = 'U%d' WHERE order_id = %d", i, 100+i/2),
				fmt.Sprintf("DELETE FROM b WHERE order_id = %d", 100+i/3),
			} {
				if _, err := tx.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Both are read side by side, as the tasks of one job read them (a
	// source that stops reading holds the shared connection back).
	both := func(what string) {
		t.Helper()
		wantA, wantB := s.Table(t, db, "a"), s.Table(t, db, "b")
		for i := 0; a.content() != wantA || b.content() != wantB; i++ {
			if i > 2000 {
				t.Fatalf("timed out waiting for %s:\na:\n%s\nb:\n%s", what, a.content(), b.content())
			}
			a.step()
			b.step()
		}
	}
	write(0, 20)
	both("the first writes")
	// A checkpoint of b, more writes read by both, then b dies and is
	// restored from that checkpoint (what it read after it is lost with
	// it): the hub goes back for b, a sees nothing twice.
	stB, err := b.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	tablesB := map[string][]any{}
	for k, v := range b.tables {
		tablesB[k] = v
	}
	write(20, 40)
	both("more writes")
	log := b.log
	b.r.Close()
	b = start(t, srcB, stB)
	b.log, b.tables = log, tablesB
	write(40, 50)
	both("b restored")
	hubsMu.Lock()
	n = len(hubs)
	hubsMu.Unlock()
	if n != 1 {
		t.Fatalf("%d shared binlog connections after the restore, want 1", n)
	}
}
