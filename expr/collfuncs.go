package expr

import (
	"fmt"

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
	}
}

func inferCardinality(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, sql.DataType{}, err
	}
	if r := args[0].Type().Root; r != sql.TypeArray && r != sql.TypeMap {
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
