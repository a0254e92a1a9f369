package operators

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// AggKind is an aggregate function.
type AggKind uint8

// The supported aggregates, all with retraction.
const (
	CountStar AggKind = iota // COUNT(*)
	Count                    // COUNT(x): non-null x
	Sum
	Min
	Max
	Avg
	FirstValue // FIRST_VALUE(x): the first non-null x
	LastValue  // LAST_VALUE(x): the last non-null x
	// ListAgg is LISTAGG(x [, sep]): the non-null x in arrival order,
	// joined by sep (default ','); NULL when there is none.
	ListAgg
	// SingleValue is SINGLE_VALUE(x), Flink's SingleValueAggFunction,
	// which checks that a scalar subquery returns at most one row: a
	// second row accumulated (or a retraction past the one held) fails
	// with "SingleValueAggFunction received more than one element."; the
	// value is the row's x, NULL ones included.
	SingleValue
	// JsonObjectAgg is JSON_OBJECTAGG_{NULL,ABSENT}_ON_NULL(k, v), Flink's
	// JsonObjectAggFunction: v is JSON text (the planner wraps it in
	// JSON_STRING); the object maps each key to its value, written with
	// its keys sorted (see jsonObjectAgg).
	JsonObjectAgg
	// JsonArrayAgg is JSON_ARRAYAGG_{NULL,ABSENT}_ON_NULL(v), Flink's
	// JsonArrayAggFunction: the JSON text values in arrival order.
	JsonArrayAgg
)

func (k AggKind) String() string {
	return [...]string{"COUNT(*)", "COUNT", "SUM", "MIN", "MAX", "AVG", "FIRST_VALUE", "LAST_VALUE", "LISTAGG", "SINGLE_VALUE", "JSON_OBJECTAGG", "JSON_ARRAYAGG"}[k]
}

// AggSpec is one aggregate call of a GroupAggregate.
type AggSpec struct {
	Kind AggKind
	// Arg is the input column (ignored by COUNT(*)).
	Arg int
	// Distinct is AGG(DISTINCT x): each distinct non-null value counts once.
	Distinct bool
	// Filtered is AGG(...) FILTER (WHERE cond): the call reads only the
	// rows whose BOOLEAN column Filter is TRUE (the planner computes cond
	// IS TRUE there); the group's row count reads every row, as Flink's
	// GroupAggFunction counts records apart from its filtered calls.
	Filtered bool
	Filter   int
	// InsertOnly says the input never retracts (the planner's aggregate is
	// MIN/MAX, not MIN_RETRACT/MAX_RETRACT): MIN and MAX then keep only the
	// current extreme, as Flink's MinAggFunction/MaxAggFunction, instead of
	// a multiset of every distinct value (MinWithRetractAggFunction);
	// FIRST_VALUE and LAST_VALUE keep only their value
	// (FirstValueAggFunction), instead of every value in arrival order
	// (FirstValueWithRetractAggFunction).
	InsertOnly bool
	// EmptyIsZero is $SUM0 (Calcite's SqlSumEmptyIsZeroAggFunction, which
	// a split distinct aggregation's final phase sums counts with): a SUM
	// whose result is 0, not NULL, before any non-null input.
	EmptyIsZero bool
	// ResultType is the planner's result type; DECIMAL AVG uses its scale
	// (Flink: DECIMAL(38, max(6, s))). Integer SUM/AVG results take the
	// argument's Go type (SUM(INT) is INT, AVG(INT) is INT as in Flink).
	ResultType sql.DataType
	// FromPartials is an integer AVG merging a local phase's partials
	// (Flink's Partial_AVG AS (sum, count)): Arg is the BIGINT sum and
	// CountArg the BIGINT count of the same rows' non-null values. The
	// totals are divided as the row path's AVG divides them, the result
	// typed by ResultType (AVG(INT) is INT: IntAvgAggFunction).
	FromPartials bool
	CountArg     int
	// SepArg is LISTAGG's separator column when HasSep (the planner
	// projects its character literal), else the separator is ','.
	HasSep bool
	SepArg int
	// KeyArg is JSON_OBJECTAGG's key column (Arg is its value's).
	KeyArg int
	// SkipNulls is a JSON aggregate's ABSENT ON NULL: a NULL value is
	// left out (NULL ON NULL writes it as null).
	SkipNulls bool
}

// AggregateSpec configures GroupAggregate.
type AggregateSpec struct {
	// GroupKeys are the GROUP BY column indexes; output rows are the group
	// key values followed by one value per aggregate.
	GroupKeys []int
	Aggs      []AggSpec
	// GenerateUpdateBefore emits -U before +U (the consumer needs
	// BEFORE_AND_AFTER). Without it only +U is emitted.
	GenerateUpdateBefore bool
	// EmitOnFinish is batch mode: accumulate everything and emit one +I per
	// group at end of input (and, without GROUP BY, one row even for empty
	// input, as SQL requires).
	EmitOnFinish bool
}

// GroupAggregate is Flink's GroupAggFunction: retracting accumulators per
// group key. For each input row the group's accumulators accumulate (+I,
// +U) or retract (-U, -D); then
//
//   - the group's row count dropped to 0 → -D of the previous result, state
//     cleared;
//   - the group is new → +I of the result;
//   - the result is unchanged → nothing;
//   - else [-U previous, if GenerateUpdateBefore] then +U new.
//
// A retraction for a group without state is dropped (its +I was never
// seen, e.g. state lost), as Flink does.
func GroupAggregate(spec AggregateSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &groupAgg{spec: spec, groups: state.NewMemTable(groupCodec(spec.Aggs))}, nil
	}
}

type groupAgg struct {
	runtime.Base
	spec   AggregateSpec
	groups state.Table[*group]
	enc    state.Encoder
}

// group is one group's state: its key values, row count and accumulators.
type group struct {
	key  []any
	rows int64
	accs []acc
	// last is the result emitted last (not checkpointed: recomputed from
	// the accumulators after a restore). Emitted rows are immutable, so it
	// can be handed out again as the -U/-D image.
	last []any
}

// acc is one aggregate's accumulator. Which fields are used depends on the
// aggregate: n counts non-null inputs; i/f/d hold integer, float and
// decimal sums; vals is the multiset MIN, MAX and DISTINCT need to retract.
type acc struct {
	n    int64
	i    int64
	f    float64
	d    decimal.Decimal
	typ  byte // Go type of the sum's inputs: 'b' int8, 's' int16, 'i' int32, 'l' int64, 'f' float32, 'd' float64, 'm' decimal
	vals map[string]*counted
	// best is an insert-only MIN/MAX's extreme or FIRST_VALUE/LAST_VALUE's
	// value (n counts its inputs).
	best any
	// ord holds a retracting FIRST_VALUE/LAST_VALUE's values in arrival
	// order (i numbers them).
	ord []ordered
}

// ordered is one value a retracting FIRST_VALUE/LAST_VALUE accumulated:
// seq is its arrival number in the group, key its encoding (for equality).
type ordered struct {
	seq int64
	key string
	v   any
}

// simple reports an insert-only MIN, MAX, FIRST_VALUE or LAST_VALUE: one
// value, no multiset or arrival list.
func (s *AggSpec) simple() bool {
	return s.InsertOnly && !s.Distinct && (s.Kind == Min || s.Kind == Max || s.Kind == FirstValue || s.Kind == LastValue)
}

// ordering reports FIRST_VALUE, LAST_VALUE and LISTAGG, which keep their
// values in arrival order.
func (s *AggSpec) ordering() bool {
	return s.Kind == FirstValue || s.Kind == LastValue || s.Kind == ListAgg || s.Kind == JsonArrayAgg
}

type counted struct {
	v   any
	cnt int64
}

func (g *groupAgg) Open(ctx *runtime.Context, restored []byte) error {
	if err := g.open(ctx); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	body, err := g.checkLayout(restored)
	if err != nil {
		return err
	}
	return g.groups.Restore(body)
}

// OpenRescaled restores at a new parallelism: the keys this subtask owns
// from every old subtask's state.
func (g *groupAgg) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := g.open(ctx); err != nil {
		return err
	}
	bodies := make([][]byte, len(blobs))
	for i, b := range blobs {
		if len(b) == 0 {
			continue
		}
		body, err := g.checkLayout(b)
		if err != nil {
			return fmt.Errorf("state of old subtask %d: %w", i, err)
		}
		bodies[i] = body
	}
	return g.groups.RestoreFiltered(bodies, owns)
}

// Snapshot writes the accumulator layout, then the groups: a restore
// checks the layout once, before any group decodes (Flink keeps the state
// serializer's snapshot in the checkpoint for the same check).
func (g *groupAgg) Snapshot(int64) ([]byte, error) {
	body, err := g.groups.Snapshot()
	if err != nil {
		return nil, err
	}
	e := state.Encoder{Buf: append(make([]byte, 0, len(layoutMagic)+1+2*len(g.spec.Aggs)+len(body)), layoutMagic...)}
	e.Uvarint(uint64(len(g.spec.Aggs)))
	for i := range g.spec.Aggs {
		a := &g.spec.Aggs[i]
		e.Buf = append(e.Buf, byte(a.Kind), a.layoutFlags())
	}
	return append(e.Buf, body...), nil
}

// layoutMagic starts a GroupAggregate snapshot that holds its accumulator
// layout. A keyed-state snapshot starts with its entry count, and a count
// of 0 is the whole snapshot (or the LSM backend's "\x00LSM"), so these
// bytes start no snapshot of earlier versions, which restore unchecked.
var layoutMagic = []byte("\x00AGG")

const (
	layoutDistinct   = 1 << 0
	layoutInsertOnly = 1 << 1 // MIN/MAX keeps only the extreme
)

func (s *AggSpec) layoutFlags() byte {
	var f byte
	if s.Distinct {
		f |= layoutDistinct
	}
	if s.simple() {
		f |= layoutInsertOnly
	}
	return f
}

// name is the call as an error names it: MAX($1), COUNT(DISTINCT $2).
func (s *AggSpec) name() string {
	if s.Kind == CountStar {
		return s.Kind.String()
	}
	d := ""
	if s.Distinct {
		d = "DISTINCT "
	}
	return fmt.Sprintf("%s(%s$%d)", s.Kind, d, s.Arg)
}

// checkLayout compares a snapshot's accumulator layout with the plan's and
// returns the keyed state after it. The plan may change what does not
// touch the state (an argument's column, the output), and a retracting
// MIN/MAX may become insert-only (its multiset gives the extreme); any
// other change fails, as Flink's restore fails on an incompatible state
// serializer, instead of continuing with accumulators read in the wrong
// layout.
func (g *groupAgg) checkLayout(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, layoutMagic) {
		return b, nil // an earlier version's snapshot: no layout to check
	}
	d := state.Decoder{Buf: b, Off: len(layoutMagic)}
	n, err := d.Uvarint()
	if err != nil || n > uint64(len(b)) || d.Off+2*int(n) > len(b) {
		return nil, fmt.Errorf("GroupAggregate state: %w", state.ErrCorrupt)
	}
	layout := d.Buf[d.Off : d.Off+2*int(n)]
	body := b[d.Off+2*int(n):]
	incompatible := func(format string, args ...any) error {
		return fmt.Errorf("cannot restore GroupAggregate state (Flink: StateMigrationException): %w: %s; "+
			"start the job without --resume, or restore a checkpoint of the same query",
			state.ErrIncompatible, fmt.Sprintf(format, args...))
	}
	if int(n) != len(g.spec.Aggs) {
		return nil, incompatible("the checkpoint holds the state of %d aggregates, the job now has %d", n, len(g.spec.Aggs))
	}
	for i := range g.spec.Aggs {
		a := &g.spec.Aggs[i]
		kind, flags := AggKind(layout[2*i]), layout[2*i+1]
		if kind > JsonArrayAgg {
			return nil, fmt.Errorf("GroupAggregate state: %w: aggregate kind %d", state.ErrCorrupt, kind)
		}
		if kind != a.Kind || flags&layoutDistinct != a.layoutFlags()&layoutDistinct {
			was := kind.String()
			if flags&layoutDistinct != 0 {
				was += " DISTINCT"
			}
			return nil, incompatible("aggregate %d was %s, is now %s", i+1, was, a.name())
		}
		if flags&layoutInsertOnly != 0 && !a.simple() {
			return nil, incompatible("its %s state was kept without retraction (insert-only input: only the extreme) "+
				"and the job now needs retraction (every distinct value)", a.name())
		}
	}
	return body, nil
}

func (g *groupAgg) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	if !g.spec.EmitOnFinish {
		out.Grow(2 * len(rows))
	}
	// A run of rows of one group (every row of a global aggregate, a
	// key-ordered input's rows) looks the group up and stores it once: the
	// group of the previous row is held and Put when the key changes.
	var held *group
	var heldKey string
	put := func() error {
		if held == nil {
			return nil
		}
		grp := held
		held = nil
		return g.groups.Put(heldKey, grp)
	}
	for _, r := range rows {
		g.enc.Buf = g.enc.Buf[:0]
		if err := state.AppendKey(&g.enc, r, g.spec.GroupKeys); err != nil {
			return fmt.Errorf("GroupAggregate key: %w", err)
		}
		var key string
		var grp *group
		var ok bool
		if held != nil && string(g.enc.Buf) == heldKey {
			key, grp, ok = heldKey, held, true
		} else {
			if err := put(); err != nil {
				return err
			}
			key = string(g.enc.Buf)
			var err error
			if grp, ok, err = g.groups.Get(key); err != nil {
				return err
			}
		}
		add := r.Kind.IsAdd()
		if !ok {
			if !add {
				continue
			}
			// Group keys and MIN/MAX/DISTINCT values are kept in state:
			// their own copies (box.Compact), not the reader's memory.
			grp = &group{key: box.Compact(project(r, g.spec.GroupKeys)), accs: make([]acc, len(g.spec.Aggs))}
		}
		var prev []any
		if ok && !g.spec.EmitOnFinish {
			if prev = grp.last; prev == nil {
				var err error
				if prev, err = g.result(grp); err != nil {
					return err
				}
			}
		}
		if err := g.apply(grp, r, add); err != nil {
			return err
		}
		if grp.rows <= 0 {
			if ok && !g.spec.EmitOnFinish {
				out.Emit(sql.Row{Kind: sql.Delete, Values: prev})
			}
			held = nil
			if err := g.groups.Delete(key); err != nil {
				return err
			}
			continue
		}
		held, heldKey = grp, key
		if g.spec.EmitOnFinish {
			continue
		}
		cur, err := g.result(grp)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			grp.last = cur
			out.Emit(sql.Row{Kind: sql.Insert, Values: cur})
		case ValuesEqual(prev, cur):
		default:
			grp.last = cur
			if g.spec.GenerateUpdateBefore {
				out.Emit(sql.Row{Kind: sql.UpdateBefore, Values: prev})
			}
			out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: cur})
		}
	}
	return put()
}

func (g *groupAgg) Finish(out *runtime.Collector) error {
	if !g.spec.EmitOnFinish {
		return nil
	}
	if g.groups.Len() == 0 && len(g.spec.GroupKeys) == 0 {
		empty := &group{accs: make([]acc, len(g.spec.Aggs))}
		v, err := g.result(empty)
		if err != nil {
			return err
		}
		out.Emit(sql.Row{Kind: sql.Insert, Values: v})
		return nil
	}
	return g.groups.Range(func(_ string, grp *group) error {
		v, err := g.result(grp)
		if err != nil {
			return err
		}
		out.Emit(sql.Row{Kind: sql.Insert, Values: v})
		return nil
	})
}

func (g *groupAgg) apply(grp *group, r sql.Row, add bool) error {
	sign := int64(1)
	if !add {
		sign = -1
	}
	grp.rows += sign
	for i := range g.spec.Aggs {
		spec := &g.spec.Aggs[i] // not a copy per row and call
		a := &grp.accs[i]
		if spec.Filtered && r.Values[spec.Filter] != true {
			continue
		}
		if spec.Kind == CountStar {
			a.n += sign
			continue
		}
		if spec.FromPartials {
			if err := a.mergeAvg(spec, r, sign); err != nil {
				return err
			}
			continue
		}
		v := r.Values[spec.Arg]
		switch spec.Kind {
		case JsonObjectAgg:
			if err := a.jsonObjectAgg(spec, r.Values[spec.KeyArg], v, add); err != nil {
				return err
			}
			continue
		case JsonArrayAgg:
			if err := a.jsonArrayAgg(spec, v, add); err != nil {
				return err
			}
			continue
		}
		if spec.Kind == SingleValue {
			if err := a.singleValue(v, add); err != nil {
				return err
			}
			continue
		}
		if v == nil {
			continue
		}
		if spec.simple() {
			if !add {
				// The planner chose MIN/MAX without retraction: the input is
				// insert-only, or this argument only moves the extreme's way
				// (FlinkRelMdModifiedMonotonicity), so a retracted value is
				// never the extreme's last holder. Flink generates no retract
				// code for such a call (AggregateUtil.getNeedRetractions):
				// the retraction leaves the accumulator as it is.
				continue
			}
			a.n++
			if a.best != nil {
				keep, err := keepBest(spec.Kind, v, a.best)
				if err != nil {
					return err
				}
				if keep {
					continue
				}
			}
			a.best = ownCopy(v)
			continue
		}
		if spec.Distinct || spec.Kind == Min || spec.Kind == Max {
			k, err := state.KeyOf(sql.Row{Values: []any{v}}, []int{0})
			if err != nil {
				return err
			}
			if a.vals == nil {
				a.vals = map[string]*counted{}
			}
			c := a.vals[k]
			if c == nil {
				c = &counted{v: box.Compact([]any{v})[0]}
				a.vals[k] = c
			}
			c.cnt += sign
			if c.cnt <= 0 {
				delete(a.vals, k)
			}
			if spec.Kind == Min || spec.Kind == Max {
				continue // computed from the multiset
			}
			// DISTINCT: only a value entering or leaving the set counts.
			if entered, left := add && c.cnt == 1, !add && c.cnt == 0; !entered && !left {
				continue
			}
		}
		if spec.Kind == ListAgg {
			// ListAggWithRetractAggFunction / ListAggWsWithRetractAggFunction:
			// a non-null value is appended to the list, a retraction
			// removes its first occurrence, and the separator is the
			// one of the last value accumulated or retracted (the
			// separator is a character literal: one for every row).
			sep := ","
			if spec.HasSep {
				s, ok := r.Values[spec.SepArg].(string)
				if !ok {
					continue // Flink's concat with a NULL separator
				}
				sep = s
			}
			a.best = sep
		}
		if spec.ordering() {
			if err := a.order(v, add); err != nil {
				return fmt.Errorf("%s: %w", spec.Kind, err)
			}
			continue
		}
		if err := a.accumulate(spec.Kind, v, sign); err != nil {
			return fmt.Errorf("%s: %w", spec.Kind, err)
		}
	}
	return nil
}

// errJSONNullKey is JsonObjectAggFunction's failure on a NULL key: its
// map takes the key, and writing the object fails on it (the message of
// getValue's catch).
var errJSONNullKey = errors.New("The accumulator state could not be serialized.")

// jsonObjectAgg is JsonObjectAggFunction's accumulate and retract over
// the map vals (key → counted{v: JSON text, or nil for a NULL kept by
// NULL ON NULL}). Accumulating a key the map holds fails (Flink's
// assertKeyNotPresent); under ABSENT ON NULL a NULL value puts nothing.
// A retraction removes its key only if the map holds the key with an
// equal value: a retracted NULL never equals the NULL marker Flink keeps
// (an empty string), so a key accumulated with NULL under NULL ON NULL
// stays. (Flink's retractMap of unmatched retractions only matters to
// merge, which GroupAggregate never does.)
func (a *acc) jsonObjectAgg(spec *AggSpec, key, v any, add bool) error {
	k, isStr := key.(string)
	if !add {
		if !isStr {
			return nil
		}
		if c, ok := a.vals[k]; ok && c.v != nil && v != nil && c.v == v {
			delete(a.vals, k)
		}
		return nil
	}
	if key == nil {
		return fmt.Errorf("JSON_OBJECTAGG: %w", sql.Errorf(sql.TableException, "%s", errJSONNullKey))
	}
	if !isStr {
		return fmt.Errorf("JSON_OBJECTAGG: key %T, want a string", key)
	}
	if _, ok := a.vals[k]; ok {
		return jsonDuplicateKey(k)
	}
	if v == nil && spec.SkipNulls {
		return nil
	}
	if _, ok := v.(string); v != nil && !ok {
		return fmt.Errorf("JSON_OBJECTAGG: value %T, want JSON text", v)
	}
	if a.vals == nil {
		a.vals = map[string]*counted{}
	}
	a.vals[strings.Clone(k)] = &counted{v: ownCopy(v), cnt: 1}
	return nil
}

// jsonDuplicateKey is JsonObjectAggFunction's assertKeyNotPresent.
func jsonDuplicateKey(k string) error {
	return sql.Errorf(sql.TableException, "Key '%s' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please ensure that keys are unique.", k)
}

// jsonNull is JsonArrayAggFunction's NULL_STR: the text a NULL value is
// kept as under NULL ON NULL, and the one a retracted NULL removes.
const jsonNull = "null"

// jsonArrayAgg is JsonArrayAggFunction's accumulate and retract: a value
// (NULL as null unless ABSENT ON NULL) is appended; a retraction removes
// the first equal value (NULL removes a null).
func (a *acc) jsonArrayAgg(spec *AggSpec, v any, add bool) error {
	if v == nil {
		if add && spec.SkipNulls {
			return nil
		}
		v = jsonNull
	}
	if _, ok := v.(string); !ok {
		return fmt.Errorf("JSON_ARRAYAGG: value %T, want JSON text", v)
	}
	return a.order(v, add)
}

// jsonObjectAggValue is JSON_OBJECTAGG's result: the object of the map's
// entries, keys sorted (Flink writes its MapView in the view's iteration
// order, which the state backend decides; JsonAggregationFunctionsITCase
// expects sorted keys), each value its JSON text as it is.
func (a *acc) jsonObjectAggValue() string {
	keys := make([]string, 0, len(a.vals))
	for k := range a.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		sql.WriteJSONString(&b, k)
		b.WriteByte(':')
		if s, ok := a.vals[k].v.(string); ok {
			b.WriteString(s)
		} else {
			b.WriteString(jsonNull)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// jsonArrayAggValue is JSON_ARRAYAGG's result: its values in order.
func (a *acc) jsonArrayAggValue() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, o := range a.ord {
		if i > 0 {
			b.WriteByte(',')
		}
		s, _ := o.v.(string)
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String()
}

// errSingleValue is SingleValueAggFunction's THROW_EXCEPTION message.
var errSingleValue = errors.New("SingleValueAggFunction received more than one element.")

// singleValue is SingleValueAggFunction's accumulate and retract: its
// buffer (value, count) is (best, n). Accumulating over a count above 0
// fails; retracting keeps count 0 or 1 and clears the value (a count
// below 0 is possible, as Flink's retract expression allows it).
func (a *acc) singleValue(v any, add bool) error {
	if add {
		if a.n > 0 {
			return fmt.Errorf("SINGLE_VALUE: %w", errSingleValue)
		}
		a.best = ownCopy(v)
		a.n++
		return nil
	}
	if a.n != 1 && a.n != 0 {
		return fmt.Errorf("SINGLE_VALUE: %w", errSingleValue)
	}
	a.best = nil
	a.n--
	return nil
}

// ownCopy is the state's copy of a MIN/MAX/FIRST/LAST value, as
// box.Compact makes it: a string gets its own bytes instead of pinning
// the page it was decoded from; any other value is kept as it is (Compact
// would copy the interface alone, after allocating two slices). Over
// sorted input (a primary-key table read in key order) MAX(k) takes a new
// value on every row.
func ownCopy(v any) any {
	if s, ok := v.(string); ok && len(s) > 0 {
		return box.Compact([]any{v})[0]
	}
	return v
}

// keepBest reports whether an insert-only aggregate keeps its value best
// when v arrives: MIN and MAX keep the extreme, FIRST_VALUE the first.
func keepBest(kind AggKind, v, best any) (bool, error) {
	switch kind {
	case FirstValue:
		return true, nil
	case LastValue:
		return false, nil
	}
	// The common types first, as Compare orders them, without its NULL
	// checks and its switch over every type, and with one comparison.
	switch x := v.(type) {
	case string:
		if y, ok := best.(string); ok {
			return keeps(kind, x, y), nil
		}
	case int32:
		if y, ok := best.(int32); ok {
			return keeps(kind, x, y), nil
		}
	case int64:
		if y, ok := best.(int64); ok {
			return keeps(kind, x, y), nil
		}
	}
	return keepBestSlow(kind, v, best)
}

// keeps is keepBest for two values of one ordered type (never a float:
// Compare orders NaN).
func keeps[T string | int32 | int64](kind AggKind, v, best T) bool {
	if kind == Max {
		return v <= best
	}
	return kind == Min && v >= best
}

// keepBestSlow is keepBest's MIN/MAX through Compare.
func keepBestSlow(kind AggKind, v, best any) (bool, error) {
	d, err := Compare(v, best)
	if err != nil {
		return false, fmt.Errorf("%s: %w", kind, err)
	}
	return (kind == Min && d >= 0) || (kind == Max && d <= 0), nil
}

// order accumulates (add) or retracts v for a retracting FIRST_VALUE or
// LAST_VALUE, as Flink's FirstValueWithRetractAggFunction and
// LastValueWithRetractAggFunction: every value is kept with its arrival
// order (Flink's order is the arrival's processing time, its ties kept in
// arrival order; a counter gives the same order); a retraction removes the
// oldest occurrence of an equal value; the result is the value with the
// smallest (FIRST_VALUE) or largest (LAST_VALUE) order left.
func (a *acc) order(v any, add bool) error {
	k, err := state.KeyOf(sql.Row{Values: []any{v}}, []int{0})
	if err != nil {
		return err
	}
	if add {
		a.i++
		a.n++
		a.ord = append(a.ord, ordered{seq: a.i, key: k, v: box.Compact([]any{v})[0]})
		return nil
	}
	for j := range a.ord {
		if a.ord[j].key == k {
			a.ord = append(a.ord[:j], a.ord[j+1:]...)
			a.n--
			break
		}
	}
	return nil
}

// listAgg is LISTAGG's result: its values joined by the separator
// (BinaryStringDataUtil.concatWs), NULL for an empty list.
func (a *acc) listAgg() any {
	if len(a.ord) == 0 {
		return nil
	}
	sep, _ := a.best.(string)
	if sep == "" && a.best == nil {
		sep = ","
	}
	var b strings.Builder
	for j, o := range a.ord {
		if j > 0 {
			b.WriteString(sep)
		}
		s, _ := o.v.(string)
		b.WriteString(s)
	}
	return b.String()
}

func (a *acc) accumulate(kind AggKind, v any, sign int64) error {
	a.n += sign
	if kind == Count {
		return nil
	}
	switch x := v.(type) {
	case int8:
		a.i += sign * int64(x)
		a.typ = 'b'
	case int16:
		a.i += sign * int64(x)
		a.typ = 's'
	case int32:
		a.i += sign * int64(x)
		a.typ = 'i'
	case int64:
		a.i += sign * x
		a.typ = 'l'
	case float32:
		a.f += float64(sign) * float64(x)
		a.typ = 'f'
	case float64:
		a.f += float64(sign) * x
		a.typ = 'd'
	case decimal.Decimal:
		if sign > 0 {
			a.d = a.d.Add(x)
		} else {
			a.d = a.d.Sub(x)
		}
		a.typ = 'm'
	default:
		return fmt.Errorf("unsupported argument type %T", v)
	}
	return nil
}

// mergeAvg adds a partial sum and count (FromPartials) to an integer
// AVG's accumulator.
func (a *acc) mergeAvg(spec *AggSpec, r sql.Row, sign int64) error {
	cnt, ok := r.Values[spec.CountArg].(int64)
	if !ok || cnt == 0 {
		return nil
	}
	sum, ok := r.Values[spec.Arg].(int64)
	if !ok {
		return fmt.Errorf("AVG partial sum %T, want BIGINT", r.Values[spec.Arg])
	}
	switch spec.ResultType.Root {
	case sql.TypeTinyInt:
		a.typ = 'b'
	case sql.TypeSmallInt:
		a.typ = 's'
	case sql.TypeInt:
		a.typ = 'i'
	case sql.TypeBigInt:
		a.typ = 'l'
	default:
		return fmt.Errorf("AVG of partials typed %s, want an integer type", spec.ResultType)
	}
	a.n += sign * cnt
	a.i += sign * sum
	return nil
}

// result computes the output row: group key values then aggregate values.
func (g *groupAgg) result(grp *group) ([]any, error) {
	out := make([]any, 0, len(grp.key)+len(grp.accs))
	out = append(out, grp.key...)
	for i, spec := range g.spec.Aggs {
		a := &grp.accs[i]
		switch spec.Kind {
		case CountStar:
			out = append(out, a.n)
		case Count:
			if spec.Distinct {
				out = append(out, int64(len(a.vals)))
			} else {
				out = append(out, a.n)
			}
		case Sum:
			v := a.sum(spec.ResultType)
			if v == nil && spec.EmptyIsZero {
				v = zeroOf(spec.ResultType)
			}
			out = append(out, v)
		case Avg:
			out = append(out, a.avg(spec.ResultType))
		case FirstValue, LastValue:
			switch {
			case spec.simple():
				out = append(out, a.best)
			case len(a.ord) == 0:
				out = append(out, nil)
			case spec.Kind == FirstValue:
				out = append(out, a.ord[0].v)
			default:
				out = append(out, a.ord[len(a.ord)-1].v)
			}
		case ListAgg:
			out = append(out, a.listAgg())
		case SingleValue:
			out = append(out, a.best)
		case JsonObjectAgg:
			out = append(out, a.jsonObjectAggValue())
		case JsonArrayAgg:
			out = append(out, a.jsonArrayAggValue())
		case Min, Max:
			if spec.simple() {
				out = append(out, a.best)
				continue
			}
			var best any
			for _, c := range a.vals {
				if best == nil {
					best = c.v
					continue
				}
				d, err := Compare(c.v, best)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", spec.Kind, err)
				}
				if (spec.Kind == Min && d < 0) || (spec.Kind == Max && d > 0) {
					best = c.v
				}
			}
			out = append(out, best)
		}
	}
	return out, nil
}

// zeroOf is $SUM0's 0 of its result type (nil for a type no sum has).
func zeroOf(rt sql.DataType) any {
	switch rt.Root {
	case sql.TypeTinyInt:
		return int8(0)
	case sql.TypeSmallInt:
		return int16(0)
	case sql.TypeInt:
		return int32(0)
	case sql.TypeBigInt:
		return int64(0)
	case sql.TypeFloat:
		return float32(0)
	case sql.TypeDouble:
		return float64(0)
	case sql.TypeDecimal:
		return decimal.Zero.Round(int32(rt.Scale))
	}
	return nil
}

func (a *acc) sum(rt sql.DataType) any {
	if a.n == 0 {
		return nil
	}
	switch a.typ {
	case 'b':
		return int8(a.i)
	case 's':
		return int16(a.i)
	case 'i':
		return int32(a.i)
	case 'l':
		return a.i
	case 'f':
		return float32(a.f)
	case 'd':
		return a.f
	case 'm':
		if rt.Root == sql.TypeDecimal {
			return a.d.Round(int32(rt.Scale))
		}
		return a.d
	}
	return nil
}

func (a *acc) avg(rt sql.DataType) any {
	if a.n == 0 {
		return nil
	}
	switch a.typ {
	case 'b':
		return int8(a.i / a.n)
	case 's':
		return int16(a.i / a.n)
	case 'i':
		return int32(a.i / a.n)
	case 'l':
		return a.i / a.n
	case 'f':
		return float32(a.f / float64(a.n))
	case 'd':
		return a.f / float64(a.n)
	case 'm':
		scale := int32(max(6, -a.d.Exponent()))
		if rt.Root == sql.TypeDecimal {
			scale = int32(rt.Scale)
		}
		return a.d.DivRound(decimal.NewFromInt(a.n), scale)
	}
	return nil
}

// groupCodec encodes a group's state. The accumulator layout is one for
// every aggregate; an insert-only MIN/MAX keeps its extreme in the slot of
// the float sum (a.n > 0 tells it is there: the retracting MIN/MAX, which
// checkpoints of earlier versions hold, never counts a.n).
func groupCodec(specs []AggSpec) state.Codec[*group] {
	return state.Codec[*group]{Encode: func(e *state.Encoder, g *group) error { return encodeGroup(specs, e, g) },
		Decode: func(d *state.Decoder) (*group, error) { return decodeGroup(specs, d) }}
}

func encodeGroup(specs []AggSpec, e *state.Encoder, g *group) error {
	if err := e.Values(g.key); err != nil {
		return err
	}
	e.Varint(g.rows)
	e.Uvarint(uint64(len(g.accs)))
	for i := range g.accs {
		a := &g.accs[i]
		e.Varint(a.n)
		e.Varint(a.i)
		f := any(a.f)
		if i < len(specs) && (specs[i].simple() || specs[i].Kind == ListAgg || specs[i].Kind == SingleValue) {
			f = a.best
		}
		if err := e.Value(f); err != nil {
			return err
		}
		if err := e.Value(a.d); err != nil {
			return err
		}
		e.Buf = append(e.Buf, a.typ)
		keys := make([]string, 0, len(a.vals))
		for k := range a.vals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e.Uvarint(uint64(len(keys)))
		for _, k := range keys {
			c := a.vals[k]
			e.String(k)
			if err := e.Value(c.v); err != nil {
				return err
			}
			e.Varint(c.cnt)
		}
		if i < len(specs) && specs[i].ordering() && !specs[i].simple() {
			e.Uvarint(uint64(len(a.ord)))
			for _, o := range a.ord {
				e.Varint(o.seq)
				if err := e.Value(o.v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func decodeGroup(specs []AggSpec, d *state.Decoder) (*group, error) {
	g := &group{}
	var err error
	if g.key, err = d.Values(); err != nil {
		return nil, err
	}
	if g.rows, err = d.Varint(); err != nil {
		return nil, err
	}
	n, err := d.Uvarint()
	if err != nil || n > 1<<16 {
		return nil, state.ErrCorrupt
	}
	g.accs = make([]acc, n)
	for i := range g.accs {
		a := &g.accs[i]
		if a.n, err = d.Varint(); err != nil {
			return nil, err
		}
		if a.i, err = d.Varint(); err != nil {
			return nil, err
		}
		f, err := d.Value()
		if err != nil {
			return nil, err
		}
		a.f, _ = f.(float64)
		simple := i < len(specs) && specs[i].simple()
		if simple && a.n > 0 {
			a.best, a.f = f, 0
		}
		if i < len(specs) && (specs[i].Kind == ListAgg || specs[i].Kind == SingleValue) {
			a.best, a.f = f, 0
		}
		dv, err := d.Value()
		if err != nil {
			return nil, err
		}
		a.d, _ = dv.(decimal.Decimal)
		if d.Done() {
			return nil, state.ErrCorrupt
		}
		a.typ = d.Buf[d.Off]
		d.Off++
		m, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if m > 0 {
			a.vals = make(map[string]*counted, min(m, 1<<16))
		}
		for j := uint64(0); j < m; j++ {
			k, err := d.String()
			if err != nil {
				return nil, err
			}
			v, err := d.Value()
			if err != nil {
				return nil, err
			}
			c, err := d.Varint()
			if err != nil {
				return nil, err
			}
			a.vals[k] = &counted{v: v, cnt: c}
		}
		if i < len(specs) && specs[i].ordering() && !specs[i].simple() {
			if a.ord, err = decodeOrdered(d); err != nil {
				return nil, err
			}
		}
		if !simple && i < len(specs) && (specs[i].Kind == Min || specs[i].Kind == Max) && !specs[i].Distinct &&
			a.n > 0 && len(a.vals) == 0 {
			// An insert-only extreme in a snapshot of an earlier version,
			// which held no layout for checkLayout (the retracting form
			// never counts a.n).
			return nil, fmt.Errorf("GroupAggregate (Flink: StateMigrationException): %w: its %s state was kept "+
				"without retraction and the job now needs retraction; start the job without --resume",
				state.ErrIncompatible, specs[i].name())
		}
		if simple && len(a.vals) > 0 {
			// A checkpoint of the retracting form: keep its extreme.
			if err := a.fromMultiset(specs[i].Kind); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// decodeOrdered reads a retracting FIRST_VALUE/LAST_VALUE's values.
func decodeOrdered(d *state.Decoder) ([]ordered, error) {
	m, err := d.Uvarint()
	if err != nil || m > uint64(len(d.Buf)) {
		return nil, state.ErrCorrupt
	}
	ord := make([]ordered, 0, m)
	for j := uint64(0); j < m; j++ {
		seq, err := d.Varint()
		if err != nil {
			return nil, err
		}
		v, err := d.Value()
		if err != nil {
			return nil, err
		}
		k, err := state.KeyOf(sql.Row{Values: []any{v}}, []int{0})
		if err != nil {
			return nil, err
		}
		ord = append(ord, ordered{seq: seq, key: k, v: v})
	}
	return ord, nil
}

// fromMultiset turns a retracting MIN/MAX's multiset into the insert-only
// form's extreme.
func (a *acc) fromMultiset(kind AggKind) error {
	for _, c := range a.vals {
		a.n += c.cnt
		if a.best == nil {
			a.best = c.v
			continue
		}
		d, err := Compare(c.v, a.best)
		if err != nil {
			return err
		}
		if (kind == Min && d < 0) || (kind == Max && d > 0) {
			a.best = c.v
		}
	}
	a.vals = nil
	return nil
}

// open makes the state table on the job's state backend.
func (g *groupAgg) open(ctx *runtime.Context) (err error) {
	g.groups, err = newTable(ctx, "groups", groupCodec(g.spec.Aggs))
	return err
}
