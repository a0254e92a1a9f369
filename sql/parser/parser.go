// Package parser reads the Flink SQL dialect into sql/ast.
//
// Statements are split at ';' (Split, IsComplete) and parsed one by one
// (Parse, ParseScript). DDL and utility statements (CREATE TABLE ... WITH,
// SET, SHOW, EXPLAIN, STOP JOB, ...) are read by our own recursive-descent
// parser over a small lexer that keeps byte offsets. Query bodies and
// expressions go through github.com/pingcap/tidb/pkg/parser after a
// table-driven token pass (prepass.go) that respells what MySQL's grammar
// lacks (Flink casts, table hints, three-part names, VALUES rows, FULL JOIN,
// derived column lists), every output token carrying its statement offset;
// the TiDB tree is converted into sql/ast at once, so no other package sees
// it.
//
// Errors are *sql.Error values in Flink's wording (`SQL parse failed.
// Encountered "FORM" at line 1, column 10.`) wrapping a *ParseError with the
// positions. Nothing here panics on any input (see the fuzz tests).
package parser

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Parse parses one statement. Surrounding whitespace, comments and one
// trailing ';' are allowed. Positions in the tree are relative to text.
func Parse(text string) (stmt ast.Statement, err error) {
	// Failures are values (parser.err); a panic here is a bug, reported
	// rather than crashing the session.
	defer func() {
		if r := recover(); r != nil {
			stmt = nil
			err = sql.Errorf(sql.SqlParserException, "SQL parse failed. internal error: %v\n%s", r, debug.Stack())
		}
	}()
	// Invalid UTF-8 becomes U+FFFD, as a Java reader decodes it, so names
	// and positions mean the same to us and to TiDB.
	text = strings.ToValidUTF8(text, "\uFFFD")
	if err := checkSize(text); err != nil {
		return nil, err
	}
	toks, lexErr := lex(text)
	li := newLineIndex(text)
	if lexErr != nil {
		pe := lexFailure(text, lexErr, li.pos)
		pe.Statement = text
		return nil, newError(sql.SqlParserException, pe)
	}
	p := newParser(text, toks, li)
	if p.checkNesting(); p.err != nil {
		return nil, p.err
	}
	if p.peek().kind == tEOF {
		p.fail(p.peek())
		return nil, p.err
	}
	stmt = p.statement()
	if p.peek().isOp(";") {
		p.next()
	}
	if t := p.peek(); t.kind != tEOF {
		p.fail(t)
	}
	if p.err != nil {
		return nil, p.err
	}
	return stmt, nil
}

// ParseScript splits a script and parses every statement in order. It
// stops at the first failure; the error's *ParseError then carries both the
// statement-relative and the script position. Statement positions (Pos of
// each statement) are script positions; positions inside a statement are
// relative to its Text.
func ParseScript(text string) ([]ast.Statement, error) {
	pieces, err := Split(text)
	var out []ast.Statement
	for _, pc := range pieces {
		st, perr := Parse(pc.Text)
		if perr != nil {
			return out, shiftError(perr, pc.StartLine, pc.StartCol)
		}
		setStmtPos(st, ast.Pos{Line: pc.StartLine, Col: pc.StartCol})
		out = append(out, st)
	}
	return out, err
}

// parser is the recursive descent over one statement's tokens. A failure
// is recorded in err (the first one wins); from then on the cursor reads
// only the end token, so every reader stops and the parse unwinds by
// returning, and Parse returns err.
type parser struct {
	src  string
	toks []token // significant tokens: no comments; hints kept; ends with tEOF
	i    int
	li   *lineIndex
	err  error
}

func newParser(src string, all []token, li *lineIndex) *parser {
	toks := make([]token, 0, len(all))
	for _, t := range all {
		if t.kind != tComment {
			toks = append(toks, t)
		}
	}
	return &parser{src: src, toks: toks, li: li}
}

func (p *parser) peek() token {
	if p.err != nil {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.i]
}

func (p *parser) peekAt(n int) token {
	if p.err == nil && p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.peek()
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) pos(t token) ast.Pos {
	l, c := p.li.pos(t.off)
	return ast.Pos{Line: l, Col: c}
}

func (p *parser) posOff(off int) ast.Pos {
	l, c := p.li.pos(off)
	return ast.Pos{Line: l, Col: c}
}

// fail records "Encountered <t>" as the parse error unless there is one.
func (p *parser) fail(t token) {
	if p.err != nil {
		return
	}
	l, c := p.li.pos(t.off)
	pe := encountered(tokenDisplay(t), l, c)
	pe.Statement = p.src
	p.err = newError(sql.SqlParserException, pe)
}

// failMsg records a message of the given class at t as the parse error
// unless there is one.
func (p *parser) failMsg(class sql.ExceptionClass, t token, format string, args ...any) {
	if p.err != nil {
		return
	}
	l, c := p.li.pos(t.off)
	pe := &ParseError{Msg: fmt.Sprintf(format, args...), Line: l, Col: c, ScriptLine: l, ScriptCol: c, Statement: p.src}
	p.err = newError(class, pe)
}

// accept consumes the keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.peek().is(kw) {
		p.next()
		return true
	}
	return false
}

// acceptOp consumes the operator op if it is next.
func (p *parser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(kw string) token {
	t := p.peek()
	if !t.is(kw) {
		p.fail(t)
	}
	return p.next()
}

func (p *parser) expectOp(op string) token {
	t := p.peek()
	if !t.isOp(op) {
		p.fail(t)
	}
	return p.next()
}

// reserved lists the words that cannot be plain identifiers in the
// positions our own grammar reads names, so "CREATE TABLE (" fails at "("
// and "DROP TABLE IF EXISTS" is not a table named IF.
var reserved = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "WITH": true, "TABLE": true, "CREATE": true,
	"DROP": true, "INSERT": true, "INTO": true, "VALUES": true, "SET": true, "AND": true, "OR": true,
	"NOT": true, "NULL": true, "PRIMARY": true, "KEY": true, "CONSTRAINT": true, "LIKE": true, "AS": true,
	"BY": true, "ON": true, "JOIN": true, "END": true, "GROUP": true, "ORDER": true, "HAVING": true,
	"UNION": true,
}

// ident reads one identifier.
func (p *parser) ident() (string, token) {
	t := p.peek()
	if t.kind == tQuoted || t.kind == tIdent && !reserved[strings.ToUpper(t.text)] {
		p.next()
		return t.name(), t
	}
	p.fail(t)
	return "", t
}

// objectName reads [catalog.][database.]name.
func (p *parser) objectName() ast.ObjectName {
	_, first := p.ident()
	parts := []string{first.name()}
	for p.peek().isOp(".") {
		p.next()
		n, _ := p.ident()
		parts = append(parts, n)
	}
	if len(parts) > 3 {
		p.fail(first)
	}
	n := ast.ObjectName{Node: ast.Node{At: p.pos(first)}}
	switch len(parts) {
	case 1:
		n.Table = parts[0]
	case 2:
		n.Database, n.Table = parts[0], parts[1]
	case 3:
		n.Catalog, n.Database, n.Table = parts[0], parts[1], parts[2]
	}
	return n
}

// identList reads "(a, b, ...)".
func (p *parser) identList() []string {
	p.expectOp("(")
	var out []string
	for p.err == nil {
		n, _ := p.ident()
		out = append(out, n)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

// stringLit reads a string literal.
func (p *parser) stringLit() string {
	t := p.peek()
	if t.kind != tString {
		p.fail(t)
	}
	p.next()
	return t.val
}

// options reads "('k' = 'v', ...)".
func (p *parser) options() []ast.Option {
	p.expectOp("(")
	var out []ast.Option
	if p.acceptOp(")") {
		return out
	}
	for p.err == nil {
		t := p.peek()
		k := p.stringLit()
		p.expectOp("=")
		v := p.stringLit()
		out = append(out, ast.Option{Node: ast.Node{At: p.pos(t)}, Key: k, Value: v})
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

// base starts a statement at token t: its position and, later, its text.
func (p *parser) base(t token) ast.StmtBase {
	return ast.StmtBase{At: p.pos(t), Text: p.textFrom(t)}
}

// textFrom is the statement text from t to the end of the statement
// (excluding a trailing ';').
func (p *parser) textFrom(t token) string {
	end := t.off
	for j := len(p.toks) - 1; j >= 0; j-- {
		k := p.toks[j]
		if k.kind == tEOF || k.isOp(";") && j == len(p.toks)-2 {
			continue
		}
		end = k.end
		break
	}
	if end < t.off {
		return ""
	}
	return p.src[t.off:end]
}

// statement parses one statement at the cursor.
func (p *parser) statement() ast.Statement {
	t := p.peek()
	switch {
	case t.is("CREATE"):
		return p.create()
	case t.is("DROP"):
		return p.drop()
	case t.is("ALTER"):
		return p.alter()
	case t.is("USE"):
		return p.use()
	case t.is("SHOW"):
		return p.show()
	case t.is("DESCRIBE"), t.is("DESC"):
		p.next()
		d := &ast.Describe{StmtBase: p.base(t)}
		d.Extended = p.accept("EXTENDED")
		d.Name = p.objectName()
		return d
	case t.is("SET"):
		return p.set()
	case t.is("RESET"):
		return p.reset()
	case t.is("INSERT"):
		ins := p.insert(-1)
		ins.StmtBase = p.base(t)
		return ins
	case t.is("EXECUTE"):
		if p.peekAt(1).is("STATEMENT") {
			return p.statementSet()
		}
		p.next() // EXECUTE INSERT ... / EXECUTE SELECT ...
		inner := p.statement()
		setStmtBase(inner, p.base(t))
		return inner
	case t.is("BEGIN"):
		return p.statementSet()
	case t.is("SELECT"), t.is("WITH"), t.is("VALUES"), t.isOp("("):
		q := &ast.Query{StmtBase: p.base(t)}
		q.Body = p.queryToEnd()
		return q
	case t.is("EXPLAIN"):
		return p.explain()
	case t.is("DELETE"):
		return p.delete()
	case t.is("UPDATE"):
		return p.update()
	case t.is("STOP"):
		return p.stopJob()
	case t.is("CALL"):
		return p.call()
	case t.is("QUIT"), t.is("EXIT"):
		p.next()
		return &ast.Quit{StmtBase: p.base(t)}
	case t.is("HELP"):
		p.next()
		return &ast.Help{StmtBase: p.base(t)}
	case t.is("CLEAR"):
		p.next()
		return &ast.Clear{StmtBase: p.base(t)}
	}
	p.fail(t)
	return nil
}

func (p *parser) create() ast.Statement {
	start := p.next() // CREATE
	temporary := p.accept("TEMPORARY")
	t := p.peek()
	switch {
	case t.is("TABLE"):
		p.next()
		return p.createTable(start, temporary)
	case t.is("VIEW"):
		p.next()
		v := &ast.CreateView{StmtBase: p.base(start), Temporary: temporary}
		v.IfNotExists = p.ifNotExists()
		v.Name = p.objectName()
		if p.peek().isOp("(") {
			v.Columns = p.identList()
		}
		if p.accept("COMMENT") {
			v.Comment = p.stringLit()
		}
		p.expect("AS")
		v.Query = p.queryToEnd()
		return v
	case t.is("CATALOG") && !temporary:
		p.next()
		c := &ast.CreateCatalog{StmtBase: p.base(start)}
		c.IfNotExists = p.ifNotExists()
		c.Name, _ = p.ident()
		p.expect("WITH")
		c.Options = p.options()
		return c
	case t.is("DATABASE") && !temporary:
		p.next()
		d := &ast.CreateDatabase{StmtBase: p.base(start)}
		d.IfNotExists = p.ifNotExists()
		d.Catalog, d.Name = p.dbName()
		if p.accept("COMMENT") {
			d.Comment = p.stringLit()
		}
		if p.accept("WITH") {
			d.Options = p.options()
		}
		return d
	}
	p.fail(t)
	return nil
}

func (p *parser) ifNotExists() bool {
	if p.peek().is("IF") {
		p.next()
		p.expect("NOT")
		p.expect("EXISTS")
		return true
	}
	return false
}

func (p *parser) ifExists() bool {
	if p.peek().is("IF") {
		p.next()
		p.expect("EXISTS")
		return true
	}
	return false
}

// dbName reads [catalog.]database.
func (p *parser) dbName() (catalog, name string) {
	n, first := p.ident()
	if p.acceptOp(".") {
		db, _ := p.ident()
		if p.peek().isOp(".") {
			p.fail(first)
		}
		return n, db
	}
	return "", n
}

const enforcedMsg = "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED " +
	"controls if the constraint checks are performed on the incoming/outgoing data. " +
	"Flink does not own the data therefore the only supported mode is the NOT ENFORCED mode"

// notEnforced reads the mandatory NOT ENFORCED after a primary key that
// started at tok.
func (p *parser) notEnforced(tok token) {
	if p.peek().is("NOT") && p.peekAt(1).is("ENFORCED") {
		p.next()
		p.next()
		return
	}
	p.accept("ENFORCED")
	p.failMsg(sql.ValidationException, tok, "%s", enforcedMsg)
}

func (p *parser) createTable(start token, temporary bool) ast.Statement {
	ct := &ast.CreateTable{StmtBase: p.base(start), Temporary: temporary}
	ct.IfNotExists = p.ifNotExists()
	ct.Name = p.objectName()
	var pkTok token
	if p.acceptOp("(") {
		for p.err == nil {
			t := p.peek()
			switch {
			case t.is("CONSTRAINT") || t.is("PRIMARY"):
				if ct.PrimaryKey != nil {
					p.failMsg(sql.ValidationException, t, "Duplicate primary key definition")
				}
				pkTok = t
				if p.accept("CONSTRAINT") {
					ct.PrimaryKeyName, _ = p.ident()
				}
				p.expect("PRIMARY")
				p.expect("KEY")
				ct.PrimaryKey = p.identList()
				p.notEnforced(pkTok)
			case t.is("WATERMARK"):
				p.next()
				w := &ast.WatermarkDef{Node: ast.Node{At: p.pos(t)}}
				p.expect("FOR")
				w.Column, _ = p.ident()
				p.expect("AS")
				w.Expr = p.exprUntil(isElementEnd)
				ct.Watermark = w
			default:
				col, pk := p.columnDef()
				if pk {
					if ct.PrimaryKey != nil {
						p.failMsg(sql.ValidationException, t, "Duplicate primary key definition")
					}
					ct.PrimaryKey = []string{col.Name}
				}
				ct.Columns = append(ct.Columns, col)
			}
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	for _, k := range ct.PrimaryKey {
		for i := range ct.Columns {
			if ct.Columns[i].Name == k {
				ct.Columns[i].Type = ct.Columns[i].Type.NotNull()
			}
		}
	}
	if p.accept("COMMENT") {
		ct.Comment = p.stringLit()
	}
	if p.peek().is("DISTRIBUTED") {
		ct.Distribution = p.distribution()
	}
	if p.peek().is("PARTITIONED") {
		p.next()
		p.expect("BY")
		ct.PartitionedBy = p.identList()
	}
	if p.accept("WITH") {
		ct.Options = p.options()
	}
	if t := p.peek(); t.is("LIKE") {
		p.next()
		like := &ast.LikeClause{Node: ast.Node{At: p.pos(t)}}
		like.Source = p.objectName()
		if p.acceptOp("(") {
			for p.err == nil {
				ot := p.peek()
				o := ast.LikeOption{Node: ast.Node{At: p.pos(ot)}}
				switch {
				case ot.is("INCLUDING"), ot.is("EXCLUDING"), ot.is("OVERWRITING"):
					o.Strategy = strings.ToUpper(p.next().text)
				default:
					p.fail(ot)
				}
				ft := p.peek()
				switch {
				case ft.is("ALL"), ft.is("CONSTRAINTS"), ft.is("PARTITIONS"), ft.is("OPTIONS"),
					ft.is("WATERMARKS"), ft.is("GENERATED"), ft.is("METADATA"):
					o.Feature = strings.ToUpper(p.next().text)
				default:
					p.fail(ft)
				}
				like.Options = append(like.Options, o)
				p.acceptOp(",") // Flink separates them by blanks; a comma is tolerated
				if p.peek().isOp(")") {
					break
				}
			}
			p.expectOp(")")
		}
		ct.Like = like
	}
	if p.accept("AS") {
		if ct.Like != nil {
			p.fail(p.toks[p.i-1])
		}
		ct.AsQuery = p.queryToEnd()
	}
	return ct
}

// distribution reads DISTRIBUTED BY [HASH | RANGE] (cols) [INTO n
// BUCKETS] or DISTRIBUTED INTO n BUCKETS, Flink's grammar
// (SqlCreateTable's SqlDistribution, FLINK-33495).
func (p *parser) distribution() *ast.Distribution {
	t := p.next() // DISTRIBUTED
	d := &ast.Distribution{Node: ast.Node{At: p.pos(t)}}
	into := true
	if p.accept("BY") {
		if k := p.peek(); k.is("HASH") || k.is("RANGE") {
			d.Kind = strings.ToUpper(p.next().text)
		}
		d.Columns = p.identList()
		into = p.peek().is("INTO")
	}
	if into {
		p.expect("INTO")
		n, _ := p.typeParam()
		p.expect("BUCKETS")
		d.Buckets = n
	}
	return d
}

// isElementEnd ends an expression inside a CREATE TABLE element list.
func isElementEnd(t token) bool {
	return t.isOp(",") || t.isOp(")") || t.is("COMMENT")
}

// columnDef reads one column; pk reports an inline PRIMARY KEY NOT ENFORCED.
func (p *parser) columnDef() (ast.ColumnDef, bool) {
	name, t := p.ident()
	col := ast.ColumnDef{Node: ast.Node{At: p.pos(t)}, Name: name}
	pk := false
	if p.accept("AS") { // computed column
		col.Expr = p.exprUntil(isElementEnd)
	} else {
		col.Type = p.dataType()
		if p.accept("METADATA") {
			col.Metadata = true
			if p.accept("FROM") {
				col.MetadataKey = p.stringLit()
			}
			col.Virtual = p.accept("VIRTUAL")
		}
		if t := p.peek(); t.is("PRIMARY") {
			p.next()
			p.expect("KEY")
			p.notEnforced(t)
			pk = true
		}
	}
	if p.accept("COMMENT") {
		col.Comment = p.stringLit()
	}
	return col, pk
}

func (p *parser) drop() ast.Statement {
	start := p.next()
	temporary := p.accept("TEMPORARY")
	t := p.peek()
	switch {
	case t.is("TABLE"):
		p.next()
		d := &ast.DropTable{StmtBase: p.base(start), Temporary: temporary}
		d.IfExists = p.ifExists()
		d.Name = p.objectName()
		return d
	case t.is("VIEW"):
		p.next()
		d := &ast.DropView{StmtBase: p.base(start), Temporary: temporary}
		d.IfExists = p.ifExists()
		d.Name = p.objectName()
		return d
	case t.is("CATALOG") && !temporary:
		p.next()
		d := &ast.DropCatalog{StmtBase: p.base(start)}
		d.IfExists = p.ifExists()
		d.Name, _ = p.ident()
		return d
	case t.is("DATABASE") && !temporary:
		p.next()
		d := &ast.DropDatabase{StmtBase: p.base(start)}
		d.IfExists = p.ifExists()
		d.Catalog, d.Name = p.dbName()
		if p.accept("CASCADE") {
			d.Cascade = true
		} else {
			p.accept("RESTRICT")
		}
		return d
	}
	p.fail(t)
	return nil
}

func (p *parser) alter() ast.Statement {
	start := p.next()
	p.expect("TABLE")
	name := p.objectName()
	t := p.peek()
	switch {
	case t.is("SET"):
		p.next()
		return &ast.AlterTableSet{StmtBase: p.base(start), Name: name, Options: p.options()}
	case t.is("RESET"):
		p.next()
		a := &ast.AlterTableReset{StmtBase: p.base(start), Name: name}
		p.expectOp("(")
		for p.err == nil {
			a.Keys = append(a.Keys, p.stringLit())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return a
	case t.is("RENAME"):
		p.next()
		if p.accept("TO") {
			return &ast.AlterTableRename{StmtBase: p.base(start), Name: name, NewName: p.objectName()}
		}
		r := &ast.AlterTableRenameColumn{StmtBase: p.base(start), Name: name}
		r.Old, _ = p.ident()
		p.expect("TO")
		r.New, _ = p.ident()
		return r
	case t.is("ADD"):
		p.next()
		return &ast.AlterTableAddColumns{StmtBase: p.base(start), Name: name, Columns: p.columnChanges()}
	case t.is("MODIFY"):
		p.next()
		return &ast.AlterTableModifyColumns{StmtBase: p.base(start), Name: name, Columns: p.columnChanges()}
	case t.is("DROP"):
		p.next()
		d := &ast.AlterTableDropColumns{StmtBase: p.base(start), Name: name}
		if p.peek().isOp("(") {
			d.Columns = p.identList()
		} else {
			n, _ := p.ident()
			d.Columns = []string{n}
		}
		return d
	}
	p.fail(t)
	return nil
}

// columnChanges reads "(col TYPE ... [FIRST|AFTER c], ...)" or one such
// column without parentheses.
func (p *parser) columnChanges() []ast.ColumnChange {
	one := func() ast.ColumnChange {
		t := p.peek()
		col, pk := p.columnDef()
		if pk || col.Expr != nil || col.Metadata {
			p.fail(t) // keys, computed and metadata columns are not evolved here
		}
		c := ast.ColumnChange{Column: col}
		if p.accept("FIRST") {
			c.First = true
		} else if p.accept("AFTER") {
			c.After, _ = p.ident()
		}
		return c
	}
	if !p.acceptOp("(") {
		return []ast.ColumnChange{one()}
	}
	var out []ast.ColumnChange
	for p.err == nil {
		out = append(out, one())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

func (p *parser) use() ast.Statement {
	start := p.next()
	if p.peek().is("CATALOG") && p.peekAt(1).kind != tEOF && !p.peekAt(1).isOp(";") && !p.peekAt(1).isOp(".") {
		p.next()
		c := &ast.UseCatalog{StmtBase: p.base(start)}
		c.Name, _ = p.ident()
		return c
	}
	u := &ast.UseDatabase{StmtBase: p.base(start)}
	u.Catalog, u.Name = p.dbName()
	return u
}

func (p *parser) show() ast.Statement {
	start := p.next()
	s := &ast.Show{StmtBase: p.base(start)}
	t := p.next()
	switch {
	case t.is("CATALOGS"):
		s.Kind = ast.ShowCatalogs
	case t.is("DATABASES"):
		s.Kind = ast.ShowDatabases
	case t.is("TABLES"), t.is("VIEWS"):
		s.Kind = ast.ShowTables
		if t.is("VIEWS") {
			s.Kind = ast.ShowViews
		}
		if p.accept("FROM") || p.accept("IN") {
			c, d := p.dbName()
			s.Table = ast.ObjectName{Node: ast.Node{At: p.pos(p.toks[p.i-1])}, Database: c, Table: d}
		}
		p.showLike(s)
	case t.is("COLUMNS"):
		s.Kind = ast.ShowColumns
		if !p.accept("FROM") {
			p.expect("IN")
		}
		s.Table = p.objectName()
		p.showLike(s)
	case t.is("CREATE"):
		s.Kind = ast.ShowCreateTable
		if p.accept("VIEW") {
			s.Kind = ast.ShowCreateView
		} else {
			p.expect("TABLE")
		}
		s.Table = p.objectName()
	case t.is("JOBS"):
		s.Kind = ast.ShowJobs
	case t.is("CURRENT"):
		switch n := p.next(); {
		case n.is("CATALOG"):
			s.Kind = ast.ShowCurrentCatalog
		case n.is("DATABASE"):
			s.Kind = ast.ShowCurrentDatabase
		default:
			p.fail(n)
		}
	case t.is("USER"), t.is("FUNCTIONS"):
		if t.is("USER") {
			s.User = true
			p.expect("FUNCTIONS")
		}
		s.Kind = ast.ShowFunctions
		p.showLike(s)
	default:
		p.fail(t)
	}
	return s
}

func (p *parser) showLike(s *ast.Show) {
	s.NotLike = p.accept("NOT")
	switch {
	case p.accept("LIKE"):
	case p.accept("ILIKE"):
		s.ILike = true
	default:
		if s.NotLike {
			p.fail(p.peek())
		}
		return
	}
	s.Like = p.stringLit()
}

// rawUntil returns the source text of the tokens from the cursor up to (not
// including) the first token for which stop is true, trimmed, and moves the
// cursor there. It reads the legacy unquoted forms "SET k = v".
func (p *parser) rawUntil(stop func(token) bool) (string, token) {
	first := p.peek()
	end := first.off
	for t := p.peek(); t.kind != tEOF && !t.isOp(";") && !stop(t); t = p.peek() {
		end = p.next().end
	}
	if end == first.off {
		p.fail(first)
	}
	return strings.TrimSpace(p.src[first.off:end]), first
}

// keyOrValue reads a quoted string or the legacy unquoted text.
func (p *parser) keyOrValue(stop func(token) bool) string {
	if t := p.peek(); t.kind == tString && (p.peekAt(1).kind == tEOF || p.peekAt(1).isOp(";") || stop(p.peekAt(1))) {
		p.next()
		return t.val
	}
	s, _ := p.rawUntil(stop)
	return s
}

func (p *parser) set() ast.Statement {
	start := p.next()
	s := &ast.Set{StmtBase: p.base(start)}
	if t := p.peek(); t.kind == tEOF || t.isOp(";") {
		return s
	}
	s.Key = p.keyOrValue(func(t token) bool { return t.isOp("=") })
	if s.Key == "" {
		p.fail(p.peek())
	}
	p.expectOp("=")
	s.Value = p.keyOrValue(func(token) bool { return false })
	return s
}

func (p *parser) reset() ast.Statement {
	start := p.next()
	r := &ast.Reset{StmtBase: p.base(start)}
	if t := p.peek(); t.kind == tEOF || t.isOp(";") {
		return r
	}
	r.Key = p.keyOrValue(func(token) bool { return false })
	return r
}

// insert reads INSERT ...; the query ends at the token index end, or at the
// end of the statement (or the next top-level ';') when end < 0.
func (p *parser) insert(end int) *ast.Insert {
	start := p.expect("INSERT")
	ins := &ast.Insert{StmtBase: ast.StmtBase{At: p.pos(start)}}
	switch t := p.next(); {
	case t.is("INTO"):
	case t.is("OVERWRITE"):
		ins.Overwrite = true
	default:
		p.fail(t)
	}
	ins.Table = p.objectName()
	for p.peek().kind == tHint {
		ins.Hints = append(ins.Hints, p.hints(p.next())...)
	}
	if t := p.peek(); t.is("PARTITION") {
		p.next()
		p.expectOp("(")
		for p.err == nil {
			ct := p.peek()
			col, _ := p.ident()
			p.expectOp("=")
			lt := p.peek()
			lit, ok := p.exprUntil(func(t token) bool { return t.isOp(",") || t.isOp(")") }).(*ast.Literal)
			if !ok {
				p.fail(lt)
			}
			ins.Partition = append(ins.Partition, ast.PartitionValue{Node: ast.Node{At: p.pos(ct)}, Column: col, Value: lit})
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
	if p.peek().isOp("(") && !isQueryStart(p.peekAt(1)) {
		ins.Columns = p.identList()
	}
	if end < 0 {
		ins.Query = p.queryToEnd()
	} else {
		ins.Query = p.queryRange(p.i, end)
		p.i = end
	}
	return ins
}

func isQueryStart(t token) bool {
	return t.is("SELECT") || t.is("WITH") || t.is("VALUES") || t.isOp("(")
}

// statementEnd is the index of the first ';' at parenthesis depth 0 from
// the cursor, or of the EOF token.
func (p *parser) statementEnd() int {
	depth := 0
	for j := p.i; j < len(p.toks); j++ {
		t := p.toks[j]
		switch {
		case t.kind == tEOF:
			return j
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		case t.isOp(";") && depth <= 0:
			return j
		}
	}
	return len(p.toks) - 1
}

// queryToEnd parses the query from the cursor to the end of the statement.
func (p *parser) queryToEnd() ast.QueryExpr {
	end := p.statementEnd()
	q := p.queryRange(p.i, end)
	p.i = end
	return q
}

func (p *parser) statementSet() ast.Statement {
	start := p.next() // EXECUTE or BEGIN
	if start.is("EXECUTE") {
		p.expect("STATEMENT")
		p.expect("SET")
		p.expect("BEGIN")
	} else {
		p.expect("STATEMENT")
		p.expect("SET")
		p.expectOp(";")
	}
	return p.statementSetBody(start)
}

// statementSetBody reads "INSERT ...; ... END" after the set's header.
func (p *parser) statementSetBody(start token) *ast.StatementSet {
	ss := &ast.StatementSet{StmtBase: p.base(start)}
	for p.err == nil {
		t := p.peek()
		if t.is("END") {
			p.next()
			break
		}
		if !t.is("INSERT") {
			p.fail(t)
			return ss
		}
		end := p.statementEnd()
		ins := p.insert(end)
		ins.StmtBase = ast.StmtBase{At: p.pos(t), Text: p.src[t.off:p.toks[end-1].end]}
		ss.Inserts = append(ss.Inserts, ins)
		p.expectOp(";")
	}
	return ss
}

var explainDetails = map[string]bool{
	"ESTIMATED_COST": true, "CHANGELOG_MODE": true, "JSON_EXECUTION_PLAN": true, "PLAN_ADVICE": true,
}

func (p *parser) explain() ast.Statement {
	start := p.next()
	e := &ast.Explain{StmtBase: p.base(start)}
	if p.peek().is("PLAN") {
		p.next()
		p.expect("FOR")
	} else {
		for explainDetails[strings.ToUpper(p.peek().text)] && p.peek().kind == tIdent {
			e.Details = append(e.Details, strings.ToUpper(p.next().text))
			if !p.acceptOp(",") {
				break
			}
		}
	}
	t := p.peek()
	switch {
	case t.is("STATEMENT") && p.peekAt(1).is("SET"):
		// EXPLAIN STATEMENT SET BEGIN ... END
		p.next()
		p.next()
		p.expect("BEGIN")
		e.Stmt = p.statementSetBody(t)
	case t.is("SELECT"), t.is("WITH"), t.is("VALUES"), t.isOp("("), t.is("INSERT"), t.is("EXECUTE"), t.is("BEGIN"):
		e.Stmt = p.statement()
	default:
		p.fail(t)
	}
	return e
}

func (p *parser) delete() ast.Statement {
	start := p.next()
	p.expect("FROM")
	d := &ast.Delete{StmtBase: p.base(start), Table: p.objectName()}
	if p.accept("WHERE") {
		d.Where = p.exprUntil(func(t token) bool { return t.isOp(";") })
	}
	return d
}

func (p *parser) update() ast.Statement {
	start := p.next()
	u := &ast.Update{StmtBase: p.base(start), Table: p.objectName()}
	p.expect("SET")
	for p.err == nil {
		ct := p.peek()
		col, _ := p.ident()
		p.expectOp("=")
		v := p.exprUntil(func(t token) bool { return t.isOp(",") || t.is("WHERE") || t.isOp(";") })
		u.Sets = append(u.Sets, ast.Assignment{Node: ast.Node{At: p.pos(ct)}, Column: col, Value: v})
		if !p.acceptOp(",") {
			break
		}
	}
	if p.accept("WHERE") {
		u.Where = p.exprUntil(func(t token) bool { return t.isOp(";") })
	}
	return u
}

func (p *parser) stopJob() ast.Statement {
	start := p.next()
	p.expect("JOB")
	s := &ast.StopJob{StmtBase: p.base(start)}
	s.ID = p.stringLit()
	for p.accept("WITH") {
		switch t := p.next(); {
		case t.is("SAVEPOINT"):
			s.WithSavepoint = true
		case t.is("DRAIN"):
			s.WithDrain = true
		default:
			p.fail(t)
		}
	}
	return s
}

func (p *parser) call() ast.Statement {
	start := p.next()
	c := &ast.Call{StmtBase: p.base(start), Procedure: p.objectName()}
	p.expectOp("(")
	if !p.acceptOp(")") {
		named := false
		for p.err == nil {
			name := ""
			if t := p.peek(); t.isIdent() && p.peekAt(1).isOp("=>") {
				name, named = t.name(), true
				p.next()
				p.next()
			}
			c.ArgNames = append(c.ArgNames, name)
			c.Args = append(c.Args, p.exprUntil(func(t token) bool { return t.isOp(",") || t.isOp(")") }))
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		if !named {
			c.ArgNames = nil
		}
	}
	return c
}

// exprUntil parses the expression from the cursor up to the first token at
// parenthesis depth 0 for which stop is true (or the end of the
// statement), and moves the cursor there.
func (p *parser) exprUntil(stop func(token) bool) ast.Expr {
	depth := 0
	j := p.i
	for ; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind == tEOF || depth == 0 && (stop(t) || t.isOp(";")) {
			break
		}
		if t.isOp("(") || t.isOp("[") {
			depth++
		} else if t.isOp(")") || t.isOp("]") {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if j == p.i {
		p.fail(p.peek())
		return nil
	}
	e := p.exprRange(p.i, j)
	p.i = j
	return e
}

// setStmtBase replaces the position and text of a statement.
func setStmtBase(s ast.Statement, b ast.StmtBase) {
	switch s := s.(type) {
	case *ast.CreateTable:
		s.StmtBase = b
	case *ast.Insert:
		s.StmtBase = b
	case *ast.Query:
		s.StmtBase = b
	case *ast.StatementSet:
		s.StmtBase = b
	case *ast.Explain:
		s.StmtBase = b
	}
}

// setStmtPos moves a statement's position (used by ParseScript to give
// script positions) keeping its text.
func setStmtPos(s ast.Statement, at ast.Pos) {
	b := ast.StmtBase{At: at, Text: s.SQL()}
	switch s := s.(type) {
	case *ast.CreateTable:
		s.StmtBase = b
	case *ast.DropTable:
		s.StmtBase = b
	case *ast.CreateView:
		s.StmtBase = b
	case *ast.DropView:
		s.StmtBase = b
	case *ast.AlterTableSet:
		s.StmtBase = b
	case *ast.AlterTableReset:
		s.StmtBase = b
	case *ast.AlterTableRename:
		s.StmtBase = b
	case *ast.AlterTableAddColumns:
		s.StmtBase = b
	case *ast.AlterTableModifyColumns:
		s.StmtBase = b
	case *ast.AlterTableDropColumns:
		s.StmtBase = b
	case *ast.AlterTableRenameColumn:
		s.StmtBase = b
	case *ast.CreateCatalog:
		s.StmtBase = b
	case *ast.DropCatalog:
		s.StmtBase = b
	case *ast.UseCatalog:
		s.StmtBase = b
	case *ast.CreateDatabase:
		s.StmtBase = b
	case *ast.DropDatabase:
		s.StmtBase = b
	case *ast.UseDatabase:
		s.StmtBase = b
	case *ast.Show:
		s.StmtBase = b
	case *ast.Describe:
		s.StmtBase = b
	case *ast.Set:
		s.StmtBase = b
	case *ast.Reset:
		s.StmtBase = b
	case *ast.Insert:
		s.StmtBase = b
	case *ast.StatementSet:
		s.StmtBase = b
	case *ast.Query:
		s.StmtBase = b
	case *ast.Explain:
		s.StmtBase = b
	case *ast.Delete:
		s.StmtBase = b
	case *ast.Update:
		s.StmtBase = b
	case *ast.StopJob:
		s.StmtBase = b
	case *ast.Call:
		s.StmtBase = b
	case *ast.Quit:
		s.StmtBase = b
	case *ast.Help:
		s.StmtBase = b
	case *ast.Clear:
		s.StmtBase = b
	}
}
