package operators

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// TestGroupAggregateBatchingIsInvisible is metamorphic: a changelog run
// through GroupAggregate as one batch, and again one row per batch, gives
// the same output and the same final snapshot. ProcessBatch holds the
// group of a run of rows with one key and stores it when the key changes;
// the random changelog has runs, interleaved keys, retractions that empty
// a group and rows that recreate it in the same batch.
func TestGroupAggregateBatchingIsInvisible(t *testing.T) {
	specs := map[string]AggregateSpec{
		"keyed": {GroupKeys: []int{0}, GenerateUpdateBefore: true, Aggs: []AggSpec{{Kind: CountStar},
			{Kind: Sum, Arg: 1}, {Kind: Max, Arg: 1}, {Kind: Min, Arg: 2}, {Kind: Count, Arg: 2, Distinct: true}}},
		"global": {GenerateUpdateBefore: true, Aggs: []AggSpec{{Kind: CountStar}, {Kind: Max, Arg: 1}, {Kind: Min, Arg: 2}}},
		"insert-only": {GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: CountStar},
			{Kind: Max, Arg: 1, InsertOnly: true}, {Kind: Min, Arg: 2, InsertOnly: true}}},
		"on finish": {GroupKeys: []int{0}, EmitOnFinish: true, Aggs: []AggSpec{{Kind: CountStar}, {Kind: Max, Arg: 2}}},
	}
	for name, spec := range specs {
		for seed := uint64(1); seed <= 20; seed++ {
			rows := randomChangelog(rand.New(rand.NewPCG(seed, 7)), !slices.ContainsFunc(spec.Aggs, func(a AggSpec) bool { return a.InsertOnly }))
			whole, wholeSnap := runAgg(t, spec, [][]sql.Row{rows})
			var single [][]sql.Row
			for _, r := range rows {
				single = append(single, []sql.Row{r})
			}
			one, oneSnap := runAgg(t, spec, single)
			if !slices.Equal(whole, one) || string(wholeSnap) != string(oneSnap) {
				t.Fatalf("%s, seed %d: one batch gave\n%v\nrow by row\n%v", name, seed, whole, one)
			}
		}
	}
}

// randomChangelog is a valid changelog over 3 keys: runs of one key, and
// (with retract) retractions of rows added before.
func randomChangelog(r *rand.Rand, retract bool) []sql.Row {
	var rows, live []sql.Row
	keys := []string{"a", "b", "c"}
	for len(rows) < 200 {
		k := keys[r.IntN(len(keys))]
		for n := 1 + r.IntN(6); n > 0; n-- {
			if retract && len(live) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(live))
				old := live[i]
				live = slices.Delete(live, i, i+1)
				rows = append(rows, sql.Row{Kind: sql.Delete, Values: old.Values})
				continue
			}
			row := sql.NewRow(k, int64(r.IntN(50)), "s"+string(rune('a'+r.IntN(26))))
			live = append(live, row)
			rows = append(rows, row)
		}
	}
	return rows
}

func runAgg(t *testing.T, spec AggregateSpec, batches [][]sql.Row) ([]string, []byte) {
	t.Helper()
	op, _ := GroupAggregate(spec)(0, 1)
	if err := op.Open(&runtime.Context{}, nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	for _, b := range batches {
		if err := op.ProcessBatch(0, b, &out); err != nil {
			t.Fatal(err)
		}
	}
	if err := op.(interface {
		Finish(*runtime.Collector) error
	}).Finish(&out); err != nil {
		t.Fatal(err)
	}
	snap, err := op.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.Rows() {
		got = append(got, sql.FormatRow(r, nil))
	}
	return got, snap
}
