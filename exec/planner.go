package exec

import (
	"context"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
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
	// DOT renders the physical plan of an INSERT, statement set or query
	// as Graphviz DOT, edges labelled with changelog modes.
	DOT(ctx context.Context, env Env, stmt ast.Statement) (string, error)
}

// NoPlanner fails every planning statement with a clear TableException
// while everything else works: for tools that only manage catalogs.
type NoPlanner struct{}

func (NoPlanner) err(what string) error {
	return sql.Errorf(sql.TableException, "%s needs the planner, which is not part of this build of sqlrun yet.", what)
}

// Explain fails.
func (p NoPlanner) Explain(context.Context, Env, *ast.Explain) (string, error) {
	return "", p.err("EXPLAIN")
}

// CompileInsert fails.
func (p NoPlanner) CompileInsert(context.Context, Env, ast.Statement, string) (*runtime.Graph, error) {
	return nil, p.err("INSERT")
}

// CompileQuery fails.
func (p NoPlanner) CompileQuery(context.Context, Env, *ast.Query, string) (*QueryJob, error) {
	return nil, p.err("SELECT")
}

// DOT fails.
func (p NoPlanner) DOT(context.Context, Env, ast.Statement) (string, error) {
	return "", p.err("EXPLAIN --dot")
}

// DefaultPlanner is the planner new sessions use: the real one.
var DefaultPlanner Planner = PlanPlanner{}

// sessionEnv adapts a Session to Env.
type sessionEnv struct{ s *Session }

func (e sessionEnv) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	return e.s.Catalogs.LookupTable(n)
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
