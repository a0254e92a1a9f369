package exec

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTimePrecisionOldPaimonTable reads a Paimon table whose schema says
// TIME(3), as sqlrun wrote a TIME(3) column before it typed DDL's TIME as
// Flink's planner does (TIME(0), sql.Planned), and as Paimon's own API or
// another engine may write one. The data files are the same for TIME(0)
// and TIME(3) (milliseconds of the day in an INT), so the table is made by
// writing it with TIME(0) and editing the schema file. As in Flink with
// Paimon's catalog, DESCRIBE shows the catalog's TIME(3), a query reads
// the column as TIME(0) (createFieldTypeFromLogicalType) and the
// milliseconds are kept; writing to it keeps them too.
func TestTimePrecisionOldPaimonTable(t *testing.T) {
	wh := t.TempDir()
	run := func(script string) string {
		t.Helper()
		s := newTestSession()
		s.Planner = PlanPlanner{}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var out bytes.Buffer
		head := "SET 'execution.runtime-mode' = 'batch';\n" +
			"SET 'table.dml-sync' = 'true';\n" +
			"SET 'sql-client.execution.result-mode' = 'tableau';\n" +
			"CREATE CATALOG pc WITH ('type' = 'paimon', 'warehouse' = 'file://" + wh + "');\n" +
			"USE CATALOG pc;\n"
		if err := s.ExecuteScript(ctx, head+script, "test.sql", &out); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		return out.String()
	}
	run("CREATE TABLE old (id INT, p TIME(0));\nINSERT INTO old VALUES (1, TIME '19:01:02.123');")
	schemaFile := filepath.Join(wh, "default.db", "old", "schema", "schema-0")
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"TIME(0)"`)) {
		t.Fatalf("schema-0 has no TIME(0) column:\n%s", b)
	}
	if err := os.WriteFile(schemaFile, bytes.Replace(b, []byte(`"TIME(0)"`), []byte(`"TIME(3)"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}

	out := run("INSERT INTO old VALUES (2, TIME '08:00:00.5');\n" +
		"DESCRIBE old;\n" +
		"SELECT id, p, CAST(p AS TIMESTAMP(3)) AS ts, CAST(p AS STRING) AS s FROM old ORDER BY id;")
	for _, want := range []string{
		"|    p | TIME(3) |",
		"|  1 | 19:01:02 | 1970-01-01 19:01:02.123 | 19:01:02 |",
		"|  2 | 08:00:00 | 1970-01-01 08:00:00.500 | 08:00:00 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if b, err = os.ReadFile(schemaFile); err != nil || !bytes.Contains(b, []byte(`"TIME(3)"`)) {
		t.Errorf("the schema changed: %v\n%s", err, b)
	}
}
