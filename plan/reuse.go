package plan

import (
	"sort"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
)

// reuseScans is Flink's ScanReuser (SubplanReuser.reuseDuplicatedSubplan,
// with table.optimizer.reuse-sub-plan-enabled and
// table.optimizer.reuse-source-enabled, both on by default): the scans of
// one table that differ only in the fields pushed into them become one
// scan of the union of those fields, in the table's order, under a Calc
// picking each former scan's fields where they differ. The merged scan
// prints its projection even when it reads every field
// (BroadcastJoinHintTest.testJoinHintWithTableAlias: T1 scanned whole and
// for a1 is project=[a1, b1] twice, the second under Calc(select=[a1])).
// Each former scan keeps its own source (the union projection applied to
// it), so the running job reads the table as before, with the fields of
// the union. Only the scans of one statement merge (one root: the query,
// or one INSERT of a statement set): Flink 1.20 optimizes a statement
// set's sinks as separate RelNodeBlocks and keeps their scans apart
// (WindowAggregateTest.testMultipleAggregateOnSameWindowTVF:
// project=[b, e, rowtime] and project=[rowtime] of one table in two
// INSERTs), while a view read twice in one query shares one
// (testInvalidRelaxFormCascadeProctimeWindow_OnWindowJoin). A source
// that does not take projections, one reading
// metadata, or scans whose other abilities (filters) differ are left
// alone; scans already alike are Flink's plain sub-plan reuse, which
// EXPLAIN's optimized plan does not show.
func reuseScans(b *binder, roots []*Sink, cfg map[string]string, hinted bool) ([]*Sink, error) {
	subPlan, _ := config.Bool(cfg, config.KeyReuseSubPlan) // SET checked them
	source, _ := config.Bool(cfg, config.KeyReuseSource)
	if !subPlan || !source {
		return roots, nil
	}
	// A group is the scans of one statement (one root: a query, or one
	// INSERT of a statement set) alike but for their projection.
	type groupKey struct {
		root   int
		digest string
	}
	groups := map[groupKey][]*TableSourceScan{}
	var order []groupKey
	root := 0
	var visit func(n Node, sub bool)
	visit = func(n Node, sub bool) {
		if j, ok := n.(*Join); ok && (j.IsSemi() || j.IsAnti()) {
			visit(j.inputs[0], sub)
			visit(j.inputs[1], true)
			return
		}
		for _, in := range n.Inputs() {
			visit(in, sub)
		}
		s, ok := n.(*TableSourceScan)
		if !ok || len(s.Table.MetadataKeys) > 0 || s.Watermark != nil {
			// (A pushed watermark reads the scan's fields by position: a
			// scan with one keeps its own projection.)
			return
		}
		if _, ok := projector(s.Table.Source); !ok {
			return
		}
		// The digest without the projection: the table, its hint
		// options and the filters pushed into it. In a statement with
		// join hints a scan inside an IN / EXISTS subquery keeps Flink's
		// ALIAS hint (BroadcastJoinHintTest.testJoinHintWithJoinHintInCorrelateAndWithSortLimit:
		// T1 whole and T1 hints=[[[ALIAS options:[T1]]]] stay apart).
		d := scanDigest("TableSourceScan", s.Table, nil, s.FilterDigest, s.FilterPushed, s.Limit, nil, s.Table.Schema.Names())
		if sub && hinted {
			d += " in a subquery"
		}
		k := groupKey{root, d}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	for i, r := range roots {
		root = i
		visit(r, false)
	}
	replace := map[*TableSourceScan]Node{}
	for _, k := range order {
		scans := groups[k]
		if len(scans) < 2 || sameProjection(scans) {
			continue
		}
		used := map[int]bool{}
		for _, s := range scans {
			for _, f := range scanFieldsOf(s) {
				used[f] = true
			}
		}
		union := make([]int, 0, len(used))
		for f := range used {
			union = append(union, f)
		}
		sort.Ints(union)
		cols := scans[0].Table.Schema.Columns
		for _, s := range scans {
			// A scan's source may be another scan's too (a WITH query
			// read twice, whole): the merged scan reads one of its own.
			own, err := b.ownSource(s.Table)
			if err != nil {
				return nil, err
			}
			pp, ok := projector(own.Source)
			if !ok {
				return roots, nil
			}
			pp.ApplyProjection(union)
			merged := *s
			merged.Table = own
			merged.Project = union
			ns := make([]string, len(union))
			pos := map[int]int{}
			for i, f := range union {
				ns[i] = cols[f].Name
				pos[f] = i
			}
			merged.base = s.base
			merged.base.names = ns
			merged.base.types = unionTypes(s, union)
			merged.base.upsertKeys = nil
			fields := scanFieldsOf(s)
			if equalInts(fields, union) {
				replace[s] = &merged
				continue
			}
			exprs := make([]Expr, len(fields))
			for i, f := range fields {
				exprs[i] = &InputRef{Index: pos[f], T: merged.base.types[pos[f]]}
			}
			c := &Calc{base: s.base, Exprs: exprs}
			c.base.inputs = []Node{&merged}
			replace[s] = c
		}
	}
	if len(replace) == 0 {
		return roots, nil
	}
	var rewrite func(n Node) Node
	rewrite = func(n Node) Node {
		if c, ok := n.(*Calc); ok {
			// ReplaceScanWithCalcShuttle: a Calc over a scan whose
			// replacement is a projection Calc merges with it
			// (FlinkRelUtil.merge; the projection's references are
			// always mergeable): WindowAggregateTest
			// .testInvalidRelaxFormCascadeProctimeWindow_OnWindowJoin.
			if s, ok := c.input().(*TableSourceScan); ok {
				if p, ok := replace[s].(*Calc); ok {
					out := *c
					out.Exprs = make([]Expr, len(c.Exprs))
					for i, e := range c.Exprs {
						out.Exprs[i] = inline(e, p.Exprs)
					}
					if c.Cond != nil {
						out.Cond = inline(c.Cond, p.Exprs)
					}
					out.base = c.base.with([]Node{p.input()})
					return &out
				}
			}
		}
		if s, ok := n.(*TableSourceScan); ok {
			if r, ok := replace[s]; ok {
				return r
			}
			return n
		}
		ins := n.Inputs()
		if len(ins) == 0 {
			return n
		}
		out := make([]Node, len(ins))
		changed := false
		for i, in := range ins {
			out[i] = rewrite(in)
			changed = changed || out[i] != in
		}
		if !changed {
			return n
		}
		return n.WithInputs(out...)
	}
	res := make([]*Sink, len(roots))
	for i, r := range roots {
		res[i] = rewrite(r).(*Sink)
	}
	return res, nil
}

// scanFieldsOf is the table fields a scan reads, in its order.
func scanFieldsOf(s *TableSourceScan) []int {
	if s.Project != nil {
		return s.Project
	}
	f := make([]int, len(s.Table.Schema.Columns))
	for i := range f {
		f[i] = i
	}
	return f
}

func sameProjection(scans []*TableSourceScan) bool {
	for _, s := range scans[1:] {
		if (s.Project == nil) != (scans[0].Project == nil) || !equalInts(s.Project, scans[0].Project) {
			return false
		}
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// unionTypes is the types of the union's fields as the scan's row types
// them (a field the scan does not read takes the column's type).
func unionTypes(s *TableSourceScan, union []int) []sql.DataType {
	have := map[int]int{}
	for i, f := range scanFieldsOf(s) {
		have[f] = i
	}
	out := make([]sql.DataType, len(union))
	for i, f := range union {
		if j, ok := have[f]; ok {
			out[i] = s.types[j]
			continue
		}
		out[i] = s.Table.Schema.Columns[f].Type
	}
	return out
}
