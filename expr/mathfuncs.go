package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// The mathematical functions of Calcite's SqlStdOperatorTable (SQRT, LN,
// LOG10, EXP, SIN ... RADIANS, SIGN) and Flink's FlinkSqlOperatorTable
// (LOG, LOG2, SINH, COSH, TANH, PI, E, TRUNCATE). The DOUBLE ones take
// NUMERIC operands and return DOUBLE, nullable when an operand is
// (ReturnTypes.DOUBLE_NULLABLE); Flink evaluates them with java.lang.Math on
// the operands as doubles (SqlFunctionUtils: a DECIMAL operand through
// DecimalDataUtils.doubleValue), so a domain error gives NaN or ±Infinity,
// never a failure.
func mathFuncs() []*Func {
	d1 := func(name string, f func(float64) float64) *Func {
		return &Func{Name: name, Infer: inferDoubleOf(1, 1), Eval: evalDoubleOf(func(x []float64) float64 { return f(x[0]) })}
	}
	return []*Func{
		d1("SQRT", math.Sqrt),
		d1("LN", math.Log),
		d1("LOG10", math.Log10),
		// SqlFunctionUtils.log2: Math.log(x) / Math.log(2), not Math.log2.
		d1("LOG2", func(x float64) float64 { return math.Log(x) / math.Log(2) }),
		// LOG(x) is LN(x); LOG(base, x) is Math.log(x) / Math.log(base).
		{Name: "LOG", Infer: inferDoubleOf(1, 2), Eval: evalDoubleOf(func(x []float64) float64 {
			if len(x) == 1 {
				return math.Log(x[0])
			}
			return math.Log(x[1]) / math.Log(x[0])
		})},
		d1("EXP", math.Exp),
		d1("SIN", math.Sin),
		d1("COS", math.Cos),
		d1("TAN", math.Tan),
		// SqlFunctionUtils.cot: 1.0d / Math.tan(x).
		d1("COT", func(x float64) float64 { return 1 / math.Tan(x) }),
		d1("ASIN", javaAsin),
		d1("ACOS", javaAcos),
		d1("ATAN", javaAtan),
		{Name: "ATAN2", Infer: inferDoubleOf(2, 2), Eval: evalDoubleOf(func(x []float64) float64 { return javaAtan2(x[0], x[1]) })},
		d1("SINH", math.Sinh),
		d1("COSH", math.Cosh),
		d1("TANH", math.Tanh),
		// Math.toDegrees / Math.toRadians multiply by these constants.
		d1("DEGREES", func(x float64) float64 { return x * (180 / math.Pi) }),
		d1("RADIANS", func(x float64) float64 { return x * (math.Pi / 180) }),
		// SIGN keeps its operand's type (ReturnTypes.ARG0): -1, 0 or 1 as
		// that type (DecimalDataUtils.sign keeps a DECIMAL's scale: -1.0).
		{Name: "SIGN", Infer: inferSign, Eval: evalSign},
		// Flink's PI() and E() (FlinkSqlOperatorTable.PI_FUNCTION, E):
		// DOUBLE NOT NULL.
		{Name: "PI", Infer: inferNiladic(sql.Double().NotNull(), true), Eval: evalConst(math.Pi)},
		{Name: "E", Infer: inferNiladic(sql.Double().NotNull(), true), Eval: evalConst(math.E)},
		// TRUNCATE(x [, n]) is typed as ROUND (FlinkReturnTypes.
		// ROUND_FUNCTION_NULLABLE) and cuts toward zero.
		{Name: "TRUNCATE", Infer: inferRound, Eval: evalTruncate},
	}
}

// inferDoubleOf checks lo..hi NUMERIC operands and returns DOUBLE.
func inferDoubleOf(lo, hi int) func(string, []Expr) ([]Expr, sql.DataType, error) {
	return func(name string, args []Expr) ([]Expr, sql.DataType, error) {
		if len(args) < lo || len(args) > hi {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting %d arguments", name, lo)}
		}
		for _, a := range args {
			if t := a.Type(); !t.IsNumeric() && t.Root != sql.TypeNull {
				return nil, sql.DataType{}, operandTypesError(name, args, "NUMERIC")
			}
		}
		return args, sql.Double().WithNullable(anyNullable(args)), nil
	}
}

// operandTypesError is Calcite's message for operands of the wrong family,
// every operand listed ('ATAN2(<VARCHAR>, <INTEGER>)').
func operandTypesError(name string, args []Expr, family string) error {
	got, want := "", ""
	for i, a := range args {
		if i > 0 {
			got += ", "
			want += ", "
		}
		got += "<" + CalciteTypeName(a.Type()) + ">"
		want += "<" + family + ">"
	}
	return &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(%s)'. Supported form(s): '%s(%s)'",
		name, name, got, name, want)}
}

func evalDoubleOf(f func([]float64) float64) func(*Call, []Eval) (Eval, error) {
	return func(_ *Call, args []Eval) (Eval, error) {
		return strict(args, func(vs []any) (any, error) {
			x := make([]float64, len(vs))
			for i, v := range vs {
				x[i], _ = toFloat(v)
			}
			return f(x), nil
		}), nil
	}
}

func evalConst(v any) func(*Call, []Eval) (Eval, error) {
	return func(*Call, []Eval) (Eval, error) {
		return func([]any) (any, error) { return v, nil }, nil
	}
}

func inferSign(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if err := wantNumeric(name, args, 0); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	if t.Root == sql.TypeNull {
		t = sql.Int()
	}
	return args, t, nil
}

func evalSign(c *Call, args []Eval) (Eval, error) {
	t := c.T
	return strict(args, func(vs []any) (any, error) {
		switch x := vs[0].(type) {
		case decimal.Decimal:
			return decimal.New(int64(x.Sign()), 0).Round(int32(t.Scale)), nil
		case float64:
			return signum(x), nil
		case float32:
			return float32(signum(float64(x))), nil
		}
		n, _ := ToInt(vs[0])
		return intOf(int64(signum(float64(n))), t.Root), nil
	}), nil
}

// signum is Java's Math.signum: NaN and ±0.0 are themselves.
func signum(f float64) float64 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return f
}

// evalTruncate is Calcite's SqlFunctions.struncate (which Flink calls):
// the value as a BigDecimal (a DOUBLE or FLOAT through Double.toString),
// its point moved right n places, cut to an integer (RoundingMode.DOWN)
// and moved back; a DECIMAL result has the call's scale. A NaN or infinite
// DOUBLE fails, as BigDecimal.valueOf does.
func evalTruncate(c *Call, args []Eval) (Eval, error) {
	t := c.T
	return strict(args, func(vs []any) (any, error) {
		var n int64
		if len(vs) > 1 {
			n, _ = ToInt(vs[1])
		}
		n = min(max(n, -400), 400)
		cut := func(d decimal.Decimal) decimal.Decimal {
			return d.Shift(int32(n)).Truncate(0).Shift(-int32(n))
		}
		switch x := vs[0].(type) {
		case decimal.Decimal:
			return cut(x).Round(int32(t.Scale)), nil
		case float64, float32:
			f, _ := toFloat(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, sql.Errorf(sql.RuntimeException, "TRUNCATE(%s): java.lang.NumberFormatException: Infinite or NaN", strconv.FormatFloat(f, 'g', -1, 64))
			}
			d, err := decimal.NewFromString(strconv.FormatFloat(f, 'g', -1, 64))
			if err != nil {
				return nil, fmt.Errorf("TRUNCATE: %w", err)
			}
			r, _ := cut(d).Float64()
			if _, ok := x.(float32); ok {
				return float32(r), nil
			}
			return r, nil
		}
		i, _ := ToInt(vs[0])
		return intOf(cut(decimal.NewFromInt(i)).BigInt().Int64(), t.Root), nil
	}), nil
}

// fdlibm's constants (e_asin.c, e_acos.c, s_atan.c, e_atan2.c).
const (
	fdPi     = 3.14159265358979311600e+00
	fdPio2Hi = 1.57079632679489655800e+00
	fdPio2Lo = 6.12323399573676603587e-17
	fdPio4Hi = 7.85398163397448278999e-01
	fdPiLo   = 1.2246467991473531772e-16
	fdTiny   = 1.0e-300
)

// fdAsinPQ is the rational approximation e_asin.c and e_acos.c share.
func fdAsinPQ(z float64) float64 {
	const (
		pS0 = 1.66666666666666657415e-01
		pS1 = -3.25565818622400915405e-01
		pS2 = 2.01212532134862925881e-01
		pS3 = -4.00555345006794114027e-02
		pS4 = 7.91534994289814532176e-04
		pS5 = 3.47933107596021167570e-05
		qS1 = -2.40339491173441421878e+00
		qS2 = 2.02094576023350569471e+00
		qS3 = -6.88283971605453293030e-01
		qS4 = 7.70381505559019352791e-02
	)
	p := z * (pS0 + z*(pS1+z*(pS2+z*(pS3+z*(pS4+z*pS5)))))
	q := 1 + z*(qS1+z*(qS2+z*(qS3+z*qS4)))
	return p / q
}

func hiLo(x float64) (int32, uint32) {
	b := math.Float64bits(x)
	return int32(b >> 32), uint32(b)
}

func clearLow(x float64) float64 { return math.Float64frombits(math.Float64bits(x) &^ 0xffffffff) }

// javaAcos is fdlibm's e_acos.c, which java.lang.StrictMath.acos (and so
// Math.acos) computes; Go's math.Acos (π/2 - asin) differs in the last
// place (ACOS(0.5) is 1.0471975511965979 in Java, ...976 in Go).
func javaAcos(x float64) float64 {
	hx, lx := hiLo(x)
	ix := hx & 0x7fffffff
	switch {
	case ix >= 0x3ff00000: // |x| >= 1
		if (uint32(ix-0x3ff00000) | lx) == 0 {
			if hx > 0 {
				return 0
			}
			return fdPi + 2*fdPio2Lo
		}
		return math.NaN()
	case ix < 0x3fe00000: // |x| < 0.5
		if ix <= 0x3c600000 {
			return fdPio2Hi + fdPio2Lo
		}
		r := fdAsinPQ(x * x)
		return fdPio2Hi - (x - (fdPio2Lo - x*r))
	case hx < 0: // x < -0.5
		z := (1 + x) * 0.5
		s := math.Sqrt(z)
		w := fdAsinPQ(z)*s - fdPio2Lo
		return fdPi - 2*(s+w)
	}
	z := (1 - x) * 0.5 // x > 0.5
	s := math.Sqrt(z)
	df := clearLow(s)
	c := (z - df*df) / (s + df)
	w := fdAsinPQ(z)*s + c
	return 2 * (df + w)
}

// javaAsin is fdlibm's e_asin.c (StrictMath.asin, which Math.asin calls).
func javaAsin(x float64) float64 {
	hx, lx := hiLo(x)
	ix := hx & 0x7fffffff
	switch {
	case ix >= 0x3ff00000: // |x| >= 1
		if (uint32(ix-0x3ff00000) | lx) == 0 {
			return x*fdPio2Hi + x*fdPio2Lo
		}
		return math.NaN()
	case ix < 0x3fe00000: // |x| < 0.5
		if ix < 0x3e400000 {
			return x
		}
		return x + x*fdAsinPQ(x*x)
	}
	t := (1 - math.Abs(x)) * 0.5
	r := fdAsinPQ(t)
	s := math.Sqrt(t)
	if ix >= 0x3FEF3333 { // |x| > 0.975
		t = fdPio2Hi - (2*(s+s*r) - fdPio2Lo)
	} else {
		w := clearLow(s)
		c := (t - w*w) / (s + w)
		p := 2*s*r - (fdPio2Lo - 2*c)
		q := fdPio4Hi - 2*w
		t = fdPio4Hi - (p - q)
	}
	if hx > 0 {
		return t
	}
	return -t
}

// javaAtan is fdlibm's s_atan.c (StrictMath.atan, which Math.atan calls).
func javaAtan(x float64) float64 {
	atanHi := [4]float64{4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00}
	atanLo := [4]float64{2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17}
	aT := [11]float64{3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01, -1.11111104054623557880e-01,
		9.09088713343650656196e-02, -7.69187620504482999495e-02, 6.66107313738753120669e-02, -5.83357013379057348645e-02,
		4.97687799461593236017e-02, -3.65315727442169155270e-02, 1.62858201153657823623e-02}
	hx, lx := hiLo(x)
	ix := hx & 0x7fffffff
	id := -1
	switch {
	case ix >= 0x44100000: // |x| >= 2^66
		if ix > 0x7ff00000 || (ix == 0x7ff00000 && lx != 0) {
			return x + x
		}
		if hx > 0 {
			return atanHi[3] + atanLo[3]
		}
		return -atanHi[3] - atanLo[3]
	case ix < 0x3fdc0000: // |x| < 0.4375
		if ix < 0x3e200000 {
			return x
		}
	default:
		x = math.Abs(x)
		switch {
		case ix < 0x3fe60000: // 7/16 <= |x| < 11/16
			id, x = 0, (2*x-1)/(2+x)
		case ix < 0x3ff30000: // 11/16 <= |x| < 19/16
			id, x = 1, (x-1)/(x+1)
		case ix < 0x40038000: // |x| < 2.4375
			id, x = 2, (x-1.5)/(1+1.5*x)
		default:
			id, x = 3, -1/x
		}
	}
	z := x * x
	w := z * z
	s1 := z * (aT[0] + w*(aT[2]+w*(aT[4]+w*(aT[6]+w*(aT[8]+w*aT[10])))))
	s2 := w * (aT[1] + w*(aT[3]+w*(aT[5]+w*(aT[7]+w*aT[9]))))
	if id < 0 {
		return x - x*(s1+s2)
	}
	z = atanHi[id] - ((x*(s1+s2) - atanLo[id]) - x)
	if hx < 0 {
		return -z
	}
	return z
}

// javaAtan2 is fdlibm's e_atan2.c (StrictMath.atan2, which Math.atan2
// calls).
func javaAtan2(y, x float64) float64 {
	if math.IsNaN(x) || math.IsNaN(y) {
		return x + y
	}
	hx, lx := hiLo(x)
	ix := hx & 0x7fffffff
	hy, ly := hiLo(y)
	iy := hy & 0x7fffffff
	if (uint32(hx-0x3ff00000) | lx) == 0 { // x = 1.0
		return javaAtan(y)
	}
	m := ((hy >> 31) & 1) | ((hx >> 30) & 2)
	if (uint32(iy) | ly) == 0 { // y = ±0
		switch m {
		case 0, 1:
			return y
		case 2:
			return fdPi + fdTiny
		}
		return -fdPi - fdTiny
	}
	if (uint32(ix) | lx) == 0 { // x = ±0
		if hy < 0 {
			return -fdPio2Hi - fdTiny
		}
		return fdPio2Hi + fdTiny
	}
	if ix == 0x7ff00000 { // x = ±Inf
		if iy == 0x7ff00000 {
			return [4]float64{fdPio4Hi + fdTiny, -fdPio4Hi - fdTiny, 3*fdPio4Hi + fdTiny, -3*fdPio4Hi - fdTiny}[m]
		}
		return [4]float64{0, math.Copysign(0, -1), fdPi + fdTiny, -fdPi - fdTiny}[m]
	}
	if iy == 0x7ff00000 {
		if hy < 0 {
			return -fdPio2Hi - fdTiny
		}
		return fdPio2Hi + fdTiny
	}
	var z float64
	switch k := (iy - ix) >> 20; {
	case k > 60:
		z = fdPio2Hi + 0.5*fdPiLo
	case hx < 0 && k < -60:
		z = 0
	default:
		z = javaAtan(math.Abs(y / x))
	}
	switch m {
	case 0:
		return z
	case 1:
		return -z
	case 2:
		return fdPi - (z - fdPiLo)
	}
	return (z - fdPiLo) - fdPi
}
