package operators

import (
	"slices"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// TestJSONAggRestored runs JSON_OBJECTAGG_NULL_ON_NULL(k, v) and
// JSON_ARRAYAGG_ABSENT_ON_NULL(v) over a changelog, restoring the
// operator from its snapshot after every row, so that every accumulator
// passes through the checkpoint encoding. v is JSON text, as the planner's
// JSON_STRING wrap delivers it. Expected: JsonObjectAggFunction (a
// retraction removes its key when the value is equal; a NULL kept under
// NULL ON NULL is not removed by a NULL retraction) and
// JsonArrayAggFunction (the first equal element is removed).
func TestJSONAggRestored(t *testing.T) {
	spec := AggregateSpec{GenerateUpdateBefore: true, Aggs: []AggSpec{
		{Kind: JsonObjectAgg, KeyArg: 0, Arg: 1},
		{Kind: JsonArrayAgg, Arg: 1, SkipNulls: true},
	}}
	row := func(k sql.RowKind, key, v any) sql.Row { return sql.Row{Kind: k, Values: []any{key, v}} }
	in := []sql.Row{
		row(sql.Insert, "b", "1"),
		row(sql.Insert, "a\"", `"x"`),
		row(sql.Insert, "n", nil),
		row(sql.UpdateBefore, "b", "1"),
		row(sql.UpdateAfter, "b", "2"),
		row(sql.Delete, "n", nil),
		row(sql.Delete, "a\"", `"x"`),
	}
	want := []string{
		`+I[{"b":1}, [1]]`,
		`-U[{"b":1}, [1]]`, `+U[{"a\"":"x","b":1}, [1,"x"]]`,
		`-U[{"a\"":"x","b":1}, [1,"x"]]`, `+U[{"a\"":"x","b":1,"n":null}, [1,"x"]]`,
		`-U[{"a\"":"x","b":1,"n":null}, [1,"x"]]`, `+U[{"a\"":"x","n":null}, ["x"]]`,
		`-U[{"a\"":"x","n":null}, ["x"]]`, `+U[{"a\"":"x","b":2,"n":null}, ["x",2]]`,
		`-U[{"a\"":"x","b":2,"n":null}, ["x",2]]`, `+U[{"b":2,"n":null}, [2]]`,
	}
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
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The NULL kept for "n" stayed: accumulating "n" again fails.
	err := step(row(sql.Insert, "n", "3"))
	if err == nil || !strings.Contains(err.Error(), "Key 'n' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG.") {
		t.Fatalf("a duplicate key: %v", err)
	}
}
