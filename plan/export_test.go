package plan

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/sql/ast"
)

// RuleNames lists the optimizer's rules in the order they run.
func RuleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Name
	}
	return out
}

// TraceRule plans an INSERT or a query and prints its tree just before and
// just after the named rule (step "convert" is the conversion into
// physical nodes), or "unchanged" when the rule did not rewrite it.
func TraceRule(p *Planner, stmt ast.Statement, rule string) (string, error) {
	var out strings.Builder
	found := false
	_, err := traceSteps(p, stmt, func(step string, before, after Node) {
		if step != rule {
			return
		}
		found = true
		o := explainOpts{format: FormatPrefix}
		bt, at := explainTree(before, o), explainTree(after, o)
		if bt == at {
			out.WriteString("unchanged:\n" + bt)
			return
		}
		out.WriteString("before:\n" + bt + "after:\n" + at)
	})
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("trace: no step %q", rule)
	}
	return out.String(), nil
}

// TraceProgram plans an INSERT or a query through only the named logical
// rules, in the optimizer's order, and prints the logical tree they leave
// (as TraceRule's "after:"). It stands for the program a Flink logical
// rule test installs in place of the optimizer's (the converters and the
// rule under test, whose plan its XML prints as the "optimized rel
// plan"): program names the sqlrun rules that do what that program does.
func TraceProgram(p *Planner, stmt ast.Statement, program []string) (string, error) {
	want := map[string]bool{}
	for _, n := range program {
		want[n] = true
	}
	var run []Rule
	for _, r := range rules {
		if !want[r.Name] {
			continue
		}
		if r.Physical {
			return "", fmt.Errorf("trace: %q is a physical rule", r.Name)
		}
		run = append(run, r)
		delete(want, r.Name)
	}
	for n := range want {
		return "", fmt.Errorf("trace: no rule %q", n)
	}
	b := p.binder()
	n, err := bindStatement(b, stmt)
	if err != nil {
		return "", err
	}
	for _, r := range run {
		if n, err = b.applyRule(r, n); err != nil {
			return "", err
		}
	}
	return explainTree(n, explainOpts{format: FormatPrefix}), nil
}

// traceSteps binds an INSERT or a query and runs the optimizer over it
// with trace seeing every step.
func traceSteps(p *Planner, stmt ast.Statement, trace func(step string, before, after Node)) (Node, error) {
	b := p.binder()
	root, err := bindStatement(b, stmt)
	if err != nil {
		return nil, err
	}
	return b.optimize(root, trace)
}

func bindStatement(b *binder, stmt ast.Statement) (Node, error) {
	switch x := stmt.(type) {
	case *ast.Insert:
		return b.bindInsert(x)
	case *ast.Query:
		return b.bindQuery(x.Body)
	}
	return nil, fmt.Errorf("trace: unsupported statement %T", stmt)
}
