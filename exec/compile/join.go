package compile

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// joinSpec configures the regular join operator.
type joinSpec struct {
	kind      ast.JoinKind // INNER or LEFT
	leftKeys  []int
	rightKeys []int
	leftArity int
	rightAr   int
	// cond is the whole join condition over the concatenated row (the
	// equi-conjuncts included, which also settles NULL keys).
	cond plan.Eval
}

// newJoin is Flink's StreamingJoinOperator for INNER and LEFT joins: each
// side keeps, per join key, the list of its live rows. A row from one side
// is stored (or, retracted, removed) and joined with the other side's rows
// of its key that satisfy the condition; joined rows carry the input's
// RowKind. For LEFT joins a left row without partners is emitted padded
// with NULLs, and that padded row is retracted (-D) when its first partner
// arrives and re-emitted (+I) when its last partner leaves.
func newJoin(spec joinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &joinOp{spec: spec, left: state.NewMemTable(state.RowsCodec), right: state.NewMemTable(state.RowsCodec)}, nil
	}
}

type joinOp struct {
	runtime.Base
	spec        joinSpec
	left, right *state.MemTable[[]sql.Row]
}

func (j *joinOp) Open(_ *runtime.Context, restored []byte) error {
	if restored != nil {
		return state.RestoreAll(restored, j.left, j.right)
	}
	return nil
}

func (j *joinOp) Snapshot(int64) ([]byte, error) { return state.SnapshotAll(j.left, j.right) }

func (j *joinOp) Close() error { return nil }

// key encodes the join key; integers are widened so that INT and BIGINT
// keys meet. ok is false for a NULL key part, which never matches.
func key(r sql.Row, idx []int) (string, bool, error) {
	vals := make([]any, len(idx))
	for i, k := range idx {
		v := r.Values[k]
		switch x := v.(type) {
		case nil:
			return "", false, nil
		case int8:
			v = int64(x)
		case int16:
			v = int64(x)
		case int32:
			v = int64(x)
		case float32:
			v = float64(x)
		}
		vals[i] = v
	}
	all := make([]int, len(vals))
	for i := range all {
		all[i] = i
	}
	s, err := state.KeyOf(sql.Row{Values: vals}, all)
	return s, true, err
}

func (j *joinOp) joined(l, r []any, kind sql.RowKind) sql.Row {
	v := make([]any, 0, j.spec.leftArity+j.spec.rightAr)
	v = append(v, l...)
	if r == nil {
		r = make([]any, j.spec.rightAr)
	}
	v = append(v, r...)
	return sql.Row{Kind: kind, Values: v}
}

func (j *joinOp) matches(l, r []any) (bool, error) {
	if j.spec.cond == nil {
		return true, nil
	}
	v, err := j.spec.cond(j.joined(l, r, sql.Insert).Values)
	if err != nil {
		return false, fmt.Errorf("join condition: %w", err)
	}
	b, _ := v.(bool)
	return b, nil
}

// partners counts the rows of list matching row (as the given side).
func (j *joinOp) partners(row []any, list []sql.Row, rowIsLeft bool) (int, error) {
	n := 0
	for _, o := range list {
		var ok bool
		var err error
		if rowIsLeft {
			ok, err = j.matches(row, o.Values)
		} else {
			ok, err = j.matches(o.Values, row)
		}
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

func remove(list []sql.Row, vals []any) ([]sql.Row, bool) {
	for i, r := range list {
		if operators.ValuesEqual(r.Values, vals) {
			return append(list[:i:i], list[i+1:]...), true
		}
	}
	return list, false
}

func (j *joinOp) ProcessBatch(input int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		var err error
		if input == 0 {
			err = j.processLeft(r, out)
		} else {
			err = j.processRight(r, out)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (j *joinOp) processLeft(r sql.Row, out *runtime.Collector) error {
	outer := j.spec.kind == ast.LeftJoin
	k, ok, err := key(r, j.spec.leftKeys)
	if err != nil {
		return err
	}
	var others []sql.Row
	if ok {
		if others, _, err = j.right.Get(k); err != nil {
			return err
		}
	}
	matched := 0
	for _, o := range others {
		m, err := j.matches(r.Values, o.Values)
		if err != nil {
			return err
		}
		if m {
			matched++
			out.Emit(j.joined(r.Values, o.Values, r.Kind))
		}
	}
	if matched == 0 && outer {
		out.Emit(j.joined(r.Values, nil, r.Kind))
	}
	if !ok {
		return nil // a NULL key never joins: nothing to remember
	}
	list, _, err := j.left.Get(k)
	if err != nil {
		return err
	}
	if r.Kind.IsAdd() {
		list = append(list, sql.Row{Kind: sql.Insert, Values: r.Values})
	} else if list, _ = remove(list, r.Values); len(list) == 0 {
		return j.left.Delete(k)
	}
	return j.left.Put(k, list)
}

func (j *joinOp) processRight(r sql.Row, out *runtime.Collector) error {
	outer := j.spec.kind == ast.LeftJoin
	k, ok, err := key(r, j.spec.rightKeys)
	if err != nil || !ok {
		return err // a NULL key never joins
	}
	rights, _, err := j.right.Get(k)
	if err != nil {
		return err
	}
	add := r.Kind.IsAdd()
	if !add {
		var found bool
		if rights, found = remove(rights, r.Values); !found {
			return nil // retraction of a row never seen (state lost): drop, as Flink does
		}
	}
	lefts, _, err := j.left.Get(k)
	if err != nil {
		return err
	}
	for _, l := range lefts {
		m, err := j.matches(l.Values, r.Values)
		if err != nil || !m {
			if err != nil {
				return err
			}
			continue
		}
		if outer {
			// Partners of this left row among the other right rows.
			n, err := j.partners(l.Values, rights, true)
			if err != nil {
				return err
			}
			if add && n == 0 {
				out.Emit(j.joined(l.Values, nil, sql.Delete))
			}
			out.Emit(j.joined(l.Values, r.Values, r.Kind))
			if !add && n == 0 {
				out.Emit(j.joined(l.Values, nil, sql.Insert))
			}
			continue
		}
		out.Emit(j.joined(l.Values, r.Values, r.Kind))
	}
	if add {
		rights = append(rights, sql.Row{Kind: sql.Insert, Values: r.Values})
	}
	if len(rights) == 0 {
		return j.right.Delete(k)
	}
	return j.right.Put(k, rights)
}
