package main

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/exec"
)

func TestCompleter(t *testing.T) {
	s := exec.NewSession()
	if err := s.ExecuteScript(context.Background(),
		"CREATE TABLE orders (a INT) WITH ('connector' = 'blackhole'); CREATE TABLE order_log (a INT) WITH ('connector' = 'blackhole');",
		"", io.Discard); err != nil {
		t.Fatal(err)
	}
	complete := completer(s)
	for _, c := range []struct {
		line       string
		head, tail string
		want       []string
	}{
		// Keywords keep the case the user types.
		{"sel", "", "", []string{"select"}},
		{"SEL", "", "", []string{"SELECT"}},
		// After FROM / DESCRIBE only table names.
		{"SELECT * FROM ord", "SELECT * FROM ", "", []string{"order_log", "orders"}},
		{"DESCRIBE orders_", "DESCRIBE ", "", nil},
		// Inside a quote: SET keys and connector options.
		{"SET 'table.dml", "SET ", "", []string{"'table.dml-sync'"}},
		{"CREATE TABLE t (a INT) WITH ('sink.buffer-flush.max", "CREATE TABLE t (a INT) WITH (", "",
			[]string{"'sink.buffer-flush.max-rows'"}},
	} {
		head, got, tail := complete(c.line, len(c.line))
		if head != c.head || tail != c.tail || !slices.Equal(got, c.want) {
			t.Errorf("%q: head %q tail %q got %q, want %q", c.line, head, tail, got, c.want)
		}
	}
	// Completion in the middle of a line keeps the rest.
	if head, got, tail := complete("SELECT * FROM ord WHERE a = 1", len("SELECT * FROM ord")); head != "SELECT * FROM " ||
		tail != " WHERE a = 1" || len(got) != 2 {
		t.Errorf("mid-line: %q %q %q", head, got, tail)
	}
}
