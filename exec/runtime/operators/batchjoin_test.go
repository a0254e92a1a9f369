package operators

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// batchJoinTypes maps a golden's kind= to the batch join type.
var batchJoinTypes = map[string]BatchJoinType{"inner": BatchInner, "left": BatchLeft, "right": BatchRight,
	"full": BatchFull, "semi": BatchSemi, "anti": BatchAnti}

// batchStrategies are every strategy with each build side (the sort-merge
// join has none).
var batchStrategies = []struct {
	name        string
	strategy    BatchJoinStrategy
	leftIsBuild bool
}{
	{"hash build=left", HashJoin, true},
	{"hash build=right", HashJoin, false},
	{"sort-merge", SortMergeJoin, false},
	{"nested-loop build=left", NestedLoopJoin, true},
	{"nested-loop build=right", NestedLoopJoin, false},
}

// runBatchJoin drives BatchJoin from a golden in the join golden's input
// format (L/R lines, insert-only) and arguments (kind, left, right, lkeys,
// rkeys, lt). Every strategy and build side must give the same rows,
// also when snapshotted and restored after any row; the output is the
// sorted rows (a batch join's output order is the strategy's).
func runBatchJoin(t *testing.T, td *datadriven.TestData) string {
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
	jt, ok := batchJoinTypes[kind.Vals[0]]
	if !ok {
		t.Fatalf("kind %q", kind.Vals[0])
	}
	lk, rk := ints(t, td, "lkeys"), ints(t, td, "rkeys")
	cond := equiCond(lk, rk, len(lt))
	if p := ints(t, td, "lt"); len(p) == 2 {
		cond = andCond(cond, lessCond(p[0], p[1]))
	}
	outT := append(append([]sql.DataType(nil), lt...), rt...)
	if jt == BatchSemi || jt == BatchAnti {
		outT = lt
	}
	var want string
	for _, s := range batchStrategies {
		spec := BatchJoinSpec{Strategy: s.strategy, Type: jt, LeftKeys: lk, RightKeys: rk, LeftArity: len(lt),
			RightArity: len(rt), Cond: cond, LeftIsBuild: s.leftIsBuild}
		if s.strategy != NestedLoopJoin && len(lk) == 0 {
			continue
		}
		for r := 0; r < len(rows); r++ {
			got := sortedFormat(driveInputs(t, BatchJoin(spec), rows, inputs, r, true, ""), outT)
			if want == "" {
				want = got
			} else if got != want {
				t.Fatalf("%s (restart after %d rows) gives\n%s\nnot\n%s", s.name, r, got, want)
			}
		}
	}
	return want
}

func sortedFormat(rows []sql.Row, ts []sql.DataType) string {
	lines := strings.SplitAfter(format(rows, ts), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// equiCond is the conjunction of left.lk[i] = right.rk[i] over the joined
// row (NULL when a side is NULL), nil without keys.
func equiCond(lk, rk []int, nl int) func([]any) (any, error) {
	if len(lk) == 0 {
		return nil
	}
	return func(v []any) (any, error) {
		for i := range lk {
			a, b := v[lk[i]], v[nl+rk[i]]
			if a == nil || b == nil {
				return nil, nil
			}
			if c, err := Compare(a, b); err != nil || c != 0 {
				return false, err
			}
		}
		return true, nil
	}
}

func lessCond(a, b int) func([]any) (any, error) {
	return func(v []any) (any, error) {
		if v[a] == nil || v[b] == nil {
			return nil, nil
		}
		return asInt(v[a]) < asInt(v[b]), nil
	}
}

func andCond(x, y func([]any) (any, error)) func([]any) (any, error) {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	return func(v []any) (any, error) {
		a, err := x(v)
		if err != nil || a == false {
			return a, err
		}
		b, err := y(v)
		if err != nil || b == false {
			return b, err
		}
		if a == nil || b == nil {
			return nil, nil
		}
		return true, nil
	}
}

// TestBatchJoinEqualsStreamingJoin is the differential test of the batch
// join strategies: for random bounded inputs (small key domains, NULL
// keys, duplicate rows), every join type, with and without a non-equi
// condition, each strategy and build side must emit exactly the rows the
// streaming join's changelog folds to (the final result Flink's
// StreamingJoinOperator leaves in a sink), as a multiset.
func TestBatchJoinEqualsStreamingJoin(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	val := func() any {
		if rng.Intn(6) == 0 {
			return nil
		}
		return int64(rng.Intn(4))
	}
	types := []sql.DataType{sql.BigInt(), sql.BigInt()}
	for iter := 0; iter < 200; iter++ {
		var rows []sql.Row
		var inputs []int
		for i := rng.Intn(12); i >= 0; i-- {
			rows = append(rows, sql.Row{Kind: sql.Insert, Values: []any{val(), val()}})
			inputs = append(inputs, rng.Intn(2))
		}
		keys := []int{0}
		var cond func([]any) (any, error)
		nonEqui := iter%2 == 1
		if nonEqui {
			cond = lessCond(1, 3) // left.b < right.b
		}
		for name, jt := range batchJoinTypes {
			spec := JoinSpec{Left: JoinSideSpec{Keys: keys, Arity: 2, Outer: jt == BatchLeft || jt == BatchFull},
				Right: JoinSideSpec{Keys: keys, Arity: 2, Outer: jt == BatchRight || jt == BatchFull},
				Cond:  andCond(equiCond(keys, keys, 2), cond), Semi: jt == BatchSemi, Anti: jt == BatchAnti}
			want := fold(t, driveInputs(t, StreamingJoin(spec), rows, inputs, 0, true, ""))
			for _, s := range batchStrategies {
				bs := BatchJoinSpec{Strategy: s.strategy, Type: jt, LeftKeys: keys, RightKeys: keys, LeftArity: 2,
					RightArity: 2, Cond: spec.Cond, LeftIsBuild: s.leftIsBuild}
				out := driveInputs(t, BatchJoin(bs), rows, inputs, 0, true, "")
				for _, r := range out {
					if r.Kind != sql.Insert {
						t.Fatalf("%s %s emitted %s", name, s.name, sql.FormatRow(r, nil))
					}
				}
				if got := fold(t, out); got != want {
					t.Fatalf("iteration %d, %s join (non-equi %v), %s:\ninputs %v %v\nbatch:\n%s\nstreaming join folded:\n%s",
						iter, name, nonEqui, s.name, fmtRows(rows, types), inputs, got, want)
				}
			}
		}
	}
}

// fold applies a changelog to a multiset and prints it sorted.
func fold(t *testing.T, rows []sql.Row) string {
	t.Helper()
	count := map[string]int{}
	for _, r := range rows {
		if r.Kind == 255 {
			t.Fatalf("operator failed: %v", r.Values[0])
		}
		k := sql.FormatRow(sql.Row{Kind: sql.Insert, Values: r.Values}, nil)
		if r.Kind.IsAdd() {
			count[k]++
		} else {
			count[k]--
		}
	}
	var lines []string
	for k, n := range count {
		if n < 0 {
			t.Fatalf("retraction of a row not emitted: %s", k)
		}
		for ; n > 0; n-- {
			lines = append(lines, k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func fmtRows(rows []sql.Row, ts []sql.DataType) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, sql.FormatRow(r, ts))
	}
	return fmt.Sprint(parts)
}

var _ runtime.Operator = (*batchJoin)(nil)
