package paimon

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// TestPathTableReadsStoredOptions: a table created with
// 'changelog-producer' = 'input' and declared by path without it keeps the
// producer (and so the changelog mode, with no ChangelogNormalize), as
// Paimon's FlinkTableFactory merges the stored options with the dynamic
// ones; the declaration still wins where it says something.
func TestPathTableReadsStoredOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "orders")
	s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.String()}},
		PrimaryKey: []string{"id"}}
	stored := map[string]string{"bucket": "1", "changelog-producer": "input", "consumer.expiration-time": "1 d"}
	if _, err := table.Create(fs.NewLocal(), path, s, nil, stored, "", time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	src, err := Factory{}.CreateSource(ctxFor(true, true, map[string]string{"connector": "paimon", "path": path,
		"consumer-id": "c1"}))
	if err != nil {
		t.Fatalf("consumer-id with the stored consumer.expiration-time: %v", err)
	}
	if got := src.ChangelogMode(); got != sql.All {
		t.Errorf("stored producer input: mode %s, want %s", got, sql.All)
	}
	src, err = Factory{}.CreateSource(ctxFor(true, true, map[string]string{"connector": "paimon", "path": path,
		"changelog-producer": "none"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := src.ChangelogMode(); got != sql.Upsert {
		t.Errorf("declared producer none over stored input: mode %s, want %s", got, sql.Upsert)
	}
}
