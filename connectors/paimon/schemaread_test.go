package paimon

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// countSchemaReads makes the factory's file system count reads of schema
// files (schema/schema-N) until the test ends.
func countSchemaReads(t *testing.T) *int {
	n := new(int)
	old := tableFS
	tableFS = func(string) fs.FileIO {
		return fs.NewInjecting(fs.NewLocal(), fs.InjectorFunc(func(op fs.Op, p string) error {
			if op == fs.OpRead && strings.Contains(filepath.ToSlash(p), "/schema/schema-") {
				*n++
			}
			return nil
		}))
	}
	t.Cleanup(func() { tableFS = old })
	return n
}

// A statement reads a table's schema file once: planning (the stored
// options, the declared-schema check) and the reader share what was read
// when the source was created (issue 21: it was read three times).
func TestSchemaReadOncePerStatement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t")
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}},
		PrimaryKey: []string{"id"}}
	if _, err := table.Create(fs.NewLocal(), path, s, nil, map[string]string{"bucket": "1"}, "", time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func(ctx *connectors.Context) error
	}{
		{"source", func(ctx *connectors.Context) error {
			src, err := Factory{}.CreateSource(ctx)
			if err != nil {
				return err
			}
			r, err := src.NewReader(0, 1)
			if err != nil {
				return err
			}
			if err := r.Open(context.Background(), nil); err != nil {
				return err
			}
			if _, err := r.Next(context.Background()); err != nil && err != io.EOF {
				return err
			}
			return r.Close()
		}},
		{"sink", func(ctx *connectors.Context) error {
			snk, err := Factory{}.CreateSink(ctx)
			if err != nil {
				return err
			}
			w, err := snk.NewWriter(0, 1)
			if err != nil {
				return err
			}
			if err := w.Open(context.Background(), nil); err != nil {
				return err
			}
			if err := w.Write(context.Background(), []sql.Row{{Kind: sql.Insert, Values: []any{int64(1), "a"}}}); err != nil {
				return err
			}
			return w.Close(context.Background())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := countSchemaReads(t)
			ctx := ctxFor(true, false, map[string]string{"connector": "paimon", "path": path, "scan.mode": "latest"})
			if err := c.run(ctx); err != nil {
				t.Fatal(err)
			}
			if *n != 1 {
				t.Errorf("the schema file was read %d times, want once", *n)
			}
		})
	}
}
