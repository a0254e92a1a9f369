package operators

import (
	"fmt"
	"math"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// BoundKind is one end of a batch OVER window's frame.
type BoundKind uint8

// The frame bounds (Calcite's RexWindowBound).
const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is a frame bound; Offset is n of n PRECEDING / n FOLLOWING
// (rows for ROWS, the order key's units for RANGE: milliseconds for a
// TIMESTAMP key).
type FrameBound struct {
	Kind   BoundKind
	Offset int64
}

// RankFunc is a ranking function of a batch OVER window.
type RankFunc uint8

// The ranking functions; NoRank is an aggregate call. Lead, Lag, NTile,
// CumeDist and PercentRank are the other window functions of a batch
// OverAggregate (only in BatchOverCall).
const (
	NoRank RankFunc = iota
	RowNumber
	RankNumber
	DenseRank
	Lead
	Lag
	NTile
	CumeDist
	PercentRank
)

// BatchOverCall is one call of a batch OVER window: a ranking or other
// window function, or the aggregate Agg over the frame.
type BatchOverCall struct {
	Rank RankFunc
	Agg  AggSpec
	// Lead and Lag: the value of column Arg Offset rows after (Lead) or
	// before (Lag) the current row in the partition's order, as Flink's
	// OffsetOverFrame reads it; past the partition's ends the current
	// row's column DefaultArg when it is >= 0, else Default (nil without
	// one; the planner has cast it to the value's type).
	Arg        int
	Offset     int64
	Default    any
	DefaultArg int
	// NTile: the number of buckets. A row's bucket is that of the row
	// count of its frame (Flink's NTILEAggFunction numbers the rows it
	// accumulates), the first (rows % Buckets) buckets one row larger.
	Buckets int64
}

// BatchRankFilter makes the operator Flink's global batch Rank: only the
// rows ranked Start..End by Func are emitted, with their number when
// OutputNumber.
type BatchRankFilter struct {
	Func         RankFunc
	Start, End   int64
	OutputNumber bool
}

// BatchOverSpec configures BatchOver.
type BatchOverSpec struct {
	Partition []int
	Order     []SortKey
	// Rows is a ROWS frame (RANGE otherwise).
	Rows         bool
	Lower, Upper FrameBound
	Calls        []BatchOverCall
	// Rank, when set, replaces Calls (see BatchRankFilter).
	Rank *BatchRankFilter
	// TopN, when set, bounds the rows kept per partition (see BatchTopN).
	TopN *BatchTopN
}

// BatchTopN says that only the rows TopN.Func numbers 1..End in their
// partition are read downstream (a filter rn <= End above the window, a
// Rank's range): the operator keeps per partition only the rows that can
// still be among them, the first End by the order keys (ties in arrival
// order) for ROW_NUMBER and, since ties share a number, every row tied
// with the End-th for RANK and DENSE_RANK. The rows kept are a prefix of
// the partition's sorted rows, so every ranking number of a kept row is
// the one the whole partition gives it. Local makes the operator Flink's
// local batch Rank: it emits the kept rows as they arrived, unnumbered.
type BatchTopN struct {
	Func  RankFunc
	End   int64
	Local bool
}

// BatchOver is Flink's batch OVER aggregation
// (BatchPhysicalOverAggregate's BufferDataOverWindowOperator and
// NonBufferOverWindowOperator) and its global Rank (RankOperator): a
// bounded input is buffered, sorted by the partition keys and the window's
// order keys at end of input, and each partition is walked in that order:
// every row is emitted once, followed by its ranking numbers and the
// aggregates over its frame (a RANGE frame's CURRENT ROW takes the row's
// peers, the rows of an equal order key; n PRECEDING / n FOLLOWING compare
// the first order key's value, a NULL key's frame being its peers). The
// sort is stable, so rows of equal keys keep their arrival order.
func BatchOver(spec BatchOverSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		b := &batchOver{spec: spec}
		for _, c := range spec.Calls {
			if c.Rank == NoRank {
				b.aggIdx = append(b.aggIdx, len(b.agg.spec.Aggs))
				b.agg.spec.Aggs = append(b.agg.spec.Aggs, c.Agg)
			} else {
				b.aggIdx = append(b.aggIdx, -1)
			}
		}
		return b, nil
	}
}

type batchOver struct {
	runtime.Base
	spec   BatchOverSpec
	agg    groupAgg // apply and result over the frame's accumulators
	aggIdx []int    // each call's index in agg's calls, -1 for a ranking call
	rows   []sql.Row
	// With spec.TopN: the kept rows by partition key, and the arrival
	// number of the next row.
	parts map[string]*topNPart
	seq   int64
	enc   state.Encoder
}

// topNPart is one partition's kept rows: a prefix of them in (order keys,
// arrival) order, then rows added since, in arrival order.
type topNPart struct {
	rows  []seqRow
	limit int // compact when rows reach it
	// full: the kept rows reach End; last is then the last of them, and a
	// row sorting after it (for ROW_NUMBER: not before it) cannot make it.
	full bool
	last []any
}

type seqRow struct {
	row sql.Row
	seq int64
}

func (b *batchOver) Open(_ *runtime.Context, restored []byte) error {
	if restored != nil {
		d := state.Decoder{Buf: restored}
		rs, err := state.RowsCodec.Decode(&d)
		if err != nil {
			return fmt.Errorf("OverAggregate: %w", err)
		}
		if b.spec.TopN != nil {
			return b.ProcessBatch(0, rs, nil)
		}
		b.rows = rs
	}
	return nil
}

func (b *batchOver) Snapshot(int64) ([]byte, error) {
	var e state.Encoder
	rows := b.rows
	if b.spec.TopN != nil {
		rows = b.keptRows()
	}
	err := state.RowsCodec.Encode(&e, rows)
	return e.Buf, err
}

func (b *batchOver) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("%s expects insert-only input, got %s", b.name(), r.Kind)
		}
	}
	if b.spec.TopN == nil {
		b.rows = append(b.rows, rows...)
		return nil
	}
	for _, r := range rows {
		if err := b.keep(r); err != nil {
			return fmt.Errorf("%s: %w", b.name(), err)
		}
	}
	return nil
}

func (b *batchOver) name() string {
	if b.spec.Rank != nil || (b.spec.TopN != nil && b.spec.TopN.Local) {
		return "Rank"
	}
	return "OverAggregate"
}

// keep adds r to its partition's kept rows unless it cannot make the
// first End.
func (b *batchOver) keep(r sql.Row) error {
	t := b.spec.TopN
	if t.End < 1 {
		return nil
	}
	if b.parts == nil {
		b.parts = map[string]*topNPart{}
	}
	b.enc.Buf = b.enc.Buf[:0]
	if err := state.AppendKey(&b.enc, r, b.spec.Partition); err != nil {
		return err
	}
	p := b.parts[string(b.enc.Buf)]
	if p == nil {
		p = &topNPart{limit: 16}
		b.parts[string(b.enc.Buf)] = p
	}
	if p.full {
		d, err := compareSortKeys(r.Values, p.last, b.spec.Order)
		if err != nil {
			return err
		}
		if d > 0 || (d == 0 && t.Func == RowNumber) {
			return nil
		}
	}
	p.rows = append(p.rows, seqRow{row: r, seq: b.seq})
	b.seq++
	if len(p.rows) >= p.limit {
		return b.compact(p)
	}
	return nil
}

// compact sorts a partition's rows by the order keys (stably: the sorted
// prefix comes first and rows added since came in arrival order, so ties
// stay in arrival order) and drops those past the End-th number.
func (b *batchOver) compact(p *topNPart) error {
	var cmpErr error
	sort.SliceStable(p.rows, func(i, j int) bool {
		d, err := compareSortKeys(p.rows[i].row.Values, p.rows[j].row.Values, b.spec.Order)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return d < 0
	})
	if cmpErr != nil {
		return cmpErr
	}
	t := b.spec.TopN
	n, groups := 0, int64(0)
	for n < len(p.rows) {
		if n > 0 {
			d, err := compareSortKeys(p.rows[n-1].row.Values, p.rows[n].row.Values, b.spec.Order)
			if err != nil {
				return err
			}
			if d != 0 {
				if (t.Func == RankNumber && int64(n) >= t.End) || (t.Func == DenseRank && groups >= t.End) {
					break
				}
				groups++
			}
		} else {
			groups = 1
		}
		if t.Func == RowNumber && int64(n) >= t.End {
			break
		}
		n++
	}
	clear(p.rows[n:])
	p.rows = p.rows[:n]
	switch t.Func {
	case RowNumber, RankNumber:
		p.full = int64(n) >= t.End
	default:
		p.full = groups >= t.End
	}
	if p.full {
		p.last = p.rows[n-1].row.Values
	}
	p.limit = 2*n + 16
	return nil
}

// keptRows are the kept rows of every partition in arrival order.
func (b *batchOver) keptRows() []sql.Row {
	var all []seqRow
	for _, p := range b.parts {
		all = append(all, p.rows...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	rows := make([]sql.Row, len(all))
	for i, r := range all {
		rows[i] = r.row
	}
	return rows
}

// compareSortKeys orders two rows by keys (NULLs as each key says).
func compareSortKeys(a, c []any, keys []SortKey) (int, error) {
	for _, k := range keys {
		x, y := a[k.Index], c[k.Index]
		if x == nil || y == nil {
			if x == nil && y == nil {
				continue
			}
			if (x == nil) == k.NullsFirst {
				return -1, nil
			}
			return 1, nil
		}
		d, err := Compare(x, y)
		if err != nil {
			return 0, err
		}
		if d != 0 {
			if k.Desc {
				return -d, nil
			}
			return d, nil
		}
	}
	return 0, nil
}

func (b *batchOver) Finish(out *runtime.Collector) error {
	if b.spec.TopN != nil {
		for _, p := range b.parts {
			if err := b.compact(p); err != nil {
				return fmt.Errorf("%s: %w", b.name(), err)
			}
		}
		b.rows, b.parts = b.keptRows(), nil
		if b.spec.TopN.Local {
			for _, r := range b.rows {
				out.Emit(r)
			}
			b.rows = nil
			return nil
		}
	}
	part := make([]SortKey, len(b.spec.Partition))
	for i, p := range b.spec.Partition {
		part[i] = SortKey{Index: p, NullsFirst: true}
	}
	all := append(append([]SortKey(nil), part...), b.spec.Order...)
	var cmpErr error
	sort.SliceStable(b.rows, func(i, j int) bool {
		d, err := compareSortKeys(b.rows[i].Values, b.rows[j].Values, all)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return d < 0
	})
	if cmpErr != nil {
		return fmt.Errorf("OverAggregate: %w", cmpErr)
	}
	for s := 0; s < len(b.rows); {
		e := s + 1
		for e < len(b.rows) {
			d, err := compareSortKeys(b.rows[s].Values, b.rows[e].Values, part)
			if err != nil {
				return fmt.Errorf("OverAggregate: %w", err)
			}
			if d != 0 {
				break
			}
			e++
		}
		if err := b.partition(b.rows[s:e], out); err != nil {
			return err
		}
		s = e
	}
	b.rows = nil
	return nil
}

// partition emits one partition's rows, sorted by the order keys.
func (b *batchOver) partition(rows []sql.Row, out *runtime.Collector) error {
	n := len(rows)
	// peerStart[i] / peerEnd[i]: the rows whose order keys equal row i's.
	peerStart, peerEnd := make([]int, n), make([]int, n)
	dense := make([]int64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n {
			d, err := compareSortKeys(rows[i].Values, rows[j].Values, b.spec.Order)
			if err != nil {
				return fmt.Errorf("OverAggregate: %w", err)
			}
			if d != 0 {
				break
			}
			j++
		}
		g := int64(1)
		if i > 0 {
			g = dense[i-1] + 1
		}
		for k := i; k < j; k++ {
			peerStart[k], peerEnd[k], dense[k] = i, j, g
		}
		i = j
	}
	if r := b.spec.Rank; r != nil {
		for i, row := range rows {
			var num int64
			switch r.Func {
			case RowNumber:
				num = int64(i) + 1
			case RankNumber:
				num = int64(peerStart[i]) + 1
			default:
				num = dense[i]
			}
			if num < r.Start || num > r.End {
				continue
			}
			vals := row.Values
			if r.OutputNumber {
				vals = append(append(make([]any, 0, len(vals)+1), vals...), num)
			}
			out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
		}
		return nil
	}
	grp := &group{accs: make([]acc, len(b.agg.spec.Aggs))}
	lo, hi := 0, 0   // grp holds rows[lo:hi]
	frameCount := -1 // row i's frame size, for NTILE
	for i, row := range rows {
		frameCount = -1
		var aggVals []any
		if len(b.agg.spec.Aggs) > 0 {
			flo, fhi, err := b.frame(rows, i, peerStart, peerEnd)
			if err != nil {
				return err
			}
			if fhi < flo {
				fhi = flo
			}
			frameCount = fhi - flo
			if flo >= hi || flo < lo || fhi < hi {
				// Frames only move forward; anything else starts over.
				grp = &group{accs: make([]acc, len(b.agg.spec.Aggs))}
				lo, hi = flo, flo
			}
			for ; hi < fhi; hi++ {
				if err := b.agg.apply(grp, rows[hi], true); err != nil {
					return err
				}
			}
			for ; lo < flo; lo++ {
				if err := b.agg.apply(grp, rows[lo], false); err != nil {
					return err
				}
			}
			if aggVals, err = b.agg.result(grp); err != nil {
				return err
			}
		}
		vals := append(make([]any, 0, len(row.Values)+len(b.spec.Calls)), row.Values...)
		for c, call := range b.spec.Calls {
			switch call.Rank {
			case RowNumber:
				vals = append(vals, int64(i)+1)
			case RankNumber:
				vals = append(vals, int64(peerStart[i])+1)
			case DenseRank:
				vals = append(vals, dense[i])
			case Lead, Lag:
				vals = append(vals, offsetValue(rows, i, call))
			case NTile:
				if frameCount < 0 {
					flo, fhi, err := b.frame(rows, i, peerStart, peerEnd)
					if err != nil {
						return err
					}
					frameCount = max(fhi-flo, 0)
				}
				vals = append(vals, ntileBucket(int64(frameCount), int64(n), call.Buckets))
			case CumeDist:
				vals = append(vals, float64(peerEnd[i])/float64(n))
			case PercentRank:
				pr := 0.0
				if n > 1 {
					pr = float64(peerStart[i]) / float64(n-1)
				}
				vals = append(vals, pr)
			default:
				vals = append(vals, aggVals[b.aggIdx[c]])
			}
		}
		out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
	}
	return nil
}

// offsetValue is LEAD's or LAG's value for row i (OffsetOverFrame).
func offsetValue(rows []sql.Row, i int, call BatchOverCall) any {
	off := call.Offset
	if call.Rank == Lag {
		off = -off
	}
	j := int64(i) + off
	if off > 0 && j < int64(i) || off < 0 && j > int64(i) || j < 0 || j >= int64(len(rows)) {
		if call.DefaultArg >= 0 {
			return rows[i].Values[call.DefaultArg]
		}
		return call.Default
	}
	return rows[j].Values[call.Arg]
}

// ntileBucket is the bucket NTILEAggFunction gives the r-th row of n in
// k buckets: n/k rows each, the first n%k buckets one more; 0 for r = 0.
func ntileBucket(r, n, k int64) int64 {
	if r <= 0 || k <= 0 {
		return 0
	}
	q, m := n/k, n%k
	if q == 0 || r <= m*(q+1) {
		return (r-1)/(q+1) + 1
	}
	return m + (r-1-m*(q+1))/q + 1
}

// frame is row i's frame, rows[lo:hi].
func (b *batchOver) frame(rows []sql.Row, i int, peerStart, peerEnd []int) (lo, hi int, err error) {
	n := len(rows)
	if b.spec.Rows {
		pos := func(fb FrameBound) int {
			switch fb.Kind {
			case UnboundedPreceding:
				return 0
			case Preceding:
				return i - int(min(fb.Offset, int64(n)))
			case Following:
				return i + int(min(fb.Offset, int64(n)))
			case UnboundedFollowing:
				return n - 1
			}
			return i
		}
		lo, hi = max(pos(b.spec.Lower), 0), min(pos(b.spec.Upper), n-1)+1
		return lo, max(hi, lo), nil
	}
	lo, err = b.rangeBound(rows, i, b.spec.Lower, true, peerStart, peerEnd)
	if err != nil {
		return 0, 0, err
	}
	hi, err = b.rangeBound(rows, i, b.spec.Upper, false, peerStart, peerEnd)
	if err != nil {
		return 0, 0, err
	}
	return lo, max(hi, lo), nil
}

// rangeBound is a RANGE frame's first row (lower) or its end (upper,
// exclusive) for row i.
func (b *batchOver) rangeBound(rows []sql.Row, i int, fb FrameBound, lower bool, peerStart, peerEnd []int) (int, error) {
	switch fb.Kind {
	case UnboundedPreceding:
		return 0, nil
	case UnboundedFollowing:
		return len(rows), nil
	case CurrentRow:
		if lower {
			return peerStart[i], nil
		}
		return peerEnd[i], nil
	}
	key := b.spec.Order[0]
	v := rows[i].Values[key.Index]
	if v == nil {
		if lower {
			return peerStart[i], nil
		}
		return peerEnd[i], nil
	}
	// The bound's value: the key moved back (PRECEDING) or forward
	// (FOLLOWING) in the order's direction.
	off := fb.Offset
	if fb.Kind == Preceding {
		off = -off
	}
	if key.Desc {
		off = -off
	}
	// Rows sort by the key in the order's direction; NULLs sit at one end.
	var err error
	before := func(j int) bool { // row j sorts before the bound
		x := rows[j].Values[key.Index]
		if x == nil {
			return key.NullsFirst
		}
		d, e := compareShifted(x, v, off)
		if e != nil && err == nil {
			err = e
		}
		if key.Desc {
			d = -d
		}
		if lower {
			return d < 0
		}
		return d <= 0
	}
	j := sort.Search(len(rows), func(j int) bool { return !before(j) })
	return j, err
}

// compareShifted compares x with v+off.
func compareShifted(x, v any, off int64) (int, error) {
	switch a := x.(type) {
	case int8, int16, int32, int64:
		xi, vi := toInt64(a), toInt64(v)
		// v+off saturates instead of wrapping.
		bound := vi + off
		if off > 0 && bound < vi {
			bound = math.MaxInt64
		} else if off < 0 && bound > vi {
			bound = math.MinInt64
		}
		switch {
		case xi < bound:
			return -1, nil
		case xi > bound:
			return 1, nil
		}
		return 0, nil
	case float32:
		return cmpFloat(float64(a), toFloat(v)+float64(off)), nil
	case float64:
		return cmpFloat(a, toFloat(v)+float64(off)), nil
	case decimal.Decimal:
		w, ok := v.(decimal.Decimal)
		if !ok {
			break
		}
		return a.Cmp(w.Add(decimal.NewFromInt(off))), nil
	case sql.TimestampData:
		w, ok := v.(sql.TimestampData)
		if !ok {
			break
		}
		return a.Compare(sql.TimestampData{Millis: w.Millis + off, NanoOfMilli: w.NanoOfMilli}), nil
	}
	return 0, fmt.Errorf("OverAggregate: a RANGE frame with an offset cannot order by %T", x)
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
