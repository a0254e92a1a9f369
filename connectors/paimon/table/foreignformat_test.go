package table

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestWriteRefusesOtherFormats: sqlrun reads ORC and Avro data files and
// ORC manifests but writes Parquet data files and Avro manifests only, so
// a table whose 'file.format' or 'manifest.format' asks for another is
// refused for writing, naming the option (Java would read such a table's
// new files in the format its options name).
func TestWriteRefusesOtherFormats(t *testing.T) {
	for _, c := range []struct{ key, val string }{{"file.format", "orc"}, {"file.format", "avro"}, {"manifest.format", "orc"}, {"manifest.format", "parquet"}} {
		s := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "v", Type: sql.Int()}}, PrimaryKey: []string{"id"}}
		tbl, err := Create(nil, t.TempDir(), s, nil, map[string]string{"bucket": "1", c.key: c.val}, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "'"+c.key+"' = \""+c.val+"\"") {
			t.Errorf("%s = %s: %v", c.key, c.val, err)
		}
	}
}
