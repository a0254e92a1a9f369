package expr

import (
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// The map functions of Flink's BuiltInFunctionDefinitions, evaluated as
// their runtime classes: MAP_KEYS, MAP_VALUES and MAP_ENTRIES read a map's
// key and value arrays in the map's order (MapKeysFunction,
// MapValuesFunction, MapEntriesFunction); MAP_FROM_ARRAYS pairs two arrays
// (MapFromArraysFunction); MAP_UNION merges maps (MapUnionFunction).
func mapFuncs() []*Func {
	return []*Func{
		{Name: "MAP_KEYS", Infer: inferMapUnary, Eval: evalMapUnary, AsWritten: true},
		{Name: "MAP_VALUES", Infer: inferMapUnary, Eval: evalMapUnary, AsWritten: true},
		{Name: "MAP_ENTRIES", Infer: inferMapUnary, Eval: evalMapUnary, AsWritten: true},
		{Name: "MAP_FROM_ARRAYS", Infer: inferMapFromArrays, Eval: evalMapFromArrays, AsWritten: true},
		{Name: "MAP_UNION", Infer: inferMapUnion, Eval: evalMapUnion, AsWritten: true},
	}
}

// inferMapUnion types MAP_UNION(map, ...) as BuiltInFunctionDefinitions
// does (Flink 1.20, FLINK-32261): one or more maps of a common type (the
// commonMapType(1) strategy), which is the result's, nullable if an
// argument is (COMMON).
func inferMapUnion(name string, args []Expr) ([]Expr, sql.DataType, error) {
	const sig = "MAP_UNION(<COMMON>, <COMMON>...)"
	if len(args) == 0 {
		return nil, sql.DataType{}, noMatch("MAP_UNION", args)
	}
	t := args[0].Type()
	for _, a := range args {
		if a.Type().Root != sql.TypeMap {
			return nil, sql.DataType{}, invalidCall("MAP_UNION", args, sig)
		}
		ct, ok := CommonType(t, a.Type())
		if !ok {
			return nil, sql.DataType{}, invalidCall("MAP_UNION", args, sig)
		}
		t = ct
	}
	return args, t, nil
}

// evalMapUnion is MapUnionFunction: NULL if a map is; otherwise, map by
// map from the left, the later map's entries in its order followed by
// the earlier result's entries whose key the later map lacks (keys equal
// as "=" finds them; a NULL key is replaced by a later NULL key).
func evalMapUnion(c *Call, args []Eval) (Eval, error) {
	kt, vt := *c.T.Elem, *c.T.Value
	return func(row []any) (any, error) {
		var acc *sql.Map
		for i, a := range args {
			v, err := a(row)
			if err != nil || v == nil {
				return nil, err
			}
			m, err := convertMap(v.(*sql.Map), c.Args[i].Type(), kt, vt)
			if err != nil {
				return nil, err
			}
			if acc == nil {
				acc = m
				continue
			}
			if len(m.Keys) == 0 {
				continue
			}
			out := &sql.Map{Keys: append([]any{}, m.Keys...), Values: append([]any{}, m.Values...)}
			for j, k := range acc.Keys {
				dup, err := indexOf(m.Keys, k, kt)
				if err != nil {
					return nil, err
				}
				if dup < 0 {
					out.Keys, out.Values = append(out.Keys, k), append(out.Values, acc.Values[j])
				}
			}
			acc = out
		}
		return acc, nil
	}, nil
}

// convertMap converts a map's keys and values from its type t to kt, vt.
func convertMap(m *sql.Map, t, kt, vt sql.DataType) (*sql.Map, error) {
	kc, vc := elementConverter(*t.Elem, kt), elementConverter(*t.Value, vt)
	out := &sql.Map{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
	for i := range m.Keys {
		var err error
		if out.Keys[i], err = kc(m.Keys[i]); err != nil {
			return nil, err
		}
		if out.Values[i], err = vc(m.Values[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inferMapUnary types MAP_KEYS (ARRAY<K>), MAP_VALUES (ARRAY<V>) and
// MAP_ENTRIES (ARRAY<ROW<key K, value V>>) of a MAP<K, V>, nullable as the
// map is (SpecificTypeStrategies.MAP_KEYS, MAP_VALUES, MAP_ENTRIES).
func inferMapUnary(name string, args []Expr) ([]Expr, sql.DataType, error) {
	key := strings.ToUpper(name)
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch(key, args)
	}
	t := args[0].Type()
	if t.Root != sql.TypeMap {
		return nil, sql.DataType{}, invalidCall(key, args, key+"(<MAP>)")
	}
	var elem sql.DataType
	switch key {
	case "MAP_KEYS":
		elem = *t.Elem
	case "MAP_VALUES":
		elem = *t.Value
	default:
		elem = sql.RowOf(sql.Field{Name: "key", Type: *t.Elem}, sql.Field{Name: "value", Type: *t.Value}).NotNull()
	}
	return args, sql.ArrayOf(elem).WithNullable(t.Nullable), nil
}

func evalMapUnary(c *Call, args []Eval) (Eval, error) {
	op := c.Op
	return strict(args, func(vs []any) (any, error) {
		m := vs[0].(*sql.Map)
		switch op {
		case "MAP_KEYS":
			return append([]any{}, m.Keys...), nil
		case "MAP_VALUES":
			return append([]any{}, m.Values...), nil
		}
		out := make([]any, len(m.Keys))
		for i, k := range m.Keys {
			out[i] = []any{k, m.Values[i]}
		}
		return out, nil
	}), nil
}

// inferMapFromArrays types MAP_FROM_ARRAYS(ARRAY<K>, ARRAY<V>): a
// MAP<K, V>, nullable if either array is.
func inferMapFromArrays(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 2 {
		return nil, sql.DataType{}, noMatch("MAP_FROM_ARRAYS", args)
	}
	k, v := args[0].Type(), args[1].Type()
	if k.Root != sql.TypeArray || v.Root != sql.TypeArray {
		return nil, sql.DataType{}, invalidCall("MAP_FROM_ARRAYS", args, "MAP_FROM_ARRAYS(<ARRAY>, <ARRAY>)")
	}
	return args, sql.MapOf(*k.Elem, *v.Elem).WithNullable(k.Nullable || v.Nullable), nil
}

// evalMapFromArrays: NULL when either array is; arrays of different
// lengths fail with Flink's message. Flink's map keeps the arrays as they
// are, a key repeated included; sqlrun refuses a repeated key.
func evalMapFromArrays(c *Call, args []Eval) (Eval, error) {
	kt := *c.T.Elem
	return strict(args, func(vs []any) (any, error) {
		ks, vals := vs[0].([]any), vs[1].([]any)
		if len(ks) != len(vals) {
			return nil, sql.Errorf(sql.FlinkRuntimeException, "Invalid function MAP_FROM_ARRAYS call:\nThe length of the keys array %d is not equal to the length of the values array %d", len(ks), len(vals))
		}
		for i, k := range ks {
			for _, prev := range ks[:i] {
				if sameKey(prev, k, kt) {
					return nil, sql.Errorf(sql.TableException, "sqlrun does not support a key repeated in MAP_FROM_ARRAYS yet: %s", sql.FormatValue(k, kt))
				}
			}
		}
		return &sql.Map{Keys: append([]any{}, ks...), Values: append([]any{}, vals...)}, nil
	}), nil
}
