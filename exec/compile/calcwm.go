package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/plan"
)

// calcWithWatermark runs a Calc that calls CURRENT_WATERMARK: each subtask
// compiles it over its own current input watermark, and its own clock
// for what reads the processing time.
func calcWithWatermark(exprs []plan.Expr, cond plan.Expr) runtime.OperatorFactory {
	return operators.CalcWithWatermark(func(ctx operators.CalcContext) (operators.CalcFunc, error) {
		bind := func(e plan.Expr) plan.Expr {
			if e == nil {
				return nil
			}
			return expr.WithWatermark(expr.WithProctimeClock(e, ctx.Now), ctx.Watermark)
		}
		ps := make([]plan.Expr, len(exprs))
		for i, e := range exprs {
			ps[i] = bind(e)
		}
		cf, err := plan.CompileCalc(ps, bind(cond))
		return operators.CalcFunc(cf), err
	})
}
