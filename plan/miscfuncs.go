package plan

import (
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// CurrentDatabaseEnv is an Env that knows the session's current database,
// which CURRENT_DATABASE() returns (the session's Env does; an Env
// without it reads default_database, the default session's).
type CurrentDatabaseEnv interface {
	CurrentDatabase() string
}

// bindSessionCall binds a call by name (bindFunc) and the parts of
// CURRENT_DATABASE() and CURRENT_WATERMARK(x) the function table cannot
// know: the session's current database, and whether x is a rowtime
// attribute of the scope's input (CurrentWatermarkInputTypeStrategy; a
// batch query has none, as Flink's batch planner has no time attributes).
func (b *binder) bindSessionCall(x *ast.FuncCall, args []Expr, sc *scope) (Expr, error) {
	e, err := bindFunc(x, args)
	if err != nil {
		return nil, err
	}
	c, ok := e.(*Call)
	if !ok {
		return e, nil
	}
	switch c.Op {
	case "CURRENT_DATABASE":
		db := "default_database"
		if d, ok := b.env.(CurrentDatabaseEnv); ok {
			db = d.CurrentDatabase()
		}
		return expr.WithCurrentDatabase(c, db), nil
	case "CURRENT_WATERMARK":
		if b.streaming && (sc == nil || sc.input == nil) {
			// A join's ON clause, a GROUP BY window's auxiliary reads:
			// sqlrun evaluates it only in a Calc over a SELECT's FROM.
			return nil, sql.Errorf(sql.TableException, "sqlrun supports CURRENT_WATERMARK only in the select list or WHERE clause of a SELECT over the table whose rowtime it names")
		}
		if !b.streaming || exprTimeAttr(sc.input, c.Args[0]) != rowTime {
			if b.streaming && declaresWatermark(sc.input) {
				// A rowtime passed on through a join, an aggregate, ...:
				// Flink's validator may still see a rowtime attribute there,
				// sqlrun does not follow it.
				return nil, sql.Errorf(sql.TableException, "sqlrun supports CURRENT_WATERMARK only over a rowtime attribute its SELECT's FROM passes on unchanged from the table's WATERMARK (not through a join or an aggregation)")
			}
			return nil, expr.CurrentWatermarkNotRowtime(x.Name, c.Args[0])
		}
	}
	return c, nil
}

// duplicatesNonDeterministic reports whether inlining below (a
// projection's expressions) into what reads it would evaluate one of its
// non-deterministic expressions (RAND(), UUID(), ...) more than once per
// row: uses refer to it more than once, counting extra[i] more uses of
// field i (a filter passes every field on). Flink's
// FlinkRelUtil.isMergeable refuses such a merge (FlinkCalcMergeRule,
// FlinkProjectMergeRule), so RAND() AS r read as r + 7 - (r + 5) is 2.
func duplicatesNonDeterministic(below []Expr, passThrough bool, uses ...Expr) bool {
	nd := false
	for _, e := range below {
		if !expr.Deterministic(e) {
			nd = true
		}
	}
	if !nd {
		return false
	}
	counts := make([]int, len(below))
	for _, u := range uses {
		if u == nil {
			continue
		}
		mapRefs(u, func(x *InputRef) Expr {
			if x.Index < len(counts) {
				counts[x.Index]++
			}
			return x
		})
	}
	for i, e := range below {
		n := counts[i]
		if passThrough {
			n++
		}
		if n > 1 && !expr.Deterministic(e) {
			return true
		}
	}
	return false
}

// declaresWatermark reports whether a table below n declares a watermark
// (a WatermarkAssigner, or one pushed into the scan).
func declaresWatermark(n Node) bool {
	switch x := n.(type) {
	case *LogicalWatermarkAssigner:
		return true
	case *LogicalTableScan:
		if x.Watermark != nil {
			return true
		}
	}
	for _, in := range n.Inputs() {
		if declaresWatermark(in) {
			return true
		}
	}
	return false
}

// checkNonDeterministicUpdates stands in for Flink's
// StreamNonDeterministicUpdatePlanVisitor, which runs when
// 'table.optimizer.non-deterministic-update.strategy' is TRY_RESOLVE:
// sqlrun does not resolve non-deterministic updates, so it refuses a plan
// with a Calc that calls a non-deterministic function (RAND(), UUID(),
// the clock ...) over an updating input, the case that check is about,
// rather than run it as with IGNORE.
func checkNonDeterministicUpdates(root Node, cfg map[string]string) error {
	strategy, err := config.Enum(cfg, config.KeyNonDeterministicUpd)
	if err != nil || strategy != "TRY_RESOLVE" {
		return err
	}
	var walk func(n Node) error
	walk = func(n Node) error {
		if c, ok := n.(*Calc); ok && !c.input().Mode().IsInsertOnly() {
			for _, e := range append([]Expr{c.Cond}, c.Exprs...) {
				if e != nil && !expr.Deterministic(e) {
					return sql.Errorf(sql.TableException,
						"sqlrun does not implement '%s' = 'TRY_RESOLVE': this plan calls a non-deterministic function (%s) over an updating input, which Flink's check would examine and may refuse; remove the call or set the option to 'IGNORE'",
						config.KeyNonDeterministicUpd, FormatExpr(e, c.input().Names(), FormatPrefix))
				}
			}
		}
		for _, in := range n.Inputs() {
			if err := walk(in); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}
