package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSeedDDLCreatesPaimonsTable (issue 15): the seed 000 orders DDL, run
// unchanged apart from the path, creates the table Flink 1.20 + Paimon
// 1.4.2 creates from it, schema-0 compared field by field:
//
//   - through a Paimon catalog (FlinkCatalog.createTable: buildPaimonSchema
//     removes 'connector', fromCatalogTable keeps every other option; the
//     filesystem catalog adds none), the options are exactly the declared
//     ones;
//   - through 'connector' = 'paimon' and 'path' in the default catalog,
//     which Paimon creates only with 'auto-create' = 'true'
//     (FlinkTableFactory.createTableIfNeeded hands the declaration to
//     FlinkCatalog.fromCatalogTable and SchemaManager.createTable without
//     buildPaimonSchema), every declared option is stored, 'connector' and
//     'path' as written included.
//
// Neither stores 'bucket' (CoreOptions.BUCKET defaults to -1: dynamic
// bucket mode for a primary-key table), the primary key becomes NOT NULL
// (Schema.normalizeFields), field ids count from 0 and highestFieldId is
// the last one (RowType.currentHighestFieldId), version 3
// (TableSchema.CURRENT_VERSION), no comment key (null comment, NON_NULL),
// and the INSERT commits a HASH index file with the data. Before this
// change the mapping table's schema lacked 'connector' and 'path'.
func TestSeedDDLCreatesPaimonsTable(t *testing.T) {
	const ddl = `CREATE TABLE %s (
    id BIGINT,
    amount DECIMAL(10, 2),
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    %s'changelog-producer' = 'input'
);
INSERT INTO %[1]s VALUES (1001, 80.00, 'CREATED');
`
	wh := t.TempDir()
	mapped := "file://" + filepath.Join(wh, "mapped")
	for _, c := range []struct {
		name, table, script string
		options             map[string]string
	}{
		{"catalog", filepath.Join(wh, "default.db", "orders"),
			fmt.Sprintf("CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s');\nUSE CATALOG p;\n", wh) +
				fmt.Sprintf(ddl, "orders", ""),
			map[string]string{"changelog-producer": "input"}},
		{"auto-create", filepath.Join(wh, "mapped"),
			fmt.Sprintf(ddl, "orders", fmt.Sprintf("'connector' = 'paimon',\n    'path' = '%s',\n    'auto-create' = 'true',\n    ", mapped)),
			map[string]string{"connector": "paimon", "path": mapped, "auto-create": "true", "changelog-producer": "input"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := runAndReadSchema0(t, c.script, c.table)
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if _, ok := got["timeMillis"].(float64); !ok {
				t.Errorf("schema-0 has no timeMillis:\n%s", b)
			}
			delete(got, "timeMillis")
			opts := map[string]any{}
			for k, v := range c.options {
				opts[k] = v
			}
			want := map[string]any{
				"version": 3.0, "id": 0.0, "highestFieldId": 2.0,
				"fields": []any{
					map[string]any{"id": 0.0, "name": "id", "type": "BIGINT NOT NULL"},
					map[string]any{"id": 1.0, "name": "amount", "type": "DECIMAL(10, 2)"},
					map[string]any{"id": 2.0, "name": "status", "type": "STRING"},
				},
				"partitionKeys": []any{}, "primaryKeys": []any{"id"}, "options": opts,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("schema-0:\n%s\nwant (timeMillis aside) %v", b, want)
			}
			snap, err := os.ReadFile(filepath.Join(c.table, "snapshot", "snapshot-1"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(snap), `"indexManifest" : "index-manifest-`) {
				t.Errorf("snapshot-1 has no index manifest (dynamic bucket mode commits the HASH index with the data):\n%s", snap)
			}
			idx, err := os.ReadDir(filepath.Join(c.table, "index"))
			if err != nil || len(idx) != 1 {
				t.Fatalf("index files %v: %v, want one HASH index file", idx, err)
			}
			if st, err := idx[0].Info(); err != nil || st.Size() != 4 {
				t.Errorf("index file %s: %v, want one 4-byte key hash", idx[0].Name(), err)
			}
		})
	}
}

// TestCatalogTableIgnoresStoredPath: a table created with 'auto-create'
// stores 'connector' and 'path' (above), and a copy of it in a Paimon
// catalog's warehouse (a warehouse copied elsewhere) is still read and
// written where the catalog found it: Flink hands a catalog table to the
// catalog's own factory (AbstractFlinkTableFactory with a
// DataCatalogTable), whatever its options say. Its system tables read the
// copy too, and ALTER TABLE keeps the stored 'connector' and 'path'
// (FlinkCatalog.alterTable changes only the options set). Fails when the
// stored 'path' reaches the connector: the INSERT then commits into the
// original table.
func TestCatalogTableIgnoresStoredPath(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig")
	f := writeScript(t, fmt.Sprintf(`SET 'table.dml-sync' = 'true';
CREATE TABLE orders (id BIGINT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = 'file://%s', 'auto-create' = 'true');
INSERT INTO orders VALUES (1001, 80.00);
`, orig))
	if code, out, errOut := runCLI(t, "-f", f); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	wh := filepath.Join(dir, "wh")
	copied := filepath.Join(wh, "default.db", "orders")
	if err := os.CopyFS(copied, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	f = writeScript(t, fmt.Sprintf(`SET 'table.dml-sync' = 'true';
SET 'sql-client.execution.result-mode' = 'tableau';
CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s');
USE CATALOG p;
INSERT INTO orders VALUES (1002, 1.00);
SET 'execution.runtime-mode' = 'batch';
SELECT * FROM orders;
SELECT snapshot_id FROM orders$snapshots;
ALTER TABLE orders SET ('snapshot.num-retained.max' = '50');
`, wh))
	code, out, errOut := runCLI(t, "-f", f)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"| 1002 |   1.00 |", "|           2 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(orig, "snapshot", "snapshot-2")); err == nil {
		t.Errorf("the catalog's INSERT committed into the table at the stored 'path' %s", orig)
	}
	if _, err := os.Stat(filepath.Join(copied, "snapshot", "snapshot-2")); err != nil {
		t.Errorf("the catalog's INSERT did not commit where the catalog keeps the table: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(copied, "schema", "schema-1"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Options map[string]string `json:"options"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"connector": "paimon", "path": "file://" + orig, "auto-create": "true", "snapshot.num-retained.max": "50"}
	if !reflect.DeepEqual(s.Options, want) {
		t.Errorf("schema-1 options after ALTER TABLE SET: %v, want %v", s.Options, want)
	}
}

// TestDeclaredCommentStoredInPaimonSchema (issue 15): a declared table
// COMMENT is stored in schema-0's "comment" and a column COMMENT in its
// field's "description" (Paimon's Schema / DataField JSON names), whether
// the table is created through a Paimon catalog (FlinkCatalog.createTable)
// or by 'auto-create' (FlinkTableFactory.createTableIfNeeded:
// FlinkCatalog.fromCatalogTable builds the Schema with
// .comment(catalogTable.getComment()) and the column comments, and
// SchemaManager.createTable writes it). A later session's SHOW CREATE
// TABLE and DESCRIBE of the catalog table show them as Flink does
// (ShowCreateUtil prints COMMENT after the columns). Before this change
// the 'auto-create' table's schema had no comment.
func TestDeclaredCommentStoredInPaimonSchema(t *testing.T) {
	const ddl = `CREATE TABLE %s (
    id BIGINT COMMENT 'order id',
    status STRING,
    PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'seed orders' WITH (
    %s'bucket' = '1'
);
INSERT INTO %[1]s VALUES (1001, 'CREATED');
`
	wh := t.TempDir()
	catalog := fmt.Sprintf("CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '%s');\nUSE CATALOG p;\n", wh)
	mapped := "file://" + filepath.Join(wh, "mapped")
	for _, c := range []struct{ name, table, script string }{
		{"catalog", filepath.Join(wh, "default.db", "orders"), catalog + fmt.Sprintf(ddl, "orders", "")},
		{"auto-create", filepath.Join(wh, "mapped"),
			fmt.Sprintf(ddl, "orders", fmt.Sprintf("'connector' = 'paimon',\n    'path' = '%s',\n    'auto-create' = 'true',\n    ", mapped))},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := runAndReadSchema0(t, c.script, c.table)
			var got struct {
				Comment *string `json:"comment"`
				Fields  []struct {
					Name        string  `json:"name"`
					Description *string `json:"description"`
				} `json:"fields"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Comment == nil || *got.Comment != "seed orders" || len(got.Fields) != 2 ||
				got.Fields[0].Description == nil || *got.Fields[0].Description != "order id" || got.Fields[1].Description != nil {
				t.Errorf("schema-0:\n%s\nwant \"comment\" : \"seed orders\" and \"description\" : \"order id\" on id only", b)
			}
		})
	}
	f := writeScript(t, catalog+"SHOW CREATE TABLE orders;\nDESCRIBE orders;\n")
	code, out, errOut := runCLI(t, "-f", f)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"  `id` BIGINT NOT NULL COMMENT 'order id',\n", ")\nCOMMENT 'seed orders'\nWITH (\n", "| order id |"} {
		if !strings.Contains(out, want) {
			t.Errorf("SHOW CREATE TABLE and DESCRIBE in a new session:\n%s\nwant %q", out, want)
		}
	}
}

// runAndReadSchema0 runs script with table.dml-sync on and returns the
// schema-0 file of the Paimon table in dir, as Paimon's SchemaManager
// wrote it for the first CREATE TABLE.
func runAndReadSchema0(t *testing.T, script, dir string) []byte {
	t.Helper()
	f := writeScript(t, "SET 'table.dml-sync' = 'true';\n"+script)
	if code, out, errOut := runCLI(t, "-f", f); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "schema", "schema-0"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
