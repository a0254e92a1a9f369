package operators

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// runJoin drives StreamingJoin from a golden: input lines "L +I[...]" go to
// the left input, "R -D[...]" to the right. Arguments: kind=inner|left|
// right|full; left=(types) right=(types); lkeys/rkeys the join keys;
// lspec/rspec the JoinInputSideSpec (no, jk, or uk:<fields> for
// HasUniqueKey); kind=semi|anti is a LeftSemiJoin / LeftAntiJoin; lt=(i,j) adds the non-equi condition $i < $j over the
// joined row, nullaware=(i,j) NOT IN's $i IS NULL OR $j IS NULL OR $i = $j. Like every operator golden, the output must not change when
// the operator is snapshotted and restored after any row, on either state
// backend.
func runJoin(t *testing.T, td *datadriven.TestData) string {
	lt, rt := types(t, td, "left"), types(t, td, "right")
	var rows []sql.Row
	var inputs []int
	for _, line := range strings.Split(td.Input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		side, body, _ := strings.Cut(line, " ")
		switch side {
		case "L":
			rows, inputs = append(rows, parseRow(t, body, lt)), append(inputs, 0)
		case "R":
			rows, inputs = append(rows, parseRow(t, body, rt)), append(inputs, 1)
		default:
			t.Fatalf("%q: a join input line starts with L or R", line)
		}
	}
	kind, _ := td.Arg("kind")
	spec := JoinSpec{
		Left:  JoinSideSpec{Keys: ints(t, td, "lkeys"), Arity: len(lt)},
		Right: JoinSideSpec{Keys: ints(t, td, "rkeys"), Arity: len(rt)},
	}
	switch kind.Vals[0] {
	case "inner":
	case "left":
		spec.Left.Outer = true
	case "right":
		spec.Right.Outer = true
	case "full":
		spec.Left.Outer, spec.Right.Outer = true, true
	case "semi":
		spec.Semi = true
	case "anti":
		spec.Anti = true
	default:
		t.Fatalf("kind %q", kind.Vals[0])
	}
	sideSpec(t, td, "lspec", &spec.Left)
	sideSpec(t, td, "rspec", &spec.Right)
	if lt := ints(t, td, "lt"); len(lt) == 2 {
		a, b := lt[0], lt[1]
		spec.Cond = func(v []any) (any, error) {
			if v[a] == nil || v[b] == nil {
				return nil, nil
			}
			return asInt(v[a]) < asInt(v[b]), nil
		}
	}
	if na := ints(t, td, "nullaware"); len(na) == 2 {
		// NOT IN's null-aware anti join condition, as the planner
		// writes it (SemiAntiJoinTest.testNotInWithUncorrelated_*):
		// $i IS NULL OR $j IS NULL OR $i = $j.
		a, b := na[0], na[1]
		spec.Cond = func(v []any) (any, error) {
			if v[a] == nil || v[b] == nil {
				return true, nil
			}
			return asInt(v[a]) == asInt(v[b]), nil
		}
	}
	f := StreamingJoin(spec)
	outT := append(append([]sql.DataType(nil), lt...), rt...)
	if spec.Semi || spec.Anti {
		outT = lt
	}
	got := format(driveInputs(t, f, rows, inputs, 0, false, ""), outT)
	dir := t.TempDir()
	if again := format(driveInputs(t, f, rows, inputs, 0, false, dir), outT); again != got {
		t.Fatalf("the LSM backend changed the output:\n%s\nvs\n%s", again, got)
	}
	for r := 1; r < len(rows); r++ {
		if again := format(driveInputs(t, f, rows, inputs, r, false, ""), outT); again != got {
			t.Fatalf("restart after %d rows changed the output:\n%s\nvs\n%s", r, again, got)
		}
		if again := format(driveInputs(t, f, rows, inputs, r, false, dir), outT); again != got {
			t.Fatalf("LSM backend: restart after %d rows changed the output:\n%s\nvs\n%s", r, again, got)
		}
	}
	return got
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

func sideSpec(t *testing.T, td *datadriven.TestData, key string, s *JoinSideSpec) {
	arg, ok := td.Arg(key)
	if !ok {
		return
	}
	v := arg.Vals[0]
	switch {
	case v == "no":
	case v == "jk":
		s.Kind = JoinKeyContainsUniqueKey
	case strings.HasPrefix(v, "uk:"):
		s.Kind = HasUniqueKey
		for _, f := range strings.Split(strings.TrimPrefix(v, "uk:"), "+") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			s.UniqueKey = append(s.UniqueKey, n)
		}
	default:
		t.Fatalf("%s=%s", key, v)
	}
}

func joinStep(t *testing.T, op runtime.Operator, input int, r sql.Row) []string {
	t.Helper()
	var out runtime.Collector
	if err := op.ProcessBatch(input, []sql.Row{r}, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out.Rows() {
		got = append(got, sql.FormatRow(o, nil))
	}
	return got
}

// TestJoinStateTTL: with table.exec.state.ttl a join key's rows expire
// when none was written for the TTL (Flink's StateTtlConfig on the join's
// record state), so a late partner finds nothing to join.
func TestJoinStateTTL(t *testing.T) {
	now := int64(1000)
	ctx := &runtime.Context{State: &state.Backend{TTL: 10 * time.Millisecond, Now: func() int64 { return now }}}
	op, _ := StreamingJoin(JoinSpec{Left: JoinSideSpec{Keys: []int{0}, Arity: 2, Outer: true}, Right: JoinSideSpec{Keys: []int{0}, Arity: 2}})(0, 1)
	if err := op.Open(ctx, nil); err != nil {
		t.Fatal(err)
	}
	joinStep(t, op, 0, sql.Row{Kind: sql.Insert, Values: []any{int32(1), "a"}})
	if got := joinStep(t, op, 1, sql.Row{Kind: sql.Insert, Values: []any{int32(1), "x"}}); strings.Join(got, " ") != "-D[1, a, null, null] +I[1, a, 1, x]" {
		t.Fatalf("before the TTL: %v", got)
	}
	now += 11
	if got := joinStep(t, op, 1, sql.Row{Kind: sql.Insert, Values: []any{int32(1), "y"}}); len(got) != 0 {
		t.Fatalf("after the TTL the left row should be gone, got %v", got)
	}
}

// TestJoinRescale: state taken at parallelism 2 restores at parallelism 1
// (each side keyed by the join key its Hash edge routes by), and the
// restored subtask goes on joining as if it had seen every row.
func TestJoinRescale(t *testing.T) {
	spec := JoinSpec{Left: JoinSideSpec{Keys: []int{0}, Arity: 2, Outer: true}, Right: JoinSideSpec{Keys: []int{0}, Arity: 2}}
	var blobs [][]byte
	for sub := 0; sub < 2; sub++ {
		op, _ := StreamingJoin(spec)(sub, 2)
		if err := op.Open(&runtime.Context{}, nil); err != nil {
			t.Fatal(err)
		}
		for k := int32(1); k <= 6; k++ {
			r := sql.Row{Kind: sql.Insert, Values: []any{k, "l"}}
			key, _ := state.KeyOf(r, []int{0})
			if runtime.OwnsKey(key, sub, 2) {
				joinStep(t, op, 0, r)
			}
		}
		b, err := op.Snapshot(1)
		if err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, b)
	}
	op, _ := StreamingJoin(spec)(0, 1)
	if err := op.(runtime.Rescalable).OpenRescaled(&runtime.Context{}, blobs, func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := int32(1); k <= 6; k++ {
		got = append(got, joinStep(t, op, 1, sql.Row{Kind: sql.Insert, Values: []any{k, "r"}})...)
	}
	if len(got) != 12 {
		t.Fatalf("every left row should be restored and joined once, got %v", got)
	}
}
