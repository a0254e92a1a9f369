package parser

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql/ast"
)

// The SQL/JSON syntax of Calcite's grammar (Parser.jj's
// JsonValueFunctionCall, JsonQueryFunctionCall, JsonExistsFunctionCall,
// JsonObjectFunctionCall, JsonArrayFunctionCall and the IS JSON
// predicates), which Flink's parser inherits. The pre-pass writes each
// clause as a symbol argument TiDB reads as a column (unitPrefix), which
// the conversion turns into an ast.TimeUnit:
//
//   - RETURNING type becomes the symbol RETURNING followed by
//     CAST(NULL AS type);
//   - {NULL | ERROR} ON {EMPTY | ERROR} the symbol NULL_ON_EMPTY, ...;
//     DEFAULT expr ON EMPTY the symbol DEFAULT, expr and the symbol
//     ON_EMPTY;
//   - EMPTY {ARRAY | OBJECT} ON {EMPTY | ERROR}: EMPTY_ARRAY_ON_EMPTY, ...;
//   - {TRUE | FALSE | UNKNOWN | ERROR} ON ERROR: TRUE_ON_ERROR, ...;
//   - WITHOUT [ARRAY] WRAPPER: WITHOUT_ARRAY; WITH CONDITIONAL [ARRAY]
//     WRAPPER: WITH_CONDITIONAL_ARRAY; WITH [UNCONDITIONAL] [ARRAY]
//     WRAPPER: WITH_UNCONDITIONAL_ARRAY;
//   - {NULL | ABSENT} ON NULL: NULL_ON_NULL, ABSENT_ON_NULL;
//   - JSON_OBJECT's [KEY] k VALUE v: the arguments k, v;
//   - x IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] becomes
//     x <=> __sqlrun_isjson(IS_JSON_VALUE), read back as the call
//     "IS JSON VALUE"(x) (the operator's name in Calcite's
//     SqlStdOperatorTable).

// isJSONFunc is the call an IS [NOT] JSON predicate is written as.
const isJSONFunc = "__sqlrun_isjson"

// jsonCalls are the functions whose arguments take SQL/JSON clauses.
var jsonCalls = map[string]bool{"JSON_VALUE": true, "JSON_QUERY": true, "JSON_EXISTS": true,
	"JSON_OBJECT": true, "JSON_ARRAY": true, "JSON_OBJECTAGG": true, "JSON_ARRAYAGG": true}

// jsonRules are the pre-pass rules of the SQL/JSON syntax; they are tried
// before the table's other rules of the same word (TRUE, FALSE, NULL).
func jsonRules() []rule {
	rs := []rule{
		{"IS", isJSON, (*rewriter).isJSON},
		{"RETURNING", inJSONCall("JSON_VALUE", "JSON_QUERY"), (*rewriter).jsonReturning},
		{"DEFAULT", inJSONCall("JSON_VALUE"), (*rewriter).jsonDefault},
		{"ON", jsonOnAfterDefault, (*rewriter).jsonOnAfterDefault},
		{"WITHOUT", inJSONCall("JSON_QUERY"), (*rewriter).jsonWrapper},
		{"WITH", inJSONCall("JSON_QUERY"), (*rewriter).jsonWrapper},
		{"KEY", jsonKeyWord, (*rewriter).dropWord},
		{"VALUE", inJSONCall("JSON_OBJECT", "JSON_OBJECTAGG"), (*rewriter).argComma},
		{"EMPTY", jsonEmptyBehavior, (*rewriter).jsonBehavior},
	}
	for _, w := range []string{"NULL", "ERROR", "TRUE", "FALSE", "UNKNOWN", "ABSENT"} {
		rs = append(rs, rule{w, jsonBehaviorWord, (*rewriter).jsonBehavior})
	}
	for fn := range jsonCalls {
		rs = append(rs, rule{fn, callNotTable, (*rewriter).renameCall})
	}
	return rs
}

func inJSONCall(fns ...string) func(*rewriter, int) bool {
	return func(r *rewriter, _ int) bool {
		f := r.cur()
		if f.kind != fExpr {
			return false
		}
		for _, fn := range fns {
			if f.fn == fn {
				return true
			}
		}
		return false
	}
}

func inAnyJSONCall(r *rewriter, _ int) bool { f := r.cur(); return f.kind == fExpr && jsonCalls[f.fn] }

// jsonBehaviorWord: NULL, ERROR, TRUE, FALSE, UNKNOWN or ABSENT followed
// by ON EMPTY, ON ERROR or ON NULL, directly in a JSON function's
// parentheses.
func jsonBehaviorWord(r *rewriter, j int) bool {
	if !inAnyJSONCall(r, j) || j+2 >= r.to || !r.tok(j+1).is("ON") || j > r.from && r.tok(j-1).is("DEFAULT") {
		return false
	}
	w := r.tok(j + 2)
	return w.is("EMPTY") || w.is("ERROR") || w.is("NULL")
}

// jsonEmptyBehavior: EMPTY ARRAY|OBJECT ON EMPTY|ERROR in JSON_QUERY.
func jsonEmptyBehavior(r *rewriter, j int) bool {
	return inJSONCall("JSON_QUERY")(r, j) && j+3 < r.to && (r.tok(j+1).is("ARRAY") || r.tok(j+1).is("OBJECT")) &&
		r.tok(j+2).is("ON") && (r.tok(j+3).is("EMPTY") || r.tok(j+3).is("ERROR"))
}

// jsonSymbol writes a clause as a symbol argument: after a comma, unless
// it is the call's first argument (JSON_OBJECT(ABSENT ON NULL)).
func (r *rewriter) jsonSymbol(sym string, j int) {
	sep := ", "
	if j > r.from && r.tok(j-1).isOp("(") {
		sep = ""
	}
	r.synth(sep+unitPrefix+sym, r.tok(j).off)
}

// jsonBehavior writes "<behavior> ON <EMPTY|ERROR|NULL>" as one symbol.
func (r *rewriter) jsonBehavior(j int) int {
	words := []string{strings.ToUpper(r.tok(j).text)}
	k := j + 1
	if r.tok(j).is("EMPTY") {
		words = append(words, strings.ToUpper(r.tok(k).text))
		k++
	}
	words = append(words, "ON", strings.ToUpper(r.tok(k+1).text))
	r.jsonSymbol(strings.Join(words, "_"), j)
	r.lastEnd = r.tok(k + 1).end
	return k + 2
}

// jsonReturning reads RETURNING <type> with the type parser.
func (r *rewriter) jsonReturning(j int) int {
	p := r.p
	t := r.tok(j)
	c := &ast.Cast{Node: ast.Node{At: p.pos(t)}}
	p.i = j + 1
	c.Type = p.dataType()
	if p.err != nil || p.i > r.to {
		return r.failAt(p.peek())
	}
	if p.i < r.to && r.tok(p.i-1).is("NULL") && r.tok(p.i).is("ON") {
		// RETURNING INT NULL ON EMPTY: the NULL is the behaviour, not
		// the type's nullability, which Calcite's DataType() lacks.
		p.i--
		c.Type = c.Type.WithNullable(true)
	}
	r.casts = append(r.casts, c)
	r.typed = append(r.typed, true)
	r.jsonSymbol("RETURNING", j)
	r.synth(", "+castPrefix+strconv.Itoa(len(r.casts)-1)+"(NULL)", t.off)
	return p.i
}

// jsonDefault: DEFAULT expr ON {EMPTY|ERROR} in JSON_VALUE.
func (r *rewriter) jsonDefault(j int) int {
	r.jsonSymbol("DEFAULT", j)
	r.synth(",", r.tok(j).off)
	return j + 1
}

func jsonOnAfterDefault(r *rewriter, j int) bool {
	return inJSONCall("JSON_VALUE")(r, j) && j+1 < r.to && (r.tok(j+1).is("EMPTY") || r.tok(j+1).is("ERROR"))
}

func (r *rewriter) jsonOnAfterDefault(j int) int {
	r.jsonSymbol("ON_"+strings.ToUpper(r.tok(j+1).text), j)
	return j + 2
}

// jsonWrapper: WITHOUT [ARRAY] WRAPPER, WITH [CONDITIONAL|UNCONDITIONAL]
// [ARRAY] WRAPPER (Calcite's JsonQueryWrapperBehavior).
func (r *rewriter) jsonWrapper(j int) int {
	sym := "WITHOUT_ARRAY"
	k := j + 1
	if r.tok(j).is("WITH") {
		sym = "WITH_UNCONDITIONAL_ARRAY"
		if k < r.to && r.tok(k).is("CONDITIONAL") {
			sym = "WITH_CONDITIONAL_ARRAY"
			k++
		} else if k < r.to && r.tok(k).is("UNCONDITIONAL") {
			k++
		}
	}
	if k < r.to && r.tok(k).is("ARRAY") {
		k++
	}
	if k >= r.to || !r.tok(k).is("WRAPPER") {
		return r.failAt(r.p.toks[min(k, len(r.p.toks)-1)])
	}
	r.jsonSymbol(sym, j)
	return k + 1
}

// jsonKeyWord: the KEY of JSON_OBJECT's "KEY k VALUE v" (not a column
// named key: "key VALUE v").
func jsonKeyWord(r *rewriter, j int) bool {
	if !inJSONCall("JSON_OBJECT", "JSON_OBJECTAGG")(r, j) || j+1 >= r.to || j == r.from {
		return false
	}
	prev, next := r.tok(j-1), r.tok(j+1)
	return (prev.isOp("(") || prev.isOp(",")) && !next.is("VALUE") && !next.isOp(",") && !next.isOp(")")
}

func (r *rewriter) dropWord(j int) int { return j + 1 }

// isJSON: IS [NOT] JSON.
func isJSON(r *rewriter, j int) bool {
	k := j + 1
	if k < r.to && r.tok(k).is("NOT") {
		k++
	}
	return k < r.to && r.tok(k).is("JSON")
}

func (r *rewriter) isJSON(j int) int {
	op := "IS_"
	k := j + 1
	if r.tok(k).is("NOT") {
		op += "NOT_"
		k++
	}
	op += "JSON_"
	k++
	kind := "VALUE"
	if k < r.to {
		if w := r.tok(k); w.is("VALUE") || w.is("SCALAR") || w.is("ARRAY") || w.is("OBJECT") {
			kind = strings.ToUpper(w.text)
			k++
		}
	}
	r.synth("<=> "+isJSONFunc+"("+unitPrefix+op+kind+")", r.tok(j).off)
	return k
}
