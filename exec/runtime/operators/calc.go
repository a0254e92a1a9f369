package operators

import (
	"fmt"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// CalcFunc is a compiled projection and filter: it returns the output row
// and whether the input passed the filter. The RowKind of the output is
// always the input's (Calc keeps the changelog kind).
type CalcFunc func(sql.Row) (sql.Row, bool, error)

// Calc applies a compiled CalcFunc to every row.
func Calc(f CalcFunc) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &calc{f: f}, nil }
}

type calc struct {
	runtime.Base
	f     CalcFunc
	build func(now func() time.Time) (CalcFunc, error)
}

// CalcWithClock is Calc for a projection that reads the processing time
// (PROCTIME_MATERIALIZE): build compiles it over the operator's clock
// (runtime.Context.Clock) when the subtask opens.
func CalcWithClock(build func(now func() time.Time) (CalcFunc, error)) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &calc{build: build}, nil }
}

func (c *calc) Open(ctx *runtime.Context, _ []byte) error {
	if c.build == nil {
		return nil
	}
	f, err := c.build(ctx.Clock())
	if err != nil {
		return fmt.Errorf("calc: %w", err)
	}
	c.f = f
	return nil
}

func (c *calc) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Grow(len(rows))
	for _, r := range rows {
		o, ok, err := c.f(r)
		if err != nil {
			return err
		}
		if ok {
			o.Kind = r.Kind
			out.Emit(o)
		}
	}
	return nil
}

// Predicate is a compiled filter condition: true keeps the row (SQL's
// WHERE: NULL/unknown is false).
type Predicate func(sql.Row) (bool, error)

// ProjectFilter is the fast Calc for the common case of column references
// only: keep rows passing filter (nil = all), output the given input
// columns. Output rows of one batch share one backing array, so a batch
// costs two allocations, not one per row.
func ProjectFilter(fields []int, filter Predicate) runtime.OperatorFactory {
	// A run of adjacent columns (SELECT b, c, d) re-slices the input's
	// Values instead of copying them: rows are read-only, so sharing is safe.
	lo, run := -1, len(fields) > 0
	for i, f := range fields {
		if i == 0 {
			lo = f
		} else if f != lo+i {
			run = false
		}
	}
	return func(int, int) (runtime.Operator, error) {
		return &projectFilter{fields: fields, filter: filter, run: run, lo: lo}, nil
	}
}

type projectFilter struct {
	runtime.Base
	fields []int
	filter Predicate
	run    bool
	lo     int
}

// ProcessBatch filters and projects in place: the input batch is ours
// (see the runtime's data contract), so the output rows overwrite it and
// the slice is handed on without a copy.
func (p *projectFilter) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	var backing []any
	nf := len(p.fields)
	if !p.run {
		backing = make([]any, 0, len(rows)*nf)
	}
	hi := p.lo + nf
	w := 0
	for _, r := range rows {
		if p.filter != nil {
			ok, err := p.filter(r)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		var vals []any
		if p.run {
			vals = r.Values[p.lo:hi:hi]
		} else {
			start := len(backing)
			for _, f := range p.fields {
				backing = append(backing, r.Values[f])
			}
			vals = backing[start:len(backing):len(backing)]
		}
		rows[w] = sql.Row{Kind: r.Kind, Values: vals}
		w++
	}
	if w > 0 {
		out.Adopt(rows[:w:w])
	}
	return nil
}

// DropUpdateBefore removes -U rows (Flink's DropUpdateBefore, placed where
// a consumer only needs +U).
func DropUpdateBefore() runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return dropUB{}, nil }
}

type dropUB struct{ runtime.Base }

func (dropUB) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.UpdateBefore {
			out.Emit(r)
		}
	}
	return nil
}

// Expand is Flink's ExpandCodeGenerator's operator (the Expand of GROUPING
// SETS / ROLLUP / CUBE): every input row is emitted once per projection,
// in order, with the input row's kind, so it works on retracting input as
// on insert-only.
func Expand(projects []CalcFunc) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &expand{projects: projects}, nil }
}

type expand struct {
	runtime.Base
	projects []CalcFunc
}

func (e *expand) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	out.Grow(len(rows) * len(e.projects))
	for _, r := range rows {
		for _, f := range e.projects {
			o, ok, err := f(r)
			if err != nil {
				return err
			}
			if ok {
				o.Kind = r.Kind
				out.Emit(o)
			}
		}
	}
	return nil
}
