package plan

import (
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Window Top-N and window deduplication: a ROW_NUMBER() over the rows of a
// window TVF or a window aggregate partitioned by (at least) window_start
// and window_end. Flink's StreamPhysicalWindowRankRule and
// StreamPhysicalWindowDeduplicateRule take such a FlinkLogicalRank
// (WindowUtil.groupingContainsWindowStartEnd on the input's
// FlinkRelMdWindowProperties); a rank whose partition lacks either stays a
// regular Rank or Deduplicate. Both consume and produce insert-only rows:
// each window's rows are buffered per partition key and ranked when the
// watermark passes the window's end.

// windowProps is FlinkRelMdWindowProperties of a physical node: the fields
// holding window_start and window_end (and window_time, or -1) and the
// windowing they come from.
type windowProps struct {
	start, end, time int
	window           Windowing
}

// physWindowProps reads the window properties of n: a WindowTableFunction
// or a (one-phase or global) WindowAggregate, through Exchanges, Calcs that
// pass both columns on, and window Top-N / deduplication.
func physWindowProps(n Node) (windowProps, bool) {
	switch x := n.(type) {
	case *WindowTableFunction:
		k := len(x.input().Names())
		return windowProps{start: k, end: k + 1, time: k + 2, window: x.Window}, true
	case *WindowAggregate:
		if x.Phase == 1 {
			return windowProps{}, false
		}
		k := len(x.Group) + len(x.Aggs)
		p := windowProps{start: k, end: k + 1, time: -1, window: x.Window}
		if x.WindowTime {
			p.time = k + 2
		}
		return p, true
	case *WindowJoin:
		// FlinkRelMdWindowProperties.getJoinWindowProperties: the left
		// input's window columns, and the right's after the left's fields
		// (the left's are kept here; a semi / anti join outputs no right).
		if p, ok := physWindowProps(x.Inputs()[0]); ok {
			return p, true
		}
		if x.IsSemi() || x.IsAnti() {
			return windowProps{}, false
		}
		p, ok := physWindowProps(x.Inputs()[1])
		if !ok {
			return windowProps{}, false
		}
		k := len(x.Inputs()[0].Names())
		p.start, p.end = p.start+k, p.end+k
		if p.time >= 0 {
			p.time += k
		}
		return p, true
	case *Exchange:
		return physWindowProps(x.input())
	case *WindowRank:
		return physWindowProps(x.input())
	case *WindowDeduplicate:
		return physWindowProps(x.input())
	case *Calc:
		in, ok := physWindowProps(x.input())
		if !ok {
			return windowProps{}, false
		}
		out := windowProps{start: -1, end: -1, time: -1, window: in.window}
		for i, e := range x.Exprs {
			r, ok := e.(*InputRef)
			if !ok {
				continue
			}
			switch r.Index {
			case in.start:
				out.start = i
			case in.end:
				out.end = i
			case in.time:
				if in.time >= 0 {
					out.time = i
				}
			}
		}
		return out, out.start >= 0 && out.end >= 0
	case *Expand:
		// FlinkRelMdWindowProperties.getWindowProperties of an Expand:
		// the window columns every projection passes on (the Expand of
		// a split distinct aggregation, splitagg.go).
		in, ok := physWindowProps(x.input())
		if !ok {
			return windowProps{}, false
		}
		out := windowProps{start: -1, end: -1, time: -1, window: in.window}
		for i := range x.Names() {
			f := -1
			for j, p := range x.Projects {
				r, ok := p[i].(*InputRef)
				if !ok || (j > 0 && r.Index != f) {
					f = -1
					break
				}
				f = r.Index
			}
			switch {
			case f < 0:
			case f == in.start:
				out.start = i
			case f == in.end:
				out.end = i
			case f == in.time && in.time >= 0:
				out.time = i
			}
		}
		return out, out.start >= 0 && out.end >= 0
	}
	return windowProps{}, false
}

// WindowRank is Flink's StreamPhysicalWindowRank with a
// WindowAttachedWindowingStrategy: ROW_NUMBER() per window and Partition
// key, the rows ranked Start to End emitted once when the window fires.
type WindowRank struct {
	base
	Func         string
	Partition    []int
	Order        []SortKey
	Start, End   int64
	OutputNumber bool
	Window       Windowing
	// WinStart and WinEnd are the input fields of window_start and
	// window_end.
	WinStart, WinEnd int
}

// WindowDeduplicate is Flink's StreamPhysicalWindowDeduplicate: the first
// (or, with KeepLast, the last) row per window and key in event-time
// order, emitted when the window fires.
type WindowDeduplicate struct {
	base
	Keys             []int
	KeepLast         bool
	TimeField        int
	Window           Windowing
	WinStart, WinEnd int
}

func (*WindowRank) Name() string        { return "WindowRank" }
func (*WindowDeduplicate) Name() string { return "WindowDeduplicate" }

func (n *WindowRank) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *WindowDeduplicate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// attachedWindow is WindowAttachedWindowingStrategy.toSummaryString:
// TUMBLE(win_start=[window_start], win_end=[window_end], size=[15 min]).
func attachedWindow(w Windowing, in []string, start, end int) string {
	return w.Func + "(win_start=[" + in[start] + "], win_end=[" + in[end] + "], " + w.spec() + ")"
}

// describe is StreamPhysicalWindowRank's explainTerms (WindowRankTest):
// the order keys print without a time indicator mark.
func (n *WindowRank) describe(Format) string {
	in := n.input().Names()
	body := rankDigest("", "", n.Func, n.Start, n.End, n.Partition, n.Order, nil, in, n.names)
	return "WindowRank(window=[" + attachedWindow(n.Window, in, n.WinStart, n.WinEnd) + "], " + strings.TrimPrefix(body, "(")
}

// describe is StreamPhysicalWindowDeduplicate's explainTerms
// (WindowDeduplicateTest.testOnWindowTVF).
func (n *WindowDeduplicate) describe(Format) string {
	in := n.input().Names()
	keep := "FirstRow"
	if n.KeepLast {
		keep = "LastRow"
	}
	return "WindowDeduplicate(window=[" + attachedWindow(n.Window, in, n.WinStart, n.WinEnd) + "], keep=[" + keep +
		"], partitionKeys=[" + names(in, n.Keys) + "], orderKey=[" + in[n.TimeField] + "], order=[ROWTIME])"
}

// convertWindowRank plans r over its converted input in as a WindowRank or
// WindowDeduplicate when r partitions by the input's window_start and
// window_end; ok is false when it does not (a regular Rank then).
func (b *binder) convertWindowRank(r *LogicalRank, in Node) (Node, bool, error) {
	wp, ok := physWindowProps(in)
	if !ok || !slices.Contains(r.Partition, wp.start) || !slices.Contains(r.Partition, wp.end) {
		return nil, false, nil
	}
	// RankUtil.canConvertToDeduplicate: ROW_NUMBER, rank range [1, 1],
	// no rank number in the output, one order key on a time attribute.
	dedup := r.Func == "ROW_NUMBER" && r.Start == 1 && r.End == 1 && !r.OutputNumber && len(r.Order) == 1 &&
		r.OrderTime[0] != notTime
	requester := "StreamPhysicalWindowRank"
	if dedup {
		requester = "StreamPhysicalWindowDeduplicate"
	}
	mk := map[Node]sql.ChangelogMode{}
	if k := modifyKinds(in, mk); !k.IsInsertOnly() {
		return nil, false, (&inference{mk: mk}).consumeError(requester, in, k.Without(sql.Insert))
	}
	// WindowUtil.groupingExcludeWindowStartEndTimeColumns.
	var keys []int
	for _, p := range r.Partition {
		if p != wp.start && p != wp.end && p != wp.time {
			keys = append(keys, p)
		}
	}
	ex := &Exchange{base: sameRow(in), Keys: keys, Single: len(keys) == 0}
	if dedup {
		if r.OrderTime[0] != rowTime {
			// StreamExecWindowDeduplicate
			// (WindowDeduplicateTest.testUnsupportedWindowTVFOnProctime).
			return nil, false, sql.Errorf(sql.TableException, "Processing time Window Deduplication is not supported yet.")
		}
		return &WindowDeduplicate{base: sameRow(ex), Keys: keys, KeepLast: r.Order[0].Desc, TimeField: r.Order[0].Field,
			Window: wp.window, WinStart: wp.start, WinEnd: wp.end}, true, nil
	}
	// RANK() and DENSE_RANK() plan (and EXPLAIN) as in Flink; running them
	// is refused as StreamExecWindowRank refuses them (exec/compile).
	return &WindowRank{base: row(r.names, r.types, ex), Func: r.Func, Partition: keys, Order: r.Order,
		Start: r.Start, End: r.End, OutputNumber: r.OutputNumber, Window: wp.window, WinStart: wp.start, WinEnd: wp.end}, true, nil
}
