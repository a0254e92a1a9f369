package operators

import (
	"errors"
	"strings"

	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
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

// snapshotAgg runs rows through a GroupAggregate and returns its snapshot.
func snapshotAgg(t *testing.T, spec AggregateSpec, rows ...sql.Row) []byte {
	t.Helper()
	op, _ := GroupAggregate(spec)(0, 1)
	if err := op.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	if err := op.ProcessBatch(0, rows, &out); err != nil {
		t.Fatal(err)
	}
	snap, err := op.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestRetractingMaxRefusesInsertOnlyState: a checkpoint of MAX in its
// insert-only form (only the extreme) cannot become the retracting form
// (every distinct value): restoring it gave a null extreme. Flink refuses
// such a restore (HeapKeyedStateBackend.tryRegisterStateTable and the RocksDB
// backend throw StateMigrationException: the new state serializer must
// not be incompatible with the old one); so does the restore here, naming
// the aggregate, for the whole-state restore and the rescaled one.
func TestRetractingMaxRefusesInsertOnlyState(t *testing.T) {
	spec := func(insertOnly bool) AggregateSpec {
		return AggregateSpec{GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: CountStar},
			{Kind: Max, Arg: 1, InsertOnly: insertOnly}}}
	}
	snap := snapshotAgg(t, spec(true), sql.NewRow("a", int64(5)), sql.NewRow("a", int64(9)))
	want := "MAX($1) state was kept without retraction"
	op, _ := GroupAggregate(spec(false))(0, 1)
	err := op.Open(&runtime.Context{}, snap)
	if err == nil {
		var out runtime.Collector
		_ = op.ProcessBatch(0, []sql.Row{sql.NewRow("a", int64(4))}, &out)
		t.Fatalf("restore succeeded; then 4 gave %v", out.Rows())
	}
	if !strings.Contains(err.Error(), want) || !errors.Is(err, state.ErrIncompatible) {
		t.Fatalf("got %v, want an incompatible-state error with %q", err, want)
	}
	op, _ = GroupAggregate(spec(false))(0, 2)
	err = op.(runtime.Rescalable).OpenRescaled(&runtime.Context{}, [][]byte{snap, nil}, func(string) bool { return true })
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("rescaled restore: got %v, want %q", err, want)
	}
}

// TestGroupAggregateRefusesOtherAccumulators: any change of the accumulator
// layout (another aggregate, DISTINCT, one more or less aggregate) is
// refused at restore; an unchanged plan, and a retracting MIN restored into
// the insert-only form (TestInsertOnlyMinRestoresRetractingState), restore.
func TestGroupAggregateRefusesOtherAccumulators(t *testing.T) {
	old := AggregateSpec{GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: Count, Arg: 1}, {Kind: Sum, Arg: 1}}}
	snap := snapshotAgg(t, old, sql.NewRow("a", int64(5)))
	for _, c := range []struct {
		aggs []AggSpec
		want string
	}{
		{[]AggSpec{{Kind: Count, Arg: 1}, {Kind: Avg, Arg: 1}}, "aggregate 2 was SUM, is now AVG($1)"},
		{[]AggSpec{{Kind: Count, Arg: 1, Distinct: true}, {Kind: Sum, Arg: 1}}, "aggregate 1 was COUNT, is now COUNT(DISTINCT $1)"},
		{[]AggSpec{{Kind: Count, Arg: 1}}, "the checkpoint holds the state of 2 aggregates, the job now has 1"},
		{nil, ""},
	} {
		spec := old
		if c.aggs != nil {
			spec.Aggs = c.aggs
		}
		op, _ := GroupAggregate(spec)(0, 1)
		err := op.Open(&runtime.Context{}, snap)
		if c.want == "" {
			if err != nil {
				t.Fatalf("unchanged plan: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, state.ErrIncompatible) {
			t.Fatalf("%v: got %v, want %q", c.aggs, err, c.want)
		}
	}
}

// TestRetractingMaxRefusesLegacyInsertOnlyState: a snapshot of an earlier
// version (no layout) whose MAX kept only the extreme fails too.
func TestRetractingMaxRefusesLegacyInsertOnlyState(t *testing.T) {
	spec := func(insertOnly bool) AggregateSpec {
		return AggregateSpec{GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: Max, Arg: 1, InsertOnly: insertOnly}}}
	}
	snap := snapshotAgg(t, spec(true), sql.NewRow("a", int64(5)))
	legacy := snap[len(layoutMagic)+1+2:]
	op, _ := GroupAggregate(spec(false))(0, 1)
	if err := op.Open(&runtime.Context{}, legacy); err == nil || !errors.Is(err, state.ErrIncompatible) {
		t.Fatalf("got %v, want an incompatible-state error", err)
	}
	op, _ = GroupAggregate(spec(true))(0, 1)
	if err := op.Open(&runtime.Context{}, legacy); err != nil {
		t.Fatal(err)
	}
}
