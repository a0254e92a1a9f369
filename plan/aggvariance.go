package plan

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The variance family: STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP and
// Calcite's STDDEV and VARIANCE (SqlStdOperatorTable: SqlAvgAggFunctions
// of kind STDDEV_SAMP and VAR_SAMP). Flink 1.20 has no runtime function
// for them (AggFunctionFactory; FlinkLogicalAggregate's converter refuses
// an aggregate calling one): Calcite's AggregateReduceFunctionsRule
// (CoreRules.AGGREGATE_REDUCE_FUNCTIONS in LOGICAL_OPT_RULES, and
// WindowAggregateReduceFunctionsRule for group windows) rewrites every
// call into SUM(x * x), SUM(x) and COUNT(x) under a Calc, so they run as
// those do: with retraction, mini-batch, local/global and split.

// varianceKind maps a variance function to its SqlKind and how
// AggregateReduceFunctionsRule.reduceStddev reduces it: biased (divided
// by COUNT rather than COUNT - 1) and sqrt (a standard deviation).
var varianceKind = map[string]struct{ biased, sqrt bool }{
	"VAR_POP":     {true, false},
	"VAR_SAMP":    {false, false},
	"VARIANCE":    {false, false},
	"STDDEV_POP":  {true, true},
	"STDDEV_SAMP": {false, true},
	"STDDEV":      {false, true},
}

// isVariance reports a call of the variance family.
func isVariance(a AggCall) bool {
	_, ok := varianceKind[a.Func]
	return ok && a.UDF == nil
}

// varianceInput is the input of the aggregate a reduction builds: the old
// input's fields, then the expressions the reduction adds (x * x), shared
// when equal (AggregateReduceFunctionsRule.lookupOrAdd).
type varianceInput struct {
	in    Node
	exprs []Expr
	keys  []string
}

func newVarianceInput(in Node) *varianceInput {
	v := &varianceInput{in: in, exprs: identity(in.Types())}
	for _, e := range v.exprs {
		v.keys = append(v.keys, exprKey(e))
	}
	return v
}

func (v *varianceInput) lookupOrAdd(e Expr) int {
	k := exprKey(e)
	for i, o := range v.keys {
		if o == k {
			return i
		}
	}
	v.exprs = append(v.exprs, e)
	v.keys = append(v.keys, k)
	return len(v.exprs) - 1
}

// node is the input the new aggregate reads: the old one, or a Calc
// adding the expressions, named $f<position> as RelBuilder.project names
// a field without a name.
func (v *varianceInput) node() Node {
	n := len(v.in.Types())
	if len(v.exprs) == n {
		return v.in
	}
	names := append([]string(nil), v.in.Names()...)
	for i := n; i < len(v.exprs); i++ {
		names = append(names, "$f"+strconv.Itoa(i))
	}
	return mergeCalc(&LogicalCalc{base: row(names, exprTypes(v.exprs), v.in), Exprs: v.exprs})
}

// reduceVariance is AggregateReduceFunctionsRule.reduceStddev (Calcite
// 1.32, which Flink 1.20 uses):
//
//	VAR_POP(x)     (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x)
//	VAR_SAMP(x)    (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / CASE(COUNT(x) = 1, NULL, COUNT(x) - 1)
//	STDDEV_POP(x)  POWER(VAR_POP(x), 0.5)
//	STDDEV_SAMP(x) POWER(VAR_SAMP(x), 0.5)
//
// each cast to the call's type (the argument's, as AVG: an INTEGER
// argument gives an INTEGER variance, computed in integer arithmetic).
// x is first cast to that type (a DECIMAL(p, s) to DECIMAL(38, max(s,
// 6))), and so is SUM(x). Calcite 1.32 gives SUM(x * x) no FILTER
// (CALCITE-7192, fixed in Flink by FLINK-38400 after 1.20): sqlrun applies
// the call's FILTER to all three calls, as the fix does.
func reduceVariance(a AggCall, ng int, in Node, vin *varianceInput, add func(AggCall) *InputRef, derived func(AggCall, string, sql.DataType) AggCall) Expr {
	kind := varianceKind[a.Func]
	x := a.Args[0]
	xt := in.Types()[x]
	callT := a.T.WithNullable(xt.Nullable)
	arg := castExpr(&InputRef{Index: x, T: xt}, callT)
	sq := &Call{Op: "*", Args: []Expr{arg, arg}, T: arithmeticType("*", arg.Type(), arg.Type())}
	sqIdx := vin.lookupOrAdd(sq)
	sumT := func(t sql.DataType) sql.DataType {
		// AggregateCall.create's AGG_SUM: nullable without GROUP BY, with
		// a FILTER, or over a nullable argument.
		return aggResultType("SUM", t).WithNullable(ng == 0 || a.Filtered || t.Nullable)
	}
	sumSq := derived(a, "SUM", sumT(sq.Type()))
	sumSq.Args = []int{sqIdx}
	sumSqRef := add(sumSq)
	sumRef := add(derived(a, "SUM", sumT(xt)))
	sumCast := castExpr(sumRef, callT.WithNullable(sumRef.Type().Nullable))
	countT := sql.BigInt().NotNull()
	count := add(derived(a, "COUNT", countT))
	sumSquared := &Call{Op: "*", Args: []Expr{sumCast, sumCast}, T: arithmeticType("*", sumCast.Type(), sumCast.Type())}
	avgSumSquared := &Call{Op: "/", Args: []Expr{sumSquared, count}, T: arithmeticType("/", sumSquared.Type(), countT)}
	diff := &Call{Op: "-", Args: []Expr{sumSqRef, avgSumSquared}, T: arithmeticType("-", sumSqRef.Type(), avgSumSquared.Type())}
	var denom Expr = count
	if !kind.biased {
		one := &Literal{Value: int32(1), T: sql.Int().NotNull()}
		minus := &Call{Op: "-", Args: []Expr{count, one}, T: arithmeticType("-", countT, one.T)}
		denom = &Call{Op: "CASE", T: countT.WithNullable(true), Args: []Expr{
			&Call{Op: "=", Args: []Expr{count, one}, T: sql.Boolean().NotNull()},
			&Literal{Value: nil, T: countT.WithNullable(true)},
			minus,
		}}
	}
	var res Expr = &Call{Op: "/", Args: []Expr{diff, denom}, T: arithmeticType("/", diff.Type(), denom.Type())}
	if kind.sqrt {
		half := &Literal{Value: decimal.New(5, -1), T: sql.Decimal(2, 1).NotNull()}
		res = &Call{Op: "POWER", Args: []Expr{res, half}, T: sql.Double().WithNullable(res.Type().Nullable)}
	}
	return castExpr(res, a.T)
}

// refuseDistinctVariance refuses VAR_POP(DISTINCT x) and the like: Flink
// 1.20 reduces it to SUM(DISTINCT x * x), SUM(DISTINCT x) and
// COUNT(DISTINCT x), and the first adds the square of x and of -x once,
// a wrong variance that sqlrun does not reproduce.
func refuseDistinctVariance(f *ast.FuncCall) error {
	name := strings.ToUpper(f.Name)
	if _, ok := varianceKind[name]; !ok || !f.Distinct {
		return nil
	}
	return sql.Errorf(sql.TableException, "sqlrun does not support %s(DISTINCT ...): Flink 1.20 computes it as SUM(DISTINCT x * x), SUM(DISTINCT x) and COUNT(DISTINCT x), whose sum of squares adds x and -x once", name)
}
