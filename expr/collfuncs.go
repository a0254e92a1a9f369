package expr

import (
	"fmt"
	"math"
	"slices"

	"github.com/sqlrun/sqlrun/sql"
)

// The collection functions: Calcite's CARDINALITY (INTEGER_NULLABLE over an
// ARRAY or a MAP) and ELEMENT (the element type, nullable), evaluated as
// Flink's ScalarOperatorGens.generateArrayCardinality / generateMapCardinality
// and generateArrayElement.
func collectionFuncs() []*Func {
	return []*Func{
		{Name: "CARDINALITY", Infer: inferCardinality, Eval: evalCardinality},
		{Name: "ELEMENT", Infer: inferElement, Eval: evalElement},
		// x[i]: syntax, not a function a query calls by name; the binder
		// types it with InferItem.
		{Name: "ITEM", Kind: Operator, Form: Prefix, Eval: evalItem},
	}
}

func inferCardinality(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	// A MULTISET (COLLECT's) is planned only: no value of it is evaluated.
	if r := args[0].Type().Root; r != sql.TypeArray && r != sql.TypeMap && r != sql.TypeMultiset {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<MULTISET>)'\n'%s(<ARRAY>)'\n'%s(<MAP>)'",
			name, name, CalciteTypeName(args[0].Type()), name, name, name)}
	}
	return args, sql.Int().WithNullable(anyNullable(args)), nil
}

func evalCardinality(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		switch x := vs[0].(type) {
		case []any:
			return int32(len(x)), nil
		case *sql.Map:
			return int32(len(x.Keys)), nil
		}
		return nil, fmt.Errorf("CARDINALITY of %T", vs[0])
	}), nil
}

func inferElement(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	t := args[0].Type()
	if t.Root != sql.TypeArray {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>)'. Supported form(s): '%s(<MULTISET>)'\n'%s(<ARRAY>)'",
			name, name, CalciteTypeName(t), name, name)}
	}
	return args, t.Elem.WithNullable(true), nil
}

// evalElement: NULL for an empty array, its element for one of one, and a
// failure for more ("Array has more than one element.").
func evalElement(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		a, _ := vs[0].([]any)
		switch len(a) {
		case 0:
			return nil, nil
		case 1:
			return a[0], nil
		}
		return nil, sql.Errorf(sql.TableException, "Array has more than one element.")
	}), nil
}

// itemSignatures is what Calcite's SqlItemOperator lists as its forms.
const itemSignatures = "<ARRAY>[<INTEGER>]\n<MAP>[<ANY>]\n<ROW>[<CHARACTER>|<INTEGER>]"

// InferItem types "x[i]", Calcite's ITEM operator (SqlItemOperator): an
// ARRAY indexed by an integer gives its element type and a MAP indexed by
// a key of its key type's family gives its value type, both nullable (an
// index out of range or a missing key is NULL). ITEM over a ROW is left to
// field access (x.f), which the binder reads.
func InferItem(args []Expr) ([]Expr, sql.DataType, error) {
	x, idx := args[0].Type(), args[1].Type()
	fail := func() ([]Expr, sql.DataType, error) {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply 'ITEM' to arguments of type 'ITEM(<%s>, <%s>)'. Supported form(s): %s",
			CalciteTypeName(x), CalciteTypeName(idx), itemSignatures)}
	}
	switch x.Root {
	case sql.TypeArray:
		if !idx.IsIntegral() && idx.Root != sql.TypeNull {
			return fail()
		}
		return args, x.Elem.WithNullable(true), nil
	case sql.TypeMap:
		if _, ok := CommonType((*x.Elem), idx); !ok || !sameFamily((*x.Elem), idx) {
			return fail()
		}
		return args, x.Value.WithNullable(true), nil
	}
	return fail()
}

// sameFamily reports two types of one Calcite type family, as the family
// checker of ITEM's map key compares them (a NULL fits any).
func sameFamily(a, b sql.DataType) bool {
	switch {
	case a.Root == sql.TypeNull || b.Root == sql.TypeNull:
		return true
	case a.IsNumeric() || b.IsNumeric():
		return a.IsNumeric() && b.IsNumeric()
	case a.IsString() || b.IsString():
		return a.IsString() && b.IsString()
	case a.IsBinary() || b.IsBinary():
		return a.IsBinary() && b.IsBinary()
	}
	return a.Root == b.Root
}

// evalItem follows ScalarOperatorGens.generateArrayElementAt (an index
// below 1 or past the end, or a NULL element, is NULL; a literal index
// below 1 fails when the job is compiled, with Flink's message) and
// generateMapGet (the value of the first key equal to the index, NULL when
// none is).
func evalItem(c *Call, args []Eval) (Eval, error) {
	xt, it := c.Args[0].Type(), c.Args[1].Type()
	if xt.Root == sql.TypeArray {
		if l, ok := c.Args[1].(*Literal); ok && l.Value != nil {
			if i, ok := ToInt(l.Value); ok && i < 1 {
				return nil, sql.Errorf(sql.ValidationException, "Array element access needs an index starting at 1 but was %d.", i)
			}
		}
		return strict(args, func(vs []any) (any, error) {
			a, _ := vs[0].([]any)
			i, _ := ToInt(vs[1])
			if i < 1 || i > int64(len(a)) {
				return nil, nil
			}
			return a[i-1], nil
		}), nil
	}
	ct, _ := CommonType((*xt.Elem), it)
	return strict(args, func(vs []any) (any, error) {
		m, _ := vs[0].(*sql.Map)
		if m == nil {
			return nil, nil
		}
		for i, k := range m.Keys {
			if k == nil {
				continue
			}
			n, err := compareAs(vs[1], it, k, (*xt.Elem), ct)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return m.Values[i], nil
			}
		}
		return nil, nil
	}), nil
}

// CollectionsComparable reports whether = and <> compare two values of
// types a and b as ARRAYs or MAPs (ScalarOperatorGens.generateEquals:
// generateArrayComparison, generateMapComparison): sqlrun compares two
// ARRAYs or two MAPs of the same type but for nullability, holding no ROW
// and keyed by no ARRAY or MAP.
func CollectionsComparable(a, b sql.DataType) bool {
	if a.Root != b.Root || (a.Root != sql.TypeArray && a.Root != sql.TypeMap) {
		return false
	}
	return sameShape(a, b) && equatable(a)
}

// sameShape reports two types equal but for their nullability, at every
// level.
func sameShape(a, b sql.DataType) bool {
	if a.Root != b.Root || a.Length != b.Length || a.Precision != b.Precision || a.Scale != b.Scale || len(a.Fields) != len(b.Fields) {
		return false
	}
	if (a.Elem == nil) != (b.Elem == nil) || (a.Value == nil) != (b.Value == nil) {
		return false
	}
	if a.Elem != nil && !sameShape(*a.Elem, *b.Elem) {
		return false
	}
	if a.Value != nil && !sameShape(*a.Value, *b.Value) {
		return false
	}
	for i, f := range a.Fields {
		if !sameShape(f.Type, b.Fields[i].Type) {
			return false
		}
	}
	return true
}

func equatable(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeRow:
		return false
	case sql.TypeArray:
		return equatable(*t.Elem)
	case sql.TypeMap:
		return !nested(*t.Elem) && equatable(*t.Value)
	}
	return true
}

// evalCollectionEquals is = (or <>) of two ARRAYs or two MAPs, NULL when
// either is. Flink's generateArrayComparison compares two BinaryArrayData
// by their bytes and any other two arrays element by element with =
// (generateEquals, where a NULL element makes the pair unequal): the two
// disagree only on a NULL element facing a NULL (and on NaN and signed
// zeros), whose result depends on how the arrays were built, so sqlrun
// refuses that case when it meets it. generateMapComparison: the same
// size, and every key of the left map in the right one with an equal
// (non-NULL) value.
func evalCollectionEquals(op string, t sql.DataType, args []Eval) Eval {
	return strict(args, func(vs []any) (any, error) {
		eq, err := collectionEqual(vs[0], vs[1], t)
		if err != nil {
			return nil, err
		}
		return eq == (op == "="), nil
	})
}

func collectionEqual(a, b any, t sql.DataType) (bool, error) {
	switch t.Root {
	case sql.TypeArray:
		x, _ := a.([]any)
		y, _ := b.([]any)
		if len(x) != len(y) {
			return false, nil
		}
		for i := range x {
			switch {
			case x[i] == nil && y[i] == nil:
				return false, sql.Errorf(sql.TableException, "sqlrun does not support comparing arrays with a NULL element on both sides yet: Flink's result depends on how the arrays were built")
			case x[i] == nil || y[i] == nil:
				return false, nil
			}
			eq, err := collectionEqual(x[i], y[i], *t.Elem)
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case sql.TypeMap:
		x, _ := a.(*sql.Map)
		y, _ := b.(*sql.Map)
		if x == nil || y == nil || len(x.Keys) != len(y.Keys) {
			return false, nil
		}
		for i, k := range x.Keys {
			j := slices.IndexFunc(y.Keys, func(k2 any) bool { return sameKey(k, k2, *t.Elem) })
			if j < 0 || x.Values[i] == nil || y.Values[j] == nil {
				return false, nil
			}
			eq, err := collectionEqual(x.Values[i], y.Values[j], *t.Value)
			if err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	}
	if f, ok := a.(float64); ok {
		if g, _ := b.(float64); math.IsNaN(f) || math.IsNaN(g) || f == g && math.Signbit(f) != math.Signbit(g) {
			return false, sql.Errorf(sql.TableException, "sqlrun does not support comparing arrays holding NaN or signed zeros yet: Flink's result depends on how the arrays were built")
		}
	}
	if f, ok := a.(float32); ok {
		if g, _ := b.(float32); f != f || g != g || f == g && math.Signbit(float64(f)) != math.Signbit(float64(g)) {
			return false, sql.Errorf(sql.TableException, "sqlrun does not support comparing arrays holding NaN or signed zeros yet: Flink's result depends on how the arrays were built")
		}
	}
	n, err := compareValues(a, b)
	return err == nil && n == 0, err
}
