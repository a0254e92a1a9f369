package plan

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/values"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

type evalEnv struct{ t *catalog.Table }

func (e evalEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	id := connectors.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Name: n.Table}
	if n.Table != "t" {
		return id, nil, catalog.TableNotExist(id.Catalog, id.Database, id.Name)
	}
	return id, e.t, nil
}

func (evalEnv) Config() map[string]string { return map[string]string{} }

func (evalEnv) DefaultConnector(connectors.ObjectIdentifier) string { return "" }

func (evalEnv) TablePath(connectors.ObjectIdentifier) string                { return "" }
func (evalEnv) PinnedOptions(connectors.ObjectIdentifier) map[string]string { return nil }

// evalTable is the row every eval case reads:
// a=7 b=-3 d=12.50 s='Order-1001' n=NULL f=2.5 ts=2024-01-02 10:00:00.123 dt=2024-01-02
// r=ROW(1, 'y1') (r.x NOT NULL in a nullable ROW) rn=NULL (of r's type).
var evalTable = &catalog.Table{
	Schema: sql.Schema{Columns: []sql.Column{
		{Name: "a", Type: sql.Int().NotNull()}, {Name: "b", Type: sql.BigInt()}, {Name: "d", Type: sql.Decimal(10, 2)},
		{Name: "s", Type: sql.String()}, {Name: "n", Type: sql.Int()}, {Name: "f", Type: sql.Double()},
		{Name: "ts", Type: sql.Timestamp(3)}, {Name: "dt", Type: sql.Date()},
		{Name: "r", Type: evalRowType}, {Name: "rn", Type: evalRowType},
	}},
	Options: map[string]string{"connector": "values"},
}

var evalRow = []any{int32(7), int64(-3), decimal.RequireFromString("12.50"), "Order-1001", nil, 2.5,
	sql.TimestampData{Millis: 1704189600123}, int32(19724), []any{int32(1), "y1"}, nil}

var evalRowType = sql.RowOf(sql.Field{Name: "x", Type: sql.Int().NotNull()}, sql.Field{Name: "y", Type: sql.String()})

// TestEval binds each expression over evalTable, then prints its type, its
// prefix (physical plan) and infix (execution plan) forms and its value on
// evalRow. Regenerate with -rewrite.
func TestEval(t *testing.T) {
	datadriven.RunTest(t, filepath.Join("testdata", "eval"), func(t *testing.T, d *datadriven.TestData) string {
		var out strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			fmt.Fprintf(&out, "%s\n", line)
			res, err := evalOne(line)
			if err != nil {
				if rc := sql.RootCause(err); rc != nil {
					fmt.Fprintf(&out, "  error: %s\n", rc.Msg)
				} else {
					fmt.Fprintf(&out, "  error: %v\n", err)
				}
				continue
			}
			out.WriteString(res)
		}
		return out.String()
	})
}

func evalOne(expr string) (string, error) {
	stmt, err := parser.Parse("SELECT " + expr + " FROM t")
	if err != nil {
		return "", err
	}
	b := &binder{env: evalEnv{evalTable}, config: map[string]string{}, streaming: true}
	r, err := b.bindQuery(stmt.(*ast.Query).Body)
	if err != nil {
		return "", err
	}
	proj, ok := r.(*LogicalProject)
	if !ok {
		return "", fmt.Errorf("unexpected plan %s", r.Name())
	}
	e := proj.Exprs[0]
	names := evalTable.Schema.Names()
	ev, err := Compile(e)
	if err != nil {
		return "", err
	}
	v, err := ev(evalRow)
	val := sql.FormatValue(v, e.Type())
	if err != nil {
		val = "error: " + err.Error()
	}
	return fmt.Sprintf("  type:   %s\n  prefix: %s\n  infix:  %s\n  value:  %s\n",
		e.Type(), FormatExpr(e, names, FormatPrefix), FormatExpr(e, names, FormatInfix), val), nil
}

func (e evalEnv) LookupTableAt(ast.ObjectName, func() (int64, error)) (connectors.ObjectIdentifier, *catalog.Table, bool, error) {
	return connectors.ObjectIdentifier{}, nil, false, nil // in memory: no versions
}
