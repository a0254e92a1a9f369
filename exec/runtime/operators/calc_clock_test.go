package operators

import (
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
)

// TestCalcProctimeMaterializeReadsClock: PROCTIME_MATERIALIZE(pt) is the
// processing time of the Calc that materializes it, as Flink's
// ProctimeMaterializeCallGen generates
// TimestampData.fromEpochMillis(timerService().currentProcessingTime()),
// not the time the source read the row (the field's value): a row a
// window Top-N or deduplication held shows the time it left it. Before,
// the Calc passed the field on (the first expected value failed).
func TestCalcProctimeMaterializeReadsClock(t *testing.T) {
	ltz := sql.TimestampLTZ(3).NotNull()
	pt := &expr.InputRef{Index: 0, T: ltz}
	mat := &expr.Call{Op: "PROCTIME_MATERIALIZE", Args: []expr.Expr{pt}, T: ltz}
	// IS NOT NULL over the materialized time: it composes inside calls.
	exprs := []expr.Expr{mat, &expr.Call{Op: "IS NOT NULL", Args: []expr.Expr{mat}, T: sql.Boolean().NotNull()}}
	if !expr.ReadsProctime(exprs...) {
		t.Fatal("ReadsProctime missed the call")
	}
	op, err := CalcWithClock(func(now func() time.Time) (CalcFunc, error) {
		ps := make([]expr.Expr, len(exprs))
		for i, e := range exprs {
			ps[i] = expr.WithProctimeClock(e, now)
		}
		cf, err := expr.CompileCalc(ps, nil)
		return CalcFunc(cf), err
	})(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.UnixMilli(1_700_000_060_000)
	if err := op.Open(&runtime.Context{Now: func() time.Time { return clock }}, nil); err != nil {
		t.Fatal(err)
	}
	read := sql.TimestampData{Millis: 1_700_000_000_000} // when the source read the row
	for _, want := range []int64{1_700_000_060_000, 1_700_000_075_000} {
		var out runtime.Collector
		if err := op.ProcessBatch(0, []sql.Row{{Kind: sql.Insert, Values: []any{read}}}, &out); err != nil {
			t.Fatal(err)
		}
		rows := out.Rows()
		if len(rows) != 1 {
			t.Fatalf("got %d rows", len(rows))
		}
		if got := rows[0].Values[0]; got != (sql.TimestampData{Millis: want}) {
			t.Errorf("PROCTIME_MATERIALIZE = %v, want the clock's %d (the row was read at %d)", got, want, read.Millis)
		}
		if rows[0].Values[1] != true {
			t.Errorf("IS NOT NULL over it = %v", rows[0].Values[1])
		}
		clock = clock.Add(15 * time.Second)
	}
}
