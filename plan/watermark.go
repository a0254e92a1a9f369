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
