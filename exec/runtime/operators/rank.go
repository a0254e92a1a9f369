package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// RankStrategy is how a Top-N consumes its input (Flink's
// RankProcessStrategy).
type RankStrategy int

// The strategies: AppendFast for insert-only input (AppendOnlyTopNFunction),
// UpdateFast for an upsert input whose sort keys only improve
// (UpdatableTopNFunction), Retract for any changelog with -U/-D
// (RetractableTopNFunction).
const (
	AppendFast RankStrategy = iota
	UpdateFast
	Retract
)

// RankSpec configures TopN: ROW_NUMBER() OVER (PARTITION BY Partition
// ORDER BY Order), the rows ranked Start to End.
type RankSpec struct {
	Partition []int
	Order     []SortKey
	Start     int64
	End       int64
	// OutputNumber appends the row number to every row.
	OutputNumber bool
	Strategy     RankStrategy
	// RowKey is UpdateFast's key: the input's upsert key.
	RowKey               []int
	GenerateUpdateBefore bool
}

// TopN keeps the top End rows of each partition and emits the changes of
// the ranks Start to End, as Flink's AppendOnlyTopNFunction,
// UpdatableTopNFunction and RetractableTopNFunction do.
//
// Each partition's state is its rows in rank order (ties in arrival
// order), each with an id: AppendFast and UpdateFast keep only the top End
// rows (a row that leaves them never comes back: the input only appends,
// or only improves a row's sort key), Retract keeps every row. The output
// is the difference between the ranks before and after a row, in the
// order Flink's functions emit it: with the row number (or a rank offset),
// for each rank that changed in rank order -U of the old row and +U of the
// new one, +I for a rank newly filled, -D for one emptied; without it, -D
// of the row that left the range and +I of the one that entered (+I first
// for UpdateFast), and -U/+U of a row updated in place.
func TopN(spec RankSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &topN{spec: spec, parts: state.NewMemTable(rankPartCodec)}, nil
	}
}

type rankRow struct {
	id  int64
	row sql.Row
}

// rankPart is one partition's state.
type rankPart struct {
	seq  int64 // the last id given
	rows []rankRow
}

var rankPartCodec = state.Codec[*rankPart]{
	Encode: func(e *state.Encoder, p *rankPart) error {
		e.Uvarint(uint64(p.seq))
		e.Uvarint(uint64(len(p.rows)))
		for _, r := range p.rows {
			e.Uvarint(uint64(r.id))
			if err := e.Row(r.row); err != nil {
				return err
			}
		}
		return nil
	},
	Decode: func(d *state.Decoder) (*rankPart, error) {
		seq, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		p := &rankPart{seq: int64(seq), rows: make([]rankRow, n)}
		for i := range p.rows {
			id, err := d.Uvarint()
			if err != nil {
				return nil, err
			}
			if p.rows[i].row, err = d.Row(); err != nil {
				return nil, err
			}
			p.rows[i].id = int64(id)
		}
		return p, nil
	},
}

type topN struct {
	runtime.Base
	spec  RankSpec
	parts state.Table[*rankPart]
	enc   state.Encoder
}

func (t *topN) Open(ctx *runtime.Context, restored []byte) error {
	if err := t.open(ctx); err != nil {
		return err
	}
	if restored != nil {
		return t.parts.Restore(restored)
	}
	return nil
}

// OpenRescaled restores at a new parallelism.
func (t *topN) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := t.open(ctx); err != nil {
		return err
	}
	return t.parts.RestoreFiltered(blobs, owns)
}

func (t *topN) open(ctx *runtime.Context) (err error) {
	t.parts, err = newTable(ctx, "partitions", rankPartCodec)
	return err
}

func (t *topN) Snapshot(int64) ([]byte, error) { return t.parts.Snapshot() }

func (t *topN) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if err := t.process(r, out); err != nil {
			return err
		}
	}
	return nil
}

// compare orders two rows by the sort keys (NULLs as each key says).
func (t *topN) compare(a, b sql.Row) (int, error) {
	c, err := compareBy(t.spec.Order, a, b)
	if err != nil {
		return 0, fmt.Errorf("Rank: %w", err)
	}
	return c, nil
}

// compareBy orders two rows by the sort keys (NULLs as each key says).
func compareBy(order []SortKey, a, b sql.Row) (int, error) {
	return compareSortKeys(a.Values, b.Values, order)
}

// insertAt is where r goes: after every row that does not sort after it.
func (t *topN) insertAt(rows []rankRow, r sql.Row) (int, error) {
	lo, hi := 0, len(rows)
	for lo < hi {
		mid := (lo + hi) / 2
		c, err := t.compare(rows[mid].row, r)
		if err != nil {
			return 0, err
		}
		if c <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

func (t *topN) process(r sql.Row, out *runtime.Collector) error {
	t.enc.Buf = t.enc.Buf[:0]
	if err := state.AppendKey(&t.enc, r, t.spec.Partition); err != nil {
		return fmt.Errorf("Rank key: %w", err)
	}
	key := string(t.enc.Buf)
	p, ok, err := t.parts.Get(key)
	if err != nil {
		return err
	}
	if !ok {
		p = &rankPart{}
	}
	before := p.rows
	after := append([]rankRow(nil), before...)
	accumulate := r.Kind == sql.Insert || r.Kind == sql.UpdateAfter
	if r.Kind == sql.UpdateBefore && t.spec.Strategy == UpdateFast {
		return nil // not asked for; the +U carries the change
	}
	if t.spec.Strategy == AppendFast && !accumulate {
		return fmt.Errorf("Rank with AppendFastStrategy expects insert-only input, got %s", r.Kind)
	}
	var updated int64 = -1 // UpdateFast: the id whose row was replaced
	switch {
	case t.spec.Strategy == UpdateFast:
		old := -1
		for i, x := range after {
			if keyEqual(x.row.Values, r.Values, t.spec.RowKey) {
				old = i
				break
			}
		}
		if old >= 0 {
			updated = after[old].id
			after = append(after[:old], after[old+1:]...)
		}
		if accumulate {
			at, err := t.insertAt(after, r)
			if err != nil {
				return err
			}
			p.seq++
			after = insertRow(after, at, rankRow{id: p.seq, row: sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}})
		}
	case accumulate:
		at, err := t.insertAt(after, r)
		if err != nil {
			return err
		}
		p.seq++
		after = insertRow(after, at, rankRow{id: p.seq, row: sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}})
	default:
		// Retract the first row equal to r among those of its sort key.
		at, err := t.insertAt(after, r)
		if err != nil {
			return err
		}
		found := -1
		for i := at - 1; i >= 0; i-- {
			c, err := t.compare(after[i].row, r)
			if err != nil {
				return err
			}
			if c != 0 {
				break
			}
			if ValuesEqual(after[i].row.Values, r.Values) {
				found = i
			}
		}
		if found < 0 {
			// Flink's RetractableTopNFunction: a retraction of a row it
			// does not hold (state expired) is ignored.
			return nil
		}
		after = append(after[:found], after[found+1:]...)
	}
	if t.spec.Strategy != Retract && int64(len(after)) > t.spec.End {
		after = after[:t.spec.End]
	}
	t.emit(before, after, updated, out)
	if len(after) == 0 {
		return t.parts.Delete(key)
	}
	p.rows = after
	return t.parts.Put(key, p)
}

func insertRow(rows []rankRow, at int, r rankRow) []rankRow {
	rows = append(rows, rankRow{})
	copy(rows[at+1:], rows[at:])
	rows[at] = r
	return rows
}

// emit sends the changes between the ranks before and after.
func (t *topN) emit(before, after []rankRow, updated int64, out *runtime.Collector) {
	s := t.spec
	if s.OutputNumber || s.Start > 1 {
		for rank := s.Start; rank <= s.End; rank++ {
			i := int(rank - 1)
			var o, n *rankRow
			if i < len(before) {
				o = &before[i]
			}
			if i < len(after) {
				n = &after[i]
			}
			switch {
			case o == nil && n == nil:
				return
			case o == nil:
				t.collect(out, sql.Insert, n.row, rank)
			case n == nil:
				t.collect(out, sql.Delete, o.row, rank)
			case o.id != n.id:
				t.collect(out, sql.UpdateBefore, o.row, rank)
				t.collect(out, sql.UpdateAfter, n.row, rank)
			}
		}
		return
	}
	in := func(rows []rankRow, id int64) bool {
		for _, r := range rows[:min(int64(len(rows)), s.End)] {
			if r.id == id {
				return true
			}
		}
		return false
	}
	top := func(rows []rankRow) []rankRow { return rows[:min(int64(len(rows)), s.End)] }
	var gone, came []sql.Row
	var old, now *sql.Row
	for _, r := range top(before) {
		if !in(after, r.id) {
			if r.id == updated {
				row := r.row
				old = &row
				continue
			}
			gone = append(gone, r.row)
		}
	}
	for _, r := range top(after) {
		if !in(before, r.id) {
			if updated >= 0 && r.id == t.lastID(after) && old != nil {
				row := r.row
				now = &row
				continue
			}
			came = append(came, r.row)
		}
	}
	if old != nil && now == nil {
		gone = append(gone, *old)
	}
	if s.Strategy == UpdateFast {
		if now != nil {
			t.collect(out, sql.UpdateBefore, *old, 0)
			t.collect(out, sql.UpdateAfter, *now, 0)
		}
		for _, r := range came {
			t.collect(out, sql.Insert, r, 0)
		}
		for _, r := range gone {
			t.collect(out, sql.Delete, r, 0)
		}
		return
	}
	for _, r := range gone {
		t.collect(out, sql.Delete, r, 0)
	}
	for _, r := range came {
		t.collect(out, sql.Insert, r, 0)
	}
}

// lastID is the newest id among rows (the row just added).
func (t *topN) lastID(rows []rankRow) int64 {
	var id int64 = -1
	for _, r := range rows {
		if r.id > id {
			id = r.id
		}
	}
	return id
}

// collect emits row as kind, with the rank number when the spec outputs
// it; -U only for a consumer that needs it.
func (t *topN) collect(out *runtime.Collector, kind sql.RowKind, row sql.Row, rank int64) {
	if kind == sql.UpdateBefore && !t.spec.GenerateUpdateBefore {
		return
	}
	vals := row.Values
	if t.spec.OutputNumber {
		vals = append(append(make([]any, 0, len(vals)+1), vals...), rank)
	}
	out.Emit(sql.Row{Kind: kind, Values: vals})
}
