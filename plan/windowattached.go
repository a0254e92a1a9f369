package plan

import (
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
	strategy, err := config.Enum(b.config, config.KeyAggPhaseStrategy)
	if err != nil {
		return nil, false, err
	}
	var agg Node
	if strategy != "ONE_PHASE" && windowTwoPhaseEligible(aggs) {
		local := &WindowAggregate{Group: group, Aggs: aggs, TimeCol: -1, Window: window, Phase: 1,
			Attached: true, WinStart: start, WinEnd: end}
		local.base = sameRow(calc)
		var ln []string
		var lt []sql.DataType
		for _, g := range group {
			ln = append(ln, calc.Names()[g])
			lt = append(lt, calc.Types()[g])
		}
		bn, bt := localBuffers(local).fieldNames()
		ln = append(append(ln, bn...), "$window_end")
		lt = append(append(lt, bt...), calc.Types()[end])
		local.base = row(ln, lt, calc)
		keys := make([]int, len(group))
		for i := range keys {
			keys[i] = i
		}
		gex := &Exchange{base: sameRow(local), Keys: keys, Single: len(group) == 0}
		agg = &WindowAggregate{base: row(outNames, outTypes, gex), Group: keys, Aggs: aggs, TimeCol: -1,
			Window: window, WindowTime: hasTime, Phase: 2, Attached: true, WinStart: -1, WinEnd: len(ln) - 1}
	} else {
		ex := &Exchange{base: sameRow(calc), Keys: append([]int(nil), group...), Single: len(group) == 0}
		agg = &WindowAggregate{base: row(outNames, outTypes, ex), Group: group, Aggs: aggs, TimeCol: -1,
			Window: window, WindowTime: hasTime, Attached: true, WinStart: start, WinEnd: end}
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
	propAt := map[int]int{}
	for _, gi := range windowCols {
		propAt[windowRef(exprs[r.Group[gi]])] = k
		k++
	}
	for gi, g := range r.Group {
		if at, ok := propAt[windowRef(exprs[g])]; ok {
			reorder[gi] = &InputRef{Index: at, T: outTypes[at]}
		}
	}
	return newCalc(agg, reorder, nil, r.names), true, nil
}
