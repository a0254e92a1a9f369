// Package datagen is Flink's 'datagen' connector: an insert-only source of
// generated rows, with per-field random or sequence generators.
//
// Every value is a pure function of the row's index (a sequence is
// start+index; a random value comes from a hash of the field and the
// index), so the reader's only state is its next index: a restored job
// continues exactly where the checkpoint left off and a re-run produces the
// same rows. Subtask s of p generates the indexes s, s+p, s+2p, ...
package datagen

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func init() { connectors.Register(Factory{}) }

// Factory creates datagen sources.
type Factory struct{}

// Identifier is "datagen".
func (Factory) Identifier() string { return "datagen" }

// Options are Flink's datagen options.
func (Factory) Options() []connectors.Option {
	return []connectors.Option{
		{Key: "rows-per-second", Default: "10000", Type: connectors.Long, Description: "Rows per second to emit (all subtasks together)."},
		{Key: "number-of-rows", Type: connectors.Long, Description: "Total number of rows to emit; unbounded when unset."},
		{Key: "scan.parallelism", Type: connectors.Int, Description: "Parallelism of the source."},
		{Key: "fields.", Prefix: true, Description: "fields.<name>.kind|min|max|max-past|length|start|end|null-rate|var-len"},
	}
}

var fieldOptions = map[string]bool{"kind": true, "min": true, "max": true, "max-past": true, "length": true,
	"start": true, "end": true, "null-rate": true, "var-len": true}

// field is one column's generator.
type field struct {
	name     string
	typ      sql.DataType
	sequence bool
	start    int64 // sequence
	end      int64
	min, max float64 // random numerics
	length   int
	varLen   bool
	nullRate float64
	maxPast  time.Duration
	seed     uint64
}

// Source is a datagen table source.
type Source struct {
	fields      []field
	rps         int64
	rows        int64 // -1: unbounded
	parallelism int
	schema      sql.Schema
}

// CreateSource validates the options against the schema and builds the
// generators.
func (Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	f := Factory{}
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	opts := connectors.NewOptions(f.Options(), ctx.Options)
	s := &Source{rps: opts.Int64("rows-per-second"), rows: -1, parallelism: opts.Int("scan.parallelism"), schema: ctx.Schema}
	if opts.Has("number-of-rows") {
		s.rows = opts.Int64("number-of-rows")
		// A negative count emits nothing and ends, as in Flink's
		// DataGeneratorSource (outputSoFar < toOutput never holds); left
		// negative it would read as -1, "unbounded", and never end.
		if s.rows < 0 {
			s.rows = 0
		}
	}
	var unsupported []string
	for k := range ctx.Options {
		if !strings.HasPrefix(k, "fields.") {
			continue
		}
		rest := strings.TrimPrefix(k, "fields.")
		i := strings.LastIndex(rest, ".")
		if i < 0 || ctx.Schema.Index(rest[:i]) < 0 || !fieldOptions[rest[i+1:]] {
			unsupported = append(unsupported, k)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return nil, sql.Errorf(sql.ValidationException,
			"Unsupported options found for 'datagen'.\n\nUnsupported options:\n\n%s", strings.Join(unsupported, "\n"))
	}
	for i, c := range ctx.Schema.Columns {
		fd, err := newField(i, c, ctx.Options)
		if err != nil {
			return nil, err
		}
		s.fields = append(s.fields, fd)
	}
	return s, nil
}

func newField(i int, c sql.Column, all map[string]string) (field, error) {
	get := func(o string) (string, bool) {
		v, ok := all["fields."+c.Name+"."+o]
		return strings.TrimSpace(v), ok
	}
	fd := field{name: c.Name, typ: c.Type, length: 100, seed: uint64(i+1) * 0x9E3779B97F4A7C15}
	kind, _ := get("kind")
	switch strings.ToLower(kind) {
	case "", "random":
	case "sequence":
		fd.sequence = true
	default:
		return fd, sql.Errorf(sql.ValidationException, "Unsupported generator kind: %s", kind)
	}
	parseNum := func(o string, dst *float64) error {
		if v, ok := get(o); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key 'fields.%s.%s'.", v, c.Name, o)
			}
			*dst = f
		}
		return nil
	}
	if fd.sequence {
		switch c.Type.Root {
		case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble,
			sql.TypeDecimal, sql.TypeChar, sql.TypeVarChar:
		default:
			return fd, sql.Errorf(sql.ValidationException, "Unsupported type: %s", c.Type)
		}
		for _, o := range []string{"start", "end"} {
			v, ok := get(o)
			if !ok {
				return fd, sql.Errorf(sql.ValidationException,
					"Could not find required property 'fields.%s.%s' for sequence generator.", c.Name, o)
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fd, sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key 'fields.%s.%s'.", v, c.Name, o)
			}
			if o == "start" {
				fd.start = n
			} else {
				fd.end = n
			}
		}
		if fd.end < fd.start {
			return fd, sql.Errorf(sql.ValidationException, "fields.%s.end (%d) is smaller than fields.%s.start (%d)", c.Name, fd.end, c.Name, fd.start)
		}
	} else {
		lo, hi := typeRange(c.Type)
		fd.min, fd.max = lo, hi
		if err := parseNum("min", &fd.min); err != nil {
			return fd, err
		}
		if err := parseNum("max", &fd.max); err != nil {
			return fd, err
		}
		if fd.max < fd.min {
			return fd, sql.Errorf(sql.ValidationException, "fields.%s.max is smaller than fields.%s.min", c.Name, c.Name)
		}
	}
	if v, ok := get("length"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fd, sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key 'fields.%s.length'.", v, c.Name)
		}
		fd.length = n
	} else if (c.Type.IsString() || c.Type.IsBinary()) && c.Type.Length < fd.length {
		fd.length = c.Type.Length
	}
	if v, ok := get("var-len"); ok {
		fd.varLen = strings.EqualFold(v, "true")
	}
	if err := parseNum("null-rate", &fd.nullRate); err != nil {
		return fd, err
	}
	if v, ok := get("max-past"); ok {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return fd, sql.Errorf(sql.ValidationException, "Could not parse value '%s' for key 'fields.%s.max-past'.", v, c.Name)
		}
		fd.maxPast = d
	}
	return fd, nil
}

func typeRange(t sql.DataType) (float64, float64) {
	switch t.Root {
	case sql.TypeTinyInt:
		return math.MinInt8, math.MaxInt8
	case sql.TypeSmallInt:
		return math.MinInt16, math.MaxInt16
	case sql.TypeInt:
		return math.MinInt32, math.MaxInt32
	case sql.TypeBigInt:
		return math.MinInt64, math.MaxInt64
	case sql.TypeFloat:
		return -math.MaxFloat32, math.MaxFloat32
	case sql.TypeDecimal:
		lim := math.Pow10(t.Precision-t.Scale) - math.Pow10(-t.Scale)
		return -lim, lim
	}
	return -math.MaxFloat64, math.MaxFloat64
}

// ChangelogMode is insert-only.
func (s *Source) ChangelogMode() sql.ChangelogMode { return sql.InsertOnly }

// Bounded is true when number-of-rows is set or a field is a sequence
// (the source ends when the first sequence ends, as Flink's datagen).
func (s *Source) Bounded() bool { return s.count() >= 0 }

// Parallelism is scan.parallelism (0 = session default).
func (s *Source) Parallelism() int { return s.parallelism }

// count is the total number of rows, -1 for unbounded.
func (s *Source) count() int64 {
	n := s.rows
	for _, f := range s.fields {
		if f.sequence {
			c := f.end - f.start + 1
			if n < 0 || c < n {
				n = c
			}
		}
	}
	return n
}

// NewReader creates subtask's reader.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	// Every field is generated: Flink's DataGenTableSource does not take
	// projections (no SupportsProjectionPushDown), so a Calc above the
	// scan drops the unread columns, as in Flink's plans.
	fields := s.fields
	rate := float64(s.rps) / float64(parallelism)
	return &Reader{fields: fields, subtask: int64(subtask), parallelism: int64(parallelism),
		total: s.count(), rate: rate}, nil
}

// Reader generates one subtask's rows. Its checkpoint state is the number
// of rows it has emitted.
type Reader struct {
	fields      []field
	subtask     int64
	parallelism int64
	total       int64
	rate        float64

	emitted  int64 // rows emitted by this subtask, all runs
	base     int64 // emitted at the start of this run, for rate limiting
	started  time.Time
	baseTime time.Time // for random timestamps
}

// Open restores the position.
func (r *Reader) Open(_ context.Context, st []byte) error {
	if len(st) > 0 {
		v, n := binary.Varint(st)
		if n <= 0 || v < 0 {
			return fmt.Errorf("datagen: corrupt restored position")
		}
		r.emitted = v
	}
	r.base = r.emitted
	r.started = time.Now()
	r.baseTime = r.started
	return nil
}

// BatchSize bounds the rows returned by one Next.
const BatchSize = 1024

// Next generates the next batch, within the rate limit.
func (r *Reader) Next(ctx context.Context) ([]sql.Row, error) {
	n := int64(BatchSize)
	if r.total >= 0 {
		// index of this subtask's k-th row is subtask + k*parallelism
		mine := (r.total - r.subtask + r.parallelism - 1) / r.parallelism
		if r.total <= r.subtask {
			mine = 0
		}
		if r.emitted >= mine {
			return nil, io.EOF
		}
		n = min(n, mine-r.emitted)
	}
	if r.rate > 0 {
		allowed := int64(time.Since(r.started).Seconds()*r.rate) + 1 - (r.emitted - r.base)
		if allowed <= 0 {
			wait := time.Duration(float64(time.Second) / r.rate)
			select {
			case <-time.After(min(wait, 20*time.Millisecond)):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, nil
		}
		n = min(n, allowed)
	}
	rows := make([]sql.Row, n)
	nf := len(r.fields)
	backing := make([]any, int(n)*nf)
	first := r.subtask + r.emitted*r.parallelism
	for i := range r.fields {
		r.fields[i].fill(backing[i:], nf, int(n), first, r.parallelism, r.baseTime)
	}
	for k := range rows {
		rows[k] = sql.Row{Kind: sql.Insert, Values: backing[k*nf : (k+1)*nf : (k+1)*nf]}
	}
	r.emitted += n
	return rows, nil
}

// Snapshot stores the number of rows emitted.
func (r *Reader) Snapshot(int64) ([]byte, error) { return binary.AppendVarint(nil, r.emitted), nil }

// NotifyCheckpointComplete does nothing.
func (r *Reader) NotifyCheckpointComplete(context.Context, int64) error { return nil }

// Close does nothing.
func (r *Reader) Close() error { return nil }

// mix is splitmix64: a good 64-bit hash of the row index and field seed.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// fill writes n values of this field into dst[0], dst[stride], ... for the
// row indexes first, first+step, ... Integer and float columns are boxed
// from one typed slice per batch (see box.go).
func (f *field) fill(dst []any, stride, n int, first, step int64, base time.Time) {
	numeric := f.nullRate == 0
	switch f.typ.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble:
	default:
		numeric = false
	}
	if !numeric {
		for k := 0; k < n; k++ {
			dst[k*stride] = f.value(first+int64(k)*step, base)
		}
		return
	}
	switch f.typ.Root {
	case sql.TypeTinyInt:
		vals := make([]int8, n)
		for k := range vals {
			vals[k] = f.value(first+int64(k)*step, base).(int8)
			box(&dst[k*stride], int8Type, unsafe.Pointer(&vals[k]))
		}
	case sql.TypeSmallInt:
		vals := make([]int16, n)
		for k := range vals {
			vals[k] = f.value(first+int64(k)*step, base).(int16)
			box(&dst[k*stride], int16Type, unsafe.Pointer(&vals[k]))
		}
	case sql.TypeInt:
		vals := make([]int32, n)
		for k := range vals {
			vals[k] = int32(f.intValue(first + int64(k)*step))
			box(&dst[k*stride], int32Type, unsafe.Pointer(&vals[k]))
		}
	case sql.TypeBigInt:
		vals := make([]int64, n)
		for k := range vals {
			vals[k] = f.intValue(first + int64(k)*step)
			box(&dst[k*stride], int64Type, unsafe.Pointer(&vals[k]))
		}
	case sql.TypeFloat:
		vals := make([]float32, n)
		for k := range vals {
			vals[k] = f.value(first+int64(k)*step, base).(float32)
			box(&dst[k*stride], float32Type, unsafe.Pointer(&vals[k]))
		}
	case sql.TypeDouble:
		vals := make([]float64, n)
		for k := range vals {
			vals[k] = f.value(first+int64(k)*step, base).(float64)
			box(&dst[k*stride], float64Type, unsafe.Pointer(&vals[k]))
		}
	}
}

// intValue is value for INT and BIGINT without boxing (null-rate 0).
func (f *field) intValue(idx int64) int64 {
	if f.sequence {
		return f.start + idx
	}
	h := mix(uint64(idx) ^ f.seed)
	span := uint64(int64(f.max) - int64(f.min))
	if span == math.MaxUint64 {
		return int64(h)
	}
	return int64(f.min) + int64(h%(span+1))
}

func (f *field) value(idx int64, base time.Time) any {
	if f.sequence {
		return f.seqValue(f.start + idx)
	}
	h := mix(uint64(idx) ^ f.seed)
	if f.nullRate > 0 && float64(h>>11)/(1<<53) < f.nullRate {
		return nil
	}
	h2 := h
	if f.nullRate > 0 {
		h2 = mix(h) // independent of the null decision
	}
	unit := float64(h2>>11) / (1 << 53) // [0,1)
	num := func() float64 { return f.min + unit*(f.max-f.min) }
	intIn := func(lo, hi float64) int64 {
		span := uint64(int64(hi) - int64(lo))
		if span == math.MaxUint64 {
			return int64(h2)
		}
		return int64(lo) + int64(h2%(span+1))
	}
	switch f.typ.Root {
	case sql.TypeBoolean:
		return h2&1 == 1
	case sql.TypeTinyInt:
		return int8(intIn(f.min, f.max))
	case sql.TypeSmallInt:
		return int16(intIn(f.min, f.max))
	case sql.TypeInt:
		return int32(intIn(f.min, f.max))
	case sql.TypeBigInt:
		return intIn(f.min, f.max)
	case sql.TypeFloat:
		return float32(num())
	case sql.TypeDouble:
		return num()
	case sql.TypeDecimal:
		return decimal.NewFromFloat(num()).Round(int32(f.typ.Scale))
	case sql.TypeChar, sql.TypeVarChar:
		return string(f.randomBytes(h2, true))
	case sql.TypeBinary, sql.TypeVarBinary:
		return f.randomBytes(h2, false)
	case sql.TypeDate:
		return int32(base.Unix() / 86400)
	case sql.TypeTime:
		return int32(base.UnixMilli() % 86400000)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		t := base
		if f.maxPast > 0 {
			t = t.Add(-time.Duration(h2 % uint64(f.maxPast)))
		}
		return sql.TimestampFromTime(t)
	}
	return nil
}

const hexDigits = "0123456789abcdef"

func (f *field) randomBytes(h uint64, text bool) []byte {
	n := f.length
	if f.varLen && n > 0 {
		n = 1 + int(h%uint64(n))
	}
	b := make([]byte, n)
	x := h
	for i := range b {
		if i%8 == 0 {
			x = mix(x + uint64(i))
		}
		if text {
			b[i] = hexDigits[x&15]
		} else {
			b[i] = byte(x)
		}
		x >>= 8
	}
	return b
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
