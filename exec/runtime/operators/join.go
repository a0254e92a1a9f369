package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// InputSideKind is Flink's JoinInputSideSpec: how one join input's rows are
// kept per join key, chosen by the planner from the input's unique keys.
type InputSideKind int

const (
	// NoUniqueKey keeps every distinct row with its count (Flink's
	// MapState<row, count>).
	NoUniqueKey InputSideKind = iota
	// HasUniqueKey keeps one row per unique key (MapState<uk, row>).
	HasUniqueKey
	// JoinKeyContainsUniqueKey keeps at most one row per join key
	// (ValueState<row>).
	JoinKeyContainsUniqueKey
)

// JoinSideSpec describes one input of a regular join.
type JoinSideSpec struct {
	// Keys are the equi-join fields; the state key is state.AppendKey over
	// them, the Hash edge's key.
	Keys []int
	// NullSafe, when not nil, marks the keys (by index) on which NULL
	// matches NULL (IS NOT DISTINCT FROM; Flink's filterNulls false); a
	// NULL in any other key keeps the row from matching.
	NullSafe []bool
	Arity    int
	// Outer marks the side whose unmatched rows are emitted padded with
	// NULLs (the left side of a LEFT join, both sides of a FULL join).
	Outer bool
	Kind  InputSideKind
	// UniqueKey is the unique key of HasUniqueKey.
	UniqueKey []int
}

// JoinSpec configures StreamingJoin.
type JoinSpec struct {
	Left, Right JoinSideSpec
	// Cond is the join condition over the concatenated row (nil: true).
	// It includes the equi-conjuncts, which rows in one bucket satisfy
	// unless a key is NULL.
	Cond func([]any) (any, error)
	// Semi and Anti make a LeftSemiJoin / LeftAntiJoin: the output is the
	// left row alone (StreamingSemiAntiJoinOperator).
	Semi, Anti bool
}

// StreamingJoin is Flink's StreamingJoinOperator (INNER, LEFT, RIGHT and
// FULL joins; flink-table-runtime .../join/stream/StreamingJoinOperator,
// the Flink 1.20 processElement). Each side keeps its rows per join key in
// keyed state laid out as its JoinSideSpec says; outer sides also keep,
// per row, how many rows of the other side it joins with (its
// "associations"). For an input row:
//
//   - accumulate (+I/+U): it is joined with the matching rows of the other
//     side. If the input side is outer and nothing matches, +I[row+nulls] is
//     emitted. If the other side is outer, every matching row of it that had
//     no association yet has its null-padded row retracted first (-D), all
//     before the joined rows. Joined rows are +I, except an inner-side input
//     against an inner other side, which forwards the input's kind (+I/+U).
//   - retract (-D/-U): it leaves the state; the joined rows are retracted
//     (-D when the input side is outer, else the input's kind), or, with no
//     match on an outer input side, -D[row+nulls]. Then every matching row
//     of an outer other side that had exactly one association gets its
//     null-padded row back (+I).
//
// Rows whose join key has a NULL (in a key that is not NullSafe) never
// match (Flink's filterNullKeys) and
// are not stored; their outer padding is emitted and retracted alike.
//
// One deviation from Flink 1.20, taken from later Flink
// (StreamingJoinOperator.isAdditionalMatch on Flink's master): an
// accumulate that replaces a row already in state under the same unique
// key (an upsert without -U) does not add an association to the other
// side's rows it already counted, so a later retraction still restores
// their null padding.
func StreamingJoin(spec JoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &streamingJoin{spec: spec}, nil
	}
}

type streamingJoin struct {
	runtime.Base
	spec        JoinSpec
	left, right state.Table[[]joinRecord]
	enc         state.Encoder
}

// joinRecord is one stored row: count copies of it (NoUniqueKey; 1
// otherwise) and, on an outer side, its number of associations.
type joinRecord struct {
	vals  []any
	count int64
	assoc int64
}

var joinRecordsCodec = state.Codec[[]joinRecord]{
	Encode: func(e *state.Encoder, rs []joinRecord) error {
		e.Uvarint(uint64(len(rs)))
		for _, r := range rs {
			if err := e.Values(r.vals); err != nil {
				return err
			}
			e.Varint(r.count)
			e.Varint(r.assoc)
		}
		return nil
	},
	Decode: func(d *state.Decoder) ([]joinRecord, error) {
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		rs := make([]joinRecord, n)
		for i := range rs {
			if rs[i].vals, err = d.Values(); err != nil {
				return nil, err
			}
			if rs[i].count, err = d.Varint(); err != nil {
				return nil, err
			}
			if rs[i].assoc, err = d.Varint(); err != nil {
				return nil, err
			}
		}
		return rs, nil
	},
}

func (j *streamingJoin) open(ctx *runtime.Context) (err error) {
	if j.left, err = newTable(ctx, "left-records", joinRecordsCodec); err != nil {
		return err
	}
	j.right, err = newTable(ctx, "right-records", joinRecordsCodec)
	return err
}

func (j *streamingJoin) Open(ctx *runtime.Context, restored []byte) error {
	if err := j.open(ctx); err != nil {
		return err
	}
	if restored != nil {
		return state.RestoreAll(restored, j.left, j.right)
	}
	return nil
}

// OpenRescaled restores at a new parallelism: both sides are keyed by the
// join key their Hash edge routes by.
func (j *streamingJoin) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := j.open(ctx); err != nil {
		return err
	}
	lefts := make([][]byte, len(blobs))
	rights := make([][]byte, len(blobs))
	for i, b := range blobs {
		d := state.Decoder{Buf: b}
		n, err := d.Uvarint()
		if err == nil && n != 2 {
			err = fmt.Errorf("snapshot has %d parts, the join has 2", n)
		}
		if err == nil {
			lefts[i], err = d.Bytes()
		}
		if err == nil {
			rights[i], err = d.Bytes()
		}
		if err != nil {
			return fmt.Errorf("restore join state: %w", err)
		}
	}
	if err := j.left.RestoreFiltered(lefts, owns); err != nil {
		return err
	}
	return j.right.RestoreFiltered(rights, owns)
}

func (j *streamingJoin) Snapshot(int64) ([]byte, error) { return state.SnapshotAll(j.left, j.right) }

func (j *streamingJoin) ProcessBatch(input int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if err := j.process(r, input == 0, out); err != nil {
			return err
		}
	}
	return nil
}

// side returns the input's and the other side's spec and state.
func (j *streamingJoin) side(isLeft bool) (in, other *JoinSideSpec, inT, otherT state.Table[[]joinRecord]) {
	if isLeft {
		return &j.spec.Left, &j.spec.Right, j.left, j.right
	}
	return &j.spec.Right, &j.spec.Left, j.right, j.left
}

func (j *streamingJoin) output(kind sql.RowKind, in, other []any, inIsLeft bool, out *runtime.Collector) {
	l, r := in, other
	if !inIsLeft {
		l, r = other, in
	}
	if l == nil {
		l = make([]any, j.spec.Left.Arity)
	}
	if r == nil {
		r = make([]any, j.spec.Right.Arity)
	}
	v := make([]any, 0, len(l)+len(r))
	v = append(append(v, l...), r...)
	out.Emit(sql.Row{Kind: kind, Values: v})
}

func (j *streamingJoin) matches(in, other []any, inIsLeft bool) (bool, error) {
	if j.spec.Cond == nil {
		return true, nil
	}
	l, r := in, other
	if !inIsLeft {
		l, r = other, in
	}
	v := make([]any, 0, len(l)+len(r))
	v = append(append(v, l...), r...)
	b, err := j.spec.Cond(v)
	if err != nil {
		return false, fmt.Errorf("join condition: %w", err)
	}
	ok, _ := b.(bool)
	return ok, nil
}

// stateKey is the join key of row, or ok=false when a key field that is
// not null-safe is NULL.
func (j *streamingJoin) stateKey(vals []any, keys []int, nullSafe []bool) (string, bool, error) {
	for i, k := range keys {
		if vals[k] == nil && !(i < len(nullSafe) && nullSafe[i]) {
			return "", false, nil
		}
	}
	j.enc.Buf = j.enc.Buf[:0]
	if err := state.AppendKey(&j.enc, sql.Row{Values: vals}, keys); err != nil {
		return "", false, fmt.Errorf("Join key: %w", err)
	}
	return string(j.enc.Buf), true, nil
}

// find is the index of the record holding vals' identity under spec, or -1.
func find(recs []joinRecord, vals []any, spec *JoinSideSpec) int {
	switch spec.Kind {
	case JoinKeyContainsUniqueKey:
		if len(recs) > 0 {
			return 0
		}
	case HasUniqueKey:
		for i, r := range recs {
			if keyEqual(r.vals, vals, spec.UniqueKey) {
				return i
			}
		}
	default:
		for i, r := range recs {
			if ValuesEqual(r.vals, vals) {
				return i
			}
		}
	}
	return -1
}

func keyEqual(a, b []any, idx []int) bool {
	for _, i := range idx {
		if !ValuesEqual([]any{a[i]}, []any{b[i]}) {
			return false
		}
	}
	return true
}

// add stores vals (an accumulate) with assoc associations and reports
// whether it replaced a row of the same identity.
func add(recs []joinRecord, vals []any, assoc int64, spec *JoinSideSpec) ([]joinRecord, bool) {
	i := find(recs, vals, spec)
	if i < 0 {
		return append(recs, joinRecord{vals: vals, count: 1, assoc: assoc}), false
	}
	recs = append([]joinRecord(nil), recs...)
	if spec.Kind == NoUniqueKey {
		recs[i].count++
		recs[i].assoc = assoc
		return recs, false
	}
	recs[i] = joinRecord{vals: vals, count: 1, assoc: assoc}
	return recs, true
}

// retract removes one copy of vals; a row not in state changes nothing.
func retract(recs []joinRecord, vals []any, spec *JoinSideSpec) []joinRecord {
	i := find(recs, vals, spec)
	if i < 0 {
		return recs
	}
	if spec.Kind == NoUniqueKey && recs[i].count > 1 {
		recs = append([]joinRecord(nil), recs...)
		recs[i].count--
		return recs
	}
	return append(recs[:i:i], recs[i+1:]...)
}

func put(t state.Table[[]joinRecord], key string, recs []joinRecord) error {
	if len(recs) == 0 {
		return t.Delete(key)
	}
	return t.Put(key, recs)
}

// association is an input row's join-key bucket on both sides and the rows
// of the other side it matches (Flink's AssociatedRecords).
type association struct {
	key               string
	keyed             bool // false when the row's join key has a NULL
	inRecs, otherRecs []joinRecord
	matched           []int // indexes into otherRecs
	total             int64 // the matched rows' counts, summed
}

// associate reads the input row's key bucket of both sides and finds the
// other side's rows that satisfy the join condition with it.
func (j *streamingJoin) associate(r sql.Row, inIsLeft bool) (association, error) {
	inSpec, _, inT, otherT := j.side(inIsLeft)
	var a association
	var err error
	if a.key, a.keyed, err = j.stateKey(r.Values, inSpec.Keys, inSpec.NullSafe); err != nil || !a.keyed {
		return a, err
	}
	if a.inRecs, _, err = inT.Get(a.key); err != nil {
		return a, err
	}
	// Both sides' keys encode alike: the planner gives paired key fields
	// one type.
	if a.otherRecs, _, err = otherT.Get(a.key); err != nil {
		return a, err
	}
	for i, o := range a.otherRecs {
		m, err := j.matches(r.Values, o.vals, inIsLeft)
		if err != nil {
			return a, err
		}
		if m {
			a.matched = append(a.matched, i)
			a.total += o.count
		}
	}
	return a, nil
}

func (j *streamingJoin) process(r sql.Row, inIsLeft bool, out *runtime.Collector) error {
	if j.spec.Semi || j.spec.Anti {
		return j.processSemiAnti(r, inIsLeft, out)
	}
	inSpec, otherSpec, inT, otherT := j.side(inIsLeft)
	a, err := j.associate(r, inIsLeft)
	if err != nil {
		return err
	}
	inKey, ok, inRecs, otherRecs, matched, total := a.key, a.keyed, a.inRecs, a.otherRecs, a.matched, a.total
	otherChanged := false
	if r.Kind.IsAdd() {
		replaces := false
		if ok {
			replaces = find(inRecs, r.Values, inSpec) >= 0 && inSpec.Kind != NoUniqueKey
		}
		if otherSpec.Outer && len(matched) > 0 {
			otherRecs = append([]joinRecord(nil), otherRecs...)
			for _, i := range matched {
				o := &otherRecs[i]
				if o.assoc == 0 {
					for c := int64(0); c < o.count; c++ {
						j.output(sql.Delete, nil, o.vals, inIsLeft, out)
					}
				}
				if o.assoc == 0 || !replaces {
					o.assoc++
				}
			}
			otherChanged = true
		}
		kind := sql.Insert
		if !inSpec.Outer && !otherSpec.Outer {
			kind = r.Kind
		}
		if len(matched) == 0 && inSpec.Outer {
			j.output(sql.Insert, r.Values, nil, inIsLeft, out)
		}
		for _, i := range matched {
			for c := int64(0); c < otherRecs[i].count; c++ {
				j.output(kind, r.Values, otherRecs[i].vals, inIsLeft, out)
			}
		}
		if ok {
			vals := append([]any(nil), r.Values...)
			inRecs, _ = add(inRecs, vals, total, inSpec)
		}
	} else {
		if ok {
			inRecs = retract(inRecs, r.Values, inSpec)
		}
		if len(matched) == 0 {
			if inSpec.Outer {
				j.output(sql.Delete, r.Values, nil, inIsLeft, out)
			}
		} else {
			kind := r.Kind
			if inSpec.Outer {
				kind = sql.Delete
			}
			for _, i := range matched {
				for c := int64(0); c < otherRecs[i].count; c++ {
					j.output(kind, r.Values, otherRecs[i].vals, inIsLeft, out)
				}
			}
			if otherSpec.Outer {
				otherRecs = append([]joinRecord(nil), otherRecs...)
				for _, i := range matched {
					o := &otherRecs[i]
					if o.assoc == 1 {
						for c := int64(0); c < o.count; c++ {
							j.output(sql.Insert, nil, o.vals, inIsLeft, out)
						}
					}
					o.assoc--
				}
				otherChanged = true
			}
		}
	}
	if !ok {
		return nil
	}
	if err := put(inT, inKey, inRecs); err != nil {
		return err
	}
	if otherChanged {
		return put(otherT, inKey, otherRecs)
	}
	return nil
}

// processSemiAnti is Flink's StreamingSemiAntiJoinOperator
// (flink-table-runtime .../join/stream/StreamingSemiAntiJoinOperator.java):
//
//   - a left row is emitted as it came (its own kind) when it has a match
//     (semi) or none (anti), and is stored with its number of matches;
//   - a right accumulate is stored; every matching left row that had no
//     match yet is emitted: semi with the input's kind (+I/+U), anti as -D;
//   - a right retraction leaves the state; every matching left row whose
//     last match it was is emitted: semi with the input's kind (-D/-U),
//     anti as +I.
//
// A right accumulate that replaces a row of the same unique key does not
// count its matches again (as for outer joins, see StreamingJoin).
func (j *streamingJoin) processSemiAnti(r sql.Row, inIsLeft bool, out *runtime.Collector) error {
	inSpec, _, inT, otherT := j.side(inIsLeft)
	a, err := j.associate(r, inIsLeft)
	if err != nil {
		return err
	}
	key, ok, inRecs, otherRecs, matched, total := a.key, a.keyed, a.inRecs, a.otherRecs, a.matched, a.total
	emit := func(kind sql.RowKind, vals []any, n int64) {
		for c := int64(0); c < n; c++ {
			out.Emit(sql.Row{Kind: kind, Values: vals})
		}
	}
	if inIsLeft {
		if (len(matched) == 0) == j.spec.Anti {
			out.Emit(r)
		}
		if !ok {
			return nil
		}
		if r.Kind.IsAdd() {
			inRecs, _ = add(inRecs, append([]any(nil), r.Values...), total, inSpec)
		} else {
			inRecs = retract(inRecs, r.Values, inSpec)
		}
		return put(inT, key, inRecs)
	}
	if !ok {
		return nil
	}
	otherChanged := len(matched) > 0
	if otherChanged {
		otherRecs = append([]joinRecord(nil), otherRecs...)
	}
	if r.Kind.IsAdd() {
		replaces := find(inRecs, r.Values, inSpec) >= 0 && inSpec.Kind != NoUniqueKey
		for _, i := range matched {
			o := &otherRecs[i]
			if o.assoc == 0 {
				kind := r.Kind
				if j.spec.Anti {
					kind = sql.Delete
				}
				emit(kind, o.vals, o.count)
			}
			if o.assoc == 0 || !replaces {
				o.assoc++
			}
		}
		inRecs, _ = add(inRecs, append([]any(nil), r.Values...), 0, inSpec)
	} else {
		inRecs = retract(inRecs, r.Values, inSpec)
		for _, i := range matched {
			o := &otherRecs[i]
			if o.assoc == 1 {
				kind := r.Kind
				if j.spec.Anti {
					kind = sql.Insert
				}
				emit(kind, o.vals, o.count)
			}
			o.assoc--
		}
	}
	if err := put(inT, key, inRecs); err != nil {
		return err
	}
	if otherChanged {
		return put(otherT, key, otherRecs)
	}
	return nil
}
