package operators

import (
	"fmt"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
)

// CalcContext is what a Calc compiled per subtask reads of its operator:
// the processing-time clock (PROCTIME_MATERIALIZE) and its current input
// watermark (CURRENT_WATERMARK; runtime.MinWatermark before any arrives).
type CalcContext struct {
	Now       func() time.Time
	Watermark func() int64
}

// CalcWithWatermark is Calc for a projection or filter that reads its
// operator's current watermark (CURRENT_WATERMARK, which Flink's code
// generator reads from the Calc's timer service): build compiles it over
// the subtask's context when it opens, and the operator keeps the
// combined input watermark the runtime hands it, before the rows that
// follow it.
func CalcWithWatermark(build func(CalcContext) (CalcFunc, error)) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &calcWM{wm: runtime.MinWatermark, build: build}, nil
	}
}

type calcWM struct {
	calc
	wm    int64
	build func(CalcContext) (CalcFunc, error)
}

func (c *calcWM) Open(ctx *runtime.Context, _ []byte) error {
	f, err := c.build(CalcContext{Now: ctx.Clock(), Watermark: func() int64 { return c.wm }})
	if err != nil {
		return fmt.Errorf("calc: %w", err)
	}
	c.f = f
	return nil
}

// ProcessWatermark records the watermark; the runtime forwards it.
func (c *calcWM) ProcessWatermark(wm int64, _ *runtime.Collector) error {
	c.wm = wm
	return nil
}
