package parser

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The dialect pre-pass turns a range of Flink tokens into tokens TiDB's
// MySQL grammar accepts. Each output piece carries the offset of the
// statement token it stands for, so TiDB's node offsets and its error
// offset map back to the statement. The Flink-only constructs are the rows
// of the rules table below, each a small function over the tokens; what a
// rule takes out of the text (a table reference with its hints, a Flink
// cast type, a literal) it keeps for the conversion, which puts it back:
//
//   - table references in FROM/JOIN (with their /*+ OPTIONS(...) */ hints,
//     up to three name parts, FOR SYSTEM_TIME AS OF), TABLE(fn(...)) and
//     UNNEST(...) become placeholders __sqlrun_t_N;
//   - CAST/TRY_CAST(x AS <Flink type>) become __sqlrun_cast_N(x), the type
//     read by our own type parser;
//   - TRUE/FALSE, DATE/TIME/TIMESTAMP '...' and INTERVAL '...' <unit>
//     literals become __sqlrun_lit_N();
//   - x[i] becomes __sqlrun_item(x, i), ARRAY[...] and MAP[...] calls;
//   - agg(...) FILTER (WHERE cond) becomes __sqlrun_filter(agg(...), cond);
//   - COUNT(DISTINCT ...) OVER becomes GROUP_CONCAT(DISTINCT ...) OVER,
//     read back as COUNT;
//   - GROUPING SETS (...), ROLLUP (...) and CUBE (...) become the calls
//     GROUPING_SETS, ROLLUP and CUBE (a set "(a, b)" a ROW, "()" the call
//     GROUPING_EMPTY()), which the planner expands;
//   - functions MySQL's grammar reads specially (CONCAT, LEAD, DATE_ADD,
//     ...) get the prefix __sqlrun_fn_, so that a concat coming back from
//     TiDB is known to be "||" (PIPES_AS_CONCAT);
//   - VALUES rows "(...)" become "ROW(...)"; FULL [OUTER] JOIN becomes
//     LEFT JOIN with the right table marked full; a derived column list
//     "AS t (a, b)" becomes "AS __sqlrun_a_N"; IS [NOT] DISTINCT FROM
//     becomes "<=>", SIMILAR TO "REGEXP", OFFSET/FETCH "LIMIT";
//   - words MySQL reserves and Flink does not are quoted.

// piece is one unit of the text handed to TiDB: a statement token as
// written (n > 0) or generated text (n == 0) standing for the token at
// orig.
type piece struct {
	text  string
	orig  int  // offset in the statement
	n     int  // length of the token's text when text is the token
	space bool // a space separates it from the previous piece
	// pre is generated text written before the piece (and before its
	// space): the "__sqlrun_item(" that an x[i] puts before its x.
	pre string
}

// segment maps a run of the rewritten text back to the statement.
type segment struct {
	newOff, origOff, n int // n == 0 for synthesized text
}

type tableInfo struct {
	name   ast.ObjectName
	hints  []ast.Hint
	full   bool
	asOf   ast.Expr // FOR SYSTEM_TIME AS OF expr
	fn     *ast.TableFunctionRef
	unnest *ast.Unnest
}

type aliasInfo struct {
	name string
	cols []string
	full bool // the subquery is the right side of a FULL JOIN
}

// distinctOp records an "<=>" written for IS [NOT] DISTINCT FROM: the
// statement offset of its IS and whether it was IS DISTINCT FROM.
type distinctOp struct {
	orig int
	is   bool
	// overlaps marks an OVERLAPS, which the pre-pass also writes as
	// "<=>" (TiDB reads a row on either side of it).
	overlaps bool
}

// betweenOp records a BETWEEN: the statement offset of its last word
// (BETWEEN or the SYMMETRIC after it) and whether it was SYMMETRIC.
type betweenOp struct {
	orig      int
	symmetric bool
}

// rewriter is the pre-pass over tokens [from, to) and what it keeps.
type rewriter struct {
	p        *parser
	from, to int
	pieces   []piece
	lastEnd  int // end offset of the last emitted token, -1 after generated text
	stack    []frame
	// open[j-from] is the index of the bracket that a closing bracket j
	// closes, close[j-from] the other way round; -1 for none.
	open, close []int
	// startOf[j-from] is the index of the first piece written for token j.
	startOf []int
	// itemStart maps a '[' token index to the token index where its x
	// starts.
	itemStart map[int]int

	// what the conversion reads back
	text    string
	segs    []segment
	tables  []tableInfo
	casts   []*ast.Cast
	typed   []bool // casts[i] has its type
	lits    []*ast.Literal
	aliases []aliasInfo
	// queryStarts are the offsets of SELECT and VALUES keywords in order,
	// which give TiDB's SelectStmts (that carry no offset) their positions.
	queryStarts []int
	nextQuery   int
	distinct    []distinctOp
	betweens    []betweenOp
	// frameLits are INTERVAL literals of RANGE frames, by the offset of
	// their value token.
	frameLits map[int]*ast.Literal
	// countOver records the offsets of COUNT(DISTINCT ...) OVER calls
	// written as GROUP_CONCAT.
	countOver map[int]bool
	// listaggs records the offsets of LISTAGG(DISTINCT ...) calls
	// written as GROUP_CONCAT.
	listaggs map[int]bool
	// nulls records NULLS FIRST (true) / LAST (false) by the offset of the
	// ordering expression's first token.
	nulls map[int]bool
	// queryHints are the hints written right after a SELECT, by the
	// offset of its SELECT keyword.
	queryHints map[int][]ast.Hint
}

type frameKind int

const (
	fQuery    frameKind = iota // a query: FROM lists tables here
	fExpr                      // function arguments, lists, a VALUES row
	fCast                      // CAST( ... AS type )
	fBracket                   // x[ ... ] or ARRAY[ ... ]: closes with ')'
	fWhenList                  // CASE x WHEN a, b THEN: closes at THEN
)

type frame struct {
	kind      frameKind
	inFrom    bool // between FROM and WHERE/GROUP/... in this query
	wantTable bool // the next token may start a table reference
	values    bool // in a VALUES list: '(' starts a row
	wantRow   bool
	bareRow   bool   // in a VALUES row that is one expression without parentheses
	selecting bool   // in this query's select list (SELECT to FROM or a clause)
	fullNext  bool   // the next table is the right side of a FULL JOIN
	tableSub  bool   // this query is a subquery in FROM (may take "AS t (cols)")
	lateral   bool   // a LATERAL subquery in FROM (may take no alias)
	cast      int    // for fCast: index into rewriter.casts
	fn        string // for fExpr: the upper-cased function whose '(' opened it
	argQuery  bool   // a query as a function's argument: f(SELECT ...)
}

// queryOperators take a parenthesized query that is not a function's
// argument: x IN (SELECT ...), EXISTS (SELECT ...), UNNEST, ...
var queryOperators = map[string]bool{"IN": true, "EXISTS": true, "ALL": true, "ANY": true, "SOME": true,
	"LATERAL": true, "UNNEST": true, "ARRAY": true, "MULTISET": true, "MAP": true, "CURSOR": true, "ROW": true,
	"JOIN": true, "FROM": true, "AS": true, "ON": true, "WITH": true, "SELECT": true, "WHERE": true, "NOT": true}

// rule is one row of the pre-pass: at a token spelled key (an upper-cased
// word, an operator, or one of the kind keys below), when holds, do
// rewrites from token j and returns the index of the next token to read
// (after a failure, recorded in the parser's err, it returns at once: the
// pass stops there).
type rule struct {
	key  string
	when func(r *rewriter, j int) bool
	do   func(r *rewriter, j int) int
}

// Keys of rules that match a token kind rather than a spelling.
const (
	keyHint   = "<hint>"
	keyString = "<string>"
	keyNumber = "<number>"
	keyQuoted = "<quoted>"
	keyIdent  = "<ident>" // any plain word, after the rules of its spelling
)

// rules is the table of Flink-only constructs, in the order they are
// tried at one token; a token no rule takes is copied as it is.
var rules = []rule{
	// Query hints (SELECT /*+ ... */) are kept with their SELECT; table
	// hints are read with their table.
	{keyHint, nil, (*rewriter).queryHint},
	{"(", emptyGroupingSet, (*rewriter).emptyGroupingSet},
	{"(", nil, (*rewriter).openParen},
	{"[", nil, (*rewriter).openItem},
	{".", fieldAfter, (*rewriter).fieldAccess},
	{"]", nil, (*rewriter).closeBracket},
	{")", nil, (*rewriter).closeParen},
	{",", nil, (*rewriter).comma},
	// MySQL takes "expr 'alias'"; Flink has no string aliases.
	{keyString, afterOperand, (*rewriter).failHere},
	{keyString, unicodeString, (*rewriter).unicodeString},
	{keyNumber, nil, (*rewriter).number},
	{keyQuoted, wantsTable, (*rewriter).tableRef},
	{"OFFSET", standardOffset, (*rewriter).offsetRows},
	{"FETCH", inQuery, (*rewriter).fetchFirst},
	{"CAST", nextIs("("), (*rewriter).cast},
	{"TRY_CAST", nextIs("("), (*rewriter).cast},
	{"AS", inCast, (*rewriter).castType},
	{"TRUE", notAfterIsNot, (*rewriter).boolLiteral},
	{"FALSE", notAfterIsNot, (*rewriter).boolLiteral},
	{"DATE", nextString, (*rewriter).temporal},
	{"TIME", nextString, (*rewriter).temporal},
	{"TIMESTAMP", nextString, (*rewriter).temporal},
	{"TIMESTAMP_LTZ", nextString, (*rewriter).temporal},
	{"INTERVAL", nil, (*rewriter).interval},
	{"ROW", singleFieldRow, (*rewriter).renameCall},
	{"ARRAY", nextIs("["), (*rewriter).constructor},
	{"MAP", nextIs("["), (*rewriter).constructor},
	{"TO", floorTo, (*rewriter).floorUnit},
	{"NULLS", nullsOrder, (*rewriter).nullsOrder},
	{"PRECEDING", exprBound, (*rewriter).frameBound},
	{"FOLLOWING", exprBound, (*rewriter).frameBound},
	{"SIMILAR", nextWord("TO"), (*rewriter).similarTo},
	{"WHEN", whenList, (*rewriter).whenList},
	{"BETWEEN", nil, (*rewriter).between},
	{"EXTRACT", extractUnit, (*rewriter).extractUnit},
	{"TIMESTAMPDIFF", tsDiffUnit, (*rewriter).tsDiffUnit},
	{"CURRENT_DATE", currentDateArgs, (*rewriter).currentDateArgs},
	// OVERLAY(s PLACING r FROM start [FOR length]) becomes OVERLAY(s, r,
	// start[, length]).
	{"PLACING", inCall("OVERLAY"), (*rewriter).argComma},
	{"FROM", inCall("OVERLAY"), (*rewriter).argComma},
	{"FOR", inCall("OVERLAY"), (*rewriter).argComma},
	{"BOTH", trimModeOnly, (*rewriter).trimModeOnly},
	{"LEADING", trimModeOnly, (*rewriter).trimModeOnly},
	{"TRAILING", trimModeOnly, (*rewriter).trimModeOnly},
	{"THEN", endsWhenList, (*rewriter).endWhenList},
	{"IS", isDistinct, (*rewriter).isDistinct},
	{"OVERLAPS", nil, (*rewriter).overlaps},
	{"FILTER", aggregateFilter, (*rewriter).aggregateFilter},
	// GROUP BY GROUPING SETS (...), ROLLUP (...), CUBE (...): calls the
	// conversion keeps and the planner expands.
	{"GROUPING", nextWord("SETS"), (*rewriter).groupingSets},
	{"ROLLUP", nextIs("("), (*rewriter).renameCall},
	{"CUBE", nextIs("("), (*rewriter).renameCall},
	// SESSION(ts, gap): the legacy group window call (GROUP BY
	// SESSION(...)); SESSION is a TiDB keyword (SET SESSION). The SESSION
	// window TVF is read whole by TABLE's rule.
	{"SESSION", nextIs("("), (*rewriter).renameCall},
	// SPLIT(s, delimiter): SPLIT is a TiDB keyword (SPLIT TABLE).
	{"SPLIT", callNotTable, (*rewriter).renameCall},
	{"COUNT", countDistinctOver, (*rewriter).countDistinctOver},
	{"LISTAGG", listaggDistinct, (*rewriter).listaggDistinct},
	{"SELECT", nil, (*rewriter).selectWord},
	// ASC and DESC are not reserved in Flink's parser: in a select list
	// they can only be an alias (LimitTest's SELECT proctime desc, c).
	{"DESC", inSelectList, (*rewriter).quoteWord},
	{"ASC", inSelectList, (*rewriter).quoteWord},
	{"VALUES", inQuery, (*rewriter).valuesWord},
	{"FROM", inQuery, (*rewriter).fromWord},
	{"JOIN", inQuery, (*rewriter).joinWord},
	{"FULL", inFrom, (*rewriter).fullJoin},
	{"NATURAL", inQuery, (*rewriter).failHere}, // Flink has no NATURAL JOIN
	{"FOR", inQuery, (*rewriter).failHere},     // FOR UPDATE; FOR SYSTEM_TIME is read with its table
	{"UNNEST", tableCall, (*rewriter).unnest},
	{"TABLE", tableCall, (*rewriter).tableFunction},
	{keyIdent, plainTable, (*rewriter).tableRef},
	{keyIdent, reservedName, (*rewriter).quoteWord},
}

// renamed are function names TiDB's grammar treats specially (as window
// functions, date arithmetic or keywords) but Flink calls plainly; the
// pre-pass prefixes them so TiDB reads a generic call. CONCAT is here so
// that a concat coming back from TiDB is known to be "||".
var renamed = []string{"CONCAT", "FIRST_VALUE", "LAST_VALUE", "DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE",
	"CARDINALITY", "LEAD", "LAG", "NTH_VALUE", "GROUPING", "GROUPING_ID", "GROUP_ID", "REGEXP"}

// clauseEnds end a FROM list (and a VALUES list).
var clauseEnds = []string{"WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW",
	"OFFSET", "FETCH"}

// rulesByKey indexes the table; rules of one key keep the table's order.
var rulesByKey = map[string][]rule{}

func init() {
	rules = append(jsonRules(), rules...)
	for _, w := range renamed {
		rules = append(rules, rule{w, renamedCall, (*rewriter).renameCall})
	}
	for _, w := range clauseEnds {
		rules = append(rules, rule{w, inQuery, (*rewriter).clauseEnd})
	}
	for _, rl := range rules {
		rulesByKey[rl.key] = append(rulesByKey[rl.key], rl)
	}
}

// ruleKey is the key a token's rules are found under.
func ruleKey(t token) string {
	switch t.kind {
	case tIdent:
		return strings.ToUpper(t.text)
	case tOp:
		return t.text
	case tHint:
		return keyHint
	case tString:
		return keyString
	case tNumber:
		return keyNumber
	case tQuoted:
		return keyQuoted
	}
	return ""
}

// rewrite runs the pre-pass over tokens [from, to), starting in a query
// (asQuery) or an expression; lead is generated text put first ("SELECT"
// for an expression).
func (p *parser) rewrite(from, to int, asQuery bool, lead string) *rewriter {
	n := to - from
	r := &rewriter{p: p, from: from, to: to, lastEnd: -1, startOf: make([]int, n),
		itemStart: map[int]int{}, frameLits: map[int]*ast.Literal{}, nulls: map[int]bool{},
		queryHints: map[int][]ast.Hint{},
		countOver:  map[int]bool{}, listaggs: map[int]bool{}}
	r.matchBrackets()
	if lead != "" {
		r.pieces = append(r.pieces, piece{text: lead, orig: p.toks[from].off})
	}
	// A token read inside another's rule has no pieces of its own: an
	// x[i] whose x starts there wraps from the beginning.
	for i := range r.startOf {
		r.startOf[i] = len(r.pieces)
	}
	top := frame{kind: fExpr}
	if asQuery {
		top.kind = fQuery
	}
	r.stack = []frame{top}
	for j := from; j < to && p.err == nil; {
		j = r.step(j)
	}
	if p.err != nil {
		return r
	}
	r.endBareRow(r.cur(), p.toks[to-1].end)
	if len(r.stack) != 1 {
		p.fail(p.toks[to])
		return r
	}
	r.build()
	return r
}

// step applies the first rule that takes token j (or copies it) and
// returns the index of the next token.
func (r *rewriter) step(j int) int {
	t := r.p.toks[j]
	r.startOf[j-r.from] = len(r.pieces)
	if f := r.cur(); f.values && f.wantRow && !t.isOp("(") {
		// Calcite's VALUES takes a row without parentheses, one
		// expression (VALUES CAST(NULL AS INT), VALUES 1, 2): it is
		// ROW(expr) up to the comma or the list's end.
		r.synth("ROW(", t.off)
		f.wantRow, f.bareRow = false, true
	}
	key := ruleKey(t)
	for _, rl := range rulesByKey[key] {
		if rl.when == nil || rl.when(r, j) {
			return rl.do(r, j)
		}
	}
	if t.kind == tIdent {
		for _, rl := range rulesByKey[keyIdent] {
			if rl.when(r, j) {
				return rl.do(r, j)
			}
		}
	}
	return r.plain(j)
}

func (r *rewriter) cur() *frame { return &r.stack[len(r.stack)-1] }

func (r *rewriter) tok(j int) token { return r.p.toks[j] }

// emit writes a token as it is. A space separates it from the previous
// token only where the original had one, because MySQL's grammar reads
// "COUNT (*)" differently from "COUNT(*)".
func (r *rewriter) emit(t token) {
	r.pieces = append(r.pieces, piece{text: t.text, orig: t.off, n: len(t.text), space: r.lastEnd != t.off})
	r.lastEnd = t.end
}

// synth writes generated text that stands for the token at orig.
func (r *rewriter) synth(s string, orig int) {
	r.pieces = append(r.pieces, piece{text: s, orig: orig, space: true})
	r.lastEnd = -1
}

// build writes the pieces into the text for TiDB and the segments that map
// its offsets back.
func (r *rewriter) build() {
	var b strings.Builder
	r.segs = make([]segment, 0, len(r.pieces)+4)
	for _, pc := range r.pieces {
		if pc.pre != "" {
			r.segs = append(r.segs, segment{newOff: b.Len(), origOff: pc.orig})
			b.WriteString(pc.pre)
		}
		if pc.space {
			b.WriteByte(' ')
		}
		r.segs = append(r.segs, segment{newOff: b.Len(), origOff: pc.orig, n: pc.n})
		b.WriteString(pc.text)
	}
	r.text = b.String()
}

// orig maps an offset of the rewritten text back to the statement.
func (r *rewriter) orig(off int) int {
	i := sort.Search(len(r.segs), func(i int) bool { return r.segs[i].newOff > off }) - 1
	if i < 0 {
		if len(r.segs) > 0 {
			return r.segs[0].origOff
		}
		return 0
	}
	s := r.segs[i]
	if s.n > 0 && off-s.newOff < s.n {
		return s.origOff + off - s.newOff
	}
	if s.n > 0 && i+1 < len(r.segs) {
		return r.segs[i+1].origOff // in the space before the next piece
	}
	if s.n > 0 {
		return s.origOff + s.n
	}
	return s.origOff
}

// matchBrackets pairs closing with opening parentheses and brackets.
func (r *rewriter) matchBrackets() {
	n := r.to - r.from
	r.open, r.close = make([]int, n), make([]int, n)
	var stack []int
	for j := r.from; j < r.to; j++ {
		r.open[j-r.from], r.close[j-r.from] = -1, -1
		switch t := r.p.toks[j]; {
		case t.isOp("(") || t.isOp("["):
			stack = append(stack, j)
		case t.isOp(")") || t.isOp("]"):
			if len(stack) > 0 {
				o := stack[len(stack)-1]
				r.open[j-r.from], r.close[o-r.from] = o, j
				stack = stack[:len(stack)-1]
			}
		}
	}
}

// Conditions of the rules.

func inQuery(r *rewriter, _ int) bool { return r.cur().kind == fQuery }

func inFrom(r *rewriter, _ int) bool { f := r.cur(); return f.kind == fQuery && f.inFrom }

func inCast(r *rewriter, _ int) bool { return r.cur().kind == fCast }

func inSelectList(r *rewriter, _ int) bool { f := r.cur(); return f.kind == fQuery && f.selecting }

func wantsTable(r *rewriter, _ int) bool { f := r.cur(); return f.kind == fQuery && f.wantTable }

func nextIs(op string) func(*rewriter, int) bool {
	return func(r *rewriter, j int) bool { return j+1 < r.to && r.tok(j+1).isOp(op) }
}

// callNotTable: a call, not a table named like the function (CREATE TABLE
// split (...), INSERT INTO split (...)).
func callNotTable(r *rewriter, j int) bool {
	if !nextIs("(")(r, j) || wantsTable(r, j) || j == r.from {
		return false
	}
	p := r.tok(j - 1)
	return !(p.is("TABLE") || p.is("INTO") || p.is("VIEW") || p.is("EXISTS") || p.is("FROM") || p.is("JOIN") || p.isOp("."))
}

func nextWord(kw string) func(*rewriter, int) bool {
	return func(r *rewriter, j int) bool { return j+1 < r.to && r.tok(j+1).is(kw) }
}

func nextString(r *rewriter, j int) bool { return j+1 < r.to && r.tok(j+1).kind == tString }

func afterOperand(r *rewriter, j int) bool {
	if n := len(r.pieces); n > 0 && r.pieces[n-1].n == 0 && r.pieces[n-1].text == "," {
		return false // the word before was written as a comma (argComma)
	}
	return j > r.from && endsOperand(r.tok(j-1))
}

// unicodeString: a Unicode string literal, U&'...', which MySQL's grammar
// does not have.
func unicodeString(r *rewriter, j int) bool {
	return isUnicodeString(r.tok(j).text)
}

func notAfterIsNot(r *rewriter, j int) bool {
	if j > r.from && r.tok(j-1).is("IS") {
		return false
	}
	// IS NOT TRUE is MySQL's own predicate; a plain NOT TRUE is the
	// negation of the literal (MySQL's grammar would read TRUE as 1).
	return !(j > r.from+1 && r.tok(j-1).is("NOT") && r.tok(j-2).is("IS"))
}

// standardOffset: "OFFSET n" not written as MySQL's "LIMIT m OFFSET n".
func standardOffset(r *rewriter, j int) bool {
	return inQuery(r, j) && j+1 < r.to && r.tok(j+1).kind == tNumber && !(j >= r.from+2 && r.tok(j-2).is("LIMIT"))
}

func floorTo(r *rewriter, j int) bool {
	f := r.cur()
	return f.kind == fExpr && (f.fn == "FLOOR" || f.fn == "CEIL" || f.fn == "CEILING") && j+1 < r.to &&
		r.tok(j+1).kind == tIdent
}

func nullsOrder(r *rewriter, j int) bool {
	return j+1 < r.to && (r.tok(j+1).is("FIRST") || r.tok(j+1).is("LAST"))
}

func isDistinct(r *rewriter, j int) bool {
	return j+2 < r.to && (r.tok(j+1).is("DISTINCT") || r.tok(j+1).is("NOT") && r.tok(j+2).is("DISTINCT"))
}

// aggregateFilter: FILTER (WHERE after a call's ')'.
func aggregateFilter(r *rewriter, j int) bool {
	if j-1 < r.from || !r.tok(j-1).isOp(")") || j+2 >= r.to || !r.tok(j+1).isOp("(") || !r.tok(j+2).is("WHERE") {
		return false
	}
	open := r.open[j-1-r.from]
	return open-1 >= r.from && r.tok(open-1).kind == tIdent && !notOperand[strings.ToUpper(r.tok(open-1).text)]
}

// singleFieldRow: ROW(x), which Calcite reads as a one-field row and
// MySQL's grammar (whose ROW needs two values) refuses; it goes to TiDB
// as a plain call, read back as the same ROW constructor.
func singleFieldRow(r *rewriter, j int) bool {
	if !nextIs("(")(r, j) {
		return false
	}
	end := r.close[j+1-r.from]
	if end < 0 || end == j+2 {
		return false
	}
	for k := j + 2; k < end; k++ {
		t := r.tok(k)
		if t.isOp(",") {
			return false
		}
		if (t.isOp("(") || t.isOp("[")) && r.close[k-r.from] > k {
			k = r.close[k-r.from]
		}
	}
	return true
}

func tableCall(r *rewriter, j int) bool { return wantsTable(r, j) && nextIs("(")(r, j) }

func plainTable(r *rewriter, j int) bool {
	if !wantsTable(r, j) {
		return false
	}
	up := strings.ToUpper(r.tok(j).text)
	return !joinWords[up] && up != "LATERAL" && up != "UNNEST" && up != "TABLE"
}

func reservedName(r *rewriter, j int) bool {
	return tidbOnlyReserved[strings.ToUpper(r.tok(j).text)] && !nextIs("(")(r, j)
}

// renamedCall: a call (not a window function: TiDB reads LEAD(...) OVER
// itself).
// countDistinctOver: COUNT(DISTINCT ...) OVER (...), which Calcite takes
// and TiDB's grammar does not (its COUNT(DISTINCT ...) takes no OVER).
func countDistinctOver(r *rewriter, j int) bool {
	if !nextIs("(")(r, j) || j+2 >= r.to || !r.tok(j+2).is("DISTINCT") {
		return false
	}
	cl := r.close[j+1-r.from]
	return cl >= 0 && cl+1 < r.to && r.tok(cl+1).is("OVER")
}

// listaggDistinct: LISTAGG(DISTINCT ...), which Calcite takes and TiDB's
// grammar, which knows no LISTAGG, does not.
// (Not as a window function: Flink has no distinct LISTAGG OVER.)
func listaggDistinct(r *rewriter, j int) bool {
	return nextIs("(")(r, j) && j+2 < r.to && r.tok(j+2).is("DISTINCT") && renamedCall(r, j)
}

func renamedCall(r *rewriter, j int) bool {
	if !nextIs("(")(r, j) {
		return false
	}
	cl := r.close[j+1-r.from]
	return !(cl >= 0 && cl+1 < r.to && r.tok(cl+1).is("OVER"))
}

// Actions of the rules.

// plain copies token j.
// endBareRow closes the ROW( that a VALUES row without parentheses opened
// in frame f, if one is open.
func (r *rewriter) endBareRow(f *frame, off int) {
	if f.bareRow {
		r.synth(")", off)
		f.bareRow = false
	}
}

func (r *rewriter) plain(j int) int {
	r.cur().wantTable = false
	r.emit(r.tok(j))
	return j + 1
}

// failHere fails at token j; it returns the end of the range.
func (r *rewriter) failHere(j int) int { return r.failAt(r.tok(j)) }

// failAt fails at t; it returns the end of the range.
func (r *rewriter) failAt(t token) int {
	r.p.fail(t)
	return r.to
}

// isQueryAhead reports whether the tokens from j (after a '(') start a
// query, looking through nested parentheses.
func (p *parser) isQueryAhead(j int) bool {
	for j < len(p.toks) && p.toks[j].isOp("(") {
		j++
	}
	return j < len(p.toks) && (p.toks[j].is("SELECT") || p.toks[j].is("WITH") || p.toks[j].is("VALUES"))
}

func (r *rewriter) openParen(j int) int {
	t, f := r.tok(j), r.cur()
	nf := frame{kind: fExpr}
	if j > r.from && r.tok(j-1).kind == tIdent {
		nf.fn = strings.ToUpper(r.tok(j - 1).text)
	}
	if r.p.isQueryAhead(j + 1) {
		nf.kind = fQuery
		nf.tableSub = f.kind == fQuery && f.wantTable
		nf.lateral = f.kind == fQuery && j > r.from && r.tok(j-1).is("LATERAL")
		// Calcite takes a query as a function's argument, f(SELECT ...)
		// (CalcTest.testCoalesceOnInvalidField); TiDB wants f((SELECT ...)).
		nf.argQuery = nf.fn != "" && !nf.tableSub && !reserved[nf.fn] && !queryOperators[nf.fn] &&
			r.tok(j+1).is("SELECT")
	} else if f.kind == fQuery && f.wantTable {
		// a parenthesized join: FROM (a JOIN b ON ...)
		nf.kind, nf.inFrom, nf.wantTable = fQuery, true, true
	}
	if f.values && f.wantRow {
		r.synth("ROW(", t.off)
		f.wantRow = false
	} else {
		r.emit(t)
	}
	if nf.argQuery {
		r.synth("(", t.off)
	}
	f.wantTable = false
	r.stack = append(r.stack, nf)
	return j + 1
}

func (r *rewriter) closeParen(j int) int {
	t, f := r.tok(j), r.cur()
	if len(r.stack) == 1 || f.kind == fBracket {
		return r.failAt(t)
	}
	closed := *f
	if closed.kind == fCast && !r.typed[closed.cast] {
		return r.failAt(t) // CAST(x) without AS type
	}
	r.endBareRow(f, t.off)
	r.stack = r.stack[:len(r.stack)-1]
	if closed.argQuery {
		r.synth(")", t.off)
	}
	r.emit(t)
	if closed.kind == fQuery && closed.lateral && !r.aliasAhead(j+1) {
		// Calcite takes LATERAL (query) without an alias; TiDB wants
		// one: an empty placeholder alias.
		r.aliases = append(r.aliases, aliasInfo{})
		r.synth("AS "+aliasPrefix+strconv.Itoa(len(r.aliases)-1), t.off)
		return j + 1
	}
	if closed.kind == fQuery && closed.tableSub {
		return r.derivedAlias(j + 1)
	}
	return j + 1
}

// aliasAhead reports whether the tokens from k start an alias: AS, or a
// name that is not a join or clause word.
func (r *rewriter) aliasAhead(k int) bool {
	p, to := r.p, r.to
	if k >= to {
		return false
	}
	if p.toks[k].is("AS") {
		return true
	}
	return p.toks[k].isIdent() && !joinWords[strings.ToUpper(p.toks[k].text)] && !isClauseEnd(p.toks[k])
}

// whenList: a WHEN whose values before THEN are a list (CASE x WHEN 1, 2
// THEN ...), which Calcite's grammar takes (ExpressionCommaList) and TiDB's
// does not.
func whenList(r *rewriter, j int) bool {
	depth := 0
	for k := j + 1; k < r.to; k++ {
		t := r.tok(k)
		switch {
		case t.isOp("(") || t.isOp("[") || t.is("CASE"):
			depth++
		case t.isOp(")") || t.isOp("]") || t.is("END"):
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && t.isOp(","):
			return true
		case depth == 0 && (t.is("THEN") || t.is("WHEN")):
			return false
		}
	}
	return false
}

// whenList writes WHEN a, b THEN as WHEN __sqlrun_whenlist(a, b) THEN; the
// conversion reads the call back as the list.
func (r *rewriter) whenList(j int) int {
	r.emit(r.tok(j))
	r.synth(whenListFunc+"(", r.tok(j).off)
	r.stack = append(r.stack, frame{kind: fWhenList})
	return j + 1
}

func endsWhenList(r *rewriter, _ int) bool { return r.cur().kind == fWhenList }

func (r *rewriter) endWhenList(j int) int {
	r.stack = r.stack[:len(r.stack)-1]
	r.synth(")", r.tok(j).off)
	r.emit(r.tok(j))
	return j + 1
}

// fieldAfter: a '.' and a name after an expression that is not a column
// reference of up to three names (TiDB's limit): (x).f, f(x).f, x[i].f,
// and the fourth and later names of a.b.c.d.
func fieldAfter(r *rewriter, j int) bool { return r.fieldBase(j) >= 0 }

// fieldBase finds where the x of "x.f" starts, for the '.' at j, or -1.
func (r *rewriter) fieldBase(j int) int {
	toks, from := r.p.toks, r.from
	if j+1 >= r.to || !toks[j+1].isIdent() || j-1 < from {
		return -1
	}
	k := j - 1
	switch {
	case toks[k].isOp(")") || toks[k].isOp("]"):
		return r.itemBase(j)
	case toks[k].isIdent():
		n := 1
		for k-2 >= from && toks[k-1].isOp(".") && toks[k-2].isIdent() {
			k -= 2
			n++
		}
		if n >= 3 {
			return k
		}
		if k-2 >= from && toks[k-1].isOp(".") && (toks[k-2].isOp(")") || toks[k-2].isOp("]")) {
			// (x).f.g: the chain continues an access.
			return r.itemBase(k - 1)
		}
	}
	return -1
}

// fieldAccess: x.f becomes __sqlrun_field(x, 'f').
func (r *rewriter) fieldAccess(j int) int {
	s := r.fieldBase(j)
	if at := r.startOf[s-r.from]; at < len(r.pieces) {
		r.pieces[at].pre = " " + fieldFunc + "(" + r.pieces[at].pre
	}
	name := r.tok(j + 1).name()
	r.synth(", '"+strings.ReplaceAll(name, "'", "''")+"')", r.tok(j).off)
	return j + 2
}

// openItem: x[i] becomes __sqlrun_item(x, i).
func (r *rewriter) openItem(j int) int {
	t := r.tok(j)
	s := r.itemBase(j)
	if s < 0 {
		return r.failAt(t)
	}
	r.itemStart[j] = s
	if at := r.startOf[s-r.from]; at < len(r.pieces) {
		r.pieces[at].pre = " " + itemFunc + "(" + r.pieces[at].pre
	}
	r.synth(",", t.off)
	r.cur().wantTable = false
	r.stack = append(r.stack, frame{kind: fBracket})
	return j + 1
}

func (r *rewriter) closeBracket(j int) int {
	t := r.tok(j)
	if r.cur().kind != fBracket {
		return r.failAt(t)
	}
	r.stack = r.stack[:len(r.stack)-1]
	r.synth(")", t.off)
	r.lastEnd = t.end
	return j + 1
}

func (r *rewriter) comma(j int) int {
	f := r.cur()
	if f.values {
		r.endBareRow(f, r.tok(j).off)
		f.wantRow = true
	}
	if f.kind == fQuery && f.inFrom {
		f.wantTable = true
	}
	r.emit(r.tok(j))
	return j + 1
}

func (r *rewriter) number(j int) int {
	t := r.tok(j)
	r.p.numberLiteral(t) // range checks with Calcite's messages
	if strings.HasSuffix(t.text, ".") {
		// "1." is a decimal to Calcite, but TiDB reads "1. AS x" as a
		// qualified name: spell it "1.0".
		r.synth(t.text+"0", t.off)
		r.cur().wantTable = false
		return j + 1
	}
	return r.plain(j)
}

// offsetRows: standard "OFFSET n [ROWS] [FETCH {FIRST|NEXT} m {ROW|ROWS}
// ONLY]" is MySQL's "LIMIT m OFFSET n" (no FETCH: unlimitedRows); "LIMIT m
// OFFSET n" goes to TiDB as it is.
func (r *rewriter) offsetRows(j int) int {
	count, k := strconv.FormatInt(unlimitedRows, 10), j+2
	if k < r.to && (r.tok(k).is("ROWS") || r.tok(k).is("ROW")) {
		k++
	}
	if n, ok := fetchClause(r.p, k, r.to); ok {
		count, k = n, k+5
	}
	r.synth("LIMIT "+count+" OFFSET "+r.tok(j+1).text, r.tok(j).off)
	r.lastEnd = r.tok(k - 1).end
	return k
}

func (r *rewriter) fetchFirst(j int) int {
	n, ok := fetchClause(r.p, j, r.to)
	if !ok {
		return r.failHere(j)
	}
	r.synth("LIMIT "+n, r.tok(j).off)
	r.lastEnd = r.tok(j + 4).end
	return j + 5
}

// cast: CAST/TRY_CAST( becomes __sqlrun_cast_N(; castType reads the type.
func (r *rewriter) cast(j int) int {
	t := r.tok(j)
	c := &ast.Cast{Node: ast.Node{At: r.p.pos(t)}, Try: t.is("TRY_CAST")}
	r.casts = append(r.casts, c)
	r.typed = append(r.typed, false)
	r.synth(castPrefix+strconv.Itoa(len(r.casts)-1), t.off)
	r.lastEnd = t.end
	r.emit(r.tok(j + 1))
	r.stack = append(r.stack, frame{kind: fCast, cast: len(r.casts) - 1})
	return j + 2
}

func (r *rewriter) castType(j int) int {
	p, f := r.p, r.cur()
	p.i = j + 1
	r.casts[f.cast].Type = p.dataType()
	r.typed[f.cast] = true
	if p.i > r.to || !p.peek().isOp(")") {
		return r.failAt(p.peek())
	}
	return p.i
}

func (r *rewriter) boolLiteral(j int) int {
	t := r.tok(j)
	up := strings.ToUpper(t.text)
	r.lit(&ast.Literal{Node: ast.Node{At: r.p.pos(t)}, Kind: ast.LitBool, Raw: up, Value: up == "TRUE",
		Type: sql.Boolean().NotNull()}, t.off)
	return j + 1
}

func (r *rewriter) temporal(j int) int {
	r.lit(r.p.temporalLiteral(r.tok(j), r.tok(j+1)), r.tok(j).off)
	return j + 2
}

// unicodeString keeps a U&'...' literal, its escapes decoded.
func (r *rewriter) unicodeString(j int) int {
	r.lit(r.p.stringLiteral(r.tok(j)), r.tok(j).off)
	return j + 1
}

func (r *rewriter) interval(j int) int {
	lit, next := r.p.intervalLiteral(j, r.to)
	if lit == nil {
		return r.to
	}
	if next < r.to && (r.tok(next).is("PRECEDING") || r.tok(next).is("FOLLOWING")) {
		// A RANGE frame bound: TiDB has the same INTERVAL syntax there
		// (and no other expression), so pass it through and find the
		// literal again by its value token.
		for k := j; k < next; k++ {
			r.emit(r.tok(k))
		}
		r.frameLits[r.tok(j+1).off] = lit
		return next
	}
	r.lit(lit, r.tok(j).off)
	return next
}

// emptyGroupingSet: "()" as a grouping set, in GROUPING SETS (..., (), ...)
// or GROUP BY ().
func emptyGroupingSet(r *rewriter, j int) bool {
	if j+1 >= r.to || !r.tok(j+1).isOp(")") || j == r.from {
		return false
	}
	prev := r.tok(j - 1)
	return prev.isOp("(") || prev.isOp(",") || prev.is("BY") && j-2 >= r.from && r.tok(j-2).is("GROUP")
}

// emptyGroupingSet writes the empty grouping set as a call the conversion
// reads back (GROUPING_EMPTY()).
func (r *rewriter) emptyGroupingSet(j int) int {
	r.synth(fnPrefix+"GROUPING_EMPTY()", r.tok(j).off)
	r.lastEnd = r.tok(j + 1).end
	return j + 2
}

// groupingSets writes GROUPING SETS as the call GROUPING_SETS.
func (r *rewriter) groupingSets(j int) int {
	r.synth(fnPrefix+"GROUPING_SETS", r.tok(j).off)
	r.lastEnd = r.tok(j + 1).end
	return j + 2
}

func (r *rewriter) renameCall(j int) int {
	t := r.tok(j)
	r.synth(fnPrefix+strings.ToUpper(t.text), t.off)
	r.lastEnd = t.end
	return j + 1
}

// countDistinctOver writes GROUP_CONCAT, whose TiDB rule takes DISTINCT,
// an expression list and OVER, and records the call so that the
// conversion reads it back as COUNT.
func (r *rewriter) countDistinctOver(j int) int {
	t := r.tok(j)
	r.synth("GROUP_CONCAT", t.off)
	r.lastEnd = t.end
	r.countOver[t.off] = true
	return j + 1
}

// listaggDistinct writes GROUP_CONCAT, whose TiDB rule takes DISTINCT and
// an expression list, and records the call so that the conversion reads
// it back as LISTAGG.
func (r *rewriter) listaggDistinct(j int) int {
	t := r.tok(j)
	r.synth("GROUP_CONCAT", t.off)
	r.lastEnd = t.end
	r.listaggs[t.off] = true
	return j + 1
}

// constructor: ARRAY[...] and MAP[...] become calls.
func (r *rewriter) constructor(j int) int {
	t := r.tok(j)
	r.synth(fnPrefix+strings.ToUpper(t.text)+"(", t.off)
	r.lastEnd = r.tok(j + 1).end
	r.itemStart[j+1] = j // ARRAY[...][i] indexes the constructor
	r.stack = append(r.stack, frame{kind: fBracket})
	return j + 2
}

// floorUnit: FLOOR(ts TO DAY); TiDB reads a second argument.
func (r *rewriter) floorUnit(j int) int {
	r.synth(", "+unitPrefix+strings.ToUpper(r.tok(j+1).text), r.tok(j).off)
	return j + 2
}

// nullsOrder: ORDER BY x [DESC] NULLS FIRST|LAST; TiDB has no such clause,
// so it is kept by the start of the ordering expression.
func (r *rewriter) nullsOrder(j int) int {
	k := j - 1
	if k >= r.from && (r.tok(k).is("ASC") || r.tok(k).is("DESC")) {
		k--
	}
	for k >= r.from && !r.tok(k).isOp(",") && !r.tok(k).is("BY") {
		if o := r.open[k-r.from]; o >= 0 {
			k = o
		}
		k--
	}
	if k < r.from || k+1 >= j {
		return r.failHere(j)
	}
	r.nulls[r.tok(k+1).off] = r.tok(j + 1).is("FIRST")
	return j + 2
}

func (r *rewriter) similarTo(j int) int {
	r.synth("REGEXP", r.tok(j).off)
	return j + 2
}

func (r *rewriter) isDistinct(j int) int {
	k := j + 2
	if r.tok(j + 1).is("NOT") {
		k++
	}
	if k >= r.to || !r.tok(k).is("FROM") {
		return r.failAt(r.p.toks[min(k, len(r.p.toks)-1)])
	}
	r.synth("<=>", r.tok(j).off)
	r.distinct = append(r.distinct, distinctOp{orig: r.tok(j).off, is: k == j+2})
	return k + 1
}

// overlaps writes (a, b) OVERLAPS (c, d) as TiDB's row comparison
// (a, b) <=> (c, d), recorded so that the conversion reads it back as
// OVERLAPS (distinctOp).
func (r *rewriter) overlaps(j int) int {
	r.synth("<=>", r.tok(j).off)
	r.distinct = append(r.distinct, distinctOp{orig: r.tok(j).off, overlaps: true})
	return j + 1
}

// trimModeOnly: TRIM(BOTH s) without FROM, which Calcite's grammar reads
// as the string s trimmed of spaces and TiDB's does not take: written
// TRIM(BOTH FROM s).
func trimModeOnly(r *rewriter, j int) bool {
	f := r.cur()
	if f.kind != fExpr || f.fn != "TRIM" || !r.tok(j-1).isOp("(") {
		return false
	}
	end := r.close[j-1-r.from]
	if end < 0 || end == j+1 {
		return false
	}
	depth := 0
	for k := j + 1; k < end; k++ {
		switch t := r.tok(k); {
		case t.isOp("(") || t.isOp("["):
			depth++
		case t.isOp(")") || t.isOp("]"):
			depth--
		case depth == 0 && t.is("FROM"):
			return false
		}
	}
	return true
}

func (r *rewriter) trimModeOnly(j int) int {
	r.plain(j)
	r.synth("FROM", r.tok(j).off)
	return j + 1
}

// inCall: directly inside the parentheses of a call of fn.
func inCall(fn string) func(*rewriter, int) bool {
	return func(r *rewriter, _ int) bool { f := r.cur(); return f.kind == fExpr && f.fn == fn }
}

// argComma writes a keyword that separates a call's arguments as a comma.
func (r *rewriter) argComma(j int) int {
	r.synth(",", r.tok(j).off)
	return j + 1
}

// extractOnly are the EXTRACT units Calcite's grammar has and TiDB's lacks.
var extractOnly = map[string]bool{"EPOCH": true, "MILLISECOND": true, "NANOSECOND": true, "DOW": true, "DOY": true,
	"ISODOW": true, "ISOYEAR": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true}

// extractUnit: EXTRACT(unit FROM x) with a unit TiDB's grammar lacks.
func extractUnit(r *rewriter, j int) bool {
	return j+3 < r.to && r.tok(j+1).isOp("(") && r.tok(j+2).kind == tIdent && r.tok(j+3).is("FROM") &&
		extractOnly[strings.ToUpper(r.tok(j+2).text)]
}

// tsDiffUnit: TIMESTAMPDIFF(NANOSECOND, a, b), a unit Calcite's grammar
// has (TimestampInterval) and TiDB's lacks.
func tsDiffUnit(r *rewriter, j int) bool {
	return j+3 < r.to && r.tok(j+1).isOp("(") && r.tok(j+2).is("NANOSECOND") && r.tok(j+3).isOp(",")
}

// tsDiffUnit writes TIMESTAMPDIFF(NANOSECOND, a, b) as a plain call with
// the unit as its first argument, as extractUnit does.
func (r *rewriter) tsDiffUnit(j int) int {
	t := r.tok(j)
	r.synth(fnPrefix+"TIMESTAMPDIFF("+unitPrefix+"NANOSECOND", t.off)
	r.cur().wantTable = false
	r.stack = append(r.stack, frame{kind: fExpr, fn: "TIMESTAMPDIFF"})
	return j + 3
}

// currentDateArgs: CURRENT_DATE(x, ...), which Calcite's grammar parses
// as a call (the validator then finds no CURRENT_DATE of those
// arguments) and TiDB's refuses.
func currentDateArgs(r *rewriter, j int) bool {
	return j+2 < r.to && r.tok(j+1).isOp("(") && !r.tok(j+2).isOp(")")
}

// currentDateArgs writes CURRENT_DATE(x) as a plain call.
func (r *rewriter) currentDateArgs(j int) int {
	t := r.tok(j)
	r.synth(fnPrefix+"CURRENT_DATE(", t.off)
	r.cur().wantTable = false
	r.stack = append(r.stack, frame{kind: fExpr, fn: "CURRENT_DATE"})
	return j + 2
}

// extractUnit writes EXTRACT(EPOCH FROM x) as a plain call with the unit as
// its first argument, as FLOOR(x TO unit) is written.
func (r *rewriter) extractUnit(j int) int {
	t := r.tok(j)
	r.synth(fnPrefix+"EXTRACT("+unitPrefix+strings.ToUpper(r.tok(j+2).text)+",", t.off)
	r.cur().wantTable = false
	r.stack = append(r.stack, frame{kind: fExpr, fn: "EXTRACT"})
	return j + 4
}

// between drops the SYMMETRIC / ASYMMETRIC after a BETWEEN, which TiDB's
// grammar lacks, and records every BETWEEN with whether it was SYMMETRIC.
func (r *rewriter) between(j int) int {
	r.plain(j)
	sym := false
	if j+1 < r.to && (r.tok(j+1).is("SYMMETRIC") || r.tok(j+1).is("ASYMMETRIC")) {
		sym = r.tok(j + 1).is("SYMMETRIC")
		j++
	}
	r.betweens = append(r.betweens, betweenOp{orig: r.tok(j).off, symmetric: sym})
	return j + 1
}

// aggregateFilter wraps the call before FILTER: its ')' closes the
// wrapper's argument list.
func (r *rewriter) aggregateFilter(j int) int {
	call := r.open[j-1-r.from] - 1
	if at := r.startOf[call-r.from]; at < len(r.pieces) {
		r.pieces[at].pre = " " + filterFunc + "(" + r.pieces[at].pre
	}
	r.synth(",", r.tok(j).off)
	r.cur().wantTable = false
	r.stack = append(r.stack, frame{kind: fExpr})
	return j + 3
}

// queryHint reads the /*+ ... */ right after a SELECT as the query's
// hints. Calcite's grammar takes one hint comment there: a second one is a
// parse error (JoinHintTestBase.testJoinHintsWithMultiHintsThrowException).
// A hint comment anywhere else is skipped as a comment.
func (r *rewriter) queryHint(j int) int {
	if j > r.from && r.tok(j-1).is("SELECT") {
		r.queryHints[r.tok(j-1).off] = r.p.hints(r.tok(j))
	} else if j > r.from+1 && r.tok(j-1).kind == tHint && r.tok(j-2).is("SELECT") {
		return r.failAt(r.tok(j))
	}
	return j + 1
}

func (r *rewriter) selectWord(j int) int {
	r.queryStarts = append(r.queryStarts, r.tok(j).off)
	f := r.cur()
	f.inFrom, f.values, f.selecting = false, false, true
	return r.plain(j)
}

func (r *rewriter) valuesWord(j int) int {
	r.queryStarts = append(r.queryStarts, r.tok(j).off)
	f := r.cur()
	f.values, f.wantRow = true, true
	return r.plain(j)
}

func (r *rewriter) fromWord(j int) int {
	f := r.cur()
	f.inFrom, f.wantTable, f.selecting = true, true, false
	r.emit(r.tok(j))
	return j + 1
}

func (r *rewriter) joinWord(j int) int {
	r.cur().wantTable = true
	r.emit(r.tok(j))
	return j + 1
}

func (r *rewriter) clauseEnd(j int) int {
	f := r.cur()
	r.endBareRow(f, r.tok(j).off)
	f.inFrom, f.wantTable, f.values, f.selecting = false, false, false, false
	return r.plain(j)
}

// fullJoin: FULL [OUTER] JOIN t becomes LEFT JOIN with t marked full.
func (r *rewriter) fullJoin(j int) int {
	k := j + 1
	if k < r.to && r.tok(k).is("OUTER") {
		k++
	}
	if k >= r.to || !r.tok(k).is("JOIN") {
		return r.failAt(r.p.toks[min(k, len(r.p.toks)-1)])
	}
	// The right side is a table name or a subquery (whose alias then
	// carries the mark, see derivedAlias).
	if k+1 < r.to && !r.tok(k+1).isIdent() && !(r.tok(k+1).isOp("(") && r.p.isQueryAhead(k+2)) {
		return r.failHere(j)
	}
	r.synth("LEFT", r.tok(j).off)
	r.emit(r.tok(k))
	f := r.cur()
	f.wantTable, f.fullNext = true, true
	return k + 1
}

func (r *rewriter) quoteWord(j int) int {
	t := r.tok(j)
	r.synth("`"+t.text+"`", t.off)
	r.cur().wantTable = false
	return j + 1
}

// joinWords cannot start a table reference.
var joinWords = map[string]bool{
	"JOIN": true, "LEFT": true, "RIGHT": true, "INNER": true, "CROSS": true, "OUTER": true, "FULL": true, "NATURAL": true,
	"ON": true, "USING": true, "AS": true,
}

// notOperand are keywords after which '[' cannot index anything.
var notOperand = map[string]bool{
	"SELECT": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "ON": true, "BY": true, "WHEN": true,
	"THEN": true, "ELSE": true, "CASE": true, "IN": true, "IS": true, "LIKE": true, "BETWEEN": true, "AS": true,
	"FROM": true, "HAVING": true, "DISTINCT": true, "ALL": true, "VALUES": true, "LIMIT": true, "OFFSET": true,
	"JOIN": true, "USING": true, "SIMILAR": true, "ESCAPE": true, "TO": true, "INTERVAL": true,
}

// tidbOnlyReserved are words MySQL (TiDB) reserves but Flink lets users
// take as names (key, index, rank, database, ...). Where one is used as a
// name (not followed by '('), the pre-pass quotes it for TiDB.
var tidbOnlyReserved = wordSet(`ADD ALTER ANALYZE BIGINT BINARY BLOB CALL CASCADE CHANGE CHAR CHARACTER CHECK COLUMN
	CONSTRAINT CONTINUE CONVERT CREATE CUME_DIST CURRENT_ROLE CURSOR DATABASE DATABASES DAY_HOUR DAY_MICROSECOND
	DAY_MINUTE DAY_SECOND DECIMAL DEFAULT DELAYED DELETE DENSE_RANK DESCRIBE DISTINCTROW DOUBLE DROP DUAL ELSEIF
	ENCLOSED ESCAPED EXIT EXPLAIN FIRST_VALUE FLOAT FLOAT4 FLOAT8 FORCE FOREIGN FULLTEXT GENERATED GRANT GROUPS
	HIGH_PRIORITY HOUR_MICROSECOND HOUR_MINUTE HOUR_SECOND IF IGNORE INDEX INFILE INOUT INSERT INT INT1 INT2
	INT3 INT4 INT8 INTEGER INTO ITERATE KEY KEYS KILL LAG LAST_VALUE LEAD LEAVE LINEAR LINES LOAD LOCK LONG
	LONGBLOB LONGTEXT LOW_PRIORITY MATCH MAXVALUE MEDIUMBLOB MEDIUMINT MEDIUMTEXT MIDDLEINT MINUTE_MICROSECOND
	MINUTE_SECOND NO_WRITE_TO_BINLOG NTH_VALUE NTILE NUMERIC OPTIMIZE OPTION OPTIONALLY OUT OUTFILE
	PERCENT_RANK PRECISION PRIMARY PROCEDURE RANK READ REAL RECURSIVE REFERENCES RELEASE RENAME REPEAT REPLACE
	REQUIRE RESTRICT REVOKE ROW_NUMBER SECOND_MICROSECOND SET SHOW SMALLINT SPATIAL SQL SQLEXCEPTION SQLSTATE
	SQLWARNING SQL_BIG_RESULT SQL_CALC_FOUND_ROWS SQL_SMALL_RESULT SSL STARTING STORED STRAIGHT_JOIN
	TABLESAMPLE TERMINATED TIDB_CURRENT_TSO TINYBLOB TINYINT TINYTEXT TRIGGER UNIQUE UNLOCK UNSIGNED UNTIL
	UPDATE USAGE USE UTC_DATE UTC_TIME UTC_TIMESTAMP VARBINARY VARCHAR VARCHARACTER VARYING VIRTUAL WHILE WRITE
	YEAR_MONTH ZEROFILL`)

// beforeString are the words that may stand right before a string literal.
var beforeString = wordSet(`SELECT WHERE AND OR NOT ON BY WHEN THEN ELSE CASE IN IS LIKE ILIKE BETWEEN
	AS FROM HAVING DISTINCT ALL VALUES LIMIT OFFSET JOIN USING SIMILAR ESCAPE TO INTERVAL BOTH LEADING
	TRAILING FOR DATE TIME TIMESTAMP TIMESTAMP_LTZ ANY SOME EXISTS RETURNING DEFAULT ERROR EMPTY NULL WITH
	ARRAY MAP ROW UNION EXCEPT INTERSECT ORDER GROUP OVER PARTITION RANGE ROWS PRECEDING FOLLOWING CURRENT
	FILTER WITHIN DESCRIPTOR TABLE LATERAL UNNEST SET UPDATE MOD DIV XOR REGEXP RLIKE SEPARATOR CHARACTER
	COLLATE KEY VALUE ON_ERROR ON_EMPTY`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// endsOperand reports tokens that complete an operand, after which a string
// literal cannot follow in Flink SQL.
func endsOperand(t token) bool {
	switch t.kind {
	case tNumber, tString, tQuoted, tParam, tBinary:
		return true
	case tOp:
		return t.text == ")" || t.text == "]"
	case tIdent:
		return !beforeString[strings.ToUpper(t.text)]
	}
	return false
}

// itemBase finds where the x of "x[i]" starts, for the '[' at j: a dotted
// name, a call or parenthesized group, or an earlier item access. It returns
// -1 when there is none.
func (r *rewriter) itemBase(j int) int {
	toks, from := r.p.toks, r.from
	k := j - 1
	if k < from {
		return -1
	}
	switch {
	case toks[k].isOp("]"):
		open := r.open[k-from]
		if open < 0 {
			return -1
		}
		if s, ok := r.itemStart[open]; ok {
			return s
		}
		return -1
	case toks[k].isOp(")"):
		open := r.open[k-from]
		if open < 0 {
			return -1
		}
		k = open
		if k-1 >= from && toks[k-1].isIdent() && !(toks[k-1].kind == tIdent && notOperand[strings.ToUpper(toks[k-1].text)]) {
			k-- // a call: f(x)[i], f(x).f
		} else {
			return k
		}
	case !toks[k].isIdent() || toks[k].kind == tIdent && notOperand[strings.ToUpper(toks[k].text)]:
		return -1
	}
	for k-2 >= from && toks[k-1].isOp(".") && toks[k-2].isIdent() {
		k -= 2
	}
	if k-2 >= from && toks[k-1].isOp(".") && toks[k-2].isOp("]") {
		// x[i].f[j]: the field of an earlier item access
		if open := r.open[k-2-from]; open >= 0 {
			if s, ok := r.itemStart[open]; ok {
				return s
			}
		}
	}
	return k
}

// lit emits a literal placeholder.
func (r *rewriter) lit(l *ast.Literal, off int) {
	r.lits = append(r.lits, l)
	r.synth(litPrefix+strconv.Itoa(len(r.lits)-1)+"()", off)
}

// tableRef reads a table name with its hints at j and emits a placeholder;
// it returns the index after them.
func (r *rewriter) tableRef(j int) int {
	p, to := r.p, r.to
	first := p.toks[j]
	parts := []string{first.name()}
	j++
	for j+1 < to && p.toks[j].isOp(".") && p.toks[j+1].isIdent() {
		parts = append(parts, p.toks[j+1].name())
		j += 2
	}
	if len(parts) > 3 {
		return r.failAt(first)
	}
	info := tableInfo{name: ast.ObjectName{Node: ast.Node{At: p.pos(first)}}}
	switch len(parts) {
	case 1:
		info.name.Table = parts[0]
	case 2:
		info.name.Database, info.name.Table = parts[0], parts[1]
	case 3:
		info.name.Catalog, info.name.Database, info.name.Table = parts[0], parts[1], parts[2]
	}
	for j < to && p.toks[j].kind == tHint {
		info.hints = append(info.hints, p.hints(p.toks[j])...)
		j++
	}
	if j+3 < to && p.toks[j].is("FOR") && p.toks[j+1].is("SYSTEM_TIME") && p.toks[j+2].is("AS") && p.toks[j+3].is("OF") {
		from := j + 4
		end := asOfEnd(p.toks, from, to)
		if end == from {
			return r.failAt(p.toks[from])
		}
		save := p.i
		info.asOf = p.exprRange(from, end)
		p.i = save
		j = end
	}
	f := r.cur()
	info.full = f.fullNext
	f.wantTable, f.fullNext = false, false
	r.tables = append(r.tables, info)
	r.synth(tablePrefix+strconv.Itoa(len(r.tables)-1), first.off)
	return j
}

// tableFunction reads TABLE(fn(arg, ...)) at j, our own grammar since TiDB
// has none, and emits a table placeholder; it returns the index after it.
func (r *rewriter) tableFunction(j int) int {
	p := r.p
	start := p.toks[j]
	save := p.i
	defer func() { p.i = save }()
	p.i = j + 1
	p.expectOp("(")
	name, _ := p.ident()
	tf := &ast.TableFunctionRef{Node: ast.Node{At: p.pos(start)}, Name: strings.ToUpper(name)}
	p.expectOp("(")
	if !p.acceptOp(")") {
		for p.err == nil {
			tf.Args = append(tf.Args, p.tableFuncArg())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	p.expectOp(")")
	if p.i > r.to {
		p.fail(p.toks[r.to])
	}
	if p.err != nil {
		return r.to
	}
	r.tables = append(r.tables, tableInfo{name: ast.ObjectName{Node: tf.Node, Table: tf.Name}, fn: tf})
	r.synth(tablePrefix+strconv.Itoa(len(r.tables)-1), start.off)
	r.cur().wantTable = false
	return p.i
}

// tableFuncArg reads one argument of a table function: [name =>] TABLE t,
// DESCRIPTOR(cols) or an expression.
func (p *parser) tableFuncArg() ast.TableFuncArg {
	at := p.peek()
	arg := ast.TableFuncArg{Node: ast.Node{At: p.pos(at)}}
	if at.isIdent() && p.peekAt(1).isOp("=>") {
		arg.Name = at.name()
		p.next()
		p.next()
	}
	switch t := p.peek(); {
	case t.is("TABLE"):
		p.next()
		n := p.objectName()
		arg.Table = &n
		// TABLE t PARTITION BY k | (k, ...) (a set-semantics table
		// argument, as SESSION takes it).
		if p.peek().is("PARTITION") && p.peekAt(1).is("BY") {
			p.next()
			p.next()
			if p.peek().isOp("(") {
				arg.Partition = p.identList()
			} else {
				k, _ := p.ident()
				arg.Partition = []string{k}
			}
		}
	case t.is("DESCRIPTOR") && p.peekAt(1).isOp("("):
		p.next()
		arg.Descriptor = p.identList()
	default:
		arg.Expr = p.exprUntil(func(t token) bool { return t.isOp(",") || t.isOp(")") })
	}
	return arg
}

// unnest reads UNNEST(expr, ...) [WITH ORDINALITY] [[AS] t [(cols)]] at j
// and emits a table placeholder (with the alias, which TiDB reads);
// it returns the index after what it consumed.
func (r *rewriter) unnest(j int) int {
	p := r.p
	start := p.toks[j]
	save := p.i
	defer func() { p.i = save }()
	p.i = j + 1
	p.expectOp("(")
	u := &ast.Unnest{Node: ast.Node{At: p.pos(start)}}
	for p.err == nil {
		u.Args = append(u.Args, p.exprUntil(func(t token) bool { return t.isOp(",") || t.isOp(")") }))
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	if p.peek().is("WITH") && p.peekAt(1).is("ORDINALITY") {
		p.next()
		p.next()
		u.WithOrdinality = true
	}
	if p.i > r.to {
		p.fail(p.toks[r.to])
	}
	if p.err != nil {
		return r.to
	}
	r.tables = append(r.tables, tableInfo{name: ast.ObjectName{Node: u.Node, Table: "UNNEST"}, unnest: u})
	r.synth(tablePrefix+strconv.Itoa(len(r.tables)-1), start.off)
	r.cur().wantTable = false
	return r.derivedAlias(p.i)
}

// asOfWords end the expression of FOR SYSTEM_TIME AS OF.
var asOfWords = wordSet(`AS ON JOIN LEFT RIGHT INNER FULL CROSS USING WHERE GROUP HAVING ORDER LIMIT UNION
	EXCEPT INTERSECT WINDOW`)

// asOfEnd finds the end of the expression after FOR SYSTEM_TIME AS OF: the
// first clause word, ',' or ')' at its own parenthesis depth, or an alias
// written right after a name or ')'.
func asOfEnd(toks []token, from, to int) int {
	depth := 0
	for j := from; j < to; j++ {
		t := toks[j]
		switch {
		case t.isOp("("):
			depth++
			continue
		case t.isOp(")"):
			if depth == 0 {
				return j
			}
			depth--
			continue
		}
		if depth > 0 {
			continue
		}
		if t.isOp(",") || t.kind == tIdent && asOfWords[strings.ToUpper(t.text)] {
			return j
		}
		if j > from && t.isIdent() && (toks[j-1].isIdent() || toks[j-1].isOp(")")) {
			return j
		}
	}
	return to
}

// derivedAlias handles "[AS] alias (c1, c2)" after a subquery in FROM: TiDB
// has no derived column lists, so the alias becomes a placeholder. It
// returns the index of the first token not consumed.
//
// A subquery on the right of a FULL JOIN always gets a placeholder alias,
// marked full (the join is handed to TiDB as a LEFT JOIN).
func (r *rewriter) derivedAlias(j int) int {
	p, to := r.p, r.to
	f := r.cur()
	full := f.fullNext
	f.fullNext = false
	k := j
	if k < to && p.toks[k].is("AS") {
		k++
	}
	named := k < to && p.toks[k].isIdent() && !joinWords[strings.ToUpper(p.toks[k].text)] && !isClauseEnd(p.toks[k])
	if full && !(named && k+1 < to && p.toks[k+1].isOp("(")) {
		at, end, name := p.toks[j-1].off, j, ""
		if named {
			at, end, name = p.toks[k].off, k+1, p.toks[k].name()
		}
		r.aliases = append(r.aliases, aliasInfo{name: name, full: true})
		r.synth("AS "+aliasPrefix+strconv.Itoa(len(r.aliases)-1), at)
		return end
	}
	if named && k+1 < to && p.toks[k+1].isOp("(") {
		save := p.i
		p.i = k + 1
		cols := p.identList()
		end := p.i
		p.i = save
		if end > to {
			return r.failAt(p.toks[to])
		}
		r.aliases = append(r.aliases, aliasInfo{name: p.toks[k].name(), cols: cols, full: full})
		r.synth("AS "+aliasPrefix+strconv.Itoa(len(r.aliases)-1), p.toks[k].off)
		return end
	}
	return j
}

func isClauseEnd(t token) bool {
	for _, w := range clauseEnds {
		if t.is(w) {
			return true
		}
	}
	return false
}

// unlimitedRows stands for "no FETCH" after an OFFSET ... ROWS: the
// conversion reads it back as no limit.
const unlimitedRows = 1<<63 - 1

// fetchClause reads "FETCH {FIRST|NEXT} n {ROW|ROWS} ONLY" at toks[k] and
// returns n.
func fetchClause(p *parser, k, to int) (string, bool) {
	if k+4 >= to || k+4 >= len(p.toks) {
		return "", false
	}
	t := p.toks
	if !t[k].is("FETCH") || !(t[k+1].is("FIRST") || t[k+1].is("NEXT")) || t[k+2].kind != tNumber ||
		!(t[k+3].is("ROWS") || t[k+3].is("ROW")) || !t[k+4].is("ONLY") {
		return "", false
	}
	return t[k+2].text, true
}

// boundStart returns the first token of the frame bound that ends at the
// PRECEDING / FOLLOWING at j: the token after the BETWEEN, AND, ROWS or
// RANGE before it at the same parenthesis depth (-1 when there is none).
func (r *rewriter) boundStart(j int) int {
	depth := 0
	for k := j - 1; k >= r.from; k-- {
		t := r.tok(k)
		switch {
		case t.isOp(")"):
			depth++
		case t.isOp("("):
			if depth == 0 {
				return -1
			}
			depth--
		case depth == 0 && (t.is("BETWEEN") || t.is("AND") || t.is("ROWS") || t.is("RANGE")):
			return k + 1
		}
	}
	return -1
}

// exprBound: a frame bound other than a number, an INTERVAL literal,
// UNBOUNDED or CURRENT ROW (Flink's grammar takes any expression there,
// TiDB's only those).
func exprBound(r *rewriter, j int) bool {
	s := r.boundStart(j)
	if s < 0 || s >= j {
		return false
	}
	first := r.tok(s)
	return !(j == s+1 && (first.kind == tNumber || first.is("UNBOUNDED"))) && !first.is("INTERVAL")
}

// frameBound: an expression bound "e PRECEDING" goes to TiDB as
// "INTERVAL (e) SECOND PRECEDING", the one form of its grammar that takes
// unit.
func (r *rewriter) frameBound(j int) int {
	s := r.boundStart(j)
	at := r.startOf[s-r.from]
	if at >= len(r.pieces) {
		return r.failAt(r.tok(s))
	}
	r.pieces[at].pre = " INTERVAL (" + r.pieces[at].pre
	r.synth(") SECOND", r.tok(j).off)
	return r.plain(j)
}
