package blackhole

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func TestBlackhole(t *testing.T) {
	s, err := Factory{}.CreateSink(&connectors.Context{})
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := s.ChangelogMode(sql.All); m != sql.Upsert {
		t.Fatalf("mode %s", m)
	}
	w, _ := s.NewWriter(0, 1)
	if err := w.Write(context.Background(), []sql.Row{sql.NewRow(int64(1))}); err != nil {
		t.Fatal(err)
	}
	if _, err := (Factory{}).CreateSink(&connectors.Context{Options: map[string]string{"x": "1"}}); err == nil ||
		!strings.Contains(err.Error(), "Unsupported options found for 'blackhole'.") {
		t.Fatalf("got %v", err)
	}
}
