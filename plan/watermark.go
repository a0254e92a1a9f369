package plan

import (
	"github.com/sqlrun/sqlrun/catalog"
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
func projectWatermarkTranspose(_ *binder, n Node) (Node, error) {
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
