package mysqlcdc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// TestJobStopsTogether: the sources of `sqlrun action mysql-sync-database`
// end their input together when one of them reads an ALTER TABLE of a
// job's table, so the action can evolve the Paimon tables and resume the
// job. Table b gains a column while its source has read 3 of its 50-row
// chunks (writes landing between them); then a's source, whose snapshot
// came after that, reads its binlog past it and ends at the ALTER of
// table a; c's source has read no chunk by then. b's source reads its
// snapshot to the end and ends at its own ALTER (its binlog starts before
// it); c's, whose chunks all come after both, ends as its binlog starts.
// Before, c's source never ended: the job stalled with a's table no
// longer synchronized. Resumed from their final states (the declared
// columns as the evolved Paimon tables' would be), all end equal to their
// tables, and b's source, whose binlog is behind a's ALTER, does not end
// for it again: the action evolved the tables as they were when the job
// ended.
func TestJobStopsTogether(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := h.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		exec("CREATE TABLE " + n + " (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	}
	exec("INSERT INTO a VALUES (1, 1.00, 'SNAP'), (2, 2.00, 'SNAP')")
	for i := 0; i < 600; i += 100 {
		var vals []string
		for k := i; k < i+100; k++ {
			vals = append(vals, fmt.Sprintf("(%d, %d.00, 'SNAP')", 1000+k, k))
		}
		exec("INSERT INTO b VALUES "+strings.Join(vals, ", "), "INSERT INTO c VALUES "+strings.Join(vals, ", "))
	}
	opts := func(id string) map[string]string {
		return map[string]string{"server-id": id, OptSharedBinlog: "5440", OptSyncAction: "true",
			OptSyncTables: db + ".a," + db + ".b," + db + ".c", OptChunkSize: "50"}
	}
	srcA := newSource(t, s, db, "a", ordersSchema(), opts("5441"))
	srcB := newSource(t, s, db, "b", ordersSchema(), opts("5442"))
	srcC := newSource(t, s, db, "c", ordersSchema(), opts("5443"))
	a, b, c := start(t, srcA, nil), start(t, srcB, nil), start(t, srcC, nil)
	for i := 0; i < 3; i++ {
		b.step()
		exec(fmt.Sprintf("UPDATE b SET status = 'U%d' WHERE order_id %% 7 = %d", i, i), fmt.Sprintf("INSERT INTO b VALUES (%d, 1.00, 'NEW')", 2000+i))
	}
	exec("ALTER TABLE b ADD COLUMN note VARCHAR(20)")
	a.until("the snapshot of a", a.snapshotDone)
	if b.r.st.Phase != phaseSnapshot || c.r.st.Chunks != nil {
		t.Fatalf("b read its whole snapshot in 3 chunks, or c read one")
	}
	exec("ALTER TABLE a ADD COLUMN note VARCHAR(20)", "INSERT INTO a VALUES (3, 3.00, 'NEW', 'x')",
		"UPDATE c SET status = 'AFTER' WHERE order_id % 3 = 0", "INSERT INTO c VALUES (3000, 1.00, 'NEW')")
	ends := func(u *run, what string) {
		t.Helper()
		for i := 0; ; i++ {
			rows, err := u.r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("%s: next: %v", what, err)
			}
			u.apply(rows)
			if i == 400 {
				t.Fatalf("%s did not end its input (phase %s, at %s)", what, u.r.st.Phase, u.r.st.Pos)
			}
		}
	}
	ends(a, "a at the ALTER of a")
	ends(b, "b, in its snapshot when a ended")
	ends(c, "c, before its first chunk when a ended")
	if sc := b.r.schemaChange; sc == nil || sc.Table != db+".b" {
		t.Errorf("b ended at %+v, want the ALTER of b", sc)
	}
	var states [3][]byte
	for i, u := range []*run{a, b, c} {
		var err error
		if states[i], err = u.r.Snapshot(1); err != nil {
			t.Fatal(err)
		}
		u.r.Close()
	}
	exec("INSERT INTO a VALUES (4, 4.00, 'NEW', 'y')", "DELETE FROM b WHERE order_id = 1003", "UPDATE a SET status = 'RESUMED' WHERE order_id = 1",
		"INSERT INTO b VALUES (4000, 1.00, 'NEW', 'z')")
	a2, b2, c2 := start(t, srcA, states[0]), start(t, srcB, states[1]), start(t, srcC, states[2])
	a2.log, a2.tables, b2.log, b2.tables, c2.log, c2.tables = a.log, a.tables, b.log, b.tables, c.log, c.tables
	want := func(n string) string {
		var sb strings.Builder
		for _, r := range s.Query(t, "SELECT order_id, amount, status FROM `"+db+"`."+n+" ORDER BY 1") {
			sb.WriteString(strings.Join(r, ", ") + "\n")
		}
		return sb.String()
	}
	for i := 0; a2.content() != want("a") || b2.content() != want("b") || c2.content() != want("c"); i++ {
		if i > 3000 {
			t.Fatalf("timed out after the resume:\na:\n%s\nb:\n%s\nc:\n%s", a2.content(), b2.content(), c2.content())
		}
		if i == 5 {
			exec("UPDATE c SET status = 'DURING' WHERE order_id % 11 = 0", "DELETE FROM b WHERE order_id % 13 = 0")
		}
		for _, u := range []*run{a2, b2, c2} {
			rows, err := u.r.Next(context.Background())
			if err != nil {
				t.Fatalf("next after the resume: %v (an ALTER the job stopped for ended the input again)", err)
			}
			u.apply(rows)
		}
	}
}
