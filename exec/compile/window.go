package compile

import (
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
)

// windowAggregate runs a WindowAggregate, or a GlobalWindowAggregate with
// its LocalWindowAggregate, as one event-time (or processing-time) window
// operator behind the
// plan's Exchange (the local phase is a pre-aggregation the result does
// not need, as for batch aggregates).
func (b *builder) windowAggregate(n *plan.WindowAggregate, path string) (edge, error) {
	one := n
	if n.Phase == 2 {
		one = n.Local()
	}
	var exchange *plan.Exchange
	src := one.Inputs()[0]
	if n.Phase == 2 {
		exchange, _ = n.Inputs()[0].(*plan.Exchange)
	} else if ex, ok := src.(*plan.Exchange); ok {
		exchange, src = ex, ex.Inputs()[0]
	}
	in, err := b.build(src, path+".0")
	if err != nil {
		return edge{}, err
	}
	in.exchanged = true
	p := b.defaultP
	if exchange == nil || exchange.Single || len(one.Group) == 0 {
		in.part = runtime.Partitioning{Kind: runtime.Global}
		p = 1
	} else {
		in.part = runtime.Partitioning{Kind: runtime.Hash, Keys: one.Group}
	}
	spec := windowSpec(one.Window, one.TimeCol)
	spec.GroupKeys, spec.WindowTime, spec.ProcTime = one.Group, n.WindowTime, one.Window.ProcTime
	spec.NoProperties = one.Window.Legacy && !one.Window.Props
	spec.Attached, spec.WinStart, spec.WinEnd = one.Attached, one.WinStart, one.WinEnd
	if e := one.Window.Emit; one.Window.Legacy {
		// WindowEmitStrategy.getTrigger: no late firing on processing time.
		spec.EarlyFire, spec.EarlyDelay = e.EarlyFire, e.EarlyDelay
		spec.LateFire, spec.LateDelay = e.LateFire && !spec.ProcTime, e.LateDelay
		spec.AllowLateness = e.AllowLateness
		spec.ProduceUpdates = e.ProduceUpdates(spec.ProcTime)
	}
	for _, a := range one.Aggs {
		s, err := aggSpec(a)
		if err != nil {
			return edge{}, err
		}
		if spec.Kind == operators.Session && (s.Kind == operators.FirstValue || s.Kind == operators.LastValue) {
			// Merging sessions merges accumulators; sqlrun does not merge
			// arrival orders yet.
			return edge{}, sql.Errorf(sql.TableException, "sqlrun cannot run %s in a SESSION window aggregate yet", a.Func)
		}
		spec.Aggs = append(spec.Aggs, s)
	}
	v := b.g.AddOperator(uid(path, n), n.Name(), operators.WindowAggregate(spec), p)
	b.connect(in, v, p)
	return edge{vertex: v, p: p}, nil
}

// windowSpec is the runtime's form of a plan's window on time column tc.
func windowSpec(w plan.Windowing, tc int) operators.WindowSpec {
	spec := operators.WindowSpec{TimeCol: tc, Size: w.Size, Slide: w.Slide, Step: w.Step, Offset: w.Offset, Zone: w.Zone}
	switch w.Func {
	case "HOP":
		spec.Kind = operators.Hop
	case "CUMULATE":
		spec.Kind = operators.Cumulate
	case "SESSION":
		spec.Kind = operators.Session
	}
	return spec
}
