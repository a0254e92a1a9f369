package mysqlcdc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSnapshotModeIsBounded is 'scan.startup.mode' = 'snapshot' (Flink CDC
// 3.x's StartupOptions.snapshot): the snapshot is read in chunks with writes
// landing in and between every chunk, then the binlog from the smallest to
// the largest high watermark (MySqlHybridSplitAssigner's stopping offset,
// MySqlBinlogSplitReadTask stops there), and the input ends: the changelog
// applied by key equals the table as of the last chunk's high watermark, the
// writes after it are not read, and a reader restored from any checkpoint
// of the binlog part (or after the end) ends at the same place.
func TestSnapshotModeIsBounded(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	var vals []string
	for i := 1; i <= 200; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d.25, 'CREATED')", i*2, i))
	}
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES "+strings.Join(vals, ", "))
	src := newSource(t, s, db, "orders", ordersSchema(), map[string]string{
		"scan.incremental.snapshot.chunk.size": "16", "scan.startup.mode": "snapshot"})
	if !src.Bounded() {
		t.Fatal("a snapshot-only source must be bounded")
	}
	u := start(t, src, nil)
	n := 0
	write := func() {
		n++
		for _, q := range []string{
			fmt.Sprintf("INSERT INTO orders VALUES (%d, 1.00, 'NEW')", 2*n+1),
			fmt.Sprintf("UPDATE orders SET status = 'PAID-%d' WHERE order_id = %d", n, (n*37)%400),
			fmt.Sprintf("DELETE FROM orders WHERE order_id = %d", (n*53)%400),
			fmt.Sprintf("UPDATE orders SET order_id = %d WHERE order_id = %d", 1000+n, (n*71)%400),
		} {
			if _, err := h.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	afterSelect = write
	defer func() { afterSelect = nil }()
	var want string
	for want == "" {
		u.step()
		if tb, _ := u.r.pending(); tb == nil {
			// The last chunk is read: the table now is the table at its
			// high watermark, what the read must end with.
			afterSelect = nil
			want = s.Table(t, db, "orders")
		}
		write() // between chunks, and after the last one (not read)
	}
	write()
	// The binlog part, restored from each checkpoint it could take.
	u.r.batchLimit = 25
	ended := false
	for i := 0; i < 2000 && !ended; i++ {
		state, err := u.r.Snapshot(int64(i))
		if err != nil {
			t.Fatal(err)
		}
		log, tables := u.log, u.tables
		u.r.Close()
		u = start(t, src, state)
		u.log, u.tables = log, tables
		u.r.batchLimit = 25
		// A fresh binlog connection may deliver nothing within one Next's
		// 50 ms wait on a loaded machine (CI saw every restore start over
		// where the last one did, 2000 times): read until this reader
		// has moved (rows out, its position changed, or the end).
		for deadline := time.Now().Add(20 * time.Second); !ended; {
			rows, err := u.r.Next(context.Background())
			switch {
			case errors.Is(err, io.EOF):
				ended = true
			case err != nil:
				t.Fatalf("next: %v", err)
			}
			u.apply(rows)
			if len(rows) > 0 {
				break
			}
			now, err := u.r.Snapshot(int64(i))
			if err != nil {
				t.Fatal(err)
			}
			if string(now) != string(state) || time.Now().After(deadline) {
				break
			}
		}
	}
	if !ended {
		t.Fatalf("the snapshot-only read did not end; changelog:\n%s", strings.Join(u.log, "\n"))
	}
	if got := u.content(); got != want {
		t.Fatalf("read:\n%s\nwant the table at the last high watermark:\n%s", got, want)
	}
	if now := s.Table(t, db, "orders"); now == want {
		t.Fatal("the writes after the last chunk changed nothing: the test cannot tell a read that stops")
	}
	// A reader restored after the end ends at once.
	state, err := u.r.Snapshot(0)
	if err != nil {
		t.Fatal(err)
	}
	u.r.Close()
	again := start(t, src, state)
	if rows, err := again.r.Next(context.Background()); !errors.Is(err, io.EOF) || len(rows) > 0 {
		t.Fatalf("restored after the end: %d rows, %v; want io.EOF", len(rows), err)
	}
	t.Logf("%d writes, %d changelog rows", n, len(u.log))
}

// TestSnapshotModeSyncActionAlterFails: for Paimon's CDC action a
// snapshot-only read that meets an ALTER TABLE of its table in the binlog
// it reads up to its stop fails naming the statement, where the unbounded
// read ends its input for the action to evolve the table and resume: this
// job ends with the read, so the action would never resume it.
func TestSnapshotModeSyncActionAlterFails(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1, 1.00, 'A'), (2, 2.00, 'B'), (3, 3.00, 'C'), (4, 4.00, 'D')")
	u := start(t, newSource(t, s, db, "orders", ordersSchema(), map[string]string{
		OptSyncAction: "true", "scan.startup.mode": "snapshot", "scan.incremental.snapshot.chunk.size": "2"}), nil)
	u.step() // the first chunk
	s.Exec(t, "ALTER TABLE `"+db+"`.orders ADD COLUMN note VARCHAR(20)")
	var err error
	for i := 0; i < 400 && err == nil; i++ {
		var batch []sql.Row
		batch, err = u.r.Next(context.Background())
		u.apply(batch)
	}
	if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "ADD COLUMN note") ||
		!strings.Contains(err.Error(), "'scan.startup.mode' = 'snapshot'") {
		t.Fatalf("want the read to fail naming the ALTER TABLE, got %v\n%s", err, strings.Join(u.log, "\n"))
	}
	t.Log(err)
}
