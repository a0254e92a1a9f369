package operators

import (
	"reflect"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// secondField is the collection argument of the tests: the input's
// field 1.
func secondField(r sql.Row) (sql.Row, bool, error) {
	return sql.Row{Kind: r.Kind, Values: []any{r.Values[1]}}, true, nil
}

func runUnnest(t *testing.T, spec UnnestSpec, in []sql.Row) []string {
	t.Helper()
	op, err := Unnest(spec)(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	if err := op.ProcessBatch(0, in, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Rows() {
		got = append(got, sql.FormatRow(r, nil))
	}
	return got
}

// TestUnnestKindsAndNulls: each element's row carries its input row's
// kind (a -U row retracts what its +I made), a NULL or empty array gives
// no row inner and one NULL-padded row LEFT.
func TestUnnestKindsAndNulls(t *testing.T) {
	in := []sql.Row{
		{Kind: sql.Insert, Values: []any{int32(1), []any{int32(10), int32(20)}}},
		{Kind: sql.UpdateBefore, Values: []any{int32(1), []any{int32(10), int32(20)}}},
		{Kind: sql.UpdateAfter, Values: []any{int32(1), []any{}}},
		{Kind: sql.Delete, Values: []any{int32(2), nil}},
	}
	inner := runUnnest(t, UnnestSpec{Arg: secondField, Width: 1}, in)
	want := []string{"+I[1, [10, 20], 10]", "+I[1, [10, 20], 20]", "-U[1, [10, 20], 10]", "-U[1, [10, 20], 20]"}
	if !reflect.DeepEqual(inner, want) {
		t.Errorf("inner: got %q, want %q", inner, want)
	}
	left := runUnnest(t, UnnestSpec{Arg: secondField, Width: 1, Left: true}, in)
	want = append(want, "+U[1, [], null]", "-D[2, null, null]")
	if !reflect.DeepEqual(left, want) {
		t.Errorf("left: got %q, want %q", left, want)
	}
}

// TestUnnestRowsMapsCond: a ROW element's fields (a NULL element's all
// NULL), a MAP's key and value, and the condition over the element.
func TestUnnestRowsMapsCond(t *testing.T) {
	rows := []sql.Row{{Kind: sql.Insert, Values: []any{int32(1), []any{[]any{"a", int32(1)}, nil}}}}
	got := runUnnest(t, UnnestSpec{Arg: secondField, RowArity: 2, Width: 2}, rows)
	want := []string{"+I[1, [[a, 1], null], a, 1]", "+I[1, [[a, 1], null], null, null]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows: got %q, want %q", got, want)
	}
	m := &sql.Map{Keys: []any{"x", "y"}, Values: []any{int32(1), int32(2)}}
	onlyTwo := func(r sql.Row) (sql.Row, bool, error) { return r, r.Values[1] == int32(2), nil }
	got = runUnnest(t, UnnestSpec{Arg: secondField, Map: true, Width: 2, Cond: onlyTwo, Left: true},
		[]sql.Row{{Kind: sql.Insert, Values: []any{int32(1), m}}, {Kind: sql.Insert, Values: []any{int32(2), &sql.Map{}}}})
	want = []string{"+I[1, {x=1, y=2}, y, 2]", "+I[2, {}, null, null]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("map: got %q, want %q", got, want)
	}
}
