package plan

import (
	"slices"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
)

// convertAttachedWindowAggregate plans an aggregate grouped by
// window_start and window_end whose Calc below filters on window columns,
// as Flink's StreamPhysicalWindowAggregateRule does when it cannot merge
// the window TVF into the aggregate (WindowUtil.isValidWindowAggregate:
// the filter reads a window column): the WindowTableFunction stays, the
// Calc over it keeps its fields and filter, and the aggregate reads each
// row's window from its window_start and window_end fields
// (WindowAttachedWindowingStrategy:
// WindowAggregate(window=[TUMBLE(win_start=[window_start],
// win_end=[window_end], size=[15 min])], ...);
// WindowAggregateTest.testCantMergeWindowTVF_FilterOnWindowStart). Split in
// two phases, the local one passes each window's end on as $window_end and
// the global one reads it (TUMBLE(win_end=[$window_end], ...)).
func (b *binder) convertAttachedWindowAggregate(r *LogicalAggregate, tvf *LogicalWindowTableFunction, exprs []Expr, cond Expr, calcNames []string, windowRef func(Expr) int, hasTime bool) (Node, bool, error) {
	if tvf.Window.Legacy || tvf.Window.Func == "SESSION" || tvf.Window.ProcTime || r.Sets != nil {
		return nil, false, sql.Errorf(sql.TableException, "sqlrun cannot filter on window columns below a window aggregate yet")
	}
	if err := checkEmitConfiguration(b.config); err != nil {
		return nil, false, err
	}
	wtf, err := b.convertWindowTableFunction(tvf)
	if err != nil {
		return nil, false, err
	}
	calc := newCalc(wtf, exprs, cond, calcNames)
	start, end := -1, -1
	var group []int
	var outNames []string
	var outTypes []sql.DataType
	var windowCols []int // r.Group positions of the window columns, by kind
	for gi, g := range r.Group {
		switch windowRef(exprs[g]) {
		case 0:
			if start < 0 {
				start = g
			}
		case 1:
			if end < 0 {
				end = g
			}
		case 2:
		default:
			group = append(group, g)
			outNames = append(outNames, r.names[gi])
			outTypes = append(outTypes, r.types[gi])
		}
	}
	nKeys := len(group)
	aggs := make([]AggCall, len(r.Aggs))
	for i, a := range r.Aggs {
		aggs[i] = a
		aggs[i].Name = a.fieldName(nKeys + i)
		outNames = append(outNames, aggs[i].Name)
		outTypes = append(outTypes, a.T)
	}
	nIn := len(tvf.input().Names())
	for _, which := range []int{0, 1, 2} {
		for gi, g := range r.Group {
			if windowRef(exprs[g]) == which {
				windowCols = append(windowCols, gi)
				outNames = append(outNames, tvf.names[nIn+which])
				outTypes = append(outTypes, r.types[gi])
				break
			}
		}
	}
	window := tvf.Window
	window.PartitionNames = nil
	agg, err := b.attachedWindowPhases(calc, group, aggs, window, start, end, hasTime, outNames, outTypes)
	if err != nil {
		return nil, false, err
	}
	// Back to the aggregate's field order.
	reorder := make([]Expr, len(r.names))
	k := 0
	for gi, g := range r.Group {
		if windowRef(exprs[g]) < 0 {
			reorder[gi] = &InputRef{Index: k, T: outTypes[k]}
			k++
		}
	}
	for i := range r.Aggs {
		reorder[len(r.Group)+i] = &InputRef{Index: k, T: outTypes[k]}
		k++
	}
	windowPropRefs(reorder, r, exprs, windowRef, windowCols, k, outTypes)
	return newCalc(agg, reorder, nil, r.names), true, nil
}

// attachedWindowPhases is the window aggregate over in on the windows its
// fields start and end name (WindowAttachedWindowingStrategy), grouped by
// group, whose output is outNames/outTypes (the keys, the calls, then the
// window properties). With table.optimizer.agg-phase-strategy other than
// ONE_PHASE and mergeable calls it is split as
// TwoStageOptimizedWindowAggregateRule splits it: the local phase passes
// each window's end on as $window_end, which the global one windows on
// (win_end=[$window_end]).
func (b *binder) attachedWindowPhases(in Node, group []int, aggs []AggCall, window Windowing, start, end int, hasTime bool, outNames []string, outTypes []sql.DataType) (Node, error) {
	strategy, err := config.Enum(b.config, config.KeyAggPhaseStrategy)
	if err != nil {
		return nil, err
	}
	if strategy == "ONE_PHASE" || !windowTwoPhaseEligible(aggs) {
		ex := &Exchange{base: sameRow(in), Keys: append([]int(nil), group...), Single: len(group) == 0}
		return &WindowAggregate{base: row(outNames, outTypes, ex), Group: group, Aggs: aggs, TimeCol: -1,
			Window: window, WindowTime: hasTime, Attached: true, WinStart: start, WinEnd: end}, nil
	}
	local := &WindowAggregate{Group: group, Aggs: aggs, TimeCol: -1, Window: window, Phase: 1,
		Attached: true, WinStart: start, WinEnd: end}
	local.base = sameRow(in)
	var ln []string
	var lt []sql.DataType
	for _, g := range group {
		ln = append(ln, in.Names()[g])
		lt = append(lt, in.Types()[g])
	}
	bn, bt := localBuffers(local).fieldNames()
	ln = append(append(ln, bn...), "$window_end")
	lt = append(append(lt, bt...), in.Types()[end])
	local.base = row(ln, lt, in)
	keys := make([]int, len(group))
	for i := range keys {
		keys[i] = i
	}
	gex := &Exchange{base: sameRow(local), Keys: keys, Single: len(group) == 0}
	return &WindowAggregate{base: row(outNames, outTypes, gex), Group: keys, Aggs: aggs, TimeCol: -1,
		Window: window, WindowTime: hasTime, Phase: 2, Attached: true, WinStart: -1, WinEnd: len(ln) - 1}, nil
}

// convertAggregateOnWindows plans r over its planned input in as a
// window aggregate with Flink's WindowAttachedWindowingStrategy when r
// groups by the window_start and window_end in carries (a window
// aggregate's output, through Calcs: FlinkRelMdWindowProperties) of an
// event-time window, as StreamPhysicalWindowAggregateRule does: the rows
// are grouped per window they name and the other keys, and each window
// fires once when the watermark passes its end. ok is false for any other
// aggregate (a regular one then). SplitAggregateRule's FINAL aggregate
// over a window aggregate is one (windowsplit.go); a filter on the
// window columns below the aggregate is convertAttachedWindowAggregate.
func (b *binder) convertAggregateOnWindows(r *LogicalAggregate, in Node) (Node, bool, error) {
	wp, ok := physWindowProps(in)
	if !ok || wp.window.ProcTime || wp.window.Legacy || wp.window.Func == "SESSION" ||
		!slices.Contains(r.Group, wp.start) || !slices.Contains(r.Group, wp.end) {
		return nil, false, nil
	}
	if k := modifyKinds(in, map[Node]sql.ChangelogMode{}); !k.IsInsertOnly() {
		return nil, false, nil
	}
	if err := checkEmitConfiguration(b.config); err != nil {
		return nil, false, err
	}
	isWindow := func(g int) bool { return g == wp.start || g == wp.end || (wp.time >= 0 && g == wp.time) }
	var group []int
	var outNames []string
	var outTypes []sql.DataType
	hasTime := false
	for gi, g := range r.Group {
		if isWindow(g) {
			hasTime = hasTime || g == wp.time
			continue
		}
		group = append(group, g)
		outNames = append(outNames, in.Names()[g])
		outTypes = append(outTypes, r.types[gi])
	}
	nKeys := len(group)
	aggs := make([]AggCall, len(r.Aggs))
	for i, a := range r.Aggs {
		a.Name = uniqueName(a.fieldName(nKeys+i), outNames)
		aggs[i] = a
		outNames = append(outNames, a.Name)
		outTypes = append(outTypes, a.T)
	}
	outNames = append(outNames, "window_start", "window_end")
	outTypes = append(outTypes, in.Types()[wp.start], in.Types()[wp.end])
	if hasTime {
		outNames = append(outNames, "window_time")
		outTypes = append(outTypes, in.Types()[wp.time])
	}
	agg, err := b.attachedWindowPhases(in, group, aggs, wp.window, wp.start, wp.end, hasTime, outNames, outTypes)
	if err != nil {
		return nil, false, err
	}
	// Back to the aggregate's field order.
	reorder := make([]Expr, len(r.names))
	k := 0
	for gi, g := range r.Group {
		if !isWindow(g) {
			reorder[gi] = &InputRef{Index: k, T: outTypes[k]}
			k++
		}
	}
	for i := range r.Aggs {
		reorder[len(r.Group)+i] = &InputRef{Index: k, T: outTypes[k]}
		k++
	}
	for gi, g := range r.Group {
		at := -1
		switch {
		case g == wp.start:
			at = k
		case g == wp.end:
			at = k + 1
		case isWindow(g):
			at = k + 2
		}
		if at >= 0 {
			reorder[gi] = &InputRef{Index: at, T: outTypes[at]}
		}
	}
	return newCalc(agg, reorder, nil, r.names), true, nil
}
