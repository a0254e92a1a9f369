package plan_test

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
)

// javaTestFunctions are the user-defined functions Flink's planner suites
// register from Java/Scala test classes (util.addTemporarySystemFunction,
// util.addFunction), described by what Flink's planner reads off each
// class: its kind, the signatures of its accumulate / eval methods, and
// whether it has merge and retract methods. A .cases file names them in a
// "--- functions" section ("weightedAvg = WeightedAvgWithMerge"). Their code
// is not here: sqlrun only plans calls of them (the runtime refuses).
var javaTestFunctions = map[string]func(name string) *plan.UserFunction{
	// JavaUserDefinedAggFunctions.WeightedAvg: AggregateFunction<Long,
	// WeightedAvgAccum> with accumulate(acc, Long, Integer),
	// accumulate(acc, Integer, Integer) and accumulate(acc, Long,
	// Integer, Integer, String); no merge, no retract.
	"WeightedAvg": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: weightedAvgInfer(name)}
	},
	// WeightedAvgWithMerge adds merge(acc, Iterable<WeightedAvgAccum>).
	"WeightedAvgWithMerge": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: weightedAvgInfer(name), Merge: true}
	},
	// WeightedAvgWithRetract adds retract(acc, long, int) and
	// retract(acc, int, int).
	"WeightedAvgWithRetract": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: weightedAvgInfer(name), Retract: true}
	},
	// OverAgg0: accumulate(Accumulator0, long, int), returning Long, with
	// FunctionRequirement.OVER_WINDOW_ONLY.
	"OverAgg0": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: weightedAvgInfer(name), OverWindowOnly: true}
	},
}

// weightedAvgInfer types WeightedAvg's accumulate overloads: two exact
// integer arguments (value, weight), or those with an integer and a
// string; the result is a nullable BIGINT (Long, NULL over no rows).
// Flink's test plans call it with (BIGINT, BIGINT) (weightedAvg(b, e) in
// WindowAggregateTest) and (INT, INT), so the integer parameters accept
// any exact integer type here.
func weightedAvgInfer(name string) func([]sql.DataType) (sql.DataType, error) {
	return func(args []sql.DataType) (sql.DataType, error) {
		ok := len(args) == 2 || len(args) == 4
		for i, t := range args {
			if i == 3 {
				ok = ok && (t.Root == sql.TypeVarChar || t.Root == sql.TypeChar)
				continue
			}
			ok = ok && t.IsIntegral()
		}
		if !ok {
			ts := make([]string, len(args))
			for i, t := range args {
				ts[i] = t.String()
			}
			return sql.DataType{}, fmt.Errorf("Invalid function call:\n%s(%s)", name, strings.Join(ts, ", "))
		}
		return sql.BigInt().WithNullable(true), nil
	}
}

// registerJavaFunction registers one "name = Class" line of a case's
// functions section.
func (e *testEnv) registerJavaFunction(line string) error {
	name, class, ok := strings.Cut(line, "=")
	if !ok {
		return fmt.Errorf("%q is not name = Class", line)
	}
	name, class = strings.TrimSpace(name), strings.TrimSpace(class)
	mk, ok := javaTestFunctions[class]
	if !ok {
		return fmt.Errorf("no description of the Java class %s", class)
	}
	if e.functions == nil {
		e.functions = map[string]*plan.UserFunction{}
	}
	e.functions[strings.ToUpper(name)] = mk(name)
	return nil
}

// LookupFunction makes testEnv a plan.FunctionCatalog.
func (e *testEnv) LookupFunction(name string) (*plan.UserFunction, bool) {
	f, ok := e.functions[strings.ToUpper(name)]
	return f, ok
}
