package jdbc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/sql"
)

// TestFlushGolden shows, as text, the statements each flush sends and the
// table afterwards: the seed's stories (reduction, -D/+I across flushes,
// upserts before deletes) and the multi-row forms.
//
//	new max-rows=N [key=id|tenant,id]   a fresh table and writer
//	write                               rows "+I 1001 80.00 CREATED", one a line
//	checkpoint                          Snapshot: flush
//	close                               Close: flush the tail
func TestFlushGolden(t *testing.T) {
	s := shared(t)
	var w *Writer
	var db string
	var sent []string
	datadriven.RunTest(t, "testdata/flush", func(t *testing.T, td *datadriven.TestData) string {
		report := func(err error) string {
			var b strings.Builder
			for _, st := range sent {
				b.WriteString(st + "\n")
			}
			sent = nil
			if err != nil {
				fmt.Fprintf(&b, "error: %v\n", err)
			}
			fmt.Fprintf(&b, "batchCount=%d\ntable:\n%s", w.BatchCount(), s.Table(t, db, "orders_rt"))
			return b.String()
		}
		switch td.Cmd {
		case "new":
			maxRows := "100"
			if td.HasArg("max-rows") {
				td.ScanArgs(t, "max-rows", &maxRows)
			}
			db = ordersDB(t, s)
			w = openWriter(t, newSink(t, ordersSchema(true), tableOptions(s, db,
				OptSinkMaxRows, maxRows, OptSinkInterval, "0")), nil)
			w.onStatement = func(kind byte, text string, args []any) {
				sent = append(sent, kindName[kind]+": "+text+"\n  args: "+formatArgs(args))
			}
			return ""
		case "write":
			var rows []sql.Row
			for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				f := strings.Fields(line)
				kind, err := sql.ParseRowKind(f[0])
				if err != nil {
					t.Fatal(err)
				}
				id, _ := strconv.ParseInt(f[1], 10, 64)
				amount, status := "", ""
				if len(f) > 2 && f[2] != "null" {
					amount = f[2]
				}
				if len(f) > 3 {
					status = f[3]
				}
				rows = append(rows, order(kind, id, amount, status))
			}
			return report(w.Write(context.Background(), rows))
		case "checkpoint":
			_, _, err := w.Snapshot(context.Background(), 1)
			return report(err)
		case "close":
			return report(w.Close(context.Background()))
		}
		return "unknown command " + td.Cmd
	})
}

var kindName = map[byte]string{'I': "INSERT", 'U': "UPSERT", 'D': "DELETE"}

// formatArgs shows a statement's placeholder values: strings quoted (Go
// syntax), numbers as they are, NULL for nil.
func formatArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case nil:
			parts[i] = "NULL"
		case string:
			parts[i] = strconv.Quote(x)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ", ")
}
