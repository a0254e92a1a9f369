package expr

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

// Eval computes an expression over one row's values.
type Eval func(row []any) (any, error)

// Compile turns a typed expression into a closure over row values. The
// runtime's Calc takes these closures and never sees an AST. Compilation
// fails only for operators sqlrun cannot run; evaluation errors (a failed
// CAST, division by zero) are returned per row.
func Compile(e Expr) (Eval, error) {
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
		return func([]any) (any, error) { return v, nil }, nil
	case *Call:
		return compileCall(x)
	}
	return nil, fmt.Errorf("compile: unknown expression %T", e)
}

// CalcFunc is the closure a Calc runs per row: it projects, filters (ok is
// false for a dropped row) and keeps the RowKind.
type CalcFunc func(sql.Row) (sql.Row, bool, error)

// CompileCalc builds a Calc's row function from its projection and
// optional condition. A NULL condition drops the row, as SQL's WHERE does.
func CompileCalc(projects []Expr, cond Expr) (CalcFunc, error) {
	var pred Eval
	if cond != nil {
		p, err := Compile(cond)
		if err != nil {
			return nil, err
		}
		pred = p
	}
	evals := make([]Eval, len(projects))
	for i, p := range projects {
		ev, err := Compile(p)
		if err != nil {
			return nil, err
		}
		evals[i] = ev
	}
	return func(r sql.Row) (sql.Row, bool, error) {
		if pred != nil {
			v, err := pred(r.Values)
			if err != nil {
				return sql.Row{}, false, err
			}
			if b, _ := v.(bool); !b {
				return sql.Row{}, false, nil
			}
		}
		out := make([]any, len(evals))
		for i, ev := range evals {
			v, err := ev(r.Values)
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
		ev, err := Compile(a)
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
	args, err := compileArgs(c)
	if err != nil {
		return nil, err
	}
	t := c.T
	argT := func(i int) sql.DataType { return c.Args[i].Type() }
	switch c.Op {
	case "+", "-", "*", "/", "MOD", "%":
		if len(args) == 1 { // unary minus
			return strict(args, func(vs []any) (any, error) { return Negate(vs[0]) }), nil
		}
		op := c.Op
		return strict(args, func(vs []any) (any, error) { return arith(op, vs[0], vs[1], t) }), nil
	case "=", "<>", "<", "<=", ">", ">=":
		op := c.Op
		ct, ok := CommonType(argT(0), argT(1))
		if !ok {
			ct = argT(0) // string vs number/date: compareAs casts the string side
		}
		return strict(args, func(vs []any) (any, error) {
			n, err := compareAs(vs[0], argT(0), vs[1], argT(1), ct)
			if err != nil {
				return nil, err
			}
			return cmpResult(op, n), nil
		}), nil
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		not := c.Op == "IS NOT DISTINCT FROM"
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
	case "AND", "OR":
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
	case "NOT":
		return strict(args, func(vs []any) (any, error) { return !vs[0].(bool), nil }), nil
	case "IS NULL", "IS NOT NULL":
		want := c.Op == "IS NULL"
		return func(row []any) (any, error) {
			v, err := args[0](row)
			if err != nil {
				return nil, err
			}
			return (v == nil) == want, nil
		}, nil
	case "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN":
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
			case "IS NOT FALSE":
				return !(isB && !b), nil
			case "IS UNKNOWN":
				return v == nil, nil
			}
			return v != nil, nil
		}, nil
	case "CAST", "TRY_CAST":
		from := argT(0)
		try := c.Op == "TRY_CAST"
		return func(row []any) (any, error) {
			v, err := args[0](row)
			if err != nil {
				return nil, err
			}
			out, err := castValue(v, from, t)
			if err != nil && try {
				return nil, nil
			}
			return out, err
		}, nil
	case "IN", "NOT IN":
		not := c.Op == "NOT IN"
		return func(row []any) (any, error) {
			x, err := args[0](row)
			if err != nil || x == nil {
				return nil, err
			}
			sawNull := false
			for i, a := range args[1:] {
				v, err := a(row)
				if err != nil {
					return nil, err
				}
				if v == nil {
					sawNull = true
					continue
				}
				ct, _ := CommonType(argT(0), argT(i+1))
				n, err := compareAs(x, argT(0), v, argT(i+1), ct)
				if err != nil {
					return nil, err
				}
				if n == 0 {
					return !not, nil
				}
			}
			if sawNull {
				return nil, nil
			}
			return not, nil
		}, nil
	case "LIKE", "NOT LIKE", "ILIKE":
		not := c.Op == "NOT LIKE"
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
			return cache.MatchString(vs[0].(string)) != not, nil
		}), nil
	case "CASE":
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
	case "COALESCE":
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
	case "IF":
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
	case "||", "CONCAT":
		// Both return NULL when any argument is NULL, as in Flink.
		return strict(args, func(vs []any) (any, error) {
			var b strings.Builder
			for i, v := range vs {
				s, err := castValue(v, argT(i), sql.String())
				if err != nil {
					return nil, err
				}
				b.WriteString(s.(string))
			}
			return b.String(), nil
		}), nil
	case "UPPER":
		return strict(args, func(vs []any) (any, error) { return strings.ToUpper(vs[0].(string)), nil }), nil
	case "LOWER":
		return strict(args, func(vs []any) (any, error) { return strings.ToLower(vs[0].(string)), nil }), nil
	case "CHAR_LENGTH", "CHARACTER_LENGTH":
		return strict(args, func(vs []any) (any, error) { return int32(len([]rune(vs[0].(string)))), nil }), nil
	case "SUBSTRING":
		return strict(args, func(vs []any) (any, error) {
			r := []rune(vs[0].(string))
			start, _ := ToInt(vs[1])
			length := int64(len(r)) + 1
			if len(vs) > 2 {
				length, _ = ToInt(vs[2])
				if length < 0 {
					return nil, sql.Errorf(sql.TableException, "SUBSTRING length must not be negative: %d", length)
				}
			}
			// SQL positions are 1-based; a start below 1 still counts
			// towards the length.
			from := start - 1
			to := from + length
			if from < 0 {
				from = 0
			}
			if to > int64(len(r)) {
				to = int64(len(r))
			}
			if from >= to {
				return "", nil
			}
			return string(r[from:to]), nil
		}), nil
	case "TRIM", "LTRIM", "RTRIM":
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
			switch mode {
			case "LEADING":
				return strings.TrimLeft(s, chars), nil
			case "TRAILING":
				return strings.TrimRight(s, chars), nil
			}
			return strings.Trim(s, chars), nil
		}), nil
	case "ABS":
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
	case "ROUND", "FLOOR", "CEIL":
		op := c.Op
		argScale := c.Args[0].Type().Scale
		return strict(args, func(vs []any) (any, error) {
			var places int64
			if len(vs) > 1 {
				places, _ = ToInt(vs[1])
			}
			switch x := vs[0].(type) {
			case decimal.Decimal:
				switch op {
				case "ROUND":
					// A value of DECIMAL(p, s) has at most s decimals and
					// fewer than 39 integer digits: rounding beyond either
					// end changes nothing more, and ROUND(1.5, 2147483647)
					// must not build a 2147483647-digit power of ten.
					return x.Round(int32(min(max(places, -MaxDecimalPrecision-1), int64(argScale)))), nil
				case "FLOOR":
					return x.Floor(), nil
				}
				return x.Ceil(), nil
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
	case "CURRENT_TIMESTAMP", "NOW", "CURRENT_ROW_TIMESTAMP":
		// TIMESTAMP_LTZ(3): the current instant at millisecond precision.
		return func([]any) (any, error) { return sql.TimestampData{Millis: time.Now().UnixMilli()}, nil }, nil
	case "LOCALTIMESTAMP":
		// TIMESTAMP(3): the wall clock of the session's (here: the
		// process's) time zone, at millisecond precision.
		return func([]any) (any, error) {
			now := time.Now()
			_, offset := now.Zone()
			return sql.TimestampData{Millis: now.UnixMilli() + int64(offset)*1000}, nil
		}, nil
	case "CURRENT_DATE":
		return func([]any) (any, error) { return int32(time.Now().UTC().Unix() / 86400), nil }, nil
	case "DATE_FORMAT":
		return strict(args, func(vs []any) (any, error) {
			var tm time.Time
			switch x := vs[0].(type) {
			case sql.TimestampData:
				tm = x.Time()
			case string:
				ts, err := parseTimestamp(x)
				if err != nil {
					return nil, nil
				}
				tm = ts.Time()
			default:
				return nil, nil
			}
			return tm.Format(javaLayout(vs[1].(string))), nil
		}), nil
	case "TO_TIMESTAMP":
		return strict(args, func(vs []any) (any, error) {
			s := vs[0].(string)
			if len(vs) > 1 {
				tm, err := time.Parse(javaLayout(vs[1].(string)), s)
				if err != nil {
					return nil, nil
				}
				return sql.TimestampFromTime(tm), nil
			}
			ts, err := parseTimestamp(s)
			if err != nil {
				return nil, nil
			}
			return ts, nil
		}), nil
	}
	return nil, sql.Errorf(sql.UnsupportedOperation, "sqlrun cannot evaluate %s yet", c.Op)
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

// arith computes a op b in the result type t (operands are converted to
// it first; integer overflow wraps as in Java).
func arith(op string, a, b any, t sql.DataType) (any, error) {
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

// javaLayout converts the common SimpleDateFormat letters to Go's layout.
func javaLayout(f string) string {
	r := strings.NewReplacer("yyyy", "2006", "yy", "06", "MM", "01", "dd", "02", "HH", "15", "hh", "03",
		"mm", "04", "ss", "05", "SSS", "000", "a", "PM")
	return r.Replace(f)
}
