package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// LogicalWatermarkAssigner is Flink's LogicalWatermarkAssigner: the
// WATERMARK FOR clause of the table below it, placed over the scan (and
// the projection of its computed columns) as DynamicSourceUtils'
// pushWatermarkAssigner places it in streaming mode.
type LogicalWatermarkAssigner struct {
	base
	// Rowtime is the rowtime field; Expr the watermark expression over the
	// input row.
	Rowtime int
	Expr    Expr
}

// WatermarkAssigner is Flink's StreamPhysicalWatermarkAssigner.
type WatermarkAssigner struct {
	base
	Rowtime int
	Expr    Expr
}

func (*LogicalWatermarkAssigner) Name() string { return "LogicalWatermarkAssigner" }
func (*WatermarkAssigner) Name() string        { return "WatermarkAssigner" }

func (n *LogicalWatermarkAssigner) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *WatermarkAssigner) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalWatermarkAssigner) describe(f Format) string {
	return watermarkDigest("LogicalWatermarkAssigner", n.Rowtime, n.Expr, n.input().Names(), f)
}

func (n *WatermarkAssigner) describe(f Format) string {
	return watermarkDigest("WatermarkAssigner", n.Rowtime, n.Expr, n.input().Names(), f)
}

// watermarkDigest is Flink's "WatermarkAssigner(rowtime=[ts],
// watermark=[-(ts, 5000:INTERVAL SECOND)])".
func watermarkDigest(name string, rowtime int, e Expr, in []string, f Format) string {
	return name + "(rowtime=[" + in[rowtime] + "], watermark=[" + FormatExpr(e, in, f) + "])"
}

// isTimeAttributeType reports the types a rowtime column and a watermark
// expression may have: TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p ≤ 3.
func isTimeAttributeType(t sql.DataType) bool {
	return (t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ) && t.Precision <= 3
}

// checkWatermark validates a table's WATERMARK FOR clause as Flink's
// DefaultSchemaResolver does at CREATE TABLE: the rowtime column and the
// watermark expression must be TIMESTAMP(p) or TIMESTAMP_LTZ(p), p ≤ 3.
func checkWatermark(t *catalog.Table) error {
	w := t.Watermark
	if w == nil || w.ExprAST == nil {
		return nil
	}
	var rt sql.DataType
	for _, c := range t.Columns() {
		if c.Name == w.Column {
			rt = c.Type
		}
	}
	if !isTimeAttributeType(rt) {
		return sql.Errorf(sql.ValidationException,
			"Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is %s", rt)
	}
	b := &binder{config: map[string]string{}, streaming: true}
	sc := &scope{}
	for _, c := range t.Columns() {
		sc.cols = append(sc.cols, column{name: c.Name, t: c.Type})
	}
	e, err := b.bindExpr(w.ExprAST, sc, nil)
	if err != nil {
		return err
	}
	if !isTimeAttributeType(e.Type()) {
		return sql.Errorf(sql.ValidationException,
			"Invalid data type of expression for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the watermark expression type is %s", e.Type())
	}
	return nil
}

// assignWatermark puts the table's LogicalWatermarkAssigner over r, the
// table's full row (streaming only: Flink's batch planner drops
// watermarks).
func (b *binder) assignWatermark(ref *TableRef, r Node) (Node, error) {
	w := ref.Table.Watermark
	if w == nil || w.ExprAST == nil || !b.streaming {
		return r, nil
	}
	rowtime := -1
	for i, n := range r.Names() {
		if n == w.Column {
			rowtime = i
		}
	}
	if rowtime < 0 {
		return r, nil
	}
	e, err := b.bindExpr(w.ExprAST, scopeOf(r, ""), nil)
	if err != nil {
		return nil, err
	}
	return &LogicalWatermarkAssigner{base: sameRow(r), Rowtime: rowtime, Expr: e}, nil
}

// projectWatermarkTranspose is Flink's ProjectWatermarkAssignerTransposeRule
// (PROJECT_RULES): a Calc over a WatermarkAssigner that reads only some of
// its fields gets a projection of those fields (and of the ones the
// watermark expression reads, and the rowtime) below the assigner, which
// prunes what the source need not produce (not a Calc CalcRankTransposeRule
// put there, pinned: it comes later). The Calc above keeps its
// computation and filter; it is dropped when only the identity is left.
// The pushed fields are in the order scanFields gives the projection the
// Calc needs, then the watermark's fields, then the rowtime.
//
// Flink applies the rule in LOGICAL_OPT_RULES, a Volcano program, where
// the pushed plan replaces the original only when it is cheaper: when it
// removes computations below the assigner (FlinkLogicalCalc's cost counts
// the projections that are not fields, literals or CASTs) or a Calc, or
// fields the source reads (the scan's cost counts its row size). Where
// neither changes, as for an upsert source whose scan keeps its primary
// key anyway and whose computed columns are all still needed,
// Flink keeps the assigner over the whole row
// (TableScanTest.testUpsertSourceWithComputedColumnAndWatermark), and so
// does this rule (cheaperBelowWatermark).
func projectWatermarkTranspose(b *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	wa, ok := c.input().(*LogicalWatermarkAssigner)
	if !ok || c.pinned {
		return nil, nil
	}
	in := wa.input()
	fields := scanFields(c.Exprs, c.Cond, len(wa.names), nil, false)
	seen := map[int]bool{}
	for _, f := range fields {
		seen[f] = true
	}
	refsInOrder(wa.Expr, seen, &fields)
	if !seen[wa.Rowtime] {
		fields = append(fields, wa.Rowtime)
	}
	if len(fields) == len(wa.names) {
		return nil, nil
	}
	m := map[int]int{}
	exprs := make([]Expr, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		m[f] = i
		exprs[i] = &InputRef{Index: f, T: in.Types()[f]}
		names[i] = in.Names()[f]
	}
	var below Node = mergeCalc(&LogicalCalc{base: row(names, exprTypes(exprs), in), Exprs: exprs})
	if isIdentityCalc(below) {
		below = below.Inputs()[0]
	}
	if cheaper, err := cheaperBelowWatermark(b, in, below); err != nil || !cheaper {
		return nil, err
	}
	w := &LogicalWatermarkAssigner{base: row(names, exprTypes(exprs), below), Rowtime: m[wa.Rowtime], Expr: remap(wa.Expr, m)}
	top := &LogicalCalc{base: c.base.with([]Node{w}), Exprs: make([]Expr, len(c.Exprs)), fresh: c.fresh}
	for i, e := range c.Exprs {
		top.Exprs[i] = remap(e, m)
	}
	if c.Cond != nil {
		top.Cond = remap(c.Cond, m)
	}
	if isIdentityCalc(top) {
		return w, nil
	}
	return top, nil
}

// isIdentityCalc reports a LogicalCalc without a condition that returns
// its input's fields, in order and under the same names.
func isIdentityCalc(n Node) bool {
	c, ok := n.(*LogicalCalc)
	if !ok || c.Cond != nil || len(c.Exprs) != len(c.input().Names()) {
		return false
	}
	for i, e := range c.Exprs {
		if r, ok := e.(*InputRef); !ok || r.Index != i || c.names[i] != c.input().Names()[i] {
			return false
		}
	}
	return true
}

// PushedWatermark is a WATERMARK FOR clause pushed into its table's
// source (Flink's WatermarkPushDownSpec): the source generates the
// watermark itself and no WatermarkAssigner follows the scan.
type PushedWatermark struct {
	// Expr is the watermark expression over the scan's produced row, the
	// computed columns it reads inlined (the rule's RexNode).
	Expr Expr
	// Rowtime is the scan field that is the rowtime attribute when the
	// assigner read the scan directly (PushWatermarkIntoTableSourceScanRule
	// gives the scan the assigner's row type); -1 when the Calc above
	// computes it as Reinterpret(...) (PushWatermarkIntoTableSourceScanAcrossCalcRule).
	Rowtime int
	// EmitStrategy is the WatermarkParams' emit strategy, from the
	// table's 'scan.watermark.emit.strategy' (Flink's default
	// on-periodic).
	EmitStrategy string
	// IdleTimeout is table.exec.source.idle-timeout in milliseconds (0:
	// none), printed as idletimeout=[...].
	IdleTimeout int64
	// Alignment is the WatermarkParams' watermark alignment, printed as
	// watermarkAlignment=[group, max-drift, update-interval] when the
	// table sets 'scan.watermark.alignment.group' and a positive
	// 'scan.watermark.alignment.max-drift' ("" otherwise). sqlrun does not
	// align watermarks at run time.
	Alignment string
}

// digest is WatermarkPushDownSpec.getDigests over the scan's fields.
func (w *PushedWatermark) digest(fields []string) string {
	// FlinkRexUtil.getExpressionString prints a character literal as
	// Calcite's RexLiteral does, with its charset
	// (SourceWatermarkTest.testWatermarkWithMetadata: _UTF-16LE'yyyy-MM-dd
	// HH:mm:ss'), where the Calc's prefix form drops it.
	text := FormatExpr(markCharLiterals(w.Expr), fields, FormatPrefix)
	text = strings.ReplaceAll(text, "'"+charsetMark, "_UTF-16LE'")
	s := "watermark=[" + text + "]"
	if w.IdleTimeout > 0 {
		s += ", idletimeout=[" + strconv.FormatInt(w.IdleTimeout, 10) + "]"
	}
	s += ", watermarkEmitStrategy=[" + w.EmitStrategy + "]"
	if w.Alignment != "" {
		s += ", watermarkAlignment=[" + w.Alignment + "]"
	}
	return s
}

// watermarkAlignment is WatermarkParams.alignWatermarkEnabled's group,
// max drift and update interval (FactoryUtil's default 1 s), the
// durations as Java's Duration.toString prints them; "" when not
// enabled.
func watermarkAlignment(opts map[string]string) (string, error) {
	group := strings.TrimSpace(opts["scan.watermark.alignment.group"])
	if group == "" {
		return "", nil
	}
	var drift, update time.Duration
	if v := opts["scan.watermark.alignment.max-drift"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return "", sql.Errorf(sql.ValidationException, "Invalid value for option 'scan.watermark.alignment.max-drift': %v", err)
		}
		drift = d
	}
	update = time.Second
	if v := opts["scan.watermark.alignment.update-interval"]; v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil {
			return "", sql.Errorf(sql.ValidationException, "Invalid value for option 'scan.watermark.alignment.update-interval': %v", err)
		}
		update = d
	}
	if drift <= 0 || update <= 0 {
		return "", nil
	}
	return group + ", " + javaDuration(drift) + ", " + javaDuration(update), nil
}

// javaDuration prints d as java.time.Duration.toString does: PT20S,
// PT1M30S, PT1H, PT0.5S.
func javaDuration(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	ms := d.Milliseconds()
	h, m := ms/3600000, (ms/60000)%60
	sec, frac := (ms/1000)%60, ms%1000
	s := "PT"
	if h > 0 {
		s += strconv.FormatInt(h, 10) + "H"
	}
	if m > 0 {
		s += strconv.FormatInt(m, 10) + "M"
	}
	if sec > 0 || frac > 0 {
		s += strconv.FormatInt(sec, 10)
		if frac > 0 {
			s += strings.TrimRight("."+fmt.Sprintf("%03d", frac), "0")
		}
		s += "S"
	}
	return s
}

// charsetMark starts a marked character literal's text (a NUL cannot be
// in a SQL literal's value).
const charsetMark = "\x00charset\x00"

// markCharLiterals copies e with each CHAR literal's value prefixed by
// charsetMark.
func markCharLiterals(e Expr) Expr {
	switch x := e.(type) {
	case *Literal:
		if v, ok := x.Value.(string); ok && x.T.Root == sql.TypeChar {
			c := *x
			c.Value = charsetMark + v
			return &c
		}
	case *Call:
		return x.MapArgs(markCharLiterals)
	}
	return e
}

// pushesWatermark reports a scan whose source takes the watermark
// (connectors.WatermarkPushDownSource, Flink's SupportsWatermarkPushDown),
// not yet pushed.
func pushesWatermark(s *LogicalTableScan) bool {
	if s.Watermark != nil {
		return false
	}
	w, ok := s.Table.Source.(connectors.WatermarkPushDownSource)
	return ok && w.WatermarkPushDown()
}

// newPushedWatermark is the spec PushWatermarkIntoTableSourceScanRuleBase's
// getNewScan builds: the expression, the global idle timeout and the
// table's WatermarkParams.
func (b *binder) newPushedWatermark(s *LogicalTableScan, e Expr, rowtime int) (*PushedWatermark, error) {
	w := &PushedWatermark{Expr: e, Rowtime: rowtime, EmitStrategy: "on-periodic"}
	if v := s.Table.Options["scan.watermark.emit.strategy"]; v != "" {
		w.EmitStrategy = strings.ToLower(v)
	}
	idle, err := config.Duration(b.config, config.KeyIdleTimeout)
	if err != nil {
		return nil, err
	}
	w.IdleTimeout = idle.Milliseconds()
	if w.Alignment, err = watermarkAlignment(s.Table.Options); err != nil {
		return nil, err
	}
	return w, nil
}

// watermarkIntoScan is Flink's PushWatermarkIntoTableSourceScanRule and
// PushWatermarkIntoTableSourceScanAcrossCalcRule (LOGICAL_REWRITE), with
// the FlinkCalcMergeRule that follows them there:
//   - a WatermarkAssigner directly over a scan whose source takes the
//     watermark goes into it, and the scan's rowtime field is the
//     attribute;
//   - one over a Calc over such a scan goes into it with the Calc's
//     expressions inlined into the watermark expression (a computed
//     rowtime's c + INTERVAL '5' SECOND, say), and the Calc computes the
//     rowtime as Reinterpret(expr), the rowtime indicator;
//   - a Calc over the assigner merges with that Calc; where it reads the
//     rowtime as an operand of a call, the operand is
//     CAST(Reinterpret(expr) AS TIMESTAMP(3)), as Flink's
//     RelTimeIndicatorConverter materializes a time indicator a call
//     reads (SourceWatermarkTest.testWatermarkOnComputedColumnExcludedRowTime2).
func watermarkIntoScan(b *binder, n Node) (Node, error) {
	if c, ok := n.(*LogicalCalc); ok {
		wa, ok := c.input().(*LogicalWatermarkAssigner)
		if !ok {
			return nil, nil
		}
		below, err := pushWatermark(b, wa)
		if err != nil || below == nil {
			return nil, err
		}
		bc, ok := below.(*LogicalCalc)
		if !ok {
			return c.WithInputs(below), nil
		}
		return mergeOverReinterpret(c, bc, wa.Rowtime), nil
	}
	wa, ok := n.(*LogicalWatermarkAssigner)
	if !ok {
		return nil, nil
	}
	return pushWatermark(b, wa)
}

// pushWatermark pushes wa into the scan below it (directly or across a
// Calc); nil when the source does not take it.
func pushWatermark(b *binder, wa *LogicalWatermarkAssigner) (Node, error) {
	switch in := wa.input().(type) {
	case *LogicalTableScan:
		if !pushesWatermark(in) {
			return nil, nil
		}
		w, err := b.newPushedWatermark(in, wa.Expr, wa.Rowtime)
		if err != nil {
			return nil, err
		}
		out := *in
		out.Watermark = w
		return &out, nil
	case *LogicalCalc:
		scan, ok := in.input().(*LogicalTableScan)
		if !ok || !pushesWatermark(scan) {
			return nil, nil
		}
		if renamesOnly(in) {
			// A Calc that only renames its input's fields is trivial to
			// Calcite (ProjectRemoveRule, FlinkLogicalCalcRemoveRule
			// ignore names): the assigner reads the scan itself
			// (SourceWatermarkTest.testProjectTransposeWatermarkAssigner:
			// ts AS t prints as t).
			return pushWatermark(b, &LogicalWatermarkAssigner{base: sameRow(scan), Rowtime: wa.Rowtime, Expr: wa.Expr})
		}
		w, err := b.newPushedWatermark(scan, inline(wa.Expr, in.Exprs), -1)
		if err != nil {
			return nil, err
		}
		out := *scan
		out.Watermark = w
		exprs := append([]Expr(nil), in.Exprs...)
		rt := exprs[wa.Rowtime]
		exprs[wa.Rowtime] = &Call{Op: "Reinterpret", Args: []Expr{rt}, T: rt.Type()}
		return &LogicalCalc{base: row(in.names, in.types, &out), Exprs: exprs, Cond: in.Cond}, nil
	}
	return nil, nil
}

// renamesOnly reports a Calc without a condition that returns its
// input's fields in order, under any names.
func renamesOnly(c *LogicalCalc) bool {
	if c.Cond != nil || len(c.Exprs) != len(c.input().Names()) {
		return false
	}
	for i, e := range c.Exprs {
		if r, ok := e.(*InputRef); !ok || r.Index != i {
			return false
		}
	}
	return true
}

// mergeOverReinterpret merges Calc c into below, whose field rt is the
// Reinterpret(...) rowtime: a bare reference to it stays the indicator,
// one a call reads is cast to its plain type.
func mergeOverReinterpret(c, below *LogicalCalc, rt int) *LogicalCalc {
	cast := append([]Expr(nil), below.Exprs...)
	cast[rt] = &Call{Op: "CAST", Args: []Expr{below.Exprs[rt]}, T: below.Exprs[rt].Type()}
	exprs := make([]Expr, len(c.Exprs))
	for i, e := range c.Exprs {
		if _, bare := e.(*InputRef); bare {
			exprs[i] = inline(e, below.Exprs)
		} else {
			exprs[i] = inline(e, cast)
		}
	}
	cond := below.Cond
	if c.Cond != nil {
		upper := inline(c.Cond, cast)
		if cond == nil {
			cond = upper
		} else {
			cond = and(append(conjuncts(cond), conjuncts(upper)...))
		}
	}
	return &LogicalCalc{base: row(c.names, exprTypes(exprs), below.input()), Exprs: exprs, Cond: cond, fresh: c.fresh}
}

// filterInCalcIntoScan is Flink's PushFilterInCalcIntoTableSourceScanRule
// (LOGICAL_REWRITE) for the scans a watermark went into: the filter that
// sat above the WatermarkAssigner reaches the scan only now, and the
// scan prints filter=[...] after its watermark=[...]
// (SourceWatermarkTest.testWatermarkOnComputedColumnExcluedRowTime1).
func filterInCalcIntoScan(b *binder, n Node) (Node, error) {
	_, scan, ok := scanBelow(n)
	if !ok || scan.Watermark == nil {
		return nil, nil
	}
	return filterIntoScan(b, n)
}

// cheaperBelowWatermark reports whether after, the input of a
// WatermarkAssigner with a projection pushed below it, costs less than
// before in Flink's cost model: fewer computations or Calcs, or fewer
// fields the scan under them reads (counting the primary key a normalize
// keeps, and every field of a source that takes no projection). An input
// that is not a Calc over a scan, or a scan, is taken as cheaper.
func cheaperBelowWatermark(b *binder, before, after Node) (bool, error) {
	cb, nb := calcCost(before)
	ca, na := calcCost(after)
	if ca < cb || na < nb {
		return true, nil
	}
	rb, ok, err := scanReads(b, before)
	if err != nil || !ok {
		return true, err
	}
	ra, ok, err := scanReads(b, after)
	if err != nil || !ok {
		return true, err
	}
	return ra < rb, nil
}

// calcCost is the number of computations of n when it is a LogicalCalc
// (CommonCalc.computeSelfCost: projections that are not fields, literals
// or CASTs) and the number of Calcs (0 or 1).
func calcCost(n Node) (comps, calcs int) {
	c, ok := n.(*LogicalCalc)
	if !ok {
		return 0, 0
	}
	for _, e := range c.Exprs {
		switch x := e.(type) {
		case *InputRef, *Literal:
			continue
		case *Call:
			if x.Op == "CAST" {
				continue
			}
		}
		comps++
	}
	return comps, 1
}

// scanReads is how many fields the scan under n (a scan, or a Calc over
// one) reads once the projection n needs is pushed into it.
func scanReads(b *binder, n Node) (int, bool, error) {
	var scan *LogicalTableScan
	used := map[int]bool{}
	switch x := n.(type) {
	case *LogicalTableScan:
		return len(x.names), true, nil
	case *LogicalCalc:
		s, ok := x.input().(*LogicalTableScan)
		if !ok {
			return 0, false, nil
		}
		scan = s
		for _, e := range x.Exprs {
			refs(e, used)
		}
		if x.Cond != nil {
			refs(x.Cond, used)
		}
	default:
		return 0, false, nil
	}
	if _, ok := projector(scan.Table.Source); !ok || scan.Project != nil {
		return len(scan.names), true, nil
	}
	cn, err := b.needsNormalize(scan.Table)
	if err != nil {
		return 0, false, err
	}
	if cn {
		for _, k := range scanPK(scan.Table, scan.names) {
			used[k] = true
		}
	}
	return max(len(used), 1), true, nil
}
