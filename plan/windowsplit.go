package plan

import (
	"github.com/sqlrun/sqlrun/sql"
)

// The window aggregates of a split distinct aggregation
// (table.optimizer.distinct-agg.split.enabled, splitagg.go). Flink's
// SplitAggregateRule rewrites a window TVF aggregate like any other: a
// PARTIAL aggregate grouped by window_start, window_end, the other keys and
// the hash buckets, over a Calc adding the buckets (and, with more than one
// bucket grouping, an Expand and a Calc of the $g_<id> filters) over the
// table function; and a FINAL aggregate over it grouped by window_start,
// window_end and the other keys. StreamPhysicalWindowAggregateRule then
// plans both as window aggregates:
//   - the partial one over the chain of Calcs and Expands: the table
//     function merges into it (ExpandWindowTableFunctionTransposeRule
//     moves the Expand below it), each node of the chain drops the window
//     columns and passes the time attribute on as its last field
//     (convertWindowChain), and it windows on that attribute
//     (TimeAttributeWindowingStrategy, time_col=[rowtime]);
//   - the final one over the partial one's output, whose window_start and
//     window_end it reads (WindowAttachedWindowingStrategy,
//     win_start=[window_start], win_end=[window_end]): every row holds one
//     window, the partial result of a bucket, and the window fires when the
//     watermark passes its end, as the partial one's did
//     (convertAggregateOnWindows, windowattached.go).

// windowChain is the window table function below n through Calcs and
// Expands, with the chain's nodes from n down; nil when there is none or
// the chain is no more than one Calc (convertWindowAggregate's own case).
func windowChain(n Node) (*LogicalWindowTableFunction, []Node) {
	var chain []Node
	for {
		switch x := n.(type) {
		case *LogicalCalc, *LogicalExpand:
			chain = append(chain, x)
			n = x.Inputs()[0]
			continue
		case *LogicalWindowTableFunction:
			if len(chain) == 0 {
				return nil, nil
			}
			if _, ok := chain[0].(*LogicalCalc); ok && len(chain) == 1 {
				return nil, nil
			}
			return x, chain
		}
		return nil, nil
	}
}

// chainWindows is, for each field of each node of chain (bottom up, the
// table function first), the window column (0 window_start, 1 window_end,
// 2 window_time) it passes on unchanged, or -1.
func chainWindows(tvf *LogicalWindowTableFunction, chain []Node) [][]int {
	nIn := len(tvf.input().Names())
	win := make([]int, len(tvf.Names()))
	for i := range win {
		win[i] = -1
		if i >= nIn {
			win[i] = i - nIn
		}
	}
	levels := [][]int{win}
	for k := len(chain) - 1; k >= 0; k-- {
		next := make([]int, len(chain[k].Names()))
		for i := range next {
			next[i] = -1
			var e Expr
			switch x := chain[k].(type) {
			case *LogicalCalc:
				e = x.Exprs[i]
			case *LogicalExpand:
				// A field every projection passes on unchanged.
				first, ok := x.Projects[0][i].(*InputRef)
				for _, p := range x.Projects[1:] {
					if r, isRef := p[i].(*InputRef); !ok || !isRef || r.Index != first.Index {
						ok = false
						break
					}
				}
				if ok {
					e = first
				}
			}
			if r, ok := e.(*InputRef); ok {
				next[i] = win[r.Index]
			}
		}
		win = next
		levels = append(levels, win)
	}
	return levels
}

// chainWindowRefs stands for the fields of the chain's top as
// convertWindowAggregate reads a Calc's expressions: a window column as a
// reference to the table function's field, any other as a reference to
// its first input field.
func chainWindowRefs(tvf *LogicalWindowTableFunction, chain []Node) []Expr {
	levels := chainWindows(tvf, chain)
	top := levels[len(levels)-1]
	nIn := len(tvf.input().Names())
	out := make([]Expr, len(top))
	for i, w := range top {
		idx := 0
		if w >= 0 {
			idx = nIn + w
		}
		out[i] = &InputRef{Index: idx, T: chain[0].Types()[i]}
	}
	return out
}

// convertWindowChain plans the chain of Calcs and Expands between a window
// aggregate and its table function without the function: each node drops
// the window columns and keeps the time attribute as its last field. pos
// maps the chain top's fields to the result's; ok is false when a node
// computes with a window column (the function then cannot merge into the
// aggregate).
func (b *binder) convertWindowChain(tvf *LogicalWindowTableFunction, chain []Node) (Node, map[int]int, int, bool, error) {
	levels := chainWindows(tvf, chain)
	nIn := len(tvf.input().Names())
	usesWindow := func(e Expr, win []int) bool {
		used := map[int]bool{}
		refs(e, used)
		for f := range used {
			if win[f] >= 0 || f >= len(win) {
				return true
			}
		}
		return false
	}
	for k := len(chain) - 1; k >= 0; k-- {
		win := levels[len(chain)-1-k]
		switch x := chain[k].(type) {
		case *LogicalCalc:
			if x.Cond != nil && usesWindow(x.Cond, win) {
				return nil, nil, 0, false, nil
			}
			for _, e := range x.Exprs {
				if r, ok := e.(*InputRef); ok && win[r.Index] >= 0 {
					continue
				}
				if usesWindow(e, win) {
					return nil, nil, 0, false, nil
				}
			}
		case *LogicalExpand:
			for _, p := range x.Projects {
				for i, e := range p {
					if levels[len(chain)-k][i] >= 0 {
						continue
					}
					if usesWindow(e, win) {
						return nil, nil, 0, false, nil
					}
				}
			}
		}
	}
	in, err := b.convert(tvf.input())
	if err != nil {
		return nil, nil, 0, false, err
	}
	// An updating input is fine: the partial aggregate's calls retract
	// (convertWindowAggregate), as an unsplit window aggregate's do
	// (Flink 1.19+, FLINK-20281), and its output is insert-only.
	// phys maps the current level's fields to the planned node's.
	phys := make([]int, len(tvf.Names()))
	for i := range phys {
		phys[i] = -1
		if i < nIn {
			phys[i] = i
		}
	}
	cur, timeCol := in, tvf.TimeCol
	timeName := tvf.names[tvf.TimeCol]
	for k := len(chain) - 1; k >= 0; k-- {
		out := levels[len(chain)-k] // the windows of the node's fields
		m := map[int]int{}
		for i, p := range phys {
			if p >= 0 {
				m[i] = p
			}
		}
		next := make([]int, len(out))
		timeRef := &InputRef{Index: timeCol, T: cur.Types()[timeCol]}
		switch x := chain[k].(type) {
		case *LogicalCalc:
			var exprs []Expr
			var names []string
			for i, e := range x.Exprs {
				next[i] = -1
				if out[i] >= 0 {
					continue
				}
				next[i] = len(exprs)
				exprs = append(exprs, remap(e, m))
				names = append(names, x.names[i])
			}
			var cond Expr
			if x.Cond != nil {
				cond = remap(x.Cond, m)
			}
			names = append(names, uniqueName(timeName, names))
			exprs = append(exprs, timeRef)
			cur = newCalc(cur, exprs, cond, names)
			timeCol = len(exprs) - 1
		case *LogicalExpand:
			var names []string
			var types []sql.DataType
			for i := range x.names {
				next[i] = -1
				if out[i] < 0 {
					next[i] = len(names)
					names = append(names, x.names[i])
					types = append(types, x.types[i])
				}
			}
			projects := make([][]Expr, len(x.Projects))
			for j, p := range x.Projects {
				for i, e := range p {
					if out[i] < 0 {
						projects[j] = append(projects[j], remap(e, m))
					}
				}
				projects[j] = append(projects[j], timeRef)
			}
			names = append(names, uniqueName(timeName, names))
			types = append(types, timeRef.T)
			cur = &Expand{base: row(names, types, cur), Projects: projects}
			timeCol = len(names) - 1
		}
		phys = next
	}
	pos := map[int]int{}
	for i, p := range phys {
		if p >= 0 {
			pos[i] = p
		}
	}
	return cur, pos, timeCol, true, nil
}
