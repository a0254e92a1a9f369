package plan

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
)

// This file binds the computed and metadata columns of a table, as
// Flink's DynamicSourceUtils.convertSourceToRel does: the scan produces
// the physical columns followed by the metadata columns the source reads
// (in the source's key order), and one LogicalProject above it puts the
// columns into declaration order, casts metadata to the declared types
// and computes the computed columns.

// readScope is the scope a computed column's expression sees: the
// physical and metadata columns in declaration order.
func readScope(t *catalog.Table) *scope {
	s := &scope{}
	for _, c := range t.Columns() {
		if c.Kind != catalog.Computed {
			s.cols = append(s.cols, column{name: c.Name, t: c.Type})
		}
	}
	return s
}

// ResolveComputedColumns types a new table's computed columns as Flink's
// schema resolver does at CREATE TABLE: each expression is bound over the
// physical and metadata columns, and its type is the column's. It checks
// the WATERMARK FOR clause too.
func ResolveComputedColumns(t *catalog.Table) error {
	if !t.HasComputed() {
		return checkWatermark(t)
	}
	b := &binder{config: map[string]string{}, streaming: true}
	sc := readScope(t)
	for i, c := range t.NonPhysical {
		if c.Kind != catalog.Computed {
			continue
		}
		e, err := b.bindExpr(c.Expr, sc, nil)
		if err != nil {
			return err
		}
		// MergeTableLikeUtil: toLogicalType of the validated type.
		t.NonPhysical[i].Type = sql.Planned(e.Type())
	}
	return checkWatermark(t)
}

// sourceSummary names a source in Flink's messages (asSummaryString): its
// connector's identifier.
func sourceSummary(ref *TableRef) string {
	return ref.Factory.Identifier()
}

// expandScan binds the scan of a table with computed or metadata columns:
// the LogicalTableScan of what the source produces and the projection
// above it.
func (b *binder) expandScan(ref *TableRef) (Node, error) {
	t := ref.Table
	names, types := ref.Schema.Names(), scanTypes(ref)
	metaPos := map[string]int{} // metadata column name -> produced field
	if metas := t.MetadataColumns(); len(metas) > 0 {
		ms, ok := ref.Source.(connectors.MetadataSource)
		if !ok {
			return nil, sql.Errorf(sql.ValidationException,
				"Table '%s' declares metadata columns, but the underlying DynamicTableSource doesn't implement the SupportsReadingMetadata interface. Therefore, metadata cannot be read from the given source.",
				sourceSummary(ref))
		}
		readable := ms.ReadableMetadata()
		byKey := map[string]catalog.TableColumn{}
		for _, c := range metas {
			found := false
			for _, k := range readable {
				if k.Key == c.Key() {
					found = true
				}
			}
			if !found {
				keys := make([]string, len(readable))
				for i, k := range readable {
					keys[i] = k.Key
				}
				return nil, sql.Errorf(sql.ValidationException,
					"Invalid metadata key '%s' in column '%s' of table '%s'. The DynamicTableSource class '%s' supports the following metadata keys for reading:\n%s",
					c.Key(), c.Name, ref.ID, ms.SourceClass(), strings.Join(keys, "\n"))
			}
			byKey[c.Key()] = c
		}
		var keys []string
		for _, k := range readable {
			c, ok := byKey[k.Key]
			if !ok {
				continue
			}
			keys = append(keys, k.Key)
			metaPos[c.Name] = len(names)
			names = append(names, c.Name)
			types = append(types, k.Type)
		}
		ms.ApplyReadableMetadata(keys)
		ref.MetadataKeys = keys
	}
	scan := &LogicalTableScan{base: row(names, types), Table: ref}
	// The metadata projection: declaration order, metadata cast to the
	// declared type.
	var readExprs []Expr
	physIdx := 0
	for _, c := range t.Columns() {
		switch c.Kind {
		case catalog.Physical:
			readExprs = append(readExprs, &InputRef{Index: physIdx, T: types[physIdx]})
			physIdx++
		case catalog.Metadata:
			i := metaPos[c.Name]
			var e Expr = &InputRef{Index: i, T: types[i]}
			if b.streaming && t.Watermark != nil && t.Watermark.Column == c.Name {
				// The rowtime attribute's declared type is a time
				// indicator in streaming mode (DefaultSchemaResolver
				// .adjustRowtimeAttribute), which no metadata type is:
				// makeAbstractCast keeps the cast, printed
				// CAST(ts AS TIMESTAMP(3) *ROWTIME*)
				// (WatermarkAssignerChangelogNormalizeTransposeRuleTest
				// .testPushdownCalcNotAffectChangelogNormalizeKey).
				e = &Call{Op: "CAST", Args: []Expr{e}, T: c.Type, Written: expr.RowtimeCast}
			} else if !types[i].WithNullable(true).Equal(c.Type.WithNullable(true)) {
				// makeAbstractCast to the declared type, nullability
				// included.
				e = &Call{Op: "CAST", Args: []Expr{e}, T: c.Type}
			}
			readExprs = append(readExprs, e)
		}
	}
	sc := readScope(t)
	var exprs []Expr
	var outNames []string
	var outTypes []sql.DataType
	r := 0
	for _, c := range t.Columns() {
		var e Expr
		if c.Kind == catalog.Computed {
			be, err := b.bindExpr(c.Expr, sc, nil)
			if err != nil {
				return nil, fmt.Errorf("computed column '%s' of table %s: %w", c.Name, ref.ID, err)
			}
			e = inline(be, readExprs)
		} else {
			e = readExprs[r]
			r++
		}
		exprs = append(exprs, e)
		outNames = append(outNames, c.Name)
		outTypes = append(outTypes, e.Type())
	}
	identity := len(exprs) == len(names)
	for i, e := range exprs {
		if x, ok := e.(*InputRef); !ok || x.Index != i {
			identity = false
		}
	}
	if identity {
		return scan, nil
	}
	return &LogicalProject{base: row(outNames, outTypes, scan), Exprs: exprs}, nil
}

// materializeProctime wraps every PROCTIME() a Calc computes, and every
// reference to a processing-time attribute, in PROCTIME_MATERIALIZE, as
// Flink's RelTimeIndicatorConverter does where the attribute becomes a
// plain value. A Calc below a WatermarkAssigner keeps its PROCTIME() (the
// attribute passes through the assigner), and the Calc above materializes
// the field (TableScanTest.testDDLWithComputedColumnReferRowtime).
func materializeProctime(n Node) Node {
	out, attrs := matProc(n, false)
	return materializeAbove(out, attrs)
}

// materializeAbove puts a Calc materializing the processing-time
// attributes a lookup join (or a node that keeps them, keepsProctime)
// passes on above it, where nothing above does (the sink or the query's
// result reads plain values: RelTimeIndicatorConverter's final
// materializeProcTime, SortLimitTest.testOrderByLimit).
func materializeAbove(n Node, attrs map[int]bool) Node {
	_, isLookup := n.(*LookupJoin)
	_, isTemporal := n.(*TemporalJoin)
	_, isWM := n.(*WatermarkAssigner)
	rt := temporalRightTime(n)
	if !isLookup && !isTemporal && !isWM && !passesWindowProctime(n) && !keepsProctime(n) || len(attrs) == 0 && rt < 0 {
		return n
	}
	exprs := identity(n.Types())
	for i := range exprs {
		exprs[i] = castRowtimeRefs(materializeRefs(exprs[i], attrs), rt)
	}
	return &Calc{base: sameRow(n), Exprs: exprs}
}

// temporalRightTime is the field of a TemporalJoin's output that holds the
// versioned side's rowtime, which is a plain TIMESTAMP above the join
// (RelTimeIndicatorConverter casts it); -1 for other nodes.
func temporalRightTime(n Node) int {
	tj, ok := n.(*TemporalJoin)
	if !ok || tj.rightRowtime < 0 {
		return -1
	}
	return len(tj.inputs[0].Names()) + tj.rightRowtime
}

// castRowtimeRefs casts the references to field rt (when rt >= 0) to
// their plain type.
func castRowtimeRefs(e Expr, rt int) Expr {
	if rt < 0 {
		return e
	}
	return mapRefs(e, func(x *InputRef) Expr {
		if x.Index != rt {
			return x
		}
		return &Call{Op: "CAST", Args: []Expr{x}, T: x.T}
	})
}

// mapRefs rebuilds e with each field reference replaced by f's result,
// sharing what does not change.
func mapRefs(e Expr, f func(*InputRef) Expr) Expr {
	switch x := e.(type) {
	case *InputRef:
		return f(x)
	case *Call:
		return x.MapArgs(func(a Expr) Expr { return mapRefs(a, f) })
	}
	return e
}

// matProc rewrites n's subtree; attrs are n's output fields that still
// carry an unmaterialized processing-time attribute. keep is set for the
// input of a WatermarkAssigner.
func matProc(n Node, keep bool) (Node, map[int]bool) {
	ins := n.Inputs()
	_, isWM := n.(*WatermarkAssigner)
	_, isEx := n.(*Exchange)
	// A Deduplicate or a Rank ordered by processing time, and the Exchange
	// below it, keep the attribute too (rank.go).
	_, isLookup := n.(*LookupJoin) // its input keeps the attribute it passes on
	_, isTemporal := n.(*TemporalJoin)
	_, isTVF := n.(*WindowTableFunction)
	// A Calc that keeps the attribute (under a window join, say) reads
	// it unmaterialized from its input too.
	_, isCalc := n.(*Calc)
	// A WindowJoin passes both inputs' attributes on (the right one's
	// shifted past the left row), as Flink's RelTimeIndicatorConverter
	// keeps a window join's time indicators.
	wj, isWJ := n.(*WindowJoin)
	// So does an IntervalJoin: RelTimeIndicatorConverter materializes the
	// time attributes of a regular join's inputs only (satisfyRegularJoin),
	// and the Calc above an interval join materializes its proctime
	// (WindowJoinTest.testTimeAttributePropagateForWindowJoin).
	_, isIJ := n.(*IntervalJoin)
	// A WindowAggregate on processing time reads its time attribute
	// unmaterialized (WindowAggregateTest.testProctimeWindowWithFilter:
	// PROCTIME() AS proctime below it).
	wa, isWA := n.(*WindowAggregate)
	isProcWA := isWA && wa.Window.ProcTime && wa.Phase == 0
	isWM = isWM || keepsProctime(n) || isEx && keep || isLookup || isTemporal || passesWindowProctime(n) || isTVF && keep || isCalc && keep || isProcWA
	var inAttrs map[int]bool
	if len(ins) > 0 {
		changed := false
		out := make([]Node, len(ins))
		for i, in := range ins {
			var a map[int]bool
			out[i], a = matProc(in, isWM)
			if _, isJoin := n.(*Join); isJoin && len(a) > 0 {
				// RelTimeIndicatorConverter materializes the time
				// attributes of a regular join's inputs, in a Calc below
				// its Exchange when nothing above the attribute's
				// WatermarkAssigner does (IntervalJoinTest.testInteravalDiffTimeIndicator).
				out[i] = materializeBelowExchange(out[i], a)
			}
			if i == 0 {
				inAttrs = a
			}
			// A TemporalJoin passes its versioned side's attributes on
			// too: a processing-time one kept by a Deduplicate ordered by
			// it is materialized above the join, as the left side's is
			// (TemporalJoinTest.testProcTimeTemporalJoinWithLastRowView:
			// PROCTIME_MATERIALIZE(proctime0) in Flink's plan).
			if i == 1 && (isWJ && !wj.IsSemi() && !wj.IsAnti() || isIJ || isTemporal) && len(a) > 0 {
				merged := map[int]bool{}
				for f := range inAttrs {
					merged[f] = true
				}
				for f := range a {
					merged[f+len(ins[0].Names())] = true
				}
				inAttrs = merged
			}
			changed = changed || out[i] != in
		}
		if changed {
			n = n.WithInputs(out...)
		}
	}
	switch c := n.(type) {
	case *WatermarkAssigner, *Exchange, *Deduplicate, *Rank, *OverAggregate, *LookupJoin, *TemporalJoin,
		*WindowRank, *WindowDeduplicate, *WindowJoin, *IntervalJoin, *SortLimit, *TemporalSort, *Correlate:
		return n, inAttrs
	case *Sort:
		if c.Stream {
			return n, inAttrs
		}
	case *Limit:
		// A streaming LIMIT passes them on as a SortLimit does
		// (keepsProctime).
		if !c.Batch {
			return n, inAttrs
		}
	case *WindowTableFunction:
		// It passes its input's processing-time attributes on (its row
		// type keeps them *PROCTIME*), on either time: the Calc or sink
		// above materializes them (WindowTableFunctionTest.testTumbleTVF:
		// PROCTIME_MATERIALIZE(proctime) above a TUMBLE on rowtime).
		if !c.Window.ProcTime {
			return n, inAttrs
		}
		// On processing time, its window_time is a proctime attribute too.
		attrs := map[int]bool{len(c.input().Names()) + 2: true}
		for f := range inAttrs {
			attrs[f] = true
		}
		return n, attrs
	case *WindowAggregate:
		// A processing-time window's window_time is a proctime attribute
		// (proctime('w$)), materialized above.
		if c.Window.ProcTime && c.WindowTime && c.Phase == 0 {
			return n, map[int]bool{len(c.Group) + len(c.Aggs) + 2: true}
		}
	case *Sink:
		if in := materializeAbove(c.input(), inAttrs); in != c.input() {
			return n.WithInputs(in), nil
		}
	case *Calc:
		rt := temporalRightTime(c.input())
		fix := func(e Expr) Expr {
			e = castRowtimeRefs(materializeRefs(e, inAttrs), rt)
			if !keep {
				e = materialize(e)
			}
			return e
		}
		var attrs map[int]bool
		exprs := make([]Expr, len(c.Exprs))
		changed := false
		for i, e := range c.Exprs {
			if keep {
				if x, ok := e.(*Call); ok && x.Op == "PROCTIME" {
					if attrs == nil {
						attrs = map[int]bool{}
					}
					attrs[i] = true
				}
				if x, ok := e.(*InputRef); ok && inAttrs[x.Index] {
					if attrs == nil {
						attrs = map[int]bool{}
					}
					attrs[i] = true
					exprs[i] = e
					continue
				}
			}
			exprs[i] = fix(e)
			changed = changed || exprs[i] != e
		}
		cond := c.Cond
		if cond != nil {
			cond = fix(cond)
			changed = changed || cond != c.Cond
		}
		if !changed {
			return n, attrs
		}
		out := *c
		out.Exprs, out.Cond = exprs, cond
		return &out, attrs
	}
	return n, nil
}

// materializeRefs wraps the references to the fields of attrs.
func materializeRefs(e Expr, attrs map[int]bool) Expr {
	if len(attrs) == 0 {
		return e
	}
	return mapRefs(e, func(x *InputRef) Expr {
		if !attrs[x.Index] {
			return x
		}
		return &Call{Op: "PROCTIME_MATERIALIZE", Args: []Expr{x}, T: x.T}
	})
}

func materialize(e Expr) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if c.Op == "PROCTIME" {
		return &Call{Op: "PROCTIME_MATERIALIZE", Args: []Expr{c}, T: c.T}
	}
	return c.MapArgs(materialize)
}

// passesWindowProctime reports a window Top-N, deduplication or join (or a
// window table function): as
// the WindowTableFunction below it, it passes processing-time attributes
// on unmaterialized, and the Calc above materializes them
// (WindowDeduplicateTest.testOnWindowTVF,
// WindowJoinTest.testSimplifyTumbleWindowTVFBeforeWindowJoin:
// PROCTIME_MATERIALIZE(proctime)).
func passesWindowProctime(n Node) bool {
	switch n.(type) {
	case *WindowRank, *WindowDeduplicate, *WindowJoin, *IntervalJoin, *WindowTableFunction:
		return true
	case *TemporalSort:
		// A Sort passes its input's time attributes on
		// (RelTimeIndicatorConverter.visitSimpleRel).
		return true
	}
	return false
}

// materializeBelowExchange puts a Calc materializing the processing-time
// attributes attrs of n (an Exchange's input, or n itself) in PROCTIME_MATERIALIZE.
func materializeBelowExchange(n Node, attrs map[int]bool) Node {
	if ex, ok := n.(*Exchange); ok {
		return ex.WithInputs(materializeBelowExchange(ex.input(), attrs))
	}
	exprs := identity(n.Types())
	for i := range exprs {
		exprs[i] = materializeRefs(exprs[i], attrs)
	}
	return &Calc{base: sameRow(n), Exprs: exprs}
}

// castJoinRowtime casts the window_time a window aggregate passes to a
// regular join, in the Calc that reads it below the join, to a plain
// TIMESTAMP: Flink's RelTimeIndicatorConverter materializes the time
// attributes of a regular join's inputs (CAST of a rowtime), and the cast
// merges into that Calc (WindowJoinTest.testMissWindowEndInConditionForTumbleWindow:
// Calc(select=[..., CAST(window_time AS TIMESTAMP(3)) AS window_time, ...])
// under the Join). Other rowtime attributes of a join's inputs are passed
// on uncast (not yet).
//
// It also casts a table's rowtime attribute (rowtimeFields) where
// RelTimeIndicatorConverter materializes it outside joins: an operand of a
// call in a Calc (RexTimeIndicatorMaterializer:
// RelTimeIndicatorConverterTest.testFilteringOnRowtime, where=[(CAST(rowtime
// AS TIMESTAMP(3)) > ...)]), and a group key or argument of a GroupAggregate
// (convertAggInput: testGroupingOnRowtime, Calc(select=[CAST(rowtime AS
// TIMESTAMP(3)) AS rowtime, long]) below it).
func castJoinRowtime(n Node) Node {
	ins := n.Inputs()
	if len(ins) == 0 {
		return n
	}
	out := make([]Node, len(ins))
	changed := false
	_, isJoin := n.(*Join)
	for i, in := range ins {
		out[i] = castJoinRowtime(in)
		if isJoin {
			out[i] = castWindowTimeBelow(out[i])
		}
		if agg, ok := n.(*GroupAggregate); ok {
			out[i] = castAggRowtime(out[i], agg)
		}
		changed = changed || out[i] != in
	}
	if changed {
		n = n.WithInputs(out...)
	}
	if c, ok := n.(*Calc); ok {
		return castCallRowtime(c)
	}
	return n
}

// castCallRowtime casts the rowtime attribute where a call of c reads it.
func castCallRowtime(c *Calc) Node {
	rt := rowtimeFields(c.input())
	if len(rt) == 0 {
		return c
	}
	var inCalls func(e Expr) Expr
	inCalls = func(e Expr) Expr {
		x, ok := e.(*Call)
		if !ok || isRowtimeCast(x, rt) {
			return e
		}
		return x.MapArgs(func(a Expr) Expr {
			if r, ok := a.(*InputRef); ok && rt[r.Index] {
				return &Call{Op: "CAST", Args: []Expr{r}, T: r.T}
			}
			return inCalls(a)
		})
	}
	exprs := make([]Expr, len(c.Exprs))
	changed := false
	for i, e := range c.Exprs {
		exprs[i] = inCalls(e)
		changed = changed || exprs[i] != e
	}
	cond := c.Cond
	if cond != nil {
		cond = inCalls(cond)
		changed = changed || cond != c.Cond
	}
	if !changed {
		return c
	}
	cc := *c
	cc.Exprs, cc.Cond = exprs, cond
	return &cc
}

// isRowtimeCast reports a CAST that materializes a rowtime field of rt.
func isRowtimeCast(x *Call, rt map[int]bool) bool {
	if x.Op != "CAST" || len(x.Args) != 1 {
		return false
	}
	r, ok := x.Args[0].(*InputRef)
	return ok && rt[r.Index] && r.T.Equal(x.T)
}

// castAggRowtime casts, in the Calc below a GroupAggregate (under its
// Exchange or not), the rowtime attribute fields the aggregate groups by
// or aggregates.
func castAggRowtime(in Node, agg *GroupAggregate) Node {
	ex, isEx := in.(*Exchange)
	inner := in
	if isEx {
		inner = ex.input()
	}
	c, ok := inner.(*Calc)
	if !ok {
		// A table's rowtime read as it is: a Calc of its own casting it.
		c = &Calc{base: sameRow(inner), Exprs: identity(inner.Types())}
	}
	rt := rowtimeFields(c.input())
	if len(rt) == 0 {
		return in
	}
	read := map[int]bool{}
	for _, g := range agg.Group {
		read[g] = true
	}
	for _, a := range agg.Aggs {
		for _, x := range a.Args {
			read[x] = true
		}
	}
	exprs := make([]Expr, len(c.Exprs))
	changed := false
	for i, e := range c.Exprs {
		exprs[i] = e
		if r, ok := e.(*InputRef); ok && read[i] && rt[r.Index] {
			exprs[i] = &Call{Op: "CAST", Args: []Expr{r}, T: r.T}
			changed = true
		}
	}
	if !changed {
		return in
	}
	cc := *c
	cc.Exprs = exprs
	if isEx {
		return ex.WithInputs(&cc)
	}
	return &cc
}

// castWindowTimeBelow casts window_time in a join input that is a Calc
// (under an Exchange or not) over a window aggregate emitting an event-time
// window_time.
func castWindowTimeBelow(in Node) Node {
	ex, isEx := in.(*Exchange)
	inner := in
	if isEx {
		inner = ex.input()
	}
	c, ok := inner.(*Calc)
	if !ok {
		// A table's own rowtime read as it is: a Calc casting it
		// (IntervalJoinTest.testInteravalDiffTimeIndicator:
		// CAST(rowtime AS TIMESTAMP(3)) AS rowtime).
		rt := rowtimeFields(inner)
		if len(rt) == 0 {
			return in
		}
		exprs := identity(inner.Types())
		for i := range exprs {
			exprs[i] = castRefs(exprs[i], rt)
		}
		cc := &Calc{base: sameRow(inner), Exprs: exprs}
		if isEx {
			return ex.WithInputs(cc)
		}
		return cc
	}
	rt := rowtimeFields(c.input())
	if wa, ok := c.input().(*WindowAggregate); ok && wa.Phase != 1 && wa.WindowTime && !wa.Window.ProcTime {
		rt = map[int]bool{len(wa.Group) + len(wa.Aggs) + 2: true}
	}
	exprs := make([]Expr, len(c.Exprs))
	changed := false
	for i, e := range c.Exprs {
		exprs[i] = castRefs(e, rt)
		if x, ok := e.(*Call); ok && x.Op == "Reinterpret" {
			// The rowtime of a watermark pushed into the scan, computed
			// in this Calc (watermarkIntoScan): cast as a field is.
			exprs[i] = &Call{Op: "CAST", Args: []Expr{x}, T: x.T}
		}
		changed = changed || exprs[i] != e
	}
	if !changed {
		return in
	}
	cc := *c
	cc.Exprs = exprs
	if isEx {
		return ex.WithInputs(&cc)
	}
	return &cc
}

// castRefs casts the references to the fields of rt to their plain type.
func castRefs(e Expr, rt map[int]bool) Expr {
	if x, ok := e.(*Call); ok {
		if isRowtimeCast(x, rt) {
			return e // cast already (castCallRowtime)
		}
		return x.MapArgs(func(a Expr) Expr { return castRefs(a, rt) })
	}
	return mapRefs(e, func(x *InputRef) Expr {
		if !rt[x.Index] {
			return x
		}
		return &Call{Op: "CAST", Args: []Expr{x}, T: x.T}
	})
}

// rowtimeFields are the fields of physical node n holding a table's
// rowtime attribute: its WatermarkAssigner's field, passed on by Exchanges
// and Calcs above it.
func rowtimeFields(n Node) map[int]bool {
	switch x := n.(type) {
	case *WatermarkAssigner:
		return map[int]bool{x.Rowtime: true}
	case *TableSourceScan:
		// A watermark pushed into the scan (watermarkIntoScan).
		if x.Watermark != nil && x.Watermark.Rowtime >= 0 {
			return map[int]bool{x.Watermark.Rowtime: true}
		}
	case *Exchange:
		return rowtimeFields(x.input())
	case *Calc:
		in := rowtimeFields(x.input())
		var out map[int]bool
		for i, e := range x.Exprs {
			if c, ok := e.(*Call); ok && c.Op == "Reinterpret" {
				if out == nil {
					out = map[int]bool{}
				}
				out[i] = true
			}
			if r, ok := e.(*InputRef); ok && in[r.Index] {
				if out == nil {
					out = map[int]bool{}
				}
				out[i] = true
			}
		}
		return out
	}
	return nil
}
