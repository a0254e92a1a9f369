package main

import (
	"context"

	"github.com/sqlrun/sqlrun/exec"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// planner returns the planner the binary uses: plan/ for EXPLAIN and DOT.
// Running INSERT and SELECT needs exec/compile (the physical plan → job
// graph translation); until it is linked in, they plan (so every
// validation error shows) and then fail with a clear message.
// It is a variable so tests can run jobs with a planner of their own.
var planner = func() exec.Planner { return planAdapter{} }

// planAdapter adapts plan.Planner to exec.Planner. The session's Env
// satisfies plan.Env (and plan.DefaultConnectorEnv).
type planAdapter struct{}

func (planAdapter) Explain(_ context.Context, env exec.Env, st *ast.Explain) (string, error) {
	return plan.New(env).Explain(st)
}

func (planAdapter) DOT(_ context.Context, env exec.Env, stmt ast.Statement) (string, error) {
	pl, err := plan.New(env).PlanForExplain(stmt)
	if err != nil {
		return "", err
	}
	return pl.DOT(), nil
}

func notCompiled(what string) error {
	return sql.Errorf(sql.TableException,
		"%s plans, but this build of sqlrun cannot run it yet: the plan-to-job translation (exec/compile) is not linked in.", what)
}

func (planAdapter) CompileInsert(_ context.Context, env exec.Env, stmt ast.Statement, _ string) (*runtime.Graph, error) {
	if _, err := plan.New(env).PlanStatement(stmt); err != nil {
		return nil, err
	}
	return nil, notCompiled("The INSERT")
}

func (planAdapter) CompileQuery(_ context.Context, env exec.Env, st *ast.Query, _ string) (*exec.QueryJob, error) {
	if _, err := plan.New(env).PlanStatement(st); err != nil {
		return nil, err
	}
	return nil, notCompiled("The query")
}
