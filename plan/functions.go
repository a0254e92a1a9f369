package plan

import (
	"github.com/sqlrun/sqlrun/sql"
)

// FunctionCatalog is the planner's view of user-defined functions: the
// functions a query may call that are not built in, as Flink's
// FunctionCatalog holds those a TableEnvironment registered
// (createTemporarySystemFunction, the legacy registerFunction). An Env
// that implements it is consulted after the built-in functions: a user
// function cannot shadow a built-in one here (Flink lets a temporary
// system function do so; no caller of sqlrun's needs it).
//
// sqlrun's session registers none: there is no CREATE FUNCTION ... AS
// 'java.Class' (a Java class cannot run here; docs/differences.md). The
// Flink-suite harness (plan/flinksuite_test.go) implements it with the
// signatures of the Java test functions Flink's planner tests register,
// so that their plans can be compared; the runtime refuses to run a plan
// calling one ("sqlrun cannot run aggregate ... yet").
type FunctionCatalog interface {
	// LookupFunction finds a user-defined function by the name a query
	// wrote (case-insensitively, as Flink's identifiers of system
	// functions are matched).
	LookupFunction(name string) (*UserFunction, bool)
}

// UserFunctionKind says how a query calls a user-defined function.
type UserFunctionKind int

// The kinds of user-defined functions (Flink's FunctionKind).
const (
	// ScalarFunction: one value per row (Flink's ScalarFunction).
	ScalarFunction UserFunctionKind = iota
	// AggregateFunction: one value per group or window (Flink's
	// AggregateFunction).
	AggregateFunction
	// TableFunction: rows per row, read by LATERAL TABLE (Flink's
	// TableFunction).
	TableFunction
)

// UserFunction is what the planner knows of a user-defined function: what
// Flink's planner reads off its class (the eval / accumulate method
// signatures and the optional retract and merge methods of
// UserDefinedFunctionHelper / AggregateFunctionDefinition), never its code.
type UserFunction struct {
	// Name is the name it was registered under; plans print its calls
	// under this name (weightedAvg(b, e) AS wAvg), as Flink's
	// BridgingSqlAggFunction does.
	Name string
	Kind UserFunctionKind
	// Infer types a call from its argument types, Flink's type inference
	// from the class's method signatures: the parameter types of the
	// signature it calls (the binder casts each argument of another type
	// to its parameter's, as Flink's implicit casts do: weightedAvg(c, a)
	// of a BIGINT and an INT calls accumulate(acc, Long, Long) with
	// CAST(a AS BIGINT)) and the result type, or an error saying no
	// signature matches.
	Infer func(args []sql.DataType) (params []sql.DataType, result sql.DataType, err error)
	// Merge says an aggregate function has a merge method: Flink splits
	// its calls into a local and a global phase (two-phase aggregation,
	// sliced windows) only then.
	Merge bool
	// Retract says an aggregate function has a retract method: it may
	// read an updating input.
	Retract bool
	// OverWindowOnly is FunctionRequirement.OVER_WINDOW_ONLY: the
	// function may be called only with OVER.
	OverWindowOnly bool
	// NonDeterministic is FunctionDefinition.isDeterministic() false: the
	// planner neither folds nor duplicates its calls.
	NonDeterministic bool
}

// userFunction finds a user-defined function of the given kind through
// the Env's FunctionCatalog, if it has one.
func (b *binder) userFunction(name string, kind UserFunctionKind) (*UserFunction, bool) {
	fc, ok := b.env.(FunctionCatalog)
	if !ok {
		return nil, false
	}
	f, ok := fc.LookupFunction(name)
	if !ok || f.Kind != kind {
		return nil, false
	}
	return f, true
}
