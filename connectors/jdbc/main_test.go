package jdbc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/testutil/mariadb"
	"github.com/sqlrun/sqlrun/sql"
)

// server is the package's shared throwaway MariaDB; tests that stop the
// server start their own. Tests here do not run in parallel because several
// read the server-wide status counters.
var (
	server    *mariadb.Server
	serverErr error
)

func TestMain(m *testing.M) {
	server, serverErr = mariadb.StartServer()
	code := m.Run()
	if server != nil {
		server.Close()
	}
	os.Exit(code)
}

func shared(t testing.TB) *mariadb.Server {
	t.Helper()
	if errors.Is(serverErr, mariadb.ErrUnavailable) {
		t.Skipf("mariadb: %v", serverErr)
	}
	if serverErr != nil {
		t.Fatalf("mariadb: %v", serverErr)
	}
	return server
}

// ordersSchema is the seed's Flink table: id BIGINT, amount DECIMAL(10, 2),
// status STRING, PRIMARY KEY (id) NOT ENFORCED.
func ordersSchema(pk bool) sql.Schema {
	s := sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.BigInt().NotNull()},
		{Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()},
	}}
	if pk {
		s.PrimaryKey = []string{"id"}
	}
	return s
}

const ordersDDL = "CREATE TABLE `%s`.`orders_rt` (id BIGINT NOT NULL, amount DECIMAL(10, 2), status VARCHAR(32), PRIMARY KEY (id)) ENGINE = InnoDB"

// ordersDB creates a database with the seed's MySQL table orders_rt.
func ordersDB(t testing.TB, s *mariadb.Server) string {
	db := s.NewDatabase(t)
	s.Exec(t, fmt.Sprintf(ordersDDL, db))
	return db
}

// tableOptions are the seed's WITH options for s and database db.
func tableOptions(s *mariadb.Server, db string, extra ...string) map[string]string {
	o := map[string]string{
		"connector":                  "jdbc",
		"url":                        s.JDBCURL(db),
		"table-name":                 "orders_rt",
		"username":                   s.User,
		"password":                   s.Password,
		"sink.buffer-flush.max-rows": "100",
		"sink.buffer-flush.interval": "1s",
		"sink.max-retries":           "3",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		o[extra[i]] = extra[i+1]
	}
	return o
}

func newSink(t testing.TB, schema sql.Schema, opts map[string]string) *Sink {
	t.Helper()
	ts, err := Factory{}.CreateSink(&connectors.Context{
		Table:   connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: "mysql_orders"},
		Schema:  schema,
		Options: opts,
	})
	if err != nil {
		t.Fatalf("CreateSink: %v", err)
	}
	return ts.(*Sink)
}

// openWriter creates and opens subtask 0 of 1 with the sink's options,
// closing it (if the test did not) when the test ends.
func openWriter(t testing.TB, sink *Sink, tweak func(*ExecutionOptions)) *Writer {
	t.Helper()
	eo := sink.ExecutionOptions()
	if tweak != nil {
		tweak(&eo)
	}
	w, err := sink.NewJDBCWriter(0, 1, eo)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func order(kind sql.RowKind, id int64, amount, status string) sql.Row {
	var a any
	if amount != "" {
		a = dec(amount)
	}
	return sql.Row{Kind: kind, Values: []any{id, a, status}}
}

func write(t *testing.T, w *Writer, rows ...sql.Row) {
	t.Helper()
	if err := w.Write(context.Background(), rows); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

func snapshot(t *testing.T, w *Writer, id int64) {
	t.Helper()
	if _, _, err := w.Snapshot(context.Background(), id); err != nil {
		t.Fatalf("Snapshot(%d): %v", id, err)
	}
}

// serverCounters reads Com_insert (every INSERT, also ON DUPLICATE KEY UPDATE),
// Com_delete, and Handler_delete (rows actually deleted).
func serverCounters(t testing.TB, s *mariadb.Server) map[string]int64 {
	return s.Status(t, "Com_insert", "Com_delete", "Handler_delete")
}

func delta(before, after map[string]int64) string {
	return fmt.Sprintf("insert=%d delete=%d rows-deleted=%d",
		after["Com_insert"]-before["Com_insert"], after["Com_delete"]-before["Com_delete"],
		after["Handler_delete"]-before["Handler_delete"])
}

func eq(t testing.TB, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s:\n got: %v\nwant: %v", what, got, want)
	}
}

// noPassword fails if err's text (with every wrapped cause) shows the
// password.
func noPassword(t *testing.T, s *mariadb.Server, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), s.Password) {
			t.Fatalf("password leaked in error: %v", e)
		}
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ctxFor(schema sql.Schema, opts map[string]string) *connectors.Context {
	return &connectors.Context{
		Table:   connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: "mysql_orders"},
		Schema:  schema,
		Options: opts,
	}
}
