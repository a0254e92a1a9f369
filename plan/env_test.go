package plan_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"

	_ "github.com/sqlrun/sqlrun/connectors/blackhole"
	_ "github.com/sqlrun/sqlrun/connectors/datagen"
	_ "github.com/sqlrun/sqlrun/connectors/filesystem"
	_ "github.com/sqlrun/sqlrun/connectors/jdbc"
	_ "github.com/sqlrun/sqlrun/connectors/paimon"
	_ "github.com/sqlrun/sqlrun/connectors/print"
	_ "github.com/sqlrun/sqlrun/connectors/values"
)

// testEnv is a minimal session: the in-memory default catalog and a SET
// map. The real session (exec) implements plan.Env the same way.
type testEnv struct {
	cat    *catalog.InMemory
	config map[string]string
	// planOnly makes EXPLAIN print the plans without Flink's translation
	// checks (plan.CheckTranslation), as Flink's verifyRelPlan optimizes
	// without translating.
	planOnly bool
	// functions are the user-defined functions a Flink suite's test
	// class registers (flinkfunctions_test.go), by upper-cased name.
	functions map[string]*plan.UserFunction
}

func newEnv() *testEnv {
	return &testEnv{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
}

func (e *testEnv) Config() map[string]string { return e.config }

func (e *testEnv) DefaultConnector(connectors.ObjectIdentifier) string { return "" }

func (e *testEnv) TablePath(connectors.ObjectIdentifier) string                { return "" }
func (e *testEnv) PinnedOptions(connectors.ObjectIdentifier) map[string]string { return nil }

func (e *testEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	id := connectors.ObjectIdentifier{Catalog: catalog.DefaultCatalog, Database: catalog.DefaultDatabase, Name: n.Table}
	if n.Database != "" {
		id.Database = n.Database
	}
	if n.Catalog != "" {
		id.Catalog = n.Catalog
	}
	if id.Catalog != catalog.DefaultCatalog {
		return id, nil, catalog.TableNotExist(id.Catalog, id.Database, id.Name)
	}
	t, err := e.cat.GetTable(id.Database, id.Name)
	if err != nil {
		if errors.Is(err, catalog.ErrTableNotExist) {
			return id, nil, &sql.Error{Class: sql.SqlValidatorException,
				Msg: fmt.Sprintf("Object '%s' not found", n.Table), Err: err}
		}
		return id, nil, err
	}
	return id, t, nil
}

// exec runs one statement: DDL and SET change the env, EXPLAIN returns
// its text, INSERT/SELECT return the plan's EXPLAIN CHANGELOG_MODE text.
func (e *testEnv) exec(text string, dot bool) (string, error) {
	stmt, err := parser.Parse(text)
	if err != nil {
		return "", err
	}
	switch x := stmt.(type) {
	case *ast.CreateTable:
		t, err := catalog.TableFromDDL(x, nil)
		if err != nil {
			return "", err
		}
		if err := plan.ResolveComputedColumns(t); err != nil {
			return "", err
		}
		return "", e.cat.CreateTable(catalog.DefaultDatabase, x.Name.Table, t, x.IfNotExists)
	case *ast.CreateView:
		schema, err := plan.New(e).ViewSchema(x.Query, x.Columns)
		if err != nil {
			return "", err
		}
		t := &catalog.Table{Schema: schema, Options: map[string]string{}, View: &catalog.View{Query: x.Query, Columns: x.Columns}}
		return "", e.cat.CreateTable(catalog.DefaultDatabase, x.Name.Table, t, x.IfNotExists)
	case *ast.Set:
		e.config[x.Key] = x.Value
		return "", nil
	case *ast.Reset:
		if x.Key == "" {
			e.config = map[string]string{}
		}
		delete(e.config, x.Key)
		return "", nil
	case *ast.Explain:
		p := plan.New(e)
		if dot {
			pl, err := p.PlanForExplain(x.Stmt)
			if err != nil {
				return "", err
			}
			return pl.DOT(), nil
		}
		if e.planOnly {
			pl, err := p.PlanForExplain(x.Stmt)
			if err != nil {
				return "", err
			}
			return pl.Explain(x.Details...), nil
		}
		return p.Explain(x)
	default:
		pl, err := plan.New(e).PlanStatement(stmt)
		if err != nil {
			return "", err
		}
		return pl.Explain(plan.DetailChangelogMode), nil
	}
}

// formatErr prints an error as the SQL client's root cause line.
func formatErr(err error) string {
	if rc := sql.RootCause(err); rc != nil {
		return "error: " + string(rc.Class) + ": " + rc.Msg + "\n" + outer(err, rc)
	}
	return "error: " + err.Error() + "\n"
}

// outer shows the top-level message too when it differs from the root
// cause (Flink's "SQL validation failed. From line ..." wrapper).
func outer(err error, rc *sql.Error) string {
	if err.Error() == rc.Msg {
		return ""
	}
	return "wrapped: " + strings.SplitN(err.Error(), "\n", 2)[0] + "\n"
}

// LookupTableAt: the in-memory catalog keeps no versions (Flink's tests
// expect the temporal-table refusal for its tables), unless a golden sets
// the test-only key 'test.versioned' = 'true': then a table's one
// version is its current one, as a time-travel catalog would return it.
func (e *testEnv) LookupTableAt(n ast.ObjectName, at func() (int64, error)) (connectors.ObjectIdentifier, *catalog.Table, bool, error) {
	if e.config["test.versioned"] != "true" {
		return connectors.ObjectIdentifier{}, nil, false, nil
	}
	if _, err := at(); err != nil {
		return connectors.ObjectIdentifier{}, nil, true, err
	}
	id, t, err := e.LookupTable(n)
	return id, t, true, err
}
