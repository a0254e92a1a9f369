package operators

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/sql"
)

// runTemporalJoin runs a "temporal-join" case: "L row" / "R row" lines
// (rowtime columns in milliseconds; the row's kind as written) and "wm N"
// lines go to a TemporalJoin (type=inner or left; lkeys and rkeys the
// equi-join fields; gt=(i,j) the non-equi condition "field i > field j"
// over the joined row), replayed with a snapshot and restore after every
// line on both backends (replayTimed).
func runTemporalJoin(t *testing.T, td *datadriven.TestData) string {
	lt, rt := types(t, td, "left"), types(t, td, "right")
	kind, _ := td.Arg("type")
	times := ints(t, td, "time")
	spec := TemporalJoinSpec{LeftTime: times[0], RightTime: times[1],
		Left:  JoinSideSpec{Keys: ints(t, td, "lkeys"), Arity: len(lt), Outer: kind.Vals[0] == "left"},
		Right: JoinSideSpec{Keys: ints(t, td, "rkeys"), Arity: len(rt)}}
	if gt := ints(t, td, "gt"); len(gt) == 2 {
		spec.Cond = func(vs []any) (any, error) {
			a, okA := vs[gt[0]].(int64)
			b, okB := vs[gt[1]].(int64)
			if !okA || !okB {
				return nil, nil
			}
			return a > b, nil
		}
	}
	outT := append(append([]sql.DataType(nil), lt...), rt...)
	return replayTimed(t, td, TemporalJoin(spec), times, [][]sql.DataType{lt, rt}, outT, false)
}
