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
	b := p.binder()
	var root Node
	var err error
	switch x := stmt.(type) {
	case *ast.Insert:
		root, err = b.bindInsert(x)
	case *ast.Query:
		root, err = b.bindQuery(x.Body)
	default:
		return "", fmt.Errorf("trace: unsupported statement %T", stmt)
	}
	if err != nil {
		return "", err
	}
	var out strings.Builder
	found := false
	_, err = b.optimize(root, func(step string, before, after Node) {
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
