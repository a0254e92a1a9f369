package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// OverSpec configures OverAggregate: aggregates over the rows of each
// partition ordered by a time attribute, in a frame that ends at the
// current row.
type OverSpec struct {
	Partition []int
	// TimeCol is the time attribute ordered by (a TIMESTAMP or
	// TIMESTAMP_LTZ value); Rowtime tells event time from processing
	// time.
	TimeCol int
	Rowtime bool
	// Rows is a ROWS frame (RANGE otherwise); Unbounded is UNBOUNDED
	// PRECEDING, else Preceding is the frame's lower bound: rows before the
	// current one (ROWS), or milliseconds (RANGE).
	Rows      bool
	Unbounded bool
	Preceding int64
	// Aggs are the aggregates (ROW_NUMBER is COUNT(*) over a ROWS frame).
	Aggs []AggSpec
	// Lags are the LAG calls, each placed at its Pos among the window's
	// calls (Aggs fill the other places, in order).
	Lags []OverLag
}

// OverLag is a LAG call over an unbounded frame, as Flink's LagAggFunction
// runs it: the partition keeps the column Arg of the last Offset+1 rows it
// accumulated, and a row's value is the first of them, or, while fewer
// than Offset+1 rows were accumulated, the default of the last row
// accumulated: its column DefaultArg when >= 0, else Default.
type OverLag struct {
	Pos        int
	Arg        int
	Offset     int64
	Default    any
	DefaultArg int
}

// OverAggregate is Flink's OVER aggregation (StreamExecOverAggregate's
// process functions): one output row per input row, the input row followed
// by the aggregates over the frame that ends at it.
//
// On event time (RowTimeRowsUnboundedPrecedingFunction,
// RowTimeRangeUnboundedPrecedingFunction, RowTimeRowsBoundedPrecedingFunction,
// RowTimeRangeBoundedPrecedingFunction) rows wait in keyed state until the
// watermark passes their timestamp, then are emitted in timestamp order
// (arrival order among equal timestamps); a RANGE frame holds all rows of
// a timestamp, so they share one result. A row is late, and dropped as
// Flink drops it, when its timestamp is not after the watermark
// (unbounded frames) or not after the last timestamp its partition emitted
// (bounded frames: Flink's lastTriggeringTs). On processing time each row is
// emitted when it arrives, its time attribute's value being its time.
//
// Bounded frames keep the rows inside the frame and retract those that
// leave it; unbounded frames keep only the accumulators. Pending rows,
// frames and accumulators are keyed state, checkpointed on either backend;
// the operator's watermark is checkpointed with them, so a restored job
// drops the same late rows.
func OverAggregate(spec OverSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &overAgg{spec: spec, agg: groupAgg{spec: AggregateSpec{Aggs: spec.Aggs}}}, nil
	}
}

type overAgg struct {
	runtime.Base
	spec  OverSpec
	agg   groupAgg // apply and result over the partition's accumulators
	parts state.Table[*overPart]
	// pending indexes the partitions with rows waiting, by timestamp
	// (Flink's event-time timers), rebuilt from the state on restore.
	pending keyTimers
	wm      int64
	enc     state.Encoder
}

// overPart is one partition's state.
type overPart struct {
	waiting []sql.Row // event time: rows the watermark has not passed
	frame   []sql.Row // bounded frames: the rows in the frame, oldest first
	last    int64     // bounded event-time frames: the last timestamp emitted
	grp     *group    // the frame's accumulators
	// lag and lagDef: each LAG call's last values and its last default.
	lag    [][]any
	lagDef []any
}

func overPartCodec(specs []AggSpec, lags int) state.Codec[*overPart] {
	rows := func(e *state.Encoder, rs []sql.Row) error {
		e.Uvarint(uint64(len(rs)))
		for _, r := range rs {
			if err := e.Row(r); err != nil {
				return err
			}
		}
		return nil
	}
	readRows := func(d *state.Decoder) ([]sql.Row, error) {
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		out := make([]sql.Row, n)
		for i := range out {
			if out[i], err = d.Row(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return state.Codec[*overPart]{
		Encode: func(e *state.Encoder, p *overPart) error {
			e.Varint(p.last)
			if err := rows(e, p.waiting); err != nil {
				return err
			}
			if err := rows(e, p.frame); err != nil {
				return err
			}
			if err := encodeGroup(specs, e, p.grp); err != nil {
				return err
			}
			if lags == 0 {
				return nil
			}
			// LAG's buffers (only with LAG calls: the state of a window
			// without any is as before).
			for _, b := range p.lag {
				if err := e.Row(sql.Row{Kind: sql.Insert, Values: b}); err != nil {
					return err
				}
			}
			return e.Row(sql.Row{Kind: sql.Insert, Values: p.lagDef})
		},
		Decode: func(d *state.Decoder) (*overPart, error) {
			p := &overPart{}
			var err error
			if p.last, err = d.Varint(); err != nil {
				return nil, err
			}
			if p.waiting, err = readRows(d); err != nil {
				return nil, err
			}
			if p.frame, err = readRows(d); err != nil {
				return nil, err
			}
			if p.grp, err = decodeGroup(specs, d); err != nil {
				return nil, err
			}
			if lags == 0 {
				return p, nil
			}
			p.lag = make([][]any, lags)
			for i := range p.lag {
				r, err := d.Row()
				if err != nil {
					return nil, err
				}
				p.lag[i] = r.Values
			}
			r, err := d.Row()
			if err != nil {
				return nil, err
			}
			if len(r.Values) != lags {
				return nil, state.ErrCorrupt
			}
			p.lagDef = r.Values
			return p, nil
		},
	}
}

var overWatermarkCodec = state.Codec[int64]{
	Encode: func(e *state.Encoder, v int64) error { e.Varint(v); return nil },
	Decode: func(d *state.Decoder) (int64, error) { return d.Varint() },
}

func (o *overAgg) Open(ctx *runtime.Context, restored []byte) error {
	o.wm = runtime.MinWatermark
	o.pending = newKeyTimers()
	// Like the window operators, OVER state is cleaned by the watermark
	// and the frame, not by table.exec.state.ttl.
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if o.parts, err = state.NewTable(b, "over", overPartCodec(o.spec.Aggs, len(o.spec.Lags))); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	wm := state.NewMemTable(overWatermarkCodec)
	if err := state.RestoreAll(restored, o.parts, wm); err != nil {
		return fmt.Errorf("OverAggregate: restore: %w", err)
	}
	if v, ok, err := wm.Get(""); err != nil {
		return err
	} else if ok {
		o.wm = v
	}
	return o.parts.Range(func(k string, p *overPart) error {
		for _, r := range p.waiting {
			ts, err := o.time(r)
			if err != nil {
				return err
			}
			o.track(ts, k)
		}
		return nil
	})
}

func (o *overAgg) Snapshot(int64) ([]byte, error) {
	wm := state.NewMemTable(overWatermarkCodec)
	if err := wm.Put("", o.wm); err != nil {
		return nil, err
	}
	return state.SnapshotAll(o.parts, wm)
}

func (o *overAgg) track(ts int64, k string) { o.pending.add(ts, k) }

func (o *overAgg) time(r sql.Row) (int64, error) {
	ts, ok := r.Values[o.spec.TimeCol].(sql.TimestampData)
	if !ok {
		return 0, fmt.Errorf("OverAggregate: the time attribute is %T, not a TIMESTAMP", r.Values[o.spec.TimeCol])
	}
	return ts.Millis, nil
}

func (o *overAgg) bounded() bool { return !o.spec.Unbounded }

func (o *overAgg) newPart() *overPart {
	p := &overPart{last: runtime.MinWatermark, grp: &group{accs: make([]acc, len(o.spec.Aggs))}}
	if n := len(o.spec.Lags); n > 0 {
		p.lag, p.lagDef = make([][]any, n), make([]any, n)
	}
	return p
}

// lagAdd accumulates row r into the partition's LAG buffers
// (LagAggFunction.accumulate).
func (o *overAgg) lagAdd(p *overPart, r sql.Row) {
	for i, l := range o.spec.Lags {
		b := append(p.lag[i], r.Values[l.Arg])
		if drop := int64(len(b)) - (l.Offset + 1); drop > 0 {
			b = append(b[:0:0], b[drop:]...)
		}
		p.lag[i] = b
		if l.DefaultArg >= 0 {
			p.lagDef[i] = r.Values[l.DefaultArg]
		} else {
			p.lagDef[i] = l.Default
		}
	}
}

// calls are the window's results: its aggregates' with its LAG calls' in
// their places (LagAggFunction.getValue).
func (o *overAgg) calls(p *overPart) ([]any, error) {
	vals, err := o.agg.result(p.grp)
	if err != nil || len(o.spec.Lags) == 0 {
		return vals, err
	}
	out := make([]any, 0, len(vals)+len(o.spec.Lags))
	next, li := 0, 0
	for pos := 0; pos < len(vals)+len(o.spec.Lags); pos++ {
		if li < len(o.spec.Lags) && o.spec.Lags[li].Pos == pos {
			l := o.spec.Lags[li]
			if b := p.lag[li]; int64(len(b)) == l.Offset+1 {
				out = append(out, b[0])
			} else {
				out = append(out, p.lagDef[li])
			}
			li++
			continue
		}
		out = append(out, vals[next])
		next++
	}
	return out, nil
}

func (o *overAgg) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("OverAggregate expects insert-only input, got %s", r.Kind)
		}
		ts, err := o.time(r)
		if err != nil {
			return err
		}
		o.enc.Buf = o.enc.Buf[:0]
		if err := state.AppendKey(&o.enc, r, o.spec.Partition); err != nil {
			return fmt.Errorf("OverAggregate key: %w", err)
		}
		k := string(o.enc.Buf)
		p, ok, err := o.parts.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			p = o.newPart()
		}
		r = sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}
		if !o.spec.Rowtime {
			if err := o.emit(p, []sql.Row{r}, ts, out); err != nil {
				return err
			}
			if err := o.parts.Put(k, p); err != nil {
				return err
			}
			continue
		}
		// Late rows (AbstractRowTimeUnboundedPrecedingOver: not after the
		// watermark; the bounded functions: not after lastTriggeringTs).
		if (!o.bounded() && ts <= o.wm) || (o.bounded() && ts <= p.last) {
			continue
		}
		p.waiting = append(p.waiting, r)
		o.track(ts, k)
		if err := o.parts.Put(k, p); err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark emits the rows the watermark passed, timestamp by
// timestamp, each timestamp's partitions in key order.
func (o *overAgg) ProcessWatermark(wm int64, out *runtime.Collector) error {
	if wm <= o.wm {
		return nil
	}
	o.wm = wm
	for {
		ts, keys, ok := o.pending.pop(wm)
		if !ok {
			break
		}
		for _, k := range keys {
			p, ok, err := o.parts.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			var now, rest []sql.Row
			for _, r := range p.waiting {
				t, err := o.time(r)
				if err != nil {
					return err
				}
				if t == ts {
					now = append(now, r)
				} else {
					rest = append(rest, r)
				}
			}
			p.waiting = rest
			if err := o.emit(p, now, ts, out); err != nil {
				return err
			}
			p.last = ts
			if err := o.parts.Put(k, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit adds rows (all at time ts, in arrival order) to the partition's
// frame and emits each with its aggregates.
func (o *overAgg) emit(p *overPart, rows []sql.Row, ts int64, out *runtime.Collector) error {
	result := func(r sql.Row) error {
		vals, err := o.calls(p)
		if err != nil {
			return err
		}
		out.Emit(sql.Row{Kind: sql.Insert, Values: append(append(make([]any, 0, len(r.Values)+len(vals)), r.Values...), vals...)})
		return nil
	}
	if o.spec.Rows {
		for _, r := range rows {
			if err := o.agg.apply(p.grp, r, true); err != nil {
				return err
			}
			o.lagAdd(p, r)
			if o.bounded() {
				p.frame = append(p.frame, r)
				// The frame is the current row and Preceding rows before it.
				for int64(len(p.frame)) > o.spec.Preceding+1 {
					if err := o.agg.apply(p.grp, p.frame[0], false); err != nil {
						return err
					}
					p.frame = p.frame[1:]
				}
			}
			if err := result(r); err != nil {
				return err
			}
		}
		return nil
	}
	// RANGE: the rows of one timestamp are peers, sharing one result; a
	// bounded frame holds the rows no more than Preceding ms older.
	if o.bounded() {
		keep := 0
		for keep < len(p.frame) {
			t, err := o.time(p.frame[keep])
			if err != nil {
				return err
			}
			if t >= ts-o.spec.Preceding {
				break
			}
			if err := o.agg.apply(p.grp, p.frame[keep], false); err != nil {
				return err
			}
			keep++
		}
		p.frame = p.frame[keep:]
	}
	for _, r := range rows {
		if err := o.agg.apply(p.grp, r, true); err != nil {
			return err
		}
		o.lagAdd(p, r)
		if o.bounded() {
			p.frame = append(p.frame, r)
		}
	}
	for _, r := range rows {
		if err := result(r); err != nil {
			return err
		}
	}
	return nil
}
