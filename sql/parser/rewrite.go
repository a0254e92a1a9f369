package parser

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// The dialect pre-pass turns a range of Flink tokens into text TiDB's MySQL
// grammar accepts, recording what it took out so the conversion can put it
// back:
//
//   - table references in FROM/JOIN (with their /*+ OPTIONS(...) */ hints
//     and up to three name parts) become placeholders __sqlrun_t_N;
//   - CAST/TRY_CAST(x AS <Flink type>) become __sqlrun_cast_N(x), the type
//     read by our own type parser;
//   - TRUE/FALSE, DATE/TIME/TIMESTAMP '...' and INTERVAL '...' <unit>
//     literals become __sqlrun_lit_N();
//   - an explicit CONCAT( becomes __sqlrun_fn_CONCAT(, so that a concat
//     coming back from TiDB is known to be "||" (PIPES_AS_CONCAT);
//   - VALUES rows "(...)" become "ROW(...)"; FULL [OUTER] JOIN becomes
//     LEFT JOIN with the right table marked full; a derived column list
//     "AS t (a, b)" becomes "AS __sqlrun_a_N".
//
// Every emitted piece remembers the original offset it came from, so TiDB
// offsets (in errors and node positions) map back to the statement.

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
}

type rewriter struct {
	p       *parser
	buf     outBuf
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
	lastEnd     int // end offset of the last emitted token, -1 after synthesized text
	// startOf maps a token index to where its output begins, so that an
	// item access "x[i]" can put "__sqlrun_item(" before x.
	startOf   map[int]int
	itemStart map[int]int // '[' token index → token index where its x starts
	// distinct records the "<=>" written for IS [NOT] DISTINCT FROM: the
	// output offset of each and whether it was IS DISTINCT FROM.
	distinct []distinctOp
	// frameLits are INTERVAL literals of RANGE frames, by the offset of
	// their value token.
	frameLits map[int]*ast.Literal
	// nulls records NULLS FIRST (true) / LAST (false) by the offset of the
	// ordering expression's first token.
	nulls map[int]bool
}

type distinctOp struct {
	off int
	is  bool
}

// outBuf is the rewritten text; unlike strings.Builder it allows the one
// insertion item access needs.
type outBuf struct{ b []byte }

func (o *outBuf) Len() int               { return len(o.b) }
func (o *outBuf) String() string         { return string(o.b) }
func (o *outBuf) WriteByte(c byte) error { o.b = append(o.b, c); return nil }
func (o *outBuf) WriteString(s string)   { o.b = append(o.b, s...) }

// insert puts s at output offset at, moving what follows.
func (r *rewriter) insert(at int, s string) {
	r.buf.b = append(r.buf.b[:at], append([]byte(s), r.buf.b[at:]...)...)
	for i := range r.segs {
		if r.segs[i].newOff >= at {
			r.segs[i].newOff += len(s)
		}
	}
	for k, v := range r.startOf {
		if v >= at {
			r.startOf[k] = v + len(s)
		}
	}
	for i := range r.distinct {
		if r.distinct[i].off >= at {
			r.distinct[i].off += len(s)
		}
	}
	// keep segments ordered: the inserted text maps to where it stands
	r.segs = append(r.segs, segment{newOff: at, origOff: r.orig(at + len(s))})
	sort.SliceStable(r.segs, func(i, j int) bool { return r.segs[i].newOff < r.segs[j].newOff })
}

// emit writes a token's text, mapped to its own offset. A space separates
// it from the previous token only where the original had one, because
// MySQL's grammar reads "COUNT (*)" differently from "COUNT(*)".
func (r *rewriter) emit(t token) {
	if r.lastEnd != t.off {
		r.buf.WriteByte(' ')
	}
	r.lastEnd = t.end
	r.segs = append(r.segs, segment{newOff: r.buf.Len(), origOff: t.off, n: len(t.text)})
	r.buf.WriteString(t.text)
}

// synth writes generated text that maps back to orig.
func (r *rewriter) synth(s string, orig int) {
	r.buf.WriteByte(' ')
	r.lastEnd = -1
	r.segs = append(r.segs, segment{newOff: r.buf.Len(), origOff: orig})
	r.buf.WriteString(s)
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

type frameKind int

const (
	fQuery   frameKind = iota // a query: FROM lists tables here
	fExpr                     // function arguments, lists, a VALUES row
	fCast                     // CAST( ... AS type )
	fBracket                  // x[ ... ] or ARRAY[ ... ]: closes with ')'
)

type frame struct {
	kind      frameKind
	inFrom    bool // between FROM and WHERE/GROUP/... in this query
	wantTable bool // the next token may start a table reference
	values    bool // in a VALUES list: '(' starts a row
	wantRow   bool
	fullNext  bool   // the next table is the right side of a FULL JOIN
	tableSub  bool   // this query is a subquery in FROM (may take "AS t (cols)")
	cast      int    // for fCast: index into rewriter.casts
	fn        string // for fExpr: the upper-cased function whose '(' opened it
}

// isQueryAhead reports whether the tokens from j (after a '(') start a
// query, looking through nested parentheses.
func (p *parser) isQueryAhead(j int) bool {
	for j < len(p.toks) && p.toks[j].isOp("(") {
		j++
	}
	return j < len(p.toks) && (p.toks[j].is("SELECT") || p.toks[j].is("WITH") || p.toks[j].is("VALUES"))
}

var clauseEnds = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true, "UNION": true,
	"EXCEPT": true, "INTERSECT": true, "WINDOW": true, "OFFSET": true, "FETCH": true,
}

var joinWords = map[string]bool{
	"JOIN": true, "LEFT": true, "RIGHT": true, "INNER": true, "CROSS": true, "OUTER": true, "FULL": true, "NATURAL": true,
	"ON": true, "USING": true, "AS": true,
}

// rewrite runs the pre-pass over tokens [from, to), starting in a query
// (asQuery) or an expression.
func (p *parser) rewrite(from, to int, asQuery bool) *rewriter {
	r := &rewriter{p: p, lastEnd: -1, startOf: map[int]int{}, itemStart: map[int]int{}, frameLits: map[int]*ast.Literal{},
		nulls: map[int]bool{}}
	match := matchBrackets(p.toks, from, to)
	top := frame{kind: fExpr}
	if asQuery {
		top.kind = fQuery
	}
	stack := []frame{top}
	cur := func() *frame { return &stack[len(stack)-1] }
	for j := from; j < to; j++ {
		t := p.toks[j]
		f := cur()
		r.startOf[j] = r.buf.Len()
		up := ""
		if t.kind == tIdent {
			up = strings.ToUpper(t.text)
		}
		switch {
		case t.kind == tHint:
			// Query-level hints (SELECT /*+ ... */) are not used by sqlrun;
			// table hints are taken with their table below.
			continue
		case t.isOp("("):
			nf := frame{kind: fExpr}
			if j > from && p.toks[j-1].kind == tIdent {
				nf.fn = strings.ToUpper(p.toks[j-1].text)
			}
			if p.isQueryAhead(j + 1) {
				nf.kind = fQuery
				nf.tableSub = f.kind == fQuery && f.wantTable
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
			f.wantTable = false
			stack = append(stack, nf)
			continue
		case t.isOp("["):
			s := r.itemBase(j, from, match)
			if s < 0 {
				p.fail(t)
			}
			r.itemStart[j] = s
			r.insert(r.startOf[s], " __sqlrun_item(")
			r.synth(",", t.off)
			f.wantTable = false
			stack = append(stack, frame{kind: fBracket})
			continue
		case t.isOp("]"):
			if f.kind != fBracket {
				p.fail(t)
			}
			stack = stack[:len(stack)-1]
			r.synth(")", t.off)
			r.lastEnd = t.end
			continue
		case t.isOp(")"):
			if len(stack) == 1 || f.kind == fBracket {
				p.fail(t)
			}
			closed := *f
			if closed.kind == fCast && !r.typed[closed.cast] {
				p.fail(t) // CAST(x) without AS type
			}
			stack = stack[:len(stack)-1]
			r.emit(t)
			if closed.kind == fQuery && closed.tableSub {
				j = r.derivedAlias(j+1, to) - 1
			}
			continue
		case t.isOp(","):
			if f.values {
				f.wantRow = true
			}
			if f.kind == fQuery && f.inFrom {
				f.wantTable = true
			}
			r.emit(t)
			continue
		}
		if t.kind == tString && j > from && endsOperand(p.toks[j-1]) {
			// MySQL takes "expr 'alias'"; Flink has no string aliases.
			p.fail(t)
		}
		if t.kind == tNumber {
			p.numberLiteral(t) // range checks with Calcite's messages
			if strings.HasSuffix(t.text, ".") {
				// "1." is a decimal to Calcite, but TiDB reads "1. AS x"
				// as a qualified name: spell it "1.0".
				r.synth(t.text+"0", t.off)
				f.wantTable = false
				continue
			}
		}
		if up == "" {
			if t.kind == tQuoted && f.kind == fQuery && f.wantTable {
				j = r.tableRef(j, to) - 1
				r.tables[len(r.tables)-1].full = f.fullNext
				f.wantTable, f.fullNext = false, false
				continue
			}
			f.wantTable = false
			r.emit(t)
			continue
		}
		// Keywords and identifiers.
		switch {
		case up == "OFFSET" && f.kind == fQuery && j+1 < to && p.toks[j+1].kind == tNumber &&
			!(j >= from+2 && p.toks[j-2].is("LIMIT")):
			// Standard "OFFSET n [ROWS] [FETCH {FIRST|NEXT} m {ROW|ROWS} ONLY]"
			// is MySQL's "LIMIT m OFFSET n" (no FETCH: unlimitedRows);
			// "LIMIT m OFFSET n" goes to TiDB as it is.
			count, k := strconv.FormatInt(unlimitedRows, 10), j+2
			if k < to && (p.toks[k].is("ROWS") || p.toks[k].is("ROW")) {
				k++
			}
			if n, ok := fetchClause(p, k, to); ok {
				count, k = n, k+5
			}
			r.synth("LIMIT "+count+" OFFSET "+p.toks[j+1].text, t.off)
			r.lastEnd = p.toks[k-1].end
			j = k - 1
			continue
		case up == "FETCH" && f.kind == fQuery:
			n, ok := fetchClause(p, j, to)
			if !ok {
				p.fail(t)
			}
			r.synth("LIMIT "+n, t.off)
			r.lastEnd = p.toks[j+4].end
			j += 4
			continue
		case (up == "CAST" || up == "TRY_CAST") && j+1 < to && p.toks[j+1].isOp("("):
			c := &ast.Cast{Node: ast.Node{At: p.pos(t)}, Try: up == "TRY_CAST"}
			r.casts = append(r.casts, c)
			r.typed = append(r.typed, false)
			r.synth("__sqlrun_cast_"+strconv.Itoa(len(r.casts)-1), t.off)
			r.lastEnd = t.end
			r.emit(p.toks[j+1])
			stack = append(stack, frame{kind: fCast, cast: len(r.casts) - 1})
			j++
			continue
		case up == "AS" && f.kind == fCast:
			p.i = j + 1
			r.casts[f.cast].Type = p.dataType()
			r.typed[f.cast] = true
			if p.i > to || !p.peek().isOp(")") {
				p.fail(p.peek())
			}
			j = p.i - 1
			continue
		case (up == "TRUE" || up == "FALSE") && !(j > from && (p.toks[j-1].is("IS") || p.toks[j-1].is("NOT"))):
			r.lit(&ast.Literal{Node: ast.Node{At: p.pos(t)}, Kind: ast.LitBool, Raw: up, Value: up == "TRUE",
				Type: sql.Boolean().NotNull()}, t.off)
			continue
		case (up == "DATE" || up == "TIME" || up == "TIMESTAMP" || up == "TIMESTAMP_LTZ") && j+1 < to && p.toks[j+1].kind == tString:
			r.lit(p.temporalLiteral(t, p.toks[j+1]), t.off)
			j++
			continue
		case up == "INTERVAL":
			lit, next := p.intervalLiteral(j, to)
			if next < to && (p.toks[next].is("PRECEDING") || p.toks[next].is("FOLLOWING")) {
				// A RANGE frame bound: TiDB has the same INTERVAL syntax
				// there (and no other expression), so pass it through and
				// find the literal again by its value token.
				for k := j; k < next; k++ {
					r.emit(p.toks[k])
				}
				r.frameLits[p.toks[j+1].off] = lit
				j = next - 1
				continue
			}
			r.lit(lit, t.off)
			j = next - 1
			continue
		case renamed[up] && j+1 < to && p.toks[j+1].isOp("(") && !followedByOver(p.toks, j+1, to, match):
			r.synth(fnPrefix+up, t.off)
			r.lastEnd = t.end
			continue
		case (up == "ARRAY" || up == "MAP") && j+1 < to && p.toks[j+1].isOp("["):
			r.synth(fnPrefix+up+"(", t.off)
			r.lastEnd = p.toks[j+1].end
			r.itemStart[j+1] = j // ARRAY[...][i] indexes the constructor
			stack = append(stack, frame{kind: fBracket})
			j++
			continue
		case up == "TO" && f.kind == fExpr && (f.fn == "FLOOR" || f.fn == "CEIL" || f.fn == "CEILING") &&
			j+1 < to && p.toks[j+1].kind == tIdent:
			// FLOOR(ts TO DAY): TiDB reads a second argument.
			r.synth(", "+unitPrefix+strings.ToUpper(p.toks[j+1].text), t.off)
			j++
			continue
		case up == "NULLS" && j+1 < to && (p.toks[j+1].is("FIRST") || p.toks[j+1].is("LAST")):
			// ORDER BY x [DESC] NULLS FIRST|LAST: TiDB has no such clause;
			// remember it by the start of the ordering expression.
			k := j - 1
			if k >= from && (p.toks[k].is("ASC") || p.toks[k].is("DESC")) {
				k--
			}
			for k >= from && !p.toks[k].isOp(",") && !p.toks[k].is("BY") {
				if open, ok := match[k]; ok {
					k = open
				}
				k--
			}
			if k < from || k+1 >= j {
				p.fail(t)
			}
			r.nulls[p.toks[k+1].off] = p.toks[j+1].is("FIRST")
			j++
			continue
		case up == "SIMILAR" && j+1 < to && p.toks[j+1].is("TO"):
			r.synth("REGEXP", t.off)
			j++
			continue
		case up == "IS" && j+2 < to && (p.toks[j+1].is("DISTINCT") || p.toks[j+1].is("NOT") && p.toks[j+2].is("DISTINCT")):
			k := j + 2
			if p.toks[j+1].is("NOT") {
				k++
			}
			if k >= to || !p.toks[k].is("FROM") {
				p.fail(p.toks[min(k, len(p.toks)-1)])
			}
			r.synth("<=>", t.off)
			r.distinct = append(r.distinct, distinctOp{off: r.buf.Len() - 3, is: k == j+2})
			j = k
			continue
		case up == "SELECT":
			r.queryStarts = append(r.queryStarts, t.off)
			f.inFrom, f.values = false, false
		case up == "VALUES" && f.kind == fQuery:
			r.queryStarts = append(r.queryStarts, t.off)
			f.values, f.wantRow = true, true
		case up == "FROM" && f.kind == fQuery:
			f.inFrom, f.wantTable = true, true
			r.emit(t)
			continue
		case up == "JOIN" && f.kind == fQuery:
			f.wantTable = true
			r.emit(t)
			continue
		case up == "FULL" && f.kind == fQuery && f.inFrom:
			k := j + 1
			if k < to && p.toks[k].is("OUTER") {
				k++
			}
			if k >= to || !p.toks[k].is("JOIN") {
				p.fail(p.toks[min(k, len(p.toks)-1)])
			}
			if k+1 < to && !p.toks[k+1].isIdent() {
				p.fail(t) // FULL JOIN of a subquery: not supported by the pre-pass
			}
			r.synth("LEFT", t.off)
			r.emit(p.toks[k])
			f.wantTable, f.fullNext = true, true
			j = k
			continue
		case up == "NATURAL" && f.kind == fQuery:
			p.fail(t) // Flink has no NATURAL JOIN
		case up == "FOR" && f.kind == fQuery:
			p.fail(t) // FOR UPDATE and friends; FOR SYSTEM_TIME is read with its table
		case clauseEnds[up] && f.kind == fQuery:
			f.inFrom, f.wantTable, f.values = false, false, false
		case up == "UNNEST" && f.kind == fQuery && f.wantTable && j+1 < to && p.toks[j+1].isOp("("):
			j = r.unnest(j, to) - 1
			f.wantTable = false
			continue
		case up == "TABLE" && f.kind == fQuery && f.wantTable && j+1 < to && p.toks[j+1].isOp("("):
			j = r.tableFunction(j, to) - 1
			f.wantTable = false
			continue
		case f.kind == fQuery && f.wantTable && t.isIdent() && !joinWords[up] && up != "LATERAL" && up != "UNNEST" && up != "TABLE":
			j = r.tableRef(j, to) - 1
			r.tables[len(r.tables)-1].full = f.fullNext
			f.wantTable, f.fullNext = false, false
			continue
		case tidbOnlyReserved[up] && !(j+1 < to && p.toks[j+1].isOp("(")):
			r.synth("`"+t.text+"`", t.off)
			f.wantTable = false
			continue
		}
		f.wantTable = false
		r.emit(t)
	}
	if len(stack) != 1 {
		p.fail(p.toks[to])
	}
	return r
}

// renamed are function names TiDB's grammar treats specially (as window
// functions, date arithmetic or keywords) but Flink calls plainly; the
// pre-pass prefixes them so TiDB reads a generic call. CONCAT is here so
// that a concat coming back from TiDB is known to be "||".
var renamed = map[string]bool{
	"CONCAT": true, "FIRST_VALUE": true, "LAST_VALUE": true, "DATE_ADD": true, "DATE_SUB": true,
	"ADDDATE": true, "SUBDATE": true, "CARDINALITY": true, "LEAD": true, "LAG": true, "NTH_VALUE": true,
}

// notOperand are keywords after which '[' cannot index anything.
var notOperand = map[string]bool{
	"SELECT": true, "WHERE": true, "AND": true, "OR": true, "NOT": true, "ON": true, "BY": true, "WHEN": true,
	"THEN": true, "ELSE": true, "CASE": true, "IN": true, "IS": true, "LIKE": true, "BETWEEN": true, "AS": true,
	"FROM": true, "HAVING": true, "DISTINCT": true, "ALL": true, "VALUES": true, "LIMIT": true, "OFFSET": true,
	"JOIN": true, "USING": true, "END": false, "SIMILAR": true, "ESCAPE": true, "TO": true, "INTERVAL": true,
}

// tidbOnlyReserved are words MySQL (TiDB) reserves but Flink lets users
// take as names (key, index, rank, database, ...). Where one is used as a
// name (not followed by '('), the pre-pass quotes it for TiDB.
var tidbOnlyReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ADD ALTER ANALYZE BIGINT BINARY BLOB CALL CASCADE CHANGE CHAR CHARACTER CHECK COLUMN CONSTRAINT CONTINUE
		CONVERT CREATE CUME_DIST CURRENT_ROLE CURSOR DATABASE DATABASES DAY_HOUR DAY_MICROSECOND DAY_MINUTE
		DAY_SECOND DECIMAL DEFAULT DELAYED DELETE DENSE_RANK DESCRIBE DISTINCTROW DOUBLE DROP DUAL ELSEIF ENCLOSED
		ESCAPED EXIT EXPLAIN FIRST_VALUE FLOAT FLOAT4 FLOAT8 FORCE FOREIGN FULLTEXT GENERATED GRANT GROUPS
		HIGH_PRIORITY HOUR_MICROSECOND HOUR_MINUTE HOUR_SECOND IF IGNORE INDEX INFILE INOUT INSERT INT INT1 INT2
		INT3 INT4 INT8 INTEGER INTO ITERATE KEY KEYS KILL LAG LAST_VALUE LEAD LEAVE LINEAR LINES LOAD LOCK LONG
		LONGBLOB LONGTEXT LOW_PRIORITY MATCH MAXVALUE MEDIUMBLOB MEDIUMINT MEDIUMTEXT MIDDLEINT MINUTE_MICROSECOND
		MINUTE_SECOND NO_WRITE_TO_BINLOG NTH_VALUE NTILE NUMERIC OPTIMIZE OPTION OPTIONALLY OUT OUTFILE
		PERCENT_RANK PRECISION PRIMARY PROCEDURE RANK READ REAL RECURSIVE REFERENCES RELEASE RENAME REPEAT REPLACE
		REQUIRE RESTRICT REVOKE ROW_NUMBER SECOND_MICROSECOND SET SHOW SMALLINT SPATIAL SQL SQLEXCEPTION SQLSTATE
		SQLWARNING SQL_BIG_RESULT SQL_CALC_FOUND_ROWS SQL_SMALL_RESULT SSL STARTING STORED STRAIGHT_JOIN
		TABLESAMPLE TERMINATED TIDB_CURRENT_TSO TINYBLOB TINYINT TINYTEXT TRIGGER UNIQUE UNLOCK UNSIGNED UNTIL
		UPDATE USAGE USE UTC_DATE UTC_TIME UTC_TIMESTAMP VARBINARY VARCHAR VARCHARACTER VARYING VIRTUAL WHILE WRITE
		YEAR_MONTH ZEROFILL`) {
		tidbOnlyReserved[w] = true
	}
}

// beforeString are the words that may stand right before a string literal.
var beforeString = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT WHERE AND OR NOT ON BY WHEN THEN ELSE CASE IN IS LIKE ILIKE BETWEEN
		AS FROM HAVING DISTINCT ALL VALUES LIMIT OFFSET JOIN USING SIMILAR ESCAPE TO INTERVAL BOTH LEADING
		TRAILING FOR DATE TIME TIMESTAMP TIMESTAMP_LTZ ANY SOME EXISTS RETURNING DEFAULT ERROR EMPTY NULL WITH
		ARRAY MAP ROW UNION EXCEPT INTERSECT ORDER GROUP OVER PARTITION RANGE ROWS PRECEDING FOLLOWING CURRENT
		FILTER WITHIN DESCRIPTOR TABLE LATERAL UNNEST SET UPDATE MOD DIV XOR REGEXP RLIKE SEPARATOR CHARACTER
		COLLATE KEY VALUE ON_ERROR ON_EMPTY`) {
		beforeString[w] = true
	}
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

// followedByOver reports a call whose '(' is at open and whose ')' is
// followed by OVER (a window function).
func followedByOver(toks []token, open, to int, match map[int]int) bool {
	for cl, op := range match {
		if op == open {
			return cl+1 < to && toks[cl+1].is("OVER")
		}
	}
	return false
}

// matchBrackets pairs closing with opening parentheses and brackets in
// tokens [from, to): result[close] = open.
func matchBrackets(toks []token, from, to int) map[int]int {
	m := map[int]int{}
	var stack []int
	for j := from; j < to; j++ {
		switch {
		case toks[j].isOp("(") || toks[j].isOp("["):
			stack = append(stack, j)
		case toks[j].isOp(")") || toks[j].isOp("]"):
			if len(stack) > 0 {
				m[j] = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		}
	}
	return m
}

// itemBase finds where the x of "x[i]" starts, for the '[' at j: a dotted
// name, a call or parenthesized group, or an earlier item access. It returns
// -1 when there is none.
func (r *rewriter) itemBase(j, from int, match map[int]int) int {
	toks := r.p.toks
	k := j - 1
	if k < from {
		return -1
	}
	switch {
	case toks[k].isOp("]"):
		open, ok := match[k]
		if !ok {
			return -1
		}
		if s, ok := r.itemStart[open]; ok {
			return s
		}
		return -1
	case toks[k].isOp(")"):
		open, ok := match[k]
		if !ok {
			return -1
		}
		k = open
		if k-1 >= from && toks[k-1].isIdent() {
			k--
		} else {
			return k
		}
	case !toks[k].isIdent() || toks[k].kind == tIdent && notOperand[strings.ToUpper(toks[k].text)]:
		return -1
	}
	for k-2 >= from && toks[k-1].isOp(".") && toks[k-2].isIdent() {
		k -= 2
	}
	return k
}

// lit emits a literal placeholder.
func (r *rewriter) lit(l *ast.Literal, off int) {
	r.lits = append(r.lits, l)
	r.synth("__sqlrun_lit_"+strconv.Itoa(len(r.lits)-1)+"()", off)
}

// tableRef reads a table name with its hints at j and emits a placeholder;
// it returns the index after them.
func (r *rewriter) tableRef(j, to int) int {
	p := r.p
	first := p.toks[j]
	parts := []string{first.name()}
	j++
	for j+1 < to && p.toks[j].isOp(".") && p.toks[j+1].isIdent() {
		parts = append(parts, p.toks[j+1].name())
		j += 2
	}
	if len(parts) > 3 {
		p.fail(first)
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
			p.fail(p.toks[from])
		}
		save := p.i
		info.asOf = p.exprRange(from, end)
		p.i = save
		j = end
	}
	// The frame that asked for the table knows whether it is a FULL JOIN's.
	r.tables = append(r.tables, info)
	r.synth("__sqlrun_t_"+strconv.Itoa(len(r.tables)-1), first.off)
	return j
}

// tableFunction reads TABLE(fn(arg, ...)) at j, our own grammar since TiDB
// has none, and emits a table placeholder; it returns the index after it.
func (r *rewriter) tableFunction(j, to int) int {
	p := r.p
	start := p.toks[j]
	save := p.i
	defer func() { p.i = save }()
	p.i = j + 1
	p.expectOp("(")
	name, nt := p.ident()
	tf := &ast.TableFunctionRef{Node: ast.Node{At: p.pos(start)}, Name: strings.ToUpper(name)}
	_ = nt
	p.expectOp("(")
	if !p.acceptOp(")") {
		for {
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
			case t.is("DESCRIPTOR") && p.peekAt(1).isOp("("):
				p.next()
				arg.Descriptor = p.identList()
			default:
				arg.Expr = p.exprUntil(func(t token) bool { return t.isOp(",") || t.isOp(")") })
			}
			tf.Args = append(tf.Args, arg)
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	p.expectOp(")")
	if p.i > to {
		p.fail(p.toks[to])
	}
	r.tables = append(r.tables, tableInfo{name: ast.ObjectName{Node: tf.Node, Table: tf.Name}, fn: tf})
	r.synth(tablePrefix+strconv.Itoa(len(r.tables)-1), start.off)
	return p.i
}

// unnest reads UNNEST(expr, ...) [WITH ORDINALITY] [[AS] t [(cols)]] at j
// and emits a table placeholder (with the alias, which TiDB reads);
// it returns the index after what it consumed.
func (r *rewriter) unnest(j, to int) int {
	p := r.p
	start := p.toks[j]
	save := p.i
	defer func() { p.i = save }()
	p.i = j + 1
	p.expectOp("(")
	u := &ast.Unnest{Node: ast.Node{At: p.pos(start)}}
	for {
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
	if p.i > to {
		p.fail(p.toks[to])
	}
	r.tables = append(r.tables, tableInfo{name: ast.ObjectName{Node: u.Node, Table: "UNNEST"}, unnest: u})
	r.synth(tablePrefix+strconv.Itoa(len(r.tables)-1), start.off)
	return r.derivedAlias(p.i, to)
}

// asOfWords end the expression of FOR SYSTEM_TIME AS OF.
var asOfWords = map[string]bool{
	"AS": true, "ON": true, "JOIN": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true,
	"CROSS": true, "USING": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true,
	"UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true,
}

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
func (r *rewriter) derivedAlias(j, to int) int {
	p := r.p
	k := j
	if k < to && p.toks[k].is("AS") {
		k++
	}
	if k+1 < to && p.toks[k].isIdent() && !joinWords[strings.ToUpper(p.toks[k].text)] &&
		!clauseEnds[strings.ToUpper(p.toks[k].text)] && p.toks[k+1].isOp("(") {
		save := p.i
		p.i = k + 1
		cols := p.identList()
		end := p.i
		p.i = save
		if end > to {
			p.fail(p.toks[to])
		}
		r.aliases = append(r.aliases, aliasInfo{name: p.toks[k].name(), cols: cols})
		r.synth("AS __sqlrun_a_"+strconv.Itoa(len(r.aliases)-1), p.toks[k].off)
		return end
	}
	return j
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
