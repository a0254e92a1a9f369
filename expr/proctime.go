package expr

import (
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// procTimeNow is PROCTIME() or PROCTIME_MATERIALIZE(x) in a Calc compiled
// with its operator's clock: the processing time when the row reaches the
// Calc.
type procTimeNow struct {
	now func() time.Time
	T   sql.DataType
}

func (e *procTimeNow) Type() sql.DataType { return e.T }

// ReadsProctime reports whether one of es calls PROCTIME or
// PROCTIME_MATERIALIZE, which read the processing-time clock.
func ReadsProctime(es ...Expr) bool {
	for _, e := range es {
		if c, ok := e.(*Call); ok {
			if c.Op == "PROCTIME" || c.Op == "PROCTIME_MATERIALIZE" || ReadsProctime(c.Args...) {
				return true
			}
		}
	}
	return false
}

// WithProctimeClock returns e with every PROCTIME_MATERIALIZE(x) reading
// now instead of x, as Flink's ProctimeMaterializeCallGen generates
// TimestampData.fromEpochMillis(timerService().currentProcessingTime()):
// a processing-time attribute carries no value of its own (PROCTIME() is
// a placeholder, ExprCodeGenerator's null literal), and materializing it
// reads the clock of the operator that does so. The row's field (the time
// sqlrun's source Calc read) is not what Flink shows downstream of an
// operator that held the row, such as a window Top-N or deduplication on
// processing time. The value sqlrun's source Calc gives the attribute
// itself (PROCTIME() there) reads the same clock, so that the job's
// processing-time clock, not the process's wall clock, stamps it.
func WithProctimeClock(e Expr, now func() time.Time) Expr {
	c, ok := e.(*Call)
	if !ok {
		return e
	}
	if c.Op == "PROCTIME_MATERIALIZE" || c.Op == "PROCTIME" {
		return &procTimeNow{now: now, T: c.T}
	}
	return c.MapArgs(func(a Expr) Expr { return WithProctimeClock(a, now) })
}

func compileProcTimeNow(x *procTimeNow) Eval {
	now := x.now
	return func([]any) (any, error) { return sql.TimestampData{Millis: now().UnixMilli()}, nil }
}
