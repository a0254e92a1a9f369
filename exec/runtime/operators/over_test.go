package operators

import (
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
	outT := append(append([]sql.DataType(nil), in...), types(t, td, "out")...)
	return replayTimed(t, td, OverAggregate(spec), spec.TimeCol, in, outT, !spec.Rowtime)
}
