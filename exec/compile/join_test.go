package compile

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

func row(k sql.RowKind, vals ...any) sql.Row { return sql.Row{Kind: k, Values: vals} }

// TestLeftJoinPadding drives the join operator in a fixed order: the
// null-padded row is retracted when the first partner arrives and comes
// back when the last partner leaves; state survives a snapshot/restore.
func TestLeftJoinPadding(t *testing.T) {
	cond, err := plan.Compile(&plan.Call{Op: "=", Args: []plan.Expr{
		&plan.InputRef{Index: 0, T: sql.Int()}, &plan.InputRef{Index: 2, T: sql.BigInt()}}, T: sql.Boolean()})
	if err != nil {
		t.Fatal(err)
	}
	spec := joinSpec{kind: ast.LeftJoin, leftKeys: []int{0}, rightKeys: []int{0}, leftArity: 2, rightAr: 2, cond: cond}
	op, _ := newJoin(spec)(0, 1)
	if err := op.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	var log []string
	step := func(input int, r sql.Row) {
		var out runtime.Collector
		if err := op.ProcessBatch(input, []sql.Row{r}, &out); err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Rows() {
			log = append(log, sql.FormatRow(o, nil))
		}
	}
	step(0, row(sql.Insert, int32(1), "x"))
	step(1, row(sql.Insert, int64(1), "one"))
	step(1, row(sql.Insert, int64(1), "uno"))
	snap, err := op.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	op, _ = newJoin(spec)(0, 1)
	if err := op.Open(&runtime.Context{}, snap); err != nil {
		t.Fatal(err)
	}
	step(1, row(sql.Delete, int64(1), "one"))
	step(1, row(sql.Delete, int64(1), "uno"))
	step(0, row(sql.Delete, int32(1), "x"))
	step(0, row(sql.Insert, nil, "n"))
	want := []string{
		"+I[1, x, null, null]",
		"-D[1, x, null, null]", "+I[1, x, 1, one]",
		"+I[1, x, 1, uno]",
		"-D[1, x, 1, one]",
		"-D[1, x, 1, uno]", "+I[1, x, null, null]",
		"-D[1, x, null, null]",
		"+I[null, n, null, null]",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}
