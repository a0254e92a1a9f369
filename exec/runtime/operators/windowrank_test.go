package operators

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// runWindowRank runs a "window-rank" case of testdata/windowrank: rows
// carry their rowtime (time=) and window_start / window_end (win=) in
// milliseconds, as a window TVF or window aggregate emits them; "wm N"
// lines are watermarks. The options read as rank's (partition=, order=,
// desc, start=, end=, number), or dedup [keep-last] for a window
// deduplication on the rowtime. The case is replayed with a snapshot and
// restore after every line, on both state backends, and must not change.
func runWindowRank(t *testing.T, td *datadriven.TestData) string {
	in := types(t, td, "in")
	timeCol := ints(t, td, "time")[0]
	win := ints(t, td, "win")
	spec := WindowRankSpec{StartCol: win[0], EndCol: win[1], Partition: ints(t, td, "partition"),
		OutputNumber: boolArg(td, "number"), Dedup: boolArg(td, "dedup"), KeepLast: boolArg(td, "keep-last"), TimeCol: timeCol, Start: 1, End: 1}
	if !spec.Dedup {
		r := rankSpec(t, td)
		spec.Order, spec.Start, spec.End = r.Order, r.Start, r.End
	}
	outT := append([]sql.DataType(nil), in...)
	for _, c := range []int{timeCol, win[0], win[1]} {
		outT[c] = sql.Timestamp(3)
	}
	if spec.OutputNumber {
		outT = append(outT, sql.BigInt())
	}
	f := func(int, int) (runtime.Operator, error) {
		op, err := WindowRank(spec)(0, 1)
		return &timestampCols{Operator: op, cols: win}, err
	}
	return replayTimed(t, td, f, []int{timeCol}, [][]sql.DataType{in}, outT, false)
}

// timestampCols reads the given BIGINT columns as TIMESTAMP(3)
// milliseconds before its operator sees a row.
type timestampCols struct {
	runtime.Operator
	cols []int
}

func (a *timestampCols) ProcessBatch(input int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		for _, c := range a.cols {
			if v, ok := r.Values[c].(int64); ok {
				r.Values[c] = sql.TimestampData{Millis: v}
			}
		}
	}
	return a.Operator.ProcessBatch(input, rows, out)
}

func (a *timestampCols) ProcessWatermark(wm int64, out *runtime.Collector) error {
	return a.Operator.(runtime.WatermarkOperator).ProcessWatermark(wm, out)
}
