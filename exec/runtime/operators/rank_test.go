package operators

import (
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// TestRankAndDedupStateTTL: with table.exec.state.ttl a partition's Top-N
// and a key's kept row expire when none was written for the TTL (Flink's
// StateTtlConfig on the rank's and the deduplicate's state): after it, the
// next row of the key is the first again.
func TestRankAndDedupStateTTL(t *testing.T) {
	for _, tc := range []struct {
		name        string
		f           runtime.OperatorFactory
		before, ttl string
	}{
		{"rank", TopN(RankSpec{Partition: []int{0}, Order: []SortKey{{Index: 1, Desc: true}}, Start: 1, End: 1, Strategy: AppendFast}),
			"", "+I[1, 5]"},
		{"dedup-first", Deduplicate(DeduplicateSpec{Keys: []int{0}}), "", "+I[1, 5]"},
		{"dedup-last", Deduplicate(DeduplicateSpec{Keys: []int{0}, KeepLast: true, GenerateUpdateBefore: true, GenerateInsert: true}),
			"-U[1, 9] +U[1, 5]", "+I[1, 5]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := int64(1000)
			ctx := &runtime.Context{State: &state.Backend{TTL: 10 * time.Millisecond, Now: func() int64 { return now }}}
			op, _ := tc.f(0, 1)
			if err := op.Open(ctx, nil); err != nil {
				t.Fatal(err)
			}
			step := func(v int32) string {
				var out runtime.Collector
				if err := op.ProcessBatch(0, []sql.Row{{Kind: sql.Insert, Values: []any{int32(1), v}}}, &out); err != nil {
					t.Fatal(err)
				}
				var s []string
				for _, r := range out.Rows() {
					s = append(s, sql.FormatRow(r, []sql.DataType{sql.Int(), sql.Int()}))
				}
				return strings.Join(s, " ")
			}
			if got := step(9); got != "+I[1, 9]" {
				t.Fatalf("first row: %q", got)
			}
			if got := step(5); got != tc.before {
				t.Fatalf("before the TTL: %q, want %q", got, tc.before)
			}
			now += 11
			if got := step(5); got != tc.ttl {
				t.Fatalf("after the TTL: %q, want %q", got, tc.ttl)
			}
		})
	}
}

// TestRankRescale: a Top-N's state taken at parallelism 2 restores at
// parallelism 1, each partition's rows with it.
func TestRankRescale(t *testing.T) {
	spec := RankSpec{Partition: []int{0}, Order: []SortKey{{Index: 1, Desc: true}}, Start: 1, End: 2, Strategy: AppendFast}
	var blobs [][]byte
	for sub := 0; sub < 2; sub++ {
		op, _ := TopN(spec)(sub, 2)
		if err := op.Open(&runtime.Context{}, nil); err != nil {
			t.Fatal(err)
		}
		for k := int32(1); k <= 6; k++ {
			r := sql.Row{Kind: sql.Insert, Values: []any{k, int32(10)}}
			key, _ := state.KeyOf(r, []int{0})
			if runtime.OwnsKey(key, sub, 2) {
				var out runtime.Collector
				if err := op.ProcessBatch(0, []sql.Row{r, {Kind: sql.Insert, Values: []any{k, int32(20)}}}, &out); err != nil {
					t.Fatal(err)
				}
			}
		}
		b, err := op.Snapshot(1)
		if err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, b)
	}
	op, _ := TopN(spec)(0, 1)
	if err := op.(runtime.Rescalable).OpenRescaled(&runtime.Context{}, blobs, func(string) bool { return true }); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	for k := int32(1); k <= 6; k++ {
		if err := op.ProcessBatch(0, []sql.Row{{Kind: sql.Insert, Values: []any{k, int32(30)}}}, &out); err != nil {
			t.Fatal(err)
		}
	}
	// Every partition held 20 and 10: 30 pushes 10 out of each.
	if n := len(out.Rows()); n != 12 {
		t.Fatalf("every partition should be restored, got %v", out.Rows())
	}
	for _, r := range out.Rows()[:2] {
		if r.Kind == sql.Delete && r.Values[1] != int32(10) {
			t.Fatalf("the row pushed out should be 10: %v", r)
		}
	}
}
