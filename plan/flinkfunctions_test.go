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
// "--- functions" section ("weightedAvg = WeightedAvgWithMerge"), by the
// class's name in the package the test imports it from: Flink has two
// JavaUserDefinedAggFunctions, planner.plan.utils' (WindowAggregateTest,
// GroupWindowTest: accumulate(acc, Long, Long)) and planner.runtime.utils'
// (accumulate(acc, Long, Integer)), named runtime.WeightedAvg... here.
// Their code is not here: sqlrun only plans calls of them (the runtime
// refuses).
var javaTestFunctions = map[string]func(name string) *plan.UserFunction{
	// plan.utils.JavaUserDefinedAggFunctions.WeightedAvg:
	// AggregateFunction<Long, WeightedAvgAccum> with accumulate(acc, Long,
	// Integer, Integer, String), accumulate(acc, Long, Long) and
	// accumulate(acc, Integer, Integer); no merge, no retract.
	"WeightedAvg": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: signatures(name, planWeightedAvg)}
	},
	// WeightedAvgWithMerge adds merge(acc, Iterable<WeightedAvgAccum>).
	"WeightedAvgWithMerge": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: signatures(name, planWeightedAvg), Merge: true}
	},
	// runtime.utils.JavaUserDefinedAggFunctions.WeightedAvg: accumulate(acc,
	// Long, Integer, Integer, String), accumulate(acc, Long, Integer),
	// accumulate(acc, Integer, Integer).
	"runtime.WeightedAvg": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: signatures(name, runtimeWeightedAvg)}
	},
	"runtime.WeightedAvgWithMerge": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: signatures(name, runtimeWeightedAvg), Merge: true}
	},
	// runtime.utils' WeightedAvgWithRetract adds retract(acc, long, int)
	// and retract(acc, int, int).
	"runtime.WeightedAvgWithRetract": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, Infer: signatures(name, runtimeWeightedAvg), Retract: true}
	},
	// runtime.utils' OverAgg0: accumulate(Accumulator0, long, int),
	// returning Long, with FunctionRequirement.OVER_WINDOW_ONLY.
	"runtime.OverAgg0": func(name string) *plan.UserFunction {
		return &plan.UserFunction{Name: name, Kind: plan.AggregateFunction, OverWindowOnly: true,
			Infer: signatures(name, [][]sql.DataType{{sql.BigInt().NotNull(), sql.Int().NotNull()}})}
	},
}

var (
	planWeightedAvg = [][]sql.DataType{
		{sql.BigInt(), sql.Int(), sql.Int(), sql.String()},
		{sql.BigInt(), sql.BigInt()},
		{sql.Int(), sql.Int()},
	}
	runtimeWeightedAvg = [][]sql.DataType{
		{sql.BigInt(), sql.Int(), sql.Int(), sql.String()},
		{sql.BigInt(), sql.Int()},
		{sql.Int(), sql.Int()},
	}
)

// signatures is the type inference Flink extracts from overloaded
// accumulate methods (each a signature of boxed types, so nullable): a
// signature the arguments match exactly, else the first they reach by
// implicit casts (an exact integer to a wider one; a string to STRING),
// whose parameter types the arguments are cast to. The result is the
// function's Long: a nullable BIGINT.
func signatures(name string, sigs [][]sql.DataType) func([]sql.DataType) ([]sql.DataType, sql.DataType, error) {
	return func(args []sql.DataType) ([]sql.DataType, sql.DataType, error) {
		for _, exact := range []bool{true, false} {
			for _, sig := range sigs {
				if len(sig) != len(args) {
					continue
				}
				ok := true
				params := make([]sql.DataType, len(sig))
				for i, p := range sig {
					a := args[i]
					params[i] = p.WithNullable(a.Nullable)
					switch {
					case a.Root == p.Root && (a.Root != sql.TypeVarChar || a.Length == p.Length):
						params[i] = a
					case exact:
						ok = false
					case a.IsIntegral() && p.IsIntegral() && integerRank[a.Root] < integerRank[p.Root]:
					case (a.Root == sql.TypeVarChar || a.Root == sql.TypeChar) && p.Root == sql.TypeVarChar:
					default:
						ok = false
					}
				}
				if ok {
					return params, sql.BigInt().WithNullable(true), nil
				}
			}
		}
		ts := make([]string, len(args))
		for i, t := range args {
			ts[i] = t.String()
		}
		return nil, sql.DataType{}, fmt.Errorf("Invalid function call:\n%s(%s)", name, strings.Join(ts, ", "))
	}
}

var integerRank = map[sql.TypeRoot]int{sql.TypeTinyInt: 1, sql.TypeSmallInt: 2, sql.TypeInt: 3, sql.TypeBigInt: 4}

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
