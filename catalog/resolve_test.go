package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// sysFactory is a connector with system tables: "<t>$meta" of a table
// declared with it has one column, "key".
type sysFactory struct{}

func (sysFactory) Identifier() string           { return "systest" }
func (sysFactory) Options() []connectors.Option { return nil }
func (sysFactory) SplitSystemTable(name string) (string, string, bool) {
	base, sys, ok := strings.Cut(name, "$")
	return base, sys, ok && sys == "meta"
}
func (sysFactory) SystemTableSchema(sys string, opts map[string]string) (sql.Schema, error) {
	if opts["path"] == "" {
		return sql.Schema{}, errors.New("no path")
	}
	return sql.Schema{Columns: []sql.Column{{Name: "key", Type: sql.String()}}}, nil
}

var _ connectors.SystemTableFactory = sysFactory{}

func init() { connectors.Register(sysFactory{}) }

// storing is a catalog that owns its tables' storage and names their
// connector, as the Paimon warehouse does.
type storing struct{ *InMemory }

func (storing) DefaultConnector() string { return "systest" }
func (storing) TablePath(db, name string) string {
	name, _, _ = strings.Cut(name, "$")
	return "/wh/" + db + "/" + name
}

var (
	_ DefaultConnector = storing{}
	_ TablePather      = storing{}
)

// TestResolveThroughCatalogAndConnector: the catalog manager, not exec,
// resolves what a query needs beyond the descriptor: a system table of a
// table declared with a connector that has them, the table's connector
// (its option or the catalog's default) and its directory (its 'path' or
// the catalog's TablePath).
func TestResolveThroughCatalogAndConnector(t *testing.T) {
	m := NewManager()
	id := connectors.ObjectIdentifier{Catalog: DefaultCatalog, Database: DefaultDatabase, Name: "t"}
	decl := &Table{Schema: sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}}},
		Options: map[string]string{"connector": "systest", "path": "/data/t"}}
	if err := m.CreateTable(id, decl, false, true); err != nil {
		t.Fatal(err)
	}
	_, st, err := m.LookupTable(name("t$meta"))
	if err != nil || len(st.Schema.Columns) != 1 || st.Schema.Columns[0].Name != "key" || st.Options["path"] != "/data/t" {
		t.Fatalf("t$meta: %+v, %v", st, err)
	}
	if _, _, err := m.LookupTable(name("t$other")); !errors.Is(err, ErrTableNotExist) {
		t.Fatalf("t$other: %v, want not found", err)
	}
	lt, err := m.LocateTable(name("t"))
	if err != nil || lt.Connector != "systest" || lt.Path != "/data/t" {
		t.Fatalf("locate t: %+v, %v", lt, err)
	}

	if err := m.RegisterCatalog("w", storing{NewInMemory("db")}, false); err != nil {
		t.Fatal(err)
	}
	wid := connectors.ObjectIdentifier{Catalog: "w", Database: "db", Name: "u"}
	if err := m.CreateTable(wid, &Table{Schema: decl.Schema, Options: map[string]string{}}, false, false); err != nil {
		t.Fatal(err)
	}
	lt, err = m.LocateTable(name("w", "db", "u"))
	if err != nil || lt.Connector != "systest" || lt.Path != "/wh/db/u" {
		t.Fatalf("locate w.db.u: %+v, %v", lt, err)
	}
	if p := m.TablePath(connectors.ObjectIdentifier{Catalog: "w", Database: "db", Name: "u$meta"}); p != "/wh/db/u" {
		t.Fatalf("path of u$meta = %q", p)
	}
	if c := m.DefaultConnector(id); c != "" {
		t.Fatalf("default_catalog names connector %q", c)
	}
}
