package datagen

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// Flink's defaults (RandomGeneratorVisitor).
const (
	randomStringLength     = 100 // RANDOM_STRING_LENGTH_DEFAULT, for STRING
	randomBytesLength      = 100 // RANDOM_BYTES_LENGTH_DEFAULT, for BYTES
	randomCollectionLength = 3   // RANDOM_COLLECTION_LENGTH_DEFAULT, for ARRAY and MAP
)

// fieldOptions reads a table's fields.<path>.<option> keys and records the
// ones a generator consumed, so that the factory can reject the rest as
// Flink's validateUnconsumedKeys does.
type fieldOptions struct {
	all      map[string]string
	consumed map[string]bool
}

// get consumes fields.<path>.<opt> and returns its key and trimmed value.
func (o *fieldOptions) get(path, opt string) (key, value string, ok bool) {
	key = "fields." + path + "." + opt
	o.consumed[key] = true
	v, ok := o.all[key]
	return key, strings.TrimSpace(v), ok
}

// peek reads fields.<path>.<opt> without consuming it.
func (o *fieldOptions) peek(path, opt string) (key, value string, ok bool) {
	key = "fields." + path + "." + opt
	v, ok := o.all[key]
	return key, strings.TrimSpace(v), ok
}

func parseError(key, v string) error {
	return sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key '%s'.", v, key)
}

// field generates one column's values, or one nested element's (an ARRAY
// element, a MAP key or value, a ROW member). It is read-only once built:
// the readers of all subtasks share it.
type field struct {
	path string // the column name, or "col.element", "col.key", "col.value", "col.<member>"
	typ  sql.DataType
	seed uint64

	sequence   bool
	start, end int64

	// TINYINT..BIGINT, max-past milliseconds and DECIMAL's unscaled values
	// are uniform over [lo, lo+span]; span MaxUint64 is the whole 64-bit
	// range. A DECIMAL whose unscaled bounds do not fit 64 bits is uniform
	// over [bigLo, bigLo+bigN) instead.
	lo             int64
	span           uint64
	bigLo, bigN    *big.Int
	fmin, fmax     float64 // FLOAT and DOUBLE, uniform over [fmin, fmax]
	length         int     // characters, bytes or collection entries
	varLen         bool
	nullBelow      uint64 // a value is NULL when its hash>>11 is below this: null-rate * 2^53
	elem, mapValue *field // ARRAY element and MAP key; MAP value
	members        []*field
}

// newColumn builds column i's generator from its fields.<name>.* options.
func newColumn(i int, c sql.Column, o *fieldOptions) (*field, error) {
	_, kind, _ := o.get(c.Name, "kind")
	seed := uint64(i+1) * 0x9E3779B97F4A7C15
	switch strings.ToLower(kind) {
	case "", "random":
		if err := checkLengthOptions(c.Name, c.Type, o); err != nil {
			return nil, err
		}
		return newRandom(c.Name, c.Type, seed, o)
	case "sequence":
		return newSequence(c.Name, c.Type, o)
	}
	return nil, sql.Errorf(sql.ValidationException, "Unsupported generator kind: %s", kind)
}

// checkLengthOptions is Flink's DataGenTableSourceFactory.validateFieldOptions
// for a random column: var-len only for variable-length types, no custom
// length for CHAR/BINARY, and no longer than the declared VARCHAR/VARBINARY.
func checkLengthOptions(name string, t sql.DataType, o *fieldOptions) error {
	variable := t.Root == sql.TypeVarChar || t.Root == sql.TypeVarBinary
	if key, v, ok := o.peek(name, "var-len"); ok {
		b, err := parseBool(key, v)
		if err != nil {
			return err
		}
		if b && !variable {
			return sql.Errorf(sql.ValidationException,
				"Only supports specifying 'fields.#.var-len' option for variable-length types (VARCHAR/STRING/VARBINARY/BYTES). The type of field '%s' is not within this range.", name)
		}
	}
	if key, v, ok := o.peek(name, "length"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return parseError(key, v)
		}
		if t.Root == sql.TypeChar || t.Root == sql.TypeBinary {
			return sql.Errorf(sql.ValidationException,
				"Custom length for fixed-length type (CHAR/BINARY) field '%s' is not supported.", name)
		}
		if variable && n > int64(t.Length) {
			return sql.Errorf(sql.ValidationException,
				"Custom length '%d' for variable-length type (VARCHAR/STRING/VARBINARY/BYTES) field '%s' should be shorter than '%d' defined in the schema.",
				n, name, t.Length)
		}
	}
	return nil
}

// newRandom is Flink's RandomGeneratorVisitor: each type reads (and so
// accepts) exactly the options Flink's visitor declares for it.
func newRandom(path string, t sql.DataType, seed uint64, o *fieldOptions) (*field, error) {
	f := &field{path: path, typ: t, seed: seed}
	var err error
	nullRate := true
	switch t.Root {
	case sql.TypeBoolean:
	case sql.TypeChar:
		f.length = t.Length
	case sql.TypeVarChar, sql.TypeVarBinary:
		def := randomStringLength
		if t.Root == sql.TypeVarBinary {
			def, nullRate = randomBytesLength, false // Flink's bytes generator has no null-rate
		}
		if t.Length != sql.MaxLength {
			def = t.Length
		}
		if f.length, err = lengthOption(o, path, def); err != nil {
			return nil, err
		}
		if f.varLen, err = boolOption(o, path, "var-len"); err != nil {
			return nil, err
		}
	case sql.TypeBinary:
		f.length, nullRate = t.Length, false
	case sql.TypeTinyInt:
		err = f.intBounds(o, math.MinInt8, math.MaxInt8, 32)
	case sql.TypeSmallInt:
		err = f.intBounds(o, math.MinInt16, math.MaxInt16, 32)
	case sql.TypeInt:
		err = f.intBounds(o, math.MinInt32, math.MaxInt32, 32)
	case sql.TypeBigInt:
		err = f.intBounds(o, math.MinInt64, math.MaxInt64, 64)
	case sql.TypeIntervalYearMonth:
		// RandomGeneratorVisitor: months between min (default 0) and max
		// (default 120000, "Period max").
		err = f.intBoundsDefault(o, math.MinInt32, math.MaxInt32, 0, 120000, 32)
	case sql.TypeIntervalDayTime:
		// RandomGeneratorVisitor: milliseconds over the whole long range.
		err = f.intBounds(o, math.MinInt64, math.MaxInt64, 64)
	case sql.TypeFloat:
		err = f.floatBounds(o, math.SmallestNonzeroFloat32, math.MaxFloat32, 32)
	case sql.TypeDouble:
		err = f.floatBounds(o, math.SmallestNonzeroFloat64, math.MaxFloat64, 64)
	case sql.TypeDecimal:
		err = f.decimalBounds(o)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		key, v, ok := o.get(path, "max-past")
		if ok {
			d, perr := connectors.ParseDuration(v)
			if perr != nil {
				return nil, parseError(key, v)
			}
			f.span = uint64(d.Milliseconds())
		}
	case sql.TypeDate, sql.TypeTime:
		nullRate = false // DataGenVisitorBase: always now, no options
	case sql.TypeArray:
		if f.length, err = lengthOption(o, path, randomCollectionLength); err != nil {
			return nil, err
		}
		if f.elem, err = newRandom(path+".element", *t.Elem, mix(seed^1), o); err != nil {
			return nil, err
		}
	case sql.TypeMap:
		if f.length, err = lengthOption(o, path, randomCollectionLength); err != nil {
			return nil, err
		}
		if f.elem, err = newRandom(path+".key", *t.Elem, mix(seed^1), o); err != nil {
			return nil, err
		}
		if f.mapValue, err = newRandom(path+".value", *t.Value, mix(seed^2), o); err != nil {
			return nil, err
		}
	case sql.TypeRow:
		for k, m := range t.Fields {
			g, err := newRandom(path+"."+m.Name, m.Type, mix(seed^uint64(k+3)), o)
			if err != nil {
				return nil, err
			}
			f.members = append(f.members, g)
		}
	default:
		return nil, sql.Errorf(sql.ValidationException, "Unsupported type: %s", t)
	}
	if err != nil {
		return nil, err
	}
	if nullRate {
		key, v, ok := o.get(path, "null-rate")
		if ok {
			r, perr := strconv.ParseFloat(v, 32)
			if perr != nil || math.IsNaN(r) {
				return nil, parseError(key, v)
			}
			switch {
			case r >= 1:
				f.nullBelow = 1 << 53
			case r > 0:
				f.nullBelow = uint64(r * (1 << 53))
			}
		}
	}
	return f, nil
}

func lengthOption(o *fieldOptions, path string, def int) (int, error) {
	key, v, ok := o.get(path, "length")
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 {
		return 0, parseError(key, v)
	}
	return int(n), nil
}

func boolOption(o *fieldOptions, path, opt string) (bool, error) {
	key, v, ok := o.get(path, opt)
	if !ok {
		return false, nil
	}
	return parseBool(key, v)
}

// parseBool accepts what Flink's boolean options accept: true or false, in
// any case.
func parseBool(key, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, parseError(key, v)
}

// boundsError reports min > max. Flink fails only when the job runs
// (commons-math's "lower bound must be strictly less than upper bound");
// sqlrun rejects the table up front, and accepts min = max (a constant).
func boundsError(minKey, minV, maxKey, maxV string) error {
	return sql.Errorf(sql.ValidationException, "%s (%s) is greater than %s (%s)", minKey, minV, maxKey, maxV)
}

// intBounds reads min and max of an integer type; bitSize is the width of
// Flink's option type (int for TINYINT..INT, long for BIGINT).
func (f *field) intBounds(o *fieldOptions, lo, hi int64, bitSize int) error {
	return f.intBoundsDefault(o, lo, hi, lo, hi, bitSize)
}

// intBoundsDefault is intBounds with defaults other than the type's range.
func (f *field) intBoundsDefault(o *fieldOptions, lo, hi, defLo, defHi int64, bitSize int) error {
	vals := [2]int64{defLo, defHi}
	var keys, texts [2]string
	for i, opt := range []string{"min", "max"} {
		key, v, ok := o.get(f.path, opt)
		keys[i], texts[i] = key, strconv.FormatInt(vals[i], 10)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, bitSize)
		if err != nil {
			return parseError(key, v)
		}
		if n < lo || n > hi {
			return sql.Errorf(sql.ValidationException, "%s (%d) is out of the range of %s [%d, %d]", key, n, f.typ, lo, hi)
		}
		vals[i], texts[i] = n, v
	}
	if vals[0] > vals[1] {
		return boundsError(keys[0], texts[0], keys[1], texts[1])
	}
	f.lo, f.span = vals[0], uint64(vals[1])-uint64(vals[0])
	return nil
}

// javaDefaults spell the default bounds of FLOAT (32) and DOUBLE (64) as
// Java prints Float/Double.MIN_VALUE and MAX_VALUE, for messages.
var javaDefaults = map[int][2]string{32: {"1.4E-45", "3.4028235E38"}, 64: {"4.9E-324", "1.7976931348623157E308"}}

// floatBounds reads min and max of FLOAT (bitSize 32) or DOUBLE. Flink's
// defaults are Float/Double.MIN_VALUE (the smallest positive value) and
// MAX_VALUE, so default values are positive.
func (f *field) floatBounds(o *fieldOptions, lo, hi float64, bitSize int) error {
	vals := [2]float64{lo, hi}
	var keys, texts [2]string
	for i, opt := range []string{"min", "max"} {
		key, v, ok := o.get(f.path, opt)
		keys[i], texts[i] = key, javaDefaults[bitSize][i]
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, bitSize)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return parseError(key, v)
		}
		vals[i], texts[i] = x, v
	}
	if vals[0] > vals[1] {
		return boundsError(keys[0], texts[0], keys[1], texts[1])
	}
	f.fmin, f.fmax = vals[0], vals[1]
	return nil
}

// decimalBounds reads min and max of DECIMAL(p, s). As Flink's
// DecimalDataRandomGenerator, the defaults are Double.MIN_VALUE and
// MAX_VALUE and both are clamped to ±(10^(p-s) - 10^-s); values are then
// uniform over the multiples of 10^-s within the bounds.
func (f *field) decimalBounds(o *fieldOptions) error {
	p, s := int32(f.typ.Precision), int32(f.typ.Scale)
	largest := decimal.New(1, p-s).Sub(decimal.New(1, -s))
	vals := [2]decimal.Decimal{decimal.New(49, -325), decimal.NewFromFloat(math.MaxFloat64)}
	var keys, texts [2]string
	for i, opt := range []string{"min", "max"} {
		key, v, ok := o.get(f.path, opt)
		keys[i], texts[i] = key, javaDefaults[64][i]
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, 64) // Flink's option type is double
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return parseError(key, v)
		}
		d, err := decimal.NewFromString(v) // exact, where the text allows
		if err != nil {
			d = decimal.NewFromFloat(x)
		}
		vals[i], texts[i] = d, v
	}
	if vals[0].GreaterThan(vals[1]) {
		return boundsError(keys[0], texts[0], keys[1], texts[1])
	}
	lo := decimal.Max(vals[0], largest.Neg()).Shift(s).Ceil().BigInt()
	hi := decimal.Min(vals[1], largest).Shift(s).Floor().BigInt()
	if lo.Cmp(hi) > 0 {
		return sql.Errorf(sql.ValidationException, "No %s value lies between %s (%s) and %s (%s)",
			f.typ, keys[0], texts[0], keys[1], texts[1])
	}
	if lo.IsInt64() && hi.IsInt64() {
		f.lo, f.span = lo.Int64(), uint64(hi.Int64())-uint64(lo.Int64())
		return nil
	}
	f.bigLo = lo
	f.bigN = new(big.Int).Sub(hi, lo)
	f.bigN.Add(f.bigN, big.NewInt(1))
	return nil
}

func newSequence(path string, t sql.DataType, o *fieldOptions) (*field, error) {
	f := &field{path: path, typ: t, sequence: true}
	switch t.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble,
		sql.TypeDecimal, sql.TypeChar, sql.TypeVarChar:
	default:
		return nil, sql.Errorf(sql.ValidationException, "Unsupported type: %s", t)
	}
	for _, opt := range []string{"start", "end"} {
		key, v, ok := o.get(path, opt)
		if !ok {
			return nil, sql.Errorf(sql.ValidationException,
				"Could not find required property '%s' for sequence generator.", key)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, parseError(key, v)
		}
		if opt == "start" {
			f.start = n
		} else {
			f.end = n
		}
	}
	if f.end < f.start {
		return nil, sql.Errorf(sql.ValidationException, "fields.%s.end (%d) is smaller than fields.%s.start (%d)", path, f.end, path, f.start)
	}
	return f, nil
}

// clock is "now" for DATE, TIME and TIMESTAMP columns, as Flink reads it:
// epoch milliseconds for TIMESTAMP (TimestampData.fromEpochMillis), the
// local date and local time of day for DATE and TIME (LocalDate.now(),
// LocalTime.now()).
type clock struct {
	millis int64
	date   int32 // days since 1970-01-01
	time   int32 // milliseconds of the day
}

func clockAt(t time.Time) clock {
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return clock{
		millis: t.UnixMilli(),
		date:   int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400),
		time:   int32(((h*60+mi)*60+s)*1000 + t.Nanosecond()/1e6),
	}
}

// mix is splitmix64's finalizer with its increment: a 64-bit hash whose
// outputs for consecutive inputs are independent-looking.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// Salts that derive independent hashes from a value's hash.
const (
	valueSalt  = 0xD6E8FEB86659FD93 // the value, when the null decision used the first hash
	lengthSalt = 0xA0761D6478BD642F // var-len's length
	streamStep = 0xE7037ED1A0B428DB // successive 64-bit words of a string or byte array
)

// draw returns the hash for the value of key u (the row index, or for a
// nested element its parent's hash plus its position) and whether the
// value is NULL under null-rate.
func (f *field) draw(u uint64) (uint64, bool) {
	h := mix(u ^ f.seed)
	if f.nullBelow == 0 {
		return h, false
	}
	if h>>11 < f.nullBelow {
		return 0, true
	}
	return mix(h ^ valueSalt), false
}

// randInt maps h uniformly onto [f.lo, f.lo+f.span] with a 128-bit
// multiply (Lemire), which neither overflows nor needs a division; its
// bias is below span/2^64.
func (f *field) randInt(h uint64) int64 {
	if f.span == math.MaxUint64 {
		return int64(h)
	}
	off, _ := bits.Mul64(h, f.span+1)
	return f.lo + int64(off) // wraps correctly: the sum lies in [lo, lo+span]
}

// randFloat maps h onto [f.fmin, f.fmax]: u*max + (1-u)*min stays finite
// for any finite bounds, where min + u*(max-min) overflows when the range
// is wider than MaxFloat64 (e.g. -MaxFloat64..MaxFloat64).
func (f *field) randFloat(h uint64) float64 {
	u := float64(h>>11) * 0x1p-53
	v := u*f.fmax + (1-u)*f.fmin
	return min(max(v, f.fmin), f.fmax)
}

func (f *field) randFloat32(h uint64) float32 {
	return min(max(float32(f.randFloat(h)), float32(f.fmin)), float32(f.fmax))
}

func (f *field) randDecimal(h uint64) decimal.Decimal {
	exp := -int32(f.typ.Scale)
	if f.bigN == nil {
		return decimal.New(f.randInt(h), exp)
	}
	// 192 random bits reduced modulo the count of values (at most 10^38 <
	// 2^127): the modulo bias is below 2^-65.
	var b [24]byte
	binary.BigEndian.PutUint64(b[0:], h)
	binary.BigEndian.PutUint64(b[8:], mix(h+streamStep))
	binary.BigEndian.PutUint64(b[16:], mix(h+streamStep+streamStep))
	r := new(big.Int).SetBytes(b[:])
	r.Mod(r, f.bigN)
	r.Add(r, f.bigLo)
	return decimal.NewFromBigInt(r, exp)
}

// randLength is the length of a string or byte array: the configured
// length, or with var-len Flink's ThreadLocalRandom.nextInt(1, length),
// uniform over [1, length). A length of 1 stays 1 (Flink would fail).
func (f *field) randLength(h uint64) int {
	n := f.length
	if f.varLen && n > 1 {
		off, _ := bits.Mul64(mix(h^lengthSalt), uint64(n-1))
		n = 1 + int(off)
	}
	return n
}

const hexDigits = "0123456789abcdef"

// hexPairs[b] is byte b as two hex digits, low nibble first (as the
// digit-by-digit loop for a string's tail takes them).
var hexPairs = func() (t [256][2]byte) {
	for b := range t {
		t[b] = [2]byte{hexDigits[b&15], hexDigits[b>>4]}
	}
	return t
}()

// randHex is Flink's RandomDataGenerator.nextHexString: lowercase hex
// digits, every one drawn from 4 fresh random bits (16 digits per 64-bit
// word, two per table lookup). The string comes boxed, its header and
// bytes in one allocation (see boxString).
func (f *field) randHex(h uint64) any {
	n := f.randLength(h)
	if n == 0 {
		return ""
	}
	v, b := boxString(n)
	for i := 0; i < n; i += 16 {
		x := mix(h + uint64(i/16+1)*streamStep)
		if i+16 <= n {
			w := b[i : i+16 : i+16]
			for j := 0; j < 16; j += 2 {
				p := hexPairs[x&0xff]
				w[j], w[j+1] = p[0], p[1]
				x >>= 8
			}
			continue
		}
		for j := i; j < n; j++ {
			b[j] = hexDigits[x&15]
			x >>= 4
		}
	}
	return v
}

func (f *field) randBytes(h uint64) []byte {
	b := make([]byte, f.randLength(h))
	for i := 0; i < len(b); i += 8 {
		x := mix(h + uint64(i/8+1)*streamStep)
		if i+8 <= len(b) {
			binary.LittleEndian.PutUint64(b[i:], x)
			continue
		}
		for j := i; j < len(b); j++ {
			b[j] = byte(x)
			x >>= 8
		}
	}
	return b
}

// value is the random value of key u, boxed; fill has faster paths for
// top-level columns.
func (f *field) value(u uint64, now *clock) any {
	h, null := f.draw(u)
	if null {
		return nil
	}
	switch f.typ.Root {
	case sql.TypeBoolean:
		return h>>63 == 0
	case sql.TypeTinyInt:
		return int8(f.randInt(h))
	case sql.TypeSmallInt:
		return int16(f.randInt(h))
	case sql.TypeInt, sql.TypeIntervalYearMonth:
		return int32(f.randInt(h))
	case sql.TypeBigInt, sql.TypeIntervalDayTime:
		return f.randInt(h)
	case sql.TypeFloat:
		return f.randFloat32(h)
	case sql.TypeDouble:
		return f.randFloat(h)
	case sql.TypeDecimal:
		return f.randDecimal(h)
	case sql.TypeChar, sql.TypeVarChar:
		return f.randHex(h)
	case sql.TypeBinary, sql.TypeVarBinary:
		return f.randBytes(h)
	case sql.TypeDate:
		return now.date
	case sql.TypeTime:
		return now.time
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return f.randTimestamp(h, now)
	case sql.TypeArray:
		a := make([]any, f.length)
		for j := range a {
			a[j] = f.elem.value(h+uint64(j), now)
		}
		return a
	case sql.TypeMap:
		// As Flink's mapGenerator (a HashMap filled length times), a
		// repeated key keeps one entry, with the later value.
		m := &sql.Map{Keys: make([]any, 0, f.length), Values: make([]any, 0, f.length)}
	entries:
		for j := 0; j < f.length; j++ {
			k, v := f.elem.value(h+uint64(j), now), f.mapValue.value(h+uint64(j), now)
			for e, old := range m.Keys {
				if reflect.DeepEqual(old, k) {
					m.Values[e] = v
					continue entries
				}
			}
			m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
		}
		return m
	case sql.TypeRow:
		r := make([]any, len(f.members))
		for j, m := range f.members {
			r[j] = m.value(h, now)
		}
		return r
	}
	return nil
}

// randTimestamp is Flink's random past timestamp: now minus a uniform
// number of milliseconds in [0, max-past], at millisecond precision.
func (f *field) randTimestamp(h uint64, now *clock) sql.TimestampData {
	past := int64(0)
	if f.span > 0 {
		off, _ := bits.Mul64(h, f.span+1)
		past = int64(off)
	}
	return sql.TimestampData{Millis: now.millis - past}
}

func (f *field) seqValue(v int64) any {
	switch f.typ.Root {
	case sql.TypeTinyInt:
		return int8(v)
	case sql.TypeSmallInt:
		return int16(v)
	case sql.TypeInt:
		return int32(v)
	case sql.TypeBigInt:
		return v
	case sql.TypeFloat:
		return float32(v)
	case sql.TypeDouble:
		return float64(v)
	case sql.TypeDecimal:
		return decimal.NewFromInt(v).Round(int32(f.typ.Scale))
	}
	return strconv.FormatInt(v, 10)
}

// fill writes n values of this column into dst[0], dst[stride], ... for
// the row indexes first, first+step, ... dst must be all nil (a fresh
// batch): NULLs are left unwritten. Fixed-size values are boxed from one
// typed slice per batch (see box.go).
func (f *field) fill(dst []any, stride, n int, first, step int64, now *clock) {
	at := func(k int) int64 { return first + int64(k)*step }
	if f.sequence {
		switch f.typ.Root {
		case sql.TypeTinyInt:
			fillBoxed(dst, stride, n, int8Type, func(k int) (int8, bool) { return int8(f.start + at(k)), true })
		case sql.TypeSmallInt:
			fillBoxed(dst, stride, n, int16Type, func(k int) (int16, bool) { return int16(f.start + at(k)), true })
		case sql.TypeInt:
			fillBoxed(dst, stride, n, int32Type, func(k int) (int32, bool) { return int32(f.start + at(k)), true })
		case sql.TypeBigInt:
			fillBoxed(dst, stride, n, int64Type, func(k int) (int64, bool) { return f.start + at(k), true })
		default:
			for k := 0; k < n; k++ {
				dst[k*stride] = f.seqValue(f.start + at(k))
			}
		}
		return
	}
	switch f.typ.Root {
	case sql.TypeTinyInt:
		fillBoxed(dst, stride, n, int8Type, func(k int) (int8, bool) {
			h, null := f.draw(uint64(at(k)))
			return int8(f.randInt(h)), !null
		})
	case sql.TypeSmallInt:
		fillBoxed(dst, stride, n, int16Type, func(k int) (int16, bool) {
			h, null := f.draw(uint64(at(k)))
			return int16(f.randInt(h)), !null
		})
	case sql.TypeInt:
		fillBoxed(dst, stride, n, int32Type, func(k int) (int32, bool) {
			h, null := f.draw(uint64(at(k)))
			return int32(f.randInt(h)), !null
		})
	case sql.TypeBigInt:
		fillBoxed(dst, stride, n, int64Type, func(k int) (int64, bool) {
			h, null := f.draw(uint64(at(k)))
			return f.randInt(h), !null
		})
	case sql.TypeFloat:
		fillBoxed(dst, stride, n, float32Type, func(k int) (float32, bool) {
			h, null := f.draw(uint64(at(k)))
			return f.randFloat32(h), !null
		})
	case sql.TypeDouble:
		fillBoxed(dst, stride, n, float64Type, func(k int) (float64, bool) {
			h, null := f.draw(uint64(at(k)))
			return f.randFloat(h), !null
		})
	case sql.TypeDecimal:
		fillBoxed(dst, stride, n, decimalType, func(k int) (decimal.Decimal, bool) {
			h, null := f.draw(uint64(at(k)))
			if null {
				return decimal.Decimal{}, false
			}
			return f.randDecimal(h), true
		})
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		fillBoxed(dst, stride, n, timestampType, func(k int) (sql.TimestampData, bool) {
			h, null := f.draw(uint64(at(k)))
			return f.randTimestamp(h, now), !null
		})
	case sql.TypeChar, sql.TypeVarChar:
		for k := 0; k < n; k++ {
			if h, null := f.draw(uint64(at(k))); !null {
				dst[k*stride] = f.randHex(h)
			}
		}
	case sql.TypeDate:
		fillBoxed(dst, stride, n, int32Type, func(int) (int32, bool) { return now.date, true })
	case sql.TypeTime:
		fillBoxed(dst, stride, n, int32Type, func(int) (int32, bool) { return now.time, true })
	default:
		for k := 0; k < n; k++ {
			dst[k*stride] = f.value(uint64(at(k)), now)
		}
	}
}

// fillBoxed boxes gen's values for the n rows into dst[k*stride] from one
// []T; a false ok leaves that row's value NULL.
func fillBoxed[T any](dst []any, stride, n int, typ unsafe.Pointer, gen func(k int) (T, bool)) {
	vals := make([]T, n)
	for k := range vals {
		v, ok := gen(k)
		if !ok {
			continue
		}
		vals[k] = v
		box.Set(&dst[k*stride], typ, unsafe.Pointer(&vals[k]))
	}
}
