package warehouse_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/sqlrun/sqlrun/connectors/blackhole"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/warehouse"
	"github.com/sqlrun/sqlrun/exec"
)

// A statement reads a Paimon table's schema file once, whether the table
// belongs to a Paimon catalog or is declared by 'path'
// (connectors/paimon/schemaread_test.go counts the factory alone): the
// catalog describes the table from the schema it read and hands that
// schema to the connector with the table, as Paimon's FlinkCatalog hands
// its FileStoreTable to FlinkTableFactory inside a DataCatalogTable; the
// session resolves each table name once per statement and compiles an
// INSERT from the plan it made to check for a pinned full start (issue 21:
// a catalog table's INSERT read it 6 times, a SELECT 3 times).
func TestCatalogTableSchemaReadOncePerStatement(t *testing.T) {
	wh := t.TempDir()
	var reads atomic.Int64
	fio := fs.NewInjecting(fs.NewLocal(), fs.InjectorFunc(func(op fs.Op, p string) error {
		if op == fs.OpRead && strings.Contains(filepath.ToSlash(p), "/schema/schema-") {
			reads.Add(1)
		}
		return nil
	}))
	fs.Mount(wh, fio) // the factory opens the table by path: it finds the same FileIO
	other := t.TempDir()
	fs.Mount(other, fio)
	c, err := warehouse.New(fio, map[string]string{"warehouse": wh})
	if err != nil {
		t.Fatal(err)
	}
	s := exec.NewSession()
	if err := s.Catalogs.RegisterCatalog("pc", c, false); err != nil {
		t.Fatal(err)
	}
	run := func(text string) {
		t.Helper()
		var out bytes.Buffer
		if err := s.ExecuteScript(context.Background(), text, "t.sql", &out); err != nil {
			t.Fatalf("%s: %v\n%s", text, err, out.String())
		}
	}
	run("SET 'execution.runtime-mode' = 'batch';")
	run("SET 'sql-client.execution.result-mode' = 'tableau';")
	run("SET 'table.dml-sync' = 'true';")
	run("CREATE TABLE default_catalog.default_database.sink (id BIGINT, v STRING) WITH ('connector' = 'blackhole');")
	run("USE CATALOG pc;")
	run("CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1');")
	run("INSERT INTO t VALUES (1, 'a');")
	run("CREATE TABLE default_catalog.default_database.p (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) " +
		"WITH ('connector' = 'paimon', 'path' = '" + filepath.Join(other, "p") + "', 'bucket' = '1', 'auto-create' = 'true');")
	run("INSERT INTO default_catalog.default_database.p VALUES (1, 'a');")
	for _, stmt := range []string{
		"INSERT INTO default_catalog.default_database.sink SELECT * FROM t /*+ OPTIONS('scan.mode' = 'latest') */;",
		"SELECT * FROM t;",
		"SELECT a.id, b.v FROM t AS a JOIN t AS b ON a.id = b.id;",
		"INSERT INTO default_catalog.default_database.sink SELECT * FROM default_catalog.default_database.p /*+ OPTIONS('scan.mode' = 'latest') */;",
		"SELECT * FROM default_catalog.default_database.p;",
	} {
		reads.Store(0)
		run(stmt)
		if n := reads.Load(); n != 1 {
			t.Errorf("%s\nread the schema file %d times, want once", stmt, n)
		}
	}
}
