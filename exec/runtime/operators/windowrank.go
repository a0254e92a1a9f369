package operators

import (
	"time"

	"fmt"
	"maps"
	"slices"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// WindowRankSpec configures WindowRank: ROW_NUMBER() OVER (PARTITION BY
// window_start, window_end, Partition ORDER BY Order) over insert-only
// rows that carry their window in fields StartCol and EndCol (Flink's
// WindowAttachedWindowingStrategy).
type WindowRankSpec struct {
	StartCol, EndCol int
	Partition        []int
	Order            []SortKey
	// Start and End are the rank range kept.
	Start, End int64
	// OutputNumber appends the row number to every row.
	OutputNumber bool
	// Dedup is window deduplication (Flink's WindowDeduplicate): one row
	// per window and key, the one with the smallest rowtime in field
	// TimeCol (the first on ties), or with KeepLast the largest (the
	// last on ties), as Flink's RowTimeWindowDeduplicateProcessor.
	Dedup    bool
	KeepLast bool
	TimeCol  int
	// Zone is the session time zone of a window over a TIMESTAMP_LTZ
	// attribute (WindowSpec.Zone): a window fires when the watermark
	// reaches the instant of its end - 1 there.
	Zone *time.Location
}

// WindowRank is Flink's window Top-N and window deduplication operator
// (SlicingWindowOperator with WindowRankProcessor /
// RowTimeWindowDeduplicateProcessor): each row is buffered in its window's
// state for its partition key (a Top-N keeps only the End best rows, in
// order, ties in arrival order; a deduplication one row); when the
// watermark reaches the window's end - 1 the window fires once, emitting
// the rows ranked Start to End as inserts, in rank order, and dropping its
// state. A row whose window has fired is late and dropped, as Flink drops
// it. Pending windows are keyed state: they survive checkpoints and
// restores and fire after a restore.
func WindowRank(spec WindowRankSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &windowRank{spec: spec}, nil }
}

type windowRank struct {
	runtime.Base
	spec WindowRankSpec
	rows state.Table[[]sql.Row] // keyed by windowKey(start, end, partition key)
	windowTimers
	wm  int64
	enc state.Encoder
}

func (w *windowRank) name() string {
	if w.spec.Dedup {
		return "WindowDeduplicate"
	}
	return "WindowRank"
}

func (w *windowRank) Open(ctx *runtime.Context, restored []byte) error {
	w.wm = runtime.MinWatermark
	w.pending = map[int64]map[string]struct{}{}
	w.ends = nil
	var err error
	if w.rows, err = newTable(ctx, "windows", state.RowsCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	if err := w.rows.Restore(restored); err != nil {
		return fmt.Errorf("%s state: %w", w.name(), err)
	}
	return w.rows.Range(func(k string, _ []sql.Row) error {
		if len(k) < 16 {
			return fmt.Errorf("%s state: %w: window key of %d bytes", w.name(), state.ErrCorrupt, len(k))
		}
		_, end := parseWindowKey(k)
		w.track(end, k)
		return nil
	})
}

func (w *windowRank) Snapshot(int64) ([]byte, error) { return w.rows.Snapshot() }

func (w *windowRank) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("%s expects insert-only input, got %s", w.name(), r.Kind)
		}
		start, ok1 := r.Values[w.spec.StartCol].(sql.TimestampData)
		end, ok2 := r.Values[w.spec.EndCol].(sql.TimestampData)
		if !ok1 || !ok2 {
			return fmt.Errorf("%s: window_start / window_end are %T / %T, not TIMESTAMPs", w.name(),
				r.Values[w.spec.StartCol], r.Values[w.spec.EndCol])
		}
		// Late: the row's window has fired (Flink's isWindowFired).
		if sql.WindowTimer(end.Millis-1, w.spec.Zone) <= w.wm {
			continue
		}
		w.enc.Buf = w.enc.Buf[:0]
		if err := state.AppendKey(&w.enc, r, w.spec.Partition); err != nil {
			return fmt.Errorf("%s key: %w", w.name(), err)
		}
		k := windowKey(start.Millis, end.Millis, w.enc.Buf)
		buf, ok, err := w.rows.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			w.track(end.Millis, k)
		}
		if buf, err = w.add(buf, r); err != nil {
			return err
		}
		if err := w.rows.Put(k, buf); err != nil {
			return err
		}
	}
	return nil
}

// add puts r into a window's buffer: a deduplication keeps the winning
// row, a Top-N inserts r after the rows that do not sort after it and
// keeps the End best (insert-only input: a row past End never returns).
func (w *windowRank) add(buf []sql.Row, r sql.Row) ([]sql.Row, error) {
	r = sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)} // state's own copy
	if w.spec.Dedup {
		if len(buf) == 0 {
			return []sql.Row{r}, nil
		}
		c, err := compareNullable(r.Values[w.spec.TimeCol], buf[0].Values[w.spec.TimeCol])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name(), err)
		}
		// DeduplicateFunctionHelper.isDuplicate on rowtime: keep-last
		// replaces on a rowtime >= the kept one, keep-first on a smaller one.
		if (w.spec.KeepLast && c >= 0) || (!w.spec.KeepLast && c < 0) {
			buf[0] = r
		}
		return buf, nil
	}
	lo, hi := 0, len(buf)
	for lo < hi {
		mid := (lo + hi) / 2
		c, err := compareBy(w.spec.Order, buf[mid], r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.name(), err)
		}
		if c <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	at := lo
	if int64(at) >= w.spec.End {
		return buf, nil
	}
	buf = append(buf, sql.Row{})
	copy(buf[at+1:], buf[at:])
	buf[at] = r
	if int64(len(buf)) > w.spec.End {
		buf = buf[:w.spec.End]
	}
	return buf, nil
}

// compareNullable orders two rowtimes, NULL first.
func compareNullable(a, b any) (int, error) {
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return -1, nil
	case b == nil:
		return 1, nil
	}
	return Compare(a, b)
}

// ProcessWatermark fires the windows whose end - 1 the watermark reached,
// in the order of their ends, each window's keys in key order.
func (w *windowRank) ProcessWatermark(wm int64, out *runtime.Collector) error {
	w.wm = wm
	for len(w.ends) > 0 && sql.WindowTimer(w.ends[0]-1, w.spec.Zone) <= wm {
		end := w.ends[0]
		for _, k := range slices.Sorted(maps.Keys(w.pending[end])) {
			buf, ok, err := w.rows.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			for i, r := range buf {
				rank := int64(i + 1)
				if !w.spec.Dedup && rank < w.spec.Start {
					continue
				}
				vals := r.Values
				if w.spec.OutputNumber {
					vals = append(append(make([]any, 0, len(vals)+1), vals...), rank)
				}
				out.Emit(sql.Row{Kind: sql.Insert, Values: vals})
			}
			if err := w.rows.Delete(k); err != nil {
				return err
			}
		}
		delete(w.pending, end)
		w.ends = w.ends[1:]
	}
	return nil
}
