package mysqlcdc

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"testing"
)

// TestLargeTransactionCheckpointInside: one transaction of 120 000 rows
// (an INSERT of 100 000 and an UPDATE of 20 000 of them, -U/+U each) is
// read while checkpoints are taken inside it, and the reader is killed
// twice mid-transaction (rows emitted after the checkpoint are lost with
// it, as a SIGKILL loses them downstream) and restored from the
// checkpoint. The changelog, applied strictly by key from the restored
// checkpoint's content, ends equal to the table: nothing lost or doubled.
// The reader does not buffer the transaction: every batch holds at most
// batchLimit rows and one rows event, and a checkpoint inside the transaction holds the
// transaction's start and the rows of it already emitted, not rows.
func TestLargeTransactionCheckpointInside(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	src := newSource(t, s, db, "orders", ordersSchema(), nil)
	u := start(t, src, nil)
	u.until("the snapshot", u.snapshotDone)

	const rows = 100000
	tx, err := h.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i += 2000 {
		var vals []string
		for j := i; j < i+2000; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d.50, 'CREATED')", j, j%1000))
		}
		if _, err := tx.Exec("INSERT INTO orders VALUES " + strings.Join(vals, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec("UPDATE orders SET status = 'PAID' WHERE order_id % 5 = 0"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := s.Table(t, db, "orders")

	var ms runtime.MemStats
	var peakHeap uint64
	batches, checkpoints, kills := 0, 0, 0
	var saved []byte
	var savedTables map[string][]any
	for u.content() != want {
		n := u.step()
		// A batch ends at the first event past the limit; one rows event
		// holds at most binlog_row_event_max_size (8 KiB) of row images.
		if n > u.r.batchLimit+1024 {
			t.Fatalf("a batch of %d rows: the reader buffers beyond its batch limit %d", n, u.r.batchLimit)
		}
		if n == 0 {
			continue
		}
		batches++
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapInuse)
		if batches%5 != 0 || u.r.st.Skip == 0 {
			continue
		}
		// A checkpoint inside the transaction: a position and a row count.
		st, err := u.r.Snapshot(int64(batches))
		if err != nil {
			t.Fatal(err)
		}
		var decoded state
		if err := json.Unmarshal(st, &decoded); err != nil || decoded.Phase != phaseBinlog || decoded.Skip == 0 || len(st) > 1024 {
			t.Fatalf("checkpoint inside the transaction: %s (%v)", st, err)
		}
		checkpoints++
		saved, savedTables = st, maps.Clone(u.tables)
		if checkpoints%4 == 2 && kills < 2 {
			// Read on past the checkpoint, then die: those rows are gone.
			u.step()
			u.step()
			kills++
			log := u.log
			u.r.Close()
			u = start(t, src, saved)
			u.log, u.tables = log, maps.Clone(savedTables)
		}
	}
	if kills < 2 || checkpoints < 4 {
		t.Fatalf("%d checkpoints and %d kills inside the transaction: the test needs more", checkpoints, kills)
	}
	t.Logf("%d batches of at most %d rows, %d checkpoints and %d kills inside a transaction of %d row changes; peak heap in use %d MiB",
		batches, u.r.batchLimit, checkpoints, kills, rows+rows/5, peakHeap>>20)
}
