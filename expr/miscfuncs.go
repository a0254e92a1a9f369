package expr

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // CONVERT_TZ's zones, on machines without zoneinfo

	"github.com/sqlrun/sqlrun/sql"
)

// Flink 1.20's GREATEST and LEAST (BuiltInFunctionDefinitions), its
// non-deterministic RAND, RAND_INTEGER and UUID (FlinkSqlOperatorTable),
// CONVERT_TZ, CURRENT_DATABASE() and CURRENT_WATERMARK(rowtime).
func miscFuncs() []*Func {
	return []*Func{
		// GREATEST(v1 [, v2]*) and LEAST: new-stack functions
		// (comparable(from(1), FULL), nullableIfArgs(COMMON)), generated
		// inline by the code generator (runtimeProvided), so they print as
		// written.
		{Name: "GREATEST", Infer: inferGreatestLeast, Eval: evalGreatestLeast, AsWritten: true},
		{Name: "LEAST", Infer: inferGreatestLeast, Eval: evalGreatestLeast, AsWritten: true},
		// RAND([seed]): DOUBLE NOT NULL (ReturnTypes.DOUBLE); RAND_INTEGER(
		// [seed,] bound): INTEGER NOT NULL. isDeterministic() false: never
		// folded. Flink's RandCallGen draws from one java.util.Random per
		// generated function, seeded by a literal seed (or unseeded), and
		// from a new Random(seed) per call for a seed that is no literal.
		{Name: "RAND", Infer: inferRand, Eval: evalRand, Dynamic: true},
		{Name: "RAND_INTEGER", Infer: inferRand, Eval: evalRand, Dynamic: true},
		// UUID(): CHAR(36) NOT NULL, a random (type 4) UUID per call.
		{Name: "UUID", Infer: inferNiladic(sql.Char(36).NotNull(), true), Eval: evalUUID, Dynamic: true},
		// CONVERT_TZ(s, from, to): VARCHAR_FORCE_NULLABLE over three
		// CHARACTER operands (DateTimeUtils.convertTz).
		{Name: "CONVERT_TZ", Infer: inferConvertTz, Eval: evalConvertTz},
		// CURRENT_DATABASE(): VARCHAR NOT NULL, not deterministic; the
		// session's current database when the statement is planned
		// (the binder sets it, WithCurrentDatabase).
		{Name: "CURRENT_DATABASE", Infer: inferNiladic(sql.String().NotNull(), true), Eval: evalCurrentDatabase, Dynamic: true},
		// CURRENT_WATERMARK(rowtime): the watermark of the operator that
		// evaluates it; the binder checks the argument is a rowtime
		// attribute (CurrentWatermarkInputTypeStrategy) and the job
		// compiler binds the operator's watermark (WithWatermark).
		{Name: "CURRENT_WATERMARK", Infer: inferCurrentWatermark, Eval: evalCurrentWatermark, Dynamic: true, AsWritten: true},
	}
}

// inferGreatestLeast: at least one argument, all comparable with each
// other (InputTypeStrategies.comparable(..., FULL)), the result their
// common type, nullable if any argument is.
func inferGreatestLeast(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) == 0 {
		return nil, sql.DataType{}, noMatch(name, args)
	}
	t := args[0].Type()
	for _, a := range args[1:] {
		at := a.Type()
		ct, ok := CommonType(t, at)
		if !ok || nested(t) || nested(at) {
			return nil, sql.DataType{}, invalidCallCause(name, args, fmt.Sprintf(
				"All types in a comparison should support both 'EQUALS' and 'ORDER' comparison with each other. Can not compare %s with %s", t, at))
		}
		t = ct
	}
	if t.Root == sql.TypeNull {
		return nil, sql.DataType{}, invalidCallCause(name, args, "Could not find a common type for the arguments.")
	}
	return args, t.WithNullable(anyNullable(args)), nil
}

// invalidCallCause is Flink's "Invalid function call" validation failure
// with cause as its root cause, the line the SQL client prints.
func invalidCallCause(name string, args []Expr, cause string) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("SQL validation failed. Invalid function call:\n%s(%s)", name, strings.Join(ts, ", ")),
		Err: sql.Errorf(sql.ValidationException, "%s", cause)}
}

// evalGreatestLeast casts every argument to the call's type and keeps the
// greatest (least); NULL if any argument is.
func evalGreatestLeast(c *Call, args []Eval) (Eval, error) {
	t := c.T
	least := c.Op == "LEAST"
	ts := make([]sql.DataType, len(c.Args))
	for i, a := range c.Args {
		ts[i] = a.Type()
	}
	return strict(args, func(vs []any) (any, error) {
		var best any
		for i, v := range vs {
			cv, err := castValue(v, ts[i], t)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				best = cv
				continue
			}
			n, err := compareValues(cv, best)
			if err != nil {
				return nil, err
			}
			if least && n < 0 || !least && n > 0 {
				best = cv
			}
		}
		return best, nil
	}), nil
}

// inferRand checks RAND's operands (none or one NUMERIC) and
// RAND_INTEGER's (one or two NUMERIC), with Calcite's message.
func inferRand(name string, args []Expr) ([]Expr, sql.DataType, error) {
	lo, hi, forms, t := 0, 1, "'RAND()'\n'RAND(<NUMERIC>)'", sql.Double().NotNull()
	if strings.EqualFold(name, "RAND_INTEGER") {
		lo, hi, forms, t = 1, 2, "'RAND_INTEGER(<NUMERIC>)'\n'RAND_INTEGER(<NUMERIC>, <NUMERIC>)'", sql.Int().NotNull()
	}
	bad := len(args) < lo || len(args) > hi
	for _, a := range args {
		if at := a.Type(); !at.IsNumeric() && at.Root != sql.TypeNull {
			bad = true
		}
	}
	if bad {
		got := make([]string, len(args))
		for i, a := range args {
			got[i] = "<" + CalciteTypeName(a.Type()) + ">"
		}
		n := strings.ToUpper(name)
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(%s)'. Supported form(s): %s", n, n, strings.Join(got, ", "), forms)}
	}
	return args, t, nil
}

// evalRand draws from java.util.Random as RandCallGen does: one generator
// for the compiled expression (seeded by a literal seed, else randomly),
// or a new one seeded by a non-literal seed per call. A NULL argument
// gives NULL (generateCallIfArgsNotNull).
func evalRand(c *Call, args []Eval) (Eval, error) {
	integer := c.Op == "RAND_INTEGER"
	seeded := integer && len(args) == 2 || !integer && len(args) == 1
	var shared *javaRandom
	perCall := false
	if seeded {
		if l, ok := c.Args[0].(*Literal); ok {
			if l.Value == nil {
				return func([]any) (any, error) { return nil, nil }, nil
			}
			s, _ := ToInt(l.Value)
			shared = newJavaRandom(s)
		} else {
			perCall = true
		}
	} else {
		var b [8]byte
		_, _ = crand.Read(b[:])
		shared = newJavaRandom(int64(binary.LittleEndian.Uint64(b[:])))
	}
	var mu sync.Mutex // a compiled Calc may run in several subtasks
	return strict(args, func(vs []any) (any, error) {
		r := shared
		if perCall {
			s, _ := ToInt(vs[0])
			r = newJavaRandom(s)
		} else {
			mu.Lock()
			defer mu.Unlock()
		}
		if !integer {
			return r.nextDouble(), nil
		}
		bound, _ := ToInt(vs[len(vs)-1])
		if bound <= 0 {
			return nil, sql.Errorf(sql.RuntimeException, "bound must be positive")
		}
		return r.nextInt(int32(bound)), nil
	}), nil
}

// javaRandom is java.util.Random's linear congruential generator, so that
// a seeded RAND gives Flink's numbers.
type javaRandom struct{ seed int64 }

const (
	javaRandMultiplier = 0x5DEECE66D
	javaRandMask       = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaRandMultiplier) & javaRandMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaRandMultiplier + 0xB) & javaRandMask
	return int32(r.seed >> (48 - bits))
}

func (r *javaRandom) nextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

func (r *javaRandom) nextInt(bound int32) int32 {
	v := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(v)) >> 31)
	}
	for u := v; ; u = r.next(31) {
		v = u % bound
		if u-v+m >= 0 { // int32 overflow: Java's check for a biased draw
			return v
		}
	}
}

// evalUUID is UUID.randomUUID().toString(): 122 random bits, version 4,
// IETF variant, lower-case hex.
func evalUUID(*Call, []Eval) (Eval, error) {
	return func([]any) (any, error) {
		var b [16]byte
		if _, err := crand.Read(b[:]); err != nil {
			return nil, err
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
	}, nil
}

func inferConvertTz(name string, args []Expr) ([]Expr, sql.DataType, error) {
	bad := len(args) != 3
	for _, a := range args {
		if t := a.Type(); !t.IsString() && t.Root != sql.TypeNull {
			bad = true
		}
	}
	if bad {
		if len(args) != 3 {
			return nil, sql.DataType{}, &OperandError{Msg: fmt.Sprintf("Invalid number of arguments to function '%s'. Was expecting 3 arguments", strings.ToUpper(name))}
		}
		return nil, sql.DataType{}, operandTypesError(strings.ToUpper(name), args, "CHARACTER")
	}
	return args, sql.String(), nil
}

// evalConvertTz is DateTimeUtils.convertTz: s read as SimpleDateFormat
// "yyyy-MM-dd HH:mm:ss" (lenient, a prefix) in zone from, written in zone
// to; NULL when s does not parse. Zones are java.util.TimeZone's: an
// unknown one is GMT (javaTimeZone).
func evalConvertTz(_ *Call, args []Eval) (Eval, error) {
	pat, err := getSimplePattern("yyyy-MM-dd HH:mm:ss")
	if err != nil {
		return nil, err
	}
	return strict(args, func(vs []any) (any, error) {
		tm, ok := pat.parse(vs[0].(string), time.Now())
		if !ok {
			return nil, nil
		}
		ms := UTCMillis(tm.UnixMilli(), javaTimeZone(vs[1].(string)))
		local := LocalMillis(ms, javaTimeZone(vs[2].(string)))
		return pat.format(time.UnixMilli(local).UTC()), nil
	}), nil
}

// javaShortZones are java.util.TimeZone's three-letter IDs (ZoneInfoFile's
// old mappings): EST, MST and HST fixed offsets, the others regions.
var javaShortZones = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
	"CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
	"EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}

var javaFixedShort = map[string]int{"EST": -5 * 3600, "MST": -7 * 3600, "HST": -10 * 3600}

// javaTimeZone is java.util.TimeZone.getTimeZone(id): a region ID, a
// short ID, a custom GMT[+-]h[h][[:]mm] offset, or GMT for anything else.
func javaTimeZone(id string) *time.Location {
	if off, ok := javaFixedShort[id]; ok {
		return time.FixedZone(id, off)
	}
	if r, ok := javaShortZones[id]; ok {
		id = r
	}
	if rest, ok := strings.CutPrefix(id, "GMT"); ok && len(rest) > 1 && (rest[0] == '+' || rest[0] == '-') {
		h, m, ok := javaCustomOffset(rest[1:])
		if !ok {
			return time.UTC
		}
		off := h*3600 + m*60
		if rest[0] == '-' {
			off = -off
		}
		return time.FixedZone(id, off)
	}
	if id == "" || id == "Local" || strings.HasPrefix(id, "/") || strings.Contains(id, "..") {
		return time.UTC
	}
	loc, err := time.LoadLocation(id)
	if err != nil {
		return time.UTC
	}
	return loc
}

// javaCustomOffset reads the hh[[:]mm] of a custom zone ID (TimeZone
// .parseCustomTimeZone: hours 0-23, minutes 0-59).
func javaCustomOffset(s string) (h, m int, ok bool) {
	hs, ms, colon := strings.Cut(s, ":")
	if !colon {
		switch len(s) {
		case 1, 2:
			hs, ms = s, "0"
		case 3, 4:
			hs, ms = s[:len(s)-2], s[len(s)-2:]
		default:
			return 0, 0, false
		}
	} else if len(ms) != 2 {
		return 0, 0, false
	}
	if len(hs) == 0 || len(hs) > 2 {
		return 0, 0, false
	}
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if err1 != nil || err2 != nil || h > 23 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// currentDatabase is a CURRENT_DATABASE() call bound to the session's
// database (WithCurrentDatabase); a call without one fails to compile.
type currentDatabase struct{ name string }

// WithCurrentDatabase returns e with every CURRENT_DATABASE() call bound
// to db, the session's current database when the statement is planned
// (Flink reads the catalog manager's at planning too). e is not changed.
func WithCurrentDatabase(e Expr, db string) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if c.Op == "CURRENT_DATABASE" {
		out := *c
		out.ctx = &currentDatabase{name: db}
		return &out
	}
	return c.MapArgs(func(a Expr) Expr { return WithCurrentDatabase(a, db) })
}

func evalCurrentDatabase(c *Call, _ []Eval) (Eval, error) {
	d, ok := c.ctx.(*currentDatabase)
	if !ok {
		return nil, sql.Errorf(sql.TableException, "CURRENT_DATABASE() is not bound to a session's database")
	}
	v := d.name
	return func([]any) (any, error) { return v, nil }, nil
}

// CurrentWatermarkSignatures are the signatures CURRENT_WATERMARK's
// errors list (CurrentWatermarkInputTypeStrategy).
const CurrentWatermarkSignatures = "CURRENT_WATERMARK(<TIMESTAMP_WITHOUT_TIME_ZONE *ROWTIME*>)\nCURRENT_WATERMARK(<TIMESTAMP_WITH_LOCAL_TIME_ZONE *ROWTIME*>)"

// inferCurrentWatermark types CURRENT_WATERMARK(x) as
// CurrentWatermarkTypeStrategy: the rowtime's kind of timestamp at
// precision 3, nullable. That x is a rowtime attribute the binder checks
// (CheckCurrentWatermark), which knows the attributes.
func inferCurrentWatermark(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 1 {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = "<" + CalciteTypeName(a.Type()) + ">"
		}
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"No match found for function signature %s(%s).\nSupported signatures are:\n%s", name, strings.Join(ts, ", "), CurrentWatermarkSignatures)}
	}
	t := args[0].Type()
	switch t.Root {
	case sql.TypeTimestamp:
		return args, sql.Timestamp(3), nil
	case sql.TypeTimestampLTZ:
		return args, sql.TimestampLTZ(3), nil
	}
	return nil, sql.DataType{}, invalidCallCause(strings.ToUpper(name), args, fmt.Sprintf(
		"CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but '%s' cannot be a time attribute.", t))
}

// CurrentWatermarkNotRowtime is the error of CURRENT_WATERMARK(x) where x
// is a TIMESTAMP or TIMESTAMP_LTZ but no rowtime attribute.
func CurrentWatermarkNotRowtime(name string, arg Expr) error {
	return invalidCallCause(strings.ToUpper(name), []Expr{arg}, fmt.Sprintf(
		"The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was '%s'.", arg.Type()))
}

// watermarkRead is CURRENT_WATERMARK bound to its operator's watermark.
type watermarkRead struct {
	wm func() int64
	T  sql.DataType
}

func (e *watermarkRead) Type() sql.DataType { return e.T }

// ReadsWatermark reports whether one of es calls CURRENT_WATERMARK.
func ReadsWatermark(es ...Expr) bool {
	for _, e := range es {
		if c, ok := e.(*Call); ok && (c.Op == "CURRENT_WATERMARK" || ReadsWatermark(c.Args...)) {
			return true
		}
	}
	return false
}

// WithWatermark returns e with every CURRENT_WATERMARK(x) reading wm, the
// current input watermark of the operator evaluating it (Flink's code
// generator reads ctx.timerService().currentWatermark()): NULL while it is
// Long.MIN_VALUE (none yet), else that instant at precision 3.
func WithWatermark(e Expr, wm func() int64) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if c.Op == "CURRENT_WATERMARK" {
		return &watermarkRead{wm: wm, T: c.T}
	}
	return c.MapArgs(func(a Expr) Expr { return WithWatermark(a, wm) })
}

func compileWatermarkRead(x *watermarkRead) Eval {
	wm := x.wm
	return func([]any) (any, error) {
		w := wm()
		if w == minWatermark {
			return nil, nil
		}
		return sql.TimestampData{Millis: w}, nil
	}
}

const minWatermark = -1 << 63

// evalCurrentWatermark is CURRENT_WATERMARK where no operator binds its
// watermark (WithWatermark): only a Calc does, so sqlrun refuses the call
// elsewhere (a join condition, an aggregate's argument) rather than give
// a NULL that is no operator's watermark.
func evalCurrentWatermark(*Call, []Eval) (Eval, error) {
	return nil, sql.Errorf(sql.TableException, "sqlrun evaluates CURRENT_WATERMARK only in a projection or filter (a Calc); this call is elsewhere in the plan")
}
