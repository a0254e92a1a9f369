package expr

import "github.com/sqlrun/sqlrun/sql"

// collectFuncs is COLLECT(x), Calcite's SqlStdOperatorTable.COLLECT
// (Flink's CollectAggFunction): the multiset of the group's non-null x,
// MULTISET<x's type> (ReturnTypes.TO_MULTISET over the argument; Flink's
// plans print it nullable, UnnestTest's VARCHAR(2147483647) MULTISET). sqlrun plans it (EXPLAIN, the
// UNNEST of its result) and refuses to run it: it holds no MULTISET value.
func collectFuncs() []*Func {
	return []*Func{{Name: "COLLECT", Kind: Aggregate, Infer: inferCollect}}
}

func inferCollect(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.MultisetOf(args[0].Type()), nil
}
