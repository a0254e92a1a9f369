package print

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func TestPrefix(t *testing.T) {
	for _, c := range []struct {
		id       string
		sub, par int
		want     string
	}{{"", 0, 1, ""}, {"", 1, 4, "2> "}, {"orders", 0, 1, "orders> "}, {"orders", 2, 3, "orders:3> "}} {
		if got := Prefix(c.id, c.sub, c.par); got != c.want {
			t.Errorf("Prefix(%q,%d,%d) = %q, want %q", c.id, c.sub, c.par, got, c.want)
		}
	}
}

func TestWriteFormat(t *testing.T) {
	var out, errOut bytes.Buffer
	SetOutput(&out, &errOut)
	defer SetOutput(nil, nil)
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.Int()}, {Name: "amount", Type: sql.Decimal(10, 2)},
		{Name: "status", Type: sql.String()}}}
	for _, opts := range []map[string]string{{"print-identifier": "orders"}, {"standard-error": "true"}} {
		sink, err := Factory{}.CreateSink(&connectors.Context{Schema: schema, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := sink.NewWriter(0, 1)
		if err := w.Write(context.Background(), []sql.Row{
			sql.NewRow(int32(1001), decimal.RequireFromString("80"), "CREATED"),
			{Kind: sql.Delete, Values: []any{int32(1001), decimal.RequireFromString("100.00"), nil}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if want := "orders> +I[1001, 80.00, CREATED]\norders> -D[1001, 100.00, null]\n"; out.String() != want {
		t.Fatalf("stdout %q, want %q", out.String(), want)
	}
	if want := "+I[1001, 80.00, CREATED]\n-D[1001, 100.00, null]\n"; errOut.String() != want {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
	if _, err := (Factory{}).CreateSink(&connectors.Context{Schema: schema, Options: map[string]string{"standard-error": "maybe"}}); err == nil ||
		!strings.Contains(err.Error(), "Could not parse value 'maybe' for key 'standard-error'.") {
		t.Fatalf("got %v", err)
	}
}
