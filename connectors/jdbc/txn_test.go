package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// auditTriggers log every row MySQL inserts, updates or deletes in
// orders_rt into orders_audit: the trigger-backed audit table of seed 003,
// for which a replayed batch is not harmless.
func auditTriggers(t *testing.T, db string) {
	s := shared(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_audit (n INT AUTO_INCREMENT PRIMARY KEY, op CHAR(1), id BIGINT, amount DECIMAL(10, 2)) ENGINE = InnoDB")
	s.Exec(t, "CREATE TRIGGER `"+db+"`.a_ins AFTER INSERT ON `"+db+"`.orders_rt FOR EACH ROW INSERT INTO `"+db+"`.orders_audit (op, id, amount) VALUES ('I', NEW.id, NEW.amount)")
	s.Exec(t, "CREATE TRIGGER `"+db+"`.a_upd AFTER UPDATE ON `"+db+"`.orders_rt FOR EACH ROW INSERT INTO `"+db+"`.orders_audit (op, id, amount) VALUES ('U', NEW.id, NEW.amount)")
	s.Exec(t, "CREATE TRIGGER `"+db+"`.a_del AFTER DELETE ON `"+db+"`.orders_rt FOR EACH ROW INSERT INTO `"+db+"`.orders_audit (op, id, amount) VALUES ('D', OLD.id, OLD.amount)")
}

func audit(t *testing.T, db string) string {
	var b strings.Builder
	for _, r := range shared(t).Query(t, "SELECT op, id, amount FROM `"+db+"`.orders_audit ORDER BY n") {
		b.WriteString(strings.Join(r, " ") + "\n")
	}
	return b.String()
}

func snapshotEpoch(t *testing.T, w *Writer, id int64) []byte {
	t.Helper()
	state, comm, err := w.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatalf("Snapshot(%d): %v", id, err)
	}
	if state != nil {
		t.Fatalf("Snapshot(%d): an exactly-once writer keeps no state, got %d bytes", id, len(state))
	}
	return comm
}

// TestExactlyOnceWritesAtCommitOnce: an exactly-once writer writes
// nothing before its checkpoint completes; Commit writes the epoch and
// its progress row in one transaction; committing the same checkpoint
// again (the re-commit after a crash between COMMIT and the runtime
// learning of it) changes nothing, so the audit trigger fires once per
// change. The same replay through the default at-least-once sink fires the
// trigger again: the duplicate that Flink's sink produces (seed 003).
func TestExactlyOnceWritesAtCommitOnce(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	auditTriggers(t, db)
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptDeliveryGuarantee, "exactly-once", OptSinkMaxRows, "1"))
	w := openWriter(t, sink, nil)
	write(t, w, order(sql.Insert, 1, "10.00", "CREATED"), order(sql.Insert, 2, "20.00", "CREATED"),
		order(sql.UpdateAfter, 1, "11.00", "PAID"))
	eq(t, "before the checkpoint (max-rows = 1 does not flush)", s.Table(t, db, "orders_rt"), "")
	c1 := snapshotEpoch(t, w, 1)
	eq(t, "after the barrier, before the checkpoint completes", s.Table(t, db, "orders_rt"), "")
	if err := sink.Commit(context.Background(), 1, [][]byte{c1}); err != nil {
		t.Fatal(err)
	}
	eq(t, "after commit 1", s.Table(t, db, "orders_rt"), "1, 11.00, PAID\n2, 20.00, CREATED\n")
	eq(t, "progress", s.Query(t, "SELECT target_table, checkpoint_id FROM `"+db+"`._sqlrun_sink_progress"), [][]string{{"orders_rt", "1"}})

	write(t, w, order(sql.Delete, 2, "20.00", "CREATED"), order(sql.Insert, 3, "30.00", "CREATED"))
	c2 := snapshotEpoch(t, w, 2)
	if c := snapshotEpoch(t, w, 3); c != nil {
		t.Fatalf("an empty epoch has no committable, got %d bytes", len(c))
	}
	for range 2 { // the second is the re-commit after recovery
		if err := sink.Commit(context.Background(), 2, [][]byte{c2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sink.Commit(context.Background(), 1, [][]byte{c1}); err != nil { // an older epoch, again
		t.Fatal(err)
	}
	eq(t, "after commit 2", s.Table(t, db, "orders_rt"), "1, 11.00, PAID\n3, 30.00, CREATED\n")
	// Within an epoch upserts go before deletes, as in every flush
	// (TableBufferReducedStatementExecutor's order).
	eq(t, "audit: one row per applied change", audit(t, db), "I 1 11.00\nI 2 20.00\nI 3 30.00\nD 2 20.00\n")
	eq(t, "commit stats", sink.CommitStats(), CommitStats{Committed: 2, Skipped: 2, Rows: 4})

	// The default sink replaying epoch 2's rows (what Flink does after a
	// failure between the flush and the checkpoint): the trigger fires again.
	alo := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db)), nil)
	write(t, alo, order(sql.Insert, 3, "30.00", "CREATED"))
	snapshot(t, alo, 1)
	eq(t, "audit after the at-least-once replay: order 3 twice", audit(t, db),
		"I 1 11.00\nI 2 20.00\nI 3 30.00\nD 2 20.00\nU 3 30.00\n")
}

// TestExactlyOnceLineages: committables carry the lineage they were
// written under. A resumed run (a new Sink) starts a new lineage, so its
// epochs are written even when their checkpoint ids are at or below ids
// an earlier run committed (a savepoint restored into another checkpoint
// directory); the earlier run's committables stay idempotent under their
// own lineage.
func TestExactlyOnceLineages(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	opts := tableOptions(s, db, OptDeliveryGuarantee, "exactly-once")
	first := newSink(t, ordersSchema(true), opts)
	w1 := openWriter(t, first, nil)
	write(t, w1, order(sql.Insert, 1, "1.00", "A"))
	old := snapshotEpoch(t, w1, 7)
	if err := first.Commit(context.Background(), 7, [][]byte{old}); err != nil {
		t.Fatal(err)
	}
	second := newSink(t, ordersSchema(true), opts)
	w2 := openWriter(t, second, nil)
	write(t, w2, order(sql.Insert, 2, "2.00", "B"))
	c := snapshotEpoch(t, w2, 3)
	if err := second.Commit(context.Background(), 3, [][]byte{c}); err != nil {
		t.Fatal(err)
	}
	// The restored checkpoint 7's committable, re-committed by the new run.
	if err := second.Commit(context.Background(), 7, [][]byte{old}); err != nil {
		t.Fatal(err)
	}
	eq(t, "orders_rt", s.Table(t, db, "orders_rt"), "1, 1.00, A\n2, 2.00, B\n")
	eq(t, "second run", second.CommitStats(), CommitStats{Committed: 1, Skipped: 1, Rows: 1})
	eq(t, "progress rows", len(s.Query(t, "SELECT sink_id FROM `"+db+"`._sqlrun_sink_progress")), 2)
}

// TestTransactionsAreAtomic: a flush whose delete fails after its upserts
// succeeded leaves MySQL as it was when the flush is one transaction
// (sink.transactional-flush, and every exactly-once commit); the default
// sink leaves the upserts applied, as Flink's does.
func TestTransactionsAreAtomic(t *testing.T) {
	s := shared(t)
	for _, mode := range []string{"default", "transactional-flush", "exactly-once"} {
		t.Run(mode, func(t *testing.T) {
			db := ordersDB(t, s)
			s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (9, 9.00, 'OLD')")
			s.Exec(t, "CREATE TRIGGER `"+db+"`.no_del BEFORE DELETE ON `"+db+"`.orders_rt FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'deletes are refused'")
			extra := []string{OptSinkMaxRetries, "1"}
			switch mode {
			case "transactional-flush":
				extra = append(extra, OptTransactionalFlush, "true")
			case "exactly-once":
				extra = append(extra, OptDeliveryGuarantee, "exactly-once")
			}
			sink := newSink(t, ordersSchema(true), tableOptions(s, db, extra...))
			sink.retryUnit = time.Millisecond
			w := openWriter(t, sink, func(o *ExecutionOptions) { o.RetryUnit = time.Millisecond })
			write(t, w, order(sql.Insert, 1, "1.00", "NEW"), order(sql.Delete, 9, "9.00", "OLD"))
			var err error
			if mode == "exactly-once" {
				err = sink.Commit(context.Background(), 1, [][]byte{snapshotEpoch(t, w, 1)})
			} else {
				_, _, err = w.Snapshot(context.Background(), 1)
			}
			if err == nil || !strings.Contains(err.Error(), "deletes are refused") {
				t.Fatalf("want the trigger's error, got %v", err)
			}
			want := "9, 9.00, OLD\n"
			if mode == "default" {
				want = "1, 1.00, NEW\n9, 9.00, OLD\n"
			}
			eq(t, "orders_rt after the failed flush", s.Table(t, db, "orders_rt"), want)
			if mode == "exactly-once" {
				eq(t, "progress rows", len(s.Query(t, "SELECT sink_id FROM `"+db+"`._sqlrun_sink_progress")), 0)
			}
		})
	}
}

// TestTransactionalModesRefuseMyISAM: a table whose engine cannot roll
// back would make the transaction a lie; the writer refuses it at open.
func TestTransactionalModesRefuseMyISAM(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32)) ENGINE = MyISAM")
	for _, opt := range [][2]string{{OptTransactionalFlush, "true"}, {OptDeliveryGuarantee, "exactly-once"}} {
		sink := newSink(t, ordersSchema(true), tableOptions(s, db, opt[0], opt[1]))
		w, err := sink.NewJDBCWriter(0, 1, sink.ExecutionOptions())
		if err != nil {
			t.Fatal(err)
		}
		err = w.Open(context.Background(), nil)
		w.Close(context.Background())
		var te *TransactionError
		if !errors.As(err, &te) || te.Engine != "MyISAM" || !strings.Contains(err.Error(), opt[0]) {
			t.Fatalf("%s: want a TransactionError naming MyISAM and the option, got %v", opt[0], err)
		}
	}
	// The default sink writes MyISAM tables, as Flink's does.
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db)), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	snapshot(t, w, 1)
	eq(t, "orders_rt", s.Table(t, db, "orders_rt"), "1, 1.00, A\n")
}

// TestExactlyOnceNeedsCheckpoints: in streaming mode without
// execution.checkpointing.interval an exactly-once sink would never
// commit; the job fails at start, naming the option.
func TestExactlyOnceNeedsCheckpoints(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	opts := tableOptions(s, db, OptDeliveryGuarantee, "exactly-once")
	mk := func(interval time.Duration) error {
		ts, err := Factory{}.CreateSink(&connectors.Context{Table: ctxFor(ordersSchema(true), opts).Table,
			Schema: ordersSchema(true), Options: opts, CheckpointInterval: interval, Streaming: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := ts.NewWriter(0, 1)
		if err == nil {
			w.Close(context.Background())
		}
		return err
	}
	if err := mk(0); err == nil || !strings.Contains(err.Error(), "execution.checkpointing.interval") {
		t.Fatalf("want the missing checkpoint interval named, got %v", err)
	}
	if err := mk(10 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestVersionColumnGuardsReplays: with 'sink.version-column', a replayed
// (older) upsert or delete never replaces what a newer version wrote —
// another writer's update during an outage survives the replay.
func TestVersionColumnGuardsReplays(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.items (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(32), v BIGINT) ENGINE = InnoDB")
	schema := sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "name", Type: sql.String()}, {Name: "v", Type: sql.BigInt()},
	}, PrimaryKey: []string{"id"}}
	opts := tableOptions(s, db, "table-name", "items", OptVersionColumn, "v")
	w := openWriter(t, newSink(t, schema, opts), nil)
	row := func(k sql.RowKind, id int64, name string, v any) sql.Row {
		return sql.Row{Kind: k, Values: []any{id, name, v}}
	}
	write(t, w, row(sql.Insert, 1, "a5", int64(5)), row(sql.Insert, 2, "b5", int64(5)), row(sql.Insert, 3, "c-null", nil))
	snapshot(t, w, 1)
	// Another writer moves item 1 to version 9 while our job is down.
	s.Exec(t, "UPDATE `"+db+"`.items SET name = 'other9', v = 9 WHERE id = 1")
	// The replay: older versions of 1 and 2, a stale delete of 1, and a
	// versioned row over 3's NULL version.
	write(t, w, row(sql.UpdateAfter, 1, "a7", int64(7)), row(sql.UpdateAfter, 2, "b6", int64(6)), row(sql.UpdateAfter, 3, "c1", int64(1)))
	snapshot(t, w, 2)
	write(t, w, row(sql.Delete, 1, "a8", int64(8)), row(sql.Delete, 2, "b6", int64(6)))
	snapshot(t, w, 3)
	eq(t, "items", s.Table(t, db, "items"), "1, other9, 9\n3, c1, 1\n")

	for _, bad := range []struct{ col, want string }{
		{"nope", "Unknown column 'nope'"},
		{"id", "is a primary key column"},
	} {
		o := tableOptions(s, db, "table-name", "items", OptVersionColumn, bad.col)
		if _, err := (Factory{}).CreateSink(ctxFor(schema, o)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("%s: want %q, got %v", bad.col, bad.want, err)
		}
	}
}

// TestReaderNeverSeesPartialFlush: every flush moves the table's one row
// to a new key (-D of the old key, +I of the new one). A reader polling
// COUNT(*) meanwhile sees 1 every time when flushes are transactions; with
// the default sink the upsert lands before the delete (two statements in
// autocommit), so a reader can see 2 — logged, as it depends on timing.
func TestReaderNeverSeesPartialFlush(t *testing.T) {
	s := shared(t)
	for _, transactional := range []bool{true, false} {
		db := ordersDB(t, s)
		s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (0, 0.00, 'TOKEN')")
		w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db,
			OptTransactionalFlush, fmt.Sprint(transactional), OptSinkInterval, "0")), nil)
		reader := s.DB(t, db)
		stop := make(chan struct{})
		seen := make(chan map[string]int, 1)
		go func() {
			counts := map[string]int{}
			for {
				select {
				case <-stop:
					seen <- counts
					return
				default:
				}
				var n string
				if err := reader.QueryRow("SELECT COUNT(*) FROM orders_rt").Scan(&n); err != nil {
					counts["error: "+err.Error()]++
					continue
				}
				counts[n]++
			}
		}()
		for i := int64(1); i <= 300; i++ {
			write(t, w, order(sql.Delete, i-1, "0.00", "TOKEN"), order(sql.Insert, i, "0.00", "TOKEN"))
			snapshot(t, w, i)
		}
		close(stop)
		counts := <-seen
		t.Logf("transactional=%v: the reader saw row counts %v", transactional, counts)
		if transactional && (len(counts) != 1 || counts["1"] == 0) {
			t.Fatalf("a reader saw a partial transactional flush: counts %v", counts)
		}
	}
}
