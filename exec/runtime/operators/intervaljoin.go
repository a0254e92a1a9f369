package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// IntervalJoinSpec configures IntervalJoin: a left row at time lt and a
// right row at time rt of one join key match when lt - rt is between
// LowerBound and UpperBound (milliseconds, inclusive) and Cond holds.
type IntervalJoinSpec struct {
	Left, Right JoinSideSpec // Keys, Arity and Outer are used
	// LeftTime and RightTime are the time attributes' fields.
	LeftTime, RightTime int
	// Rowtime: the watermark is the operator's time (processing time: the
	// latest time attribute value seen).
	Rowtime                bool
	LowerBound, UpperBound int64
	// Cond is the whole join condition over the joined row (nil: true).
	Cond func([]any) (any, error)
}

// IntervalJoin is Flink's interval join (TimeIntervalJoin with its
// RowTimeIntervalJoin and ProcTimeIntervalJoin, flink-table-runtime
// .../join/interval): both inputs' rows are kept per join key while a
// future row of the other side can still match them, and joined rows are
// emitted as soon as both are there, insert-only. The operator time is the
// watermark (event time) or the latest time attribute seen (processing
// time). A left row at lt can match right rows at rt in [lt - UpperBound,
// lt - LowerBound]; it is kept while the operator time is below
// lt - LowerBound and dropped once it passes lt - LowerBound (Flink's
// cleanup at operator time - relative size - 1); an outer side's row that
// never matched is then emitted padded with NULLs (at once, when it arrives
// too late to be kept). The right side mirrors it with UpperBound. Rows
// whose join key has a NULL never match. Kept rows are keyed state,
// checkpointed on either backend with the operator time.
func IntervalJoin(spec IntervalJoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &intervalJoin{spec: spec}, nil
	}
}

type intervalJoin struct {
	runtime.Base
	spec IntervalJoinSpec
	// rows holds the kept rows of both sides: state key side byte + join
	// key, one ijRows per key and side.
	rows state.Table[*ijRows]
	// expiry indexes the kept rows by the operator time after which they
	// go (Flink's cleanup timers), rebuilt from the state on restore.
	expiry keyTimers
	now    int64 // operator time
	enc    state.Encoder
}

type ijRow struct {
	ts      int64
	row     sql.Row
	matched bool
}

type ijRows struct{ rows []ijRow }

var ijRowsCodec = state.Codec[*ijRows]{
	Encode: func(e *state.Encoder, p *ijRows) error {
		e.Uvarint(uint64(len(p.rows)))
		for _, r := range p.rows {
			e.Varint(r.ts)
			m := byte(0)
			if r.matched {
				m = 1
			}
			e.Buf = append(e.Buf, m)
			if err := e.Row(r.row); err != nil {
				return err
			}
		}
		return nil
	},
	Decode: func(d *state.Decoder) (*ijRows, error) {
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		p := &ijRows{rows: make([]ijRow, n)}
		for i := range p.rows {
			if p.rows[i].ts, err = d.Varint(); err != nil {
				return nil, err
			}
			if d.Done() {
				return nil, state.ErrCorrupt
			}
			p.rows[i].matched = d.Buf[d.Off] == 1
			d.Off++
			if p.rows[i].row, err = d.Row(); err != nil {
				return nil, err
			}
		}
		return p, nil
	},
}

func (j *intervalJoin) Open(ctx *runtime.Context, restored []byte) error {
	j.now = runtime.MinWatermark
	j.expiry = newKeyTimers()
	// Kept rows are cleaned by the operator time, not table.exec.state.ttl
	// (Flink's interval join ignores it).
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if j.rows, err = state.NewTable(b, "interval-join", ijRowsCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	now := state.NewMemTable(overWatermarkCodec)
	if err := state.RestoreAll(restored, j.rows, now); err != nil {
		return fmt.Errorf("IntervalJoin: restore: %w", err)
	}
	if v, ok, err := now.Get(""); err != nil {
		return err
	} else if ok {
		j.now = v
	}
	return j.rows.Range(func(k string, p *ijRows) error {
		for _, r := range p.rows {
			j.track(j.expiresAt(k[0] == 'R', r.ts), k)
		}
		return nil
	})
}

func (j *intervalJoin) Snapshot(int64) ([]byte, error) {
	now := state.NewMemTable(overWatermarkCodec)
	if err := now.Put("", j.now); err != nil {
		return nil, err
	}
	return state.SnapshotAll(j.rows, now)
}

// expiresAt is the operator time at which a kept row goes: a left row once
// the time passes lt - LowerBound, a right row once it passes
// rt + UpperBound.
func (j *intervalJoin) expiresAt(right bool, ts int64) int64 {
	if right {
		return ts + j.spec.UpperBound + 1
	}
	return ts - j.spec.LowerBound + 1
}

func (j *intervalJoin) track(at int64, k string) { j.expiry.add(at, k) }

func (j *intervalJoin) time(r sql.Row, col int) (int64, error) {
	ts, ok := r.Values[col].(sql.TimestampData)
	if !ok {
		return 0, fmt.Errorf("IntervalJoin: the time attribute is %T, not a TIMESTAMP", r.Values[col])
	}
	return ts.Millis, nil
}

func (j *intervalJoin) joined(l, r []any) []any {
	out := make([]any, 0, j.spec.Left.Arity+j.spec.Right.Arity)
	if l == nil {
		l = make([]any, j.spec.Left.Arity)
	}
	if r == nil {
		r = make([]any, j.spec.Right.Arity)
	}
	return append(append(out, l...), r...)
}

func (j *intervalJoin) ProcessBatch(input int, rows []sql.Row, out *runtime.Collector) error {
	right := input == 1
	side, col := j.spec.Left, j.spec.LeftTime
	tag, otherTag := byte('L'), byte('R')
	if right {
		side, col, tag, otherTag = j.spec.Right, j.spec.RightTime, 'R', 'L'
	}
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("IntervalJoin expects insert-only input, got %s", r.Kind)
		}
		ts, err := j.time(r, col)
		if err != nil {
			return err
		}
		if !j.spec.Rowtime && ts > j.now {
			if err := j.advance(ts, out); err != nil {
				return err
			}
		}
		vals := box.Compact(r.Values)
		nullKey := false
		for _, k := range side.Keys {
			if vals[k] == nil {
				nullKey = true
			}
		}
		matched := false
		j.enc.Buf = append(j.enc.Buf[:0], otherTag)
		if err := state.AppendKey(&j.enc, r, side.Keys); err != nil {
			return fmt.Errorf("IntervalJoin key: %w", err)
		}
		otherKey := string(j.enc.Buf)
		key := string(tag) + otherKey[1:]
		if !nullKey {
			op, ok, err := j.rows.Get(otherKey)
			if err != nil {
				return err
			}
			changed := false
			if ok {
				for i := range op.rows {
					o := &op.rows[i]
					// lt - rt within [LowerBound, UpperBound].
					d := ts - o.ts
					if right {
						d = o.ts - ts
					}
					if d < j.spec.LowerBound || d > j.spec.UpperBound {
						continue
					}
					vs := j.joined(vals, o.row.Values)
					if right {
						vs = j.joined(o.row.Values, vals)
					}
					if j.spec.Cond != nil {
						c, err := j.spec.Cond(vs)
						if err != nil {
							return err
						}
						if c != true {
							continue
						}
					}
					out.Emit(sql.Row{Kind: sql.Insert, Values: vs})
					matched = true
					if !o.matched {
						o.matched, changed = true, true
					}
				}
			}
			if changed {
				if err := j.rows.Put(otherKey, op); err != nil {
					return err
				}
			}
		}
		// Kept while a later row of the other side can match it (Flink:
		// the other side's operator time below the row's upper bound).
		at := j.expiresAt(right, ts)
		if !nullKey && j.now < at-1 {
			p, ok, err := j.rows.Get(key)
			if err != nil {
				return err
			}
			if !ok {
				p = &ijRows{}
			}
			p.rows = append(p.rows, ijRow{ts: ts, row: sql.Row{Kind: sql.Insert, Values: vals}, matched: matched})
			if err := j.rows.Put(key, p); err != nil {
				return err
			}
			j.track(at, key)
			continue
		}
		if !matched && side.Outer {
			if right {
				out.Emit(sql.Row{Kind: sql.Insert, Values: j.joined(nil, vals)})
			} else {
				out.Emit(sql.Row{Kind: sql.Insert, Values: j.joined(vals, nil)})
			}
		}
	}
	return nil
}

// OutputWatermark holds the watermark back by the longest time a row can
// wait for its partner, max(-LowerBound, UpperBound) on event time, as
// Flink runs a rowtime interval join in a
// KeyedCoProcessOperatorWithWatermarkDelay of
// TimeIntervalJoin.getMaxOutputDelay() (max(leftRelativeSize,
// rightRelativeSize) + allowedLateness, which is 0 in SQL): a joined row
// carries the earlier row's time, which the input watermark may have
// passed, and a window or OVER on it downstream would drop it as late. The
// end of input (MaxWatermark) is forwarded as it is (Flink's MAX_WATERMARK
// - delay fires the same windows).
func (j *intervalJoin) OutputWatermark(wm int64) int64 {
	if !j.spec.Rowtime || wm == runtime.MaxWatermark {
		return wm
	}
	delay := max(-j.spec.LowerBound, j.spec.UpperBound, 0)
	if wm < runtime.MinWatermark+delay {
		return runtime.MinWatermark
	}
	return wm - delay
}

// ProcessWatermark advances the operator time on event time.
func (j *intervalJoin) ProcessWatermark(wm int64, out *runtime.Collector) error {
	if !j.spec.Rowtime {
		return nil
	}
	return j.advance(wm, out)
}

// advance moves the operator time to now and drops the kept rows it
// passed, emitting an outer side's unmatched rows padded with NULLs, in
// expiry order, each time's keys in key order.
func (j *intervalJoin) advance(now int64, out *runtime.Collector) error {
	if now <= j.now {
		return nil
	}
	j.now = now
	for {
		_, keys, ok := j.expiry.pop(now)
		if !ok {
			break
		}
		for _, k := range keys {
			p, ok, err := j.rows.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			right := k[0] == 'R'
			outer := j.spec.Left.Outer
			if right {
				outer = j.spec.Right.Outer
			}
			var keep []ijRow
			for _, r := range p.rows {
				if j.expiresAt(right, r.ts) > now {
					keep = append(keep, r)
					continue
				}
				if !r.matched && outer {
					if right {
						out.Emit(sql.Row{Kind: sql.Insert, Values: j.joined(nil, r.row.Values)})
					} else {
						out.Emit(sql.Row{Kind: sql.Insert, Values: j.joined(r.row.Values, nil)})
					}
				}
			}
			if len(keep) == 0 {
				err = j.rows.Delete(k)
			} else {
				p.rows = keep
				err = j.rows.Put(k, p)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
