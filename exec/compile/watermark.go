package compile

import (
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
)

// watermarkAssigner runs the WATERMARK FOR clause as an operator chained to
// its input (same parallelism, forward edge), as Flink's
// WatermarkAssignerOperator. Its input keeps the path (and so the state
// uids) it had before watermarks were generated at run time.
func (b *builder) watermarkAssigner(n *plan.WatermarkAssigner, path string) (edge, error) {
	in, err := b.build(n.Inputs()[0], path)
	if err != nil {
		return edge{}, err
	}
	interval, err := config.Duration(b.opts.Config, config.KeyWatermarkInterval)
	if err != nil {
		return edge{}, err
	}
	idle, err := config.Duration(b.opts.Config, config.KeyIdleTimeout)
	if err != nil {
		return edge{}, err
	}
	ev, err := plan.Compile(n.Expr)
	if err != nil {
		return edge{}, err
	}
	spec := operators.WatermarkSpec{Rowtime: n.Rowtime, Interval: interval, IdleTimeout: idle,
		Watermark: func(r sql.Row) (any, error) { return ev(r.Values) }}
	p := in.p
	if in.exchanged {
		p = b.defaultP
		if in.part.Kind == runtime.Global {
			p = 1
		}
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.WatermarkAssigner(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}
