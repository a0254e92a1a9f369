package format

import (
	"fmt"
	"slices"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// Nested schema evolution on read: a ROW, ARRAY or MAP column whose type
// changed since a file was written (fields added, dropped, renamed or
// retyped inside it, by Paimon 1.1+'s nested schema changes) is converted
// as SchemaEvolutionUtil.createCastExecutor (release-1.4) does it: ROW
// fields are matched by field id (a field the file lacks reads as null, a
// field the table dropped is not read), ARRAY elements and MAP values are
// converted by their own executor, a MAP's key type must not change, and a
// leaf is converted by its CastExecutors rule (evolveCast).

// nestedEvolution returns the conversion of a nested column's values from
// the file's type (with its ROW field ids) to the table's, nil when none is
// needed. Without ids for every nested field on both sides (a hand-made
// schema), only equal types are accepted.
func nestedEvolution(from, to schema.Field) (caster, error) {
	f, okf := from.Tree()
	t, okt := to.Tree()
	if !okf || !okt {
		if from.Type.WithNullable(true).Equal(to.Type.WithNullable(true)) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: nested type %s to %s without field ids", ErrCast, from.Type, to.Type)
	}
	if f.SameIgnoringNullable(t) {
		return nil, nil
	}
	return castNested(f, t)
}

// castNested is SchemaEvolutionUtil.createCastExecutor for one pair.
func castNested(from, to *schema.Node) (caster, error) {
	if from.SameIgnoringNullable(to) {
		return func(x any) (any, error) { return x, nil }, nil
	}
	switch {
	case from.Type.Root == sql.TypeRow && to.Type.Root == sql.TypeRow:
		return castRow(from, to)
	case from.Type.Root == sql.TypeArray && to.Type.Root == sql.TypeArray:
		elem, err := castNested(from.Kids[0], to.Kids[0])
		if err != nil {
			return nil, err
		}
		return func(x any) (any, error) {
			in := x.([]any)
			out := make([]any, len(in))
			for i, e := range in {
				if e == nil {
					continue
				}
				v, err := elem(e)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, nil
		}, nil
	case from.Type.Root == sql.TypeMap && to.Type.Root == sql.TypeMap:
		if !from.Kids[0].Type.Equal(to.Kids[0].Type) || !slices.Equal(from.Kids[0].NestedIDs(), to.Kids[0].NestedIDs()) {
			return nil, fmt.Errorf("%w: Cannot cast map type %s to map type %s, because they have different key types.", ErrCast, from.Type, to.Type)
		}
		val, err := castNested(from.Kids[1], to.Kids[1])
		if err != nil {
			return nil, err
		}
		return func(x any) (any, error) {
			in := x.(*sql.Map)
			out := &sql.Map{Keys: in.Keys, Values: make([]any, len(in.Values))}
			for i, e := range in.Values {
				if e == nil {
					continue
				}
				v, err := val(e)
				if err != nil {
					return nil, err
				}
				out.Values[i] = v
			}
			return out, nil
		}, nil
	case isNested(from.Type) || isNested(to.Type):
		return nil, fmt.Errorf("%w: Cannot cast from type %s to type %s", ErrCast, from.Type, to.Type)
	}
	return evolveCast(from.Type, to.Type)
}

// castRow is SchemaEvolutionUtil.createRowCastExecutor: the table's fields
// taken from the file's by id (createIndexMapping), each converted
// (createCastFieldGetterMapping).
func castRow(from, to *schema.Node) (caster, error) {
	src := make([]int, len(to.IDs))
	casts := make([]caster, len(to.IDs))
	for i, id := range to.IDs {
		src[i] = slices.Index(from.IDs, id)
		if src[i] < 0 {
			continue
		}
		c, err := castNested(from.Kids[src[i]], to.Kids[i])
		if err != nil {
			return nil, err
		}
		casts[i] = c
	}
	return func(x any) (any, error) {
		in := x.([]any)
		out := make([]any, len(src))
		for i, j := range src {
			if j < 0 || j >= len(in) || in[j] == nil {
				continue
			}
			v, err := casts[i](in[j])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}, nil
}
