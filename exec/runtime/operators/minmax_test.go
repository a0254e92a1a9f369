package operators

import (
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// TestInsertOnlyMinRestoresRetractingState: a checkpoint taken while MIN
// kept its multiset (the retracting form, which earlier versions used for
// every input) restores into the insert-only form with its extreme.
func TestInsertOnlyMinRestoresRetractingState(t *testing.T) {
	spec := func(insertOnly bool) AggregateSpec {
		return AggregateSpec{GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: Min, Arg: 1, InsertOnly: insertOnly},
			{Kind: Max, Arg: 1, InsertOnly: insertOnly}}}
	}
	old, _ := GroupAggregate(spec(false))(0, 1)
	if err := old.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	if err := old.ProcessBatch(0, []sql.Row{sql.NewRow("a", int64(5)), sql.NewRow("a", int64(3)), sql.NewRow("a", int64(9))}, &out); err != nil {
		t.Fatal(err)
	}
	snap, err := old.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := GroupAggregate(spec(true))(0, 1)
	if err := op.Open(&runtime.Context{}, snap); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := op.ProcessBatch(0, []sql.Row{sql.NewRow("a", int64(4))}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Rows()) != 0 {
		t.Fatalf("MIN 3 / MAX 9 unchanged by 4, got %v", out.Rows())
	}
	if err := op.ProcessBatch(0, []sql.Row{sql.NewRow("a", int64(1))}, &out); err != nil {
		t.Fatal(err)
	}
	if got := sql.FormatRow(out.Rows()[0], nil); got != "+U[a, 1, 9]" {
		t.Fatalf("got %s, want +U[a, 1, 9]", got)
	}
}
