package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// LookupKey gives one lookup key's value: a field of the input row
// (Field >= 0), an expression over it (Eval) or a constant.
type LookupKey struct {
	Field int
	Eval  func([]any) (any, error)
	Const any
}

// LookupJoinSpec is a compiled lookup join (Flink's LookupJoinRunner,
// synchronous): for every input row the source is asked for the rows whose
// key fields equal Keys; each is turned into the dim's row and filtered
// (Dim), appended to the input row (the dim fields Select) and checked
// against JoinCond. An inner join drops an input row without a match, a
// left join emits it padded with NULLs. Every row keeps its input's
// RowKind: the join is stateless, so -U/+U/-D rows are looked up again and
// retract what the dim holds now.
type LookupJoinSpec struct {
	Source connectors.LookupSource
	// KeyFields are the dim's physical key fields, in Keys' order.
	KeyFields []int
	Keys      []LookupKey
	// Dim computes the dim's row from the physical row and applies the
	// dim-side condition.
	Dim      CalcFunc
	Select   []int
	JoinCond Predicate
	Left     bool
	// Table names the table in errors.
	Table string
}

// LookupJoin runs a lookup join, one lookuper per subtask.
func LookupJoin(spec LookupJoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &lookupJoin{spec: spec}, nil }
}

type lookupJoin struct {
	runtime.Base
	spec LookupJoinSpec
	ctx  *runtime.Context
	l    connectors.Lookuper
	key  []any
}

func (j *lookupJoin) Open(ctx *runtime.Context, _ []byte) error {
	l, err := j.spec.Source.NewLookuper(ctx.Ctx, j.spec.KeyFields)
	if err != nil {
		return fmt.Errorf("lookup join on table %s: %w", j.spec.Table, err)
	}
	j.ctx, j.l = ctx, l
	j.key = make([]any, len(j.spec.Keys))
	return nil
}

func (j *lookupJoin) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if err := j.process(r, out); err != nil {
			return err
		}
	}
	return nil
}

func (j *lookupJoin) process(r sql.Row, out *runtime.Collector) error {
	s := &j.spec
	matched := false
	null := false
	for i, k := range s.Keys {
		v := k.Const
		switch {
		case k.Field >= 0:
			v = r.Values[k.Field]
		case k.Eval != nil:
			var err error
			if v, err = k.Eval(r.Values); err != nil {
				return err
			}
		}
		if v == nil {
			null = true
			break
		}
		j.key[i] = v
	}
	var dims [][]any
	if !null {
		var err error
		dims, err = j.l.Lookup(j.ctx.Ctx, j.key)
		if err != nil {
			return fmt.Errorf("lookup join on table %s: %w", s.Table, err)
		}
	}
	nl := len(r.Values)
	for _, d := range dims {
		dr, ok, err := s.Dim(sql.Row{Kind: sql.Insert, Values: d})
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		vals := make([]any, nl+len(s.Select))
		copy(vals, r.Values)
		for i, f := range s.Select {
			vals[nl+i] = dr.Values[f]
		}
		o := sql.Row{Kind: r.Kind, Values: vals}
		if s.JoinCond != nil {
			if ok, err := s.JoinCond(o); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
		}
		matched = true
		out.Emit(o)
	}
	if !matched && s.Left {
		vals := make([]any, nl+len(s.Select))
		copy(vals, r.Values)
		out.Emit(sql.Row{Kind: r.Kind, Values: vals})
	}
	return nil
}

func (j *lookupJoin) Close() error {
	if j.l == nil {
		return nil
	}
	err := j.l.Close()
	j.l = nil
	return err
}
