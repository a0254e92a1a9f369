package jdbc

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSeedBufferStory is the seed's section 5: +I 80, -D 80, +I 100, +U 120
// of order 1001 inside one flush. batchCount counts four input rows, the
// reduce buffer keeps only +U 120, and MySQL sees ONE upsert and no delete.
func TestSeedBufferStory(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db)), nil)
	before := serverCounters(t, s)
	write(t, w,
		order(sql.Insert, 1001, "80.00", "CREATED"),
		order(sql.Delete, 1001, "80.00", "CREATED"),
		order(sql.Insert, 1001, "100.00", "CREATED"),
		order(sql.UpdateAfter, 1001, "120.00", "PAID"))
	eq(t, "batchCount before the flush", w.BatchCount(), 4)
	snapshot(t, w, 1)
	st := w.Stats()
	eq(t, "flushes/batchCount/statements/upserts/deletes",
		[]int64{st.Flushes, st.LastBatchCount, st.Statements, st.UpsertRows, st.DeleteRows}, []int64{1, 4, 1, 1, 0})
	eq(t, "server counters", delta(before, serverCounters(t, s)), "insert=1 delete=0 rows-deleted=0")
	eq(t, "orders_rt", s.Table(t, db, "orders_rt"), "1001, 120.00, PAID\n")
	eq(t, "batchCount after the flush", w.BatchCount(), 0)
}

// TestMaxRowsOne: 'sink.buffer-flush.max-rows' = '1' flushes every row, and
// (as in Flink) runs no interval timer.
func TestMaxRowsOne(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "1")), nil)
	if w.stop != nil {
		t.Fatal("max-rows = 1 must not start the interval timer")
	}
	before := serverCounters(t, s)
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	eq(t, "after row 1", s.Table(t, db, "orders_rt"), "1, 1.00, A\n")
	write(t, w, order(sql.UpdateAfter, 1, "2.00", "B"), order(sql.Delete, 1, "2.00", "B"))
	eq(t, "after rows 2-3", s.Table(t, db, "orders_rt"), "")
	eq(t, "flushes", w.Stats().Flushes, 3)
	eq(t, "server counters", delta(before, serverCounters(t, s)), "insert=2 delete=1 rows-deleted=1")
}

// TestIntervalFlushesQuietWriter: a subtask that gets one row and nothing
// more is flushed by its timer, not by max-rows or a checkpoint.
func TestIntervalFlushesQuietWriter(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "200ms")), nil)
	start := time.Now()
	write(t, w, order(sql.Insert, 7, "3.00", "QUIET"))
	waitFor(t, 3*time.Second, "the interval flush", func() bool { return s.Table(t, db, "orders_rt") == "7, 3.00, QUIET\n" })
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("flushed after %v, before the 200ms interval", el)
	}
	eq(t, "flushes", w.Stats().Flushes, 1)
}

// TestCheckpointFlushes: with neither trigger due, Snapshot (the checkpoint
// barrier) writes the buffer before it returns.
func TestCheckpointFlushes(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "1h")), nil)
	for i := int64(1); i <= 5; i++ {
		write(t, w, order(sql.Insert, i, "1.00", "X"))
	}
	eq(t, "before the checkpoint", s.Table(t, db, "orders_rt"), "")
	snapshot(t, w, 42)
	eq(t, "rows after the checkpoint", len(s.Query(t, "SELECT id FROM `"+db+"`.orders_rt")), 5)
}

// TestCloseFlushesTail: a bounded job's last rows are written at Close.
func TestCloseFlushesTail(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"), order(sql.Insert, 2, "2.00", "B"), order(sql.Delete, 1, "1.00", "A"))
	eq(t, "before close", s.Table(t, db, "orders_rt"), "")
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	eq(t, "after close", s.Table(t, db, "orders_rt"), "2, 2.00, B\n")
	if err := w.Write(context.Background(), []sql.Row{order(sql.Insert, 3, "1.00", "C")}); err == nil {
		t.Fatal("Write after Close must fail")
	}
}

// TestBothTriggersZero: max-rows 0 and interval 0 leave only the checkpoint
// and close; 500 rows stay buffered until then and go out as one statement.
func TestBothTriggersZero(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "0", OptSinkInterval, "0")), nil)
	for i := int64(1); i <= 500; i++ {
		write(t, w, order(sql.Insert, i, "1.00", "X"))
	}
	time.Sleep(300 * time.Millisecond)
	eq(t, "buffered", s.Table(t, db, "orders_rt"), "")
	eq(t, "batchCount", w.BatchCount(), 500)
	before := serverCounters(t, s)
	snapshot(t, w, 1)
	eq(t, "server counters", delta(before, serverCounters(t, s)), "insert=1 delete=0 rows-deleted=0")
	eq(t, "rows", s.Query(t, "SELECT COUNT(*) FROM `"+db+"`.orders_rt")[0][0], "500")
}

// TestDeleteInsertAcrossFlushes is the seed's input-producer case: -D then
// +I of one key. In two flushes MySQL runs a DELETE and then an UPSERT, and
// a reader between them sees the order missing; in one flush the reduce
// buffer leaves one UPSERT and no gap.
func TestDeleteInsertAcrossFlushes(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (1001, 80.00, 'CREATED')")
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)

	before := serverCounters(t, s)
	write(t, w, order(sql.Delete, 1001, "80.00", "CREATED"))
	snapshot(t, w, 1)
	eq(t, "the visible gap", s.Table(t, db, "orders_rt"), "")
	write(t, w, order(sql.Insert, 1001, "100.00", "CREATED"))
	snapshot(t, w, 2)
	eq(t, "two flushes", delta(before, serverCounters(t, s)), "insert=1 delete=1 rows-deleted=1")
	eq(t, "after two flushes", s.Table(t, db, "orders_rt"), "1001, 100.00, CREATED\n")

	before = serverCounters(t, s)
	write(t, w, order(sql.Delete, 1001, "100.00", "CREATED"), order(sql.Insert, 1001, "110.00", "CREATED"))
	snapshot(t, w, 3)
	eq(t, "one flush", delta(before, serverCounters(t, s)), "insert=1 delete=0 rows-deleted=0")
	eq(t, "after one flush", s.Table(t, db, "orders_rt"), "1001, 110.00, CREATED\n")
}

// TestUpsertsBeforeDeletes: one flush with both kinds sends the upserts
// first, then the deletes, each kind as one multi-row statement; -U counts
// as a delete by key, as Flink's changeFlag does.
func TestUpsertsBeforeDeletes(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 3, 'c')")
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	before := serverCounters(t, s)
	write(t, w,
		order(sql.Delete, 1, "1", "a"), order(sql.UpdateAfter, 2, "20.00", "B"),
		order(sql.UpdateBefore, 3, "3", "c"), order(sql.Insert, 4, "4.00", "d"), order(sql.Insert, 5, "", "NULLS"))
	snapshot(t, w, 1)
	eq(t, "server counters", delta(before, serverCounters(t, s)), "insert=1 delete=1 rows-deleted=2")
	eq(t, "table", s.Table(t, db, "orders_rt"), "2, 20.00, B\n4, 4.00, d\n5, NULL, NULLS\n")
	st := w.Stats()
	eq(t, "statements/upserts/deletes", []int64{st.Statements, st.UpsertRows, st.DeleteRows}, []int64{2, 3, 2})
}

// TestCompositeKeyAndOddValues: a two-column key (deleted with OR-ed
// conditions), a table name with a dot quoted as one identifier, and string
// values that need escaping.
func TestCompositeKeyAndOddValues(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.`serving.orders` (tenant VARCHAR(8) NOT NULL, id INT NOT NULL, note TEXT, PRIMARY KEY (tenant, id))")
	schema := sql.Schema{Columns: []sql.Column{
		{Name: "tenant", Type: sql.VarChar(8).NotNull()}, {Name: "id", Type: sql.Int().NotNull()}, {Name: "note", Type: sql.String()},
	}, PrimaryKey: []string{"tenant", "id"}}
	w := openWriter(t, newSink(t, schema, tableOptions(s, db, OptTableName, "serving.orders", OptSinkInterval, "0")), nil)
	odd := "it's \\ \"quoted\"\n\x00 ✓"
	row := func(k sql.RowKind, tenant string, id int32, note string) sql.Row {
		return sql.Row{Kind: k, Values: []any{tenant, id, note}}
	}
	write(t, w, row(sql.Insert, "a", 1, odd), row(sql.Insert, "a", 2, "x"), row(sql.Insert, "b", 1, "y"), row(sql.Insert, "b'", 1, "z"))
	snapshot(t, w, 1)
	write(t, w, row(sql.Delete, "a", 2, ""), row(sql.Delete, "b'", 1, ""))
	snapshot(t, w, 2)
	got := s.Query(t, "SELECT tenant, id, note FROM `"+db+"`.`serving.orders` ORDER BY tenant, id")
	eq(t, "rows", len(got), 2)
	eq(t, "escaped value round trip", got[0][2], odd)
	eq(t, "second row", strings.Join(got[1], ","), "b,1,y")
}

// TestStatementsSizedByPacket: with a small max_allowed_packet a large flush
// is cut into several statements, none over the limit.
func TestStatementsSizedByPacket(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	s.Exec(t, "SET GLOBAL max_allowed_packet = 16384")
	defer s.Exec(t, "SET GLOBAL max_allowed_packet = 16777216")
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "0", OptSinkInterval, "0")), nil)
	var rows []sql.Row
	for i := int64(1); i <= 3000; i++ {
		rows = append(rows, order(sql.Insert, i, "12345.67", strings.Repeat("s", 20)))
	}
	write(t, w, rows...)
	for i := int64(1); i <= 2000; i++ {
		rows[i-1] = order(sql.Delete, i, "", "")
	}
	write(t, w, rows[:2000]...)
	snapshot(t, w, 1)
	st := w.Stats()
	// 1000 upserts of ~45 bytes (the first 2000 keys were reduced to
	// deletes) need 3 statements of <16 KiB, plus one DELETE.
	if st.Statements < 4 {
		t.Fatalf("expected the flush to be split by max_allowed_packet, got %d statements", st.Statements)
	}
	eq(t, "rows", s.Query(t, "SELECT COUNT(*), MIN(id) FROM `"+db+"`.orders_rt")[0], []string{"1000", "2001"})
}

// TestParallelSubtasks: four writers, each with its own connection and
// buffer, fed by primary-key hash as the runtime routes rows.
func TestParallelSubtasks(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkParallelism, "4"))
	eq(t, "parallelism", sink.Parallelism(), 4)
	const n = 4
	writers := make([]*Writer, n)
	for i := range writers {
		w, err := sink.NewJDBCWriter(i, n, sink.ExecutionOptions())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Open(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		writers[i] = w
	}
	var conns []string
	for _, w := range writers {
		var id string
		if err := w.conn.c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, id)
	}
	if conns[0] == conns[1] || conns[1] == conns[2] || conns[2] == conns[3] {
		t.Fatalf("subtasks share a connection: %v", conns)
	}
	parts := make([][]sql.Row, n)
	for id := int64(1); id <= 2000; id++ {
		h := fnv.New32a()
		fmt.Fprint(h, id)
		p := int(h.Sum32() % n)
		parts[p] = append(parts[p], order(sql.Insert, id, "1.00", "A"), order(sql.UpdateAfter, id, "2.00", "B"))
		if id%3 == 0 {
			parts[p] = append(parts[p], order(sql.Delete, id, "2.00", "B"))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Write(context.Background(), parts[i]); err != nil {
				errs <- err
			}
			if err := w.Close(context.Background()); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, w := range writers {
		if st := w.Stats(); st.InputRows != int64(len(parts[i])) || st.Flushes == 0 {
			t.Fatalf("subtask %d: %+v for %d rows", i, st, len(parts[i]))
		}
	}
	eq(t, "rows", s.Query(t, "SELECT COUNT(*), MIN(amount), MAX(status) FROM `"+db+"`.orders_rt")[0], []string{"1334", "2.00", "B"})
}

// TestAppendMode: without a primary key the sink is insert-only, writes
// plain multi-row INSERTs, and refuses a changelog (the planner's check).
func TestAppendMode(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT, amount DECIMAL(10, 2), status VARCHAR(32))")
	sink := newSink(t, ordersSchema(false), tableOptions(s, db))
	if _, err := sink.ChangelogMode(sql.All); err == nil ||
		err.Error() != "please declare primary key for sink table when query contains update/delete record." {
		t.Fatalf("ChangelogMode(changelog) without PK: %v", err)
	}
	mode, err := sink.ChangelogMode(sql.InsertOnly)
	eq(t, "insert-only mode", fmt.Sprint(mode, err), "I <nil>")
	w := openWriter(t, sink, nil)
	before := serverCounters(t, s)
	write(t, w, order(sql.Insert, 1, "1.00", "A"), order(sql.Insert, 1, "1.00", "A"))
	snapshot(t, w, 1)
	eq(t, "server counters", delta(before, serverCounters(t, s)), "insert=1 delete=0 rows-deleted=0")
	eq(t, "duplicates are kept (no key)", s.Table(t, db, "orders_rt"), "1, 1.00, A\n1, 1.00, A\n")
	if err := w.Write(context.Background(), []sql.Row{order(sql.Delete, 1, "1.00", "A")}); err == nil {
		t.Fatal("append writer accepted a -D row")
	}

	pk := newSink(t, ordersSchema(true), tableOptions(s, db))
	mode, err = pk.ChangelogMode(sql.All)
	eq(t, "upsert mode", fmt.Sprint(mode, err), "I,UA,D <nil>")
}

// TestNoBackslashEscapesSession: with sql_mode NO_BACKSLASH_ESCAPES and
// ANSI_QUOTES set through the URL's sessionVariables, the writer escapes
// strings the way that session reads them, and values round-trip.
func TestNoBackslashEscapesSession(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	url := s.JDBCURL(db) + "?sessionVariables=sql_mode='NO_BACKSLASH_ESCAPES,ANSI_QUOTES,STRICT_TRANS_TABLES',time_zone='+00:00'"
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptURL, url, OptSinkInterval, "0")), nil)
	odd := `back\slash 'quote' "dq" \n`
	write(t, w, order(sql.Insert, 1, "1.00", odd), order(sql.Insert, 2, "2.00", "b"))
	snapshot(t, w, 1)
	write(t, w, order(sql.Delete, 2, "", ""))
	snapshot(t, w, 2)
	got := s.Query(t, "SELECT id, status FROM `"+db+"`.orders_rt")
	eq(t, "rows", len(got), 1)
	eq(t, "value", got[0][1], odd)
}

// TestOtherUniqueKeys (issue 25 finding 7): a MySQL table with a second
// UNIQUE key lets INSERT ... ON DUPLICATE KEY UPDATE overwrite a different
// row — here order 2 takes order 1's code and order 1's row becomes
// order 2, silently (Flink's sink does the same). The sink refuses to
// open, naming the other key, unless 'sink.allow-other-unique-keys' is
// set; a surrogate AUTO_INCREMENT key the sink does not write cannot
// collide and is allowed.
func TestOtherUniqueKeys(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(32), UNIQUE KEY uk_status (status)) ENGINE = InnoDB")
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0"))
	w, err := sink.NewJDBCWriter(0, 1, sink.ExecutionOptions())
	if err != nil {
		t.Fatal(err)
	}
	err = w.Open(context.Background(), nil)
	w.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), "has unique keys besides the declared primary key (id): uk_status (status)") ||
		!strings.Contains(err.Error(), "'sink.allow-other-unique-keys' = 'true'") {
		t.Fatalf("open with a second unique key: %v", err)
	}
	noPassword(t, s, err)

	// Opted in: the overwrite the check warns about really happens.
	w = openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0", OptAllowOtherUniqueKeys, "true")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	snapshot(t, w, 1)
	write(t, w, order(sql.Insert, 2, "2.00", "A"))
	snapshot(t, w, 2)
	eq(t, "table after the collision", s.Table(t, db, "orders_rt"), "2, 2.00, A\n")

	// A surrogate key: AUTO_INCREMENT, not written by the sink.
	db2 := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db2+"`.orders_rt (rid BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), UNIQUE KEY uk_id (id)) ENGINE = InnoDB")
	w = openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db2, OptSinkInterval, "0")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"), order(sql.Insert, 2, "2.00", "A"))
	snapshot(t, w, 1)
	eq(t, "rows", s.Query(t, "SELECT COUNT(*) FROM `"+db2+"`.orders_rt")[0][0], "2")
}

// TestPreparedStatementsBounded: flushes of every size from 1 to 40 rows
// prepare a statement per new size, but the session keeps at most
// maxCachedStmts of them (the largest of each kind survives eviction), so
// a long-running sink never exhausts the server's max_prepared_stmt_count.
func TestPreparedStatementsBounded(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	before := s.Status(t, "Prepared_stmt_count")["Prepared_stmt_count"]
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0", OptSinkMaxRows, "40")), nil)
	id := int64(0)
	for n := 1; n <= 40; n++ {
		var rows []sql.Row
		for i := 0; i < n; i++ {
			id++
			rows = append(rows, order(sql.Insert, id, "1.00", "A"))
		}
		write(t, w, rows...)
		snapshot(t, w, int64(n))
	}
	if got := len(w.conn.stmts); got > maxCachedStmts || got == 0 {
		t.Fatalf("%d statements cached", got)
	}
	if w.conn.stmts[stmtKey{kind: 'U', n: 40}] == nil {
		t.Fatalf("the full-size upsert was evicted: %v", w.conn.stmts)
	}
	if after := s.Status(t, "Prepared_stmt_count")["Prepared_stmt_count"]; after-before > maxCachedStmts {
		t.Fatalf("server holds %d more prepared statements", after-before)
	}
	eq(t, "rows", s.Query(t, "SELECT COUNT(*) FROM `"+db+"`.orders_rt")[0][0], fmt.Sprint(id))
}
