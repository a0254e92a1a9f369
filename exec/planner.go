package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Env is what planning a statement needs from the session: tables by
// name (resolved through the current catalog and database, temporary
// tables first) and the session configuration. The planner's own lookup
// interface is satisfied by the session's Env value.
type Env interface {
	LookupTable(name ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error)
	Config() map[string]string
}

// QueryJob is a planned SELECT: a graph whose only sink is Collect, and
// the result schema the shell prints.
type QueryJob struct {
	Graph   *runtime.Graph
	Collect *runtime.Collect
	Schema  sql.Schema
	// Bounded is true when every source ends by itself: the result is
	// final (batch tableau prints "N rows in set").
	Bounded bool
}

// Planner is the seam between the session and plan/ + exec/compile. The
// session owns statement dispatch, output and job control; the planner
// owns turning a statement into text (EXPLAIN) or a runnable graph. It is
// an interface so the session is testable before and without the
// planner, and so the shell can plug in the real one (cmd/sqlrun).
type Planner interface {
	// Explain returns EXPLAIN's text, as Flink prints it.
	Explain(ctx context.Context, env Env, stmt *ast.Explain) (string, error)
	// CompileInsert plans an *ast.Insert or *ast.StatementSet into a
	// graph named name (the job name; its checkpoints live under it).
	CompileInsert(ctx context.Context, env Env, stmt ast.Statement, name string) (*runtime.Graph, error)
	// CompileQuery plans a SELECT (or VALUES) into a graph ending in a
	// collect sink.
	CompileQuery(ctx context.Context, env Env, stmt *ast.Query, name string) (*QueryJob, error)
	// PhysicalPlan plans an INSERT, statement set or query for EXPLAIN
	// and returns the plan itself: `sqlrun explain --dot` draws it
	// (plan/dot).
	PhysicalPlan(ctx context.Context, env Env, stmt ast.Statement) (*plan.Plan, error)
}

// DefaultPlanner is the planner new sessions use: the real one.
var DefaultPlanner Planner = PlanPlanner{}

// sessionEnv adapts a Session to Env.
type sessionEnv struct{ s *Session }

func (e sessionEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	id, t, err := e.s.Catalogs.LookupTable(n)
	if err != nil && errors.Is(err, catalog.ErrTableNotExist) {
		if sid, st, ok, serr := e.systemTable(n); ok {
			return sid, st, serr
		}
	}
	return id, t, err
}

// systemTable resolves a Paimon system table such as orders$snapshots:
// the base table must exist and be a Paimon table (of a Paimon catalog or
// a 'connector' = 'paimon' table); the result is a table named
// "orders$snapshots" with the system table's columns and the base
// table's options, which the Paimon factory reads as a system table. ok
// is false when n names no system table of a Paimon table: the caller
// keeps Flink's "not found" error.
func (e sessionEnv) systemTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, bool, error) {
	base, sys, ok := paimon.SystemTable(n.Table)
	if !ok {
		return connectors.ObjectIdentifier{}, nil, false, nil
	}
	bn := n
	bn.Table = base
	bid, bt, err := e.s.Catalogs.LookupTable(bn)
	if err != nil {
		return connectors.ObjectIdentifier{}, nil, false, nil
	}
	conn := bt.Options["connector"]
	if conn == "" {
		conn = e.DefaultConnector(bid)
	}
	if conn != paimon.Identifier {
		return connectors.ObjectIdentifier{}, nil, false, nil
	}
	path := bt.Options["path"]
	if path == "" {
		path = e.TablePath(bid)
	}
	sid := bid
	sid.Name = bid.Name + "$" + sys
	sch, err := paimon.SystemTableSchema(path, sys, bt.Options)
	if err != nil && e.s.DryRun {
		// A table the dry run created exists only in its overlay: the
		// data system tables' columns follow from its declaration.
		if ds, ok := dryRunSystemSchema(sys, bt.Schema); ok {
			sch, err = ds, nil
		}
	}
	if err != nil {
		return sid, nil, true, fmt.Errorf("system table %s: %w", sid, err)
	}
	opts := make(map[string]string, len(bt.Options)+1)
	for k, v := range bt.Options {
		opts[k] = v
	}
	return sid, &catalog.Table{Schema: sch, Options: opts}, true, nil
}

func (e sessionEnv) Config() map[string]string { return e.s.Config.Map() }

// DefaultConnector names the connector of a table whose catalog implies
// one (a Paimon catalog's tables need no 'connector' option), or "".
func (e sessionEnv) DefaultConnector(id connectors.ObjectIdentifier) string {
	c, err := e.s.Catalogs.Catalog(id.Catalog)
	if err != nil {
		return ""
	}
	if dc, ok := c.(catalog.DefaultConnector); ok {
		return dc.DefaultConnector()
	}
	return ""
}

// tablePather is implemented by catalogs that own their tables' storage
// (the Paimon warehouse: <warehouse>/<db>.db/<table>).
type tablePather interface {
	TablePath(db, name string) string
}

// TablePath is where a catalog table lives, "" for catalogs that do not
// store tables themselves. Paimon's FlinkCatalog hands its tables to the
// connector with their location; the planner passes this as the table's
// 'path' option (plan.TablePathEnv), so SHOW CREATE TABLE stays as the
// user declared it.
func (e sessionEnv) TablePath(id connectors.ObjectIdentifier) string {
	c, err := e.s.Catalogs.Catalog(id.Catalog)
	if err != nil {
		return ""
	}
	if tp, ok := c.(tablePather); ok {
		name := id.Name
		if base, _, ok := paimon.SystemTable(name); ok {
			name = base
		}
		return tp.TablePath(id.Database, name)
	}
	return ""
}
