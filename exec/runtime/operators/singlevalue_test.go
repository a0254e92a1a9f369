package operators

import (
	"errors"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// TestSingleValueAsFlink runs SINGLE_VALUE over the changelog a global
// SUM emits (+I, then -U / +U pairs), restoring the operator from its
// snapshot after every row. The expected rows are Flink's
// GroupAggFunction over SingleValueAggFunction's expressions: the -U
// retracts the only row, so the group's record count reaches 0 and the
// result is deleted (-D), and the +U starts it again (+I); a NULL value is
// a value; a second row while one is held fails with Flink's message.
func TestSingleValueAsFlink(t *testing.T) {
	spec := AggregateSpec{GenerateUpdateBefore: true, Aggs: []AggSpec{{Kind: SingleValue, Arg: 0}}}
	in := []sql.Row{
		{Kind: sql.Insert, Values: []any{int64(5)}},
		{Kind: sql.UpdateBefore, Values: []any{int64(5)}},
		{Kind: sql.UpdateAfter, Values: []any{int64(7)}},
		{Kind: sql.UpdateBefore, Values: []any{int64(7)}},
		{Kind: sql.UpdateAfter, Values: []any{nil}},
	}
	want := []string{"+I[5]", "-D[5]", "+I[7]", "-D[7]", "+I[null]"}
	var snap []byte
	var got []string
	step := func(r sql.Row) error {
		op, _ := GroupAggregate(spec)(0, 1)
		if err := op.Open(&runtime.Context{}, snap); err != nil {
			t.Fatal(err)
		}
		var out runtime.Collector
		if err := op.ProcessBatch(0, []sql.Row{r}, &out); err != nil {
			return err
		}
		for _, o := range out.Rows() {
			got = append(got, sql.FormatRow(o, nil))
		}
		var err error
		if snap, err = op.Snapshot(1); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	for _, r := range in {
		if err := step(r); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	err := step(sql.Row{Kind: sql.Insert, Values: []any{int64(8)}})
	if !errors.Is(err, errSingleValue) || err.Error() != "SINGLE_VALUE: SingleValueAggFunction received more than one element." {
		t.Fatalf("a second row: %v", err)
	}
}
