package jdbc

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/sql"
)

// TestServerStoppedMidRun: MariaDB goes down for two seconds while a writer
// is flushing. The flush fails, the writer checks the session, reconnects
// once the server is back, resends its whole buffer, and no row is lost.
// The budget is sink.max-retries = 15 (0+1+...+14 = 105 s of back-off):
// the outage is the stop, 2 s and a restart that takes much longer on a
// loaded machine (with 6 retries, 15 s, it failed once at load ~30), so
// only a lost row or a writer that never reconnects fails the test.
func TestServerStoppedMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a server for seconds")
	}
	s := mariadb.Start(t)
	db := ordersDB(t, s)
	sink := newSink(t, ordersSchema(true), tableOptions(s, db,
		OptSinkMaxRows, "50", OptSinkInterval, "0", OptSinkMaxRetries, "15"))
	w := openWriter(t, sink, nil)

	const keys = 3000
	wrote := make(chan int, keys)
	done := make(chan error, 1)
	go func() {
		for id := int64(1); id <= keys; id++ {
			rows := []sql.Row{order(sql.Insert, id, "1.00", "NEW"), order(sql.UpdateAfter, id, fmt.Sprintf("%d.00", id), "PAID")}
			if id%10 == 0 {
				rows = append(rows, order(sql.Delete, id, "", ""))
			}
			if err := w.Write(context.Background(), rows); err != nil {
				done <- err
				return
			}
			wrote <- int(id)
			time.Sleep(time.Millisecond)
		}
		_, _, err := w.Snapshot(context.Background(), 1)
		done <- err
	}()
	for id := range wrote {
		if id == 500 {
			break
		}
	}
	s.Stop(t)
	time.Sleep(2 * time.Second)
	s.Resume(t)
	go func() {
		for range wrote {
		}
	}()
	if err := <-done; err != nil {
		t.Fatalf("writer failed across the outage: %v", err)
	}
	st := w.Stats()
	t.Logf("stats after the outage: %+v", st)
	if st.Failures == 0 || st.Reconnects == 0 {
		t.Fatalf("expected failed attempts and a reconnect, got %+v", st)
	}
	got := s.Query(t, "SELECT COUNT(*), SUM(amount), MIN(status), MAX(status) FROM `"+db+"`.orders_rt")[0]
	// Every key but the multiples of 10 survives with amount = id.
	var sum int64
	for id := int64(1); id <= keys; id++ {
		if id%10 != 0 {
			sum += id
		}
	}
	eq(t, "rows after the outage", got, []string{fmt.Sprint(keys - keys/10), fmt.Sprintf("%d.00", sum), "PAID", "PAID"})
}

// TestConstraintAndTypeErrors: errors a retry cannot fix fail the flush at
// once, naming the table and the statement kind; a failed timer flush
// surfaces on the next call as Flink's "Writing records to JDBC failed.".
func TestConstraintAndTypeErrors(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_rt (id BIGINT NOT NULL PRIMARY KEY, amount DECIMAL(10, 2), status VARCHAR(4))")
	s.Exec(t, "CREATE TABLE `"+db+"`.items (id BIGINT PRIMARY KEY, order_id BIGINT, FOREIGN KEY (order_id) REFERENCES orders_rt (id))")

	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "TOO LONG FOR VARCHAR(4)"))
	_, _, err := w.Snapshot(context.Background(), 1)
	checkFlushError(t, s, err, "UPSERT", "Data too long")

	s.Exec(t, "INSERT INTO `"+db+"`.orders_rt VALUES (2, 1, 'OK')")
	s.Exec(t, "INSERT INTO `"+db+"`.items VALUES (1, 2)")
	w2 := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	write(t, w2, order(sql.Delete, 2, "", ""))
	_, _, err = w2.Snapshot(context.Background(), 1)
	checkFlushError(t, s, err, "DELETE", "foreign key constraint fails")

	// The interval timer hits the error; the next Write reports it.
	w3 := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "50ms")), nil)
	write(t, w3, order(sql.Insert, 3, "1.00", "WAY TOO LONG"))
	var werr error
	waitFor(t, 3*time.Second, "the async failure", func() bool {
		werr = w3.Write(context.Background(), nil)
		return werr != nil
	})
	eq(t, "async message", werr.Error(), "Writing records to JDBC failed.")
	t.Logf("async failure: %v; root cause: %s", werr, sql.RootCause(werr).Msg)
	checkFlushError(t, s, werr, "UPSERT", "Data too long")
	if _, _, err := w3.Snapshot(context.Background(), 2); err == nil {
		t.Fatal("Snapshot after an async failure must fail")
	}

	// A max-rows flush failing inside Write is wrapped as writeRecord does.
	w4 := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "1")), nil)
	err = w4.Write(context.Background(), []sql.Row{order(sql.Insert, 4, "1.00", "ALSO TOO LONG")})
	if err == nil || err.Error() != "Writing records to JDBC failed." {
		t.Fatalf("sync flush failure in Write: %v", err)
	}
	checkFlushError(t, s, err, "UPSERT", "Data too long")
}

func checkFlushError(t *testing.T, s *mariadb.Server, err error, kind, cause string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: expected an error", kind)
	}
	noPassword(t, s, err)
	var fe *FlushError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: not a FlushError: %v", kind, err)
	}
	root := sql.RootCause(err)
	if root == nil || root.Class != sql.IOException {
		t.Fatalf("%s: root cause %v", kind, root)
	}
	for _, want := range []string{"JDBC " + kind, "table 'orders_rt'", cause} {
		if !strings.Contains(root.Msg, want) {
			t.Fatalf("%s: %q does not mention %q", kind, root.Msg, want)
		}
	}
	if fe.Attempts != 1 {
		t.Fatalf("%s: a permanent error was retried: %d attempts", kind, fe.Attempts)
	}
}

// TestPasswordNeverShown: a wrong password, a bad URL carrying a password,
// and an unreachable server all fail without printing the password.
func TestPasswordNeverShown(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	const wrong = "Wrong-Pw-99871"
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptPassword, wrong))
	w, err := sink.NewJDBCWriter(0, 1, sink.ExecutionOptions())
	if err != nil {
		t.Fatal(err)
	}
	err = w.Open(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("wrong password: %v", err)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), wrong) {
			t.Fatalf("password in error: %v", e)
		}
	}
	w.Close(context.Background())

	opts := tableOptions(s, db)
	opts[OptURL] = s.JDBCURL(db) + "?password=" + s.Password + "&useSSL=perhaps"
	delete(opts, OptUsername)
	delete(opts, OptPassword)
	_, err = Factory{}.CreateSink(ctxFor(ordersSchema(true), opts))
	if err == nil {
		t.Fatal("bad URL accepted")
	}
	noPassword(t, s, err)

	opts = tableOptions(s, db, OptURL, "jdbc:mysql://127.0.0.1:1/"+db, OptMaxRetryTimeout, "1s")
	sink = newSink(t, ordersSchema(true), opts)
	w, _ = sink.NewJDBCWriter(0, 1, sink.ExecutionOptions())
	err = w.Open(context.Background(), nil)
	if err == nil {
		t.Fatal("unreachable server: no error")
	}
	noPassword(t, s, err)
	if !strings.Contains(err.Error(), "unable to open JDBC writer") {
		t.Fatalf("unreachable server: %v", err)
	}
	w.Close(context.Background())
	if strings.Contains(sink.cfg.String(), s.Password) {
		t.Fatalf("config description shows the password: %s", sink.cfg)
	}
}

// TestReplayAfterCrash is recovery at writer level. Checkpoint 1 completes;
// the rows after it are flushed (max-rows and the barrier of checkpoint 2)
// but the job dies before checkpoint 2 completes, so a new writer gets them
// again. The replay leaves the table identical, and its deletes affect 0
// rows.
func TestReplayAfterCrash(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	rnd := rand.New(rand.NewSource(8))
	live := map[int64]bool{}
	kindFor := func(id int64) sql.RowKind {
		if live[id] {
			return sql.UpdateAfter
		}
		live[id] = true
		return sql.Insert
	}
	amount := func() string { return fmt.Sprintf("%d.%02d", rnd.Intn(1000), rnd.Intn(100)) }
	// Epoch 1: a random changelog over keys 1..300.
	var epoch1 []sql.Row
	for range 2000 {
		id := int64(rnd.Intn(300) + 1)
		if live[id] && rnd.Intn(4) == 0 {
			epoch1 = append(epoch1, order(sql.Delete, id, "", ""))
			delete(live, id)
			continue
		}
		epoch1 = append(epoch1, order(kindFor(id), id, amount(), "S"))
	}
	// Epoch 2: upserts of keys 1..150 and 400..450, interleaved with deletes
	// of live keys above 150 that epoch 2 does not otherwise touch, as the
	// seed's order 1001 (deleted once, then replayed). A key upserted and
	// then deleted inside the replayed epoch would legitimately be deleted
	// again.
	var ups, dels []sql.Row
	for range 1500 {
		id := int64(rnd.Intn(150) + 1)
		if rnd.Intn(4) == 0 {
			id = int64(rnd.Intn(51) + 400)
		}
		ups = append(ups, order(kindFor(id), id, amount(), "S"))
	}
	for id := int64(151); id <= 300; id++ {
		if live[id] && id%2 == 0 {
			dels = append(dels, order(sql.Delete, id, "", ""))
		}
	}
	var epoch2 []sql.Row
	for len(ups)+len(dels) > 0 {
		if len(dels) > 0 && (len(ups) == 0 || rnd.Intn(10) == 0) {
			epoch2, dels = append(epoch2, dels[0]), dels[1:]
		} else {
			epoch2, ups = append(epoch2, ups[0]), ups[1:]
		}
	}
	model := map[int64]string{}
	for _, r := range append(append([]sql.Row(nil), epoch1...), epoch2...) {
		id := r.Values[0].(int64)
		if r.Kind == sql.Delete {
			delete(model, id)
		} else {
			model[id] = r.Values[1].(interface{ StringFixed(int32) string }).StringFixed(2)
		}
	}
	want := modelTable(model)

	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkMaxRows, "64", OptSinkInterval, "0"))
	first := openWriter(t, sink, nil)
	write(t, first, epoch1...)
	snapshot(t, first, 1) // checkpoint 1 completes
	write(t, first, epoch2...)
	snapshot(t, first, 2) // flushed, but checkpoint 2 never completes:
	first.conn.close()    // the process dies here; no Close, no flush.
	eq(t, "table after the first run", s.Table(t, db, "orders_rt"), want)

	before := serverCounters(t, s)
	second := openWriter(t, sink, nil) // restored from checkpoint 1: replays epoch 2
	write(t, second, epoch2...)
	snapshot(t, second, 2)
	if err := second.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := serverCounters(t, s)
	eq(t, "table after the replay", s.Table(t, db, "orders_rt"), want)
	if second.Stats().DeleteRows == 0 || after["Com_delete"] == before["Com_delete"] {
		t.Fatal("the replay sent no deletes; the test proves nothing")
	}
	eq(t, "rows deleted by the replay", after["Handler_delete"]-before["Handler_delete"], 0)
}

func modelTable(m map[int64]string) string {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%d, %s, S\n", id, m[id])
	}
	return b.String()
}

// TestRetriesExhausted: with the server down longer than the retry budget,
// a flush makes max-retries+1 attempts with Flink's growing sleeps (here in
// units of 200 ms instead of 1 s), then fails naming the table and the
// statement kind. The buffer is kept, so a later flush (after the server
// is back) still writes every row.
func TestRetriesExhausted(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a server")
	}
	s := mariadb.Start(t)
	db := ordersDB(t, s)
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0", OptSinkMaxRetries, "2"))
	w := openWriter(t, sink, func(o *ExecutionOptions) { o.RetryUnit = 200 * time.Millisecond })
	write(t, w, order(sql.Insert, 1, "1.00", "A"), order(sql.Insert, 2, "2.00", "B"))
	s.Stop(t)
	start := time.Now()
	_, _, err := w.Snapshot(context.Background(), 1)
	elapsed := time.Since(start)
	var fe *FlushError
	if !errors.As(err, &fe) {
		t.Fatalf("expected a FlushError, got %v", err)
	}
	noPassword(t, s, err)
	eq(t, "attempts", fe.Attempts, 3)
	if elapsed < 200*time.Millisecond || elapsed > 5*time.Second {
		t.Fatalf("back-off 0 + 200ms expected, took %v", elapsed)
	}
	root := sql.RootCause(err)
	if root == nil || root.Class != sql.IOException || !strings.Contains(root.Msg, "JDBC UPSERT on table 'orders_rt' failed after 3 attempt(s) (sink.max-retries=2)") {
		t.Fatalf("root cause: %v", root)
	}
	t.Logf("after %v: %s: %s", elapsed, root.Class, root.Msg)
	s.Resume(t)
	snapshot(t, w, 2)
	eq(t, "table after the server is back", s.Table(t, db, "orders_rt"), "1, 1.00, A\n2, 2.00, B\n")
}

// TestKilledSessionReconnects: the server drops the writer's session (as
// wait_timeout or a DBA's KILL would). The next flush fails once, finds the
// session invalid, reconnects and succeeds at once (the back-off after
// attempt 0 is 0 s).
func TestKilledSessionReconnects(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	snapshot(t, w, 1)
	var id int64
	if err := w.conn.c.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	s.Exec(t, fmt.Sprintf("KILL CONNECTION %d", id))
	write(t, w, order(sql.UpdateAfter, 1, "2.00", "B"))
	start := time.Now()
	snapshot(t, w, 2)
	if el := time.Since(start); el > time.Second {
		t.Fatalf("reconnect took %v", el)
	}
	st := w.Stats()
	eq(t, "failures/reconnects", []int64{st.Failures, st.Reconnects}, []int64{1, 1})
	eq(t, "table", s.Table(t, db, "orders_rt"), "1, 2.00, B\n")
}

// TestIntervalFlushReconnectsAndFails is the interval-timer half of
// JdbcOutputFormat.flush (issue 23): a quiet writer — one row, no further
// Write, no checkpoint — whose server goes down. While the server is back
// within the retry budget the timer's flush reconnects and the row
// arrives; when the outage outlasts the budget, the writer reports the
// failure on Failed() by itself (the runtime fails the job with it), with
// the table and the number of rows not written, instead of keeping it for
// a next call that may never come.
func TestIntervalFlushReconnectsAndFails(t *testing.T) {
	if testing.Short() {
		t.Skip("stops a server")
	}
	s := mariadb.Start(t)
	db := ordersDB(t, s)
	// A budget (sleeps 0, 0.5, ... 5.5 s = 33 s) that outlasts a restart
	// even on a loaded machine.
	sink := newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "50ms", OptSinkMaxRetries, "12"))
	w := openWriter(t, sink, func(o *ExecutionOptions) { o.RetryUnit = 500 * time.Millisecond })
	write(t, w, order(sql.Insert, 1, "1.00", "A"))
	waitFor(t, 10*time.Second, "the first row", func() bool { return s.Table(t, db, "orders_rt") == "1, 1.00, A\n" })

	// Outage within the budget.
	s.Stop(t)
	write(t, w, order(sql.UpdateAfter, 1, "2.00", "B"))
	waitFor(t, 20*time.Second, "a failed timer flush", func() bool { return w.Stats().Failures >= 1 })
	s.Resume(t)
	waitFor(t, time.Minute, "the row after the restart", func() bool { return s.Table(t, db, "orders_rt") == "1, 2.00, B\n" })
	select {
	case err := <-w.Failed():
		t.Fatalf("writer failed although the server came back within the retry budget: %v", err)
	default:
	}
	if st := w.Stats(); st.Reconnects == 0 {
		t.Fatalf("no reconnect counted: %+v", st)
	}

	// Outage beyond the budget of a second writer (sleeps 0, 0.1 s): the
	// failure is reported without any call.
	w2 := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "50ms", OptSinkMaxRetries, "2")),
		func(o *ExecutionOptions) { o.RetryUnit = 100 * time.Millisecond })
	s.Stop(t)
	write(t, w2, order(sql.Insert, 2, "3.00", "C"), order(sql.Insert, 3, "4.00", "D"))
	var err error
	select {
	case err = <-w2.Failed():
	case <-time.After(2 * time.Minute):
		t.Fatal("a timer flush that failed for good was never reported")
	}
	noPassword(t, s, err)
	root := sql.RootCause(err)
	if root == nil || !strings.Contains(root.Msg, "JDBC UPSERT on table 'orders_rt' failed after 3 attempt(s) (sink.max-retries=2), 2 buffered row(s) not written") {
		t.Fatalf("failure: %v", err)
	}
	if _, _, err := w2.Snapshot(context.Background(), 1); err == nil {
		t.Fatal("a checkpoint after the failure succeeded")
	}
	s.Resume(t)
}

// TestRowOverMaxAllowedPacket (issue 25 finding 8): a row larger than the
// server's max_allowed_packet can never be sent, so the flush fails at
// once — one attempt, no back-off — naming the server variable and the
// row's size (not the Go driver's Config.MaxAllowedPacket). The rows
// before it in the buffer are reported as not written; a smaller row
// after the failure is no business of this writer any more.
func TestRowOverMaxAllowedPacket(t *testing.T) {
	s := shared(t)
	db := ordersDB(t, s)
	s.Exec(t, "ALTER TABLE `"+db+"`.orders_rt MODIFY status LONGTEXT")
	var maxP int
	fmt.Sscan(s.Query(t, "SELECT @@GLOBAL.max_allowed_packet")[0][0], &maxP)
	w := openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db, OptSinkInterval, "0")), nil)
	big := strings.Repeat("x", maxP+1)
	write(t, w, order(sql.Insert, 1, "1.00", "small"), order(sql.Insert, 2, "2.00", big))
	start := time.Now()
	_, _, err := w.Snapshot(context.Background(), 1)
	el := time.Since(start)
	var fe *FlushError
	if !errors.As(err, &fe) {
		t.Fatalf("want a FlushError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"JDBC UPSERT on table 'orders_rt' failed after 1 attempt(s) (sink.max-retries=3), 2 buffered row(s) not written",
		fmt.Sprintf("larger than the server's max_allowed_packet (%d bytes)", maxP),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%.400s", want, msg)
		}
	}
	var size int
	at := max(strings.Index(msg, "a row of about "), 0)
	if _, err := fmt.Sscanf(msg[at:], "a row of about %d bytes", &size); err != nil || size <= maxP || size > maxP+100 {
		t.Errorf("row size %d in %.400s, want about %d", size, msg, maxP+1)
	}
	if strings.Contains(msg, "MaxAllowedPacket") || el > 900*time.Millisecond {
		t.Errorf("after %v: %.400s", el, msg)
	}
}
