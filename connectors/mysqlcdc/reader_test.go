package mysqlcdc

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/sql"
)

var srv *mariadb.Server

func TestMain(m *testing.M) {
	s, err := mariadb.StartServer()
	if err != nil {
		fmt.Fprintf(os.Stderr, "mysqlcdc: tests on MariaDB will skip: %v\n", err)
	} else {
		srv = s
	}
	code := m.Run()
	if srv != nil {
		srv.Close()
	}
	os.Exit(code)
}

func needServer(t *testing.T) *mariadb.Server {
	t.Helper()
	if srv == nil {
		t.Skip("mysqlcdc: no MariaDB (install mariadb-server: scripts/ensure-mariadb.sh, or set SQLRUN_MYSQL_DSN)")
	}
	return srv
}

// ordersSchema is the seed's orders table as Flink DDL declares it.
func ordersSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{
		{Name: "order_id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()},
	}, PrimaryKey: []string{"order_id"}}
}

func newSource(t *testing.T, s *mariadb.Server, db, table string, schema sql.Schema, extra map[string]string) *Source {
	t.Helper()
	opts := map[string]string{
		"hostname": s.Host, "port": fmt.Sprint(s.Port), "username": s.User, "password": s.Password,
		"database-name": db, "table-name": table, "server-id": "5401-5404",
	}
	for k, v := range extra {
		opts[k] = v
	}
	src, err := Factory{}.CreateSource(&connectors.Context{Table: connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: "src"},
		Schema: schema, Options: opts, Streaming: true})
	if err != nil {
		t.Fatalf("create source: %v", err)
	}
	return src.(*Source)
}

// run is a reader under test with the changelog it produced.
type run struct {
	t      *testing.T
	src    *Source
	r      *Reader
	types  []sql.DataType
	log    []string
	tables map[string][]any // materialized by primary key (first column)
}

func start(t *testing.T, src *Source, state []byte) *run {
	t.Helper()
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Open(context.Background(), state); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return &run{t: t, src: src, r: r.(*Reader), types: src.cfg.schema.Types(), tables: map[string][]any{}}
}

// apply materializes rows strictly: an insert of a present key or a
// retraction of an absent one is a duplicate or a loss.
func (u *run) apply(rows []sql.Row) {
	u.t.Helper()
	for _, row := range rows {
		u.log = append(u.log, sql.FormatRow(row, u.types))
		k := fmt.Sprint(row.Values[0])
		_, has := u.tables[k]
		switch row.Kind {
		case sql.Insert, sql.UpdateAfter:
			if has {
				u.t.Fatalf("%s: key %s is already present (a doubled row)", sql.FormatRow(row, u.types), k)
			}
			u.tables[k] = row.Values
		case sql.UpdateBefore, sql.Delete:
			if !has {
				u.t.Fatalf("%s: key %s is absent (a lost row)", sql.FormatRow(row, u.types), k)
			}
			delete(u.tables, k)
		}
	}
}

// step reads one batch.
func (u *run) step() int {
	u.t.Helper()
	rows, err := u.r.Next(context.Background())
	if err != nil {
		u.t.Fatalf("next: %v", err)
	}
	u.apply(rows)
	return len(rows)
}

// content is the materialized table, one line per row ordered by key, in
// the form mariadb.Server.Table prints.
func (u *run) content() string {
	var lines []string
	for _, v := range u.tables {
		f := make([]string, len(v))
		for i, x := range v {
			if x == nil {
				f[i] = "NULL"
			} else {
				f[i] = sql.FormatValue(x, u.types[i])
			}
		}
		lines = append(lines, strings.Join(f, ", "))
	}
	sort.Slice(lines, func(i, j int) bool { return keyLess(lines[i], lines[j]) })
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func keyLess(a, b string) bool {
	ka, _, _ := strings.Cut(a, ",")
	kb, _, _ := strings.Cut(b, ",")
	if len(ka) != len(kb) {
		return len(ka) < len(kb)
	}
	return a < b
}

// until reads until cond holds, failing after a deadline.
func (u *run) until(what string, cond func() bool) {
	u.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			u.t.Fatalf("timed out waiting for %s; changelog:\n%s", what, strings.Join(u.log, "\n"))
		}
		u.step()
	}
}

func (u *run) snapshotDone() bool { return u.r.st.Phase == phaseBinlog && u.r.stream != nil }

// TestOrderWalk drives the seed's order 1001 walk (created, paid, shipped,
// then deleted) with real statements on MariaDB and checks the changelog
// is Flink CDC's: the snapshot as +I, an UPDATE as -U/+U, a DELETE as -D
// (MySqlTableSource's changelog mode ALL; RowDataDebeziumDeserializeSchema
// emits UPDATE_BEFORE then UPDATE_AFTER).
func TestOrderWalk(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1000, 5.00, 'SHIPPED')")
	u := start(t, newSource(t, s, db, "orders", ordersSchema(), nil), nil)
	u.until("the snapshot", u.snapshotDone)
	for _, q := range []string{
		"INSERT INTO `" + db + "`.orders VALUES (1001, 80.00, 'CREATED')",
		"UPDATE `" + db + "`.orders SET status = 'PAID' WHERE order_id = 1001",
		"UPDATE `" + db + "`.orders SET status = 'SHIPPED', amount = 82.50 WHERE order_id = 1001",
		"DELETE FROM `" + db + "`.orders WHERE order_id = 1001",
	} {
		s.Exec(t, q)
	}
	want := `+I[1000, 5.00, SHIPPED]
+I[1001, 80.00, CREATED]
-U[1001, 80.00, CREATED]
+U[1001, 80.00, PAID]
-U[1001, 80.00, PAID]
+U[1001, 82.50, SHIPPED]
-D[1001, 82.50, SHIPPED]`
	u.until("the walk", func() bool { return len(u.log) >= 7 })
	if got := strings.Join(u.log, "\n"); got != want {
		t.Fatalf("changelog:\n%s\nwant:\n%s", got, want)
	}
}

// TestHandOverWritesInEveryChunk is the incremental snapshot's hand-over
// (Flink CDC's MySqlSnapshotSplitReadTask and BinlogSplitReader): writes
// land between every chunk's low and high watermark (merged into the
// chunk) and between chunks (read from the binlog, skipped where a later
// chunk already holds them). The changelog, applied strictly by key, must
// equal the table: nothing lost, nothing doubled.
func TestHandOverWritesInEveryChunk(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	var vals []string
	for i := 1; i <= 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d.25, 'CREATED')", i*2, i))
	}
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES "+strings.Join(vals, ", "))
	src := newSource(t, s, db, "orders", ordersSchema(), map[string]string{"scan.incremental.snapshot.chunk.size": "16"})
	u := start(t, src, nil)
	n := 0
	write := func() {
		n++
		for _, q := range []string{
			fmt.Sprintf("INSERT INTO orders VALUES (%d, 1.00, 'NEW')", 2*n+1),                      // odd keys: new rows all over the range
			fmt.Sprintf("UPDATE orders SET status = 'PAID-%d' WHERE order_id = %d", n, (n*37)%600), // rows in chunks done and to come
			fmt.Sprintf("DELETE FROM orders WHERE order_id = %d", (n*53)%600),
			fmt.Sprintf("UPDATE orders SET order_id = %d WHERE order_id = %d", 1000+n, (n*71)%600), // a key moving to the last chunk
		} {
			if _, err := h.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	afterSelect = write
	defer func() { afterSelect = nil }()
	chunks := 0
	for !u.snapshotDone() {
		u.step()
		write() // between chunks too
		chunks++
	}
	afterSelect = nil
	if chunks < 20 {
		t.Fatalf("only %d chunks: the test needs many", chunks)
	}
	want := s.Table(t, db, "orders")
	u.until("the table", func() bool { return u.content() == want })
	t.Logf("%d chunks, %d writes, %d changelog rows", chunks, n, len(u.log))
}

// TestResumeEverywhere restores a new reader from the state of every
// checkpoint the run could have taken (after each batch), in the snapshot
// and in the middle of binlog transactions, and checks the restored run
// ends equal to the table with nothing doubled.
func TestResumeEverywhere(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	h := s.DB(t, db)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	var vals []string
	for i := 1; i <= 40; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d.00, 'CREATED')", i, i))
	}
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES "+strings.Join(vals, ", "))
	src := newSource(t, s, db, "orders", ordersSchema(), map[string]string{"scan.incremental.snapshot.chunk.size": "8"})
	u := start(t, src, nil)
	restarts := 0
	step := 0
	for {
		if step == 3 {
			// A big transaction, and single statements, while reading.
			tx, err := h.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for i := 41; i <= 140; i++ {
				if _, err := tx.Exec(fmt.Sprintf("INSERT INTO orders VALUES (%d, 1.00, 'TX')", i)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tx.Exec("UPDATE orders SET status = 'TX-PAID' WHERE order_id <= 60"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Exec("DELETE FROM orders WHERE order_id % 7 = 0"); err != nil {
				t.Fatal(err)
			}
		}
		step++
		state, err := u.r.Snapshot(int64(step))
		if err != nil {
			t.Fatal(err)
		}
		// Restore from the state: the new reader continues exactly where
		// the checkpoint left off.
		log, tables := u.log, u.tables
		u.r.Close()
		u = start(t, src, state)
		u.log, u.tables = log, tables
		restarts++
		// Read in small batches so restores land inside transactions.
		// A fresh binlog connection may deliver nothing within one Next's
		// 50 ms wait on a loaded machine, so read until this reader has
		// moved (rows out, or its position changed): each restore then
		// lands at a new place instead of starting over where the last one
		// did.
		u.r.batchLimit = 7
		for deadline := time.Now().Add(20 * time.Second); ; {
			if u.step() > 0 {
				break
			}
			now, err := u.r.Snapshot(int64(step))
			if err != nil {
				t.Fatal(err)
			}
			if string(now) != string(state) || time.Now().After(deadline) {
				break
			}
		}
		if step > 3 && u.snapshotDone() && u.content() == s.Table(t, db, "orders") {
			break
		}
		if step > 400 {
			t.Fatalf("did not converge after %d restores; changelog:\n%s", restarts, strings.Join(u.log, "\n"))
		}
	}
	t.Logf("%d restores, %d changelog rows", restarts, len(u.log))
}

// TestTypesSnapshotEqualsBinlog reads the same values once from the
// snapshot (text protocol) and once from the binlog (row images decoded
// with vitess's go/mysql) and checks both give the same Flink values, the
// ones Flink CDC's documented type mapping gives (MySQL TIMESTAMP →
// TIMESTAMP_LTZ as an instant, DATETIME → TIMESTAMP as a wall clock,
// BIGINT UNSIGNED → DECIMAL(20, 0), SET → ARRAY<STRING>, ...).
func TestTypesSnapshotEqualsBinlog(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.types (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, b1 TINYINT(1), si SMALLINT, mi MEDIUMINT, iu INT UNSIGNED, "+
		"bi BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, de DECIMAL(12,4), c CHAR(3), v VARCHAR(20), tx TEXT, bin VARBINARY(8), bl BLOB, "+
		"dt DATE, tm TIME(3), dtm DATETIME(6), ts TIMESTAMP(3) NULL, y YEAR, e ENUM('red','green'), st SET('a','b','c'), bit1 BIT(1), js JSON, n INT)")
	values := "(-8, 200, 1, -300, -8000000, 4000000000, -9000000000000000000, 18446744073709551615, 1.5, -2.25, 12345678.1234, 'abc', 'héllo wörld', 'long text', " +
		"X'00FF10', X'DEADBEEF', '2024-02-29', '13:14:15.123', '2024-01-02 03:04:05.123456', '2024-06-01 12:00:00.250', 2024, 'green', 'a,c', b'1', '{\"k\": [1, 2]}', NULL)"
	s.Exec(t, "SET time_zone = '+00:00'")
	s.Exec(t, "INSERT INTO `"+db+"`.types VALUES (1, "+values[1:])
	schema := sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.Int().NotNull()}, {Name: "ti", Type: sql.TinyInt()}, {Name: "tu", Type: sql.SmallInt()},
		{Name: "b1", Type: sql.Boolean()}, {Name: "si", Type: sql.SmallInt()}, {Name: "mi", Type: sql.Int()},
		{Name: "iu", Type: sql.BigInt()}, {Name: "bi", Type: sql.BigInt()}, {Name: "bu", Type: sql.Decimal(20, 0)},
		{Name: "f", Type: sql.Float()}, {Name: "d", Type: sql.Double()}, {Name: "de", Type: sql.Decimal(12, 4)},
		{Name: "c", Type: sql.Char(3)}, {Name: "v", Type: sql.VarChar(20)}, {Name: "tx", Type: sql.String()},
		{Name: "bin", Type: sql.Bytes()}, {Name: "bl", Type: sql.Bytes()}, {Name: "dt", Type: sql.Date()},
		{Name: "tm", Type: sql.Time(3)}, {Name: "dtm", Type: sql.Timestamp(6)}, {Name: "ts", Type: sql.TimestampLTZ(3)},
		{Name: "y", Type: sql.Int()}, {Name: "e", Type: sql.String()}, {Name: "st", Type: sql.ArrayOf(sql.String())},
		{Name: "bit1", Type: sql.Boolean()}, {Name: "js", Type: sql.String()}, {Name: "n", Type: sql.Int()},
	}, PrimaryKey: []string{"id"}}
	u := start(t, newSource(t, s, db, "types", schema, nil), nil)
	u.until("the snapshot", u.snapshotDone)
	s.Exec(t, "INSERT INTO `"+db+"`.types VALUES (2, "+values[1:])
	u.until("the binlog row", func() bool { return len(u.log) >= 2 })
	want := "[-8, 200, true, -300, -8000000, 4000000000, -9000000000000000000, 18446744073709551615, 1.5, -2.25, 12345678.1234, abc, héllo wörld, long text, " +
		"x'00ff10', x'deadbeef', 2024-02-29, 13:14:15.123, 2024-01-02T03:04:05.123456, 2024-06-01T12:00:00.250Z, 2024, green, [a, c], true, {\"k\": [1, 2]}, null]"
	for i, l := range u.log {
		_, rest, _ := strings.Cut(l, ", ")
		if got := "[" + rest; got != want {
			t.Errorf("row %d (%s):\n got %s\nwant %s", i+1, []string{"snapshot", "binlog"}[i], got, want)
		}
	}
}

// TestServerRestartReconnects: the server restarts in the binlog phase;
// the reader re-opens the binlog where its state says (within
// connect.max-retries) and nothing is lost or doubled.
func TestServerRestartReconnects(t *testing.T) {
	s := needServer(t)
	if s.External() {
		t.Skip("needs a server the test can restart")
	}
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1, 1.00, 'A')")
	u := start(t, newSource(t, s, db, "orders", ordersSchema(), map[string]string{"connect.max-retries": "30"}), nil)
	u.until("the snapshot", u.snapshotDone)
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (2, 2.00, 'B')")
	u.until("row 2", func() bool { return len(u.log) >= 2 })
	s.Restart(t, 0)
	s.Exec(t, "UPDATE `"+db+"`.orders SET status = 'C' WHERE order_id = 1")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (3, 3.00, 'D')")
	want := s.Table(t, db, "orders")
	u.until("the table after the restart", func() bool { return u.content() == want })
}

// TestPurgedBinlogFails: a job resumed at a binlog position the server
// purged fails naming the position and what to do (Flink CDC fails too:
// "... is no longer available on the server").
func TestPurgedBinlogFails(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	src := newSource(t, s, db, "orders", ordersSchema(), nil)
	u := start(t, src, nil)
	u.until("the snapshot", u.snapshotDone)
	state, err := u.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	u.r.Close()
	s.Exec(t, "FLUSH BINARY LOGS")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1, 1.00, 'LOST')")
	s.Exec(t, "FLUSH BINARY LOGS")
	last := s.Query(t, "SHOW MASTER STATUS")[0][0]
	// PURGE leaves a log that a binlog dump thread still reads (this test's
	// closed reader's, or an earlier test's, until the server has noticed
	// the connection is gone) with only a warning: purge until the saved
	// position's file is gone, so that the reader below cannot find it.
	for deadline := time.Now().Add(30 * time.Second); ; {
		s.Exec(t, "PURGE BINARY LOGS TO '"+last+"'")
		gone := true
		for _, l := range s.Query(t, "SHOW BINARY LOGS") {
			gone = gone && l[0] != u.r.st.Pos.File
		}
		if gone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("binlog %s is still there after PURGE BINARY LOGS TO '%s'", u.r.st.Pos.File, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r, err := src.NewReader(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Open(context.Background(), state); err != nil {
		t.Fatalf("open: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows, err := r.Next(context.Background())
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "is no longer available") || !strings.Contains(msg, u.r.st.Pos.File) {
				t.Fatalf("error does not name the purged position:\n%s", msg)
			}
			return
		}
		if len(rows) > 0 {
			t.Fatalf("read %v from a purged binlog", rows)
		}
		if time.Now().After(deadline) {
			t.Fatal("no error for a purged binlog")
		}
	}
}

// TestTimestampServerTimeZone: a MySQL TIMESTAMP is an instant. Read into
// a TIMESTAMP column it becomes its wall clock in 'server-time-zone' (Flink
// CDC's RowDataDebeziumDeserializeSchema.convertToTimestamp, and Paimon's
// DebeziumSchemaUtils for its MySQL action: Instant.atZone(serverTimeZone));
// into TIMESTAMP_LTZ it stays the instant; a DATETIME has no zone. The
// same in the snapshot and the binlog.
func TestTimestampServerTimeZone(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.tz (id INT PRIMARY KEY, ts TIMESTAMP NULL, ltz TIMESTAMP NULL, dtm DATETIME)")
	// 1704038400 is 2023-12-31 16:00:00 UTC, 2024-01-01 00:00:00 in Shanghai.
	row := func(id int) string {
		return fmt.Sprintf("INSERT INTO `%s`.tz VALUES (%d, FROM_UNIXTIME(1704038400), FROM_UNIXTIME(1704038400), '2024-01-01 00:00:00')", db, id)
	}
	s.Exec(t, row(1))
	schema := sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.Int().NotNull()}, {Name: "ts", Type: sql.Timestamp(0)},
		{Name: "ltz", Type: sql.TimestampLTZ(0)}, {Name: "dtm", Type: sql.Timestamp(0)},
	}, PrimaryKey: []string{"id"}}
	u := start(t, newSource(t, s, db, "tz", schema, map[string]string{"server-time-zone": "Asia/Shanghai"}), nil)
	u.until("the snapshot", u.snapshotDone)
	s.Exec(t, row(2))
	u.until("the binlog row", func() bool { return len(u.log) >= 2 })
	for i, l := range u.log {
		_, rest, _ := strings.Cut(l, ", ")
		if want := "2024-01-01T00:00, 2023-12-31T16:00Z, 2024-01-01T00:00]"; rest != want {
			t.Errorf("row %d (%s): got %s, want %s", i+1, []string{"snapshot", "binlog"}[i], rest, want)
		}
	}
}

// TestAlterBeforeFirstChunk: an ALTER TABLE between a sync-action
// source's reading of the columns (Open) and the table's first snapshot
// chunk lies before every binlog position the source reads. A widened type
// keeps the column count, so it was silently not followed (the Paimon table
// kept DECIMAL(10,2) while MySQL held DECIMAL(12,2)), and it was then
// refused. A source that has read no chunk now ends its input there, as at
// an ALTER TABLE it reads, before any row (the action evolves the Paimon
// table), and resumed from its final state it reads the table with the new
// columns; the same for an ALTER between the action's reading of the
// columns ('sqlrun.paimon-sync-columns') and the source's. One that has
// read chunks of another table still refuses it.
func TestAlterBeforeFirstChunk(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders VALUES (1, 1.00, 'CREATED')")
	src := newSource(t, s, db, "orders", ordersSchema(), map[string]string{OptSyncAction: "true"})
	u := start(t, src, nil)
	s.Exec(t, "ALTER TABLE `"+db+"`.orders MODIFY amount DECIMAL(12,2)")
	s.Exec(t, "UPDATE `"+db+"`.orders SET amount = 1234567890.12")
	for {
		rows, err := u.r.Next(context.Background())
		if len(rows) > 0 {
			t.Fatalf("read %v with the old columns", rows)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
	}
	if sc := u.r.schemaChange; sc == nil || !strings.Contains(sc.DDL, "amount decimal(10,2)") || !strings.Contains(sc.DDL, "now order_id bigint(20), amount decimal(12,2)") {
		t.Fatalf("the input ended for %+v", u.r.schemaChange)
	}
	st, err := u.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	// The action evolved the Paimon table: the resumed job's source
	// declares DECIMAL(12,2).
	wide := ordersSchema()
	wide.Columns[1].Type = sql.Decimal(12, 2)
	u = start(t, newSource(t, s, db, "orders", wide, map[string]string{OptSyncAction: "true"}), st)
	u.types = wide.Types()
	u.until("the snapshot", u.snapshotDone)
	if got, want := u.content(), s.Table(t, db, "orders"); got != want || !strings.Contains(got, "1234567890.12") {
		t.Fatalf("table\n%s\nwant\n%s", got, want)
	}

	// The ALTER between the action's reading of the columns
	// (OptSyncColumns) and the source's start: the source's own columns
	// are the new ones, the Paimon table has the old ones.
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_c (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders_c VALUES (3, 3.00, 'CREATED')")
	conf := map[string]string{"hostname": s.Host, "port": fmt.Sprint(s.Port), "username": s.User, "password": s.Password,
		OptDatabaseName: db, OptTableName: "orders_c"}
	read, err := Describe(context.Background(), conf)
	if err != nil {
		t.Fatal(err)
	}
	synced := map[string]string{OptSyncAction: "true", OptSyncColumns: SyncColumns(read)}
	s.Exec(t, "ALTER TABLE `"+db+"`.orders_c MODIFY amount DECIMAL(12,2)")
	u = start(t, newSource(t, s, db, "orders_c", ordersSchema(), synced), nil)
	for {
		rows, err := u.r.Next(context.Background())
		if len(rows) > 0 {
			t.Fatalf("read %v with the old columns", rows)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
	}
	if sc := u.r.schemaChange; sc == nil || !strings.Contains(sc.DDL, "amount decimal(10,2)") || !strings.Contains(sc.DDL, "now order_id bigint(20), amount decimal(12,2)") {
		t.Fatalf("the input ended for %+v", u.r.schemaChange)
	}
	// The columns the action reads when nothing changed: no stop.
	if read, err = Describe(context.Background(), conf); err != nil {
		t.Fatal(err)
	}
	synced[OptSyncColumns] = SyncColumns(read)
	u = start(t, newSource(t, s, db, "orders_c", wide, synced), nil)
	u.types = wide.Types()
	u.until("the snapshot", u.snapshotDone)
	if got, want := u.content(), s.Table(t, db, "orders_c"); got != want {
		t.Fatalf("table\n%s\nwant\n%s", got, want)
	}

	// Two tables: the first one's chunks read, then the other changes.
	s.Exec(t, "CREATE TABLE `"+db+"`.orders_b (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "INSERT INTO `"+db+"`.orders_b VALUES (2, 2.00, 'CREATED')")
	u = start(t, newSource(t, s, db, "orders|orders_b", ordersSchema(), map[string]string{OptSyncAction: "true"}), nil)
	for len(u.r.st.Chunks) == 0 {
		u.step()
	}
	s.Exec(t, "ALTER TABLE `"+db+"`.orders_b MODIFY amount DECIMAL(14,2)")
	for {
		rows, err := u.r.Next(context.Background())
		if err != nil {
			if !strings.Contains(err.Error(), "mysql-cdc: table "+db+".orders_b changed between reading its columns") ||
				!strings.Contains(err.Error(), "amount decimal(10,2)") || !strings.Contains(err.Error(), "now order_id bigint(20), amount decimal(14,2)") {
				t.Fatalf("got %v", err)
			}
			break
		}
		u.apply(rows)
	}
}

// TestStartupTimestamp is 'scan.startup.mode' = 'timestamp': no snapshot;
// the binlog from the newest file whose first event is older than the
// startup second (Flink CDC's DebeziumUtils.findBinlogOffset; the oldest
// file when none is), and the events of earlier seconds dropped
// (BinlogSplitReader.createEventFilter: an event's second at or after
// 'scan.startup.timestamp-millis' / 1000 is kept). The statements' binlog
// times are set with the session's timestamp.
func TestStartupTimestamp(t *testing.T) {
	s := needServer(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.orders (order_id BIGINT PRIMARY KEY, amount DECIMAL(10,2), status VARCHAR(16))")
	s.Exec(t, "FLUSH BINARY LOGS")
	newest := s.Query(t, "SHOW MASTER STATUS")[0][0]
	oldest := s.Query(t, "SHOW BINARY LOGS")[0][0]
	now, err := strconv.ParseInt(s.Query(t, "SELECT UNIX_TIMESTAMP()")[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// A year back: older than every binlog file of the test's server.
	since := now - 365*24*3600
	ctx := context.Background()
	conn, err := s.DB(t, db).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	at := func(sec int64, qs ...string) {
		t.Helper()
		set := "SET timestamp = DEFAULT"
		if sec != 0 {
			set = fmt.Sprintf("SET timestamp = %d", sec)
		}
		for _, q := range append([]string{set}, qs...) {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	at(since-3600, "INSERT INTO orders VALUES (1, 1.00, 'BEFORE')")
	at(since-1, "INSERT INTO orders VALUES (4, 4.00, 'JUST BEFORE')")
	at(since, "INSERT INTO orders VALUES (3, 3.00, 'AT')")
	at(since+100, "INSERT INTO orders VALUES (2, 2.00, 'AFTER')", "UPDATE orders SET status = 'AFTER2' WHERE order_id = 2")
	at(0, "INSERT INTO orders VALUES (5, 5.00, 'NOW')", "DELETE FROM orders WHERE order_id = 3")
	at(now+1000, "INSERT INTO orders VALUES (6, 6.00, 'FUTURE')")

	past := map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": fmt.Sprint(since*1000 + 999)}
	u := start(t, newSource(t, s, db, "orders", ordersSchema(), past), nil)
	if u.r.st.Pos != (position{File: oldest, Pos: 4}) || u.r.st.Since != since {
		t.Errorf("start of a timestamp older than every binlog file: %v since %d, want %s:4 since %d", u.r.st.Pos, u.r.st.Since, oldest, since)
	}
	want := `+I[3, 3.00, AT]
+I[2, 2.00, AFTER]
-U[2, 2.00, AFTER]
+U[2, 2.00, AFTER2]
+I[5, 5.00, NOW]
-D[3, 3.00, AT]
+I[6, 6.00, FUTURE]`
	u.until("the changes since the timestamp", func() bool { return len(u.log) >= 7 })
	if got := strings.Join(u.log, "\n"); got != want {
		t.Fatalf("changelog:\n%s\nwant:\n%s", got, want)
	}
	// The filter is in the checkpoint: a resumed reader keeps it.
	st, err := u.r.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	u.r.Close()
	u2 := start(t, newSource(t, s, db, "orders", ordersSchema(), past), st)
	if u2.r.st.Since != since {
		t.Errorf("restored since %d, want %d", u2.r.st.Since, since)
	}

	future := map[string]string{"scan.startup.mode": "TIMESTAMP", "scan.startup.timestamp-millis": fmt.Sprint((now + 1000) * 1000)}
	u3 := start(t, newSource(t, s, db, "orders", ordersSchema(), future), nil)
	if u3.r.st.Pos != (position{File: newest, Pos: 4}) {
		t.Errorf("start of a timestamp after the newest file's first event: %v, want %s:4", u3.r.st.Pos, newest)
	}
	u3.until("the row of the future second", func() bool { return len(u3.log) >= 1 })
	if got := strings.Join(u3.log, "\n"); got != "+I[6, 6.00, FUTURE]" {
		t.Fatalf("changelog:\n%s\nwant only +I[6, 6.00, FUTURE]", got)
	}

	if _, err := (Factory{}).CreateSource(&connectors.Context{Schema: ordersSchema(), Streaming: true, Options: map[string]string{
		"hostname": s.Host, "username": s.User, "password": s.Password, "database-name": db, "table-name": "orders",
		"scan.startup.mode": "timestamp"}}); err == nil || !strings.Contains(err.Error(), "'scan.startup.timestamp-millis' is required when 'scan.startup.mode' = 'timestamp'.") {
		t.Errorf("timestamp without timestamp-millis: %v", err)
	}
}
