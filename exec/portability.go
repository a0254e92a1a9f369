package exec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// FlinkTarget is the one target `sqlrun check --target` knows: Apache
// Flink 1.20 with Paimon 1.4 and flink-connector-jdbc 3.3.
const FlinkTarget = "flink-1.20"

// Finding is one place in a script that the target rejects or runs
// differently from sqlrun.
type Finding struct {
	Line, Col int
	Msg       string
}

// PortabilityReport is what `sqlrun check` prints: the findings in script
// order and the jars the target needs in its lib/ directory.
type PortabilityReport struct {
	Findings []Finding
	Jars     []string
}

// CheckPortability reads a script as Flink 1.20's SQL client would run it
// and reports what would fail or behave differently there. Its facts come
// from the connectors' own declarations (connectors.Option.SqlrunOnly,
// connectors.FlinkPortable) and sqlrun's own statements, the data
// docs/differences.md and docs/connectors.md are checked against.
func CheckPortability(script string) (*PortabilityReport, error) {
	pieces, err := parser.Split(script)
	if err != nil {
		return nil, err
	}
	c := &portability{tables: map[string]string{}, catalogs: map[string]string{}, jars: map[string]bool{},
		missing: map[string]int{}, current: "default_catalog"}
	for _, p := range pieces {
		stmt, err := parser.Parse(p.Text)
		if err != nil {
			c.add(p, ast.Pos{Line: 1, Col: 1}, fmt.Sprintf("does not parse: %v", err))
			continue
		}
		c.statement(p, stmt)
	}
	rep := &PortabilityReport{Findings: c.findings}
	for j := range c.jars {
		rep.Jars = append(rep.Jars, j)
	}
	sort.Strings(rep.Jars)
	return rep, nil
}

type portability struct {
	findings []Finding
	// tables maps a table name as written (lower case, last part) to its
	// connector; catalogs a catalog name to its type.
	tables   map[string]string
	catalogs map[string]string
	current  string
	jars     map[string]bool
	// missing maps a connector Flink lacks to the line first reporting it.
	missing map[string]int
}

// add records a finding at pos of statement p (pos is relative to it).
func (c *portability) add(p parser.Piece, pos ast.Pos, msg string) {
	line, col := p.StartLine, p.StartCol
	if pos.IsValid() {
		line = p.StartLine + pos.Line - 1
		if pos.Line == 1 {
			col = p.StartCol + pos.Col - 1
		} else {
			col = pos.Col
		}
	}
	c.findings = append(c.findings, Finding{Line: line, Col: col, Msg: msg})
}

func (c *portability) statement(p parser.Piece, stmt ast.Statement) {
	switch st := stmt.(type) {
	case *ast.CreateCatalog:
		typ := ""
		for _, o := range st.Options {
			if strings.EqualFold(o.Key, "type") {
				typ = strings.ToLower(o.Value)
			}
		}
		c.catalogs[strings.ToLower(st.Name)] = typ
		c.factory(p, st.Pos(), typ)
	case *ast.UseCatalog:
		c.current = strings.ToLower(st.Name)
	case *ast.CreateTable:
		conn := ""
		pos := st.Pos()
		for _, o := range st.Options {
			if strings.EqualFold(o.Key, "connector") {
				conn = strings.ToLower(o.Value)
				pos = o.Pos()
			}
		}
		if conn == "" {
			cat := c.current
			if st.Name.Catalog != "" {
				cat = strings.ToLower(st.Name.Catalog)
			}
			conn = c.catalogs[cat] // a Paimon catalog's tables are Paimon's
		}
		c.tables[strings.ToLower(st.Name.Table)] = conn
		if f := c.factory(p, pos, conn); f != nil {
			c.options(p, st.Options, f, "table "+st.Name.Table)
		}
		if st.AsQuery != nil {
			c.query(p, st.AsQuery)
		}
	case *ast.Insert:
		c.hints(p, st.Table, st.Hints)
		c.query(p, st.Query)
	case *ast.StatementSet:
		for _, ins := range st.Inserts {
			c.statement(p, ins)
		}
	case *ast.Query:
		c.query(p, st.Body)
	case *ast.Explain:
		c.statement(p, st.Stmt)
	case *ast.Call:
		if isReconcile(st.Procedure) {
			c.add(p, st.Pos(), "CALL sqlrun.reconcile is sqlrun's own procedure; Flink has no such procedure")
		}
	}
}

// factory looks up a connector (or catalog type) and records its jars; it
// reports a connector Flink does not have.
func (c *portability) factory(p parser.Piece, pos ast.Pos, id string) connectors.Factory {
	if id == "" {
		return nil
	}
	f, err := connectors.Lookup(id)
	if err != nil {
		return nil // sqlrun itself refuses it when the script runs
	}
	fp, ok := f.(connectors.FlinkPortable)
	if !ok {
		return f
	}
	fc := fp.FlinkConnector()
	if fc.Missing != "" {
		if first, seen := c.missing[id]; seen {
			c.add(p, pos, fmt.Sprintf("connector '%s': not in Flink's distribution (see line %d)", id, first))
		} else {
			c.add(p, pos, fmt.Sprintf("connector '%s': %s", id, fc.Missing))
			c.missing[id] = c.findings[len(c.findings)-1].Line
		}
	}
	for _, j := range fc.Jars {
		c.jars[j] = true
	}
	return f
}

// options reports options the target's connector does not have.
func (c *portability) options(p parser.Piece, opts []ast.Option, f connectors.Factory, where string) {
	declared := map[string]connectors.Option{}
	for _, o := range f.Options() {
		declared[o.Key] = o
	}
	rejects := false
	missing := false
	if fp, ok := f.(connectors.FlinkPortable); ok {
		rejects = fp.FlinkConnector().RejectsUnknownOptions
		missing = fp.FlinkConnector().Missing != ""
	}
	if missing {
		return // the connector itself is reported
	}
	for _, o := range opts {
		d, ok := declared[o.Key]
		switch {
		case ok && d.SqlrunOnly && rejects:
			c.add(p, o.Pos(), fmt.Sprintf("option '%s' of %s is sqlrun's own: Flink's '%s' connector fails with "+
				"\"Unsupported options found for '%s'\"", o.Key, where, f.Identifier(), f.Identifier()))
		case ok && d.SqlrunOnly:
			c.add(p, o.Pos(), fmt.Sprintf("option '%s' of %s is sqlrun's own: on Flink, '%s' keeps it as a table option and ignores it",
				o.Key, where, f.Identifier()))
		case !ok && strings.HasPrefix(o.Key, "sqlrun."):
			c.add(p, o.Pos(), fmt.Sprintf("option '%s' of %s is sqlrun's own: on Flink, '%s' keeps it as a table option and ignores it",
				o.Key, where, f.Identifier()))
		}
	}
}

// hints checks OPTIONS hints against the table's connector, when the
// script created the table.
func (c *portability) hints(p parser.Piece, name ast.ObjectName, hints []ast.Hint) {
	conn := c.tables[strings.ToLower(name.Table)]
	if conn == "" {
		return
	}
	f, err := connectors.Lookup(conn)
	if err != nil {
		return
	}
	for _, h := range hints {
		c.options(p, h.Options, f, "the OPTIONS hint on "+name.Table)
	}
}

func (c *portability) query(p parser.Piece, q ast.QueryExpr) {
	switch x := q.(type) {
	case *ast.Select:
		c.from(p, x.From)
	case *ast.SetOp:
		c.query(p, x.Left)
		c.query(p, x.Right)
	case *ast.With:
		for _, cte := range x.CTEs {
			c.query(p, cte.Query)
		}
		c.query(p, x.Body)
	}
}

func (c *portability) from(p parser.Piece, t ast.TableExpr) {
	switch x := t.(type) {
	case *ast.TableRef:
		c.hints(p, x.Name, x.Hints)
	case *ast.Join:
		c.from(p, x.Left)
		c.from(p, x.Right)
	case *ast.SubqueryRef:
		c.query(p, x.Query)
	}
}

// FormatPortability prints a report: one "file:line:col: message" line per
// finding, then the jars, then a summary line.
func FormatPortability(file string, rep *PortabilityReport) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "%s:%d:%d: %s\n", file, f.Line, f.Col, f.Msg)
	}
	if len(rep.Jars) > 0 {
		fmt.Fprintf(&b, "Flink %s needs in lib/ (Maven group:artifact:version):\n", strings.TrimPrefix(FlinkTarget, "flink-"))
		for _, j := range rep.Jars {
			fmt.Fprintf(&b, "  %s\n", j)
		}
	}
	switch n := len(rep.Findings); n {
	case 0:
		fmt.Fprintf(&b, "%s: nothing that %s rejects or runs differently was found\n", file, FlinkTarget)
	default:
		fmt.Fprintf(&b, "%s: %d finding(s) for %s\n", file, n, FlinkTarget)
	}
	return b.String()
}
