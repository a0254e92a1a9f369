package warehouse

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

func TestWarehouseCatalog(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.NewCatalog("c", map[string]string{"type": "paimon", "warehouse": "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	c := cat.(*Catalog)
	c.Now = func() time.Time { return time.UnixMilli(1700000000000) }
	if got := c.DefaultConnector(); got != "paimon" {
		t.Fatal(got)
	}
	dbs, _ := c.ListDatabases()
	if fmt.Sprint(dbs) != "[default]" {
		t.Fatalf("databases %v", dbs)
	}
	if err := c.CreateDatabase("shop", false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateDatabase("shop", false); !errors.Is(err, catalog.ErrDatabaseExists) {
		t.Fatalf("want exists, got %v", err)
	}
	orders := &catalog.Table{Schema: sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()},
		{Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}, PrimaryKey: []string{"id"}},
		Options: map[string]string{"changelog-producer": "input"}, Comment: "orders"}
	if err := c.CreateTable("shop", "orders", orders, false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTable("shop", "orders", orders, false); !errors.Is(err, catalog.ErrTableExists) {
		t.Fatalf("want exists, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "shop.db", "orders", "schema", "schema-0")); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetTable("shop", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Options) != "map[changelog-producer:input]" || got.Comment != "orders" ||
		got.Schema.Columns[0].Type.Nullable || fmt.Sprint(got.Schema.PrimaryKey) != "[id]" {
		t.Fatalf("got %+v", got)
	}
	got.Options["snapshot.num-retained.min"] = "2"
	delete(got.Options, "changelog-producer")
	if err := c.AlterTable("shop", "orders", got); err != nil {
		t.Fatal(err)
	}
	tb, err := c.OpenTable("shop", "orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Schema.ID != 1 || fmt.Sprint(tb.Schema.Options) != "map[snapshot.num-retained.min:2]" {
		t.Fatalf("schema %d %v", tb.Schema.ID, tb.Schema.Options)
	}
	got.Options["merge-engine"] = "first-row"
	if err := c.AlterTable("shop", "orders", got); err == nil || !strings.Contains(err.Error(), "Change 'merge-engine' is not supported yet.") {
		t.Fatalf("got %v", err)
	}
	// No 'bucket' is dynamic bucket mode (-1), which ALTER cannot change
	// (SchemaManager.checkAlterTableOption).
	delete(got.Options, "merge-engine")
	got.Options["bucket"] = "2"
	if err := c.AlterTable("shop", "orders", got); err == nil || err.Error() != "Cannot change bucket when it is -1." {
		t.Fatalf("got %v", err)
	}
	delete(got.Options, "bucket")
	bad := orders.Clone()
	bad.Options["bucket"] = "0"
	if err := c.CreateTable("shop", "dyn", bad, false); err == nil || !strings.Contains(err.Error(), "The number of buckets needs to be greater than 0.") {
		t.Fatalf("got %v", err)
	}
	tables, _ := c.ListTables("shop")
	if fmt.Sprint(tables) != "[orders]" {
		t.Fatalf("tables %v", tables)
	}
	if err := c.DropDatabase("shop", false, false); !errors.Is(err, catalog.ErrDatabaseNotEmpty) {
		t.Fatalf("got %v", err)
	}
	if err := c.DropTable("shop", "orders", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetTable("shop", "orders"); !errors.Is(err, catalog.ErrTableNotExist) {
		t.Fatalf("got %v", err)
	}
	if err := c.DropDatabase("shop", false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.NewCatalog("c", map[string]string{"type": "paimon"}); err == nil || err.Error() == "" {
		t.Fatal("want a warehouse error")
	}
}

// TestFixtureWarehouse opens a Java-written warehouse (read-only) and maps
// its table to a catalog table.
func TestFixtureWarehouse(t *testing.T) {
	wh := filepath.Join(fixtures.PaimonDir(t), "pk_mor_partitioned")
	c, err := New(nil, map[string]string{"warehouse": wh, "default-database": "pk_table_scan_and_read_mor"})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.ListTables("pk_table_scan_and_read_mor")
	if err != nil || fmt.Sprint(tables) != "[pk_table_scan_and_read_mor]" {
		t.Fatalf("tables %v %v", tables, err)
	}
	got, err := c.GetTable("pk_table_scan_and_read_mor", "pk_table_scan_and_read_mor")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, col := range got.Schema.Columns {
		cols = append(cols, col.Name+" "+col.Type.String())
	}
	if s := strings.Join(cols, ", "); s != "f0 STRING NOT NULL, f1 INT NOT NULL, f2 INT NOT NULL, f3 DOUBLE" {
		t.Fatalf("columns %s", s)
	}
	if fmt.Sprintf("%v %v %s %s", got.Schema.PrimaryKey, got.PartitionKeys, got.Options["bucket"], got.Options["bucket-key"]) != "[f0 f1 f2] [f1] 2 f2" {
		t.Fatalf("got %v %v %v", got.Schema.PrimaryKey, got.PartitionKeys, got.Options)
	}
}
