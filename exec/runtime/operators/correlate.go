package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// UnnestSpec describes a Correlate of Flink's $UNNEST_ROWS$1
// (UnnestRowsFunction under CorrelateCodeGenerator's operator).
type UnnestSpec struct {
	// Arg computes the collection from an input row: its Values[0] is
	// the ARRAY ([]any) or MAP (*sql.Map) to unnest, or nil.
	Arg CalcFunc
	// Map unnests a MAP into (key, value) rows; otherwise an ARRAY's
	// elements are unnested.
	Map bool
	// RowArity is the field count of a ROW element, whose fields become
	// the element's columns; 0 for any other element (one column).
	RowArity int
	// Width is the number of columns an element contributes.
	Width int
	// Cond filters the element's columns (nil: none).
	Cond CalcFunc
	// Left emits the input row padded with NULLs when no element passes
	// (LEFT JOIN UNNEST ... ON TRUE).
	Left bool
	// Replicate makes it Flink's ReplicateRows (INTERSECT ALL / EXCEPT
	// ALL): Arg's Values[0] (a BIGINT) copies of its other values.
	Replicate bool
}

// Unnest is the Correlate operator: per input row, of any RowKind, one
// output row per element of its collection (the input's fields, then the
// element's), each with the input row's kind, as Flink's correlate
// collector emits them; a NULL collection has no elements. It keeps no
// state.
func Unnest(spec UnnestSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &unnest{spec: spec}, nil }
}

type unnest struct {
	runtime.Base
	spec UnnestSpec
}

func (u *unnest) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		a, ok, err := u.spec.Arg(r)
		if err != nil {
			return err
		}
		var coll any
		if ok && len(a.Values) > 0 {
			coll = a.Values[0]
		}
		if u.spec.Replicate {
			n, _ := coll.(int64)
			for i := int64(0); i < n; i++ {
				vals := make([]any, 0, len(r.Values)+len(a.Values)-1)
				vals = append(append(vals, r.Values...), a.Values[1:]...)
				out.Emit(sql.Row{Kind: r.Kind, Values: vals})
			}
			continue
		}
		emitted := false
		emit := func(elem []any) error {
			if u.spec.Cond != nil {
				_, pass, err := u.spec.Cond(sql.Row{Kind: r.Kind, Values: elem})
				if err != nil {
					return err
				}
				if !pass {
					return nil
				}
			}
			vals := make([]any, 0, len(r.Values)+len(elem))
			vals = append(append(vals, r.Values...), elem...)
			out.Emit(sql.Row{Kind: r.Kind, Values: vals})
			emitted = true
			return nil
		}
		switch c := coll.(type) {
		case nil:
		case []any:
			for _, e := range c {
				if err := emit(u.element(e)); err != nil {
					return err
				}
			}
		case *sql.Map:
			if !u.spec.Map {
				return fmt.Errorf("UNNEST: a MULTISET or MAP value where an ARRAY was planned")
			}
			for i := range c.Keys {
				if err := emit([]any{c.Keys[i], c.Values[i]}); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("UNNEST: a %T value is no ARRAY or MAP", coll)
		}
		if !emitted && u.spec.Left {
			vals := make([]any, len(r.Values)+u.spec.Width)
			copy(vals, r.Values)
			out.Emit(sql.Row{Kind: r.Kind, Values: vals})
		}
	}
	return nil
}

// element is an array element's columns: a ROW element's fields (all
// NULL for a NULL row), or the element itself.
func (u *unnest) element(e any) []any {
	if u.spec.RowArity == 0 {
		return []any{e}
	}
	f, _ := e.([]any)
	vals := make([]any, u.spec.RowArity)
	copy(vals, f)
	return vals
}
