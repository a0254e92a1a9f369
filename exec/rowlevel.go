package exec

import (
	"context"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/compile"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// RowLevelPlanner is implemented by planners that compile DELETE and
// UPDATE (PlanPlanner); a session whose planner does not fails them.
type RowLevelPlanner interface {
	CompileRowLevel(ctx context.Context, env Env, stmt ast.Statement, name string) (*runtime.Graph, error)
}

const (
	rowLevelDeleteIface = "org.apache.flink.table.connector.sink.abilities.SupportsRowLevelDelete"
	rowLevelUpdateIface = "org.apache.flink.table.connector.sink.abilities.SupportsRowLevelUpdate"
)

// rowLevel runs DELETE or UPDATE as Flink does in batch mode: a job reads
// the rows the WHERE clause selects and writes them (as deletes, or with
// their new values) into the same table in one commit. Its output is an
// INSERT's (Submitting, then Complete with table.dml-sync).
func (s *Session) rowLevel(ctx context.Context, stmt ast.Statement, out io.Writer) error {
	what := "DELETE"
	if _, ok := stmt.(*ast.Update); ok {
		what = "UPDATE"
	}
	if s.Config.Streaming() {
		return sql.Errorf(sql.TableException, "%s statement is not supported for streaming mode now.", what)
	}
	rp, ok := s.Planner.(RowLevelPlanner)
	if !ok {
		return sql.Errorf(sql.TableException, "%s statement is not supported by this planner.", what)
	}
	return s.runGraph(ctx, stmt, out, func(name string) (*runtime.Graph, error) {
		return rp.CompileRowLevel(ctx, s.Env(), stmt, name)
	})
}

// RowLevelInsert rewrites DELETE FROM t WHERE c into INSERT INTO t SELECT *
// FROM t WHERE c, and UPDATE t SET a = e WHERE c into INSERT INTO t SELECT
// <e for a, the column otherwise> FROM t WHERE c: the query Flink's
// planner builds for a row-level modification. cols are the target
// table's columns (for UPDATE).
func RowLevelInsert(stmt ast.Statement, cols []string) (*ast.Insert, error) {
	var (
		name  ast.ObjectName
		where ast.Expr
		items []ast.SelectItem
	)
	switch x := stmt.(type) {
	case *ast.Delete:
		name, where = x.Table, x.Where
		items = []ast.SelectItem{{Star: true}}
	case *ast.Update:
		name, where = x.Table, x.Where
		set := map[string]ast.Expr{}
		for _, a := range x.Sets {
			found := false
			for _, c := range cols {
				if c == a.Column {
					found = true
				}
			}
			if !found {
				return nil, sql.Errorf(sql.ValidationException, "SQL validation failed. From line %d, column %d to line %d, column %d: Unknown target column '%s'",
					a.At.Line, a.At.Col, a.At.Line, a.At.Col+len(a.Column)-1, a.Column)
			}
			set[a.Column] = a.Value
		}
		for _, c := range cols {
			if e, ok := set[c]; ok {
				items = append(items, ast.SelectItem{Expr: e, Alias: c})
			} else {
				items = append(items, ast.SelectItem{Expr: &ast.ColumnRef{Name: c}})
			}
		}
	default:
		return nil, fmt.Errorf("row-level modification: unexpected %T", stmt)
	}
	sel := &ast.Select{Items: items, From: &ast.TableRef{Name: name}, Where: where}
	ins := &ast.Insert{Table: name, Query: sel}
	ins.At, ins.Text = stmt.Pos(), stmt.SQL()
	return ins, nil
}

// CompileRowLevel plans DELETE/UPDATE through the rewritten INSERT and
// tells the sink to write deletes or updates; sinks without row-level
// support fail with Flink's message.
func (PlanPlanner) CompileRowLevel(_ context.Context, env Env, stmt ast.Statement, name string) (*runtime.Graph, error) {
	var target ast.ObjectName
	var sets []string
	del := true
	switch x := stmt.(type) {
	case *ast.Delete:
		target = x.Table
	case *ast.Update:
		target, del = x.Table, false
		for _, a := range x.Sets {
			sets = append(sets, a.Column)
		}
	}
	id, t, err := env.LookupTable(target)
	if err != nil {
		return nil, err
	}
	// Flink asks the sink before it plans the scan: a connector without
	// row-level support fails first (of the built-in ones only Paimon has
	// it).
	conn := t.Options["connector"]
	if conn == "" {
		conn = env.DefaultConnector(id)
	}
	if f, err := connectors.Lookup(conn); err != nil {
		return nil, unsupportedRowLevel(del, id.String())
	} else if _, ok := f.(connectors.RowLevelFactory); !ok {
		return nil, unsupportedRowLevel(del, id.String())
	}
	ins, err := RowLevelInsert(stmt, t.Schema.Names())
	if err != nil {
		return nil, err
	}
	pl, err := plan.New(env).PlanStatement(ins)
	if err != nil {
		return nil, err
	}
	if len(pl.Physical) != 1 || pl.Physical[0].Table == nil || pl.Physical[0].Table.Sink == nil {
		return nil, fmt.Errorf("row-level modification of %s: no sink in the plan", id)
	}
	snk := pl.Physical[0].Table.Sink
	if del {
		d, ok := snk.(connectors.RowLevelDeleter)
		if !ok {
			return nil, unsupportedRowLevel(true, id.String())
		}
		if err := d.ApplyRowLevelDelete(); err != nil {
			return nil, err
		}
	} else {
		u, ok := snk.(connectors.RowLevelUpdater)
		if !ok {
			return nil, unsupportedRowLevel(false, id.String())
		}
		if err := u.ApplyRowLevelUpdate(sets); err != nil {
			return nil, err
		}
	}
	return compile.Graph(pl, compile.Options{JobName: name, Config: env.Config()})
}

// unsupportedRowLevel is DynamicSinkUtils' message for a sink without
// SupportsRowLevelDelete / SupportsRowLevelUpdate.
func unsupportedRowLevel(del bool, table string) error {
	if del {
		return sql.Errorf(sql.UnsupportedOperation,
			"Can't perform delete operation of the table %s because the corresponding dynamic table sink has not yet implemented %s.", table, rowLevelDeleteIface)
	}
	return sql.Errorf(sql.UnsupportedOperation,
		"Can't perform update operation of the table %s because the corresponding dynamic table sink has not yet implemented %s.", table, rowLevelUpdateIface)
}
