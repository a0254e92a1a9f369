package exec

import (
	"context"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
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
	plan.Env
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

// sessionEnv adapts a Session to Env: the catalog manager resolves
// tables, system tables, default connectors and table paths.
type sessionEnv struct {
	s *Session
	// pinned are the options of a pinned full start, by table.
	pinned map[connectors.ObjectIdentifier]map[string]string
	// memo is what one statement has already resolved (nil: nothing is
	// kept); Session.Env makes a new one for each statement.
	memo *statementMemo
}

// statementMemo keeps what planning one statement resolved, so a
// statement resolves each table name once however often the binder asks
// (a view check, then the table; a self-join) and a statement planned
// before it is run (fullStartEnv) is not planned again: a Paimon
// catalog's table is read from storage once per statement (issue 21).
type statementMemo struct {
	tables map[[3]string]resolved
	// plan is the plan of stmt, made in this env by fullStartEnv.
	stmt ast.Statement
	plan *plan.Plan
}

type resolved struct {
	id connectors.ObjectIdentifier
	t  *catalog.Table
}

func (e sessionEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	key := [3]string{n.Catalog, n.Database, n.Table}
	if e.memo != nil {
		if r, ok := e.memo.tables[key]; ok {
			return r.id, r.t, nil
		}
	}
	id, t, err := e.s.Catalogs.LookupTable(n)
	if err == nil && e.memo != nil {
		if e.memo.tables == nil {
			e.memo.tables = map[[3]string]resolved{}
		}
		e.memo.tables[key] = resolved{id, t}
	}
	return id, t, err
}

func (e sessionEnv) LookupTableAt(n ast.ObjectName, at func() (int64, error)) (connectors.ObjectIdentifier, *catalog.Table, bool, error) {
	return e.s.Catalogs.LookupTableAt(n, at)
}

// planned is the plan fullStartEnv made of stmt in env, if any.
func planned(env Env, stmt ast.Statement) *plan.Plan {
	if e, ok := env.(sessionEnv); ok && e.memo != nil && e.memo.stmt == stmt {
		return e.memo.plan
	}
	return nil
}

func (e sessionEnv) Config() map[string]string { return e.s.Config.Map() }

func (e sessionEnv) DefaultConnector(id connectors.ObjectIdentifier) string {
	return e.s.Catalogs.DefaultConnector(id)
}

func (e sessionEnv) TablePath(id connectors.ObjectIdentifier) string {
	return e.s.Catalogs.TablePath(id)
}

func (e sessionEnv) PinnedOptions(id connectors.ObjectIdentifier) map[string]string {
	return e.pinned[id]
}

// CurrentDatabase is the session's current database, which
// CURRENT_DATABASE() returns (plan.CurrentDatabaseEnv).
func (e sessionEnv) CurrentDatabase() string { return e.s.Catalogs.CurrentDatabase() }
