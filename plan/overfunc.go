package plan

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The window functions of an OVER window besides the aggregates and
// ROW_NUMBER/RANK/DENSE_RANK, as Calcite 1.32 validates them and Flink 1.20
// runs them:
//
//   - LEAD/LAG(value [, offset [, default]]) (SqlLeadLagAggFunction): the
//     value offset rows after/before the current row in the partition's
//     order, default (NULL without one) past its ends; the type is value's,
//     NOT NULL only with a NOT NULL default, which Flink's
//     LeadLagAggFunction casts to it. They allow no frame: Calcite gives
//     them RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW and Flink's
//     batch OverAggregate runs them in an OffsetOverFrame, which ignores it.
//   - NTILE(n) (SqlNtileAggFunction, a positive integer literal; BIGINT
//     NOT NULL): a framed call. Flink's NTILEAggFunction numbers the rows
//     of the frame it accumulates, so its bucket is that of the frame's row
//     count in the partition's (SizeBasedWindowFunction's windowSize): under
//     the default RANGE frame a row's peers take the bucket of the last of
//     them.
//   - CUME_DIST() and PERCENT_RANK() (SqlRankFunction, ORDER BY required,
//     DOUBLE NOT NULL): the rows up to the current row's last peer, and the
//     rank less one, over the partition's row count (less one; 0 for a
//     partition of one row): CumeDistAggFunction and PercentRankAggFunction.
//
// Only Flink's batch planner runs them; its AggFunctionFactory refuses all
// in stream mode but LAG (LagAggFunction: the value offset rows before the
// last row accumulated, which under a RANGE frame on event time is the
// last of the current row's peers).

// isWindowFunc reports the window functions of this file.
func isWindowFunc(f string) bool {
	switch f {
	case "LEAD", "LAG", "NTILE", "CUME_DIST", "PERCENT_RANK":
		return true
	}
	return false
}

// isOffsetFunc reports LEAD and LAG.
func isOffsetFunc(f string) bool { return f == "LEAD" || f == "LAG" }

// allowsFraming is Calcite's SqlOperator.allowsFraming of a window call.
func allowsFraming(f string) bool {
	switch f {
	case "LEAD", "LAG", "CUME_DIST", "PERCENT_RANK", "ROW_NUMBER", "RANK", "DENSE_RANK":
		return false
	}
	return true
}

// nonFramingFrame is the frame SqlToRelConverter gives a call that allows
// none: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
func nonFramingFrame() OverFrame {
	return OverFrame{Lower: OverBound{Kind: "UNBOUNDED PRECEDING"}, Upper: OverBound{Kind: "CURRENT ROW"}}
}

// checkWindowFunc is what Calcite's SqlWindow.validate checks of a window
// function's window before its arguments are bound.
func checkWindowFunc(x *ast.FuncCall) error {
	if x.Over.Frame != nil && !allowsFraming(x.Name) {
		// Calcite 1.32's RESOURCE.rankWithFrame, for every call that
		// allows no frame.
		return validationErr(x.At, len(x.Name), "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
	}
	if (x.Name == "CUME_DIST" || x.Name == "PERCENT_RANK") && len(x.Over.OrderBy) == 0 {
		return validationErr(x.At, len(x.Name), "RANK or DENSE_RANK functions require ORDER BY clause in window specification")
	}
	if x.Distinct {
		return validationErr(x.At, len(x.Name), "DISTINCT/ALL not allowed with %s function", x.Name)
	}
	return nil
}

// bindWindowFunc binds a window function's call over the window base.
func bindWindowFunc(x *ast.FuncCall, base OverAgg, args []Expr, streaming bool) (Expr, error) {
	c := base
	c.Func = x.Name
	arity := func(n int) error {
		return validationErr(x.At, len(x.Name), "Invalid number of arguments to function '%s'. Was expecting %d arguments", x.Name, n)
	}
	switch x.Name {
	case "CUME_DIST", "PERCENT_RANK":
		if len(args) > 0 || x.Star {
			return nil, arity(0)
		}
		c.T = sql.Double().NotNull()
		c.Frame, c.NoFraming = nonFramingFrame(), true
		return &c, nil
	case "NTILE":
		if len(args) != 1 || x.Star {
			return nil, arity(1)
		}
		lit, ok := fold(args[0]).(*Literal)
		n, isInt := int64(0), false
		if ok && lit.T.IsIntegral() {
			n, isInt = toInt(lit.Value)
		}
		if !isInt || n <= 0 {
			return nil, validationErr(x.At, len(x.Name), "Argument to function 'NTILE' must be a positive integer literal")
		}
		c.Args = []Expr{lit}
		c.T = sql.BigInt().NotNull()
		return &c, nil
	}
	// LEAD, LAG.
	if len(args) == 0 || len(args) > 3 || x.Star {
		return nil, arity(1)
	}
	vt := args[0].Type()
	if len(args) >= 2 && !args[1].Type().IsNumeric() && args[1].Type().Root != sql.TypeNull ||
		len(args) == 3 && !sameTypeFamily(vt, args[2].Type()) {
		return nil, validationErr(x.At, len(x.Name), "Cannot apply '%s' to arguments of type '%s'. Supported form(s): '%s(<ANY>)'\n'%s(<ANY>, <NUMERIC>)'\n'%s(<ANY>, <NUMERIC>, <ANY>)'",
			x.Name, operandSignature(x.Name, args), x.Name, x.Name, x.Name)
	}
	c.T = vt.WithNullable(true)
	if len(args) == 3 && !args[2].Type().Nullable {
		c.T = vt.WithNullable(false)
	}
	c.Args = append([]Expr(nil), args...)
	if len(args) >= 2 {
		lit, ok := fold(args[1]).(*Literal)
		var isInt bool
		if ok && lit.T.IsIntegral() {
			_, isInt = toInt(lit.Value)
		}
		if !isInt {
			// Flink's OffsetOverFrame also reads an offset from an INT,
			// BIGINT or SMALLINT field of each row.
			return nil, sql.Errorf(sql.TableException, "sqlrun supports only an integer constant as the offset of %s yet", x.Name)
		}
		c.Args[1] = lit
	}
	if len(args) == 3 {
		if lit, ok := fold(args[2]).(*Literal); ok {
			c.Args[2] = lit
		} else if d := args[2].Type(); !streaming && (d.Root != vt.Root || d.Length != vt.Length || d.Precision != vt.Precision || d.Scale != vt.Scale) {
			// LeadLagAggFunction's retractExpressions cast the default
			// to the value's type (stream mode's LagAggFunction takes it
			// as it is, of the value's Java class).
			c.Args[2] = castExpr(args[2], vt.WithNullable(d.Nullable))
		}
	}
	c.Frame, c.NoFraming = nonFramingFrame(), true
	return &c, nil
}

// sameTypeFamily is Calcite's SqlTypeUtil.isComparable, which
// SqlLeadLagAggFunction's SameOperandTypeChecker asks of the value and the
// default: one type family (NULL goes with any).
func sameTypeFamily(a, b sql.DataType) bool {
	fam := func(t sql.DataType) int {
		switch {
		case t.Root == sql.TypeNull:
			return 0
		case t.IsNumeric():
			return 1
		case t.IsString():
			return 2
		case t.Root == sql.TypeBinary || t.Root == sql.TypeVarBinary:
			return 3
		case t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ:
			return 4
		}
		return 10 + int(t.Root)
	}
	fa, fb := fam(a), fam(b)
	return fa == 0 || fb == 0 || fa == fb
}

// operandSignature is Calcite's "LAG(<INTEGER>, <INTEGER>)".
func operandSignature(name string, args []Expr) string {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = "<" + strings.TrimSuffix(a.Type().String(), " NOT NULL") + ">"
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}

// constOverArg reports the arguments Flink's over aggregates keep as
// constants (FlinkLogicalOverAggregate's constants), printed by value:
// LEAD/LAG's offset and default, NTILE's bucket count.
func constOverArg(f string, i int) bool {
	return f == "NTILE" || isOffsetFunc(f) && i > 0
}

// overArgsText is a call's arguments as RelExplainUtil prints an over
// aggregate's: fields by name, constants by value, "*" without any.
func overArgsText(a AggCall, in []string) string {
	if len(a.ArgLits) == 0 {
		if len(a.Args) == 0 {
			return "*"
		}
		return names(in, a.Args)
	}
	out := make([]string, len(a.ArgLits))
	next := 0
	for i, l := range a.ArgLits {
		if l != nil {
			out[i] = FormatExpr(l, nil, FormatAST)
			continue
		}
		out[i] = names(in, a.Args[next:next+1])
		next++
	}
	return strings.Join(out, ", ")
}

// leadLagTypeOK reports a value type Flink's batch LeadLagAggFunction has
// an implementation for (AggFunctionFactory.createBatchLeadLagAggFunction).
func leadLagTypeOK(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble,
		sql.TypeBoolean, sql.TypeVarChar, sql.TypeChar, sql.TypeDate, sql.TypeTime, sql.TypeTimestamp, sql.TypeDecimal:
		return true
	}
	return false
}

// logicalTypeRoot is the name of Flink's LogicalTypeRoot of t.
func logicalTypeRoot(t sql.DataType) string {
	switch t.Root {
	case sql.TypeBinary:
		return "BINARY"
	case sql.TypeVarBinary:
		return "VARBINARY"
	case sql.TypeTimestampLTZ:
		return "TIMESTAMP_WITH_LOCAL_TIME_ZONE"
	case sql.TypeArray:
		return "ARRAY"
	case sql.TypeMap:
		return "MAP"
	case sql.TypeRow:
		return "ROW"
	case sql.TypeIntervalDayTime:
		return "INTERVAL_DAY_TIME"
	case sql.TypeIntervalYearMonth:
		return "INTERVAL_YEAR_MONTH"
	case sql.TypeNull:
		return "NULL"
	}
	return strings.ToUpper(t.String())
}

// checkStreamWindowFuncs is AggFunctionFactory's refusal of the window
// functions in stream mode (createStreamLeadLagAggFunction for LEAD), and
// LagAggFunction's of a default whose Java class is not the value's.
func checkStreamWindowFuncs(aggs []AggCall, in []sql.DataType) error {
	for _, a := range aggs {
		switch a.Func {
		case "LEAD", "NTILE", "CUME_DIST", "PERCENT_RANK":
			return sql.Errorf(sql.TableException, "%s Function is not supported in stream mode.", a.Func)
		case "LAG":
			types := make([]sql.DataType, 0, 3)
			next := 0
			for i := 0; i < max(len(a.ArgLits), len(a.Args)); i++ {
				if i < len(a.ArgLits) && a.ArgLits[i] != nil {
					types = append(types, a.ArgLits[i].T)
					continue
				}
				types = append(types, in[a.Args[next]])
				next++
			}
			if len(types) == 3 && types[2].Root != sql.TypeNull && conversionClass(types[0]) != conversionClass(types[2]) {
				// The message names the offset's type where it means the
				// value's (LagAggFunction's constructor).
				return sql.Errorf(sql.TableException, "Please explicitly cast default value %s to %s.", types[2], types[1])
			}
		}
	}
	return nil
}

// conversionClass is the Java class of Flink's internal data structure for
// t (DataTypeUtils.toInternalDataType's conversion class).
func conversionClass(t sql.DataType) string {
	switch t.Root {
	case sql.TypeInt, sql.TypeDate, sql.TypeTime, sql.TypeIntervalYearMonth:
		return "Integer"
	case sql.TypeBigInt, sql.TypeIntervalDayTime:
		return "Long"
	case sql.TypeChar, sql.TypeVarChar:
		return "StringData"
	case sql.TypeBinary, sql.TypeVarBinary:
		return "byte[]"
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return "TimestampData"
	case sql.TypeDecimal:
		return "DecimalData"
	case sql.TypeArray:
		return "ArrayData"
	case sql.TypeMap:
		return "MapData"
	case sql.TypeRow:
		return "RowData"
	}
	// BOOLEAN, TINYINT, SMALLINT, FLOAT, DOUBLE: one class each.
	return strconv.Itoa(int(t.Root))
}

// checkBatchWindowFuncs is what AggFunctionFactory refuses of them in
// batch mode: LEAD/LAG of a type without an implementation.
func checkBatchWindowFuncs(aggs []AggCall) error {
	for _, a := range aggs {
		if isOffsetFunc(a.Func) && !leadLagTypeOK(a.T) {
			return sql.Errorf(sql.TableException, "LeadLag aggregate function does not support type: ''%s''.\nPlease re-check the data type.", logicalTypeRoot(a.T))
		}
	}
	return nil
}

// OverCallArgs are a window call's arguments, one entry each: fields[i]
// is argument i's field, or -1 for a constant whose value is consts[i]
// (LEAD/LAG's default cast to the call's type, as LeadLagAggFunction
// casts it).
func OverCallArgs(a AggCall) (consts []any, fields []int) {
	if a.ArgLits == nil {
		fields = append(fields, a.Args...)
		return make([]any, len(fields)), fields
	}
	next := 0
	for i, l := range a.ArgLits {
		if l == nil {
			fields = append(fields, a.Args[next])
			consts = append(consts, nil)
			next++
			continue
		}
		v := l.Value
		if isOffsetFunc(a.Func) && i == 2 {
			if c, ok := fold(castExpr(l, a.T.WithNullable(true))).(*Literal); ok {
				v = c.Value
			}
		}
		fields = append(fields, -1)
		consts = append(consts, v)
	}
	return consts, fields
}
