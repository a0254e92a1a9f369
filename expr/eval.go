package expr

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Eval computes an expression over one row's values.
type Eval func(row []any) (any, error)

// compile turns a typed expression into a closure over row values. The
// runtime's Calc takes these closures and never sees an AST. Compilation
// fails only for operators sqlrun cannot run; evaluation errors (a failed
// CAST, division by zero) are returned per row.
func compile(e Expr) (Eval, error) {
	switch x := e.(type) {
	case *InputRef:
		i := x.Index
		return func(row []any) (any, error) {
			if i >= len(row) {
				return nil, fmt.Errorf("field $%d out of range of a %d-field row", i, len(row))
			}
			return row[i], nil
		}, nil
	case *Literal:
		v := x.Value
		if iv, ok := v.(Interval); ok {
			v = iv.runtime(x.T)
		}
		return func([]any) (any, error) { return v, nil }, nil
	case *Call:
		return compileCall(x)
	case *procTimeNow:
		return compileProcTimeNow(x), nil
	case *clockRead:
		return compileClockRead(x), nil
	case *watermarkRead:
		return compileWatermarkRead(x), nil
	}
	return nil, fmt.Errorf("compile: unknown expression %T", e)
}

// Compile turns a typed expression into a closure over row values. The
// clock functions it calls (CURRENT_TIMESTAMP, LOCALTIME, ...) read the
// clock once per evaluation (clock.go).
func Compile(e Expr) (Eval, error) {
	if !readsClock(e) {
		return compile(e)
	}
	ev, err := compile(bindClock(e, false, 0))
	if err != nil {
		return nil, err
	}
	return func(row []any) (any, error) { return ev(withClockReading(row)) }, nil
}

// CalcFunc is the closure a Calc runs per row: it projects, filters (ok is
// false for a dropped row) and keeps the RowKind.
type CalcFunc func(sql.Row) (sql.Row, bool, error)

// CompileCalc builds a Calc's row function from its projection and
// optional condition. A NULL condition drops the row, as SQL's WHERE does.
//
// The clock functions the Calc calls read the clock once per row, as the
// function Flink generates for a Calc does (clock.go).
func CompileCalc(projects []Expr, cond Expr) (CalcFunc, error) {
	clocked := readsClock(append([]Expr{cond}, projects...)...)
	bind := func(e Expr) Expr {
		if clocked && e != nil {
			return bindClock(e, false, 0)
		}
		return e
	}
	var pred Eval
	if cond != nil {
		p, err := compile(bind(cond))
		if err != nil {
			return nil, err
		}
		pred = p
	}
	evals := make([]Eval, len(projects))
	for i, p := range projects {
		ev, err := compile(bind(p))
		if err != nil {
			return nil, err
		}
		evals[i] = ev
	}
	return func(r sql.Row) (sql.Row, bool, error) {
		vals := r.Values
		if clocked {
			vals = withClockReading(vals)
		}
		if pred != nil {
			v, err := pred(vals)
			if err != nil {
				return sql.Row{}, false, err
			}
			if b, _ := v.(bool); !b {
				return sql.Row{}, false, nil
			}
		}
		out := make([]any, len(evals))
		for i, ev := range evals {
			v, err := ev(vals)
			if err != nil {
				return sql.Row{}, false, err
			}
			out[i] = v
		}
		return sql.Row{Kind: r.Kind, Values: out}, true, nil
	}, nil
}

func compileArgs(c *Call) ([]Eval, error) {
	out := make([]Eval, len(c.Args))
	for i, a := range c.Args {
		ev, err := compile(a)
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// strict evaluates all arguments and returns NULL if any is NULL, the rule
// of most SQL functions.
func strict(args []Eval, f func(vs []any) (any, error)) Eval {
	return func(row []any) (any, error) {
		vs := make([]any, len(args))
		for i, a := range args {
			v, err := a(row)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, nil
			}
			vs[i] = v
		}
		return f(vs)
	}
}

func compileCall(c *Call) (Eval, error) {
	f, ok := byOp[c.Op]
	if !ok || f.Eval == nil {
		return nil, sql.Errorf(sql.UnsupportedOperation, "sqlrun cannot evaluate %s yet", c.Op)
	}
	args, err := compileArgs(c)
	if err != nil {
		return nil, err
	}
	return f.Eval(c, args)
}

func cmpResult(op string, n int) bool {
	switch op {
	case "=":
		return n == 0
	case "<>":
		return n != 0
	case "<":
		return n < 0
	case "<=":
		return n <= 0
	case ">":
		return n > 0
	}
	return n >= 0
}

// compareAs compares two values after converting both to ct (their common
// type; a string meeting a number or date is cast to the other side).
func compareAs(a any, at sql.DataType, b any, bt sql.DataType, ct sql.DataType) (int, error) {
	if ltzAndTimestamp(at, bt) {
		// Flink compares the two TimestampData as they are (their
		// equals), with no time zone conversion: see evalCompare.
		return compareValues(a, b)
	}
	if at.IsString() && !bt.IsString() {
		ct = bt
	} else if bt.IsString() && !at.IsString() {
		ct = at
	}
	if ct.Root == sql.TypeNull {
		ct = at
	}
	ca, err := castValue(a, at, ct)
	if err != nil {
		return 0, err
	}
	cb, err := castValue(b, bt, ct)
	if err != nil {
		return 0, err
	}
	return compareValues(ca, cb)
}

// ltzAndTimestamp reports a TIMESTAMP_LTZ compared with a TIMESTAMP, which
// Calcite validates (one type family) and Flink's code generator compares
// only for equality.
func ltzAndTimestamp(a, b sql.DataType) bool {
	return a.Root == sql.TypeTimestampLTZ && b.Root == sql.TypeTimestamp ||
		a.Root == sql.TypeTimestamp && b.Root == sql.TypeTimestampLTZ
}

// compareValues orders two non-NULL values of the same Go type.
func compareValues(a, b any) (int, error) {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0, nil
		case !x:
			return -1, nil
		}
		return 1, nil
	case string:
		return strings.Compare(x, b.(string)), nil
	case []byte:
		return strings.Compare(string(x), string(b.([]byte))), nil
	case decimal.Decimal:
		y, _ := toDecimal(b)
		return x.Cmp(y), nil
	case float32, float64:
		f, _ := toFloat(x)
		g, _ := toFloat(b)
		switch {
		case f < g:
			return -1, nil
		case f > g:
			return 1, nil
		}
		return 0, nil
	case sql.TimestampData:
		return x.Compare(b.(sql.TimestampData)), nil
	}
	if i, ok := ToInt(a); ok {
		j, _ := ToInt(b)
		switch {
		case i < j:
			return -1, nil
		case i > j:
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot compare %T with %T", a, b)
}

// Negate is unary minus on a numeric value.
func Negate(v any) (any, error) {
	switch x := v.(type) {
	case int8:
		return -x, nil
	case int16:
		return -x, nil
	case int32:
		return -x, nil
	case int64:
		return -x, nil
	case float32:
		return -x, nil
	case float64:
		return -x, nil
	case decimal.Decimal:
		return x.Neg(), nil
	}
	return nil, fmt.Errorf("cannot negate %T", v)
}

// datetimePlus is datetime +/- interval, as ScalarOperatorGens
// .generateTemporalPlusMinus computes it: a DATE moves by whole days of a
// day-time interval (truncated) or by months (DateTimeUtils.addMonths,
// clamping the day to the month's end); a TIME wraps within its day and
// ignores months; a TIMESTAMP moves by milliseconds or months, keeping its
// nanoseconds; a DATE plus hours, minutes or seconds is a TIMESTAMP (the
// binder's type).
func datetimePlus(op string, a, iv any, yearMonth bool, t sql.DataType) (any, error) {
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	var ms int64
	var months int
	if yearMonth {
		months = int(sign * intervalCount(iv))
	} else {
		ms = sign * intervalCount(iv)
	}
	switch x := a.(type) {
	case int32:
		switch {
		case t.Root == sql.TypeTime && yearMonth:
			return x, nil
		case t.Root == sql.TypeTime:
			return int32((int64(x) + millisPerDay + ms%millisPerDay) % millisPerDay), nil
		case yearMonth:
			return int32(addMonths(int(x), months)), nil
		case t.Root == sql.TypeTimestamp:
			return sql.TimestampData{Millis: int64(x)*millisPerDay + ms}, nil
		}
		d := int64(x) + ms/millisPerDay
		if d != int64(int32(d)) {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.ArithmeticException: integer overflow")
		}
		return int32(d), nil
	case sql.TimestampData:
		if yearMonth {
			day := floorDiv(x.Millis, millisPerDay)
			x.Millis = int64(addMonths(int(day), months))*millisPerDay + (x.Millis - day*millisPerDay)
			return x, nil
		}
		x.Millis += ms
		return x, nil
	}
	return nil, fmt.Errorf("cannot apply %s to %T and an interval", op, a)
}

// intervalArith is +, -, * or / on interval counts, Java's long
// arithmetic (wrapping; / truncates and fails on zero).
func intervalArith(op string, x, y int64) (int64, error) {
	switch op {
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		if y == 0 {
			return 0, sql.Errorf(sql.RuntimeException, "java.lang.ArithmeticException: / by zero")
		}
		return x / y, nil
	}
	return x + y, nil
}

// arith computes a op b in the result type t (operands are converted to
// it first; integer overflow wraps as in Java).
func arith(op string, a, b any, t sql.DataType) (any, error) {
	switch t.Root {
	case sql.TypeIntervalYearMonth:
		// Interval and interval or integer: Java's int arithmetic on the
		// months (ScalarOperatorGens casts the integer to int first).
		r, err := intervalArith(op, int64(int32(intervalCount(a))), int64(int32(intervalCount(b))))
		return int32(r), err
	case sql.TypeIntervalDayTime:
		return intervalArith(op, intervalCount(a), intervalCount(b))
	}
	switch t.Root {
	case sql.TypeDecimal:
		x, _ := toDecimal(a)
		y, _ := toDecimal(b)
		var r decimal.Decimal
		switch op {
		case "+":
			r = x.Add(y)
		case "-":
			r = x.Sub(y)
		case "*":
			r = x.Mul(y)
		case "/":
			if y.IsZero() {
				return nil, sql.Errorf(sql.RuntimeException, "Division by zero")
			}
			r = x.DivRound(y, int32(t.Scale))
		default:
			if y.IsZero() {
				return nil, sql.Errorf(sql.RuntimeException, "Division by zero")
			}
			r = x.Mod(y)
		}
		return castValue(r, sql.Decimal(MaxDecimalPrecision, t.Scale), t)
	case sql.TypeFloat, sql.TypeDouble:
		x, _ := toFloat(a)
		y, _ := toFloat(b)
		var r float64
		switch op {
		case "+":
			r = x + y
		case "-":
			r = x - y
		case "*":
			r = x * y
		case "/":
			r = x / y
		default:
			r = math.Mod(x, y)
		}
		if t.Root == sql.TypeFloat {
			return float32(r), nil
		}
		return r, nil
	}
	x, _ := ToInt(a)
	y, _ := ToInt(b)
	var r int64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
	case "/":
		if y == 0 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.ArithmeticException: / by zero")
		}
		r = x / y
	default:
		if y == 0 {
			return nil, sql.Errorf(sql.RuntimeException, "java.lang.ArithmeticException: / by zero")
		}
		r = x % y
	}
	return intOf(r, t.Root), nil
}

// likeRegexp translates a SQL LIKE pattern: % and _ with esc escaping the
// next character (backslash unless ESCAPE names another).
func likeRegexp(p string, fold bool, escChar rune) (*regexp.Regexp, error) {
	var b strings.Builder
	if fold {
		b.WriteString("(?is)^")
	} else {
		b.WriteString("(?s)^")
	}
	esc := false
	for _, r := range p {
		switch {
		case esc:
			b.WriteString(regexp.QuoteMeta(string(r)))
			esc = false
		case r == escChar:
			esc = true
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
