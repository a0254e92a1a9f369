package expr

import (
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// The clock of the time functions Flink 1.20 registers as dynamic
// (FlinkSqlOperatorTable.dynamicFunctions, FLIP-162): Flink's
// CurrentTimePointCallGen generates them in a streaming job as one
// reading of System.currentTimeMillis() per record, shared by every call
// in the generated function (CodeGeneratorContext
// .addReusableRecordLevelCurrentTimestamp and the local date-time, time
// and date derived from it), and in a batch job as the query's start time
// (addReusableQueryLevelCurrentTimestamp: TABLE_QUERY_START_EPOCH_TIME,
// set once when the planner translates the statement). So
// LOCALTIMESTAMP = LOCALTIMESTAMP is TRUE on every row
// (ScalarFunctionsTest.testCurrentTimePoint), and every row of a batch
// query sees one time. CURRENT_ROW_TIMESTAMP() is not one of them: it
// reads the clock per call in both modes.
var clockFuncs = map[string]bool{
	"CURRENT_TIMESTAMP": true, "NOW": true, "LOCALTIMESTAMP": true,
	"LOCALTIME": true, "CURRENT_TIME": true, "CURRENT_DATE": true,
}

// clockRead is a call of a clock function bound to a time: the query's
// start (fixed), or the reading the compiled Calc or expression takes per
// record, which it passes after the row's fields (compileClocked).
type clockRead struct {
	op    string
	fixed bool
	ms    int64
	T     sql.DataType
	loc   *time.Location
}

func (e *clockRead) Type() sql.DataType { return e.T }

// clockValue is op's value at epoch millisecond ms in the session's time
// zone, 'table.local-time-zone' (loc): the instant for CURRENT_TIMESTAMP
// and NOW, the wall clock in loc for LOCALTIMESTAMP, its time of day in
// milliseconds for LOCALTIME and CURRENT_TIME
// (DateTimeUtils.timestampMillisToTime), its day for CURRENT_DATE
// (timestampMillisToDate), as CurrentTimePointCallGen converts the
// instant with the session zone.
func clockValue(op string, ms int64, loc *time.Location) any {
	if op != "CURRENT_TIMESTAMP" && op != "NOW" {
		ms = LocalMillis(ms, loc)
	}
	switch op {
	case "LOCALTIME", "CURRENT_TIME":
		return int32(ms - floorDiv(ms, millisPerDay)*millisPerDay)
	case "CURRENT_DATE":
		return int32(floorDiv(ms, millisPerDay))
	}
	return sql.TimestampData{Millis: ms}
}

// AtQueryStart returns e with every clock function reading the epoch
// millisecond start, the query's start time a batch job's time functions
// read. e itself is not changed.
func AtQueryStart(e Expr, start int64) Expr {
	return bindClock(e, true, start)
}

func bindClock(e Expr, fixed bool, ms int64) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if clockFuncs[c.Op] {
		return &clockRead{op: c.Op, fixed: fixed, ms: ms, T: c.T, loc: c.location()}
	}
	return c.MapArgs(func(a Expr) Expr { return bindClock(a, fixed, ms) })
}

// readsClock reports whether one of es calls a clock function that is
// not yet bound to the query's start.
func readsClock(es ...Expr) bool {
	for _, e := range es {
		if c, ok := e.(*Call); ok && (clockFuncs[c.Op] || readsClock(c.Args...)) {
			return true
		}
	}
	return false
}

// compileClockRead reads a fixed time, or the per-record reading the
// caller appended after the row's fields.
func compileClockRead(x *clockRead) Eval {
	op, loc := x.op, x.loc
	if x.fixed {
		v := clockValue(op, x.ms, loc)
		return func([]any) (any, error) { return v, nil }
	}
	return func(row []any) (any, error) {
		ms, _ := row[len(row)-1].(int64)
		return clockValue(op, ms, loc), nil
	}
}

// withClockReading is row with one reading of the clock (epoch
// milliseconds) after its fields, the value the unfixed clockReads of one
// evaluation share.
func withClockReading(row []any) []any {
	out := make([]any, len(row)+1)
	copy(out, row)
	out[len(row)] = time.Now().UnixMilli()
	return out
}
