package operators

import (
	"testing"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// FuzzRestore: restoring any operator from arbitrary bytes fails cleanly.
func FuzzRestore(f *testing.F) {
	agg := GroupAggregate(AggregateSpec{GroupKeys: []int{0}, Aggs: []AggSpec{{Kind: Min, Arg: 1}, {Kind: Sum, Arg: 1, Distinct: true}}})
	op, _ := agg(0, 1)
	_ = op.Open(&runtime.Context{}, nil)
	var out runtime.Collector
	_ = op.ProcessBatch(0, []sql.Row{sql.NewRow("a", int64(3)), sql.NewRow("a", int64(5))}, &out)
	snap, _ := op.Snapshot(1)
	f.Add(snap)
	factories := []runtime.OperatorFactory{agg,
		ChangelogNormalize(NormalizeSpec{Keys: []int{0}}),
		SinkUpsertMaterializer(MaterializerSpec{Keys: []int{0}}),
		Sort(nil, 0, -1), Limit(0, 1), Deduplicate(DeduplicateSpec{Keys: []int{0}, KeepLast: true})}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, fac := range factories {
			op, _ := fac(0, 1)
			_ = op.Open(&runtime.Context{}, b)
		}
	})
}
