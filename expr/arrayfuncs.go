package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// The array functions of Flink's BuiltInFunctionDefinitions (ARRAY_APPEND
// ... ARRAY_EXCEPT), typed by their input and output type strategies and
// evaluated as their runtime classes in
// org.apache.flink.table.runtime.functions.scalar (ArrayContainsFunction
// ...). Elements are equal as Flink's "=" finds them (valuesEqual).
func arrayFuncs() []*Func {
	return []*Func{
		{Name: "ARRAY_APPEND", Infer: inferArrayElementFunc, Eval: evalArrayAppend, AsWritten: true},
		{Name: "ARRAY_PREPEND", Infer: inferArrayElementFunc, Eval: evalArrayAppend, AsWritten: true},
		{Name: "ARRAY_CONTAINS", Infer: inferArrayElementFunc, Eval: evalArrayContains, AsWritten: true},
		{Name: "ARRAY_POSITION", Infer: inferArrayElementFunc, Eval: evalArrayPosition, AsWritten: true},
		{Name: "ARRAY_REMOVE", Infer: inferArrayElementFunc, Eval: evalArrayRemove, AsWritten: true},
		{Name: "ARRAY_DISTINCT", Infer: inferArrayUnary, Eval: evalArrayDistinct, AsWritten: true},
		{Name: "ARRAY_REVERSE", Infer: inferArrayUnary, Eval: evalArrayReverse, AsWritten: true},
		{Name: "ARRAY_UNION", Infer: inferArrayCommon, Eval: evalArraySetOp, AsWritten: true},
		{Name: "ARRAY_EXCEPT", Infer: inferArrayCommon, Eval: evalArraySetOp, AsWritten: true},
		{Name: "ARRAY_CONCAT", Infer: inferArrayCommon, Eval: evalArrayConcat, AsWritten: true},
		{Name: "ARRAY_MAX", Infer: inferArrayMinMax, Eval: evalArrayMinMax, AsWritten: true},
		{Name: "ARRAY_MIN", Infer: inferArrayMinMax, Eval: evalArrayMinMax, AsWritten: true},
		{Name: "ARRAY_JOIN", Infer: inferArrayJoin, Eval: evalArrayJoin, AsWritten: true},
		{Name: "ARRAY_SLICE", Infer: inferArraySlice, Eval: evalArraySlice, AsWritten: true},
		{Name: "SPLIT", Infer: inferSplit, Eval: evalSplit, AsWritten: true},
	}
}

// inferSplit types SPLIT(string, delimiter) as BuiltInFunctionDefinitions
// does: two character strings, ARRAY<STRING> nullable if an argument is.
func inferSplit(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 2 {
		return nil, sql.DataType{}, noMatch(name, args)
	}
	for _, a := range args {
		if !a.Type().IsString() && a.Type().Root != sql.TypeNull {
			return nil, sql.DataType{}, invalidCall(name, args, "SPLIT(<CHARACTER_STRING>, <CHARACTER_STRING>)")
		}
	}
	return args, sql.ArrayOf(sql.String()).WithNullable(anyNullable(args)), nil
}

// evalSplit is SplitFunction: NULL when an argument is; an empty delimiter
// splits into code points; otherwise BinaryStringDataUtil
// .splitByWholeSeparatorPreserveAllTokens, which keeps the empty strings
// between, before and after delimiters and gives no element for an empty
// string.
func evalSplit(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		s, delim := vs[0].(string), vs[1].(string)
		var parts []string
		switch {
		case delim == "":
			for _, r := range s {
				parts = append(parts, string(r))
			}
		case s != "":
			parts = strings.Split(s, delim)
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	}), nil
}

// invalidCall is Flink's failure of a call its input type strategy
// rejects (TypeInferenceUtil): "Invalid function call" naming the
// arguments' types, caused by the expected signatures.
func invalidCall(name string, args []Expr, signatures string) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.Type().String()
	}
	return &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("SQL validation failed. Invalid function call:\n%s(%s)", name, strings.Join(ts, ", ")),
		Err: sql.Errorf(sql.ValidationException, "Invalid input arguments. Expected signatures are:\n%s", signatures)}
}

// noMatch is Calcite's failure of a call with a number of arguments the
// function's operand count range rejects.
func noMatch(name string, args []Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		t := a.Type()
		switch t.Root {
		case sql.TypeArray:
			ts[i] = "<" + CalciteTypeName(*t.Elem) + " ARRAY>"
		case sql.TypeNull:
			ts[i] = "<NULL>"
		default:
			ts[i] = "<" + CalciteTypeName(t) + ">"
		}
	}
	return &OperandError{WholeCall: true, Msg: fmt.Sprintf("No match found for function signature %s(%s)", name, strings.Join(ts, ", "))}
}

// elementSignatures are the signatures of the (array, element) functions,
// as their ArrayElementArgumentTypeStrategy names the arguments.
var elementSignatures = map[string]string{
	"ARRAY_APPEND":   "ARRAY_APPEND(array <ARRAY>, element <ARRAY ELEMENT>)",
	"ARRAY_PREPEND":  "ARRAY_PREPEND(array <ARRAY>, element <ARRAY ELEMENT>)",
	"ARRAY_CONTAINS": "ARRAY_CONTAINS(haystack <ARRAY>, needle <ARRAY ELEMENT>)",
	"ARRAY_POSITION": "ARRAY_POSITION(haystack <ARRAY>, needle <ARRAY ELEMENT>)",
	"ARRAY_REMOVE":   "ARRAY_REMOVE(haystack <ARRAY>, needle <ARRAY ELEMENT>)",
}

// inferArrayElementFunc types a call of an ARRAY and an element of it
// (ArrayElementArgumentTypeStrategy: the element must cast implicitly to
// the array's element type). ARRAY_CONTAINS is a BOOLEAN nullable as the
// array is; ARRAY_POSITION an INT nullable as either argument is;
// ARRAY_REMOVE the array's type, nullable; ARRAY_APPEND and ARRAY_PREPEND
// an array whose elements are nullable if the added one is
// (SpecificTypeStrategies.ARRAY_APPEND_PREPEND).
func inferArrayElementFunc(name string, args []Expr) ([]Expr, sql.DataType, error) {
	key := strings.ToUpper(name)
	if len(args) != 2 {
		return nil, sql.DataType{}, noMatch(key, args)
	}
	at, et := args[0].Type(), args[1].Type()
	if at.Root != sql.TypeArray {
		return nil, sql.DataType{}, invalidCall(key, args, elementSignatures[key])
	}
	if ct, ok := CommonType(*at.Elem, et); !ok || (et.Root != sql.TypeNull && !sameShape(ct.WithNullable(false), at.Elem.WithNullable(false)) && !implicitlyCasts(et, *at.Elem)) {
		return nil, sql.DataType{}, invalidCall(key, args, elementSignatures[key])
	}
	switch key {
	case "ARRAY_CONTAINS":
		return args, sql.Boolean().WithNullable(at.Nullable), nil
	case "ARRAY_POSITION":
		return args, sql.Int().WithNullable(at.Nullable || et.Nullable), nil
	case "ARRAY_REMOVE":
		return args, at.WithNullable(true), nil
	}
	elem := at.Elem.WithNullable(at.Elem.Nullable || et.Nullable)
	return args, sql.ArrayOf(elem).WithNullable(at.Nullable), nil
}

// implicitlyCasts reports whether a value of type from fits an element of
// type to as LogicalTypeCasts.supportsImplicitCast allows: a number to a
// wider number, a string to a string, or the same type.
func implicitlyCasts(from, to sql.DataType) bool {
	switch {
	case from.IsNumeric() && to.IsNumeric():
		ct, ok := CommonType(from, to)
		return ok && sameShape(ct.WithNullable(false), to.WithNullable(false))
	case from.IsString() && to.IsString(), from.IsBinary() && to.IsBinary():
		return true
	}
	return sameShape(from.WithNullable(false), to.WithNullable(false))
}

// elementConverter converts values of type from to an element of type to
// (a NULL stays NULL).
func elementConverter(from, to sql.DataType) func(any) (any, error) {
	if from.Root == sql.TypeNull || sameShape(from.WithNullable(false), to.WithNullable(false)) || from.IsString() && to.IsString() || from.IsBinary() && to.IsBinary() {
		return func(v any) (any, error) { return v, nil }
	}
	return func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		return castValue(v, from, to)
	}
}

// evalArrayAppend: NULL for a NULL array, else the array with the element
// added at its end (ARRAY_APPEND) or start (ARRAY_PREPEND), as
// ArrayAppendFunction and ArrayPrependFunction.
func evalArrayAppend(c *Call, args []Eval) (Eval, error) {
	conv := elementConverter(c.Args[1].Type(), *c.T.Elem)
	prepend := c.Op == "ARRAY_PREPEND"
	return func(row []any) (any, error) {
		a, err := args[0](row)
		if err != nil || a == nil {
			return nil, err
		}
		e, err := args[1](row)
		if err != nil {
			return nil, err
		}
		if e, err = conv(e); err != nil {
			return nil, err
		}
		src := a.([]any)
		out := make([]any, 0, len(src)+1)
		if prepend {
			out = append(out, e)
		}
		out = append(out, src...)
		if !prepend {
			out = append(out, e)
		}
		return out, nil
	}, nil
}

// needleArgs evaluates an (array, element) call's arguments, the element
// converted to the array's element type.
func needleArgs(c *Call, args []Eval, row []any) ([]any, any, error) {
	a, err := args[0](row)
	if err != nil || a == nil {
		return nil, nil, err
	}
	n, err := args[1](row)
	if err != nil {
		return nil, nil, err
	}
	n, err = elementConverter(c.Args[1].Type(), *c.Args[0].Type().Elem)(n)
	return a.([]any), n, err
}

// evalArrayContains is ArrayContainsFunction: NULL for a NULL array, else
// whether an element equals the needle (a NULL needle finds a NULL
// element).
func evalArrayContains(c *Call, args []Eval) (Eval, error) {
	et := *c.Args[0].Type().Elem
	return func(row []any) (any, error) {
		a, n, err := needleArgs(c, args, row)
		if err != nil || a == nil {
			return nil, err
		}
		i, err := indexOf(a, n, et)
		return i >= 0, err
	}, nil
}

// evalArrayPosition is ArrayPositionFunction: NULL when the array or the
// needle is, else the 1-based position of the first element equal to the
// needle, 0 when none is.
func evalArrayPosition(c *Call, args []Eval) (Eval, error) {
	et := *c.Args[0].Type().Elem
	return func(row []any) (any, error) {
		a, n, err := needleArgs(c, args, row)
		if err != nil || a == nil || n == nil {
			return nil, err
		}
		i, err := indexOf(a, n, et)
		return int32(i + 1), err
	}, nil
}

// evalArrayRemove is ArrayRemoveFunction: NULL for a NULL array, else the
// array without the elements equal to the needle (the NULLs for a NULL
// needle).
func evalArrayRemove(c *Call, args []Eval) (Eval, error) {
	et := *c.Args[0].Type().Elem
	return func(row []any) (any, error) {
		a, n, err := needleArgs(c, args, row)
		if err != nil || a == nil {
			return nil, err
		}
		out := []any{}
		for _, e := range a {
			eq, err := elementsEqual(e, n, et)
			if err != nil {
				return nil, err
			}
			if !eq {
				out = append(out, e)
			}
		}
		return out, nil
	}, nil
}

// indexOf is the index of the first element of a equal to n, -1 if none.
func indexOf(a []any, n any, et sql.DataType) (int, error) {
	for i, e := range a {
		eq, err := elementsEqual(e, n, et)
		if err != nil || eq {
			return i, err
		}
	}
	return -1, nil
}

// elementsEqual compares two elements as the array functions do: two
// NULLs are equal, a NULL and a value are not, two values are equal as
// "=" finds them.
func elementsEqual(a, b any, t sql.DataType) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	return valuesEqual(a, b, t)
}

// valuesEqual is "=" of two non-NULL values of type t: ARRAYs and MAPs as
// collectionEqual compares them, ROWs field by field (a NULL field facing
// a NULL is refused, as an array's NULL element is).
func valuesEqual(a, b any, t sql.DataType) (bool, error) {
	if t.Root != sql.TypeRow {
		return collectionEqual(a, b, t)
	}
	x, _ := a.([]any)
	y, _ := b.([]any)
	if len(x) != len(y) || len(x) != len(t.Fields) {
		return false, nil
	}
	for i, f := range t.Fields {
		switch {
		case x[i] == nil && y[i] == nil:
			return false, sql.Errorf(sql.TableException, "sqlrun does not support comparing ROWs with a NULL field on both sides yet")
		case x[i] == nil || y[i] == nil:
			return false, nil
		}
		eq, err := valuesEqual(x[i], y[i], f.Type)
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// inferArrayUnary types ARRAY_DISTINCT and ARRAY_REVERSE: an ARRAY, and
// its type back (nullable for ARRAY_DISTINCT, as its type strategy
// forces).
func inferArrayUnary(name string, args []Expr) ([]Expr, sql.DataType, error) {
	key := strings.ToUpper(name)
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch(key, args)
	}
	t := args[0].Type()
	if t.Root != sql.TypeArray {
		return nil, sql.DataType{}, invalidCall(key, args, key+"(<ARRAY>)")
	}
	if key == "ARRAY_DISTINCT" {
		return args, t.WithNullable(true), nil
	}
	return args, t, nil
}

// distinctAppend appends the elements of src not equal to one of out.
func distinctAppend(out, src []any, et sql.DataType) ([]any, error) {
	for _, e := range src {
		i, err := indexOf(out, e, et)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			out = append(out, e)
		}
	}
	return out, nil
}

// evalArrayDistinct is ArrayDistinctFunction: the first of each group of
// equal elements, in order (one NULL for any number).
func evalArrayDistinct(c *Call, args []Eval) (Eval, error) {
	et := *c.T.Elem
	return strict(args, func(vs []any) (any, error) {
		return distinctAppend([]any{}, vs[0].([]any), et)
	}), nil
}

// evalArrayReverse is ArrayReverseFunction.
func evalArrayReverse(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		out := slices.Clone(vs[0].([]any))
		slices.Reverse(out)
		return out, nil
	}), nil
}

// inferArrayCommon types ARRAY_UNION, ARRAY_EXCEPT (two arrays) and
// ARRAY_CONCAT (one or more): arrays of a common type (the <COMMON>
// strategy), which is the result's, nullable if an argument is.
func inferArrayCommon(name string, args []Expr) ([]Expr, sql.DataType, error) {
	key := strings.ToUpper(name)
	sig := key + "(<COMMON>, <COMMON>)"
	if key == "ARRAY_CONCAT" {
		sig = key + "(<COMMON>, <COMMON>...)"
		if len(args) == 0 {
			return nil, sql.DataType{}, noMatch(key, args)
		}
	} else if len(args) != 2 {
		return nil, sql.DataType{}, noMatch(key, args)
	}
	t := args[0].Type()
	for _, a := range args {
		if a.Type().Root != sql.TypeArray {
			return nil, sql.DataType{}, invalidCall(key, args, sig)
		}
		ct, ok := CommonType(t, a.Type())
		if !ok {
			return nil, sql.DataType{}, invalidCall(key, args, sig)
		}
		t = ct
	}
	if key == "ARRAY_EXCEPT" {
		t = t.WithNullable(true)
	}
	return args, t, nil
}

// arrayArgs evaluates array arguments converted to the call's type; nil
// when one is NULL.
func arrayArgs(c *Call, args []Eval, row []any) ([][]any, error) {
	out := make([][]any, len(args))
	for i, a := range args {
		v, err := a(row)
		if err != nil || v == nil {
			return nil, err
		}
		conv := elementConverter(*c.Args[i].Type().Elem, *c.T.Elem)
		src := v.([]any)
		arr := make([]any, len(src))
		for j, e := range src {
			if arr[j], err = conv(e); err != nil {
				return nil, err
			}
		}
		out[i] = arr
	}
	return out, nil
}

// evalArraySetOp: ARRAY_UNION is ArrayUnionFunction (the distinct
// elements of both, in order); ARRAY_EXCEPT is ArrayExceptFunction (the
// elements of the first not in the second, each as often as it appears in
// the first beyond its count in the second). NULL when either is.
func evalArraySetOp(c *Call, args []Eval) (Eval, error) {
	et := *c.T.Elem
	except := c.Op == "ARRAY_EXCEPT"
	return func(row []any) (any, error) {
		as, err := arrayArgs(c, args, row)
		if err != nil || as == nil {
			return nil, err
		}
		if !except {
			out, err := distinctAppend([]any{}, as[0], et)
			if err != nil {
				return nil, err
			}
			return distinctAppend(out, as[1], et)
		}
		out := []any{}
		for _, e := range as[0] {
			i, err := indexOf(as[1], e, et)
			if err != nil {
				return nil, err
			}
			if j, err := indexOf(out, e, et); err != nil || i >= 0 || j >= 0 {
				if err != nil {
					return nil, err
				}
				continue
			}
			out = append(out, e)
		}
		return out, nil
	}, nil
}

// evalArrayConcat is ArrayConcatFunction: the arrays one after the other,
// NULL when one is.
func evalArrayConcat(c *Call, args []Eval) (Eval, error) {
	return func(row []any) (any, error) {
		as, err := arrayArgs(c, args, row)
		if err != nil || as == nil {
			return nil, err
		}
		return slices.Concat(as...), nil
	}, nil
}

// inferArrayMinMax types ARRAY_MAX and ARRAY_MIN: an ARRAY of an orderable
// scalar type (numbers, strings, binary strings and datetimes; not
// BOOLEAN, which the test suite's ARRAY<BOOLEAN> case refuses, nor
// ARRAY, MAP or ROW), the element type, nullable.
func inferArrayMinMax(name string, args []Expr) ([]Expr, sql.DataType, error) {
	key := strings.ToUpper(name)
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch(key, args)
	}
	t := args[0].Type()
	if t.Root != sql.TypeArray || nested(*t.Elem) || t.Elem.Root == sql.TypeBoolean || t.Elem.Root == sql.TypeNull {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = a.Type().String()
		}
		return nil, sql.DataType{}, sql.Errorf(sql.ValidationException, "SQL validation failed. Invalid function call:\n%s(%s)", key, strings.Join(ts, ", "))
	}
	return args, t.Elem.WithNullable(true), nil
}

// evalArrayMinMax is ArrayMaxFunction / ArrayMinFunction: the greatest
// (least) non-NULL element, NULL when there is none.
func evalArrayMinMax(c *Call, args []Eval) (Eval, error) {
	sign := 1
	if c.Op == "ARRAY_MIN" {
		sign = -1
	}
	return strict(args, func(vs []any) (any, error) {
		var best any
		for _, e := range vs[0].([]any) {
			if e == nil {
				continue
			}
			if best == nil {
				best = e
				continue
			}
			n, err := compareValues(e, best)
			if err != nil {
				return nil, err
			}
			if n*sign > 0 {
				best = e
			}
		}
		return best, nil
	}), nil
}

const arrayJoinSignatures = "ARRAY_JOIN(ARRAY<STRING>, <CHARACTER_STRING>)\nARRAY_JOIN(ARRAY<STRING>, <CHARACTER_STRING>, <CHARACTER_STRING>)"

// inferArrayJoin types ARRAY_JOIN(array, delimiter [, nullReplacement]):
// an ARRAY of character strings and character strings, a STRING nullable
// if an argument is.
func inferArrayJoin(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, sql.DataType{}, noMatch("ARRAY_JOIN", args)
	}
	t := args[0].Type()
	if t.Root != sql.TypeArray || !t.Elem.IsString() {
		return nil, sql.DataType{}, invalidCall("ARRAY_JOIN", args, arrayJoinSignatures)
	}
	for _, a := range args[1:] {
		if !a.Type().IsString() && a.Type().Root != sql.TypeNull {
			return nil, sql.DataType{}, invalidCall("ARRAY_JOIN", args, arrayJoinSignatures)
		}
	}
	return args, sql.String().WithNullable(anyNullable(args)), nil
}

// evalArrayJoin is ArrayJoinFunction: NULL when an argument is; the
// elements joined by the delimiter, a NULL element skipped or, with a
// replacement, replaced.
func evalArrayJoin(c *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		delim := vs[1].(string)
		var parts []string
		for _, e := range vs[0].([]any) {
			switch {
			case e != nil:
				parts = append(parts, e.(string))
			case len(vs) == 3:
				parts = append(parts, vs[2].(string))
			}
		}
		return strings.Join(parts, delim), nil
	}), nil
}

const arraySliceSignatures = "ARRAY_SLICE(<ARRAY>, <INTEGER>, <INTEGER>)\nARRAY_SLICE(<ARRAY>, <INTEGER>)"

// inferArraySlice types ARRAY_SLICE(array, start [, end]): integer bounds,
// the array's type, nullable if an argument is.
func inferArraySlice(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) < 2 || len(args) > 3 {
		if len(args) == 1 && args[0].Type().Root == sql.TypeNull {
			return nil, sql.DataType{}, &OperandError{Msg: "Illegal use of 'NULL'"}
		}
		m := noMatch("ARRAY_SLICE", args).(*OperandError)
		m.Msg += ".\nSupported signatures are:\n" + arraySliceSignatures
		return nil, sql.DataType{}, m
	}
	t := args[0].Type()
	if t.Root != sql.TypeArray {
		return nil, sql.DataType{}, invalidCall("ARRAY_SLICE", args, "ARRAY_SLICE(<ARRAY>, <INTEGER>, <INTEGER>)")
	}
	for _, a := range args[1:] {
		if r := a.Type().Root; r != sql.TypeInt && r != sql.TypeSmallInt && r != sql.TypeTinyInt && r != sql.TypeNull {
			return nil, sql.DataType{}, invalidCall("ARRAY_SLICE", args, "ARRAY_SLICE(<ARRAY>, <INTEGER>, <INTEGER>)")
		}
	}
	return args, t.WithNullable(anyNullable(args)), nil
}

// evalArraySlice is ArraySliceFunction: NULL when an argument is; 1-based
// bounds, both included, a negative one counted from the end, start
// raised to 1, end 0 read as 1 and lowered to the size; empty when end <
// start. Without an end, to the last element.
func evalArraySlice(_ *Call, args []Eval) (Eval, error) {
	return strict(args, func(vs []any) (any, error) {
		a := vs[0].([]any)
		n := int64(len(a))
		if n == 0 {
			return a, nil
		}
		start, _ := ToInt(vs[1])
		end := n
		if len(vs) == 3 {
			end, _ = ToInt(vs[2])
		}
		if start < 0 {
			start += n + 1
		}
		if end < 0 {
			end += n + 1
		}
		start = max(1, start)
		if end == 0 {
			end = 1
		} else {
			end = min(end, n)
		}
		if end < start {
			return []any{}, nil
		}
		return slices.Clone(a[start-1 : end]), nil
	}), nil
}
