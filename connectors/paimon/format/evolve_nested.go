package format

import (
	"fmt"
	"slices"

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

// idType is a type with the ids of its ROW fields at every depth, as
// Paimon's DataField tree holds them.
type idType struct {
	t    sql.DataType
	ids  []int     // ROW: one id per field
	kids []*idType // ROW: one per field; ARRAY: the element; MAP: key, value
}

// withIDs pairs t with ids, the ids of its nested ROW fields in pre-order
// (schema.Field.NestedIDs). It reports false when ids does not cover t.
func withIDs(t sql.DataType, ids []int) (*idType, bool) {
	n, rest, ok := pairIDs(t, ids)
	return n, ok && len(rest) == 0
}

func pairIDs(t sql.DataType, ids []int) (*idType, []int, bool) {
	n := &idType{t: t}
	switch t.Root {
	case sql.TypeRow:
		for _, f := range t.Fields {
			if len(ids) == 0 {
				return nil, nil, false
			}
			n.ids = append(n.ids, ids[0])
			k, rest, ok := pairIDs(f.Type, ids[1:])
			if !ok {
				return nil, nil, false
			}
			n.kids, ids = append(n.kids, k), rest
		}
	case sql.TypeArray:
		k, rest, ok := pairIDs(*t.Elem, ids)
		if !ok {
			return nil, nil, false
		}
		n.kids, ids = []*idType{k}, rest
	case sql.TypeMap:
		k, rest, ok := pairIDs(*t.Elem, ids)
		if !ok {
			return nil, nil, false
		}
		v, rest, ok := pairIDs(*t.Value, rest)
		if !ok {
			return nil, nil, false
		}
		n.kids, ids = []*idType{k, v}, rest
	}
	return n, ids, true
}

// sameIgnoringNullable is DataType.equalsIgnoreNullable with ids: the
// types equal but for the outer nullability, and every ROW field's id the
// same (DataField.equals compares ids).
func (n *idType) sameIgnoringNullable(o *idType) bool {
	return n.t.WithNullable(true).Equal(o.t.WithNullable(true)) && n.sameIDs(o)
}

func (n *idType) sameIDs(o *idType) bool {
	if !slices.Equal(n.ids, o.ids) || len(n.kids) != len(o.kids) {
		return false
	}
	for i := range n.kids {
		if !n.kids[i].sameIDs(o.kids[i]) {
			return false
		}
	}
	return true
}

// nestedEvolution returns the conversion of a nested column's values from
// the file's type (with its ROW field ids) to the table's, nil when none is
// needed. Without ids for every nested field on both sides (a hand-made
// schema), only equal types are accepted.
func nestedEvolution(from sql.DataType, fromIDs []int, to sql.DataType, toIDs []int) (caster, error) {
	f, okf := withIDs(from, fromIDs)
	t, okt := withIDs(to, toIDs)
	if !okf || !okt {
		if from.WithNullable(true).Equal(to.WithNullable(true)) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: nested type %s to %s without field ids", ErrCast, from, to)
	}
	if f.sameIgnoringNullable(t) {
		return nil, nil
	}
	return castNested(f, t)
}

// castNested is SchemaEvolutionUtil.createCastExecutor for one pair.
func castNested(from, to *idType) (caster, error) {
	if from.sameIgnoringNullable(to) {
		return func(x any) (any, error) { return x, nil }, nil
	}
	switch {
	case from.t.Root == sql.TypeRow && to.t.Root == sql.TypeRow:
		return castRow(from, to)
	case from.t.Root == sql.TypeArray && to.t.Root == sql.TypeArray:
		elem, err := castNested(from.kids[0], to.kids[0])
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
	case from.t.Root == sql.TypeMap && to.t.Root == sql.TypeMap:
		if !from.kids[0].t.Equal(to.kids[0].t) || !from.kids[0].sameIDs(to.kids[0]) {
			return nil, fmt.Errorf("%w: Cannot cast map type %s to map type %s, because they have different key types.", ErrCast, from.t, to.t)
		}
		val, err := castNested(from.kids[1], to.kids[1])
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
	case isNested(from.t) || isNested(to.t):
		return nil, fmt.Errorf("%w: Cannot cast from type %s to type %s", ErrCast, from.t, to.t)
	}
	return evolveCast(from.t, to.t)
}

// castRow is SchemaEvolutionUtil.createRowCastExecutor: the table's fields
// taken from the file's by id (createIndexMapping), each converted
// (createCastFieldGetterMapping).
func castRow(from, to *idType) (caster, error) {
	src := make([]int, len(to.ids))
	casts := make([]caster, len(to.ids))
	for i, id := range to.ids {
		src[i] = slices.Index(from.ids, id)
		if src[i] < 0 {
			continue
		}
		c, err := castNested(from.kids[src[i]], to.kids[i])
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
