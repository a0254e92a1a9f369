package exec

import (
	"context"

	"github.com/sqlrun/sqlrun/exec/compile"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// PlanPlanner is the real Planner: plan/ plans (EXPLAIN, DOT and every
// validation error), exec/compile turns the plan into a runtime job
// graph. The session's Env satisfies plan.Env.
type PlanPlanner struct{}

func (PlanPlanner) Explain(_ context.Context, env Env, st *ast.Explain) (string, error) {
	return plan.New(env).Explain(st)
}

func (PlanPlanner) PhysicalPlan(_ context.Context, env Env, stmt ast.Statement) (*plan.Plan, error) {
	return plan.New(env).PlanForExplain(stmt)
}

func (PlanPlanner) CompileInsert(_ context.Context, env Env, stmt ast.Statement, name string) (*runtime.Graph, error) {
	pl := planned(env, stmt) // an INSERT's plan is the same for EXPLAIN
	if pl == nil {
		var err error
		if pl, err = plan.New(env).PlanStatement(stmt); err != nil {
			return nil, err
		}
	}
	return compile.Graph(pl, compile.Options{JobName: name, Config: env.Config()})
}

func (PlanPlanner) CompileQuery(_ context.Context, env Env, st *ast.Query, name string) (*QueryJob, error) {
	pl, err := plan.New(env).PlanStatement(st)
	if err != nil {
		return nil, err
	}
	c := runtime.NewCollect(16)
	g, err := compile.Graph(pl, compile.Options{JobName: name, Config: env.Config(), Collect: c})
	if err != nil {
		return nil, err
	}
	schema := resultSchema(pl)
	bounded := true
	for _, v := range g.Vertices {
		if v.Source != nil && !v.Source.Bounded() {
			bounded = false
		}
	}
	return &QueryJob{Graph: g, Collect: c, Schema: schema, Bounded: bounded}, nil
}

// resultSchema is a query plan's result row: the collect sink's input.
func resultSchema(pl *plan.Plan) sql.Schema {
	var schema sql.Schema
	if len(pl.Physical) > 0 && len(pl.Physical[0].Inputs()) > 0 {
		in := pl.Physical[0].Inputs()[0]
		names := in.Names()
		if len(pl.Logical) > 0 && len(pl.Logical[0].Names()) == len(names) {
			// The validated names, as Flink's result schema: the optimizer
			// may rename a field (a rank number is w0$o0 in the plan).
			names = pl.Logical[0].Names()
		}
		for i, n := range names {
			// toLogicalType of the row's Calcite types: a TIME(3)
			// literal's or cast's column is TIME(0) (sql.Planned).
			schema.Columns = append(schema.Columns, sql.Column{Name: n, Type: sql.Planned(in.Types()[i])})
		}
	}
	return schema
}
