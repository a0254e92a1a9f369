package operators

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/sql"
)

// runOver runs an "over" case of testdata/over: rows (the time column in
// milliseconds) and "wm N" lines go to an OverAggregate (frame=rows|range,
// preceding=N or unbounded, proctime for processing time); the output is
// the input row followed by the aggregates, replayed with a snapshot and
// restore after every line on both backends (replayTimed).
func runOver(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	spec := OverSpec{TimeCol: ints(t, td, "time")[0], Partition: ints(t, td, "partition"), Aggs: parseAggs(t, td, in)}
	spec.Rowtime = !boolArg(td, "proctime")
	frame, _ := td.Arg("frame")
	spec.Rows = frame.Vals[0] == "rows"
	if p := ints(t, td, "preceding"); len(p) == 1 {
		spec.Preceding = int64(p[0])
	} else {
		spec.Unbounded = true
	}
	if td.HasArg("lag") {
		// lag=(pos:arg:offset[:default column]): LAG calls at their
		// places among the aggregates, without a default or with a
		// column's.
		a, _ := td.Arg("lag")
		for _, v := range a.Vals {
			var l OverLag
			l.DefaultArg = -1
			if n, _ := fmt.Sscanf(v, "%d:%d:%d:%d", &l.Pos, &l.Arg, &l.Offset, &l.DefaultArg); n < 3 {
				t.Fatalf("bad lag %q", v)
			}
			spec.Lags = append(spec.Lags, l)
		}
	}
	outT := append(append([]sql.DataType(nil), in...), types(t, td, "out")...)
	return replayTimed(t, td, OverAggregate(spec), []int{spec.TimeCol}, [][]sql.DataType{in}, outT, !spec.Rowtime)
}

// runIntervalJoin runs an "interval-join" case: "L row" / "R row" lines
// (time columns in milliseconds) and "wm N" lines go to an IntervalJoin
// (lower and upper: the bounds of left time - right time; type=inner,
// left, right or full; keys the equi-join fields of each side).
func runIntervalJoin(t *testing.T, td *datadriven.TestData) string {
	lt, rt := types(t, td, "left"), types(t, td, "right")
	kind, _ := td.Arg("type")
	outer := kind.Vals[0]
	times := ints(t, td, "time")
	bounds := ints(t, td, "bounds")
	spec := IntervalJoinSpec{LeftTime: times[0], RightTime: times[1], Rowtime: !boolArg(td, "proctime"),
		LowerBound: int64(bounds[0]), UpperBound: int64(bounds[1]),
		Left:  JoinSideSpec{Keys: ints(t, td, "lkeys"), Arity: len(lt), Outer: outer == "left" || outer == "full"},
		Right: JoinSideSpec{Keys: ints(t, td, "rkeys"), Arity: len(rt), Outer: outer == "right" || outer == "full"}}
	outT := append(append([]sql.DataType(nil), lt...), rt...)
	return replayTimed(t, td, IntervalJoin(spec), times, [][]sql.DataType{lt, rt}, outT, true)
}
