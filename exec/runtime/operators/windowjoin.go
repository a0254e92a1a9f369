package operators

import (
	"time"

	"fmt"
	"sort"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// WindowJoinSpec configures WindowJoin: both inputs' rows carry their
// window's end in field LeftEnd / RightEnd (Flink's
// WindowAttachedWindowingStrategy); Left.Keys and Right.Keys are the
// equi-join keys (the state key), Cond the remaining join condition over
// the joined row (nil: true).
type WindowJoinSpec struct {
	Left, Right       JoinSideSpec // Keys, Arity and Outer are used
	LeftEnd, RightEnd int
	// Semi and Anti emit a left row when some (no) right row of its
	// window matches it.
	Semi, Anti bool
	Cond       func([]any) (any, error)
	// Zone is the session time zone of windows over a TIMESTAMP_LTZ
	// attribute (WindowSpec.Zone).
	Zone *time.Location
}

// WindowJoin is Flink's window join (WindowJoinOperator with
// WindowJoinHelper's processors, flink-table-runtime
// .../join/window): each input row is kept in its window's state for its
// join key, the window being its window_end; when the watermark reaches
// the window's end - 1 the window's rows are joined once, per join key
// (left rows in arrival order, each against the right rows in arrival
// order; an outer side's unmatched rows padded with NULLs, a FULL join's
// unmatched right rows after the left ones) and emitted as inserts, and
// the window's state is dropped. A row whose window has fired is late and
// dropped (isWindowFired). Kept rows are keyed state, cleaned by the
// windows firing rather than table.exec.state.ttl, checkpointed on either
// backend; restored windows fire at the next watermark past their end.
func WindowJoin(spec WindowJoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &windowJoin{spec: spec}, nil }
}

type windowJoin struct {
	runtime.Base
	spec WindowJoinSpec
	// rows is keyed by windowKey(0, window end, join key + side byte
	// 'L' or 'R').
	rows state.Table[[]sql.Row]
	windowTimers
	wm  int64
	enc state.Encoder
}

func (j *windowJoin) Open(ctx *runtime.Context, restored []byte) error {
	j.wm = runtime.MinWatermark
	j.pending = map[int64]map[string]struct{}{}
	j.ends = nil
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if j.rows, err = state.NewTable(b, "window-join", state.RowsCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	if err := j.rows.Restore(restored); err != nil {
		return fmt.Errorf("WindowJoin state: %w", err)
	}
	return j.rows.Range(func(k string, _ []sql.Row) error {
		if len(k) < 17 {
			return fmt.Errorf("WindowJoin state: %w: window key of %d bytes", state.ErrCorrupt, len(k))
		}
		_, end := parseWindowKey(k)
		j.track(end, k)
		return nil
	})
}

func (j *windowJoin) Snapshot(int64) ([]byte, error) { return j.rows.Snapshot() }

func (j *windowJoin) ProcessBatch(input int, rows []sql.Row, _ *runtime.Collector) error {
	side, endCol, keys := byte('L'), j.spec.LeftEnd, j.spec.Left.Keys
	if input == 1 {
		side, endCol, keys = 'R', j.spec.RightEnd, j.spec.Right.Keys
	}
	for _, r := range rows {
		if r.Kind != sql.Insert {
			// WindowJoinHelper.processElement: a window join cannot take
			// retractions (the planner gives it insert-only inputs).
			return fmt.Errorf("WindowJoin expects insert-only input, got %s", r.Kind)
		}
		end, ok := r.Values[endCol].(sql.TimestampData)
		if !ok {
			return fmt.Errorf("WindowJoin: window_end is %T, not a TIMESTAMP", r.Values[endCol])
		}
		if sql.WindowTimer(end.Millis-1, j.spec.Zone) <= j.wm { // late: the window has fired
			continue
		}
		j.enc.Buf = j.enc.Buf[:0]
		if err := state.AppendKey(&j.enc, r, keys); err != nil {
			return fmt.Errorf("WindowJoin key: %w", err)
		}
		k := windowKey(0, end.Millis, append(j.enc.Buf, side))
		buf, ok, err := j.rows.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			j.track(end.Millis, k)
		}
		buf = append(buf, sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)})
		if err := j.rows.Put(k, buf); err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark fires the windows whose end - 1 the watermark reached,
// in the order of their ends, each window's join keys in key order.
func (j *windowJoin) ProcessWatermark(wm int64, out *runtime.Collector) error {
	j.wm = wm
	for len(j.ends) > 0 && sql.WindowTimer(j.ends[0]-1, j.spec.Zone) <= wm {
		end := j.ends[0]
		// Both sides of a join key share the state key but its last byte.
		sides := map[string]*[2][]sql.Row{}
		var jks []string
		for k := range j.pending[end] {
			rows, ok, err := j.rows.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			jk := k[:len(k)-1]
			s := sides[jk]
			if s == nil {
				s = &[2][]sql.Row{}
				sides[jk] = s
				jks = append(jks, jk)
			}
			if k[len(k)-1] == 'R' {
				s[1] = rows
			} else {
				s[0] = rows
			}
			if err := j.rows.Delete(k); err != nil {
				return err
			}
		}
		sort.Strings(jks)
		for _, jk := range jks {
			if err := j.join(sides[jk][0], sides[jk][1], out); err != nil {
				return err
			}
		}
		delete(j.pending, end)
		j.ends = j.ends[1:]
	}
	return nil
}

// join is WindowJoinHelper's processor of the join type for one window
// and join key.
func (j *windowJoin) join(left, right []sql.Row, out *runtime.Collector) error {
	emit := func(l, r []any) {
		if l == nil {
			l = make([]any, j.spec.Left.Arity)
		}
		if r == nil && !j.spec.Semi && !j.spec.Anti {
			r = make([]any, j.spec.Right.Arity)
		}
		v := make([]any, 0, len(l)+len(r))
		out.Emit(sql.Row{Kind: sql.Insert, Values: append(append(v, l...), r...)})
	}
	if j.spec.Right.Outer && !j.spec.Left.Outer {
		// RightOuterWindowJoinProcessor: each right row against the left
		// rows, in the right rows' order.
		for _, r := range right {
			matched := false
			for _, l := range left {
				ok, err := j.matches(l.Values, r.Values)
				if err != nil {
					return err
				}
				if ok {
					matched = true
					emit(l.Values, r.Values)
				}
			}
			if !matched {
				emit(nil, r.Values)
			}
		}
		return nil
	}
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		matched := false
		for i, r := range right {
			ok, err := j.matches(l.Values, r.Values)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			matched, rightMatched[i] = true, true
			if j.spec.Semi || j.spec.Anti {
				break
			}
			emit(l.Values, r.Values)
		}
		switch {
		case j.spec.Semi && matched, j.spec.Anti && !matched, j.spec.Left.Outer && !matched:
			emit(l.Values, nil)
		}
	}
	if j.spec.Right.Outer { // FULL: the right rows no left row matched
		for i, r := range right {
			if !rightMatched[i] {
				emit(nil, r.Values)
			}
		}
	}
	return nil
}

func (j *windowJoin) matches(l, r []any) (bool, error) {
	if j.spec.Cond == nil {
		return true, nil
	}
	v := make([]any, 0, len(l)+len(r))
	b, err := j.spec.Cond(append(append(v, l...), r...))
	if err != nil {
		return false, fmt.Errorf("WindowJoin condition: %w", err)
	}
	ok, _ := b.(bool)
	return ok, nil
}
