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
}

func (e sessionEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	return e.s.Catalogs.LookupTable(n)
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
