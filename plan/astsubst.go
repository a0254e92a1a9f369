package plan

import (
	"strings"

	"github.com/sqlrun/sqlrun/sql/ast"
)

// substAST returns e with every sub-expression for which f returns a
// replacement replaced (not looked into further); nodes on the way are
// copied, the rest shared. Subqueries are not entered (Calcite's
// OrderExpressionExpander does not expand them either).
func substAST(e ast.Expr, f func(ast.Expr) ast.Expr) ast.Expr {
	if e == nil {
		return nil
	}
	if r := f(e); r != nil {
		return r
	}
	sub := func(x ast.Expr) ast.Expr { return substAST(x, f) }
	list := func(xs []ast.Expr) []ast.Expr {
		out := make([]ast.Expr, len(xs))
		for i, x := range xs {
			out[i] = sub(x)
		}
		return out
	}
	switch x := e.(type) {
	case *ast.Unary:
		c := *x
		c.X = sub(x.X)
		return &c
	case *ast.Binary:
		c := *x
		c.L, c.R = sub(x.L), sub(x.R)
		return &c
	case *ast.FuncCall:
		c := *x
		c.Args = list(x.Args)
		return &c
	case *ast.Cast:
		c := *x
		c.X = sub(x.X)
		return &c
	case *ast.Case:
		c := *x
		c.Operand = sub(x.Operand)
		c.Whens = make([]ast.When, len(x.Whens))
		for i, w := range x.Whens {
			c.Whens[i] = ast.When{Node: w.Node, Cond: sub(w.Cond), Result: sub(w.Result)}
		}
		c.Else = sub(x.Else)
		return &c
	case *ast.In:
		if x.Query != nil {
			return e
		}
		c := *x
		c.X, c.List = sub(x.X), list(x.List)
		return &c
	case *ast.Between:
		c := *x
		c.X, c.Lo, c.Hi = sub(x.X), sub(x.Lo), sub(x.Hi)
		return &c
	case *ast.Like:
		c := *x
		c.X, c.Pattern, c.Escape = sub(x.X), sub(x.Pattern), sub(x.Escape)
		return &c
	case *ast.IsNull:
		c := *x
		c.X = sub(x.X)
		return &c
	case *ast.IsBool:
		c := *x
		c.X = sub(x.X)
		return &c
	case *ast.Item:
		c := *x
		c.X, c.Index = sub(x.X), sub(x.Index)
		return &c
	case *ast.FieldAccess:
		if isCompoundIdent(x) {
			return e // one identifier (a.b.c.d): no alias inside
		}
		c := *x
		c.X = sub(x.X)
		return &c
	}
	return e
}

// astChildren are the direct operands of e, the ones walkAST enters.
func astChildren(e ast.Expr) []ast.Expr {
	var out []ast.Expr
	add := func(xs ...ast.Expr) {
		for _, x := range xs {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	switch x := e.(type) {
	case *ast.Unary:
		add(x.X)
	case *ast.Binary:
		add(x.L, x.R)
	case *ast.FuncCall:
		add(x.Args...)
	case *ast.Cast:
		add(x.X)
	case *ast.Case:
		add(x.Operand)
		for _, w := range x.Whens {
			add(w.Cond, w.Result)
		}
		add(x.Else)
	case *ast.In:
		add(x.X)
		add(x.List...)
	case *ast.Between:
		add(x.X, x.Lo, x.Hi)
	case *ast.Like:
		add(x.X, x.Pattern)
	case *ast.IsNull:
		add(x.X)
	case *ast.IsBool:
		add(x.X)
	case *ast.Item:
		add(x.X, x.Index)
	case *ast.FieldAccess:
		add(x.X)
	}
	return out
}

// calciteText spells an aggregate call as Calcite's SqlNode.toString
// does in a validator message: SUM(`b`), COUNT(*), COUNT(DISTINCT `a`).
func calciteText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.ColumnRef:
		parts := []string{}
		if x.Qualifier != "" {
			parts = strings.Split(x.Qualifier, ".")
		}
		parts = append(parts, x.Name)
		for i, p := range parts {
			parts[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
		}
		return strings.Join(parts, ".")
	case *ast.FuncCall:
		if x.Star {
			return x.Name + "(*)"
		}
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = calciteText(a)
		}
		d := ""
		if x.Distinct {
			d = "DISTINCT "
		}
		return x.Name + "(" + d + strings.Join(args, ", ") + ")"
	case *ast.Binary:
		return calciteText(x.L) + " " + string(x.Op) + " " + calciteText(x.R)
	}
	return e.String()
}
