package expr

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/sql"
)

// The SQL/JSON functions of Flink 1.20 (FlinkSqlOperatorTable's IS JSON
// predicates, JSON_EXISTS, JSON_VALUE, JSON_QUERY, JSON_OBJECT and
// JSON_ARRAY, which Flink takes from Calcite and evaluates with
// SqlJsonUtils, a port of Calcite's JsonFunctions; JSON_STRING, a
// BuiltInFunctionDefinition with the runtime class JsonStringFunction).
// The parser writes their clauses as symbol arguments
// (sql/parser/json.go); Infer puts them in the operand order of Calcite's
// RexCall, which EXPLAIN prints:
//
//	JSON_EXISTS(s, path [, FLAG(TRUE|FALSE|UNKNOWN|ERROR)])
//	JSON_VALUE(s, path [, FLAG(NULL|ERROR|DEFAULT) [, default], FLAG(EMPTY|ERROR)]...)
//	JSON_QUERY(s, path, FLAG(wrapper), FLAG(on empty), FLAG(on error))
//	JSON_OBJECT(FLAG(NULL_ON_NULL|ABSENT_ON_NULL), k1, v1, ...)
//	JSON_ARRAY(FLAG(ABSENT_ON_NULL|NULL_ON_NULL), v1, ...)
//
// JSON text is read as Jackson's ObjectMapper reads it (the first value
// of the text; what follows it is ignored), kept in Go's encoding/json
// tokens with objects in their key order; JSON paths follow Jayway
// JsonPath, which Calcite's runtime evaluates them with (jsonPath below).
// JSON is written with Jackson's escapes and object keys sorted, as
// Flink's outputs show (JsonFunctionsITCase); numbers keep their text.
func jsonFuncs() []*Func {
	fs := []*Func{
		{Name: "JSON_EXISTS", Infer: inferJSONExists, Eval: evalJSONExists},
		{Name: "JSON_VALUE", Infer: inferJSONValue, Eval: evalJSONValue},
		{Name: "JSON_QUERY", Infer: inferJSONQuery, Eval: evalJSONQuery},
		{Name: "JSON_OBJECT", Infer: inferJSONObject, Eval: evalJSONConstructor},
		{Name: "JSON_ARRAY", Infer: inferJSONArray, Eval: evalJSONConstructor},
		{Name: "JSON_STRING", Infer: inferJSONString, Eval: evalJSONString, AsWritten: true},
		// The aggregates: the binder names each call by its ON NULL
		// clause (JSONAggName), as Flink's planner does.
		{Name: "JSON_OBJECTAGG", Kind: Aggregate, Infer: inferJSONObjectAgg},
		{Name: "JSON_ARRAYAGG", Kind: Aggregate, Infer: inferJSONArrayAgg},
	}
	// x IS [NOT] JSON kind: Calcite's postfix operators; the parser makes
	// the call, so they are not listed by SHOW FUNCTIONS.
	for _, not := range []string{"", "NOT "} {
		for _, kind := range []string{"VALUE", "SCALAR", "ARRAY", "OBJECT"} {
			fs = append(fs, &Func{Name: "IS " + not + "JSON " + kind, Form: Postfix, Internal: true,
				Infer: inferIsJSON, Eval: evalIsJSON})
		}
	}
	return fs
}

// jsonNode is a parsed JSON value: nil, bool, string, json.Number,
// []any, or *jsonObject.
type jsonObject struct {
	keys []string
	vals map[string]any
}

// parseJSON reads the first JSON value of s as Jackson's ObjectMapper
// does (text after it is not read).
func parseJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	v, err := readJSON(d)
	if err == io.EOF {
		return nil, fmt.Errorf("No content to map due to end-of-input")
	}
	return v, err
}

func readJSON(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case json.Delim:
		switch x {
		case '[':
			arr := []any{}
			for d.More() {
				v, err := readJSON(d)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		case '{':
			o := &jsonObject{vals: map[string]any{}}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := readJSON(d)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return o, nil
		}
		return nil, fmt.Errorf("unexpected %v", x)
	}
	return t, nil
}

// writeJSON writes v as Jackson does: strings with JSON's short escapes
// and \u00XX for other control characters, object keys sorted.
func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		b.WriteString(string(x))
	case rawJSON:
		b.WriteString(string(x))
	case string:
		sql.WriteJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case *jsonObject:
		keys := append([]string(nil), x.keys...)
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			sql.WriteJSONString(b, k)
			b.WriteByte(':')
			writeJSON(b, x.vals[k])
		}
		b.WriteByte('}')
	default:
		sql.WriteJSONString(b, fmt.Sprint(x))
	}
}

// jsonNullKey stands for a MAP's NULL key, which Flink's converter
// refuses (IllegalArgumentException); sqlToJSON's callers report it.
type jsonNullKey int

func (i jsonNullKey) Error() string {
	return fmt.Sprintf("Key at index %d was null. This is not supported during conversion to JSON.", int(i))
}

// jsonErr finds a jsonNullKey in a converted value.
func jsonErr(v any) error {
	switch x := v.(type) {
	case jsonNullKey:
		return sql.Errorf(sql.TableException, "%s", x.Error())
	case []any:
		for _, e := range x {
			if err := jsonErr(e); err != nil {
				return err
			}
		}
	case *jsonObject:
		for _, k := range x.keys {
			if err := jsonErr(x.vals[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawJSON is JSON text written as it is (a nested JSON_OBJECT's result).
type rawJSON string

func jsonText(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

// jsonIsScalar is Calcite's isScalarObject: neither array nor object.
func jsonIsScalar(v any) bool {
	switch v.(type) {
	case []any, *jsonObject:
		return false
	}
	return true
}

// jsonScalarString is a scalar's Java toString (JSON_VALUE's STRING
// result, and the text of Calcite's error messages).
func jsonScalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case []any, *jsonObject:
		return javaCollectionString(v)
	}
	return fmt.Sprint(v)
}

// javaCollectionString is Java's toString of Jackson's List and
// LinkedHashMap: [a, b], {k=v}.
func javaCollectionString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = javaCollectionString(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *jsonObject:
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = k + "=" + javaCollectionString(x.vals[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return jsonScalarString(v)
}

// JSON paths: Calcite's JsonFunctions.jsonApiCommonSyntax reads an
// optional mode (strict, the default, or lax) and hands the rest to Jayway
// JsonPath; lax suppresses Jayway's path exceptions.

var jsonPathMode = regexp.MustCompile(`(?is)^\s*(strict|lax)\s+(.+)$`)

type jpKind int

const (
	jpProp jpKind = iota
	jpIndex
	jpWildcard
	jpScan
)

type jpToken struct {
	kind jpKind
	name string
	idx  []int
}

func (t jpToken) definite() bool {
	return t.kind == jpProp || t.kind == jpIndex && len(t.idx) == 1
}

func (t jpToken) String() string {
	switch t.kind {
	case jpProp:
		return "['" + t.name + "']"
	case jpIndex:
		s := make([]string, len(t.idx))
		for i, n := range t.idx {
			s[i] = strconv.Itoa(n)
		}
		return "[" + strings.Join(s, ",") + "]"
	case jpWildcard:
		return "[*]"
	}
	return ".." + "['" + t.name + "']"
}

// parseJSONPath compiles a Jayway path: $ followed by .name, .*, ..name,
// ['name'], [n], [n,m] and [*].
func parseJSONPath(p string) ([]jpToken, error) {
	s := strings.TrimSpace(p)
	bad := func() ([]jpToken, error) { return nil, fmt.Errorf("Could not parse path: %s", p) }
	if !strings.HasPrefix(s, "$") {
		return bad()
	}
	var toks []jpToken
	i := 1
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], ".."):
			i += 2
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			if j == i {
				return bad()
			}
			toks = append(toks, jpToken{kind: jpScan, name: s[i:j]})
			i = j
		case s[i] == '.':
			i++
			if i < len(s) && s[i] == '[' {
				continue // $.['name'] reads as $['name']
			}
			if i < len(s) && s[i] == '*' {
				toks = append(toks, jpToken{kind: jpWildcard})
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				j++
			}
			name := strings.TrimSpace(s[i:j])
			if name == "" {
				return bad()
			}
			toks = append(toks, jpToken{kind: jpProp, name: name})
			i = j
		case s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return bad()
			}
			in := strings.TrimSpace(s[i+1 : i+end])
			if q := in; len(q) >= 2 && (q[0] == '\'' && q[len(q)-1] == '\'' || q[0] == '"' && q[len(q)-1] == '"') {
				// a quoted name may hold ']'
				close := strings.IndexByte(s[i+2:], q[0])
				if close < 0 {
					return bad()
				}
				name := s[i+2 : i+2+close]
				rest := strings.TrimSpace(s[i+3+close:])
				if !strings.HasPrefix(rest, "]") {
					return bad()
				}
				toks = append(toks, jpToken{kind: jpProp, name: name})
				i = len(s) - len(rest) + 1
				continue
			}
			if in == "*" {
				toks = append(toks, jpToken{kind: jpWildcard})
			} else {
				var idx []int
				for _, part := range strings.Split(in, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(part))
					if err != nil {
						return bad()
					}
					idx = append(idx, n)
				}
				toks = append(toks, jpToken{kind: jpIndex, idx: idx})
			}
			i += end + 1
		default:
			return bad()
		}
	}
	return toks, nil
}

// jsonInput is the JSON text of JSON_EXISTS/VALUE/QUERY's first operand
// (Calcite's operand type is ANY): a character string as it is, a number
// or boolean as Java's String.valueOf; ok is false for other types, whose
// value is no JSON text.
func jsonInput(v any, t sql.DataType) (string, bool) {
	switch {
	case t.IsString():
		s, ok := v.(string)
		return s, ok
	case t.Root == sql.TypeBoolean:
		b, _ := v.(bool)
		return strconv.FormatBool(b), true
	case t.IsNumeric():
		return castToString(v, t), true
	}
	return "", false
}

// jsonPathResult is Calcite's JsonPathContext: the value a path reads
// (nil for none), or the exception it raised.
type jsonPathResult struct {
	lax bool
	obj any
	err error
}

// jsonPathExec evaluates a path spec over a JSON text (Calcite's
// jsonApiCommonSyntax).
func jsonPathExec(input, spec string) jsonPathResult {
	lax, path := false, spec
	if m := jsonPathMode.FindStringSubmatch(spec); m != nil {
		lax, path = strings.EqualFold(m[1], "lax"), m[2]
	}
	doc, perr := parseJSON(input)
	if perr != nil {
		if lax {
			return jsonPathResult{lax: true}
		}
		return jsonPathResult{err: perr}
	}
	toks, err := parseJSONPath(path)
	if err != nil {
		return jsonPathResult{lax: lax, err: err}
	}
	var hits []any
	definite := true
	for _, t := range toks {
		definite = definite && t.definite()
	}
	ev := &jpEval{toks: toks, suppress: lax}
	err = ev.walk(0, "$", doc, true, &hits)
	if err == nil && definite && len(hits) == 0 {
		err = fmt.Errorf("No results for path: $%s", jpPathString(toks))
	}
	if err != nil {
		if lax {
			if definite {
				return jsonPathResult{lax: true}
			}
			return jsonPathResult{lax: true, obj: []any{}}
		}
		return jsonPathResult{err: err}
	}
	if definite {
		return jsonPathResult{lax: lax, obj: hits[0]}
	}
	if hits == nil {
		hits = []any{}
	}
	return jsonPathResult{lax: lax, obj: hits}
}

func jpPathString(toks []jpToken) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.String())
	}
	return b.String()
}

type jpEval struct {
	toks     []jpToken
	suppress bool
}

// walk applies token i to model, collecting the leaves' values (Jayway's
// PathToken.evaluate, with its rules for what is missing).
func (e *jpEval) walk(i int, at string, model any, upstreamDefinite bool, hits *[]any) error {
	if i == len(e.toks) {
		*hits = append(*hits, model)
		return nil
	}
	t := e.toks[i]
	leaf := i == len(e.toks)-1
	next := func(path string, v any) error {
		return e.walk(i+1, path, v, upstreamDefinite && t.definite(), hits)
	}
	switch t.kind {
	case jpProp:
		o, ok := model.(*jsonObject)
		if !ok {
			if !upstreamDefinite || e.suppress {
				return nil
			}
			return fmt.Errorf("Expected to find an object with property %s in path %s but found '%s'. This is not a json object according to the JsonProvider: 'com.jayway.jsonpath.spi.json.JacksonJsonProvider'.",
				t, at, jsonJavaClass(model))
		}
		path := at + t.String()
		v, ok := o.vals[t.name]
		if !ok {
			if leaf || !upstreamDefinite || e.suppress {
				return nil
			}
			return fmt.Errorf("Missing property in path %s", path)
		}
		return next(path, v)
	case jpIndex:
		arr, ok := model.([]any)
		if !ok {
			if !upstreamDefinite || e.suppress {
				return nil
			}
			if model == nil {
				return fmt.Errorf("The path %s is null", at)
			}
			return fmt.Errorf("Filter: %s can only be applied to arrays. Current context is: %s", t, javaCollectionString(model))
		}
		for _, n := range t.idx {
			k := n
			if k < 0 {
				k += len(arr)
			}
			if k < 0 || k >= len(arr) {
				continue
			}
			if err := next(at+"["+strconv.Itoa(n)+"]", arr[k]); err != nil {
				return err
			}
		}
	case jpWildcard:
		switch x := model.(type) {
		case []any:
			for k, v := range x {
				if err := next(at+"["+strconv.Itoa(k)+"]", v); err != nil {
					return err
				}
			}
		case *jsonObject:
			for _, k := range x.keys {
				if err := next(at+"['"+k+"']", x.vals[k]); err != nil {
					return err
				}
			}
		}
	case jpScan:
		var visit func(path string, v any) error
		visit = func(path string, v any) error {
			switch x := v.(type) {
			case *jsonObject:
				if pv, ok := x.vals[t.name]; ok {
					if err := next(path+"['"+t.name+"']", pv); err != nil {
						return err
					}
				}
				for _, k := range x.keys {
					if err := visit(path+"['"+k+"']", x.vals[k]); err != nil {
						return err
					}
				}
			case []any:
				for k, c := range x {
					if err := visit(path+"["+strconv.Itoa(k)+"]", c); err != nil {
						return err
					}
				}
			}
			return nil
		}
		return visit(at, model)
	}
	return nil
}

func jsonJavaClass(v any) string {
	switch v.(type) {
	case []any:
		return "java.util.ArrayList"
	case string:
		return "java.lang.String"
	case bool:
		return "java.lang.Boolean"
	case json.Number:
		return "java.lang.Integer"
	case nil:
		return "null"
	}
	return "java.util.LinkedHashMap"
}

// Typing.

func flagOf(e Expr) (string, bool) {
	l, ok := e.(*Literal)
	if !ok || !l.Flag {
		return "", false
	}
	s, ok := l.Value.(string)
	return s, ok
}

func flag(s string) *Literal {
	return &Literal{Value: s, T: sql.Char(len(s)).NotNull(), Flag: true}
}

// jsonCommon checks JSON_EXISTS/VALUE/QUERY's (s, path, ...) operands.
func jsonCommon(name string, args []Expr) error {
	if len(args) < 2 {
		return noMatch(name, args)
	}
	for i := 0; i < 2; i++ {
		if _, ok := flagOf(args[i]); ok {
			return noMatch(name, args)
		}
	}
	if t := args[1].Type(); !t.IsString() && t.Root != sql.TypeNull {
		return &OperandError{WholeCall: true, Msg: fmt.Sprintf("Cannot apply '%s' to arguments of type '%s(<%s>, <%s>)'. Supported form(s): '%s'",
			name, name, CalciteTypeName(args[0].Type()), CalciteTypeName(args[1].Type()), jsonSignature(name))}
	}
	return nil
}

func jsonSignature(name string) string {
	switch name {
	case "JSON_VALUE":
		return "JSON_VALUE(json_doc, path [RETURNING type] [{NULL | ERROR | DEFAULT value} ON EMPTY] [{NULL | ERROR | DEFAULT value} ON ERROR])"
	case "JSON_QUERY":
		return "JSON_QUERY(json_doc, path [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON ERROR])"
	}
	return "JSON_EXISTS(json_doc, path [{TRUE | FALSE| UNKNOWN | ERROR} ON ERROR])"
}

func inferJSONExists(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := jsonCommon("JSON_EXISTS", args); err != nil {
		return nil, sql.DataType{}, err
	}
	out := args[:2:2]
	for _, a := range args[2:] {
		f, ok := flagOf(a)
		if !ok || len(out) > 2 || !strings.HasSuffix(f, "_ON_ERROR") {
			return nil, sql.DataType{}, noMatch("JSON_EXISTS", args)
		}
		out = append(out, flag(strings.TrimSuffix(f, "_ON_ERROR")))
	}
	return out, sql.Boolean(), nil
}

// jsonReturning splits off RETURNING type (the symbol and a CAST of NULL
// to the type) from the clauses.
func jsonReturning(rest []Expr) (*sql.DataType, []Expr) {
	if len(rest) >= 2 {
		if f, ok := flagOf(rest[0]); ok && f == "RETURNING" {
			t := rest[1].Type()
			return &t, rest[2:]
		}
	}
	return nil, rest
}

func inferJSONValue(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := jsonCommon("JSON_VALUE", args); err != nil {
		return nil, sql.DataType{}, err
	}
	// SqlJsonValueFunctionWrapper: STRING unless RETURNING, always
	// nullable.
	t := sql.String()
	rt, rest := jsonReturning(args[2:])
	if rt != nil {
		t = *rt
	}
	t = t.WithNullable(true)
	switch {
	case t.IsString(), t.IsNumeric(), t.Root == sql.TypeBoolean, t.Root == sql.TypeDate, t.Root == sql.TypeTime,
		t.Root == sql.TypeTimestamp, t.Root == sql.TypeTimestampLTZ:
	default:
		return nil, sql.DataType{}, sql.Errorf(sql.ValidationException, "Unsupported type %s for RETURNING in JSON_VALUE", CalciteType(t))
	}
	out := append([]Expr(nil), args[:2]...)
	seen := map[string]bool{}
	for i := 0; i < len(rest); i++ {
		f, ok := flagOf(rest[i])
		if !ok {
			return nil, sql.DataType{}, noMatch("JSON_VALUE", args)
		}
		var behavior, mode string
		var def Expr
		switch {
		case f == "DEFAULT" && i+2 < len(rest):
			def = rest[i+1]
			m, ok := flagOf(rest[i+2])
			if !ok || !strings.HasPrefix(m, "ON_") {
				return nil, sql.DataType{}, noMatch("JSON_VALUE", args)
			}
			behavior, mode = "DEFAULT", strings.TrimPrefix(m, "ON_")
			i += 2
		case strings.HasSuffix(f, "_ON_EMPTY") || strings.HasSuffix(f, "_ON_ERROR"):
			behavior, mode = f[:len(f)-len("_ON_EMPTY")], f[len(f)-len("EMPTY"):]
			if strings.HasSuffix(f, "_ON_ERROR") {
				behavior, mode = f[:len(f)-len("_ON_ERROR")], "ERROR"
			}
		default:
			return nil, sql.DataType{}, noMatch("JSON_VALUE", args)
		}
		if (behavior != "NULL" && behavior != "ERROR" && behavior != "DEFAULT") || seen[mode] {
			return nil, sql.DataType{}, noMatch("JSON_VALUE", args)
		}
		seen[mode] = true
		out = append(out, flag(behavior))
		if def != nil {
			// Kept as written (Calcite's operand); evalJSONValue casts
			// its value to the result type, as JsonValueCallGen does.
			out = append(out, def)
		}
		out = append(out, flag(mode))
	}
	return out, t, nil
}

func inferJSONQuery(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if err := jsonCommon("JSON_QUERY", args); err != nil {
		return nil, sql.DataType{}, err
	}
	t := sql.String()
	rt, rest := jsonReturning(args[2:])
	if rt != nil {
		switch {
		case rt.IsString():
			t = *rt
		case rt.Root == sql.TypeArray && rt.Elem.IsString():
			t = *rt
		default:
			return nil, sql.DataType{}, sql.Errorf(sql.ValidationException, "Unsupported return type %s for RETURNING in JSON_QUERY().", CalciteType(rt.WithNullable(true)))
		}
	}
	t = t.WithNullable(true)
	wrapper, onEmpty, onError := "WITHOUT_ARRAY", "NULL", "NULL"
	for _, a := range rest {
		f, ok := flagOf(a)
		switch {
		case !ok:
			return nil, sql.DataType{}, noMatch("JSON_QUERY", args)
		case strings.HasSuffix(f, "_ARRAY") && !strings.HasSuffix(f, "_ON_EMPTY") && !strings.HasSuffix(f, "_ON_ERROR"):
			wrapper = f
		case strings.HasSuffix(f, "_ON_EMPTY"):
			onEmpty = strings.TrimSuffix(f, "_ON_EMPTY")
		case strings.HasSuffix(f, "_ON_ERROR"):
			onError = strings.TrimSuffix(f, "_ON_ERROR")
		default:
			return nil, sql.DataType{}, noMatch("JSON_QUERY", args)
		}
	}
	if t.Root == sql.TypeArray {
		for _, c := range []struct{ b, what string }{{onEmpty, "empty"}, {onError, "error"}} {
			if c.b == "EMPTY_OBJECT" {
				return nil, sql.DataType{}, sql.Errorf(sql.ValidationException, "Illegal on %s behavior 'EMPTY OBJECT' for return type: %s", c.what, CalciteType(t.WithNullable(true)))
			}
		}
	}
	if wrapper == "WITH_UNCONDITIONAL_ARRAY" || wrapper == "WITH_CONDITIONAL_ARRAY" || wrapper == "WITHOUT_ARRAY" {
		out := append([]Expr(nil), args[:2]...)
		return append(out, flag(wrapper), flag(onEmpty), flag(onError)), t, nil
	}
	return nil, sql.DataType{}, noMatch("JSON_QUERY", args)
}

// jsonNullClause reads JSON_OBJECT/JSON_ARRAY's NULL|ABSENT ON NULL, the
// last argument, with the default def.
func jsonNullClause(name string, args []Expr, def string) (string, []Expr, error) {
	clause := def
	var vals []Expr
	for i, a := range args {
		if f, ok := flagOf(a); ok {
			if i != len(args)-1 || (f != "NULL_ON_NULL" && f != "ABSENT_ON_NULL") {
				return "", nil, noMatch(name, args)
			}
			clause = f
			continue
		}
		vals = append(vals, a)
	}
	return clause, vals, nil
}

func inferJSONObject(name string, args []Expr) ([]Expr, sql.DataType, error) {
	clause, vals, err := jsonNullClause("JSON_OBJECT", args, "NULL_ON_NULL")
	if err != nil {
		return nil, sql.DataType{}, err
	}
	if len(vals)%2 != 0 {
		return nil, sql.DataType{}, noMatch("JSON_OBJECT", args)
	}
	for i := 0; i < len(vals); i += 2 {
		if t := vals[i].Type(); !t.IsString() && t.Root != sql.TypeNull {
			return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
				"Cannot apply 'JSON_OBJECT' to arguments of type 'JSON_OBJECT(<%s>, <%s>)'. Supported form(s): 'JSON_OBJECT([[KEY] key VALUE value]...)'",
				CalciteTypeName(t), CalciteTypeName(vals[i+1].Type()))}
		}
	}
	for i := 1; i < len(vals); i += 2 {
		if err := jsonConvertible(vals[i].Type()); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return append([]Expr{flag(clause)}, vals...), sql.String().NotNull(), nil
}

func inferJSONArray(name string, args []Expr) ([]Expr, sql.DataType, error) {
	clause, vals, err := jsonNullClause("JSON_ARRAY", args, "ABSENT_ON_NULL")
	if err != nil {
		return nil, sql.DataType{}, err
	}
	for _, v := range vals {
		if err := jsonConvertible(v.Type()); err != nil {
			return nil, sql.DataType{}, err
		}
	}
	return append([]Expr{flag(clause)}, vals...), sql.String().NotNull(), nil
}

// inferJSONObjectAgg is Calcite's SqlJsonObjectAggAggFunction:
// JSON_OBJECTAGG([KEY] k VALUE v [NULL|ABSENT ON NULL]), a character key,
// typed VARCHAR(2000) NOT NULL (JsonAggregationFunctionsITCase). The
// value is wrapped in JSON_STRING, as Flink's
// WrapJsonAggFunctionArgumentsRule wraps it, so that the aggregate only
// ever receives JSON text (JsonObjectAggFunction). The arguments returned
// start with the clause's flag, which JSONAggName takes off.
func inferJSONObjectAgg(name string, args []Expr) ([]Expr, sql.DataType, error) {
	clause, vals, err := jsonNullClause("JSON_OBJECTAGG", args, "NULL_ON_NULL")
	if err != nil {
		return nil, sql.DataType{}, err
	}
	if len(vals) != 2 {
		return nil, sql.DataType{}, noMatch("JSON_OBJECTAGG", args)
	}
	if t := vals[0].Type(); !t.IsString() {
		// SqlJsonObjectAggAggFunction is named by its clause; its operand
		// checker is OperandTypes.family(CHARACTER, ANY).
		op := "JSON_OBJECTAGG_" + clause
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '%s(<%s>, <%s>)'. Supported form(s): '%s(<CHARACTER>, <ANY>)'",
			op, op, CalciteTypeName(t), CalciteTypeName(vals[1].Type()), op)}
	}
	v, err := jsonStringOf(vals[1])
	if err != nil {
		return nil, sql.DataType{}, err
	}
	return []Expr{flag(clause), vals[0], v}, sql.VarChar(2000).NotNull(), nil
}

// inferJSONArrayAgg is Calcite's SqlJsonArrayAggAggFunction:
// JSON_ARRAYAGG(v [NULL|ABSENT ON NULL]), ABSENT ON NULL by default,
// typed VARCHAR(2000) NOT NULL, its value wrapped in JSON_STRING (see
// inferJSONObjectAgg).
func inferJSONArrayAgg(name string, args []Expr) ([]Expr, sql.DataType, error) {
	clause, vals, err := jsonNullClause("JSON_ARRAYAGG", args, "ABSENT_ON_NULL")
	if err != nil {
		return nil, sql.DataType{}, err
	}
	if len(vals) != 1 {
		return nil, sql.DataType{}, noMatch("JSON_ARRAYAGG", args)
	}
	v, err := jsonStringOf(vals[0])
	if err != nil {
		return nil, sql.DataType{}, err
	}
	return []Expr{flag(clause), v}, sql.VarChar(2000).NotNull(), nil
}

// jsonStringOf is JSON_STRING(v), the wrap WrapJsonAggFunctionArgumentsRule
// puts around a JSON aggregate's value.
func jsonStringOf(v Expr) (Expr, error) {
	args, t, err := inferJSONString("JSON_STRING", []Expr{v})
	if err != nil {
		return nil, err
	}
	return &Call{Op: "JSON_STRING", Args: args, T: t}, nil
}

// JSONAggName names a bound JSON_OBJECTAGG/JSON_ARRAYAGG call by its ON
// NULL clause, as Flink's BuiltInFunctionDefinitions do
// (JSON_OBJECTAGG_NULL_ON_NULL, JSON_ARRAYAGG_ABSENT_ON_NULL, ...), and
// returns its arguments without the clause. ok is false for any other
// call.
func JSONAggName(name string, args []Expr) (string, []Expr, bool) {
	up := strings.ToUpper(name)
	if up != "JSON_OBJECTAGG" && up != "JSON_ARRAYAGG" || len(args) == 0 {
		return name, args, false
	}
	f, ok := flagOf(args[0])
	if !ok {
		return name, args, false
	}
	return up + "_" + f, args[1:], true
}

func inferJSONString(name string, args []Expr) ([]Expr, sql.DataType, error) {
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch("JSON_STRING", args)
	}
	if err := jsonConvertible(args[0].Type()); err != nil {
		return nil, sql.DataType{}, err
	}
	return args, sql.String().WithNullable(args[0].Type().Nullable), nil
}

func inferIsJSON(name string, args []Expr) ([]Expr, sql.DataType, error) {
	op := strings.ToUpper(name)
	if len(args) != 1 {
		return nil, sql.DataType{}, noMatch(op, args)
	}
	if t := args[0].Type(); !t.IsString() && t.Root != sql.TypeNull {
		return nil, sql.DataType{}, &OperandError{WholeCall: true, Msg: fmt.Sprintf(
			"Cannot apply '%s' to arguments of type '<%s> %s'. Supported form(s): '<CHARACTER> %s'", op, CalciteTypeName(t), op, op)}
	}
	return args, sql.Boolean().NotNull(), nil
}

// Evaluation.

// evalIsJSON is Calcite's isJsonValue/Scalar/Array/Object (and their
// negations): FALSE for a NULL or unparsable input (IS NOT JSON: TRUE).
func evalIsJSON(c *Call, args []Eval) (Eval, error) {
	not := strings.HasPrefix(c.Op, "IS NOT ")
	kind := c.Op[strings.LastIndexByte(c.Op, ' ')+1:]
	return func(row []any) (any, error) {
		v, err := args[0](row)
		if err != nil {
			return nil, err
		}
		ok := false
		if s, isStr := v.(string); isStr {
			if doc, perr := parseJSON(s); perr == nil {
				switch kind {
				case "VALUE":
					ok = true
				case "SCALAR":
					ok = jsonIsScalar(doc)
				case "ARRAY":
					_, ok = doc.([]any)
				case "OBJECT":
					_, ok = doc.(*jsonObject)
				}
			}
		}
		return ok != not, nil
	}, nil
}

func evalJSONExists(c *Call, args []Eval) (Eval, error) {
	onError := "FALSE"
	if len(c.Args) > 2 {
		onError, _ = flagOf(c.Args[2])
	}
	in := c.Args[0].Type()
	return strict(args[:2], func(vs []any) (any, error) {
		text, _ := jsonInput(vs[0], in)
		r := jsonPathExec(text, vs[1].(string))
		if r.err != nil {
			switch onError {
			case "TRUE":
				return true, nil
			case "UNKNOWN":
				return nil, nil
			case "ERROR":
				return nil, runtimeErr(r.err)
			}
			return false, nil
		}
		return r.obj != nil, nil
	}), nil
}

func runtimeErr(err error) error {
	return sql.Errorf(sql.TableException, "%s", err.Error())
}

func evalJSONValue(c *Call, args []Eval) (Eval, error) {
	type behavior struct {
		kind string
		def  Eval
	}
	onEmpty, onError := behavior{kind: "NULL"}, behavior{kind: "NULL"}
	for i := 2; i < len(c.Args); i++ {
		b, _ := flagOf(c.Args[i])
		var def Eval
		if b == "DEFAULT" {
			ev, from := args[i+1], c.Args[i+1].Type()
			def = func(row []any) (any, error) {
				v, err := ev(row)
				if err != nil || v == nil {
					return nil, err
				}
				if b, ok := v.(bool); ok && c.T.IsString() {
					// the default is an Object that JsonValueCallGen
					// turns into a string with String.valueOf: "false"
					return strconv.FormatBool(b), nil
				}
				return castValue(v, from, c.T)
			}
			i++
		}
		mode, _ := flagOf(c.Args[i+1])
		i++
		if mode == "EMPTY" {
			onEmpty = behavior{b, def}
		} else {
			onError = behavior{b, def}
		}
	}
	t, inT := c.T, c.Args[0].Type()
	apply := func(b behavior, row []any, err error) (any, error) {
		switch b.kind {
		case "ERROR":
			return nil, runtimeErr(err)
		case "DEFAULT":
			return b.def(row)
		}
		return nil, nil
	}
	return func(row []any) (any, error) {
		s, err := args[0](row)
		if err != nil || s == nil {
			return nil, err
		}
		p, err := args[1](row)
		if err != nil || p == nil {
			return nil, err
		}
		text, _ := jsonInput(s, inT)
		r := jsonPathExec(text, p.(string))
		if r.err == nil {
			if r.obj == nil || r.lax && !jsonIsScalar(r.obj) {
				return apply(onEmpty, row, fmt.Errorf("Empty result of JSON_VALUE function is not allowed"))
			}
			if !r.lax && !jsonIsScalar(r.obj) {
				r.err = fmt.Errorf("Strict jsonpath mode requires scalar value, and the actual value is: '%s'", javaCollectionString(r.obj))
			} else {
				v, cerr := jsonValueAs(r.obj, t)
				if cerr == nil {
					return v, nil
				}
				r.err = cerr
			}
		}
		return apply(onError, row, r.err)
	}, nil
}

// jsonValueAs converts JSON_VALUE's scalar to its RETURNING type, as a
// CAST of its text (a JSON number as a DECIMAL).
func jsonValueAs(v any, t sql.DataType) (any, error) {
	text := jsonScalarString(v)
	if t.IsString() {
		return text, nil
	}
	if n, ok := v.(json.Number); ok && (t.Root == sql.TypeDouble || t.Root == sql.TypeFloat) {
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return nil, err
		}
		if t.Root == sql.TypeFloat {
			return float32(f), nil
		}
		return f, nil
	}
	if n, ok := v.(json.Number); ok && t.IsNumeric() {
		d, err := decimal.NewFromString(string(n))
		if err != nil {
			return nil, err
		}
		if t.Root != sql.TypeDouble && t.Root != sql.TypeFloat && t.Root != sql.TypeDecimal {
			bits := map[sql.TypeRoot]int{sql.TypeTinyInt: 8, sql.TypeSmallInt: 16, sql.TypeInt: 32, sql.TypeBigInt: 64}[t.Root]
			lim := decimal.New(1, 0).Shift(0)
			for i := 1; i < bits; i++ {
				lim = lim.Mul(decimal.NewFromInt(2))
			}
			if bits == 0 || d.Truncate(0).GreaterThanOrEqual(lim) || d.Truncate(0).LessThan(lim.Neg()) {
				return nil, fmt.Errorf("Cannot cast '%s' to %s", text, CalciteType(t))
			}
		}
		out, err := castValue(d, sql.Decimal(38, min(38, max(0, int(-d.Exponent())))), t)
		if err == nil && out == nil {
			err = fmt.Errorf("Cannot cast '%s' to %s", text, CalciteType(t))
		}
		return out, err
	}
	out, err := castValue(text, sql.String(), t)
	if err != nil || out == nil {
		return nil, fmt.Errorf("Cannot cast '%s' to %s", text, CalciteType(t))
	}
	return out, nil
}

func evalJSONQuery(c *Call, args []Eval) (Eval, error) {
	wrapper, _ := flagOf(c.Args[2])
	onEmpty, _ := flagOf(c.Args[3])
	onError, _ := flagOf(c.Args[4])
	asArray := c.T.Root == sql.TypeArray
	fallback := func(b string, err error) (any, error) {
		switch b {
		case "ERROR":
			return nil, runtimeErr(err)
		case "EMPTY_ARRAY":
			if asArray {
				return []any{}, nil
			}
			return "[]", nil
		case "EMPTY_OBJECT":
			return "{}", nil
		}
		return nil, nil
	}
	in := c.Args[0].Type()
	return strict(args[:2], func(vs []any) (any, error) {
		text, _ := jsonInput(vs[0], in)
		r := jsonPathExec(text, vs[1].(string))
		if r.err != nil {
			return fallback(onError, r.err)
		}
		v := r.obj
		if v != nil {
			switch wrapper {
			case "WITH_UNCONDITIONAL_ARRAY":
				v = []any{v}
			case "WITH_CONDITIONAL_ARRAY":
				if _, isArr := v.([]any); !isArr {
					v = []any{v}
				}
			}
		}
		if v == nil || r.lax && jsonIsScalar(v) {
			return fallback(onEmpty, fmt.Errorf("Empty result of JSON_QUERY function is not allowed"))
		}
		if !r.lax && jsonIsScalar(v) {
			return fallback(onError, fmt.Errorf("Strict jsonpath mode requires array or object value, and the actual value is: '%s'", jsonScalarString(v)))
		}
		if !asArray {
			return jsonText(v), nil
		}
		arr, ok := v.([]any)
		if !ok {
			return fallback(onError, fmt.Errorf("Strict jsonpath mode requires array value, and the actual value is: '%s'", javaCollectionString(v)))
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			switch x := e.(type) {
			case nil:
			case string:
				out[i] = x
			default:
				out[i] = jsonText(x)
			}
		}
		return out, nil
	}), nil
}

// evalJSONConstructor is JSON_OBJECT and JSON_ARRAY (Flink's
// JsonObjectCallGen and JsonArrayCallGen): values become JSON as
// JsonGenerateUtils.createNodeTerm makes them; a JSON_OBJECT or
// JSON_ARRAY call as a value is inserted as JSON, not as its text.
func evalJSONConstructor(c *Call, args []Eval) (Eval, error) {
	clause, _ := flagOf(c.Args[0])
	absent := clause == "ABSENT_ON_NULL"
	isObject := c.Op == "JSON_OBJECT"
	raw := make([]bool, len(c.Args))
	for i, a := range c.Args {
		if ac, ok := a.(*Call); ok && jsonConstructor(ac.Op) {
			raw[i] = true
		}
	}
	return func(row []any) (any, error) {
		vals := make([]any, len(args))
		for i := 1; i < len(args); i++ {
			v, err := args[i](row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				if raw[i] {
					v = rawJSON(v.(string))
				} else {
					v = sqlToJSON(v, c.Args[i].Type())
					if err := jsonErr(v); err != nil {
						return nil, err
					}
				}
			}
			vals[i] = v
		}
		if !isObject {
			arr := []any{}
			for _, v := range vals[1:] {
				if v == nil && absent {
					continue
				}
				arr = append(arr, v)
			}
			return jsonText(arr), nil
		}
		o := &jsonObject{vals: map[string]any{}}
		for i := 1; i+1 < len(vals); i += 2 {
			k, _ := vals[i].(string)
			if vals[i] == nil {
				return nil, sql.Errorf(sql.TableException, "Null key of JSON_OBJECT is not allowed")
			}
			if vals[i+1] == nil && absent {
				continue
			}
			if _, dup := o.vals[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.vals[k] = vals[i+1]
		}
		return jsonText(o), nil
	}, nil
}

// sqlToJSON is Flink's JsonGenerateUtils.createNodeTerm: a SQL value as
// a JSON value (character strings as strings, numbers as numbers,
// timestamps in ISO-8601, binary strings in Base64, ARRAYs as arrays,
// MAPs and ROWs as objects).
func sqlToJSON(v any, t sql.DataType) any {
	if v == nil {
		return nil
	}
	switch t.Root {
	case sql.TypeBoolean:
		return v
	case sql.TypeChar, sql.TypeVarChar:
		return v
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeDecimal, sql.TypeFloat, sql.TypeDouble:
		return json.Number(castToString(v, t))
	case sql.TypeBinary, sql.TypeVarBinary:
		return base64.StdEncoding.EncodeToString(v.([]byte))
	case sql.TypeTimestamp:
		return isoLocal(v.(sql.TimestampData))
	case sql.TypeTimestampLTZ:
		return isoLocal(v.(sql.TimestampData)) + "Z"
	case sql.TypeArray:
		arr := v.([]any)
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = sqlToJSON(e, *t.Elem)
		}
		return out
	case sql.TypeMap:
		m := v.(*sql.Map)
		o := &jsonObject{vals: map[string]any{}}
		for i, k := range m.Keys {
			if k == nil {
				return jsonNullKey(i)
			}
			ks := castToString(k, *t.Elem)
			if _, dup := o.vals[ks]; !dup {
				o.keys = append(o.keys, ks)
			}
			o.vals[ks] = sqlToJSON(m.Values[i], *t.Value)
		}
		return o
	case sql.TypeRow:
		fs := v.([]any)
		o := &jsonObject{vals: map[string]any{}}
		for i, f := range t.Fields {
			if i < len(fs) {
				o.keys = append(o.keys, f.Name)
				o.vals[f.Name] = sqlToJSON(fs[i], f.Type)
			}
		}
		return o
	}
	return castToString(v, t)
}

// isoLocal is a timestamp in Java's DateTimeFormatter.ISO_LOCAL_DATE_TIME,
// as JsonGenerateUtils formats it: seconds always, then the fraction's
// digits without trailing zeros (none for a whole second).
func isoLocal(ts sql.TimestampData) string {
	t := time.UnixMilli(ts.Millis).UTC()
	s := t.Format("2006-01-02T15:04:05")
	nanos := int(ts.Millis%1000+1000)%1000*1_000_000 + int(ts.NanoOfMilli)
	if nanos != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%09d", nanos), "0")
	}
	return s
}

// jsonConvertible checks that JsonGenerateUtils.createNodeTerm can make
// JSON of a value of type t (Flink fails at code generation otherwise).
func jsonConvertible(t sql.DataType) error {
	switch t.Root {
	case sql.TypeChar, sql.TypeVarChar, sql.TypeBoolean, sql.TypeDecimal, sql.TypeTinyInt, sql.TypeSmallInt,
		sql.TypeInt, sql.TypeBigInt, sql.TypeFloat, sql.TypeDouble, sql.TypeTimestamp, sql.TypeTimestampLTZ,
		sql.TypeBinary, sql.TypeVarBinary, sql.TypeNull:
		return nil
	case sql.TypeArray:
		return jsonConvertible(*t.Elem)
	case sql.TypeRow:
		for _, f := range t.Fields {
			if err := jsonConvertible(f.Type); err != nil {
				return err
			}
		}
		return nil
	case sql.TypeMap:
		if !t.Elem.IsString() {
			return sql.Errorf(sql.TableException, "Type '%s' is not supported for JSON conversion. The key type must be a character string.", t.Elem.String())
		}
		return jsonConvertible(*t.Value)
	}
	return sql.Errorf(sql.TableException, "Type '%s' is not scalar or cannot be converted into JSON.", t.String())
}

func evalJSONString(c *Call, args []Eval) (Eval, error) {
	t := c.Args[0].Type()
	ac, isCall := c.Args[0].(*Call)
	raw := isCall && jsonConstructor(ac.Op)
	return strict(args, func(vs []any) (any, error) {
		if raw {
			return vs[0], nil
		}
		v := sqlToJSON(vs[0], t)
		if err := jsonErr(v); err != nil {
			return nil, err
		}
		return jsonText(v), nil
	}), nil
}
