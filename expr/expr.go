package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// Expr is a typed scalar expression over the fields of one input row, the
// planner's RexNode. Binding resolves names to field indexes and decides
// every implicit cast, so that printing and compilation never look at
// names or guess types.
type Expr interface {
	Type() sql.DataType
}

// InputRef is the field at Index of the input row ($i in Calcite).
type InputRef struct {
	Index int
	T     sql.DataType
}

// Literal is a constant in sql.Row's Go representation of T.
type Literal struct {
	Value any
	T     sql.DataType
	// Flag marks a symbol argument such as TRIM's BOTH/LEADING/TRAILING,
	// printed as FLAG(BOTH).
	Flag bool
}

// Call applies an operator or function. Op is Calcite's operator name:
// "+", ">", "AND", "IS NULL", "CAST", "UPPER", ...
type Call struct {
	Op   string
	Args []Expr
	T    sql.DataType
	// Written is the name the call prints under when it is not Op: a
	// function Flink resolves as the query spelled it (Func.AsWritten).
	Written string
	// zone is the session time zone the call evaluates in (InZone; nil
	// until bound, which evaluates in UTC). It never prints.
	zone *time.Location
	// ctx is what the session binds into a call that reads it
	// (CURRENT_DATABASE's database, WithCurrentDatabase). It never prints.
	ctx any
}

// MapArgs returns c with f applied to each argument: c itself when f
// changes none, otherwise a copy sharing the arguments f kept.
func (c *Call) MapArgs(f func(Expr) Expr) *Call {
	var args []Expr
	for i, a := range c.Args {
		m := f(a)
		if m != a && args == nil {
			args = append([]Expr(nil), c.Args...)
		}
		if args != nil {
			args[i] = m
		}
	}
	if args == nil {
		return c
	}
	out := *c
	out.Args = args
	return &out
}

// Type returns the field's type.
func (e *InputRef) Type() sql.DataType { return e.T }

// Type returns the literal's type.
func (e *Literal) Type() sql.DataType { return e.T }

// Type returns the call's result type.
func (e *Call) Type() sql.DataType { return e.T }

// Format selects how expressions print: Calcite's digest for the Abstract
// Syntax Tree ($0, typed literals), Flink's prefix form for the physical
// plan (field names, >(a, 10)) and infix for the execution plan ((a > 10)).
type Format int

// The three expression formats of EXPLAIN.
const (
	FormatAST Format = iota
	FormatPrefix
	FormatInfix
)

// RowtimeCast marks (as a CAST's Written) a cast to a rowtime attribute's
// time-indicator type, which prints with Flink's TimeIndicatorRelDataType
// suffix: CAST(ts AS TIMESTAMP(3) *ROWTIME*).
const RowtimeCast = "*ROWTIME*"

// String prints e; names gives the input's field names (unused for
// FormatAST, which prints $i).
func String(e Expr, names []string, f Format) string {
	switch x := e.(type) {
	case *InputRef:
		if f == FormatAST || x.Index >= len(names) {
			return "$" + strconv.Itoa(x.Index)
		}
		return names[x.Index]
	case *Literal:
		return formatLiteral(x, f)
	case *Call:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = String(a, names, f)
			if l, ok := a.(*Literal); ok && f == FormatAST && len(x.Args) == 2 && simpleBinaryOps[x.Op] && untypedOperand(l, x.Args[1-i]) {
				args[i] = literalText(l)
			}
		}
		form := Prefix
		if fn, ok := byOp[x.Op]; ok {
			form = fn.Form
		}
		switch {
		case form == Field && len(x.Args) == 2:
			return args[0] + "." + FieldName(x)
		case form == FunctionID && f == FormatAST && len(x.Args) == 0:
			return x.Op
		case form == Cast:
			if x.Written == RowtimeCast {
				// TimeIndicatorRelDataType's digest, in both forms.
				t := "TIMESTAMP(" + strconv.Itoa(x.T.Precision) + ")"
				if x.T.Root == sql.TypeTimestampLTZ {
					t = "TIMESTAMP_LTZ(" + strconv.Itoa(x.T.Precision) + ")"
				}
				if f == FormatAST {
					return x.Op + "(" + args[0] + "):" + t + " *ROWTIME*"
				}
				return x.Op + "(" + args[0] + " AS " + t + " *ROWTIME*)"
			}
			if f == FormatAST {
				return x.Op + "(" + args[0] + "):" + CalciteType(x.T)
			}
			// Flink's RelExplainUtil prints the target as the RelDataType's
			// toString, without its nullability: CAST(window_start AS
			// TIMESTAMP(6)) where the type is NOT NULL
			// (WindowAggregateTest.testProctimeWindowWithFilter,
			// WindowJoinTest.testWindowJoinWithNonEqui).
			return x.Op + "(" + args[0] + " AS " + serializable(x.T.WithNullable(true)) + ")"
		case f != FormatInfix:
		case form == Infix && (len(args) == 2 || len(args) > 2 && (x.Op == "AND" || x.Op == "OR")):
			return "(" + strings.Join(args, " "+x.Op+" ") + ")"
		case form == Postfix && len(args) == 1:
			return args[0] + " " + x.Op
		}
		name := x.Op
		if x.Written != "" {
			name = x.Written
		}
		return name + "(" + strings.Join(args, ", ") + ")"
	}
	return fmt.Sprintf("%v", e)
}

// simpleBinaryOps are Calcite's SqlKind.SIMPLE_BINARY_OPS: + - * / and the
// six comparisons (MOD is not one).
var simpleBinaryOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true,
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true,
}

// untypedOperand reports whether l, an operand of a simple binary
// operator, prints without its type in the Abstract Syntax Tree, as
// Calcite's RexCall.appendOperands decides: the other operand has l's type
// (nullability aside) and is no literal whose own digest carries a type:
// +($0, 2) for a BIGINT $0 and 2:BIGINT. A NULL, an interval or a symbol
// keeps its form. The physical plan prints each literal on its own
// (Flink's FlinkRexUtil.getExpressionString: RexLiteral.toString).
func untypedOperand(l *Literal, other Expr) bool {
	if l.Value == nil || l.Flag {
		return false
	}
	switch l.Value.(type) {
	case Interval, *Sarg:
		return false
	}
	if o, ok := other.(*Literal); ok && !naturallyTyped(o) {
		return false
	}
	return l.T.WithNullable(true).Equal(other.Type().WithNullable(true))
}

// naturallyTyped reports a literal whose digest never carries its type
// (RexLiteral.shouldIncludeType: a non-NULL BOOLEAN, INTEGER or CHAR).
func naturallyTyped(l *Literal) bool {
	if l.Value == nil || l.T.Nullable {
		return false
	}
	switch l.T.Root {
	case sql.TypeBoolean, sql.TypeInt, sql.TypeChar:
		return true
	}
	return l.Flag
}

// formatLiteral prints a literal as Calcite's RexLiteral digest does: the
// type is appended unless it is the literal's natural one (INT, BOOLEAN,
// CHAR); strings carry Calcite's _UTF-16LE charset prefix in the Abstract
// Syntax Tree only, and the execution plan also drops the type.
// Interval is the value of an INTERVAL literal: a day-time one's length in
// milliseconds, a year-month one's in months, and the qualifier Calcite
// prints ("SECOND", "DAY TO SECOND", "MONTH", "YEAR TO MONTH"): INTERVAL
// '5' SECOND is 5000:INTERVAL SECOND, INTERVAL '1' YEAR 12:INTERVAL YEAR.
type Interval struct {
	Millis int64
	Months int64
	Unit   string
}

// runtime is the literal's value as rows carry an interval of type t:
// months as int32, milliseconds as int64 (Flink's internal Integer and
// Long).
func (iv Interval) runtime(t sql.DataType) any {
	if t.Root == sql.TypeIntervalYearMonth {
		return int32(iv.Months)
	}
	return iv.Millis
}

var intervalUnitName = map[sql.IntervalUnit]string{
	sql.IntervalYear: "YEAR", sql.IntervalMonth: "MONTH", sql.IntervalDay: "DAY",
	sql.IntervalHour: "HOUR", sql.IntervalMinute: "MINUTE", sql.IntervalSecond: "SECOND",
}

// intervalCount reads a runtime interval value (or a literal's Interval)
// as its count of months or milliseconds, and an integer as itself.
func intervalCount(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case Interval:
		if x.YearMonth() {
			return x.Months
		}
		return x.Millis
	}
	return 0
}

// YearMonth reports a year-month interval.
func (iv Interval) YearMonth() bool {
	return strings.Contains(iv.Unit, "YEAR") || strings.Contains(iv.Unit, "MONTH") || iv.Unit == "QUARTER"
}

// String prints the interval as Flink casts it to a string
// (IntervalToStringCastRule, DateTimeUtils.intervalYearMonthToString /
// intervalDayTimeToString): +2-10 for 34 months, +10 00:00:00.004 for a
// day-time interval with milliseconds.
func (iv Interval) String() string {
	sign := "+"
	if iv.YearMonth() {
		m := iv.Months
		if m < 0 {
			sign, m = "-", -m
		}
		return fmt.Sprintf("%s%d-%02d", sign, m/12, m%12)
	}
	ms := iv.Millis
	if ms < 0 {
		sign, ms = "-", -ms
	}
	return fmt.Sprintf("%s%d %02d:%02d:%02d.%03d", sign, ms/86400000, ms/3600000%24, ms/60000%60, ms/1000%60, ms%1000)
}

func formatLiteral(l *Literal, f Format) string {
	if iv, ok := l.Value.(Interval); ok {
		if iv.YearMonth() {
			return strconv.FormatInt(iv.Months, 10) + ":INTERVAL " + iv.Unit
		}
		return strconv.FormatInt(iv.Millis, 10) + ":INTERVAL " + iv.Unit
	}
	if l.Flag {
		if f == FormatInfix {
			return fmt.Sprint(l.Value)
		}
		return "FLAG(" + fmt.Sprint(l.Value) + ")"
	}
	if l.Value == nil {
		// Typed in every form, as Calcite's RexLiteral digest: CASE((c >
		// 10), 1, null:INTEGER) (a Values tuple prints the bare value).
		return "null:" + literalType(l.T, f)
	}
	if sarg, ok := l.Value.(*Sarg); ok {
		return sarg.String()
	}
	if l.T.Nullable && (l.T.Root == sql.TypeBigInt || l.T.Root == sql.TypeInt) && f != FormatAST {
		// Calcite's RexLiteral.shouldIncludeType: a literal of a nullable
		// type (a CAST of a literal folded into it) always shows its type
		// (SetOperatorsTest.testMinusAll: CAST(1L AS BIGINT), printed
		// 1:BIGINT AS vcol_marker).
		return literalText(l) + ":" + literalType(l.T, f)
	}
	if f == FormatInfix {
		if v, ok := l.Value.(string); ok {
			return "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		return literalText(l)
	}
	if _, ok := l.Value.(bool); ok {
		return literalText(l)
	}
	s := literalText(l)
	if v, ok := l.Value.(string); ok {
		if f == FormatPrefix {
			// Flink's physical plan prints a character literal without
			// the charset the Abstract Syntax Tree's RexLiteral digest
			// shows (CalcTest.testArrayType at 1.20: ARRAY(_UTF-16LE'Hi',
			// ...) in the AST, ARRAY('Hi', ...) in the plan;
			// ChangelogModeInferenceTest.testFilterOnNonUpsertKeyColOnly:
			// <>(name, 'Tom')). A SEARCH's Sarg and a LookupJoin's
			// constant key print the NlsString itself, which keeps it.
			s = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		}
		// A character literal's natural type is CHAR(n), which Calcite
		// prints without a type; a literal cast to VARCHAR keeps its type.
		if l.T.Root == sql.TypeChar {
			return s
		}
	}
	// In the physical plan a BIGINT prints its bare value too (the
	// Abstract Syntax Tree keeps Calcite's digest): Flink's plans print literals
	// with FlinkRexUtil.getExpressionString's ExpressionDetail.Explain
	// (EXPPLAN_ATTRIBUTES), which keeps the type of a NULL and of an
	// interval only (RankTest.testTopNth: 10 AS $3, where the RexLiteral
	// digest is 10:BIGINT; ConstantRankNumberColumnRemoveRule makes it with
	// makeBigintLiteral).
	if l.T.Root == sql.TypeInt || l.T.Root == sql.TypeBigInt && f == FormatPrefix {
		return s
	}
	// Calcite appends the type unless it is the literal's natural one
	// (INTEGER, BOOLEAN, CHAR); literal types print without NOT NULL, and
	// Flink's physical plans print them without the character set.
	return s + ":" + literalType(l.T, f)
}

// literalText is a non-NULL literal's value as Calcite's digest prints it
// without its type: _UTF-16LE'text', 12.5, 1984-07-12 14:34:24, true.
func literalText(l *Literal) string {
	switch v := l.Value.(type) {
	case string:
		return "_UTF-16LE'" + strings.ReplaceAll(v, "'", "''") + "'"
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return sql.JavaScientific(v, 64)
	}
	t := l.T
	if t.Root == sql.TypeTimestampLTZ {
		// A TIMESTAMP_WITH_LOCAL_TIME_ZONE literal holds the instant's
		// TimestampString in UTC (RexBuilder.makeTimestampWithLocalTimeZoneLiteral),
		// printed as a TIMESTAMP's.
		t = sql.Timestamp(t.Precision)
	}
	s := sql.FormatValue(l.Value, t)
	switch t.Root {
	case sql.TypeDate, sql.TypeTimestamp, sql.TypeTime:
		s = strings.Replace(s, "T", " ", 1)
	}
	switch t.Root {
	case sql.TypeTimestamp, sql.TypeTime:
		// Calcite's TimestampString/TimeString always print the seconds
		// (2024-01-01 00:00:00); Java's LocalDateTime text, which
		// FormatValue follows, drops them when they and the fraction are 0.
		if t := s[strings.LastIndexByte(s, ' ')+1:]; strings.Count(t, ":") == 1 {
			s += ":00"
		}
	}
	return s
}

// Refs collects the input fields an expression reads.
func Refs(e Expr, into map[int]bool) {
	switch x := e.(type) {
	case *InputRef:
		into[x.Index] = true
	case *Call:
		for _, a := range x.Args {
			Refs(a, into)
		}
	}
}

// RefsInOrder appends the fields e references to into, in the order they
// first appear, skipping those in seen.
func RefsInOrder(e Expr, seen map[int]bool, into *[]int) {
	switch x := e.(type) {
	case *InputRef:
		if !seen[x.Index] {
			seen[x.Index] = true
			*into = append(*into, x.Index)
		}
	case *Call:
		for _, a := range x.Args {
			RefsInOrder(a, seen, into)
		}
	}
}

// Remap rewrites input references through m (old index → new index).
func Remap(e Expr, m map[int]int) Expr {
	switch x := e.(type) {
	case *InputRef:
		return &InputRef{Index: m[x.Index], T: x.T}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = Remap(a, m)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written, zone: x.zone}
	}
	return e
}

// Inline replaces input references by the expressions of a projection
// below (merging two Calcs into one).
func Inline(e Expr, below []Expr) Expr {
	switch x := e.(type) {
	case *InputRef:
		return below[x.Index]
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = Inline(a, below)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written, zone: x.zone}
	}
	return e
}

// Conjuncts splits an AND tree.
func Conjuncts(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Op == "AND" {
		var out []Expr
		for _, a := range c.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}

// And joins conjuncts back (nil for none).
func And(es []Expr) Expr {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	nullable := false
	for _, e := range es {
		nullable = nullable || e.Type().Nullable
	}
	return &Call{Op: "AND", Args: es, T: sql.Boolean().WithNullable(nullable)}
}

// CastExpr wraps e in a CAST to t unless it already has that type (modulo
// nullability, which never needs a cast).
func CastExpr(e Expr, t sql.DataType) Expr {
	et := e.Type()
	if et.WithNullable(true).Equal(t.WithNullable(true)) {
		return e
	}
	if l, ok := e.(*Literal); ok {
		if v, err := castValue(l.Value, l.T, t); err == nil {
			return &Literal{Value: v, T: t.WithNullable(l.T.Nullable || l.Value == nil)}
		}
	}
	return &Call{Op: "CAST", Args: []Expr{e}, T: t.WithNullable(et.Nullable)}
}

func isNaNInf(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

func literalType(t sql.DataType, f Format) string {
	s := CalciteType(t.WithNullable(true))
	if f != FormatAST {
		s = strings.ReplaceAll(s, " CHARACTER SET \"UTF-16LE\"", "")
	}
	return s
}
