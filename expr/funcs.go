package expr

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/sqlrun/sqlrun/sql"
)

// Func is everything sqlrun knows of one built-in function or operator, in
// one place: the name EXPLAIN prints, how a call is checked and typed
// (Flink's operand checks and return-type inference), how it is evaluated,
// how EXPLAIN prints it, and whether it is deterministic. The binder types
// calls with Infer, Compile evaluates them with Eval, String prints them by
// Form, and SHOW FUNCTIONS lists the names of Kind Function and Aggregate.
type Func struct {
	// Name is Calcite's operator name, as EXPLAIN prints it.
	Name string
	// Aliases are other names a query may call it by (SUBSTR for
	// SUBSTRING); a call through an alias prints under Name.
	Aliases []string
	Kind    FuncKind
	Form    Form
	// Infer checks a call by name (name is what the query wrote) and
	// returns its arguments (with defaults filled in) and result type. Nil
	// for operators and CAST, which the binder types from their syntax.
	Infer func(name string, args []Expr) ([]Expr, sql.DataType, error)
	// Eval builds the closure of a call whose arguments compile to args.
	// Nil for aggregates, which the runtime's operators compute.
	Eval func(c *Call, args []Eval) (Eval, error)
	// Dynamic marks a function whose value is not fixed by its arguments
	// (the clock), which is never folded into a constant.
	Dynamic bool
	// Internal functions are not listed by SHOW FUNCTIONS.
	Internal bool
	// AsWritten marks a function of Flink's new type inference stack (a
	// BuiltInFunctionDefinition with a runtime class or a deferred
	// runtime, "New stack built-in functions" in
	// BuiltInFunctionDefinitions): Flink's FunctionCatalogOperatorTable
	// resolves it as a BridgingSqlFunction named by the identifier the
	// query wrote, so plans print the call as spelled: coalesce(c, 'empty')
	// (GroupingSetsTest.testGroupingSetsOutputsNullability), COALESCE(...)
	// where the query wrote COALESCE. The other functions are Calcite's
	// operators (FlinkSqlOperatorTable) and print under Name.
	AsWritten bool
}

// FuncKind says how a query reaches a function.
type FuncKind int

// The kinds of functions.
const (
	// Function is called by name: UPPER(s).
	Function FuncKind = iota
	// Aggregate is an aggregate function called by name: SUM(x).
	Aggregate
	// Operator is written as syntax: a + b, a IS NULL, CASE ... END.
	Operator
)

// Form is how EXPLAIN prints a call.
type Form int

// The forms of a call in EXPLAIN: every call prints as NAME(args) in the
// Abstract Syntax Tree and the physical plan; the execution plan prints
// Infix operators between their operands ((a + 1)) and Postfix ones after
// (a IS NULL). Cast prints CAST(a AS type).
const (
	Prefix Form = iota
	Infix
	Postfix
	Cast
	// Field is a ROW field access (Calcite's RexFieldAccess), printed
	// as its operand, a dot and the field's name in every form: $1.id in
	// the Abstract Syntax Tree, after.id in the plans.
	Field
	// FunctionID is a function of Calcite's SqlSyntax.FUNCTION_ID (the
	// SqlAbstractTimeFunction family: CURRENT_TIMESTAMP, LOCALTIME, ...):
	// RexCall.computeDigest prints a call without arguments by its name
	// alone in the Abstract Syntax Tree (CURRENT_TIMESTAMP), while Flink's
	// FlinkRexUtil.getExpressionString prints NAME() in the plans.
	FunctionID
)

// OperandError is a call Infer refuses: wrong number or types of
// arguments. The binder adds the position; WholeCall marks an error that
// Calcite reports over the whole call rather than the function's name.
type OperandError struct {
	Msg       string
	WholeCall bool
}

func (e *OperandError) Error() string { return e.Msg }

var (
	funcs  []*Func
	byName = map[string]*Func{}
	byOp   = map[string]*Func{}
)

func init() {
	funcs = builtins()
	for _, f := range funcs {
		if byOp[f.Name] != nil {
			panic("expr: function " + f.Name + " listed twice")
		}
		byOp[f.Name] = f
		if f.Kind != Operator {
			byName[f.Name] = f
			for _, a := range f.Aliases {
				byName[a] = f
			}
		}
	}
}

// Lookup finds the function or aggregate a query calls by name.
func Lookup(name string) (*Func, bool) {
	f, ok := byName[strings.ToUpper(name)]
	return f, ok
}

// Op finds the function or operator a Call's Op names.
func Op(op string) (*Func, bool) {
	f, ok := byOp[op]
	return f, ok
}

// Funcs lists every built-in function and operator, in the table's order.
func Funcs() []*Func { return funcs }

// FunctionNames lists what SHOW FUNCTIONS prints: the functions and
// aggregates a query may call by name, sorted.
func FunctionNames() []string {
	var out []string
	for _, f := range funcs {
		if f.Kind != Operator && !f.Internal {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Deterministic reports whether e's value depends only on its inputs: no
// call of a Dynamic function (CURRENT_TIMESTAMP) inside.
func Deterministic(e Expr) bool {
	c, ok := e.(*Call)
	if !ok {
		return true
	}
	if f, ok := byOp[c.Op]; ok && f.Dynamic {
		return false
	}
	for _, a := range c.Args {
		if !Deterministic(a) {
			return false
		}
	}
	return true
}

func builtins() []*Func {
	fs := []*Func{
		// Arithmetic (typed by the binder: ArithmeticType).
		{Name: "+", Kind: Operator, Form: Infix, Eval: evalArith},
		{Name: "-", Kind: Operator, Form: Infix, Eval: evalArith},
		{Name: "*", Kind: Operator, Form: Infix, Eval: evalArith},
		{Name: "/", Kind: Operator, Form: Infix, Eval: evalArith},
		// Calcite's DIVIDE_INTEGER, which RexBuilder.multiplyDivide makes
		// of the TIMESTAMPDIFF convertlet's scaling: Java's integer
		// division of the operands' type.
		{Name: "/INT", Kind: Operator, Form: Infix, Eval: evalDivideInteger},
		{Name: "MOD", Infer: inferMod, Eval: evalArith},
		// HASH_CODE is the bucket function of a split distinct aggregation
		// (SplitAggregateRule's MOD(HASH_CODE(x), buckets)): only the planner
		// calls it.
		{Name: "HASH_CODE", Infer: inferHashCode, Eval: evalHashCode, Internal: true},
		// Comparison and logic.
		{Name: "=", Kind: Operator, Form: Infix, Eval: evalCompare},
		{Name: "<>", Kind: Operator, Form: Infix, Eval: evalCompare},
		{Name: "<", Kind: Operator, Form: Infix, Eval: evalCompare},
		{Name: "<=", Kind: Operator, Form: Infix, Eval: evalCompare},
		{Name: ">", Kind: Operator, Form: Infix, Eval: evalCompare},
		{Name: ">=", Kind: Operator, Form: Infix, Eval: evalCompare},
		// IS [NOT] DISTINCT FROM print as calls in a plan too: Flink's
		// FlinkRexUtil.getExpressionString writes only + - * /, the six
		// comparisons, AND and OR infix (SetOperatorsTest.testIntersect:
		// where=[IS NOT DISTINCT FROM(c, f)]).
		{Name: "IS DISTINCT FROM", Kind: Operator, Eval: evalIsDistinctFrom},
		{Name: "IS NOT DISTINCT FROM", Kind: Operator, Eval: evalIsDistinctFrom},
		{Name: "AND", Kind: Operator, Form: Infix, Eval: evalAndOr},
		{Name: "OR", Kind: Operator, Form: Infix, Eval: evalAndOr},
		{Name: "NOT", Kind: Operator, Eval: evalNot},
		{Name: "IS NULL", Kind: Operator, Form: Postfix, Eval: evalIsNull},
		{Name: "IS NOT NULL", Kind: Operator, Form: Postfix, Eval: evalIsNull},
		{Name: "IS TRUE", Kind: Operator, Form: Postfix, Eval: evalIsBool},
		{Name: "IS NOT TRUE", Kind: Operator, Form: Postfix, Eval: evalIsBool},
		{Name: "IS FALSE", Kind: Operator, Form: Postfix, Eval: evalIsBool},
		{Name: "IS NOT FALSE", Kind: Operator, Form: Postfix, Eval: evalIsBool},
		// SEARCH(x, Sarg[...]) is what SimplifyFilter makes of comparisons
		// (IN lists bind as ORs of =, as Calcite's SqlToRelConverter does).
		{Name: "SEARCH", Kind: Operator, Eval: evalSearch},
		// Calcite's SqlLikeOperator is no SqlBinaryOperator: Flink's plans print
		// it as a call, LIKE(name, 'Jack%') (LookupJoinTest, IntervalJoinTest).
		{Name: "LIKE", Kind: Operator, Eval: evalLike},
		{Name: "ILIKE", Kind: Operator, Eval: evalLike},
		{Name: "SIMILAR TO", Kind: Operator, Eval: evalSimilar},
		{Name: "CASE", Kind: Operator, Eval: evalCase},
		{Name: "||", Kind: Operator, Form: Infix, Eval: evalConcat},
		// DOT(row, i) is the field at index i of a ROW value (built by
		// FieldAccess; Calcite's RexFieldAccess, not a call there).
		{Name: "DOT", Kind: Operator, Form: Field, Eval: evalDot},
		// Casts (typed by the binder from the syntax's target type).
		{Name: "CAST", Form: Cast, Eval: evalCast},
		{Name: "TRY_CAST", Form: Cast, Eval: evalCast},
		// Conditional functions.
		{Name: "COALESCE", Infer: inferCoalesce, Eval: evalCoalesce, AsWritten: true},
		// IFNULL(input, null_replacement) evaluates as a two-argument
		// COALESCE; only its type differs (inferIfNull).
		{Name: "IFNULL", Infer: inferIfNull, Eval: evalCoalesce, AsWritten: true},
		// BuiltInFunctionDefinitions.TYPE_OF, TypeOfFunction.
		{Name: "TYPEOF", Infer: inferTypeOf, Eval: evalTypeOf, AsWritten: true},
		{Name: "IF", Infer: inferIf, Eval: evalIf},
		// String functions.
		{Name: "CONCAT", Infer: inferConcat, Eval: evalConcat},
		{Name: "UPPER", Infer: inferSameString, Eval: evalUpper},
		{Name: "LOWER", Infer: inferSameString, Eval: evalLower},
		// LTRIM(s [, chars]) and RTRIM: ARG0, TO_NULLABLE, TO_VARYING.
		{Name: "LTRIM", Infer: inferLRTrim, Eval: evalTrim},
		{Name: "RTRIM", Infer: inferLRTrim, Eval: evalTrim},
		{Name: "TRIM", Infer: inferTrim, Eval: evalTrim},
		{Name: "CHAR_LENGTH", Infer: inferCharLength, Eval: evalCharLength},
		{Name: "CHARACTER_LENGTH", Infer: inferCharLength, Eval: evalCharLength},
		{Name: "SUBSTRING", Aliases: []string{"SUBSTR"}, Infer: inferSubstring, Eval: evalSubstring},
		// Numeric functions.
		{Name: "ABS", Infer: inferAbsFloorCeil, Eval: evalAbs},
		{Name: "FLOOR", Infer: inferFloorCeil, Eval: evalFloorCeil},
		{Name: "CEIL", Aliases: []string{"CEILING"}, Infer: inferFloorCeil, Eval: evalFloorCeil},
		{Name: "ROUND", Infer: inferRound, Eval: evalRound},
		// Calcite's SqlStdOperatorTable.POWER: NUMERIC_NUMERIC operands, a
		// DOUBLE result (Flink evaluates Math.pow on the values as doubles).
		{Name: "POWER", Infer: inferPower, Eval: evalPower},
		// Time functions.
		// The time functions of FlinkSqlOperatorTable.dynamicFunctions
		// (FLIP-162): the current instant (TIMESTAMP_LTZ(3)), and the wall
		// clock of 'table.local-time-zone'
		// as LOCALTIMESTAMP (TIMESTAMP(3)), LOCALTIME and CURRENT_TIME
		// (SqlAbstractTimeFunction's TIME(0), which keeps the clock's
		// milliseconds: CodeGeneratorContext's timestampMillisToTime) and
		// CURRENT_DATE. A Calc reads the clock once per record for all its
		// calls, and a batch job once at the query's start (WithClock,
		// AtQueryStart; CurrentTimePointCallGen). CURRENT_ROW_TIMESTAMP()
		// reads it per call in both modes.
		{Name: "CURRENT_TIMESTAMP", Form: FunctionID, Infer: inferTimeFunc(sql.TimestampLTZ(3).NotNull(), true), Eval: evalCurrentTimestamp, Dynamic: true},
		{Name: "NOW", Infer: inferTimeFunc(sql.TimestampLTZ(3).NotNull(), true), Eval: evalCurrentTimestamp, Dynamic: true},
		{Name: "CURRENT_ROW_TIMESTAMP", Form: FunctionID, Infer: inferTimeFunc(sql.TimestampLTZ(3).NotNull(), true), Eval: evalCurrentTimestamp, Dynamic: true},
		// PROCTIME() is a processing-time attribute: as a computed column
		// (pt AS PROCTIME()) its value is the time a row is read;
		// PROCTIME_MATERIALIZE is what Flink's planner wraps around it
		// where the attribute becomes a plain value.
		{Name: "PROCTIME", Infer: inferNiladic(sql.TimestampLTZ(3).NotNull(), true), Eval: evalCurrentTimestamp, Dynamic: true, Internal: true},
		{Name: "PROCTIME_MATERIALIZE", Infer: inferMaterialize, Eval: evalMaterialize, Internal: true},
		// Reinterpret is the cast PushWatermarkIntoTableSourceScanAcrossCalcRule
		// makes of a rowtime computed column once the watermark is pushed
		// into the source (RexBuilder.makeReinterpretCast to the rowtime
		// indicator type): the value is unchanged.
		{Name: "Reinterpret", Infer: inferMaterialize, Eval: evalReinterpret, Internal: true},
		{Name: "LOCALTIMESTAMP", Form: FunctionID, Infer: inferTimeFunc(sql.Timestamp(3).NotNull(), true), Eval: evalClockFunc, Dynamic: true},
		{Name: "LOCALTIME", Form: FunctionID, Infer: inferTimeFunc(sql.Time(0).NotNull(), true), Eval: evalClockFunc, Dynamic: true},
		{Name: "CURRENT_TIME", Form: FunctionID, Infer: inferTimeFunc(sql.Time(0).NotNull(), true), Eval: evalClockFunc, Dynamic: true},
		{Name: "CURRENT_DATE", Form: FunctionID, Infer: inferTimeFunc(sql.Date().NotNull(), false), Eval: evalClockFunc, Dynamic: true},
		{Name: "DATE_FORMAT", Infer: inferDateFormat, Eval: evalDateFormat},
		{Name: "TO_TIMESTAMP", Infer: inferToTimestamp, Eval: evalToTimestamp},
		{Name: "TO_DATE", Infer: inferToDate, Eval: evalToDate},
		// EXTRACT(unit FROM x); YEAR(x) ... SECOND(x) are EXTRACT calls.
		{Name: "EXTRACT", Aliases: []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND"},
			Infer: inferExtract, Eval: evalExtract},
		// EXPLAIN prints them as calls, where Flink prints the arithmetic
		// Calcite's convertlets make of them (docs/differences.md).
		{Name: "TIMESTAMPADD", Infer: inferTimestampAdd, Eval: evalTimestampAdd},
		{Name: "TIMESTAMPDIFF", Infer: inferTimestampDiff, Eval: evalTimestampDiff},
		{Name: "TO_TIMESTAMP_LTZ", Infer: inferToTimestampLtz, Eval: evalToTimestampLtz},
		{Name: "FROM_UNIXTIME", Infer: inferFromUnixtime, Eval: evalFromUnixtime},
		// Flink's UNIX_TIMESTAMP is not deterministic in any form
		// (BuiltInSqlFunction.notDeterministic): never folded.
		{Name: "UNIX_TIMESTAMP", Infer: inferUnixTimestamp, Eval: evalUnixTimestamp, Dynamic: true},
		// Value constructors (Calcite's SqlArrayValueConstructor,
		// SqlRowOperator and SqlMapValueConstructor).
		{Name: "ARRAY", Infer: inferArray, Eval: evalArray, Internal: true},
		{Name: "ROW", Infer: inferRow, Eval: evalRow, Internal: true},
		{Name: "MAP", Infer: inferMap, Eval: evalMap, Internal: true},
		// Aggregates (evaluated by the runtime's aggregate operators).
		{Name: "COUNT", Kind: Aggregate, Infer: inferCount},
		{Name: "SUM", Kind: Aggregate, Infer: inferNumericAgg},
		{Name: "SUM0", Kind: Aggregate, Infer: inferNumericAgg, Internal: true},
		{Name: "AVG", Kind: Aggregate, Infer: inferNumericAgg},
		{Name: "MIN", Kind: Aggregate, Infer: inferMinMax},
		{Name: "MAX", Kind: Aggregate, Infer: inferMinMax},
		{Name: "FIRST_VALUE", Kind: Aggregate, Infer: inferMinMax},
		{Name: "LAST_VALUE", Kind: Aggregate, Infer: inferMinMax},
		{Name: "LISTAGG", Kind: Aggregate, Infer: inferListAgg},
	}
	fs = append(fs, varianceFuncs()...)
	fs = append(fs, collectFuncs()...)
	fs = append(fs, mathFuncs()...)
	fs = append(fs, stringFuncs()...)
	fs = append(fs, stringFuncs2()...)
	fs = append(fs, collectionFuncs()...)
	fs = append(fs, arrayFuncs()...)
	fs = append(fs, mapFuncs()...)
	fs = append(fs, miscFuncs()...)
	fs = append(fs, jsonFuncs()...)
	return fs
}

// Operand checks, with Calcite's messages.

func arity(name string, args []Expr, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting %d arguments", name, lo)}
	}
	return nil
}

func wantFamily(name string, args []Expr, i int, ok func(sql.DataType) bool, family string) error {
	t := args[i].Type()
	if !ok(t) && t.Root != sql.TypeNull {
		return &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<%s>)'",
			name, name, CalciteTypeName(t), name, family)}
	}
	return nil
}

func wantString(name string, args []Expr, i int) error {
	return wantFamily(name, args, i, sql.DataType.IsString, "CHARACTER")
}

func wantNumeric(name string, args []Expr, i int) error {
	return wantFamily(name, args, i, sql.DataType.IsNumeric, "NUMERIC")
}

// CalciteTypeName is a type's name without precision, as Calcite's
// operand type errors print it (VARCHAR, DECIMAL, INTEGER).
func CalciteTypeName(t sql.DataType) string {
	s := CalciteType(t.WithNullable(true))
	if i := strings.Index(s, "("); i > 0 {
		s = s[:i]
	}
	return s
}

func anyNullable(args []Expr) bool {
	for _, a := range args {
		if a.Type().Nullable {
			return true
		}
	}
	return false
}

// inferSameString: UPPER, LOWER, LTRIM, RTRIM return their argument's
// type (STRING for a NULL literal).
func inferSameString(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	if t.Root == sql.TypeNull {
		t = sql.String()
	}
	return args, t, nil
}

// inferLRTrim: LTRIM(s [, chars]) and RTRIM are VARCHAR of s's length
// (STRING for a NULL literal), nullable when an operand is.
func inferLRTrim(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	for i := range args {
		if err := wantString(name, args, i); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	t := args[0].Type()
	if t.Root == sql.TypeNull {
		return args, sql.String().WithNullable(true), nil
	}
	return args, sql.VarChar(max(t.Length, 1)).WithNullable(anyNullable(args)), nil
}

// inferTrim: TRIM(s) is TRIM(BOTH ' ' FROM s); the parser gives the
// three-argument form for the others.
func inferTrim(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 3); err != nil {
		return nil, sql.DataType{}, err
	}
	if len(args) == 1 {
		args = []Expr{&Literal{Value: "BOTH", T: sql.Char(4).NotNull()}, &Literal{Value: " ", T: sql.Char(1).NotNull()}, args[0]}
	}
	return args, sql.String().WithNullable(anyNullable(args)), nil
}

func inferCharLength(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.Int().WithNullable(anyNullable(args)), nil
}

// inferSubstring: SUBSTRING(s, from [, len]) is VARCHAR of s's length.
func inferSubstring(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 3); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.VarChar(max(args[0].Type().Length, 1)).WithNullable(anyNullable(args)), nil
}

func inferConcat(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, arity(name, args, 1, 1<<30)
	}
	return args, sql.String().WithNullable(anyNullable(args)), nil
}

// inferCoalesce: the arguments' common type, NOT NULL if any argument is.
func inferCoalesce(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, arity(name, args, 1, 1<<30)
	}
	t := args[0].Type()
	for _, a := range args[1:] {
		ct, ok := CommonType(t, a.Type())
		if !ok {
			return nil, sql.DataType{}, &OperandError{Msg: "Illegal mixing of types in CASE or COALESCE statement"}
		}
		t = ct
	}
	notNull := false
	for _, a := range args {
		if !a.Type().Nullable {
			notNull = true
		}
	}
	return args, t.WithNullable(!notNull), nil
}

// inferIfNull types IFNULL as Flink's IfNullTypeStrategy does: a NOT NULL
// input keeps its own type; otherwise the common type of both arguments,
// NOT NULL when the replacement is (BuiltInFunctionDefinitions.IF_NULL
// takes both arguments as COMMON_ARG_NULLABLE).
func inferIfNull(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	in, repl := args[0].Type(), args[1].Type()
	t, ok := CommonType(in, repl)
	if !ok {
		return nil, sql.DataType{}, &OperandError{Msg: "Illegal mixing of types in IFNULL"}
	}
	if !in.Nullable {
		return args, in, nil
	}
	return args, t.WithNullable(repl.Nullable), nil
}

func inferIf(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, sql.DataType{}, err
	}
	t, ok := CommonType(args[1].Type(), args[2].Type())
	if !ok {
		return nil, sql.DataType{}, &OperandError{Msg: "Illegal mixing of types in IF"}
	}
	return args, t.WithNullable(args[1].Type().Nullable || args[2].Type().Nullable), nil
}

// inferAbsFloorCeil: ABS keeps its argument's type; FLOOR and CEIL of
// DECIMAL(p, s) are DECIMAL(p-s+1, 0).
func inferAbsFloorCeil(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantNumeric(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	if t.Root == sql.TypeDecimal && name != "ABS" {
		t = sql.Decimal(max(t.Precision-t.Scale+1, 1), 0).WithNullable(t.Nullable)
	}
	return args, t, nil
}

// inferPower: POWER(x, y) takes two numerics and returns DOUBLE
// (ReturnTypes.DOUBLE_NULLABLE).
func inferPower(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 2 {
		return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting 2 arguments", name)}
	}
	for _, a := range args {
		if t := a.Type(); !t.IsNumeric() && t.Root != sql.TypeNull {
			return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
				"Cannot apply '%s' to arguments of type '%s(<%s>, <%s>)'. Supported form(s): '%s(<NUMERIC>, <NUMERIC>)'",
				name, name, CalciteTypeName(args[0].Type()), CalciteTypeName(args[1].Type()), name)}
		}
	}
	return args, sql.Double().WithNullable(anyNullable(args)), nil
}

// inferRound: ROUND(DECIMAL, r) follows roundDecimalType; other numeric
// types keep their type.
func inferRound(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantNumeric(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	if t.Root == sql.TypeDecimal {
		s := 0
		if len(args) > 1 {
			if l, ok := args[1].(*Literal); ok {
				n, _ := ToInt(l.Value)
				s = int(n)
			}
		}
		t = roundDecimalType(t, s)
	}
	return args, t, nil
}

// roundDecimalType is ROUND(DECIMAL(p, s), r)'s type, Flink's
// LogicalTypeMerging.findRoundDecimalType: r ≥ s keeps DECIMAL(p, s) (a
// huge r such as 2147483647 rounds nothing), r < 0 gives
// DECIMAL(min(38, 1+p-s), 0), else DECIMAL(1+p-s+r, r) (rounding may add
// a digit).
func roundDecimalType(t sql.DataType, r int) sql.DataType {
	p, s := t.Precision, t.Scale
	switch {
	case r >= s:
		return sql.Decimal(p, s).WithNullable(t.Nullable)
	case r < 0:
		return sql.Decimal(min(MaxDecimalPrecision, 1+p-s), 0).WithNullable(t.Nullable)
	}
	return sql.Decimal(1+p-s+r, r).WithNullable(t.Nullable)
}

func inferMod(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	for i := range args {
		if err := wantNumeric(name, args, i); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return args, ArithmeticType("%", args[0].Type(), args[1].Type()).WithNullable(anyNullable(args)), nil
}

// inferNiladic types a clock function; checked ones refuse arguments.
func inferNiladic(t sql.DataType, checked bool) func(string, []Expr) ([]Expr, sql.DataType, error) {
	return func(name string, args []Expr) ([]Expr, sql.DataType, error) {
		if checked {
			if err := arity(name, args, 0, 0); err != nil {
				return nil, sql.DataType{}, err
			}
		}
		return args, t, nil
	}
}

// inferTimeFunc types a time function of Calcite's SqlAbstractTimeFunction
// family: no argument, or (precision) one integer literal not below zero
// (OperandTypes.POSITIVE_INTEGER_LITERAL), which changes nothing: Flink's
// FlinkTimestampWithPrecisionDynamicFunction and
// FlinkCurrentRowTimestampFunction type the call with their own precision
// (3), and a TIME is TIME(0) whatever its precision
// (FlinkTypeFactory.toLogicalType), though LOCALTIME and CURRENT_TIME
// keep SqlAbstractTimeFunction's check of it (at most 3,
// SqlTypeName.MAX_DATETIME_PRECISION). CURRENT_DATE takes no argument
// (SqlCurrentDateFunction's NILADIC).
func inferTimeFunc(t sql.DataType, precision bool) func(string, []Expr) ([]Expr, sql.DataType, error) {
	return func(name string, args []Expr) ([]Expr, sql.DataType, error) {
		if len(args) == 0 {
			return args, t, nil
		}
		if !precision {
			// CURRENT_DATE(1): Calcite's SqlCurrentDateFunction is
			// niladic and of FUNCTION_ID syntax, so the validator's
			// handleUnresolvedFunction names the signature it found no
			// routine for rather than the expected count.
			sig := make([]string, len(args))
			for i, a := range args {
				sig[i] = "<" + FamilyName(a.Type()) + ">"
			}
			return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("No match found for function signature %s(%s)", name, strings.Join(sig, ", "))}
		}
		if len(args) > 1 {
			return nil, sql.DataType{}, arity(name, args, 0, 0)
		}
		l, ok := args[0].(*Literal)
		p, isInt := int64(0), false
		if ok && l.Value != nil && isIntegerType(l.T) {
			p, isInt = ToInt(l.Value)
		}
		if !isInt {
			return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
				"Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<INTEGER>)'\n'%s()'",
				name, name, CalciteTypeName(args[0].Type()), name, name)}
		}
		if p < 0 {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Argument to function '%s' must be a positive integer literal", name)}
		}
		if t.Root == sql.TypeTime && p > 3 {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Argument to function '%s' must be a valid precision between '0' and '3'", name)}
		}
		return args, t, nil
	}
}

func inferMaterialize(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, args[0].Type(), nil
}

func evalMaterialize(_ *Call, args []Eval) (Eval, error) { return args[0], nil }

func inferDateFormat(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.String().WithNullable(anyNullable(args)), nil
}

// inferToTimestamp: TO_TIMESTAMP(s [, format]) is a nullable TIMESTAMP(3)
// (NULL when s does not parse).
func inferToTimestamp(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.Timestamp(3).WithNullable(true), nil
}

// inferToTimestampLtz: TO_TIMESTAMP_LTZ(numeric, precision) is a nullable
// TIMESTAMP_LTZ(3) (Flink's FlinkSqlOperatorTable.TO_TIMESTAMP_LTZ:
// operands NUMERIC and INTEGER, the result forced nullable).
func inferToTimestampLtz(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	v, p := args[0].Type(), args[1].Type()
	if !(v.IsNumeric() || v.Root == sql.TypeNull) || !(isIntegerType(p) || p.Root == sql.TypeNull) {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(<%s>, <%s>)'. Supported form(s): '%s(<NUMERIC>, <INTEGER>)'",
			name, name, signatureType(v), signatureType(p), name)}
	}
	return args, sql.TimestampLTZ(3).WithNullable(true), nil
}

// signatureType is an operand's type as Calcite's call signature prints
// it in "Cannot apply" messages: with its precision, without nullability or
// character set (SqlCallBinding.getCallSignature: CHAR(16), INTEGER).
func signatureType(t sql.DataType) string {
	s := CalciteType(t.WithNullable(true))
	if i := strings.Index(s, " CHARACTER SET "); i > 0 {
		s = s[:i]
	}
	return s
}

func isIntegerType(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt:
		return true
	}
	return false
}

// inferCount: COUNT(*) and COUNT(x) are BIGINT NOT NULL.
func inferCount(name string, args []Expr) ([]Expr, sql.DataType, error) {
	return args, sql.BigInt().NotNull(), nil
}

// inferNumericAgg: SUM, SUM0, AVG and the variance family take one
// numeric argument.
func inferNumericAgg(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	// Unlike scalar functions, a NULL literal is no numeric argument here.
	if at := args[0].Type(); !at.IsNumeric() {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<NUMERIC>)'",
			name, name, CalciteTypeName(at), name)}
	}
	return args, AggResultType(name, args[0].Type()), nil
}

func inferMinMax(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, args[0].Type().WithNullable(true), nil
}

// inferListAgg is Flink's SqlListAggFunction: LISTAGG(<CHARACTER>) or
// LISTAGG(<CHARACTER>, <CHARACTER_LITERAL>), typed as its first argument,
// nullable (ReturnTypes.ARG0_NULLABLE).
func inferListAgg(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, sql.DataType{}, err
	}
	ok := args[0].Type().IsString()
	if len(args) == 2 {
		l, lit := args[1].(*Literal)
		ok = ok && lit && args[1].Type().IsString() && l.Value != nil
	}
	if !ok {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = "<" + CalciteTypeName(a.Type()) + ">"
		}
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(%s)'. Supported form(s): '%s(<CHARACTER>)'\n'%s(<CHARACTER>, <CHARACTER_LITERAL>)'",
			name, name, strings.Join(ts, ", "), name, name)}
	}
	return args, args[0].Type().WithNullable(true), nil
}

// AggResultType is Flink's aggregate return type: SUM of an integer is
// the same integer type, SUM of DECIMAL(p, s) is DECIMAL(38, s), AVG keeps
// the argument's type (DECIMAL(38, max(s, 6))... as Flink's AvgAggFunction),
// and a grouped SUM/MIN/MAX/AVG is nullable.
func AggResultType(name string, at sql.DataType) sql.DataType {
	switch name {
	case "SUM", "SUM0":
		if at.Root == sql.TypeDecimal {
			return sql.Decimal(MaxDecimalPrecision, at.Scale)
		}
		return at.WithNullable(true)
	case "AVG", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE":
		if at.Root == sql.TypeDecimal {
			s := max(at.Scale, 6)
			return sql.Decimal(MaxDecimalPrecision, s)
		}
		return at.WithNullable(true)
	}
	return at.WithNullable(true)
}

// Evaluation, one function per entry (or family of entries).

func evalArith(c *Call, args []Eval) (Eval, error) {
	t := c.T
	if len(args) == 1 { // unary minus
		return strict(args, func(vs []any) (any, error) { return Negate(vs[0]) }), nil
	}
	op := c.Op
	lt, rt := c.Args[0].Type(), c.Args[1].Type()
	switch {
	case lt.IsNumeric() || rt.IsNumeric():
		// Numbers, or an interval times or divided by an integer.
	case rt.IsInterval() && !lt.IsInterval():
		// datetime +/- interval (ScalarOperatorGens.generateTemporalPlusMinus).
		ym := rt.Root == sql.TypeIntervalYearMonth
		return strict(args, func(vs []any) (any, error) { return datetimePlus(op, vs[0], vs[1], ym, t) }), nil
	case lt.IsInterval() && !rt.IsInterval():
		ym := lt.Root == sql.TypeIntervalYearMonth
		return strict(args, func(vs []any) (any, error) { return datetimePlus(op, vs[1], vs[0], ym, t) }), nil
	case op == "-" && t.IsInterval() && !lt.IsInterval() && !rt.IsInterval():
		// Calcite's MINUS_DATE, (b - a) unit, of the TIMESTAMPDIFF
		// convertlet: ScalarOperatorGens.generateTemporalPlusMinus's
		// difference of two time points, a DATE as its midnight, in
		// milliseconds or in whole months (DateTimeUtils.subtractMonths).
		ym := t.Root == sql.TypeIntervalYearMonth
		return strict(args, func(vs []any) (any, error) {
			if ym {
				return minusDateMonths(vs[0], vs[1], lt, rt), nil
			}
			b, a := epochMillis(vs[0]), epochMillis(vs[1])
			return b - a, nil
		}), nil
	}
	return strict(args, func(vs []any) (any, error) { return arith(op, vs[0], vs[1], t) }), nil
}

func evalCompare(c *Call, args []Eval) (Eval, error) {
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	op := c.Op
	ct, ok := CommonType(argT(0), argT(1))
	if !ok {
		ct = argT(0) // string vs number/date: compareAs casts the string side
	}
	if (op == "=" || op == "<>") && CollectionsComparable(argT(0), argT(1)) {
		return evalCollectionEquals(op, argT(0), args), nil
	}
	if nested(argT(0)) || nested(argT(1)) {
		// ROW = ROW plans (plan's bindRowEquality); Flink's generated code
		// compares the two RowData with equals, whose result depends on
		// their classes: not reproduced.
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support comparing ARRAY, MAP or ROW values yet")
	}
	if op == "=" || op == "<>" {
		if err := implicitConversion(argT(0), argT(1)); err != nil {
			return nil, err
		}
	}
	if ltzAndTimestamp(argT(0), argT(1)) && op != "=" && op != "<>" {
		// ScalarOperatorGens.generateComparison has no rule for the pair
		// (= and <> fall back to TimestampData.equals).
		return nil, sql.Errorf(sql.CodeGenException, "Incomparable types: %s and %s", argT(0), argT(1))
	}
	return strict(args, func(vs []any) (any, error) {
		n, err := compareAs(vs[0], argT(0), vs[1], argT(1), ct)
		if err != nil {
			return nil, err
		}
		return cmpResult(op, n), nil
	}), nil
}

// implicitConversion is Flink's ScalarOperatorGens.checkImplicitConversionValidity,
// which its code generator runs for = and <> (and for what compares with
// them: IS [NOT] DISTINCT FROM, and IN lists and SEARCH, expanded to
// equalities): a character string and a number are not compared (Calcite
// casts neither for = and <>, unlike for < <= > >=), and the job fails
// when it is translated; EXPLAIN, which generates no code, plans it.
func implicitConversion(a, b sql.DataType) error {
	if a.IsNumeric() && b.IsString() || a.IsString() && b.IsNumeric() {
		return sql.Errorf(sql.ValidationException, "implicit type conversion between %s and %s is not supported now", typeRootName(a), typeRootName(b))
	}
	return nil
}

// typeRootName is the name of Flink's LogicalTypeRoot of t, for the
// numeric and character string types implicitConversion names and the
// datetime types of TIMESTAMPDIFF's MatchError.
func typeRootName(t sql.DataType) string {
	switch t.Root {
	case sql.TypeDate:
		return "DATE"
	case sql.TypeTime:
		return "TIME_WITHOUT_TIME_ZONE"
	case sql.TypeTimestamp:
		return "TIMESTAMP_WITHOUT_TIME_ZONE"
	case sql.TypeTimestampLTZ:
		return "TIMESTAMP_WITH_LOCAL_TIME_ZONE"
	case sql.TypeInt:
		return "INTEGER"
	case sql.TypeDecimal:
		return "DECIMAL"
	case sql.TypeChar:
		return "CHAR"
	case sql.TypeVarChar:
		return "VARCHAR"
	}
	return t.NotNull().String()
}

func evalIsDistinctFrom(c *Call, args []Eval) (Eval, error) {
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	not := c.Op == "IS NOT DISTINCT FROM"
	if err := implicitConversion(argT(0), argT(1)); err != nil {
		// ScalarOperatorGens.generateIs(Not)DistinctFrom compare with
		// generateEquals.
		return nil, err
	}
	ct, _ := CommonType(argT(0), argT(1))
	return func(row []any) (any, error) {
		a, err := args[0](row)
		if err != nil {
			return nil, err
		}
		b, err := args[1](row)
		if err != nil {
			return nil, err
		}
		var same bool
		switch {
		case a == nil || b == nil:
			same = a == nil && b == nil
		default:
			n, err := compareAs(a, argT(0), b, argT(1), ct)
			if err != nil {
				return nil, err
			}
			same = n == 0
		}
		return same == not, nil
	}, nil
}

func evalAndOr(c *Call, args []Eval) (Eval, error) {
	isAnd := c.Op == "AND"
	return func(row []any) (any, error) {
		sawNull := false
		for _, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			if v == nil {
				sawNull = true
				continue
			}
			if b := v.(bool); b != isAnd {
				return b, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return isAnd, nil
	}, nil
}

func evalNot(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) { return !vs[0].(bool), nil }), nil
}

func evalIsNull(c *Call, args []Eval) (Eval, error) {
	want := c.Op == "IS NULL"
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil {
			return nil, err
		}
		return (v == nil) == want, nil
	}, nil
}

func evalIsBool(c *Call, args []Eval) (Eval, error) {
	op := c.Op
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil {
			return nil, err
		}
		b, isB := v.(bool)
		switch op {
		case "IS TRUE":
			return isB && b, nil
		case "IS NOT TRUE":
			return !(isB && b), nil
		case "IS FALSE":
			return isB && !b, nil
		}
		return !(isB && !b), nil // IS NOT FALSE
	}, nil
}

func evalCast(c *Call, args []Eval) (Eval, error) {
	t := c.T
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	from := argT(0)
	try := c.Op == "TRY_CAST"
	loc := c.location()
	if err := CastCodegenError(from, t); err != nil {
		return nil, err
	}
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil {
			return nil, err
		}
		out, err := castValueIn(v, from, t, loc)
		if err != nil && try {
			return nil, nil
		}
		return out, err
	}, nil
}

func evalLike(c *Call, args []Eval) (Eval, error) {
	fold := c.Op == "ILIKE"
	var cache *regexp.Regexp
	var cachedPat string
	return strict(args, func(vs []any) (any, error) {
		pat := vs[1].(string)
		esc := '\\'
		if len(vs) > 2 {
			esc = []rune(vs[2].(string))[0]
		}
		if cache == nil || pat != cachedPat {
			re, err := likeRegexp(pat, fold, esc)
			if err != nil {
				return nil, err
			}
			cache, cachedPat = re, pat
		}
		return cache.MatchString(vs[0].(string)), nil
	}), nil
}

func evalCase(c *Call, args []Eval) (Eval, error) {
	t := c.T
	// Args: cond1, val1, cond2, val2, ..., else.
	return func(row []any) (any, error) {
		n := len(args)
		for i := 0; i+1 < n; i += 2 {
			cv, err := args[i](row)
			if err != nil {
				return nil, err
			}
			if b, _ := cv.(bool); b {
				v, err := args[i+1](row)
				if err != nil {
					return nil, err
				}
				return castValue(v, c.Args[i+1].Type(), t)
			}
		}
		v, err := args[n-1](row)
		if err != nil {
			return nil, err
		}
		return castValue(v, c.Args[n-1].Type(), t)
	}, nil
}

func evalCoalesce(c *Call, args []Eval) (Eval, error) {
	t := c.T
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	return func(row []any) (any, error) {
		for i, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				return castValue(v, argT(i), t)
			}
		}
		return nil, nil
	}, nil
}

func evalIf(c *Call, args []Eval) (Eval, error) {
	t := c.T
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	return func(row []any) (any, error) {
		cv, err := args[0](row)
		if err != nil {
			return nil, err
		}
		i := 2
		if b, _ := cv.(bool); b {
			i = 1
		}
		v, err := args[i](row)
		if err != nil {
			return nil, err
		}
		return castValue(v, argT(i), t)
	}, nil
}

func evalConcat(c *Call, args []Eval) (Eval, error) {
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	// Both return NULL when any argument is NULL, as in Flink.
	return strict(args, func(vs []any) (any, error) {
		// A string value is its own STRING (castValue returns it as is):
		// only other values are cast, and the result is allocated once.
		n := 0
		for _, v := range vs {
			if s, ok := v.(string); ok {
				n += len(s)
			}
		}
		var b strings.Builder
		b.Grow(n)
		for i, v := range vs {
			s, ok := v.(string)
			if !ok {
				x, err := castValue(v, argT(i), sql.String())
				if err != nil {
					return nil, err
				}
				s = x.(string)
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}), nil
}

func evalUpper(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) { return JavaUpper(vs[0].(string)), nil }), nil
}

func evalLower(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) { return JavaLower(vs[0].(string)), nil }), nil
}

// JavaUpper is java.lang.String.toUpperCase in a root-like locale, which
// Flink's UPPER calls for a string that is not all ASCII
// (BinaryStringData.toUpperCase): Unicode's full case mapping, so "ß" is
// "SS" and "ﬀ" is "FF", where Go's strings.ToUpper maps one rune to one.
func JavaUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

// JavaLower is java.lang.String.toLowerCase in a root-like locale, as
// Flink's LOWER (BinaryStringData.toLowerCase): full case mapping with
// its context rules, so a capital sigma ending a word is "ς" and "İ" is
// "i̇".
func JavaLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func evalCharLength(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) { return int32(len([]rune(vs[0].(string)))), nil }), nil
}

// evalSubstring is BinaryStringData.substringSQL: a position above 0
// counts from 1, 0 is the first character, below 0 counts from the end
// (SUBSTRING('hello', -3) is 'llo'); a start past either end gives an
// empty string, a negative length NULL.
func evalSubstring(c *Call, args []Eval) (Eval, error) {
	var negative any // what a negative length gives: NULL where the type allows it
	if !c.T.Nullable {
		negative = ""
	}
	return strict(args, func(vs []any) (any, error) {
		r := []rune(vs[0].(string))
		pos, _ := ToInt(vs[1])
		n := int64(len(r))
		length := int64(math.MaxInt32)
		if len(vs) > 2 {
			length, _ = ToInt(vs[2])
			if length < 0 {
				return negative, nil
			}
		}
		var start int64
		switch {
		case pos > 0:
			start = pos - 1
		case pos < 0:
			start = n + pos
		}
		if start < 0 || start >= n {
			return "", nil
		}
		end := n
		if n-start >= length {
			end = start + length
		}
		return string(r[start:end]), nil
	}), nil
}

func evalTrim(c *Call, args []Eval) (Eval, error) {
	// TRIM's args: mode literal ("BOTH"/"LEADING"/"TRAILING"), chars, string.
	op := c.Op
	return strict(args, func(vs []any) (any, error) {
		mode, chars, s := "BOTH", " ", ""
		switch op {
		case "TRIM":
			mode, chars, s = vs[0].(string), vs[1].(string), vs[2].(string)
		case "LTRIM":
			mode, s = "LEADING", vs[0].(string)
		default:
			mode, s = "TRAILING", vs[0].(string)
		}
		if len(vs) > 1 && op != "TRIM" {
			// BinaryStringDataUtil.trimLeft/trimRight(str, trimStr): the
			// characters of trimStr.
			chars = vs[1].(string)
		}
		switch mode {
		case "LEADING":
			return strings.TrimLeft(s, chars), nil
		case "TRAILING":
			return strings.TrimRight(s, chars), nil
		}
		return strings.Trim(s, chars), nil
	}), nil
}

func evalAbs(c *Call, args []Eval) (Eval, error) {
	t := c.T
	return strict(args, func(vs []any) (any, error) {
		switch x := vs[0].(type) {
		case decimal.Decimal:
			return x.Abs(), nil
		case float64:
			return math.Abs(x), nil
		case float32:
			return float32(math.Abs(float64(x))), nil
		}
		n, _ := ToInt(vs[0])
		if n < 0 {
			n = -n
		}
		return intOf(n, t.Root), nil
	}), nil
}

func evalPower(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		x, _ := toFloat(vs[0])
		y, _ := toFloat(vs[1])
		return math.Pow(x, y), nil
	}), nil
}

func evalRound(c *Call, args []Eval) (Eval, error) {
	t := c.T
	op := c.Op
	argScale := c.Args[0].Type().Scale
	return strict(args, func(vs []any) (any, error) {
		var places int64
		if len(vs) > 1 {
			places, _ = ToInt(vs[1])
		}
		switch x := vs[0].(type) {
		case decimal.Decimal:
			var r decimal.Decimal
			switch op {
			case "ROUND":
				// A value of DECIMAL(p, s) has at most s decimals and
				// fewer than 39 integer digits: rounding beyond either
				// end changes nothing more, and ROUND(1.5, 2147483647)
				// must not build a 2147483647-digit power of ten.
				r = x.Round(int32(min(max(places, -MaxDecimalPrecision-1), int64(argScale))))
			case "FLOOR":
				r = x.Floor()
			default:
				r = x.Ceil()
			}
			// A result its type cannot hold is NULL, as
			// DecimalData.fromBigDecimal makes it (DecimalTypeTest:
			// ROUND of 38 nines to -1 places).
			if t.Root == sql.TypeDecimal && !r.Truncate(0).IsZero() && len(r.Abs().Truncate(0).String()) > t.Precision-t.Scale {
				return nil, nil
			}
			return r, nil
		case float64, float32:
			f, _ := toFloat(x)
			switch op {
			case "ROUND":
				// Beyond ±330 places no double changes (or every one
				// rounds to 0); math.Pow10 would give Inf or 0 there.
				switch {
				case places > 330 || math.IsInf(f, 0) || math.IsNaN(f):
				case places < -330:
					f = 0
				default:
					p := math.Pow10(int(places))
					f = math.Round(f*p) / p
				}
			case "FLOOR":
				f = math.Floor(f)
			default:
				f = math.Ceil(f)
			}
			return castValue(f, sql.Double(), t)
		}
		n, _ := ToInt(vs[0])
		if op == "ROUND" && places < 0 {
			// HALF_UP in exact arithmetic, as Java's BigDecimal; below
			// -20 places every BIGINT rounds to 0. A result beyond
			// BIGINT keeps its low 64 bits, as Java's longValue().
			r := decimal.NewFromInt(n).Round(int32(max(places, -20)))
			n = r.BigInt().Int64()
		}
		return intOf(n, t.Root), nil
	}), nil
}

func evalCurrentTimestamp(c *Call, args []Eval) (Eval, error) {
	// TIMESTAMP_LTZ(3): the current instant at millisecond precision.
	return func([]any) (any, error) { return sql.TimestampData{Millis: time.Now().UnixMilli()}, nil }, nil
}

// evalClockFunc evaluates LOCALTIMESTAMP, LOCALTIME, CURRENT_TIME or
// CURRENT_DATE on its own (outside a Calc's shared clock): the process's
// clock now.
func evalClockFunc(c *Call, args []Eval) (Eval, error) {
	op, loc := c.Op, c.location()
	return func([]any) (any, error) { return clockValue(op, time.Now().UnixMilli(), loc), nil }, nil
}

// evalDateFormat is DATE_FORMAT(x, format): a timestamp formatted; a DATE
// is its midnight and a TIME that time on 1970-01-01 (the implicit cast
// to TIMESTAMP Flink makes); a string is read as
// DateTimeUtils.formatTimestampString reads it, by SimpleDateFormat's
// "yyyy-MM-dd HH:mm:ss" (a prefix; NULL when it does not parse).
func evalDateFormat(c *Call, args []Eval) (Eval, error) {
	argRoot := c.Args[0].Type().Root
	loc := c.location()
	return strict(args, func(vs []any) (any, error) {
		var tm time.Time
		switch x := vs[0].(type) {
		case sql.TimestampData:
			if argRoot == sql.TypeTimestampLTZ {
				// A TIMESTAMP_LTZ is formatted on its wall clock in the
				// session zone (DateTimeUtils.formatTimestamp with the
				// session's TimeZone).
				x = toLocalTimestamp(x, loc)
			}
			tm = x.Time()
		case int32:
			switch argRoot {
			case sql.TypeDate:
				tm = time.Unix(int64(x)*86400, 0).UTC()
			case sql.TypeTime:
				tm = time.UnixMilli(int64(x)).UTC()
			default:
				return nil, nil
			}
		case string:
			sdf, _ := getSimplePattern("yyyy-MM-dd HH:mm:ss")
			t, ok := sdf.parse(x, time.Now())
			if !ok {
				return nil, nil
			}
			tm = t
		default:
			return nil, nil
		}
		pat, err := patterns.get(vs[1].(string))
		if err != nil {
			return nil, sql.Errorf(sql.TableException, "DATE_FORMAT: %v", err)
		}
		return pat.format(tm), nil
	}), nil
}

func evalToTimestamp(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s := vs[0].(string)
		if len(vs) > 1 {
			// DateTimeUtils.parseTimestampData(s, format): the pattern's
			// fields, then, where the text does not match, s as
			// Timestamp.valueOf or Date.valueOf reads it; NULL else. The
			// result is a TIMESTAMP(3).
			pat, err := patterns.get(vs[1].(string))
			if err != nil {
				return nil, sql.Errorf(sql.TableException, "TO_TIMESTAMP: %v", err)
			}
			if tm, ok := pat.parse(s); ok {
				return truncTimestamp(sql.TimestampFromTime(tm), 3), nil
			}
			if ts, ok := sqlTimestampValueOf(strings.TrimSpace(s)); ok {
				return truncTimestamp(ts, 3), nil
			}
			return nil, nil
		}
		ts, err := parseTimestamp(s)
		if err != nil {
			return nil, nil
		}
		return ts, nil
	}), nil
}

// The instants TO_TIMESTAMP_LTZ accepts (Flink's DateTimeUtils
// MIN_EPOCH_MILLS / MAX_EPOCH_MILLS: 0000-01-01 to 9999-12-31 23:59:59.999);
// outside them it returns NULL.
const (
	minEpochMillis = -62167219200000
	maxEpochMillis = 253402300799999
)

// evalToTimestampLtz converts epoch seconds (precision 0) or milliseconds
// (precision 3) to an instant, as Flink's DateTimeUtils.toTimestampData:
// NULL outside the years 0000-9999, a fraction truncated to the
// millisecond, any other precision a TableException.
func evalToTimestampLtz(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		p, _ := ToInt(vs[1])
		var scale float64
		switch p {
		case 0:
			scale = 1000
		case 3:
			scale = 1
		default:
			return nil, sql.Errorf(sql.TableException, "The precision value '%d' for function TO_TIMESTAMP_LTZ(numeric, precision) is unsupported, the supported value is '0' for second or '3' for millisecond.", p)
		}
		if n, ok := ToInt(vs[0]); ok {
			if n < minEpochMillis/int64(scale) || n > maxEpochMillis/int64(scale) {
				return nil, nil
			}
			return sql.TimestampData{Millis: n * int64(scale)}, nil
		}
		f, ok := toFloat(vs[0])
		if !ok {
			return nil, fmt.Errorf("TO_TIMESTAMP_LTZ: unsupported argument %T", vs[0])
		}
		if math.IsNaN(f) || f < minEpochMillis/scale || f > maxEpochMillis/scale {
			return nil, nil
		}
		return sql.TimestampData{Millis: int64(f * scale)}, nil
	}), nil
}

// inferArray types ARRAY[e1, ...] as Calcite's SqlArrayValueConstructor
// does: ARRAY<T> NOT NULL, T the least restrictive type of the elements.
func inferArray(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, &OperandError{Msg: "Require at least 1 argument", WholeCall: true}
	}
	t, ok := elementType(args)
	if !ok {
		return nil, sql.DataType{}, &OperandError{Msg: "Parameters must be of the same type", WholeCall: true}
	}
	return args, sql.ArrayOf(t).NotNull(), nil
}

// elementType is the common type of a constructor's elements, as
// SqlArrayValueConstructor and SqlMapValueConstructor derive it
// (SqlTypeFactoryImpl.leastRestrictive, nested types field by field).
func elementType(args []Expr) (sql.DataType, bool) {
	t := args[0].Type()
	for _, a := range args[1:] {
		ct, ok := CommonType(t, a.Type())
		if !ok {
			return sql.DataType{}, false
		}
		t = ct
	}
	return t, true
}

// inferMap types MAP[k1, v1, ...] as Calcite's SqlMapValueConstructor: an
// even number of at least two arguments, a NOT NULL MAP of the keys'
// common type to the values'.
func inferMap(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, &OperandError{Msg: "Map requires at least 2 arguments", WholeCall: true}
	}
	if len(args)%2 != 0 {
		return nil, sql.DataType{}, &OperandError{Msg: "Map requires an even number of arguments", WholeCall: true}
	}
	var keys, vals []Expr
	for i := 0; i < len(args); i += 2 {
		keys, vals = append(keys, args[i]), append(vals, args[i+1])
	}
	kt, ok := elementType(keys)
	vt, ok2 := elementType(vals)
	if !ok || !ok2 {
		return nil, sql.DataType{}, &OperandError{Msg: "Parameters must be of the same type", WholeCall: true}
	}
	return args, sql.MapOf(kt, vt).NotNull(), nil
}

// evalMap builds a MAP value, keys and values cast to the map's types.
// Flink keeps the pairs in the order written (BinaryMapData.valueOf over
// the key and value arrays); a key written twice is refused rather than
// guessed at.
func evalMap(c *Call, args []Eval) (Eval, error) {
	kt, vt := *c.T.Elem, *c.T.Value
	conv := func(i int, v any) (any, error) {
		want := vt
		if i%2 == 0 {
			want = kt
		}
		at := c.Args[i].Type()
		if v == nil || at.WithNullable(false).Equal(want.WithNullable(false)) || at.IsString() || at.IsBinary() {
			return v, nil
		}
		return castValue(v, at, want)
	}
	return func(row []any) (any, error) {
		m := &sql.Map{Keys: make([]any, 0, len(args)/2), Values: make([]any, 0, len(args)/2)}
		for i := 0; i < len(args); i += 2 {
			k, err := args[i](row)
			if err != nil {
				return nil, err
			}
			if k, err = conv(i, k); err != nil {
				return nil, err
			}
			v, err := args[i+1](row)
			if err != nil {
				return nil, err
			}
			if v, err = conv(i+1, v); err != nil {
				return nil, err
			}
			for _, prev := range m.Keys {
				if sameKey(prev, k, kt) {
					return nil, sql.Errorf(sql.TableException, "sqlrun does not support a key written twice in MAP[...] yet: %s", sql.FormatValue(k, kt))
				}
			}
			m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
		}
		return m, nil
	}, nil
}

// sameKey reports whether two keys of a MAP of key type kt are equal.
func sameKey(a, b any, kt sql.DataType) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if nested(kt) {
		return sql.FormatValue(a, kt) == sql.FormatValue(b, kt)
	}
	c, err := compareValues(a, b)
	return err == nil && c == 0
}

func nested(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeArray, sql.TypeMap, sql.TypeRow:
		return true
	}
	return false
}

// evalArray builds the []any of an ARRAY value, each element converted to
// the element type (ARRAY[1, 2.5] holds DECIMAL 1.0 and 2.5), except
// strings and bytes, which a wider CHAR/VARCHAR type does not change (Flink
// writes them into the array unpadded).
func evalArray(c *Call, args []Eval) (Eval, error) {
	et := *c.T.Elem
	return func(row []any) (any, error) {
		out := make([]any, len(args))
		for i, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			if v == nil {
				continue
			}
			at := c.Args[i].Type()
			if !at.WithNullable(false).Equal(et.WithNullable(false)) && !at.IsString() && !at.IsBinary() {
				if v, err = castValue(v, at, et); err != nil {
					return nil, err
				}
			}
			out[i] = v
		}
		return out, nil
	}, nil
}

// inferRow types ROW(e1, ...) as Calcite's SqlRowOperator does: a NOT NULL
// row whose fields are named EXPR$0, EXPR$1, ... with the elements' types.
func inferRow(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, &OperandError{Msg: "Require at least 1 argument", WholeCall: true}
	}
	fields := make([]sql.Field, len(args))
	for i, a := range args {
		fields[i] = sql.Field{Name: "EXPR$" + strconv.Itoa(i), Type: a.Type()}
	}
	return args, sql.RowOf(fields...).NotNull(), nil
}

func evalRow(_ *Call, args []Eval) (Eval, error) {
	return func(row []any) (any, error) {
		out := make([]any, len(args))
		for i, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}, nil
}

// FieldAccess is the field named name of a ROW-typed expression, as
// Calcite's SqlDotOperator types it: the field's type, made nullable when
// the row is (a NULL row has NULL fields). ok is false when x is not a ROW
// or has no such field (names match case-sensitively, as Flink's).
func FieldAccess(x Expr, name string) (Expr, bool) {
	t := x.Type()
	if t.Root != sql.TypeRow {
		return nil, false
	}
	for i, f := range t.Fields {
		if f.Name != name {
			continue
		}
		ft := f.Type
		if t.Nullable {
			ft = ft.WithNullable(true)
		}
		return &Call{Op: "DOT", Args: []Expr{x, &Literal{Value: int32(i), T: sql.Int().NotNull()}}, T: ft}, true
	}
	return nil, false
}

// FieldName is the name of the field a DOT call reads.
func FieldName(c *Call) string {
	i, _ := c.Args[1].(*Literal).Value.(int32)
	if t := c.Args[0].Type(); int(i) < len(t.Fields) {
		return t.Fields[i].Name
	}
	return "$" + strconv.Itoa(int(i))
}

func evalDot(c *Call, args []Eval) (Eval, error) {
	i, _ := c.Args[1].(*Literal).Value.(int32)
	row := args[0]
	return func(r []any) (any, error) {
		v, err := row(r)
		if err != nil || v == nil {
			return nil, err
		}
		fs, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("DOT: a %T is not a ROW value", v)
		}
		if int(i) >= len(fs) {
			return nil, fmt.Errorf("DOT: field %d of a %d-field ROW value", i, len(fs))
		}
		return fs[i], nil
	}, nil
}

// inferHashCode refuses HASH_CODE in a query: Flink's (FlinkSqlOperatorTable.
// HASH_CODE) returns the Java hashCode of its argument's internal data,
// which sqlrun's does not reproduce; only the split distinct aggregation's
// buckets use it, where any fixed hash gives the same rows.
func inferHashCode(name string, _ []Expr) ([]Expr, sql.DataType, error) {
	return nil, sql.DataType{}, sql.Errorf(sql.TableException, "sqlrun does not support the function %s in a query", name)
}

// evalHashCode is HASH_CODE's INT NOT NULL: a fixed hash of the value
// (0 for NULL): for integers their Java hashCode (Integer.hashCode,
// Long.hashCode), else FNV-1a of the value's text.
func evalHashCode(_ *Call, args []Eval) (Eval, error) {
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil {
			return nil, err
		}
		switch x := v.(type) {
		case nil:
			return int32(0), nil
		case int8:
			return int32(x), nil
		case int16:
			return int32(x), nil
		case int32:
			return x, nil
		case int64:
			return int32(x ^ int64(uint64(x)>>32)), nil
		case string:
			return fnvHash(x), nil
		case []byte:
			return fnvHash(string(x)), nil
		}
		return fnvHash(fmt.Sprint(v)), nil
	}, nil
}

// fnvHash is the 32-bit FNV-1a hash of s: the same in every process, so
// that a restored job puts a value in the bucket it had before.
func fnvHash(s string) int32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return int32(h)
}

// FamilyName is Calcite's type family name in "No match found for
// function signature" messages.
func FamilyName(t sql.DataType) string {
	switch {
	case t.IsNumeric():
		return "NUMERIC"
	case t.IsString():
		return "CHARACTER"
	case t.IsBinary():
		return "BINARY"
	case t.Root == sql.TypeBoolean:
		return "BOOLEAN"
	case t.Root == sql.TypeDate:
		return "DATE"
	case t.Root == sql.TypeTime:
		return "TIME"
	case t.Root == sql.TypeTimestamp, t.Root == sql.TypeTimestampLTZ:
		return "TIMESTAMP"
	case t.Root == sql.TypeNull:
		return "NULL"
	}
	return "ANY"
}
