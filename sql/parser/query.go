package parser

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"
	tast "github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/terror"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// newTiDB returns a TiDB parser in the modes closest to Flink's lexical
// rules: '||' concatenates, "..." quotes identifiers, backslashes are plain
// characters in strings. A parser is not safe for concurrent use, so each
// call makes its own (they are cheap).
func newTiDB() *tidb.Parser {
	tp := tidb.New()
	tp.SetSQLMode(mysql.ModePipesAsConcat | mysql.ModeANSIQuotes | mysql.ModeNoBackslashEscapes)
	tp.EnableWindowFunc(true)
	return tp
}

// conv converts one TiDB tree back into sql/ast with the help of the
// pre-pass's records.
type conv struct {
	p *parser
	r *rewriter
	// offTok finds the statement token that starts at an offset.
	offTok map[int]token
	// lastOff is where the last call converted starts: offset-less
	// numbers inside it are searched from there.
	lastOff int
	// fullSubs are the subqueries on the right of a FULL JOIN.
	fullSubs map[*ast.SubqueryRef]bool
}

// queryRange parses tokens [from, to) as a query body.
func (p *parser) queryRange(from, to int) ast.QueryExpr {
	if from >= to {
		p.fail(p.toks[to])
	}
	if p.err != nil {
		return nil
	}
	r := p.rewrite(from, to, true, "")
	if p.err != nil {
		return nil
	}
	c := p.newConv(r)
	stmt := c.parseTiDB(r.text, to)
	switch s := stmt.(type) {
	case nil:
		return nil
	case *tast.SelectStmt:
		if s.SelectIntoOpt != nil || s.LockInfo != nil {
			c.unsupported(0)
		}
		return c.selectStmt(s)
	case *tast.SetOprStmt:
		return c.setOpr(s)
	}
	p.fail(p.toks[from])
	return nil
}

// exprRange parses tokens [from, to) as one expression.
func (p *parser) exprRange(from, to int) ast.Expr {
	if p.err != nil || from >= to {
		p.fail(p.toks[min(from, to)])
		return nil
	}
	r := p.rewrite(from, to, false, "SELECT")
	if p.err != nil {
		return nil
	}
	c := p.newConv(r)
	stmt := c.parseTiDB(r.text, to)
	if stmt == nil {
		return nil
	}
	sel, ok := stmt.(*tast.SelectStmt)
	if !ok || sel.From != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.Where != nil ||
		sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Having != nil {
		p.fail(p.toks[from])
		return nil
	}
	f := sel.Fields.Fields[0]
	if f.WildCard != nil || f.Expr == nil {
		p.fail(p.toks[from])
		return nil
	}
	if f.AsName.O != "" {
		// "expr alias": the alias is the token after the expression.
		p.fail(p.toks[to-1])
		return nil
	}
	return c.expr(f.Expr)
}

func (p *parser) newConv(r *rewriter) *conv {
	c := &conv{p: p, r: r, offTok: make(map[int]token, len(p.toks))}
	for _, t := range p.toks {
		c.offTok[t.off] = t
	}
	return c
}

// parseTiDB runs TiDB over the rewritten text and maps a syntax error to
// Flink's message at the original token; endTok is the index of the token
// that follows the range (what "end of input" means to the user).
func (c *conv) parseTiDB(text string, endTok int) tast.StmtNode {
	tp := newTiDB()
	stmts, _, err := tp.Parse(text, "", "")
	if err == nil && len(stmts) == 1 {
		if !c.checkTree(stmts[0]) {
			return nil
		}
		return stmts[0]
	}
	off := len(text)
	if err != nil {
		if o, ok := syntaxErrorOffset(tp, err); ok {
			off = o
		}
	}
	for off < len(text) && isSpace(text[off]) {
		off++
	}
	if off >= len(text) {
		c.p.fail(c.p.toks[endTok]) // at the end, or several statements (a ';' inside)
		return nil
	}
	c.failAt(off)
	return nil
}

// syntaxErrorOffset returns the offset of the token TiDB's grammar could
// not take. TiDB's syntax error is text only (Scanner.Errorf formats
// "line L column C near ..."); the offset it quotes from is the scanner's
// lastScanOffset, the start of the last token it read, which is read here
// from the scanner itself. Errors TiDB raises with a code (*terror.Error:
// a construct it refuses after reading it) have no token: false.
func syntaxErrorOffset(tp *tidb.Parser, err error) (int, bool) {
	var coded *terror.Error
	if errors.As(err, &coded) {
		return 0, false
	}
	f := reflect.ValueOf(tp).Elem().FieldByName("lexer").FieldByName("lastScanOffset")
	if !f.IsValid() || !f.CanInt() {
		return 0, false
	}
	return int(f.Int()), true
}

// failAt reports "Encountered" at the original token for a rewritten-text
// offset.
func (c *conv) failAt(newOff int) {
	orig := c.r.orig(newOff)
	if t, ok := c.offTok[orig]; ok {
		c.p.fail(t)
		return
	}
	// Inside a token (or a synthesized piece): report the token containing it.
	for _, t := range c.p.toks {
		if t.off <= orig && orig < t.end || t.kind == tEOF {
			c.p.fail(t)
			return
		}
	}
}

// failBefore reports "Encountered" at the last token that ends at or
// before a rewritten-text offset (the operator before an operand), if
// there is one.
func (c *conv) failBefore(newOff int) {
	if newOff <= 0 {
		return
	}
	orig := c.r.orig(newOff)
	var last *token
	for i, t := range c.p.toks {
		if t.kind == tEOF || t.end > orig {
			break
		}
		if t.kind != tComment {
			last = &c.p.toks[i]
		}
	}
	if last != nil {
		c.p.fail(*last)
	}
}

// unsupported rejects a TiDB construct Flink does not have (or we do not
// convert) at its original place.
func (c *conv) unsupported(newOff int) {
	c.failAt(newOff)
}

func (c *conv) pos(newOff int) ast.Pos { return c.p.posOff(c.r.orig(newOff)) }

func (c *conv) nextQueryPos() ast.Pos {
	if c.r.nextQuery < len(c.r.queryStarts) {
		off := c.r.queryStarts[c.r.nextQuery]
		c.r.nextQuery++
		return c.p.posOff(off)
	}
	return ast.Pos{}
}

func (c *conv) resultSet(n tast.ResultSetNode) ast.QueryExpr {
	switch n := n.(type) {
	case *tast.SelectStmt:
		return c.selectStmt(n)
	case *tast.SetOprStmt:
		return c.setOpr(n)
	case *tast.SubqueryExpr:
		return c.resultSet(n.Query)
	}
	c.p.fail(c.p.toks[0])
	return &ast.Values{}
}

func (c *conv) with(w *tast.WithClause, q func() ast.QueryExpr) ast.QueryExpr {
	if w == nil {
		return q()
	}
	if w.IsRecursive {
		c.unsupported(0)
	}
	out := &ast.With{}
	for _, cte := range w.CTEs {
		ct := ast.CTE{Name: cte.Name.O}
		for _, col := range cte.ColNameList {
			ct.Columns = append(ct.Columns, col.O)
		}
		ct.Query = c.resultSet(cte.Query.Query)
		ct.At = ct.Query.Pos()
		out.CTEs = append(out.CTEs, ct)
	}
	out.Body = q()
	if len(out.CTEs) > 0 {
		out.At = out.CTEs[0].At
	}
	return out
}

func (c *conv) selectStmt(s *tast.SelectStmt) ast.QueryExpr {
	with := s.With
	s.With = nil
	return c.with(with, func() ast.QueryExpr { return c.selectBody(s) })
}

func (c *conv) selectBody(s *tast.SelectStmt) ast.QueryExpr {
	var hints []ast.Hint
	if c.r.nextQuery < len(c.r.queryStarts) {
		hints = c.r.queryHints[c.r.queryStarts[c.r.nextQuery]]
	}
	at := c.nextQueryPos()
	if s.Kind == tast.SelectStmtKindValues {
		v := &ast.Values{Node: ast.Node{At: at}}
		for _, row := range s.Lists {
			var exprs []ast.Expr
			for _, e := range row.Values {
				exprs = append(exprs, c.expr(e))
			}
			v.Rows = append(v.Rows, exprs)
		}
		if s.OrderBy != nil || s.Limit != nil {
			c.unsupported(0)
		}
		return v
	}
	if s.Kind == tast.SelectStmtKindTable || len(s.WindowSpecs) > 0 || s.LockInfo != nil || s.SelectIntoOpt != nil {
		c.unsupported(0)
	}
	sel := &ast.Select{Node: ast.Node{At: at}, Hints: hints, Distinct: s.Distinct}
	if s.Fields != nil {
		for _, f := range s.Fields.Fields {
			it := ast.SelectItem{Node: ast.Node{At: c.pos(f.Offset)}}
			if f.WildCard != nil {
				it.Star = true
				it.StarQualifier = f.WildCard.Table.O
				if f.WildCard.Schema.O != "" {
					it.StarQualifier = f.WildCard.Schema.O + "." + f.WildCard.Table.O
				}
			} else {
				it.Expr = c.expr(f.Expr)
				it.Alias = f.AsName.O
			}
			sel.Items = append(sel.Items, it)
		}
	}
	if s.From != nil && s.From.TableRefs != nil {
		sel.From = c.tableRefs(s.From.TableRefs)
	}
	if s.Where != nil {
		sel.Where = c.expr(s.Where)
	}
	if s.GroupBy != nil {
		if s.GroupBy.Rollup {
			c.unsupported(0)
		}
		for _, it := range s.GroupBy.Items {
			sel.GroupBy = append(sel.GroupBy, c.expr(it.Expr))
		}
	}
	if s.Having != nil {
		sel.Having = c.expr(s.Having.Expr)
	}
	sel.OrderBy = c.orderBy(s.OrderBy)
	sel.Limit, sel.Offset = c.limit(s.Limit)
	return sel
}

func (c *conv) orderBy(o *tast.OrderByClause) []ast.OrderItem {
	if o == nil {
		return nil
	}
	var out []ast.OrderItem
	for _, it := range o.Items {
		e := c.expr(it.Expr)
		item := ast.OrderItem{Node: ast.Node{At: e.Pos()}, Expr: e, Desc: it.Desc}
		if first, ok := c.r.nulls[c.r.orig(it.Expr.OriginTextPosition())]; ok {
			item.NullsFirst = &first
		}
		out = append(out, item)
	}
	return out
}

func (c *conv) limit(l *tast.Limit) (count, offset *int64) {
	if l == nil {
		return nil, nil
	}
	defer func() {
		if count != nil && *count == unlimitedRows {
			count = nil // OFFSET n ROWS without FETCH
		}
	}()
	get := func(e tast.ExprNode) *int64 {
		if e == nil {
			return nil
		}
		var n int64
		switch v := e.(type) {
		case *driver.ParamMarkerExpr:
			c.unsupported(v.Offset)
		case *driver.ValueExpr:
			switch x := v.GetValue().(type) {
			case int64:
				n = x
			case uint64:
				if x > 1<<63-1 {
					c.unsupported(e.OriginTextPosition())
				}
				n = int64(x)
			default:
				c.unsupported(e.OriginTextPosition())
			}
		default:
			c.unsupported(e.OriginTextPosition())
		}
		return &n
	}
	return get(l.Count), get(l.Offset)
}

var setOps = map[tast.SetOprType]struct {
	kind ast.SetOpKind
	all  bool
}{
	tast.Union: {ast.Union, false}, tast.UnionAll: {ast.Union, true},
	tast.Except: {ast.Except, false}, tast.ExceptAll: {ast.Except, true},
	tast.Intersect: {ast.Intersect, false}, tast.IntersectAll: {ast.Intersect, true},
}

func (c *conv) setOpr(s *tast.SetOprStmt) ast.QueryExpr {
	return c.with(s.With, func() ast.QueryExpr {
		q := c.setList(s.SelectList)
		order := c.orderBy(s.OrderBy)
		lim, off := c.limit(s.Limit)
		if order != nil || lim != nil || off != nil {
			so, ok := q.(*ast.SetOp)
			if !ok {
				c.unsupported(0)
				return q
			}
			so.OrderBy, so.Limit, so.Offset = order, lim, off
		}
		return q
	})
}

func (c *conv) setList(l *tast.SetOprSelectList) ast.QueryExpr {
	var acc ast.QueryExpr
	for i, n := range l.Selects {
		var q ast.QueryExpr
		var op *tast.SetOprType
		switch n := n.(type) {
		case *tast.SelectStmt:
			op = n.AfterSetOperator
			q = c.selectStmt(n)
		case *tast.SetOprSelectList:
			op = n.AfterSetOperator
			q = c.with(n.With, func() ast.QueryExpr {
				inner := c.setList(n)
				order := c.orderBy(n.OrderBy)
				lim, off := c.limit(n.Limit)
				if order != nil || lim != nil || off != nil {
					so, ok := inner.(*ast.SetOp)
					if !ok {
						c.unsupported(0)
						return inner
					}
					so.OrderBy, so.Limit, so.Offset = order, lim, off
				}
				return inner
			})
		default:
			c.unsupported(0)
			return &ast.Values{}
		}
		if i == 0 {
			acc = q
			continue
		}
		kind := ast.Union
		all := false
		if op != nil {
			k := setOps[*op]
			kind, all = k.kind, k.all
		}
		acc = &ast.SetOp{Node: ast.Node{At: acc.Pos()}, Kind: kind, All: all, Left: acc, Right: q}
	}
	if l.OrderBy != nil || l.Limit != nil {
		if so, ok := acc.(*ast.SetOp); ok && so.OrderBy == nil && so.Limit == nil {
			so.OrderBy = c.orderBy(l.OrderBy)
			so.Limit, so.Offset = c.limit(l.Limit)
		}
	}
	return acc
}

const (
	tablePrefix  = "__sqlrun_t_"
	aliasPrefix  = "__sqlrun_a_"
	castPrefix   = "__sqlrun_cast_"
	litPrefix    = "__sqlrun_lit_"
	fnPrefix     = "__sqlrun_fn_"
	itemFunc     = "__sqlrun_item"
	fieldFunc    = "__sqlrun_field"
	whenListFunc = "__sqlrun_whenlist"
	filterFunc   = "__sqlrun_filter"
	unitPrefix   = "__sqlrun_unit_"
)

// whenList reads back the value list of CASE x WHEN a, b THEN (written
// __sqlrun_whenlist(a, b) by the pre-pass) as x = a OR x = b.
func (c *conv) whenList(x ast.Expr, f *tast.FuncCallExpr) ast.Expr {
	var cond ast.Expr
	for _, a := range f.Args {
		v := c.expr(a)
		eq := &ast.Binary{Node: ast.Node{At: v.Pos()}, Op: ast.OpEq, L: x, R: v}
		if cond == nil {
			cond = eq
		} else {
			cond = &ast.Binary{Node: ast.Node{At: cond.Pos()}, Op: ast.OpOr, L: cond, R: eq}
		}
	}
	return cond
}

func placeholder(name, prefix string, n int) (int, bool) {
	if !strings.HasPrefix(strings.ToLower(name), prefix) {
		return 0, false
	}
	i, err := strconv.Atoi(name[len(prefix):])
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

func (c *conv) tableRefs(j *tast.Join) ast.TableExpr {
	left := c.tableNode(j.Left)
	if j.Right == nil {
		return left
	}
	right := c.tableNode(j.Right)
	if j.NaturalJoin || j.StraightJoin {
		c.unsupported(0)
	}
	out := &ast.Join{Node: ast.Node{At: left.Pos()}, Left: left, Right: right}
	switch j.Tp {
	case tast.LeftJoin:
		out.Kind = ast.LeftJoin
		if tr, ok := right.(*ast.TableRef); ok && c.isFull(tr) {
			out.Kind = ast.FullJoin
		}
		if sr, ok := right.(*ast.SubqueryRef); ok && c.fullSubs[sr] {
			out.Kind = ast.FullJoin
		}
	case tast.RightJoin:
		out.Kind = ast.RightJoin
	default:
		out.Kind = ast.CrossJoin
		if j.On != nil || len(j.Using) > 0 {
			out.Kind = ast.InnerJoin
		}
	}
	if j.On != nil {
		out.On = c.expr(j.On.Expr)
	}
	for _, u := range j.Using {
		out.Using = append(out.Using, u.Name.O)
	}
	return out
}

// fullTables records which converted TableRefs were the right side of a
// FULL JOIN (keyed by pointer).
func (c *conv) isFull(tr *ast.TableRef) bool {
	for i := range c.r.tables {
		if c.r.tables[i].full && c.r.tables[i].name.At == tr.Name.At && c.r.tables[i].name.Table == tr.Name.Table {
			return true
		}
	}
	return false
}

func (c *conv) tableNode(n tast.ResultSetNode) ast.TableExpr {
	switch n := n.(type) {
	case *tast.Join:
		return c.tableRefs(n)
	case *tast.TableSource:
		alias := n.AsName.O
		var cols []string
		full := false
		if i, ok := placeholder(alias, aliasPrefix, len(c.r.aliases)); ok {
			alias, cols, full = c.r.aliases[i].name, c.r.aliases[i].cols, c.r.aliases[i].full
		}
		switch src := n.Source.(type) {
		case *tast.TableName:
			i, ok := placeholder(src.Name.O, tablePrefix, len(c.r.tables))
			if !ok || src.Schema.O != "" || len(src.PartitionNames) > 0 || src.AsOf != nil || len(src.IndexHints) > 0 || src.TableSample != nil {
				c.unsupported(0)
				return &ast.TableRef{}
			}
			ti := c.r.tables[i]
			if ti.unnest != nil {
				u := *ti.unnest
				u.Alias, u.Columns = alias, cols
				return &u
			}
			if cols != nil {
				c.p.fail(c.p.toks[0])
			}
			if ti.fn != nil {
				tf := *ti.fn
				tf.Alias = alias
				return &tf
			}
			return &ast.TableRef{Node: ast.Node{At: ti.name.At}, Name: ti.name, Alias: alias, Hints: ti.hints,
				SystemTimeAsOf: ti.asOf}
		case *tast.SelectStmt, *tast.SetOprStmt:
			q := c.resultSet(src)
			sr := &ast.SubqueryRef{Node: ast.Node{At: q.Pos()}, Query: q, Alias: alias, Columns: cols, Lateral: n.Lateral}
			if full {
				if c.fullSubs == nil {
					c.fullSubs = map[*ast.SubqueryRef]bool{}
				}
				c.fullSubs[sr] = true
			}
			return sr
		case *tast.Join:
			return c.tableRefs(src)
		}
	}
	c.unsupported(0)
	return &ast.TableRef{}
}

var binOps = map[opcode.Op]ast.BinaryOp{
	opcode.LogicAnd: ast.OpAnd, opcode.LogicOr: ast.OpOr, opcode.GE: ast.OpGe, opcode.LE: ast.OpLe,
	opcode.EQ: ast.OpEq, opcode.NE: ast.OpNe, opcode.LT: ast.OpLt, opcode.GT: ast.OpGt,
	opcode.Plus: ast.OpAdd, opcode.Minus: ast.OpSub, opcode.Mul: ast.OpMul, opcode.Div: ast.OpDiv,
	opcode.Mod: ast.OpMod, opcode.NullEQ: ast.OpIsNotDistinct,
}

// expr converts a TiDB expression.
func (c *conv) expr(e tast.ExprNode) ast.Expr {
	off := e.OriginTextPosition()
	node := ast.Node{At: c.pos(off)}
	switch e := e.(type) {
	case *tast.ParenthesesExpr:
		return c.expr(e.Expr)
	case *tast.ColumnNameExpr:
		n := e.Name
		if n.Table.O == "" && strings.HasPrefix(n.Name.O, unitPrefix) {
			return &ast.TimeUnit{Node: node, Unit: n.Name.O[len(unitPrefix):]}
		}
		q := n.Table.O
		if n.Schema.O != "" {
			q = n.Schema.O + "." + q
		}
		return &ast.ColumnRef{Node: node, Qualifier: q, Name: n.Name.O}
	case *driver.ParamMarkerExpr:
		// TiDB leaves Order to its planner; number the markers by their
		// place in the whole statement.
		orig := c.r.orig(e.Offset)
		idx := 0
		for _, t := range c.p.toks {
			if t.off >= orig {
				break
			}
			if t.kind == tParam {
				idx++
			}
		}
		return &ast.Param{Node: ast.Node{At: c.p.posOff(orig)}, Index: idx}
	case *driver.ValueExpr:
		return c.value(e, off)
	case *tast.BinaryOperationExpr:
		op, ok := binOps[e.Op]
		if !ok {
			// Flink's parser reads up to the operator it does not know
			// ("id >> 3": the first '>' is GT, the second is where it
			// fails): report the last token before the right operand.
			c.failBefore(e.R.OriginTextPosition())
			c.unsupported(off)
		}
		if e.Op == opcode.NullEQ {
			if f, ok := e.R.(*tast.FuncCallExpr); ok && strings.EqualFold(f.FnName.O, isJSONFunc) && len(f.Args) == 1 {
				// x IS [NOT] JSON kind (json.go)
				l := c.expr(e.L)
				u, _ := c.expr(f.Args[0]).(*ast.TimeUnit)
				if u == nil {
					c.unsupported(off)
					return badExpr(node)
				}
				return &ast.FuncCall{Node: ast.Node{At: l.Pos()}, Name: strings.ReplaceAll(u.Unit, "_", " "), Args: []ast.Expr{l}}
			}
			op = c.distinctOp(e.R.OriginTextPosition())
		}
		l := c.expr(e.L)
		return &ast.Binary{Node: ast.Node{At: l.Pos()}, Op: op, L: l, R: c.expr(e.R)}
	case *tast.UnaryOperationExpr:
		var op ast.UnaryOp
		switch e.Op {
		case opcode.Minus:
			op = ast.OpNeg
		case opcode.Plus:
			op = ast.OpPlus
		case opcode.Not, opcode.Not2:
			op = ast.OpNot
		case opcode.BitNeg:
			op = ast.OpBitNot
		default:
			c.unsupported(off)
		}
		return &ast.Unary{Node: node, Op: op, X: c.expr(e.V)}
	case *tast.FuncCallExpr:
		return c.funcCall(e, node)
	case *tast.AggregateFuncExpr:
		f := &ast.FuncCall{Node: node, Name: strings.ToUpper(e.F), Distinct: e.Distinct}
		if w := c.writtenName(off); w != "" && !strings.EqualFold(w, e.F) {
			// TiDB's parser reads STD, STDDEV and VARIANCE as MySQL's
			// population forms (stddev_pop, var_pop); Calcite's STDDEV
			// and VARIANCE are the sample ones and STD is no function:
			// the call keeps the name the query wrote.
			f.Name = strings.ToUpper(w)
		}
		if e.Order != nil {
			c.unsupported(off)
		}
		if strings.EqualFold(e.F, "count") && c.isCountStar(off) {
			f.Star = true
			return f
		}
		args := e.Args
		if strings.EqualFold(e.F, "group_concat") && c.r.listaggs[c.r.orig(off)] {
			// LISTAGG(DISTINCT ...), written as GROUP_CONCAT by the
			// pre-pass: its last argument is GROUP_CONCAT's separator.
			f.Name, args = "LISTAGG", args[:len(args)-1]
		}
		for _, a := range args {
			f.Args = append(f.Args, c.expr(a))
		}
		return f
	case *tast.WindowFuncExpr:
		return c.window(e, node)
	case *tast.CaseExpr:
		k := &ast.Case{Node: node}
		if e.Value != nil {
			k.Operand = c.expr(e.Value)
		}
		var lists []bool // the WHENs written with a value list
		for _, w := range e.WhenClauses {
			f, isList := w.Expr.(*tast.FuncCallExpr)
			isList = isList && strings.EqualFold(f.FnName.O, whenListFunc)
			var cond ast.Expr
			if isList {
				if k.Operand == nil {
					// A searched CASE has no value to compare a list to.
					c.failAt(f.OriginTextPosition())
					return badExpr(node)
				}
				cond = c.whenList(k.Operand, f)
			} else {
				cond = c.expr(w.Expr)
			}
			lists = append(lists, isList)
			k.Whens = append(k.Whens, ast.When{Node: ast.Node{At: cond.Pos()}, Cond: cond, Result: c.expr(w.Result)})
		}
		if e.ElseClause != nil {
			k.Else = c.expr(e.ElseClause)
		}
		if slices.Contains(lists, true) {
			// Calcite's SqlCase.createSwitched makes every WHEN compare the
			// operand: a value list is the OR of its equalities.
			for i, w := range k.Whens {
				if !lists[i] {
					k.Whens[i].Cond = &ast.Binary{Node: w.Node, Op: ast.OpEq, L: k.Operand, R: w.Cond}
				}
			}
			k.Operand = nil
		}
		return k
	case *tast.PatternInExpr:
		x := c.expr(e.Expr)
		in := &ast.In{Node: ast.Node{At: x.Pos()}, X: x, Not: e.Not}
		if e.Sel != nil {
			sq, ok := e.Sel.(*tast.SubqueryExpr)
			if !ok {
				c.unsupported(e.Sel.OriginTextPosition())
				return in
			}
			in.Query = c.resultSet(sq.Query)
		} else {
			for _, v := range e.List {
				in.List = append(in.List, c.expr(v))
			}
		}
		return in
	case *tast.BetweenExpr:
		x := c.expr(e.Expr)
		return &ast.Between{Node: ast.Node{At: x.Pos()}, X: x, Lo: c.expr(e.Left), Hi: c.expr(e.Right), Not: e.Not,
			Symmetric: c.symmetric(e.Left.OriginTextPosition())}
	case *tast.PatternLikeOrIlikeExpr:
		x := c.expr(e.Expr)
		l := &ast.Like{Node: ast.Node{At: x.Pos()}, X: x, Pattern: c.expr(e.Pattern), Not: e.Not, CaseInsensitive: !e.IsLike}
		if e.Escape != '\\' {
			l.Escape = &ast.Literal{Kind: ast.LitString, Raw: ast.QuoteString(string(e.Escape)), Value: string(e.Escape),
				Type: sql.Char(1).NotNull()}
		}
		return l
	case *tast.IsNullExpr:
		x := c.expr(e.Expr)
		return &ast.IsNull{Node: ast.Node{At: x.Pos()}, X: x, Not: e.Not}
	case *tast.IsTruthExpr:
		x := c.expr(e.Expr)
		v := e.True != 0
		return &ast.IsBool{Node: ast.Node{At: x.Pos()}, X: x, Value: &v, Not: e.Not}
	case *tast.SubqueryExpr:
		q := c.resultSet(e.Query)
		if e.Exists {
			return &ast.Exists{Node: node, Query: q}
		}
		return &ast.Subquery{Node: node, Query: q}
	case *tast.ExistsSubqueryExpr:
		sq, ok := e.Sel.(*tast.SubqueryExpr)
		if !ok {
			c.unsupported(off)
			return badExpr(node)
		}
		return &ast.Exists{Node: node, Query: c.resultSet(sq.Query), Not: e.Not}
	case *tast.RowExpr:
		f := &ast.FuncCall{Node: node, Name: "ROW"}
		for _, v := range e.Values {
			f.Args = append(f.Args, c.expr(v))
		}
		return f
	case *tast.PositionExpr:
		return &ast.Literal{Node: node, Kind: ast.LitInt, Raw: strconv.Itoa(e.N), Value: int32(e.N), Type: sql.Int().NotNull()}
	case *tast.TimeUnitExpr:
		return &ast.TimeUnit{Node: node, Unit: strings.ToUpper(e.Unit.String())}
	case *tast.PatternRegexpExpr: // SIMILAR TO, rewritten to REGEXP by the pre-pass
		x := c.expr(e.Expr)
		return &ast.Like{Node: ast.Node{At: x.Pos()}, X: x, Pattern: c.expr(e.Pattern), Not: e.Not, Similar: true}
	}
	c.unsupported(off)
	return badExpr(node)
}

// badExpr stands for an expression the conversion refused (the parser's
// err says why), so that the conversion can finish without nil checks.
func badExpr(n ast.Node) ast.Expr {
	return &ast.Literal{Node: n, Kind: ast.LitNull, Raw: "NULL", Type: sql.Null()}
}

// window converts an OVER call.
func (c *conv) window(e *tast.WindowFuncExpr, node ast.Node) ast.Expr {
	c.lastOff = c.r.orig(e.OriginTextPosition())
	if e.IgnoreNull || e.FromLast || e.Spec.Name.O != "" || e.Spec.Ref.O != "" {
		c.unsupported(e.OriginTextPosition())
	}
	f := &ast.FuncCall{Node: node, Name: strings.ToUpper(e.Name), Distinct: e.Distinct}
	if strings.HasPrefix(strings.ToLower(f.Name), fnPrefix) {
		f.Name = f.Name[len(fnPrefix):]
	}
	args := e.Args
	if strings.EqualFold(e.Name, "group_concat") && c.r.countOver[c.lastOff] {
		// COUNT(DISTINCT ...) OVER, written as GROUP_CONCAT by the
		// pre-pass: its last argument is GROUP_CONCAT's separator.
		f.Name, args = "COUNT", args[:len(args)-1]
	}
	if strings.EqualFold(e.Name, "count") && c.isCountStar(e.OriginTextPosition()) {
		f.Star = true
	} else {
		for _, a := range args {
			f.Args = append(f.Args, c.expr(a))
		}
	}
	w := &ast.WindowSpec{Node: node}
	if e.Spec.PartitionBy != nil {
		for _, it := range e.Spec.PartitionBy.Items {
			w.PartitionBy = append(w.PartitionBy, c.expr(it.Expr))
		}
	}
	w.OrderBy = c.orderBy(e.Spec.OrderBy)
	if fr := e.Spec.Frame; fr != nil {
		if fr.Type != tast.Rows && fr.Type != tast.Ranges {
			c.unsupported(e.OriginTextPosition())
		}
		wf := &ast.WindowFrame{Node: node, Rows: fr.Type == tast.Rows}
		wf.Start = c.frameBound(fr.Extent.Start)
		end := c.frameBound(fr.Extent.End)
		wf.End = &end
		w.Frame = wf
	}
	f.Over = w
	return f
}

func (c *conv) frameBound(b tast.FrameBound) ast.FrameBound {
	var out ast.FrameBound
	switch {
	case b.Type == tast.CurrentRow:
		out.Kind = "CURRENT ROW"
	case b.UnBounded && b.Type == tast.Preceding:
		out.Kind = "UNBOUNDED PRECEDING"
	case b.UnBounded:
		out.Kind = "UNBOUNDED FOLLOWING"
	case b.Type == tast.Preceding:
		out.Kind = "PRECEDING"
	default:
		out.Kind = "FOLLOWING"
	}
	if b.Expr != nil && !b.UnBounded && b.Type != tast.CurrentRow {
		if lit, ok := c.r.frameLits[c.r.orig(b.Expr.OriginTextPosition())]; ok {
			out.Offset = lit
		} else {
			out.Offset = c.expr(b.Expr)
		}
	}
	return out
}

// distinctOp tells IS DISTINCT FROM from IS NOT DISTINCT FROM for a "<=>"
// whose right operand starts at rightOff: its operator is the last one
// written before that operand.
func (c *conv) distinctOp(rightOff int) ast.BinaryOp {
	op := ast.OpIsNotDistinct
	right := c.r.orig(rightOff)
	for _, d := range c.r.distinct {
		if d.orig < right {
			op = ast.OpIsNotDistinct
			if d.is {
				op = ast.OpIsDistinct
			}
			if d.overlaps {
				op = ast.OpOverlaps
			}
		}
	}
	return op
}

// symmetric tells BETWEEN SYMMETRIC for a BETWEEN whose lower bound starts
// at loOff: its BETWEEN is the last one written before that bound.
func (c *conv) symmetric(loOff int) bool {
	lo, sym := c.r.orig(loOff), false
	for _, b := range c.r.betweens {
		if b.orig < lo {
			sym = b.symmetric
		}
	}
	return sym
}

// isCountStar tells COUNT(*) from COUNT(1), which TiDB builds alike.
func (c *conv) isCountStar(off int) bool {
	orig := c.r.orig(off)
	for i, t := range c.p.toks {
		if t.off == orig && i+2 < len(c.p.toks) && c.p.toks[i+1].isOp("(") && c.p.toks[i+2].isOp("*") {
			return true
		}
	}
	return false
}

// writtenName is the identifier the statement has at off (the name of a
// call starting there), or "".
func (c *conv) writtenName(off int) string {
	orig := c.r.orig(off)
	for _, t := range c.p.toks {
		if t.off == orig && t.kind == tIdent {
			return t.text
		}
	}
	return ""
}

func (c *conv) funcCall(e *tast.FuncCallExpr, node ast.Node) ast.Expr {
	name := e.FnName.O
	if name == "" {
		name = e.FnName.L
	}
	if i, ok := placeholder(name, castPrefix, len(c.r.casts)); ok {
		cast := c.r.casts[i]
		if len(e.Args) != 1 {
			c.p.failAtPos(cast.At)
			return cast
		}
		cast.X = c.expr(e.Args[0])
		return cast
	}
	if i, ok := placeholder(name, litPrefix, len(c.r.lits)); ok {
		return c.r.lits[i]
	}
	if strings.EqualFold(name, tast.Concat) && !strings.HasPrefix(name, fnPrefix) && len(e.Args) == 2 &&
		e.Schema.O == "" && c.isPipes(e) {
		l := c.expr(e.Args[0])
		return &ast.Binary{Node: ast.Node{At: l.Pos()}, Op: ast.OpConcat, L: l, R: c.expr(e.Args[1])}
	}
	if strings.EqualFold(name, filterFunc) && len(e.Args) == 2 {
		f, ok := c.expr(e.Args[0]).(*ast.FuncCall)
		if !ok || f.Over != nil || f.Filter != nil {
			c.p.failAtPos(node.At)
			return badExpr(node)
		}
		f.Filter = c.expr(e.Args[1])
		return f
	}
	if strings.EqualFold(name, fieldFunc) && len(e.Args) == 2 {
		x := c.expr(e.Args[0])
		f, _ := c.expr(e.Args[1]).(*ast.Literal)
		if f == nil {
			c.p.failAtPos(node.At)
			return badExpr(node)
		}
		name, _ := f.Value.(string)
		return &ast.FieldAccess{Node: ast.Node{At: x.Pos()}, X: x, Field: name}
	}
	if strings.EqualFold(name, itemFunc) && len(e.Args) == 2 {
		x := c.expr(e.Args[0])
		return &ast.Item{Node: ast.Node{At: x.Pos()}, X: x, Index: c.expr(e.Args[1])}
	}
	if strings.EqualFold(name, tast.Trim) && e.Schema.O == "" && len(e.Args) >= 1 {
		return c.trim(e, node)
	}
	if strings.HasPrefix(strings.ToLower(name), fnPrefix) {
		name = name[len(fnPrefix):]
	}
	f := &ast.FuncCall{Node: node, Name: strings.ToUpper(name)}
	if name != f.Name {
		f.Written = name
	}
	if e.Schema.O != "" {
		f.Name = strings.ToUpper(e.Schema.O) + "." + f.Name
	}
	for _, a := range e.Args {
		f.Args = append(f.Args, c.expr(a))
	}
	if len(f.Args) == 0 && ast.Niladic(f.Name) {
		f.NoParens = !c.followedByParen(e.OriginTextPosition())
	}
	return f
}

// followedByParen tells whether the token at off is followed by "(": a
// niladic function written as CURRENT_TIMESTAMP() rather than
// CURRENT_TIMESTAMP.
func (c *conv) followedByParen(off int) bool {
	orig := c.r.orig(off)
	for i, t := range c.p.toks {
		if t.off == orig {
			return i+1 < len(c.p.toks) && c.p.toks[i+1].isOp("(")
		}
	}
	return true
}

// trim converts TiDB's TRIM (args: str [, chars [, direction]]) into
// Flink's three-argument form TRIM(mode, chars, str).
func (c *conv) trim(e *tast.FuncCallExpr, node ast.Node) ast.Expr {
	str := c.expr(e.Args[0])
	mode := &ast.TimeUnit{Node: node, Unit: "BOTH"}
	var chars ast.Expr = &ast.Literal{Node: node, Kind: ast.LitString, Raw: "' '", Value: " ", Type: sql.Char(1).NotNull()}
	if len(e.Args) > 1 {
		chars = c.expr(e.Args[1])
	}
	if len(e.Args) > 2 {
		d, ok := e.Args[2].(*tast.TrimDirectionExpr)
		if !ok {
			c.unsupported(e.Args[2].OriginTextPosition())
			return badExpr(node)
		}
		switch d.Direction {
		case tast.TrimLeading:
			mode.Unit = "LEADING"
		case tast.TrimTrailing:
			mode.Unit = "TRAILING"
		}
	}
	return &ast.FuncCall{Node: node, Name: "TRIM", Args: []ast.Expr{mode, chars, str}}
}

// isPipes reports a concat that came from "||": an explicit CONCAT( was
// renamed by the pre-pass, so the only concat left is the operator; the
// original text at the call's offset is then not the word CONCAT.
func (c *conv) isPipes(e *tast.FuncCallExpr) bool {
	t, ok := c.offTok[c.r.orig(e.OriginTextPosition())]
	return !ok || !t.is("CONCAT")
}

// value converts a TiDB constant by re-reading the original token, so that
// the literal keeps Flink's typing and its raw spelling.
func (c *conv) value(v *driver.ValueExpr, off int) ast.Expr {
	orig := c.r.orig(off)
	t, ok := c.offTok[orig]
	if ok {
		switch {
		case t.kind == tNumber:
			return c.p.numberLiteral(t)
		case t.kind == tString:
			return c.p.stringLiteral(t)
		case t.kind == tBinary:
			return c.p.binaryLiteral(t)
		case t.is("NULL"):
			return &ast.Literal{Node: ast.Node{At: c.p.pos(t)}, Kind: ast.LitNull, Raw: "NULL", Type: sql.Null()}
		}
	}
	at := ast.Node{At: c.p.posOff(orig)}
	switch x := v.GetValue().(type) {
	case nil:
		return &ast.Literal{Node: at, Kind: ast.LitNull, Raw: "NULL", Type: sql.Null()}
	case string: // a constant TiDB supplies itself, e.g. TRIM's ' '
		return &ast.Literal{Node: at, Kind: ast.LitString, Raw: ast.QuoteString(x), Value: x,
			Type: sql.Char(len([]rune(x))).NotNull()}
	case int64, uint64:
		// A number TiDB's grammar reads without an offset (frame bounds,
		// LAG's offset): find its token after the enclosing call.
		text := fmt.Sprint(x)
		for _, t := range c.p.toks {
			if t.kind == tNumber && t.text == text && t.off >= c.lastOff {
				c.lastOff = t.end
				return c.p.numberLiteral(t)
			}
		}
		return c.p.numberLiteral(token{kind: tNumber, text: text, off: orig})
	}
	c.unsupported(off)
	return badExpr(at)
}

// failAtPos fails with "Encountered" at the token at a position.
func (p *parser) failAtPos(at ast.Pos) {
	off := p.li.offset(at.Line, at.Col)
	for _, t := range p.toks {
		if t.off >= off {
			p.fail(t)
			return
		}
	}
	p.fail(p.toks[len(p.toks)-1])
}
