package plan

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Env is what the planner needs from the session: table lookup through the
// current catalog and database, and the session configuration (SET keys).
type Env interface {
	// LookupTable resolves a possibly partial name. A missing table is an
	// error wrapping catalog.ErrTableNotExist with Flink's message.
	LookupTable(name ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error)
	// LookupTableAt resolves a name read FOR SYSTEM_TIME AS OF a constant
	// time (catalog.Manager.LookupTableAt): the table as its catalog had
	// it at the epoch milliseconds at() returns; versioned is false, and
	// at not called, for a table without versions (temporary, or of a
	// catalog that keeps none).
	LookupTableAt(name ast.ObjectName, at func() (int64, error)) (id connectors.ObjectIdentifier, t *catalog.Table, versioned bool, err error)
	Config() map[string]string
	// DefaultConnector names the connector of a table of a catalog whose
	// tables may lack a 'connector' option (a Paimon catalog's tables are
	// Paimon tables), or "" (catalog.Manager.DefaultConnector).
	DefaultConnector(id connectors.ObjectIdentifier) string
	// TablePath is the directory of a table of a catalog that stores its
	// tables at known locations (a Paimon warehouse), or "" when it has
	// none (catalog.Manager.TablePath). The planner passes it to the
	// connector as the 'path' option of tables that have no 'connector'.
	TablePath(id connectors.ObjectIdentifier) string
	// PinnedOptions are options the session sets on a table for one
	// statement over its options and hints (a full start pinned to a
	// snapshot for 'sink.orphans-on-full-start'), or nil.
	PinnedOptions(id connectors.ObjectIdentifier) map[string]string
}

// validationErr builds Flink's two-level validation failure: "SQL
// validation failed. From line L, column C to line L, column C2: msg",
// caused by a sql.SqlValidatorException carrying msg alone.
func validationErr(from ast.Pos, width int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	cause := &sql.Error{Class: sql.SqlValidatorException, Msg: msg}
	if !from.IsValid() {
		return &sql.Error{Class: sql.ValidationException, Msg: "SQL validation failed. " + msg, Err: cause}
	}
	if width < 1 {
		width = 1
	}
	return &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("SQL validation failed. From line %d, column %d to line %d, column %d: %s",
			from.Line, from.Col, from.Line, from.Col+width-1, msg), Err: cause}
}

// column is one visible column of a FROM scope.
type column struct {
	qualifier string
	name      string
	t         sql.DataType
	// ambiguous marks a column whose table's row has another field of
	// its name (a window TVF's window_start over an input that has one):
	// Calcite resolves neither, by name or through *.
	ambiguous bool
	// hidden marks a column of the value generator a decorrelation joins
	// into a subquery's FROM (valuegen.go): read only qualified, never
	// by *, since the subquery as written does not have it.
	hidden bool
}

type scope struct {
	cols []column
	// using are the common columns of the USING joins the scope reads.
	using []usingColumn
	// fixed are the column references a star expanded into, each to the
	// column it stands for (two inputs of a join may have columns of the
	// same name and no qualifier).
	fixed map[*ast.ColumnRef]int
	// selected are the select items that are a bare USING column.
	selected map[*ast.ColumnRef]bool
	// innerFrom > 0 marks a correlated subquery's scope: cols[:innerFrom]
	// are the outer query's columns, cols[innerFrom:] the subquery's own,
	// and a name resolves among the subquery's columns first (SQL's
	// scoping, Calcite's DelegatingScope: the outer scope is consulted
	// only for a name the inner one does not have).
	innerFrom int
	// input is the node the scope's columns are the fields of (a
	// SELECT's FROM), where CURRENT_WATERMARK looks for rowtime
	// attributes; nil elsewhere.
	input Node
}

// usingColumn is a column of JOIN ... USING (name): the scope's left and
// right columns of that name, and the join's kind.
type usingColumn struct {
	name        string
	left, right int
	kind        ast.JoinKind
}

// usingColumn returns the USING column an unqualified reference names.
func (s *scope) usingColumn(ref *ast.ColumnRef) (usingColumn, bool) {
	if _, ok := s.fixed[ref]; ok || ref.Qualifier != "" {
		return usingColumn{}, false
	}
	for _, u := range s.using {
		if u.name == ref.Name {
			return u, true
		}
	}
	return usingColumn{}, false
}

func (s *scope) resolve(ref *ast.ColumnRef) (int, error) {
	if i, ok := s.fixed[ref]; ok {
		return i, nil
	}
	if s.innerFrom > 0 {
		inner := &scope{cols: s.cols[s.innerFrom:]}
		i, err := inner.resolve(ref)
		if err == nil {
			return i + s.innerFrom, nil
		}
		if strings.Contains(err.Error(), "is ambiguous") {
			return 0, err
		}
		if j, oerr := (&scope{cols: s.cols[:s.innerFrom]}).resolve(ref); oerr == nil {
			return j, nil
		}
		return 0, err
	}
	if u, ok := s.usingColumn(ref); ok {
		// Not ambiguous: the USING column (bindExpr reads it as
		// COALESCE of both; the left one where a field is wanted).
		return u.left, nil
	}
	width := len(ref.Name)
	if ref.Qualifier != "" {
		width += len(ref.Qualifier) + 1
	}
	found := -1
	qualFound := ref.Qualifier == ""
	for i, c := range s.cols {
		if ref.Qualifier != "" {
			if !qualifies(c.qualifier, ref.Qualifier) {
				continue
			}
			qualFound = true
		}
		if c.hidden && ref.Qualifier == "" {
			continue
		}
		if c.name == ref.Name {
			if found >= 0 {
				return 0, validationErr(ref.At, width, "Column '%s' is ambiguous", ref.Name)
			}
			found = i
		}
	}
	if found >= 0 {
		return found, nil
	}
	if ref.Qualifier == "" {
		return 0, validationErr(ref.At, width, "Column '%s' not found in any table", ref.Name)
	}
	if !qualFound {
		return 0, validationErr(ref.At, len(ref.Qualifier), "Table '%s' not found", ref.Qualifier)
	}
	return 0, validationErr(ref.At, width, "Column '%s' not found in table '%s'", ref.Name, ref.Qualifier)
}

func qualifies(qualifier, prefix string) bool {
	return strings.EqualFold(qualifier, prefix) || strings.HasSuffix(strings.ToLower(qualifier), "."+strings.ToLower(prefix))
}

// fieldStep is one ROW field name of a compound identifier, after its
// column, with where it starts in the identifier (for error positions).
type fieldStep struct {
	name string
	col  int
}

// compoundIdent splits an identifier into its column reference and the
// names after it (a.b.c.d: the parser's field access of d on a.b.c).
func compoundIdent(e ast.Expr) (*ast.ColumnRef, []string, bool) {
	switch x := e.(type) {
	case *ast.ColumnRef:
		return x, nil, true
	case *ast.FieldAccess:
		if !isCompoundIdent(x) {
			return nil, nil, false
		}
		c, more, ok := compoundIdent(x.X)
		return c, append(more, x.Field), ok
	}
	return nil, nil, false
}

// isCompoundIdent: a field access the parser made of the fourth and
// later names of a compound identifier (a.b.c.d), not of (x).f.
func isCompoundIdent(f *ast.FieldAccess) bool {
	switch x := f.X.(type) {
	case *ast.ColumnRef:
		return strings.Count(x.Qualifier, ".") == 1
	case *ast.FieldAccess:
		return isCompoundIdent(x)
	}
	return false
}

// fieldAccess applies a compound identifier's ROW field names to x, with
// Calcite's "Unknown field 'f'" at the first name x has no field for.
func fieldAccess(x Expr, ref *ast.ColumnRef, path []fieldStep) (Expr, error) {
	for _, f := range path {
		fx, ok := expr.FieldAccess(x, f.name)
		if !ok {
			at := ref.At
			at.Col += f.col
			return nil, validationErr(at, len(f.name), "Unknown field '%s'", f.name)
		}
		x = fx
	}
	return x, nil
}

// binder turns AST queries into logical plans.
type binder struct {
	env       Env
	config    map[string]string
	streaming bool
	// zone is the session time zone, 'table.local-time-zone'.
	zone *time.Location
	ctes map[string]Node
	// vgInput is the outer query's rows while a correlated subquery over
	// them is decorrelated (the value generator's input, valuegen.go).
	vgInput Node
	// viewDepth counts the views being expanded.
	viewDepth int
	// exprDepth counts the nested bindExpr calls.
	exprDepth int
	// overAllowed is set while binding a SELECT item that is a ranking
	// call with OVER (rank.go).
	overAllowed bool
	// block is the query block being bound when it has join hints;
	// hintNames what the statement's join hints named (joinhint.go).
	block     *hintBlock
	hintNames *hintResolver
	// scalars are the scalar subqueries of the SELECT being bound that
	// became a field of its input (subquery.go, bindScalarSubqueries).
	scalars map[*ast.Subquery]int
	// preset are expressions already bound over the row being bound
	// against: a HAVING IN's operand over the aggregate's output, an IN /
	// EXISTS under OR as the value its mark join computes (subquery.go).
	preset map[ast.Expr]Expr
	// outer are the scopes of the queries whose WHERE subquery is being
	// bound (innermost last), and uncorrelated names the part of it being
	// bound where sqlrun cannot read their columns (a JOIN's ON clause, a
	// WITH query, a derived table): a reference that only an outer scope
	// resolves there is refused by name (correlatedRefusal).
	outer        []*scope
	uncorrelated string
	// snapshotScans are the scans of event-time temporal joins' versioned
	// sides that get no ChangelogNormalize (snapshotScan).
	snapshotScans map[*LogicalTableScan]bool
}

// correlatedRefusal is the error for ref, which the current scope does not
// resolve, when an enclosing query's scope does and the subquery reads it
// where sqlrun does not decorrelate (nil otherwise: the caller keeps its
// own error).
func (b *binder) correlatedRefusal(ref *ast.ColumnRef) error {
	if b.uncorrelated == "" {
		return nil
	}
	for _, o := range b.outer {
		if _, _, err := o.resolvePath(ref); err == nil {
			return sql.Errorf(sql.TableException,
				"sqlrun does not support the correlated reference %s to the outer query in %s of a subquery yet (only in the subquery's WHERE clause)",
				ref.String(), b.uncorrelated)
		}
	}
	return nil
}

// noCorrelation binds with b.uncorrelated set to where (when a subquery
// of an outer query is being bound) and restores it.
func (b *binder) noCorrelation(where string) func() {
	saved := b.uncorrelated
	if len(b.outer) > 0 {
		b.uncorrelated = where
	}
	return func() { b.uncorrelated = saved }
}

func (b *binder) resolveTable(name ast.ObjectName, hints []ast.Hint) (*TableRef, error) {
	id, t, err := b.env.LookupTable(name)
	if err != nil {
		return nil, err
	}
	return b.tableRef(id, t, hints)
}

// tableRef is the reference to a resolved table with its OPTIONS hints
// and its connector.
func (b *binder) tableRef(id connectors.ObjectIdentifier, t *catalog.Table, hints []ast.Hint) (*TableRef, error) {
	ref := &TableRef{ID: id, Table: t, Schema: t.Schema, Options: map[string]string{}}
	for k, v := range t.Options {
		ref.Options[k] = v
	}
	for _, h := range hints {
		if h.Name != "OPTIONS" {
			continue
		}
		if len(h.Options) == 0 {
			// OPTIONS('x') or OPTIONS(): Calcite's hint strategy table
			// (Litmus.THROW) rejects it with Flink's option checker text
			// instead of ignoring the hint.
			return nil, sql.Errorf(sql.AssertionError,
				"Hint [OPTIONS] only support non empty key value options")
		}
		for _, o := range h.Options {
			ref.Options[o.Key] = o.Value
			ref.Hints = append(ref.Hints, o)
		}
	}
	for k, v := range b.env.PinnedOptions(id) {
		ref.Options[k] = v
	}
	conn := ref.Options["connector"]
	if conn == "" {
		conn = b.env.DefaultConnector(id)
		// A catalog that owns its tables' storage (Paimon's) tells the
		// connector where the table lives, as Paimon's catalog puts
		// 'path' into a table's options — over any 'path' hint, as
		// Paimon's FileStoreTable.copy sets PATH last: a hint never
		// moves a catalog table's reads or writes elsewhere.
		if p := b.env.TablePath(id); p != "" {
			ref.Options["path"] = p
		}
	}
	if conn == "" {
		return nil, sql.Errorf(sql.ValidationException,
			"Unable to create a source for reading table '%s'.\n\nTable options are:\n\n%s",
			id, formatOptions(ref.Options))
	}
	f, err := connectors.Lookup(conn)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, err)
	}
	ref.Factory = f
	return ref, nil
}

// scanOf creates ref's source and reads it: the scan, its computed and
// metadata columns, its watermark.
func (b *binder) scanOf(ref *TableRef) (Node, error) {
	if err := b.createSource(ref); err != nil {
		return nil, err
	}
	var rel Node = &LogicalTableScan{base: row(ref.Schema.Names(), scanTypes(ref)), Table: ref}
	var err error
	if len(ref.Table.NonPhysical) > 0 {
		if rel, err = b.expandScan(ref); err != nil {
			return nil, err
		}
	}
	return b.assignWatermark(ref, rel)
}

// scanTypes are the types of ref's physical columns as a scan of it
// produces them: the catalog's types read through Flink's
// FlinkTypeFactory.createFieldTypeFromLogicalType, which makes a TIME(p)
// column TIME(0) (sql.Planned). A Paimon table whose schema says TIME(3)
// shows TIME(3) in DESCRIBE, as Flink's does, and reads as TIME(0).
func scanTypes(ref *TableRef) []sql.DataType {
	types := ref.Schema.Types()
	for i, t := range types {
		types[i] = sql.Planned(t)
	}
	return types
}

// formatOptions prints table options as Flink's error messages do, one
// 'k'='v' a line, sorted, with secrets masked.
func formatOptions(opts map[string]string) string {
	m := connectors.MaskOptions(opts)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = fmt.Sprintf("'%s'='%s'", k, m[k])
	}
	return strings.Join(lines, "\n")
}

func (b *binder) ctx(ref *TableRef) *connectors.Context {
	interval, _ := config.Duration(b.config, config.KeyCheckpointInterval) // SET checked it
	return &connectors.Context{Table: ref.ID, Schema: ref.Schema, PartitionKeys: ref.Table.PartitionKeys,
		Options: ref.Options, Config: b.config, Streaming: b.streaming, CheckpointInterval: interval,
		Stored: ref.Table.Stored, Comment: ref.Table.Comment}
}

func (b *binder) createSource(ref *TableRef) error {
	sf, ok := ref.Factory.(connectors.SourceFactory)
	if !ok {
		return sql.Errorf(sql.ValidationException,
			"Connector '%s' can only be used as a sink. It cannot be used as a source.", ref.Factory.Identifier())
	}
	src, err := sf.CreateSource(b.ctx(ref))
	if err != nil {
		return &sql.Error{Class: sql.ValidationException, Msg: fmt.Sprintf(
			"Unable to create a source for reading table '%s'.\n\nTable options are:\n\n%s", ref.ID, formatOptions(ref.Options)), Err: err}
	}
	ref.Source = src
	return nil
}

// ownSource is a copy of ref with a source of its own, the metadata
// keys ref's source reads applied to it again. A source's pushed
// projection is the source's state (ApplyProjection), while a plan node
// may have several parents (a WITH query read twice, the value
// generator's second reading of the outer query's rows, a rewrite that
// reads an input twice): a push-down into one reader gives that reader a
// source of its own, copy on write, as Flink's push-down rules copy the
// DynamicTableSource (TableSourceTable.copy) instead of changing the one
// every reader's RelNode holds. Flink's sub-plan reuse then merges the
// readers that are alike again (digests, plan/subplanreuse.go).
func (b *binder) ownSource(ref *TableRef) (*TableRef, error) {
	c := *ref
	if err := b.createSource(&c); err != nil {
		return nil, err
	}
	if len(c.MetadataKeys) > 0 {
		ms, ok := c.Source.(connectors.MetadataSource)
		if !ok {
			return nil, sql.Errorf(sql.TableException, "table '%s' reads metadata its new source cannot read", ref.ID)
		}
		ms.ApplyReadableMetadata(c.MetadataKeys)
	}
	return &c, nil
}

func (b *binder) createSink(ref *TableRef) error {
	sf, ok := ref.Factory.(connectors.SinkFactory)
	if !ok {
		return sql.Errorf(sql.ValidationException,
			"Connector '%s' can only be used as a source. It cannot be used as a sink.", ref.Factory.Identifier())
	}
	snk, err := sf.CreateSink(b.ctx(ref))
	if err != nil {
		return &sql.Error{Class: sql.ValidationException, Msg: fmt.Sprintf(
			"Unable to create a sink for writing table '%s'.\n\nTable options are:\n\n%s", ref.ID, formatOptions(ref.Options)), Err: err}
	}
	ref.Sink = snk
	return nil
}

// bindFrom binds a FROM item into a plan and its scope.
func (b *binder) bindFrom(t ast.TableExpr) (Node, *scope, error) {
	switch x := t.(type) {
	case *ast.TableRef:
		if x.Name.Catalog == "" && x.Name.Database == "" && len(x.Hints) == 0 {
			if cte, ok := b.ctes[x.Name.Table]; ok {
				q := x.Name.Table
				if x.Alias != "" {
					q = x.Alias
				}
				cs := scopeOf(cte, q)
				if x.Name.Table == vgName {
					for i := range cs.cols {
						cs.cols[i].hidden = true
					}
				}
				return cte, cs, nil
			}
		}
		if x.SystemTimeAsOf != nil {
			if !hasColumnRef(x.SystemTimeAsOf) {
				return b.bindTimeTravel(x)
			}
			// Only the right side of a join may be read AS OF a column
			// (bindLookupJoin).
			return nil, nil, asOfError(x.SystemTimeAsOf)
		}
		if id, t, err := b.env.LookupTable(x.Name); err == nil && t.IsView() {
			rel, err := b.bindView(id.String(), t.View)
			if err != nil {
				return nil, nil, err
			}
			q := id.Name
			if x.Alias != "" {
				q = x.Alias
			}
			return rel, scopeOf(rel, q), nil
		}
		ref, err := b.resolveTable(x.Name, x.Hints)
		if err != nil {
			return nil, nil, err
		}
		rel, err := b.scanOf(ref)
		if err != nil {
			return nil, nil, err
		}
		q := ref.ID.Name
		if x.Alias != "" {
			q = x.Alias
		}
		s := scopeOf(rel, q)
		return rel, s, nil
	case *ast.SubqueryRef:
		if x.Lateral {
			return nil, nil, sql.Errorf(sql.TableException, "sqlrun supports LATERAL (SELECT ...) only as the right side of a join (a comma, CROSS JOIN, INNER JOIN or LEFT JOIN) whose left side it reads")
		}
		restore := b.noCorrelation("a derived table")
		rel, err := b.bindQuery(x.Query)
		restore()
		if err != nil {
			return nil, nil, err
		}
		// Calcite's SqlToRelConverter drops the ORDER BY of a subquery
		// that has neither LIMIT nor OFFSET (removeSortInSubQuery): its
		// order is not observable (Flink's JoinTest.testJoinWithSort).
		if s, ok := rel.(*LogicalSort); ok && s.Fetch < 0 && s.Offset == 0 {
			rel = s.input()
		} else if p, ok := rel.(*LogicalProject); ok {
			// Sorted on extra fields (orderFields), which go too.
			if s, ok := p.input().(*LogicalSort); ok && s.Fetch < 0 && s.Offset == 0 && isPrefixProject(p) {
				rel = mergeProject(s.input(), p.Exprs, p.Names())
			}
		}
		if len(x.Columns) > 0 {
			if len(x.Columns) != len(rel.Names()) {
				return nil, nil, validationErr(x.At, 1, "List of column aliases must have same degree as table; table has %d columns %s, whereas alias list has %d columns",
					len(rel.Names()), "('"+strings.Join(rel.Names(), "', '")+"')", len(x.Columns))
			}
			rel = renamed(rel, x.Columns)
		}
		return rel, scopeOf(rel, x.Alias), nil
	case *ast.Join:
		return b.bindJoin(x)
	case *ast.TableFunctionRef:
		return b.bindWindowTVF(x)
	case *ast.Unnest:
		// An UNNEST joined to the table whose values it unnests is a
		// Correlate (bindUnnestJoin); one on its own is not.
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun supports UNNEST only joined to the rows it unnests: FROM t, UNNEST(t.col) or FROM t CROSS JOIN UNNEST(t.col)")
	}
	return nil, nil, fmt.Errorf("bind: unknown FROM item %T", t)
}

func scopeOf(r Node, qualifier string) *scope {
	s := &scope{}
	for i, n := range r.Names() {
		s.cols = append(s.cols, column{qualifier: qualifier, name: n, t: r.Types()[i]})
	}
	return s
}

// renamed puts a projection that renames r's fields on top of it.
func renamed(r Node, names []string) Node {
	exprs := make([]Expr, len(names))
	for i := range names {
		exprs[i] = &InputRef{Index: i, T: r.Types()[i]}
	}
	return &LogicalProject{base: row(names, r.Types(), r), Exprs: exprs}
}

func (b *binder) bindQuery(q ast.QueryExpr) (Node, error) {
	switch x := q.(type) {
	case *ast.Select:
		return b.bindSelect(x)
	case *ast.Values:
		return b.bindValues(x)
	case *ast.With:
		saved := b.ctes
		b.ctes = map[string]Node{}
		for k, v := range saved {
			b.ctes[k] = v
		}
		for _, c := range x.CTEs {
			restore := b.noCorrelation("a WITH query")
			r, err := b.bindQuery(c.Query)
			restore()
			if err != nil {
				return nil, err
			}
			if len(c.Columns) > 0 {
				r = renamed(r, c.Columns)
			}
			b.ctes[c.Name] = r
		}
		r, err := b.bindQuery(x.Body)
		b.ctes = saved
		return r, err
	case *ast.SetOp:
		return b.bindSetOp(x)
	}
	return nil, fmt.Errorf("bind: unknown query %T", q)
}

func (b *binder) bindSetOp(x *ast.SetOp) (Node, error) {
	l, err := b.bindQuery(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.bindQuery(x.Right)
	if err != nil {
		return nil, err
	}
	if len(l.Names()) != len(r.Names()) {
		return nil, validationErr(x.At, 1, "Column count mismatch in %s", x.Kind)
	}
	types := make([]sql.DataType, len(l.Types()))
	for i := range l.Types() {
		t, ok := commonType(l.Types()[i], r.Types()[i])
		if !ok {
			return nil, validationErr(x.At, 1, "Type mismatch in column %d of %s", i+1, x.Kind)
		}
		types[i] = t
	}
	l, r = castTo(l, types), castTo(r, types)
	if x.Kind != ast.Union {
		var out Node
		if x.All {
			// The RewriteSetOpAll rule plans it (setopall.go).
			out = &LogicalSetOpAll{base: row(l.Names(), types, l, r), Kind: x.Kind}
		} else {
			out = setOpJoin(l, r, x.Kind)
		}
		return b.bindOrderLimit(out, x.OrderBy, x.Limit, x.Offset, scopeOf(out, ""), nil)
	}
	u := &LogicalUnion{base: row(l.Names(), types, l, r), All: x.All}
	var out Node = u
	if !x.All {
		out = distinct(u)
	}
	return b.bindOrderLimit(out, x.OrderBy, x.Limit, x.Offset, scopeOf(out, ""), nil)
}

// setOpJoin is a distinct INTERSECT or EXCEPT as Flink's
// ReplaceIntersectWithSemiJoinRule / ReplaceMinusWithAntiJoinRule make it:
// a distinct aggregate on all columns over a semi (INTERSECT) or anti
// (EXCEPT) join of the inputs whose condition pairs every column, NULLs
// matching NULLs (SetOpRewriteUtil.generateEqualsCondition builds
// (l = r) OR (l IS NULL AND r IS NULL) per column; a lone such condition
// prints as IS NOT DISTINCT FROM(l, r), as Calcite collapses it).
func setOpJoin(l, r Node, kind ast.SetOpKind) Node {
	nl := len(l.Names())
	lt, rt := l.Types(), r.Types()
	boolT := sql.Boolean().NotNull()
	var conds []Expr
	for i := 0; i < nl; i++ {
		le := &InputRef{Index: i, T: lt[i]}
		re := &InputRef{Index: nl + i, T: rt[i]}
		if nl == 1 {
			conds = append(conds, &Call{Op: "IS NOT DISTINCT FROM", Args: []Expr{le, re}, T: boolT})
			continue
		}
		eq := &Call{Op: "=", Args: []Expr{le, re}, T: sql.Boolean().WithNullable(lt[i].Nullable || rt[i].Nullable)}
		isNull := func(e Expr) Expr { return &Call{Op: "IS NULL", Args: []Expr{e}, T: boolT} }
		both := &Call{Op: "AND", Args: []Expr{isNull(le), isNull(re)}, T: boolT}
		conds = append(conds, &Call{Op: "OR", Args: []Expr{eq, both}, T: boolT})
	}
	jk := semiJoin
	if kind == ast.Except {
		jk = antiJoin
	}
	j := &LogicalJoin{base: row(l.Names(), lt, l, r), Cond: and(conds), JoinType: jk}
	return distinct(j)
}

// castTo projects r to the given types when any differs.
func castTo(r Node, types []sql.DataType) Node {
	same := true
	exprs := make([]Expr, len(types))
	for i, t := range types {
		exprs[i] = castExpr(&InputRef{Index: i, T: r.Types()[i]}, t)
		if _, ok := exprs[i].(*InputRef); !ok {
			same = false
		}
	}
	if same {
		return r
	}
	if v, ok := r.(*LogicalValues); ok {
		rows := make([][]Expr, len(v.Rows))
		for i, row := range v.Rows {
			rows[i] = make([]Expr, len(row))
			for j, e := range row {
				rows[i][j] = castExpr(e, types[j])
			}
		}
		return &LogicalValues{base: row(r.Names(), types), Rows: rows}
	}
	ts := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		ts[i] = e.Type()
	}
	return &LogicalProject{base: row(r.Names(), ts, r), Exprs: exprs}
}

func distinct(r Node) Node {
	g := make([]int, len(r.Names()))
	for i := range g {
		g[i] = i
	}
	return &LogicalAggregate{base: sameRow(r), Group: g}
}

func (b *binder) bindValues(x *ast.Values) (Node, error) {
	if len(x.Rows) == 0 {
		return nil, validationErr(x.At, 1, "VALUES must have at least one row")
	}
	n := len(x.Rows[0])
	empty := &scope{}
	rows := make([][]Expr, len(x.Rows))
	types := make([]sql.DataType, n)
	for i, row := range x.Rows {
		if len(row) != n {
			return nil, validationErr(x.At, 1, "Values passed to VALUES operator must have compatible types")
		}
		rows[i] = make([]Expr, n)
		for j, e := range row {
			be, err := b.bindExpr(e, empty, nil)
			if err != nil {
				return nil, err
			}
			rows[i][j] = be
			if i == 0 {
				types[j] = be.Type()
			} else {
				t, ok := commonType(types[j], be.Type())
				if !ok {
					return nil, validationErr(x.At, 1, "Values passed to VALUES operator must have compatible types")
				}
				types[j] = t
			}
		}
	}
	names := make([]string, n)
	for j := range names {
		names[j] = "EXPR$" + strconv.Itoa(j)
	}
	if !literalRows(x.Rows) {
		return valuesAsProjects(rows, names, types), nil
	}
	for i := range rows {
		for j := range rows[i] {
			if l, ok := rows[i][j].(*Literal); ok && l.T.Root == sql.TypeChar && types[j].Root == sql.TypeVarChar && types[j].Length >= l.T.Length {
				// A character literal stays as written where the column
				// is a VARCHAR holding it unchanged (CHARs of different
				// lengths make one): Calcite's convertLiteralInValuesList
				// keeps it, and Flink prints { 2, _UTF-16LE'Hi' }.
				continue
			}
			rows[i][j] = castExpr(rows[i][j], types[j])
		}
	}
	return &LogicalValues{base: row(names, types), Rows: rows}, nil
}

// literalRows reports VALUES rows of literals only (a signed number
// counts, as Calcite's parser reads -1 as one literal): Calcite's
// SqlToRelConverter.convertRowValues makes such rows a LogicalValues, and
// falls back to projections (valuesAsProjects) when any item is another
// expression (CAST(NULL AS INT), CURRENT_TIMESTAMP, 1 + 1).
func literalRows(rows [][]ast.Expr) bool {
	for _, r := range rows {
		for _, e := range r {
			if u, ok := e.(*ast.Unary); ok && (u.Op == ast.OpNeg || u.Op == ast.OpPlus) {
				if l, ok := u.X.(*ast.Literal); ok && (l.Kind == ast.LitInt || l.Kind == ast.LitDecimal || l.Kind == ast.LitFloat) {
					continue
				}
				return false
			}
			if _, ok := e.(*ast.Literal); !ok {
				return false
			}
		}
	}
	return true
}

// valuesAsProjects is Calcite's convertValuesImpl for VALUES rows that are
// not all literals: each row a projection of its expressions over a
// one-row Values (tuples=[[{ 0 }]], LogicalValues.createOneRow), the rows
// a UNION ALL of them, each cast to the union's types (Flink's
// CoerceInputsRule for LogicalUnion). Flink keeps the projections (no
// ValuesReduceRule), so the plan shows Calc over Values (ValuesTest).
func valuesAsProjects(rows [][]Expr, names []string, types []sql.DataType) Node {
	one := &LogicalValues{base: row([]string{"ZERO"}, []sql.DataType{sql.Int().NotNull()}),
		Rows: [][]Expr{{&Literal{Value: int32(0), T: sql.Int().NotNull()}}}}
	if len(rows) == 1 {
		return forcedProject(one, rows[0], names)
	}
	branches := make([]Node, len(rows))
	for i, r := range rows {
		exprs := make([]Expr, len(r))
		for j, e := range r {
			// CoerceInputsRule casts a field whose type differs from the
			// union's, nullability included (CAST(2 AS INTEGER) of a NOT
			// NULL 2 under a nullable column).
			exprs[j] = e
			if !e.Type().Equal(types[j]) {
				exprs[j] = &Call{Op: "CAST", Args: []Expr{e}, T: types[j]}
			}
		}
		branches[i] = forcedProject(one, exprs, names)
	}
	return &LogicalUnion{base: row(names, types, branches...), All: true}
}

// nullableIfEmpty are the aggregates whose return type is nullable only
// over an empty group (Calcite's AGG_SUM, AVG_AGG_FUNCTION,
// ARG0_NULLABLE_IF_EMPTY; Flink's FIRST_VALUE and LAST_VALUE too).
var nullableIfEmpty = map[string]bool{"SUM": true, "AVG": true, "MIN": true, "MAX": true, "FIRST_VALUE": true, "LAST_VALUE": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "STDDEV": true, "VAR_POP": true, "VAR_SAMP": true, "VARIANCE": true}

// aggCollector gathers aggregate calls of a SELECT while binding.
type aggCollector struct {
	groupExprs []Expr   // bound group expressions over the FROM row
	groupAST   []string // their AST text, to match select items
	calls      []AggCall
	callArgs   [][]Expr // bound argument expressions over the FROM row
	callFilter []Expr   // bound FILTER (WHERE ...) conditions (nil: none)
	callText   []string
	// sets are the grouping sets over groupExprs (nil: a plain GROUP BY).
	sets [][]int
	// groupNames name the group expressions a select item spells (its
	// alias, or Calcite's derived EXPR$i); "" where none does.
	groupNames []string
	// window is the legacy group window of GROUP BY TUMBLE(...), whose
	// auxiliary calls (TUMBLE_START(...)) read its window columns.
	window *groupWindow
}

// isColumn reports a (possibly qualified) column reference.
func isColumn(e ast.Expr) bool {
	_, ok := e.(*ast.ColumnRef)
	return ok
}

func (b *binder) isAggName(n string) bool {
	if isGroupingFunc(n) {
		return true
	}
	if f, ok := expr.Lookup(n); ok {
		return f.Kind == expr.Aggregate
	}
	_, ok := b.userFunction(n, AggregateFunction)
	return ok
}

func (b *binder) hasAgg(e ast.Expr) bool {
	found := false
	walkAST(e, func(x ast.Expr) {
		if f, ok := x.(*ast.FuncCall); ok && f.Over == nil && b.isAggName(f.Name) {
			found = true
		}
	})
	return found
}

func walkAST(e ast.Expr, f func(ast.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *ast.Unary:
		walkAST(x.X, f)
	case *ast.Binary:
		walkAST(x.L, f)
		walkAST(x.R, f)
	case *ast.FuncCall:
		for _, a := range x.Args {
			walkAST(a, f)
		}
	case *ast.Cast:
		walkAST(x.X, f)
	case *ast.Case:
		walkAST(x.Operand, f)
		for _, w := range x.Whens {
			walkAST(w.Cond, f)
			walkAST(w.Result, f)
		}
		walkAST(x.Else, f)
	case *ast.In:
		walkAST(x.X, f)
		for _, a := range x.List {
			walkAST(a, f)
		}
	case *ast.Between:
		walkAST(x.X, f)
		walkAST(x.Lo, f)
		walkAST(x.Hi, f)
	case *ast.Like:
		walkAST(x.X, f)
		walkAST(x.Pattern, f)
	case *ast.IsNull:
		walkAST(x.X, f)
	case *ast.IsBool:
		walkAST(x.X, f)
	case *ast.Item:
		walkAST(x.X, f)
		walkAST(x.Index, f)
	case *ast.FieldAccess:
		walkAST(x.X, f)
	}
}

func (b *binder) bindSelect(x *ast.Select) (res Node, err error) {
	leave, err := b.enterBlock(x.Hints)
	if err != nil {
		return nil, err
	}
	defer func() { leave(res) }()
	if err := b.checkOrderAggs(x); err != nil {
		return nil, err
	}
	var input Node
	var sc *scope
	if x.From == nil {
		input = &LogicalValues{base: row([]string{"ZERO"}, []sql.DataType{sql.Int().NotNull()}),
			Rows: [][]Expr{{&Literal{Value: int32(0), T: sql.Int().NotNull()}}}}
		sc = &scope{}
	} else {
		var err error
		input, sc, err = b.bindFrom(x.From)
		if err != nil {
			return nil, err
		}
		sc.input = input
	}
	// Expand stars.
	var items []ast.SelectItem
	for _, it := range x.Items {
		if !it.Star {
			items = append(items, it)
			continue
		}
		n := 0
		// A USING join's * is its common columns first, once each, then
		// the other columns (Calcite's SqlValidatorImpl.Permute).
		common := map[int]bool{}
		if it.StarQualifier == "" {
			for _, u := range sc.using {
				items = append(items, ast.SelectItem{Node: it.Node, Expr: &ast.ColumnRef{Node: it.Node, Name: u.name}})
				common[u.left], common[u.right] = true, true
			}
		}
		for i, c := range sc.cols {
			if it.StarQualifier != "" && !strings.EqualFold(c.qualifier, it.StarQualifier) || common[i] || c.hidden {
				continue
			}
			if c.ambiguous {
				// Calcite expands * into the identifiers T.c, which it
				// resolves as any other (WindowTableFunctionTest.testConflictingFieldNames).
				return nil, validationErr(it.At, 1, "Column '%s' is ambiguous", c.name)
			}
			ref := &ast.ColumnRef{Node: it.Node, Qualifier: c.qualifier, Name: c.name}
			if sc.fixed == nil {
				sc.fixed = map[*ast.ColumnRef]int{}
			}
			sc.fixed[ref] = i
			items = append(items, ast.SelectItem{Node: it.Node, Expr: ref})
			n++
		}
		n += len(common)
		if n == 0 && it.StarQualifier != "" {
			return nil, validationErr(it.At, len(it.StarQualifier), "Unknown identifier '%s'", it.StarQualifier)
		}
	}
	for _, it := range items {
		if c, ok := it.Expr.(*ast.ColumnRef); ok {
			if _, ok := sc.usingColumn(c); ok {
				if sc.selected == nil {
					sc.selected = map[*ast.ColumnRef]bool{}
				}
				sc.selected[c] = true
			}
		}
	}
	where := x.Where
	if where != nil {
		if input, where, err = b.joinWhereSubqueries(input, sc, x, where); err != nil {
			return nil, err
		}
	}
	if input, err = b.bindScalarSubqueries(input, sc, x, items, where); err != nil {
		return nil, err
	}
	if where != nil {
		if b.hasAgg(where) {
			return nil, validationErr(where.Pos(), 1, "Aggregate expression is illegal in WHERE clause")
		}
		cond, err := b.bindExpr(where, sc, nil)
		if err != nil {
			return nil, err
		}
		if cond.Type().Root != sql.TypeBoolean && cond.Type().Root != sql.TypeNull {
			return nil, validationErr(where.Pos(), 1, "WHERE clause must be a condition")
		}
		input = &LogicalFilter{base: sameRow(input), Cond: cond}
	}
	// GROUP BY TUMBLE(ts, ...): a window aggregate over the FROM's row
	// with the window's columns (groupwindow.go).
	var groupByAST []ast.Expr
	var gw *groupWindow
	fromScope := sc
	// The window properties are read by the select list, HAVING or ORDER
	// BY (ORDER BY TUMBLE_ROWTIME(...) it does not select).
	reads := append(itemExprs(items), x.Having)
	for _, o := range x.OrderBy {
		reads = append(reads, o.Expr)
	}
	if input, sc, groupByAST, gw, err = b.bindGroupWindow(input, sc, x.GroupBy, reads); err != nil {
		if late, ok := err.(afterValidation); ok {
			if verr := b.validateAggCalls(fromScope, append(itemExprs(items), x.Having)); verr != nil {
				return nil, verr
			}
			return nil, late.err
		}
		return nil, err
	}
	aggregated := len(x.GroupBy) > 0 || x.Having != nil
	for _, it := range items {
		if b.hasAgg(it.Expr) {
			aggregated = true
		}
	}
	if !aggregated {
		// A select item's subquery predicates join their marks above
		// the WHERE (Calcite's SubQueryRemoveRule on the Project).
		var marked []ast.Expr
		for _, it := range items {
			marked = append(marked, it.Expr)
		}
		if input, err = b.markSubqueries(input, sc, marked); err != nil {
			return nil, err
		}
	}
	var exprs []Expr
	var names []string
	for i, it := range items {
		name := it.Alias
		if name == "" {
			if c, ok := it.Expr.(*ast.ColumnRef); ok {
				name = c.Name
			} else if f, ok := it.Expr.(*ast.FieldAccess); ok && isCompoundIdent(f) {
				// a.b.c.d is one identifier to Calcite, named by its
				// last name (SqlValidatorUtil.getAlias); (x).f is not.
				name = f.Field
			} else if f, ok := it.Expr.(*ast.FuncCall); ok && f.NoParens {
				// LOCALTIME without parentheses is an identifier to
				// Calcite's parser (ContextVariable), named by itself.
				name = f.Name
			} else {
				name = "EXPR$" + strconv.Itoa(i)
			}
		}
		names = append(names, name)
	}
	names = uniquify(names)
	// The ORDER BY items resolve to select items or to extra fields
	// (orderFields).
	var orderAt map[int]int
	var orderExtra []Expr
	var orderNames []string
	if aggregated {
		agg := &aggCollector{window: gw}
		groupBy, sets, err := expandGroupBy(groupByAST)
		if err != nil {
			return nil, err
		}
		agg.sets = sets
		// The subquery predicates of GROUP BY expressions and of the
		// aggregate calls' arguments join their marks below the
		// aggregate (Calcite's SubQueryRemoveRule on the Project that
		// SqlToRelConverter puts under the Aggregate).
		below := append([]ast.Expr(nil), groupBy...)
		for _, e := range append(itemExprs(items), x.Having) {
			walkAST(e, func(e ast.Expr) {
				if f, ok := e.(*ast.FuncCall); ok && f.Over == nil && b.isAggName(f.Name) {
					below = append(append(below, f.Args...), f.Filter)
				}
			})
		}
		if input, err = b.markSubqueries(input, sc, below); err != nil {
			return nil, err
		}
		// Those of the select items elsewhere (over a group key or an
		// aggregate call: MAX(a) IN (SELECT ...)) join theirs above it,
		// as HAVING's do; until then they bind as a placeholder.
		above := b.aboveAggregate(items, groupBy)
		for _, g := range groupBy {
			if b.hasAgg(g) {
				return nil, validationErr(g.Pos(), 1, "Aggregate expression is illegal in GROUP BY clause")
			}
			be, err := b.bindExpr(g, sc, nil)
			if err != nil {
				return nil, err
			}
			agg.groupExprs = append(agg.groupExprs, be)
			agg.groupAST = append(agg.groupAST, g.String())
			// SqlToRelConverter's AggConverter names a group expression
			// after the select item that spells it (nameMap).
			name := ""
			for i, it := range items {
				if it.Expr == nil || it.Expr.String() != g.String() {
					continue
				}
				switch {
				case it.Alias != "":
					name = it.Alias
				case !isColumn(it.Expr):
					name = "EXPR$" + strconv.Itoa(i)
				}
				break
			}
			agg.groupNames = append(agg.groupNames, name)
		}
		aboveOps := map[ast.Expr]Expr{}
		for _, p := range above {
			if in, ok := p.(*ast.In); ok {
				op, err := b.bindExpr(in.X, sc, agg)
				if err != nil {
					return nil, err
				}
				aboveOps[in.X] = op
			}
			if b.preset == nil {
				b.preset = map[ast.Expr]Expr{}
			}
			b.preset[p] = &Literal{T: sql.Boolean()}
		}
		// Bind select items against the aggregate's output: group
		// expressions and aggregate calls become references.
		out := make([]Expr, len(items))
		for i, it := range items {
			b.overAllowed = isOverCall(it.Expr)
			e, err := b.bindExpr(it.Expr, sc, agg)
			if err != nil {
				return nil, err
			}
			out[i] = e
			if f, ok := it.Expr.(*ast.FuncCall); ok && b.isAggName(f.Name) {
				name := it.Alias
				if name == "" {
					name = "EXPR$" + strconv.Itoa(i)
				}
				if r, ok := e.(*aggPlaceholder); ok && r.i >= len(agg.groupExprs) {
					if agg.calls[r.i-len(agg.groupExprs)].Name == "" {
						agg.calls[r.i-len(agg.groupExprs)].Name = name
					}
				}
			}
		}
		// The ORDER BY items bind next, so that their aggregate calls
		// come after the select list's and before HAVING's (the order
		// SqlToRelConverter.createAggImpl converts them in); an error of
		// theirs is reported after HAVING's, as SqlValidatorImpl
		// validates the ORDER BY list last.
		var orderErr error
		if len(x.OrderBy) > 0 {
			orderAt, orderExtra, orderNames, orderErr = b.orderFields(x, items, names, out, sc, agg)
		}
		var having Expr
		// [NOT] IN / EXISTS conjuncts of HAVING are semi / anti joins of
		// the aggregate's filtered rows; an IN's operand is bound here,
		// so that its aggregates are the aggregate's calls
		// (SemiAntiJoinTest.testInWithUncorrelated_Having: MAX(b) AS $f3
		// of the GroupAggregate, compared by the LeftSemiJoin on ($f3 = e)).
		havingRest, havingSubs := splitSubqueries(x.Having)
		// The subquery predicates of HAVING that are not conjuncts (under
		// OR, inside CASE) join their marks with the aggregate's rows
		// (markSubqueries), their IN operands bound over its output.
		var havingMarks []ast.Expr
		walkAST(havingRest, func(e ast.Expr) {
			if isSubqueryPredicate(e) {
				havingMarks = append(havingMarks, e)
			}
		})
		if len(havingSubs) > 0 || len(havingMarks) > 0 {
			// The aggregate's calls are numbered as HAVING spells them,
			// whether in an IN's operand or in the rest (COUNT(*) AS $f2,
			// MAX(b) AS $f3 for HAVING COUNT(*) > 2 AND MAX(b) IN (...)).
			var err error
			walkAST(x.Having, func(e ast.Expr) {
				if f, ok := e.(*ast.FuncCall); ok && err == nil && f.Over == nil && b.isAggName(f.Name) {
					_, err = b.bindExpr(f, sc, agg)
				}
			})
			if err != nil {
				return nil, err
			}
		}
		havingOps := make([]Expr, len(havingSubs))
		for i, s := range havingSubs {
			if in, ok := s.(*ast.In); ok {
				op, err := b.bindExpr(in.X, sc, agg)
				if err != nil {
					return nil, err
				}
				havingOps[i] = op
			}
		}
		markOps := map[ast.Expr]Expr{}
		for _, m := range havingMarks {
			if in, ok := m.(*ast.In); ok {
				op, err := b.bindExpr(in.X, sc, agg)
				if err != nil {
					return nil, err
				}
				markOps[in.X] = op
			}
		}
		if havingRest != nil && len(havingMarks) == 0 {
			h, err := b.bindExpr(havingRest, sc, agg)
			if err != nil {
				return nil, err
			}
			having = h
		}
		aggRel := buildAggregate(input, agg)
		// Replace the placeholder references (negative indexes) by the
		// aggregate's fields.
		for i := range out {
			out[i] = fixAggRefs(out[i], aggRel)
		}
		input = aggRel
		if len(havingMarks) > 0 {
			if b.preset == nil {
				b.preset = map[ast.Expr]Expr{}
			}
			for x, op := range markOps {
				b.preset[x] = fixAggRefs(op, aggRel)
			}
			hidden := havingScope(input, sc, agg)
			var err error
			input, err = b.markSubqueries(input, hidden, []ast.Expr{havingRest})
			for x := range markOps {
				delete(b.preset, x)
			}
			if err != nil {
				return nil, sql.Errorf(sql.TableException, "sqlrun plans a subquery in HAVING only when the outer query's columns it reads are GROUP BY columns: %v", err)
			}
			// The aggregate's calls are all known: binding the rest now
			// finds them, and the marked predicates' values.
			h, err := b.bindExpr(havingRest, sc, agg)
			if err != nil {
				return nil, err
			}
			having = h
		}
		if having != nil {
			having = fixAggRefs(having, aggRel)
			input = &LogicalFilter{base: sameRow(input), Cond: having}
		}
		for i, s := range havingSubs {
			// The subquery binds on its own: it cannot read the outer
			// FROM's columns (sqlrun does not decorrelate over an
			// aggregate's groups).
			var err error
			in, isIn := s.(*ast.In)
			if isIn {
				if b.preset == nil {
					b.preset = map[ast.Expr]Expr{}
				}
				b.preset[in.X] = fixAggRefs(havingOps[i], aggRel)
			}
			hidden := havingScope(input, sc, agg)
			input, err = b.bindSubqueryJoin(input, hidden, s)
			if isIn {
				delete(b.preset, in.X)
			}
			if err != nil {
				return nil, sql.Errorf(sql.TableException, "sqlrun plans a subquery in HAVING only when the outer query's columns it reads are GROUP BY columns: %v", err)
			}
		}
		if len(above) > 0 {
			for x, op := range aboveOps {
				b.preset[x] = fixAggRefs(op, aggRel)
			}
			hidden := &scope{}
			for _, t := range input.Types() {
				hidden.cols = append(hidden.cols, column{t: t})
			}
			for _, p := range above {
				delete(b.preset, p)
			}
			var err error
			input, err = b.markSubqueries(input, hidden, above)
			for x := range aboveOps {
				delete(b.preset, x)
			}
			if err != nil {
				return nil, sql.Errorf(sql.TableException, "sqlrun plans a subquery over an aggregate's groups in the select list only when it reads no column of the outer query: %v", err)
			}
			// The marked items bind again, now to the marks' values.
			for i, it := range items {
				if !it.Star && len(b.aboveAggregate(items[i:i+1], groupBy)) > 0 {
					e, err := b.bindExpr(it.Expr, sc, agg)
					if err != nil {
						return nil, err
					}
					out[i] = fixAggRefs(e, aggRel)
				}
			}
		}
		if orderErr != nil {
			return nil, orderErr
		}
		for i := range orderExtra {
			orderExtra[i] = fixAggRefs(orderExtra[i], aggRel)
		}
		exprs = out
	} else {
		for _, it := range items {
			b.overAllowed = isOverCall(it.Expr)
			e, err := b.bindExpr(it.Expr, sc, nil)
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, e)
		}
		if len(x.OrderBy) > 0 {
			if orderAt, orderExtra, orderNames, err = b.orderFields(x, items, names, exprs, sc, nil); err != nil {
				return nil, err
			}
		}
	}
	var out Node
	// The extra fields of ORDER BY follow the select items in the
	// projection (and under a DISTINCT's aggregate, of which they are
	// functions of the select items), are sorted on, and a projection
	// above the sort drops them: SqlToRelConverter's convertSelectList /
	// createAggImpl with orderExprList, and RelRoot.project (Flink's
	// plans: Calc(select=[c]) over Sort(orderBy=[EXPR$1 ASC, c ASC]) over
	// Calc(select=[c, ... AS EXPR$1]), GroupingSetsTest
	// .testGroupingInOrderByClause).
	wide, wideNames := exprs, names
	if len(orderExtra) > 0 {
		wide = append(append([]Expr(nil), exprs...), orderExtra...)
		wideNames = uniquify(append(append([]string(nil), names...), orderNames...))
	}
	if aggregated {
		// Calcite's RelBuilder drops the select list's projection above an
		// aggregate when it is the identity ...
		out = project(input, wide, wideNames)
	} else {
		// ... but SqlToRelConverter forces it for a plain SELECT list.
		out = forcedProject(input, wide, wideNames)
	}
	if x.Distinct {
		out = distinct(out)
	}
	sorted, err := b.bindOrderLimit(out, x.OrderBy, x.Limit, x.Offset, nil, orderAt)
	if err != nil || len(orderExtra) == 0 {
		return sorted, err
	}
	keep := make([]Expr, len(exprs))
	for i := range keep {
		keep[i] = &InputRef{Index: i, T: exprs[i].Type()}
	}
	return project(sorted, keep, names), nil
}

// checkOrderAggs refuses an aggregate call in the ORDER BY of a SELECT
// that does not aggregate (no GROUP BY, no HAVING, no aggregate in its
// select list), as Calcite's SqlValidatorImpl.registerQuery does before it
// validates anything else.
func (b *binder) checkOrderAggs(x *ast.Select) error {
	if len(x.OrderBy) == 0 || len(x.GroupBy) > 0 || x.Having != nil {
		return nil
	}
	for _, it := range x.Items {
		if it.Expr != nil && b.hasAgg(it.Expr) {
			return nil
		}
	}
	for _, o := range x.OrderBy {
		var found *ast.FuncCall
		walkAST(o.Expr, func(e ast.Expr) {
			if f, ok := e.(*ast.FuncCall); ok && found == nil && f.Over == nil && b.isAggName(f.Name) {
				found = f
			}
		})
		if found != nil {
			return validationErr(found.At, len(found.String()), "Aggregate expression is illegal in ORDER BY clause of non-aggregating SELECT")
		}
	}
	return nil
}

// isPrefixProject reports a projection of its input's first fields, in
// order (the one above a sort on extra fields).
func isPrefixProject(p *LogicalProject) bool {
	if len(p.Exprs) >= len(p.input().Names()) {
		return false
	}
	for i, e := range p.Exprs {
		if r, ok := e.(*InputRef); !ok || r.Index != i {
			return false
		}
	}
	return true
}

// orderFields resolves the ORDER BY items of a SELECT to the fields they
// sort on, as Calcite's SqlValidatorImpl.expandOrderExpr and
// SqlToRelConverter.convertOrderItem do: an ordinal or an alias of the
// output names its select item; an alias inside an expression stands for
// its select item's expression (OrderExpressionExpander); an expression
// equal to a select item sorts on it, any other is an extra field after
// the select items, named by its identifier or EXPR$<position>
// (SqlValidatorUtil.alias). exprs are the bound select items; over an
// aggregate (agg set) an item binds as the select list's do: a grouped
// expression or an aggregate call, which the aggregate then computes
// ("Expression 'b' is not being grouped" otherwise). Under SELECT
// DISTINCT an item may read only the select items (AggChecker with
// distinct: "Expression 'b' is not in the select clause").
func (b *binder) orderFields(x *ast.Select, items []ast.SelectItem, names []string, exprs []Expr, sc *scope, agg *aggCollector) (at map[int]int, extra []Expr, extraNames []string, err error) {
	at = map[int]int{}
	alias := func(name string) int {
		return slices.Index(names, name)
	}
	keys := make([]string, len(exprs))
	for i, e := range exprs {
		keys[i] = exprKey(e)
		walkAST(items[i].Expr, func(x ast.Expr) {
			if _, ok := x.(*ast.Subquery); ok || isSubqueryPredicate(x) {
				// Bound to a placeholder until its subquery is joined
				// in: no ORDER BY expression equals it.
				keys[i] = "subquery item " + strconv.Itoa(i)
			}
		})
	}
	for k, o := range x.OrderBy {
		if l, ok := o.Expr.(*ast.Literal); ok {
			if v, err := bindLiteral(l); err == nil && isIntegralLiteral(v) {
				n, _ := toInt(v.(*Literal).Value)
				if n < 1 || int(n) > len(exprs) {
					return nil, nil, nil, validationErr(o.At, 1, "Ordinal out of range")
				}
				at[k] = int(n) - 1
				continue
			}
		}
		if c, ok := o.Expr.(*ast.ColumnRef); ok && c.Qualifier == "" {
			if i := alias(c.Name); i >= 0 {
				at[k] = i
				continue
			}
		}
		subquery := false
		e := substAST(o.Expr, func(e ast.Expr) ast.Expr {
			if c, ok := e.(*ast.ColumnRef); ok && c.Qualifier == "" {
				if i := alias(c.Name); i >= 0 && items[i].Expr != nil {
					walkAST(items[i].Expr, func(x ast.Expr) {
						if _, ok := x.(*ast.Subquery); ok || isSubqueryPredicate(x) {
							subquery = true
						}
					})
					return items[i].Expr
				}
			}
			return nil
		})
		if subquery {
			// The item's subquery is joined in for the select list only.
			return nil, nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support an ORDER BY expression over a select item with a subquery yet (order by the item itself, by its alias or ordinal)")
		}
		b.overAllowed = false
		be, err := b.bindExpr(e, sc, agg)
		if err != nil {
			return nil, nil, nil, err
		}
		key := exprKey(be)
		if i := slices.Index(keys, key); i >= 0 {
			at[k] = i
			continue
		}
		if x.Distinct {
			if err := b.checkInSelect(e, keys, sc, agg); err != nil {
				return nil, nil, nil, err
			}
		}
		at[k] = len(keys)
		keys = append(keys, key)
		extra = append(extra, be)
		switch {
		case isColumn(e):
			extraNames = append(extraNames, e.(*ast.ColumnRef).Name)
		case isCompoundField(e):
			extraNames = append(extraNames, e.(*ast.FieldAccess).Field)
		default:
			extraNames = append(extraNames, "EXPR$"+strconv.Itoa(at[k]))
		}
	}
	return at, extra, extraNames, nil
}

func isIntegralLiteral(e Expr) bool {
	l, ok := e.(*Literal)
	return ok && l.T.IsIntegral()
}

func isCompoundField(e ast.Expr) bool {
	f, ok := e.(*ast.FieldAccess)
	return ok && isCompoundIdent(f)
}

// checkInSelect is Calcite's AggChecker under SELECT DISTINCT: e (an
// ORDER BY expression) reads only expressions of the select list, whose
// bound keys are keys; a column or an aggregate call that is none of
// them is refused.
func (b *binder) checkInSelect(e ast.Expr, keys []string, sc *scope, agg *aggCollector) error {
	be, err := b.bindExpr(e, sc, agg)
	if err != nil {
		return err
	}
	if slices.Contains(keys, exprKey(be)) {
		return nil
	}
	if c, _, ok := compoundIdent(e); ok {
		return validationErr(c.At, len(e.String()), "Expression '%s' is not in the select clause", e.String())
	}
	if f, ok := e.(*ast.FuncCall); ok && f.Over == nil && b.isAggName(f.Name) {
		return validationErr(f.At, len(f.String()), "Expression '%s' is not in the select clause", calciteText(f))
	}
	for _, c := range astChildren(e) {
		if err := b.checkInSelect(c, keys, sc, agg); err != nil {
			return err
		}
	}
	return nil
}

// uniquify renames duplicate output names as Calcite does (a, a0, a1).
func uniquify(names []string) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		cand := n
		for k := 0; seen[cand]; k++ {
			cand = n + strconv.Itoa(k)
		}
		seen[cand] = true
		out[i] = cand
	}
	return out
}

// aggregateNames are an aggregate's output field names as Calcite's
// Aggregate.deriveRowType derives them: the first ngroup (the group keys,
// the input's distinct field names) as they are, then each call's name,
// suffixed _0, _1, ... until it is none of the names before it (so a
// select list that aliases two calls gd has fields gd and gd_0, which a
// Calc over the aggregate prints: GroupingSetsTest.testGroupingGrouping_idAndGroup_id).
func aggregateNames(names []string, ngroup int) []string {
	seen := map[string]bool{}
	out := make([]string, len(names))
	for i, n := range names {
		cand := n
		if i >= ngroup {
			for k := 0; seen[cand]; k++ {
				cand = n + "_" + strconv.Itoa(k)
			}
		}
		seen[cand] = true
		out[i] = cand
	}
	return out
}

// havingScope is the scope a subquery of HAVING reads the outer query
// through: the aggregate's row, whose group keys that are columns of the
// FROM keep those columns' names (Calcite validates HAVING against the
// aggregate, where only grouped columns are visible), so that a correlated
// subquery (HAVING EXISTS (SELECT ... WHERE r.d = l.a) under GROUP BY a)
// reads the key and is decorrelated as a WHERE subquery is; the calls and
// the grouping-sets fields have no name.
func havingScope(in Node, sc *scope, agg *aggCollector) *scope {
	hidden := &scope{}
	for _, t := range in.Types() {
		hidden.cols = append(hidden.cols, column{t: t})
	}
	if agg == nil || agg.sets != nil {
		return hidden
	}
	for i, g := range agg.groupExprs {
		if r, ok := g.(*InputRef); ok && i < len(hidden.cols) && r.Index < len(sc.cols) {
			hidden.cols[i].qualifier, hidden.cols[i].name = sc.cols[r.Index].qualifier, sc.cols[r.Index].name
		}
	}
	return hidden
}

// project adds a LogicalProject unless it is the identity with the same
// names (Calcite's RelBuilder drops trivial projects).
func project(input Node, exprs []Expr, names []string) Node {
	if len(exprs) == len(input.Names()) {
		trivial := true
		for i, e := range exprs {
			r, ok := e.(*InputRef)
			if !ok || r.Index != i || names[i] != input.Names()[i] {
				trivial = false
				break
			}
		}
		if trivial {
			return input
		}
	}
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	return &LogicalProject{base: row(names, types, input), Exprs: exprs}
}

func forcedProject(input Node, exprs []Expr, names []string) Node {
	types := make([]sql.DataType, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	return &LogicalProject{base: row(names, types, input), Exprs: exprs}
}

// mergeProject puts exprs (over r's output) on top of r, merged into r
// when r is a projection, as RelBuilder merges consecutive projects.
func mergeProject(r Node, exprs []Expr, names []string) Node {
	if p, ok := r.(*LogicalProject); ok && !hasOverAgg(p.Exprs) {
		merged := make([]Expr, len(exprs))
		for i, e := range exprs {
			merged[i] = inline(e, p.Exprs)
		}
		return forcedProject(p.input(), merged, names)
	}
	return project(r, exprs, names)
}

// aggPlaceholder marks a reference to aggregate output i before the
// aggregate node exists.
type aggPlaceholder struct {
	i int
	t sql.DataType
}

func (a *aggPlaceholder) Type() sql.DataType { return a.t }

func fixAggRefs(e Expr, agg Node) Expr {
	switch x := e.(type) {
	case *aggPlaceholder:
		return &InputRef{Index: x.i, T: agg.Types()[x.i]}
	case *OverCall:
		return fixOverAggRefs(x, agg)
	case *OverAgg:
		return fixOverAggAggRefs(x, agg)
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = fixAggRefs(a, agg)
		}
		return &Call{Op: x.Op, Args: args, T: x.T, Written: x.Written}
	}
	return e
}

// buildAggregate builds Project(group exprs, agg args) → Aggregate, as
// Calcite's SqlToRelConverter does.
func buildAggregate(input Node, agg *aggCollector) Node {
	var exprs []Expr
	var names []string
	indexOf := func(e Expr) int {
		for i, x := range exprs {
			if exprKey(x) == exprKey(e) {
				return i
			}
		}
		exprs = append(exprs, e)
		if r, ok := e.(*InputRef); ok {
			names = append(names, input.Names()[r.Index])
		} else {
			names = append(names, "$f"+strconv.Itoa(len(exprs)-1))
		}
		return len(exprs) - 1
	}
	group := make([]int, len(agg.groupExprs))
	for i, g := range agg.groupExprs {
		n := len(exprs)
		group[i] = indexOf(g)
		if group[i] == n && i < len(agg.groupNames) && agg.groupNames[i] != "" {
			names[n] = agg.groupNames[i]
		}
	}
	calls := make([]AggCall, len(agg.calls))
	for i, c := range agg.calls {
		c.Args = nil
		for _, a := range agg.callArgs[i] {
			if c.Func == "COUNT" && !c.Distinct && !a.Type().Nullable {
				// Calcite's RelBuilder drops the NOT NULL operands of a
				// non-distinct COUNT: COUNT(x) of a NOT NULL x is COUNT(*).
				continue
			}
			c.Args = append(c.Args, indexOf(a))
		}
		if f := agg.callFilter[i]; f != nil {
			// AggConverter: the call's filter is a field of the project,
			// after its arguments (AggregateTest.testAggWithFilterClause:
			// a, b, $f2, c, $f4).
			c.Filtered, c.Filter = true, indexOf(f)
		}
		if c.Name == "" {
			c.Name, c.Unnamed = "$f"+strconv.Itoa(len(group)+i), true
		}
		calls[i] = c
	}
	if len(exprs) == 0 {
		// COUNT(*) alone reads no field; Calcite projects a dummy 0.
		exprs = []Expr{&Literal{Value: int32(0), T: sql.Int().NotNull()}}
		names = []string{"$f0"}
	}
	below := project(input, exprs, uniquify(names))
	outNames := make([]string, 0, len(group)+len(calls))
	outTypes := make([]sql.DataType, 0, len(group)+len(calls))
	for _, g := range group {
		outNames = append(outNames, below.Names()[g])
		outTypes = append(outTypes, below.Types()[g])
	}
	for _, c := range calls {
		outNames = append(outNames, c.Name)
		outTypes = append(outTypes, c.T)
	}
	out := &LogicalAggregate{base: row(aggregateNames(outNames, len(group)), outTypes, below), Group: group, Aggs: calls, Converted: true}
	for _, set := range agg.sets {
		fields := make([]int, len(set))
		for i, k := range set {
			fields[i] = group[k]
		}
		out.Sets = append(out.Sets, normSet(fields))
	}
	if out.Sets != nil {
		sortSets(out.Sets)
	}
	if hasRepeatedSet(out.Sets) {
		return repeatedSetsUnion(out)
	}
	return out
}

// exprKey is a structural identity for deduplicating expressions.
func exprKey(e Expr) string { return FormatExpr(e, nil, FormatAST) + "|" + e.Type().String() }

// at are the order items already resolved to a field of r (by their
// index in order).
func (b *binder) bindOrderLimit(r Node, order []ast.OrderItem, limit, offset *int64, sc *scope, at map[int]int) (Node, error) {
	if len(order) == 0 && limit == nil && offset == nil {
		return r, nil
	}
	s := &LogicalSort{base: sameRow(r), Fetch: -1}
	for k, o := range order {
		var e Expr
		if i, ok := at[k]; ok {
			e = &InputRef{Index: i, T: r.Types()[i]}
		} else {
			var err error
			if e, err = b.bindExpr(o.Expr, sc, nil); err != nil {
				return nil, err
			}
		}
		ref, ok := e.(*InputRef)
		if !ok {
			if l, isLit := e.(*Literal); isLit && l.T.IsIntegral() {
				n, _ := toInt(l.Value)
				if n < 1 || int(n) > len(r.Names()) {
					return nil, validationErr(o.At, 1, "Ordinal out of range")
				}
				ref = &InputRef{Index: int(n) - 1, T: r.Types()[n-1]}
			} else {
				return nil, sql.Errorf(sql.TableException, "sqlrun supports ORDER BY on output columns only")
			}
		}
		// Flink's validator collates NULLs low (NullCollation.LOW): NULLS
		// FIRST for ASC, NULLS LAST for DESC, as its plans print
		// (SortLimitTest: dir0=[ASC-nulls-first], dir0=[DESC-nulls-last]).
		nf := !o.Desc
		if o.NullsFirst != nil {
			nf = *o.NullsFirst
		}
		s.Order = append(s.Order, SortKey{Field: ref.Index, Desc: o.Desc, NullsFirst: nf})
	}
	if limit != nil {
		s.Fetch = *limit
	}
	if offset != nil {
		s.Offset = *offset
	}
	return s, nil
}

// bindExpr binds an AST expression over sc. With agg set, group
// expressions and aggregate calls become aggregate output references.
func (b *binder) bindExpr(e ast.Expr, sc *scope, agg *aggCollector) (Expr, error) {
	b.exprDepth++
	x, err := b.bindExprIn(e, sc, agg)
	b.exprDepth--
	return x, err
}

func (b *binder) bindExprIn(e ast.Expr, sc *scope, agg *aggCollector) (Expr, error) {
	if v, ok := b.preset[e]; ok {
		return v, nil
	}
	if f, ok := e.(*ast.FuncCall); ok && f.Filter != nil && (f.Over != nil || !b.isAggName(f.Name)) {
		// Parsed (sql/parser) but not planned: refuse rather than drop it.
		return nil, sql.Errorf(sql.TableException, "sqlrun supports FILTER (WHERE ...) only on a group or window aggregate call, not on %s", f.Name)
	}
	if f, ok := e.(*ast.FuncCall); ok && f.Over != nil {
		if !b.overAllowed {
			return nil, sql.Errorf(sql.TableException, "sqlrun supports %s() OVER only as a whole SELECT item yet", f.Name)
		}
		b.overAllowed = false
		return b.bindOver(f, sc, agg)
	}
	if agg != nil {
		if f, ok := e.(*ast.FuncCall); ok && f.Over == nil && isGroupingFunc(f.Name) {
			return b.bindGroupingCall(f, agg)
		}
		if f, ok := e.(*ast.FuncCall); ok && b.isAggName(f.Name) {
			return b.bindAggCall(f, sc, agg)
		}
		if c, err := agg.window.auxColumn(e); err != nil || c != nil {
			if err != nil {
				return nil, err
			}
			e = c
		}
		txt := e.String()
		for i, g := range agg.groupAST {
			if g == txt {
				return &aggPlaceholder{i: i, t: agg.groupExprs[i].Type()}, nil
			}
		}
		if c, more, ok := compoundIdent(e); ok {
			// A column that is not grouped: match by resolved field (a
			// ROW field of a grouped column is read from the group's).
			idx, path, err := sc.resolvePath(c, more...)
			if err != nil {
				return nil, err
			}
			for i, g := range agg.groupExprs {
				if r, ok := g.(*InputRef); ok && r.Index == idx {
					return fieldAccess(&aggPlaceholder{i: i, t: g.Type()}, c, path)
				}
			}
			return nil, validationErr(c.At, len(c.Name), "Expression '%s' is not being grouped", e.String())
		}
	}
	rec := func(x ast.Expr) (Expr, error) { return b.bindExpr(x, sc, agg) }
	switch x := e.(type) {
	case *ast.ColumnRef:
		if u, ok := sc.usingColumn(x); ok {
			// A USING column is the value both sides share: a select
			// item (or *) reads COALESCE(left, right), as Calcite's
			// SqlValidatorImpl.expandCommonColumn and Permute write it
			// (JoinTestBase.testFullOuterWithUsing); elsewhere it is
			// the side a join never pads with NULL, which has the same
			// value (a FULL join pads both: COALESCE).
			l, r := &InputRef{Index: u.left, T: sc.cols[u.left].t}, &InputRef{Index: u.right, T: sc.cols[u.right].t}
			switch {
			case sc.selected[x] || u.kind == ast.FullJoin:
				return bindFunc(&ast.FuncCall{Node: x.Node, Name: "COALESCE"}, []Expr{l, r})
			case u.kind == ast.RightJoin:
				return r, nil
			}
			return l, nil
		}
		i, path, err := sc.resolvePath(x)
		if err != nil {
			if rerr := b.correlatedRefusal(x); rerr != nil {
				return nil, rerr
			}
			return nil, err
		}
		return fieldAccess(&InputRef{Index: i, T: sc.cols[i].t}, x, path)
	case *ast.Literal:
		return bindLiteral(x)
	case *ast.TimeUnit:
		return &Literal{Value: x.Unit, T: sql.Char(len(x.Unit)).NotNull(), Flag: true}, nil
	case *ast.Param:
		return nil, validationErr(x.At, 1, "Dynamic parameters are not supported")
	case *ast.Unary:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case ast.OpNot:
			if err := wantBool(a, x.X); err != nil {
				return nil, err
			}
			if c, ok := a.(*Call); ok && len(c.Args) == 2 && negatedComparison[c.Op] != "" {
				// RexSimplify.simplifyNot, which the RelBuilder that
				// SqlToRelConverter projects through applies: NOT of a
				// comparison is the negated comparison (NOT b = 2 is b <> 2,
				// also for NULLs; DistinctAggregateTest.testAggWithFilterClause).
				return &Call{Op: negatedComparison[c.Op], Args: c.Args, T: c.T}, nil
			}
			return &Call{Op: "NOT", Args: []Expr{a}, T: sql.Boolean().WithNullable(a.Type().Nullable)}, nil
		case ast.OpNeg:
			if l, ok := a.(*Literal); ok {
				if iv, ok := l.Value.(expr.Interval); ok {
					// -INTERVAL '2' MONTH: the negated interval.
					iv.Millis, iv.Months = -iv.Millis, -iv.Months
					return &Literal{Value: iv, T: l.T}, nil
				}
			}
			if !a.Type().IsNumeric() && !isIntervalType(a.Type()) {
				return nil, cannotApply(x.At, "-", a)
			}
			if l, ok := a.(*Literal); ok {
				if v, err := negate(l.Value); err == nil {
					return &Literal{Value: v, T: l.T}, nil
				}
			}
			return &Call{Op: "-", Args: []Expr{a}, T: a.Type()}, nil
		case ast.OpPlus:
			return a, nil
		}
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support operator %s yet", x.Op)
	case *ast.Binary:
		if x.Op == ast.OpOverlaps {
			return b.bindOverlaps(x, rec)
		}
		l, err := rec(x.L)
		if err != nil {
			return nil, err
		}
		r, err := rec(x.R)
		if err != nil {
			return nil, err
		}
		return bindBinary(x, l, r)
	case *ast.FuncCall:
		if b.isAggName(x.Name) {
			return nil, validationErr(x.At, len(x.Name), "Aggregate expression is illegal here")
		}
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			be, err := rec(a)
			if err != nil {
				if agg != nil && unknownFunc(x.Name) {
					return nil, b.unknownFuncUnderAgg(x, sc, agg, err)
				}
				return nil, err
			}
			args[i] = be
		}
		return b.bindSessionCall(x, args, sc)
	case *ast.Cast:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		op := "CAST"
		if x.Try {
			op = "TRY_CAST"
		}
		t := calciteTime(x.Type).WithNullable(a.Type().Nullable || x.Try)
		if msg := castRefusal(a.Type(), t); msg != "" {
			return nil, validationErr(x.At, len(x.String()), "%s", msg)
		}
		if l, ok := a.(*Literal); ok && !x.Try && l.Value != nil && l.T.Root == sql.TypeTime && t.Root == sql.TypeTime {
			// Calcite's RexBuilder.makeCast drops a cast of a TIME literal
			// to TIME (canRemoveCastFromLiteral) and makeLiteral rounds the
			// value to the target's precision (TimeString.round, which
			// truncates): CAST(TIME '12:34:56.789' AS TIME) is 12:34:56.
			// A cast of any other TIME is the identity in Flink's code
			// (both sides are TIME(0) there, sql.Planned), so the runtime
			// cast keeps the milliseconds.
			if ms, ok := l.Value.(int32); ok {
				return &Literal{Value: expr.TruncTime(ms, t.Precision), T: t}, nil
			}
		}
		return &Call{Op: op, Args: []Expr{a}, T: t}, nil
	case *ast.Case:
		var args []Expr
		var resT sql.DataType
		first := true
		var operand Expr
		if x.Operand != nil {
			o, err := rec(x.Operand)
			if err != nil {
				return nil, err
			}
			operand = o
		}
		unify := func(e Expr, at ast.Pos) error {
			if first {
				resT, first = e.Type(), false
				return nil
			}
			t, ok := commonType(resT, e.Type())
			if !ok {
				return validationErr(at, 4, "Illegal mixing of types in CASE or COALESCE statement")
			}
			resT = t
			return nil
		}
		for _, w := range x.Whens {
			c, err := rec(w.Cond)
			if err != nil {
				return nil, err
			}
			if operand != nil {
				c, err = bindBinary(&ast.Binary{Node: w.Node, Op: ast.OpEq, L: x.Operand, R: w.Cond}, operand, c)
				if err != nil {
					return nil, err
				}
			}
			v, err := rec(w.Result)
			if err != nil {
				return nil, err
			}
			if err := unify(v, w.At); err != nil {
				return nil, err
			}
			args = append(args, c, v)
		}
		var els Expr = &Literal{T: sql.Null()}
		if x.Else != nil {
			v, err := rec(x.Else)
			if err != nil {
				return nil, err
			}
			els = v
		}
		if err := unify(els, x.At); err != nil {
			return nil, err
		}
		if x.Else == nil {
			resT = resT.WithNullable(true)
		}
		for i := 1; i < len(args); i += 2 {
			args[i] = castExpr(args[i], resT)
		}
		args = append(args, castExpr(els, resT))
		return &Call{Op: "CASE", Args: args, T: resT}, nil
	case *ast.In:
		if x.Query != nil {
			// bindSelect joins what an IN (subquery) needs in WHERE, in
			// HAVING and in the select list of a SELECT
			// without aggregates (subquery.go); elsewhere (a GROUP BY, an
			// aggregating SELECT's items, ON, ORDER BY) it is refused.
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support IN (subquery) here yet (only in WHERE, HAVING, GROUP BY, a JOIN's ON and the select list)")
		}
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		if len(x.List) == 0 {
			return nil, validationErr(x.At, 1, "Values passed to IN operator must have compatible types")
		}
		// x IN (v1, v2) is OR(=(x, v1), =(x, v2)) and NOT IN its negation,
		// as Calcite's SqlToRelConverter expands IN lists (Flink sets no
		// threshold for turning them into a join).
		var eqs []Expr
		nullable := a.Type().Nullable
		for _, it := range x.List {
			v, err := rec(it)
			if err != nil {
				return nil, err
			}
			if isNested(a.Type()) || isNested(v.Type()) {
				return nil, sql.Errorf(sql.TableException, "sqlrun does not support comparing ARRAY, MAP or ROW values yet")
			}
			if !comparable(a.Type(), v.Type()) {
				return nil, validationErr(x.At, 1, "Values passed to IN operator must have compatible types")
			}
			nullable = nullable || v.Type().Nullable
			eqs = append(eqs, &Call{Op: "=", Args: []Expr{a, v}, T: sql.Boolean().WithNullable(a.Type().Nullable || v.Type().Nullable)})
		}
		res := eqs[0]
		if len(eqs) > 1 {
			res = &Call{Op: "OR", Args: eqs, T: sql.Boolean().WithNullable(nullable)}
		}
		if x.Not {
			return &Call{Op: "NOT", Args: []Expr{res}, T: res.Type()}, nil
		}
		return res, nil
	case *ast.Between:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		lo, err := rec(x.Lo)
		if err != nil {
			return nil, err
		}
		hi, err := rec(x.Hi)
		if err != nil {
			return nil, err
		}
		ge, err := bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpGe}, a, lo)
		if err != nil {
			return nil, err
		}
		le, err := bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpLe}, a, hi)
		if err != nil {
			return nil, err
		}
		res := and([]Expr{ge, le})
		if x.Symmetric {
			// StandardConvertletTable.convertBetween: SYMMETRIC is the OR
			// of both orders.
			ge2, err := bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpGe}, a, hi)
			if err != nil {
				return nil, err
			}
			le2, err := bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpLe}, a, lo)
			if err != nil {
				return nil, err
			}
			res = or([]Expr{res, and([]Expr{ge2, le2})})
		}
		if x.Not {
			return &Call{Op: "NOT", Args: []Expr{res}, T: res.Type()}, nil
		}
		return res, nil
	case *ast.Like:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		p, err := rec(x.Pattern)
		if err != nil {
			return nil, err
		}
		// Calcite's SqlLikeOperator: LIKE, ILIKE and SIMILAR TO.
		op := "LIKE"
		switch {
		case x.Similar:
			op = "SIMILAR TO"
		case x.CaseInsensitive:
			op = "ILIKE"
		}
		if !a.Type().IsString() && a.Type().Root != sql.TypeNull || !p.Type().IsString() && p.Type().Root != sql.TypeNull {
			return nil, cannotApply(x.At, op, a, p)
		}
		args := []Expr{a, p}
		if x.Escape != nil {
			esc, err := rec(x.Escape)
			if err != nil {
				return nil, err
			}
			if l, ok := esc.(*Literal); !ok || !esc.Type().IsString() || len([]rune(fmt.Sprint(l.Value))) != 1 {
				return nil, validationErr(x.Escape.Pos(), 1, "Invalid escape character '%s'", x.Escape.String())
			}
			args = append(args, esc)
		}
		var res Expr = &Call{Op: op, Args: args, T: sql.Boolean().WithNullable(a.Type().Nullable || p.Type().Nullable)}
		if x.Not {
			res = &Call{Op: "NOT", Args: []Expr{res}, T: res.Type()}
		}
		return res, nil
	case *ast.IsNull:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		op := "IS NULL"
		if x.Not {
			op = "IS NOT NULL"
		}
		return &Call{Op: op, Args: []Expr{a}, T: sql.Boolean().NotNull()}, nil
	case *ast.IsBool:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		// IS [NOT] UNKNOWN is IS [NOT] NULL, as Calcite converts it.
		what := "NULL"
		if x.Value != nil {
			what = strings.ToUpper(strconv.FormatBool(*x.Value))
		}
		op := "IS " + what
		if x.Not {
			op = "IS NOT " + what
		}
		return &Call{Op: op, Args: []Expr{a}, T: sql.Boolean().NotNull()}, nil
	case *ast.Subquery, *ast.Exists:
		if q, ok := x.(*ast.Subquery); ok {
			if i, ok := b.scalars[q]; ok {
				return &InputRef{Index: i, T: sc.cols[i].t}, nil
			}
		}
		// Calcite validates the subquery before anything refuses it: one
		// that cannot refer to an outer column (the outer query reads no
		// table) fails with its own error first (CalcTest
		// .testCoalesceOnInvalidField).
		if q, ok := x.(*ast.Subquery); ok && (sc == nil || len(sc.cols) == 0) {
			if _, err := b.bindQuery(q.Query); err != nil {
				return nil, err
			}
		}
		if _, ok := x.(*ast.Subquery); ok {
			// bindScalarSubqueries plans only an uncorrelated aggregate
			// without GROUP BY in a non-aggregating SELECT's items or WHERE.
			return nil, sql.Errorf(sql.TableException, "sqlrun supports a scalar subquery only as an uncorrelated aggregate without GROUP BY (one row), in the select list of a SELECT without GROUP BY or aggregates, or in WHERE; this one is not yet supported (Flink would check it returns at most one row with SINGLE_VALUE)")
		}
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support subqueries in expressions yet")
	case *ast.Item:
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		i, err := rec(x.Index)
		if err != nil {
			return nil, err
		}
		args, t, err := expr.InferItem([]Expr{a, i})
		if err != nil {
			var oe *expr.OperandError
			if errors.As(err, &oe) {
				return nil, validationErr(x.At, len(x.String()), "%s", oe.Msg)
			}
			return nil, err
		}
		return &Call{Op: "ITEM", Args: args, T: t}, nil
	case *ast.FieldAccess:
		if c, more, ok := compoundIdent(x); ok {
			// One identifier of four or more names (a.b.c.d).
			i, path, err := sc.resolvePath(c, more...)
			if err != nil {
				if rerr := b.correlatedRefusal(c); rerr != nil {
					return nil, rerr
				}
				return nil, err
			}
			return fieldAccess(&InputRef{Index: i, T: sc.cols[i].t}, c, path)
		}
		a, err := rec(x.X)
		if err != nil {
			return nil, err
		}
		if a.Type().Root != sql.TypeRow && !isCompoundIdent(x) {
			// SqlDotOperator.deriveType on a non-ROW operand (an
			// identifier's name fails as an unknown field below).
			return nil, validationErr(x.X.Pos(), 1, "Incompatible types")
		}
		fx, ok := expr.FieldAccess(a, x.Field)
		if !ok {
			return nil, validationErr(x.At, 1, "Unknown field '%s'", x.Field)
		}
		return fx, nil
	}
	return nil, fmt.Errorf("bind: unknown expression %T", e)
}

func (b *binder) bindAggCall(f *ast.FuncCall, sc *scope, agg *aggCollector) (Expr, error) {
	for _, a := range f.Args {
		if b.hasAgg(a) {
			return nil, validationErr(a.Pos(), 1, "Aggregate expressions cannot be nested")
		}
	}
	var args []Expr
	for _, a := range f.Args {
		be, err := b.bindExpr(a, sc, nil)
		if err != nil {
			return nil, err
		}
		args = append(args, be)
	}
	name := f.Name
	var udf *UserFunction
	var t sql.DataType
	if err := refuseDistinctVariance(f); err != nil {
		return nil, err
	}
	if fn, ok := expr.Lookup(name); ok {
		var err error
		if args, t, err = fn.Infer(name, args); err != nil {
			return nil, operandErr(f, err)
		}
		name, args, _ = expr.JSONAggName(name, args)
	} else {
		udf, _ = b.userFunction(name, AggregateFunction)
		if udf.OverWindowOnly {
			// FunctionRequirement.OVER_WINDOW_ONLY makes Flink's
			// BridgingSqlAggFunction.requiresOver() true, which Calcite's
			// validator checks of a call without OVER
			// (OverAggregateTest.testInvalidOverAggregation).
			return nil, validationErr(f.At, len(f.String()), "OVER clause is necessary for window functions")
		}
		ts := make([]sql.DataType, len(args))
		for i, a := range args {
			ts[i] = a.Type()
		}
		params, rt, err := udf.Infer(ts)
		if err != nil {
			return nil, validationErr(f.At, len(f.String()), "%s", err.Error())
		}
		for i, p := range params {
			if i < len(args) && !args[i].Type().Equal(p) {
				args[i] = &Call{Op: "CAST", Args: []Expr{args[i]}, T: p}
			}
		}
		t, name = rt, udf.Name
	}
	var err error
	var filter Expr
	if f.Filter != nil {
		if b.hasAgg(f.Filter) {
			return nil, validationErr(f.Filter.Pos(), 1, "Aggregate expressions cannot be nested")
		}
		if filter, err = b.bindExpr(f.Filter, sc, nil); err != nil {
			return nil, err
		}
		if r := filter.Type().Root; r != sql.TypeBoolean {
			// Calcite's SqlValidatorImpl.validateAggregateParams.
			return nil, validationErr(f.Filter.Pos(), 1, "FILTER expression must be of type BOOLEAN")
		}
		if filter.Type().Nullable {
			// SqlToRelConverter's AggConverter: a nullable condition is
			// read as cond IS TRUE.
			filter = &Call{Op: "IS TRUE", Args: []Expr{filter}, T: sql.Boolean().NotNull()}
		}
	}
	if len(agg.groupExprs) > 0 && filter == nil && len(args) == 1 && !args[0].Type().Nullable && nullableIfEmpty[strings.ToUpper(name)] {
		// Calcite's AGG_SUM, AVG_AGG_FUNCTION and ARG0_NULLABLE_IF_EMPTY:
		// grouped and unfiltered, the call is NULL only if its argument
		// can be (SqlCallBinding.getGroupCount counts the GROUP BY items).
		t = t.NotNull()
	}
	txt := f.String()
	for i, c := range agg.callText {
		if c == txt {
			return &aggPlaceholder{i: len(agg.groupExprs) + i, t: agg.calls[i].T}, nil
		}
	}
	agg.calls = append(agg.calls, AggCall{Func: name, Distinct: f.Distinct, T: t, UDF: udf})
	agg.callArgs = append(agg.callArgs, args)
	agg.callFilter = append(agg.callFilter, filter)
	agg.callText = append(agg.callText, txt)
	return &aggPlaceholder{i: len(agg.groupExprs) + len(agg.calls) - 1, t: t}, nil
}

func wantBool(e Expr, at ast.Expr) error {
	r := e.Type().Root
	if r != sql.TypeBoolean && r != sql.TypeNull {
		return validationErr(at.Pos(), 1, "Cannot apply 'NOT' to arguments of type 'NOT<%s>'. Supported form(s): 'NOT<BOOLEAN>'", expr.CalciteTypeName(e.Type()))
	}
	return nil
}

// supportedForms are Calcite's operand signatures, listed after
// "Supported form(s):" in its type errors.
var supportedForms = map[string][]string{
	"+":          {"<NUMERIC> + <NUMERIC>", "<DATETIME_INTERVAL> + <DATETIME_INTERVAL>", "<DATETIME> + <DATETIME_INTERVAL>", "<DATETIME_INTERVAL> + <DATETIME>"},
	"-":          {"<NUMERIC> - <NUMERIC>", "<DATETIME_INTERVAL> - <DATETIME_INTERVAL>", "<DATETIME> - <DATETIME_INTERVAL>"},
	"*":          {"<NUMERIC> * <NUMERIC>", "<DATETIME_INTERVAL> * <NUMERIC>", "<NUMERIC> * <DATETIME_INTERVAL>"},
	"/":          {"<NUMERIC> / <NUMERIC>", "<DATETIME_INTERVAL> / <NUMERIC>"},
	"%":          {"<EXACT_NUMERIC> % <EXACT_NUMERIC>"},
	"AND":        {"<BOOLEAN> AND <BOOLEAN>"},
	"OR":         {"<BOOLEAN> OR <BOOLEAN>"},
	"||":         {"<STRING> || <STRING>"},
	"LIKE":       {"<STRING> LIKE <STRING>"},
	"ILIKE":      {"<STRING> ILIKE <STRING>"},
	"SIMILAR TO": {"<STRING> SIMILAR TO <STRING>"},
}

// operandType prints a type as Calcite's type errors do: SQL type names
// with their precision, no character set (<VARCHAR(2147483647)>,
// <INTEGER>, <DECIMAL(10, 2)>).
func operandType(t sql.DataType) string {
	return "<" + strings.ReplaceAll(calciteType(t.WithNullable(true)), " CHARACTER SET \"UTF-16LE\"", "") + ">"
}

func cannotApply(at ast.Pos, op string, args ...Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = operandType(a.Type())
	}
	var form string
	switch {
	case len(ts) == 2:
		form = ts[0] + " " + op + " " + ts[1]
	case len(ts) == 1 && op == "-":
		form = "-" + ts[0]
	default:
		form = op + "(" + strings.Join(ts, ", ") + ")"
	}
	forms, ok := supportedForms[op]
	switch {
	case ok:
	case len(ts) == 2:
		forms = []string{"<COMPARABLE_TYPE> " + op + " <COMPARABLE_TYPE>"}
	case op == "-":
		forms = []string{"-<NUMERIC>", "-<DATETIME_INTERVAL>"}
	}
	msg := fmt.Sprintf("Cannot apply '%s' to arguments of type '%s'.", op, form)
	if len(forms) > 0 {
		msg += " Supported form(s): '" + strings.Join(forms, "'\n'") + "'"
	}
	return validationErr(at, 1, "%s", msg)
}

func isIntervalType(t sql.DataType) bool {
	return t.Root == sql.TypeIntervalDayTime || t.Root == sql.TypeIntervalYearMonth
}

func isDatetime(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeDate, sql.TypeTime, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return true
	}
	return false
}

// intervalTimes types an interval multiplied or divided by a number: the
// interval's type. Flink's ScalarOperatorGens.numericCasting casts the
// number to the interval's int or long first, which it can do for an
// integer only ("Unsupported casting from DOUBLE to INTERVAL SECOND(3)."
// when it generates the code).
func intervalTimes(x *ast.Binary, l, r Expr, it, nt sql.DataType) (Expr, error) {
	if !nt.IsIntegral() {
		return nil, sql.Errorf(sql.TableException, "Unsupported casting from %s to %s.", nt.NotNull(), it.NotNull())
	}
	return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: it.WithNullable(l.Type().Nullable || r.Type().Nullable)}, nil
}

// intervalSum is the type of the sum of two intervals of one family: the
// finer of the two units (INTERVAL DAY + INTERVAL HOUR is an INTERVAL
// HOUR); YEAR stays YEAR only with YEAR.
func intervalSum(a, b sql.DataType) sql.DataType {
	if a.Unit >= b.Unit {
		return a
	}
	return b
}

// datetimePlusType is the type of datetime +/- interval, as Flink's copy of
// Calcite's SqlTimestampAddFunction.deduceType gives it for the interval's
// start unit: HOUR, MINUTE or SECOND added to a DATE makes a TIMESTAMP
// (Flink's default precision, 6); anything else keeps the datetime's type.
func datetimePlusType(dt sql.DataType, iv Expr) sql.DataType {
	if dt.Root != sql.TypeDate {
		return dt
	}
	// The interval's start unit (SqlTimestampAddFunction.deduceType): a
	// literal's qualifier, else its type's unit (DAY for the
	// *(86400000:INTERVAL DAY, n) of TIMESTAMPADD(DAY, n, d)).
	unit := ""
	if l, ok := iv.(*Literal); ok {
		if v, ok := l.Value.(expr.Interval); ok {
			unit, _, _ = strings.Cut(v.Unit, " ")
		}
	}
	if unit == "" {
		switch iv.Type().Unit {
		case sql.IntervalHour:
			unit = "HOUR"
		case sql.IntervalMinute:
			unit = "MINUTE"
		case sql.IntervalSecond:
			unit = "SECOND"
		}
	}
	switch unit {
	case "HOUR", "MINUTE", "SECOND":
		return sql.Timestamp(6)
	}
	return dt
}

func bindBinary(x *ast.Binary, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	nullable := lt.Nullable || rt.Nullable
	switch {
	case (x.Op == ast.OpAdd || x.Op == ast.OpSub) && isDatetime(lt) && isIntervalType(rt):
		return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: datetimePlusType(lt, r).WithNullable(nullable)}, nil
	case x.Op == ast.OpAdd && isIntervalType(lt) && isDatetime(rt):
		return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: datetimePlusType(rt, l).WithNullable(nullable)}, nil
	case (x.Op == ast.OpAdd || x.Op == ast.OpSub) && isIntervalType(lt) && lt.Root == rt.Root:
		// Interval plus or minus an interval of its family: Calcite's
		// leastRestrictive qualifier (the coarser start, the finer end),
		// as Flink's planner keeps it (sql.Interval).
		return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: intervalSum(lt, rt).WithNullable(nullable)}, nil
	case x.Op == ast.OpMul && isIntervalType(lt) && rt.IsNumeric(), x.Op == ast.OpDiv && isIntervalType(lt) && rt.IsNumeric():
		return intervalTimes(x, l, r, lt, rt)
	case x.Op == ast.OpMul && lt.IsNumeric() && isIntervalType(rt):
		return intervalTimes(x, l, r, rt, lt)
	}
	switch x.Op {
	case ast.OpAdd, ast.OpSub, ast.OpMul, ast.OpDiv, ast.OpMod:
		if !lt.IsNumeric() && lt.Root != sql.TypeNull || !rt.IsNumeric() && rt.Root != sql.TypeNull {
			return nil, cannotApply(x.At, string(x.Op), l, r)
		}
		if lt.Root == sql.TypeNull {
			lt = rt
		}
		if rt.Root == sql.TypeNull {
			rt = lt
		}
		op := string(x.Op)
		t := arithmeticType(op, lt, rt).WithNullable(nullable)
		if op == "%" {
			op = "MOD"
		}
		if x.Op == ast.OpDiv && lt.IsIntegral() && rt.IsIntegral() {
			t = arithmeticType("+", lt, rt).WithNullable(nullable)
		}
		return &Call{Op: op, Args: []Expr{l, r}, T: t}, nil
	case ast.OpEq, ast.OpNe, ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe, ast.OpIsDistinct, ast.OpIsNotDistinct:
		if (x.Op == ast.OpEq || x.Op == ast.OpNe) && lt.Root == sql.TypeRow && rt.Root == sql.TypeRow {
			return bindRowEquality(x, l, r)
		}
		if (x.Op == ast.OpEq || x.Op == ast.OpNe) && expr.CollectionsComparable(lt, rt) {
			return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: sql.Boolean().WithNullable(nullable)}, nil
		}
		if isNested(lt) || isNested(rt) {
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support comparing ARRAY, MAP or ROW values yet")
		}
		if !comparable(lt, rt) {
			return nil, cannotApply(x.At, string(x.Op), l, r)
		}
		t := sql.Boolean().WithNullable(nullable)
		switch x.Op {
		case ast.OpIsDistinct, ast.OpIsNotDistinct:
			t = t.NotNull()
		case ast.OpLt, ast.OpLe, ast.OpGt, ast.OpGe:
			l, r = compareCasts(l, r)
		}
		return &Call{Op: string(x.Op), Args: []Expr{l, r}, T: t}, nil
	case ast.OpAnd, ast.OpOr:
		for _, e := range []Expr{l, r} {
			if e.Type().Root != sql.TypeBoolean && e.Type().Root != sql.TypeNull {
				return nil, cannotApply(x.At, string(x.Op), l, r)
			}
		}
		var args []Expr
		for _, e := range []Expr{l, r} {
			if c, ok := e.(*Call); ok && c.Op == string(x.Op) {
				args = append(args, c.Args...)
			} else {
				args = append(args, e)
			}
		}
		return &Call{Op: string(x.Op), Args: args, T: sql.Boolean().WithNullable(nullable)}, nil
	case ast.OpConcat:
		if !lt.IsString() && lt.Root != sql.TypeNull || !rt.IsString() && rt.Root != sql.TypeNull {
			return nil, cannotApply(x.At, "||", l, r)
		}
		n := lt.Length + rt.Length
		if n > sql.MaxLength || n < 0 || lt.Length == sql.MaxLength || rt.Length == sql.MaxLength {
			n = sql.MaxLength
		}
		t := sql.VarChar(n)
		if lt.Root == sql.TypeChar && rt.Root == sql.TypeChar {
			t = sql.Char(n)
		}
		return &Call{Op: "||", Args: []Expr{l, r}, T: t.WithNullable(nullable)}, nil
	}
	return nil, sql.Errorf(sql.TableException, "sqlrun does not support operator %s yet", x.Op)
}

// compareCasts makes the operands of an ordering comparison (< <= > >=) of a
// character string with a number, date, time, timestamp or boolean of one
// type, as Calcite's StandardConvertletTable.consistentType does for
// Consistency.COMPARE when Flink's SqlToRelConverter converts the call:
// the string is cast to the other operand's type, and a number's type is
// first widened with BIGINT ("the character arguments might be larger
// than the numeric argument"): s < 5 on a STRING s is
// <(CAST(s AS BIGINT), 5)
// (ChangelogModeInferenceTest.testTemporalJoinWithNonEqualConditionOnKey).
// Operands of one type family are left to the comparison itself, and so
// are those of = and <>, whose consistency is LEAST_RESTRICTIVE (Calcite's
// COMPARABLE_UNORDERED_COMPARABLE_UNORDERED): a string and a number have
// no least restrictive type, so neither is cast.
func compareCasts(l, r Expr) (Expr, Expr) {
	lt, rt := l.Type(), r.Type()
	var other sql.DataType
	switch {
	case lt.Root == sql.TypeNull || rt.Root == sql.TypeNull:
		return l, r
	case lt.IsString() && !rt.IsString():
		other = rt
	case rt.IsString() && !lt.IsString():
		other = lt
	default:
		return l, r
	}
	target := other
	if other.IsNumeric() {
		// leastRestrictive(other, BIGINT): TINYINT..BIGINT widen to
		// BIGINT, DECIMAL(p, s) to DECIMAL(max(p-s, 19)+s, s), FLOAT and
		// DOUBLE stay.
		if t, ok := expr.CommonType(other.NotNull(), sql.BigInt().NotNull()); ok {
			target = t
		}
	}
	return compareOperand(l, target), compareOperand(r, target)
}

// compareOperand casts one operand of an ordering comparison to target,
// leaving a numeric literal as it is: Flink prints s < 5 as
// <(CAST(s AS BIGINT), 5), the literal's own digest without a type, where
// a BIGINT literal prints 5:BIGINT. A string literal is cast, and reduced.
func compareOperand(e Expr, target sql.DataType) Expr {
	if l, ok := e.(*Literal); ok && l.T.IsNumeric() {
		return e
	}
	return expr.CastExpr(e, target.NotNull())
}

func bindLiteral(x *ast.Literal) (Expr, error) {
	switch x.Kind {
	case ast.LitNull:
		return &Literal{T: sql.Null()}, nil
	case ast.LitInterval:
		iv, ok := x.Value.(ast.IntervalValue)
		if !ok {
			return nil, fmt.Errorf("bind: interval literal %v", x.Value)
		}
		from, to, _ := strings.Cut(iv.Unit, " TO ")
		t, ok := sql.Interval(from, to)
		if !ok {
			return nil, fmt.Errorf("bind: interval qualifier %q", iv.Unit)
		}
		return &Literal{Value: expr.Interval{Millis: iv.Millis, Months: iv.Months, Unit: iv.Unit}, T: t.NotNull()}, nil
	case ast.LitDecimal:
		if d, ok := x.Value.(decimal.Decimal); ok {
			return &Literal{Value: d, T: x.Type}, nil
		}
	case ast.LitTime:
		// TIME '12:34:56.123456' is Calcite's TIME(3) (the value is read
		// to milliseconds).
		return &Literal{Value: x.Value, T: calciteTime(x.Type)}, nil
	}
	return &Literal{Value: x.Value, T: x.Type}, nil
}

// calciteTime is t with a TIME's precision clamped to the most Calcite
// keeps (sql.MaxPlannerTimePrecision; SqlTypeFactoryImpl.createSqlType).
func calciteTime(t sql.DataType) sql.DataType {
	if t.Root == sql.TypeTime && t.Precision > sql.MaxPlannerTimePrecision {
		t.Precision = sql.MaxPlannerTimePrecision
	}
	return t
}

// unknownFunc reports whether bindFunc finds no scalar function name.
func unknownFunc(name string) bool {
	f, ok := expr.Lookup(name)
	return !ok || f.Kind != expr.Function || f.Infer == nil
}

// noMatchErr is Calcite's error for a call of an unknown function.
func noMatchErr(x *ast.FuncCall, args []Expr) error {
	sig := make([]string, len(args))
	for i, a := range args {
		sig[i] = "<" + expr.FamilyName(a.Type()) + ">"
	}
	return validationErr(x.At, len(x.String()), "No match found for function signature %s(%s)", x.Name, strings.Join(sig, ", "))
}

// unknownFuncUnderAgg is the error for a call of an unknown function in
// an aggregate query whose argument failed to bind (err, e.g. "Expression
// 'a' is not being grouped"): Calcite's validator derives the select
// list's types, resolving functions, before its AggChecker looks at the
// grouping, so the unknown function is reported first. Each argument
// that fails under the aggregate is typed over the aggregate's input
// instead; when that fails too, err stands.
func (b *binder) unknownFuncUnderAgg(x *ast.FuncCall, sc *scope, agg *aggCollector, err error) error {
	args := make([]Expr, len(x.Args))
	for i, a := range x.Args {
		be, aerr := b.bindExpr(a, sc, agg)
		if aerr != nil {
			be, aerr = b.bindExpr(a, sc, nil)
		}
		if aerr != nil {
			return err
		}
		args[i] = be
	}
	return noMatchErr(x, args)
}

// bindFunc types a call by name through the function table (expr.Lookup),
// adding the call's position to the table's operand errors.
func bindFunc(x *ast.FuncCall, args []Expr) (Expr, error) {
	if unknownFunc(x.Name) {
		return nil, noMatchErr(x, args)
	}
	f, _ := expr.Lookup(x.Name)
	args, t, err := f.Infer(x.Name, args)
	if err != nil {
		return nil, operandErr(x, err)
	}
	if f.Name == "TIMESTAMPADD" {
		return timestampAdd(args, t)
	}
	if f.Name == "TIMESTAMPDIFF" {
		return timestampDiff(args, t)
	}
	c := &Call{Op: f.Name, Args: args, T: t}
	if f.AsWritten && x.Written != "" && strings.EqualFold(x.Written, f.Name) {
		// Flink's BridgingSqlFunction is named by the identifier the
		// query wrote (expr.Func.AsWritten).
		c.Written = x.Written
	}
	return c, nil
}

// timestampAdd is what Calcite's TimestampAddConvertlet
// (StandardConvertletTable) makes of a validated TIMESTAMPADD(unit, n, x):
// x + INTERVAL(unit's multiplier) * n, the DATETIME_PLUS EXPLAIN prints as
// +(ts, *(86400000:INTERVAL DAY, n)) (and constant reduction folds when n
// is a literal); t is the call's validated type, which the sum has (a
// DATE stays a DATE for DAY and longer units). A NULL count is an INTEGER
// NULL, as Calcite's operand type inference types it.
func timestampAdd(args []Expr, t sql.DataType) (Expr, error) {
	unit, _ := args[0].(*Literal).Value.(string)
	iv, it, ok := expr.TimestampAddInterval(unit)
	if !ok {
		return nil, fmt.Errorf("bind: TIMESTAMPADD unit %q", unit)
	}
	n := args[1]
	if n.Type().Root == sql.TypeNull {
		n = &Literal{T: sql.Int()}
	}
	times := &Call{Op: string(ast.OpMul), Args: []Expr{&Literal{Value: iv, T: it}, n}, T: it.WithNullable(n.Type().Nullable)}
	return &Call{Op: string(ast.OpAdd), Args: []Expr{args[2], times}, T: t}, nil
}

// timestampDiff is what Calcite 1.32's TimestampDiffConvertlet
// (StandardConvertletTable) makes of a validated TIMESTAMPDIFF(unit, a,
// b): the difference (b - a) as an interval of the unit (MINUS_DATE; WEEK
// counts seconds, QUARTER months), cast to INTEGER as
// RexBuilder.makeCastIntervalToExact casts it (Reinterpret, the interval's
// milliseconds or months as a BIGINT, divided by the unit's: /INT(...,
// 3600000), then CAST to INTEGER), scaled as multiplyDivide scales it (a
// WEEK /INT 604800, a QUARTER /INT 3). Flink's plans print that:
// CAST(/INT(Reinterpret(-(b, a)), 3600000)):INTEGER. t is the call's
// validated type.
func timestampDiff(args []Expr, t sql.DataType) (Expr, error) {
	unit, _ := args[0].(*Literal).Value.(string)
	a, b := args[1], args[2]
	ivUnit, mult, div := unit, int64(1), int64(1)
	intType := sql.Int()
	switch unit {
	case "MILLISECOND", "MICROSECOND", "NANOSECOND":
		// Counted in whole seconds and multiplied (multiplyDivide(e,
		// 1000, unit.multiplier) is e * 1000000 for MICROSECOND); a
		// NANOSECOND's is a BIGINT, which needs no CAST.
		ivUnit, mult = "SECOND", expr.TimestampDiffSubSecond(unit)
		if unit == "NANOSECOND" {
			intType = sql.BigInt()
		}
	case "WEEK":
		ivUnit, mult, div = "SECOND", 1000, 7*86400000
	case "QUARTER":
		ivUnit, div = "MONTH", 3
	}
	nullable := a.Type().Nullable || b.Type().Nullable
	it, ok := sql.Interval(ivUnit, "")
	if !ok {
		return nil, fmt.Errorf("bind: TIMESTAMPDIFF unit %q", unit)
	}
	it = it.WithNullable(nullable)
	minus := &Call{Op: string(ast.OpSub), Args: []Expr{b, a}, T: it}
	var e Expr = &Call{Op: "Reinterpret", Args: []Expr{minus}, T: sql.BigInt().WithNullable(nullable)}
	// The interval's end unit in its base unit (milliseconds or months):
	// TimeUnit.multiplier.
	end := map[string]int64{"SECOND": 1000, "MINUTE": 60000, "HOUR": 3600000, "DAY": 86400000, "MONTH": 1, "YEAR": 12}[ivUnit]
	e = divideInteger(e, end)
	if intType.Root != sql.TypeBigInt {
		// RexBuilder.ensureType casts only to another type.
		e = &Call{Op: "CAST", Args: []Expr{e}, T: intType.WithNullable(nullable)}
	}
	if div > mult {
		e = divideInteger(e, div/mult)
	}
	if mult > div {
		e = &Call{Op: string(ast.OpMul), Args: []Expr{e, &Literal{Value: int32(mult), T: sql.Int().NotNull()}}, T: intType.WithNullable(nullable)}
	}
	return e, nil
}

// divideInteger is RexBuilder.multiplyDivide's e / n for n > 1: Calcite's
// /INT of e and n's exact literal (an INTEGER), typed as the wider of the
// two (ReturnTypes.INTEGER_QUOTIENT_NULLABLE).
func divideInteger(e Expr, n int64) Expr {
	if n == 1 {
		return e
	}
	return &Call{Op: "/INT", Args: []Expr{e, &Literal{Value: int32(n), T: sql.Int().NotNull()}}, T: e.Type()}
}

// operandErr places a function table's operand error: over the whole call
// or over the function's name, as Calcite does.
func operandErr(x *ast.FuncCall, err error) error {
	var oe *expr.OperandError
	if !errors.As(err, &oe) {
		return err
	}
	width := len(x.Name)
	if oe.WholeCall {
		width = len(x.String())
	}
	return validationErr(x.At, width, "%s", oe.Msg)
}

// bindJoin binds "l [kind] JOIN r ON cond" into LogicalJoin; the outer
// side's opposite columns become nullable.
func (b *binder) bindJoin(x *ast.Join) (Node, *scope, error) {
	if u, ok := x.Right.(*ast.Unnest); ok {
		return b.bindUnnestJoin(x, u)
	}
	if sr, ok := x.Right.(*ast.SubqueryRef); ok && sr.Lateral {
		return b.bindLateralJoin(x, sr)
	}
	if tr, ok := x.Right.(*ast.TableRef); ok && tr.SystemTimeAsOf != nil && hasColumnRef(tr.SystemTimeAsOf) {
		return b.bindLookupJoin(x, tr)
	}
	l, ls, err := b.bindFrom(x.Left)
	if err != nil {
		return nil, nil, err
	}
	r, rs, err := b.bindFrom(x.Right)
	if err != nil {
		return nil, nil, err
	}
	kind := x.Kind
	if kind == ast.CrossJoin || kind == "" {
		kind = ast.InnerJoin
	}
	sc := &scope{}
	var types []sql.DataType
	for _, c := range ls.cols {
		if kind == ast.RightJoin || kind == ast.FullJoin {
			c.t = c.t.WithNullable(true)
		}
		sc.cols = append(sc.cols, c)
		types = append(types, c.t)
	}
	for _, c := range rs.cols {
		if kind == ast.LeftJoin || kind == ast.FullJoin {
			c.t = c.t.WithNullable(true)
		}
		sc.cols = append(sc.cols, c)
		types = append(types, c.t)
	}
	// The USING columns of joins below stay common columns.
	sc.using = append(sc.using, ls.using...)
	for _, u := range rs.using {
		sc.using = append(sc.using, usingColumn{name: u.name, left: len(ls.cols) + u.left, right: len(ls.cols) + u.right, kind: u.kind})
	}
	var cond Expr
	var rest, subs []ast.Expr // the ON's conjuncts without and with subqueries
	switch {
	case x.On != nil:
		if b.hasAgg(x.On) {
			return nil, nil, validationErr(x.On.Pos(), 1, "Aggregate expression is illegal in ON clause")
		}
		for _, c := range astConjuncts(x.On) {
			if hasSubquery(c) {
				subs = append(subs, c)
			} else {
				rest = append(rest, c)
			}
		}
		cond = &Literal{Value: true, T: sql.Boolean().NotNull()}
		if len(rest) > 0 {
			on := x.On
			if len(subs) > 0 {
				on = astAnd(rest)
			}
			restore := b.noCorrelation("a JOIN's ON clause")
			c, err := b.bindExpr(on, sc, nil)
			restore()
			if err != nil {
				return nil, nil, err
			}
			if c.Type().Root != sql.TypeBoolean {
				return nil, nil, validationErr(x.On.Pos(), 1, "ON clause must be a condition")
			}
			cond = c
		}
	case len(x.Using) > 0:
		var conj []Expr
		for _, name := range x.Using {
			li, err := ls.resolve(&ast.ColumnRef{Node: x.Node, Name: name})
			if err != nil {
				return nil, nil, err
			}
			ri, err := rs.resolve(&ast.ColumnRef{Node: x.Node, Name: name})
			if err != nil {
				return nil, nil, err
			}
			sc.using = append(sc.using, usingColumn{name: name, left: li, right: len(ls.cols) + ri, kind: kind})
			eq, err := bindBinary(&ast.Binary{Node: x.Node, Op: ast.OpEq},
				&InputRef{Index: li, T: types[li]}, &InputRef{Index: len(ls.cols) + ri, T: types[len(ls.cols)+ri]})
			if err != nil {
				return nil, nil, err
			}
			conj = append(conj, eq)
		}
		cond = and(conj)
	default:
		cond = &Literal{Value: true, T: sql.Boolean().NotNull()}
	}
	names := uniquify(append(append([]string(nil), l.Names()...), r.Names()...))
	if len(subs) > 0 {
		restore := b.noCorrelation("a JOIN's ON clause")
		defer restore()
		n, err := b.bindJoinSubqueries(x, kind, l, ls, r, rs, sc, cond, rest, subs)
		if err != nil {
			return nil, nil, err
		}
		return n, sc, nil
	}
	j := &LogicalJoin{base: row(names, types, l, r), Cond: cond, JoinType: kind}
	if err := b.resolveJoinHints(j, b.hintInputName(x.Left), b.hintInputName(x.Right)); err != nil {
		return nil, nil, err
	}
	return j, sc, nil
}

// isNested reports the types whose values are composite (ARRAY, MAP, ROW).
// bindRowEquality binds ROW = ROW (and <>): the rows have as many fields,
// pairwise comparable, and a side whose field types are not the common
// ones is cast to them, named as the left row's fields, as Calcite's type
// coercion does (CalcTest.testMixedType: (a, b, c) = ('foo', 12,
// TIMESTAMP '...') compares ROW(a, b, c) with CAST(ROW(...) AS
// RecordType(VARCHAR(2147483647) EXPR$0, INTEGER EXPR$1, TIMESTAMP(3)
// EXPR$2))). It plans; running it is refused (expr's evalCompare).
func bindRowEquality(x *ast.Binary, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if len(lt.Fields) != len(rt.Fields) {
		return nil, cannotApply(x.At, string(x.Op), l, r)
	}
	fields := make([]sql.Field, len(lt.Fields))
	for i, lf := range lt.Fields {
		rf := rt.Fields[i]
		ct, ok := commonType(lf.Type, rf.Type)
		if !ok || isNested(lf.Type) || isNested(rf.Type) {
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support comparing ARRAY, MAP or ROW values yet")
		}
		fields[i] = sql.Field{Name: lf.Name, Type: ct}
	}
	common := sql.RowOf(fields...)
	side := func(e Expr) Expr {
		t := e.Type()
		for i, f := range t.Fields {
			if !f.Type.Equal(fields[i].Type) {
				return castExpr(e, common)
			}
		}
		return e
	}
	return &Call{Op: string(x.Op), Args: []Expr{side(l), side(r)}, T: sql.Boolean().WithNullable(lt.Nullable || rt.Nullable)}, nil
}

func isNested(t sql.DataType) bool {
	return t.Root == sql.TypeArray || t.Root == sql.TypeMap || t.Root == sql.TypeRow
}

// castRefusal is why Flink refuses CAST(from AS to) when it validates the
// statement, or "" when it accepts the cast. It follows what Flink's SQL
// validation accepts (CastFunctionITCase's failValidation cases): the
// explicit rules of LogicalTypeCasts, narrowed to what SQL accepts (no
// DATE, TIME or binary string to a number or BOOLEAN, no BOOLEAN to a
// binary string or a datetime). A cast between a number and a timestamp
// validates and fails when the job is compiled (expr.CastCodegenError).
// An ARRAY, MAP or ROW casts only to its own kind, member by member, or
// to a string.
func castRefusal(from, to sql.DataType) string {
	refuse := fmt.Sprintf("Cast function cannot convert value of type %s to type %s", from, to)
	if from.Root == sql.TypeNull || to.IsString() {
		return ""
	}
	if isNested(from) || isNested(to) {
		if from.Root != to.Root || !nestedCastable(from, to) {
			return refuse
		}
		return ""
	}
	if from.Root == to.Root {
		return ""
	}
	datetime := func(t sql.DataType) bool {
		switch t.Root {
		case sql.TypeDate, sql.TypeTime, sql.TypeTimestamp, sql.TypeTimestampLTZ:
			return true
		}
		return false
	}
	ok := false
	switch {
	case to.Root == sql.TypeBoolean:
		ok = from.IsString() || from.IsNumeric()
	case to.IsBinary():
		ok = from.IsString() || from.IsBinary()
	case to.IsNumeric():
		// A timestamp validates (expr.CastCodegenError refuses it when
		// the job is compiled, as Flink's code generation does).
		ok = from.IsString() || from.IsNumeric() || from.Root == sql.TypeBoolean ||
			from.Root == sql.TypeTimestamp || from.Root == sql.TypeTimestampLTZ ||
			(from.IsInterval() && (to.IsIntegral() || to.Root == sql.TypeDecimal))
	case to.Root == sql.TypeDate:
		ok = from.IsString() || from.IsBinary() || from.Root == sql.TypeTimestamp || from.Root == sql.TypeTimestampLTZ
	case to.Root == sql.TypeTime:
		ok = from.IsString() || from.IsBinary() || from.Root == sql.TypeTimestamp || from.Root == sql.TypeTimestampLTZ
	case to.Root == sql.TypeTimestamp || to.Root == sql.TypeTimestampLTZ:
		ok = from.IsString() || from.IsBinary() || from.IsNumeric() || datetime(from)
	case to.IsInterval():
		// SqlTypeUtil.canCastFrom: an exact number to an interval.
		ok = from.IsIntegral() || from.Root == sql.TypeDecimal
	}
	if !ok {
		return refuse
	}
	return ""
}

// nestedCastable is LogicalTypeCasts.supportsConstructedCasting: the same
// kind with as many members, each castable.
func nestedCastable(from, to sql.DataType) bool {
	pairs := [][2]sql.DataType{}
	switch {
	case from.Root == sql.TypeArray && from.Elem != nil && to.Elem != nil:
		pairs = append(pairs, [2]sql.DataType{*from.Elem, *to.Elem})
	case from.Root == sql.TypeMap && from.Elem != nil && to.Elem != nil && from.Value != nil && to.Value != nil:
		pairs = append(pairs, [2]sql.DataType{*from.Elem, *to.Elem}, [2]sql.DataType{*from.Value, *to.Value})
	case from.Root == sql.TypeRow:
		if len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			pairs = append(pairs, [2]sql.DataType{from.Fields[i].Type, to.Fields[i].Type})
		}
	default:
		return false
	}
	for _, p := range pairs {
		if castRefusal(p[0], p[1]) != "" {
			return false
		}
	}
	return true
}

// negatedComparison is Calcite's SqlKind.negate over the comparisons.
var negatedComparison = map[string]string{
	"=": "<>", "<>": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
}
