package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/expr"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// UNNEST as Flink 1.20 plans it. Calcite's SqlToRelConverter makes
// `FROM t, UNNEST(t.b) AS A (s)` a LogicalCorrelate of t and an Uncollect
// of the correlated value ($cor0.b, a LogicalProject over a one-row
// LogicalValues), renamed by a LogicalProject when the UNNEST has column
// aliases; that is the Abstract Syntax Tree. Flink's LogicalUnnestRule
// (the Unnest rule here) replaces the Uncollect by a table function scan
// of the built-in $UNNEST_ROWS$1 (UnnestRowsFunction), whose row type is
// the element's: an ARRAY<ROW<...>>'s row fields, f0 for any other
// element type, (f0, f1) for a MAP's key and value. Calcite's
// FilterCorrelateRule (the FilterCorrelate rule, which Flink runs in the
// decorrelation program's pre-pass) pushes a WHERE's conjuncts over the
// left side into it and those over the unnested side into the
// correlate's condition; StreamPhysicalCorrelateRule then makes it a
// Correlate node, which prints its left input only.

// unnestFunc is the built-in table function's name as Flink prints it.
const unnestFunc = "$UNNEST_ROWS$1"

// LogicalTableCorrelate is Calcite's LogicalCorrelate of a left input and
// an UNNEST of one of its values: inputs[0] is the left side, inputs[1]
// the Uncollect (optionally under its alias LogicalProject) before the
// Unnest rule, the $UNNEST_ROWS$1 scan after it. Cond is the condition
// over the scan's fields (FilterCorrelate; nil: none).
type LogicalTableCorrelate struct {
	base
	JoinType ast.JoinKind // InnerJoin or LeftJoin
	Required []int
	Cond     Expr
}

// Uncollect is Calcite's Uncollect of the correlated collection (AST
// only): its input is the LogicalProject of $cor0.x over one-row Values.
type Uncollect struct{ base }

// correlatedProject is the AST's LogicalProject(b=[$cor0.b]) that reads
// the left row's value to unnest.
type correlatedProject struct {
	base
	digest string
	arg    Expr
}

// TableFunctionScan is the LogicalTableFunctionScan of a built-in table
// function under a correlate: $UNNEST_ROWS$1(Args[0]) or, for INTERSECT
// ALL / EXCEPT ALL (setopall.go), ReplicateRows(Args...), Args over the
// left input's fields.
type TableFunctionScan struct {
	base
	Args []Expr
	// Replicate marks ReplicateRows: Args[0] copies of the other
	// arguments.
	Replicate bool
	// Invocation is the call as Flink prints it ($UNNEST_ROWS$1($cor0.b)),
	// Call as the Correlate's correlate=[table(...)] prints it.
	Invocation, Call string
}

// Correlate is Flink's StreamPhysicalCorrelate / BatchPhysicalCorrelate
// of $UNNEST_ROWS$1: for every input row (of any RowKind) one output row
// per element of Arg (evaluated over the input row), the input's fields
// followed by the element's, with the input row's kind; Cond (over the
// element's fields) filters them. A LEFT correlate emits the input row
// padded with NULLs when no element passes (a NULL or empty collection
// included).
//
// Over ReplicateRows (Replicate) each input row gives Args[0] copies of
// the other arguments' values instead.
type Correlate struct {
	base
	Args       []Expr
	Replicate  bool
	Invocation string
	Call       string
	// Elem is the collection's type (ARRAY or MAP); ElemTypes the
	// element's fields.
	Elem      sql.DataType
	ElemTypes []sql.DataType
	JoinType  ast.JoinKind
	Cond      Expr
	// timeAttrs are the left fields' time attributes ("rowtime",
	// "proctime" or ""), which the rowType marks.
	timeAttrs []string
}

func (*LogicalTableCorrelate) Name() string { return "LogicalCorrelate" }
func (*Uncollect) Name() string             { return "Uncollect" }
func (*correlatedProject) Name() string     { return "LogicalProject" }
func (*TableFunctionScan) Name() string     { return "LogicalTableFunctionScan" }
func (*Correlate) Name() string             { return "Correlate" }

func (n *LogicalTableCorrelate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}
func (n *Uncollect) WithInputs(in ...Node) Node { c := *n; c.base = n.with(in); return &c }
func (n *correlatedProject) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}
func (n *TableFunctionScan) WithInputs(in ...Node) Node { c := *n; c.base = n.with(in); return &c }
func (n *Correlate) WithInputs(in ...Node) Node         { c := *n; c.base = n.with(in); return &c }

func (n *LogicalTableCorrelate) describe(f Format) string {
	req := make([]string, len(n.Required))
	for i, x := range n.Required {
		req[i] = strconv.Itoa(x)
	}
	s := "LogicalCorrelate(correlation=[$cor0], joinType=[" + strings.ToLower(string(n.JoinType)) +
		"], requiredColumns=[{" + strings.Join(req, ", ") + "}]"
	if n.Cond != nil {
		s += ", condition=[" + FormatExpr(n.Cond, nil, FormatAST) + "]"
	}
	return s + ")"
}

func (*Uncollect) describe(Format) string           { return "Uncollect" }
func (n *correlatedProject) describe(Format) string { return n.digest }

func (n *TableFunctionScan) describe(Format) string {
	return "LogicalTableFunctionScan(invocation=[" + n.Invocation + "], rowType=[" + recordType(n.names, n.types, nil) + "])"
}

func (n *Correlate) describe(Format) string {
	s := "Correlate(invocation=[" + n.Invocation + "], correlate=[table(" + n.Call + ")], select=[" +
		strings.Join(n.names, ",") + "], rowType=[" + recordType(n.names, n.types, n.timeAttrs) + "], joinType=[" +
		strings.ToUpper(string(n.JoinType)) + "]"
	if n.Cond != nil {
		s += ", condition=[" + FormatExpr(n.Cond, nil, FormatAST) + "]"
	}
	return s + ")"
}

// recordType prints a row type as Calcite's RelRecordType digest in a
// Correlate's rowType: RecordType(INTEGER a, INTEGER ARRAY b), a ROW
// field as RecordType:peek_no_expand(...) (Flink's rows are
// PEEK_FIELDS_NO_EXPAND structs), strings without their charset.
func recordType(names []string, types []sql.DataType, timeAttrs []string) string {
	parts := make([]string, len(names))
	for i := range names {
		t := correlateType(types[i])
		if i < len(timeAttrs) && timeAttrs[i] != "" {
			// TimeIndicatorRelDataType's digest.
			t = strings.Replace(correlateType(types[i].WithNullable(true)), "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "TIMESTAMP_LTZ", 1) +
				" *" + strings.ToUpper(timeAttrs[i]) + "*"
		}
		parts[i] = t + " " + names[i]
	}
	return "RecordType(" + strings.Join(parts, ", ") + ")"
}

func correlateType(t sql.DataType) string {
	var s string
	switch t.Root {
	case sql.TypeRow:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = correlateType(f.Type) + " " + f.Name
		}
		s = "RecordType:peek_no_expand(" + strings.Join(parts, ", ") + ")"
	case sql.TypeArray, sql.TypeMultiset:
		if t.Elem == nil {
			return calciteField(t)
		}
		s = correlateType(t.Elem.WithNullable(true)) + " ARRAY"
		if t.Root == sql.TypeMultiset {
			s = correlateType(t.Elem.WithNullable(true)) + " MULTISET"
		}
	case sql.TypeMap:
		if t.Elem == nil || t.Value == nil {
			return calciteField(t)
		}
		s = "(" + correlateType(t.Elem.WithNullable(true)) + ", " + correlateType(t.Value.WithNullable(true)) + ") MAP"
	default:
		return calciteField(t)
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}

// calciteField is calciteType without the charset Calcite's digest of a
// row type's field leaves out.
func calciteField(t sql.DataType) string {
	return strings.ReplaceAll(calciteType(t), " CHARACTER SET \"UTF-16LE\"", "")
}

// unnestColumns are the columns of an UNNEST of a value of type t: the
// Uncollect's (Calcite: a ROW element's fields, EXPR$0 for another
// element, KEY and VALUE for a MAP) and the $UNNEST_ROWS$1 scan's (Flink's
// UnnestRowsFunctionBase.getUnnestedType through toRowType: a ROW
// element's fields, f0 otherwise, f0 and f1 for a MAP). ok is false for a
// type that is no collection.
func unnestColumns(t sql.DataType) (uncollect, scan []string, types []sql.DataType, ok bool) {
	switch t.Root {
	case sql.TypeArray, sql.TypeMultiset:
		// A MULTISET unnests as an ARRAY of its elements, each as often
		// as it occurs (UnnestRowsFunction's MultisetUnnestFunction).
		if t.Elem == nil {
			return nil, nil, nil, false
		}
		e := *t.Elem
		if e.Root == sql.TypeRow {
			for _, f := range e.Fields {
				uncollect = append(uncollect, f.Name)
				scan = append(scan, f.Name)
				types = append(types, f.Type.WithNullable(f.Type.Nullable || e.Nullable))
			}
			return uncollect, scan, types, true
		}
		return []string{"EXPR$0"}, []string{"f0"}, []sql.DataType{e}, true
	case sql.TypeMap:
		if t.Elem == nil || t.Value == nil {
			return nil, nil, nil, false
		}
		return []string{"KEY", "VALUE"}, []string{"f0", "f1"}, []sql.DataType{*t.Elem, *t.Value}, true
	}
	return nil, nil, nil, false
}

// bindUnnestJoin binds `left, UNNEST(x)`, `left CROSS JOIN UNNEST(x)`,
// `left [INNER] JOIN UNNEST(x) ON ...` and `left LEFT JOIN UNNEST(x) ON
// TRUE`: x is bound in the left side's scope.
func (b *binder) bindUnnestJoin(x *ast.Join, u *ast.Unnest) (Node, *scope, error) {
	if u.WithOrdinality {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support UNNEST ... WITH ORDINALITY: Flink 1.20 has no $UNNEST_ROWS_WITH_ORDINALITY (Flink 2.1 adds it)")
	}
	if len(u.Args) != 1 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support UNNEST of %d collections: Flink's $UNNEST_ROWS$1 unnests one ARRAY, MAP or MULTISET", len(u.Args))
	}
	kind := x.Kind
	switch kind {
	case "", ast.CrossJoin, ast.InnerJoin:
		kind = ast.InnerJoin
	case ast.LeftJoin:
	default:
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support %s JOIN UNNEST: an UNNEST is joined by a comma, CROSS JOIN, [INNER] JOIN or LEFT JOIN ... ON TRUE", strings.ToUpper(string(kind)))
	}
	if len(x.Using) > 0 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support JOIN UNNEST ... USING: join an UNNEST ON TRUE and filter in WHERE")
	}
	if kind == ast.LeftJoin && (x.On == nil || !isTrueAST(x.On)) {
		// Calcite keeps a LEFT correlate's other ON conditions in a
		// Filter over the Uncollect, which Flink 1.20's correlate does not
		// plan; only ON TRUE is a LEFT JOIN UNNEST sqlrun runs.
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun supports LEFT JOIN UNNEST only with ON TRUE")
	}
	l, ls, err := b.bindFrom(x.Left)
	if err != nil {
		return nil, nil, err
	}
	arg, err := b.bindExpr(u.Args[0], ls, nil)
	if err != nil {
		return nil, nil, err
	}
	uncNames, _, elemTypes, ok := unnestColumns(arg.Type())
	if !ok {
		return nil, nil, validationErr(u.At, 1, "Cannot apply 'UNNEST' to arguments of type 'UNNEST(<%s>)'. Supported form(s): 'UNNEST(<MULTISET>)'\n'UNNEST(<ARRAY>)'\n'UNNEST(<MAP>)'",
			expr.CalciteTypeName(arg.Type()))
	}
	if len(u.Columns) > 0 && len(u.Columns) != len(uncNames) {
		return nil, nil, validationErr(u.At, 1, "List of column aliases must have same degree as table; table has %d columns %s, whereas alias list has %d columns",
			len(uncNames), "('"+strings.Join(uncNames, "', '")+"')", len(u.Columns))
	}
	leftNames := l.Names()
	// The AST's right side: Uncollect over LogicalProject($cor0.x) over
	// one-row Values, renamed by the aliases.
	argName := "EXPR$0"
	if r, ok := arg.(*InputRef); ok {
		argName = leftNames[r.Index]
	}
	values := &LogicalValues{base: row([]string{"ZERO"}, []sql.DataType{sql.Int().NotNull()}),
		Rows: [][]Expr{{&Literal{Value: int32(0), T: sql.Int().NotNull()}}}}
	cp := &correlatedProject{base: row([]string{argName}, []sql.DataType{arg.Type()}, values),
		digest: "LogicalProject(" + argName + "=[" + correlatedArg(arg, leftNames) + "])", arg: arg}
	var right Node = &Uncollect{base: row(uncNames, elemTypes, cp)}
	names := uncNames
	if len(u.Columns) > 0 {
		right = renamed(right, u.Columns)
		names = u.Columns
	}
	var required []int
	seen := map[int]bool{}
	refsInOrder(arg, seen, &required)
	slices.Sort(required)
	sc := &scope{}
	sc.cols = append(sc.cols, ls.cols...)
	sc.using = append(sc.using, ls.using...)
	types := append([]sql.DataType(nil), l.Types()...)
	for i, n := range names {
		t := elemTypes[i]
		if kind == ast.LeftJoin {
			t = t.WithNullable(true)
		}
		sc.cols = append(sc.cols, column{qualifier: u.Alias, name: n, t: t})
		types = append(types, t)
	}
	c := &LogicalTableCorrelate{base: row(uniquify(append(append([]string(nil), leftNames...), names...)), types, l, right),
		JoinType: kind, Required: required}
	var out Node = c
	if x.On != nil && !isTrueAST(x.On) {
		cond, err := b.bindExpr(x.On, sc, nil)
		if err != nil {
			return nil, nil, err
		}
		if cond.Type().Root != sql.TypeBoolean {
			return nil, nil, validationErr(x.On.Pos(), 1, "ON clause must be a condition")
		}
		out = &LogicalFilter{base: sameRow(c), Cond: cond}
	}
	return out, sc, nil
}

// isTrueAST reports the literal TRUE.
func isTrueAST(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && l.Value == true
}

// correlatedArg prints the collection argument as Calcite does inside the
// correlated side: the left row's fields as $cor0.name.
func correlatedArg(arg Expr, leftNames []string) string {
	if r, ok := arg.(*InputRef); ok {
		return "$cor0." + leftNames[r.Index]
	}
	cor := make([]string, len(leftNames))
	for i, n := range leftNames {
		cor[i] = "$cor0." + n
	}
	return FormatExpr(arg, cor, FormatPrefix)
}

// unnestRule is the Unnest rule (Flink's LogicalUnnestRule): the
// Uncollect side of a correlate becomes the $UNNEST_ROWS$1 table function
// scan; the alias projection over it, a rename only, goes (the correlate
// carries the function's field names, f0 or the row's fields, as Flink's
// plans show: Calc(select=[a, f0 AS s])).
func unnestRule(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalTableCorrelate)
	if !ok {
		return nil, nil
	}
	right := c.inputs[1]
	if p, ok := right.(*LogicalProject); ok {
		right = p.input()
	}
	unc, ok := right.(*Uncollect)
	if !ok {
		return nil, nil
	}
	left := c.inputs[0]
	leftNames := left.Names()
	if _, ok := unc.input().(*correlatedProject); !ok {
		return nil, nil
	}
	arg := c.argExpr()
	_, scanNames, elemTypes, _ := unnestColumns(arg.Type())
	inv := unnestFunc + "(" + correlatedArg(arg, leftNames) + ")"
	scan := &TableFunctionScan{base: row(scanNames, elemTypes), Args: []Expr{arg}, Invocation: inv, Call: inv}
	names := uniquify(append(append([]string(nil), leftNames...), scanNames...))
	out := &LogicalTableCorrelate{base: row(names, c.types, left, scan), JoinType: c.JoinType, Required: c.Required, Cond: c.Cond}
	return out, nil
}

// argExpr finds the collection argument of a correlate's UNNEST side.
func (n *LogicalTableCorrelate) argExpr() Expr {
	var found Expr
	Walk(n.inputs[1], func(m Node) {
		switch m := m.(type) {
		case *TableFunctionScan:
			found = m.Args[0]
		case *correlatedProject:
			if found == nil {
				found = m.arg
			}
		}
	})
	return found
}

// filterCorrelate is the FilterCorrelate rule (Calcite's
// FilterCorrelateRule): of a Calc's condition over an UNNEST correlate,
// the conjuncts that read the left side only go into a Calc over it, those
// that read the unnested fields only join the correlate's condition (an
// inner correlate's only: a LEFT one's unnested side generates NULLs),
// and the rest stays.
func filterCorrelate(_ *binder, n Node) (Node, error) {
	calc, ok := n.(*LogicalCalc)
	if !ok {
		return nil, nil
	}
	c, ok := calc.input().(*LogicalTableCorrelate)
	if !ok {
		return nil, nil
	}
	names := calc.names
	if identityExprs(calc.Exprs, len(c.names)) {
		// RelDecorrelator rebuilds the correlated query with a RelBuilder,
		// which drops a projection that only renames its input: the Calc
		// carries the correlate's names (UnnestTest.
		// testJoinWithUnnestOfTuple: Calc(select=[a, b, _1, _2], ...)).
		names = c.names
	}
	if calc.Cond == nil {
		if slices.Equal(names, calc.names) {
			return nil, nil
		}
		return &LogicalCalc{base: row(names, calc.types, c), Exprs: calc.Exprs, projected: calc.projected}, nil
	}
	nl := len(c.inputs[0].Names())
	var left, right, rest []Expr
	for _, e := range conjuncts(calc.Cond) {
		used := map[int]bool{}
		refs(e, used)
		onLeft, onRight := false, false
		for i := range used {
			if i < nl {
				onLeft = true
			} else {
				onRight = true
			}
		}
		switch {
		case onLeft && !onRight:
			left = append(left, e)
		case onRight && !onLeft && c.JoinType == ast.InnerJoin:
			m := map[int]int{}
			for i := range used {
				m[i] = i - nl
			}
			right = append(right, remap(e, m))
		default:
			rest = append(rest, e)
		}
	}
	if len(left) == 0 && len(right) == 0 {
		if slices.Equal(names, calc.names) {
			return nil, nil
		}
		return &LogicalCalc{base: row(names, calc.types, c), Exprs: calc.Exprs, Cond: calc.Cond, projected: calc.projected}, nil
	}
	out := *c
	out.base = c.with(append([]Node(nil), c.inputs...))
	if len(left) > 0 {
		in := c.inputs[0]
		out.inputs[0] = mergeCalc(&LogicalCalc{base: sameRow(in), Exprs: identity(in.Types()), Cond: and(left)})
	}
	if len(right) > 0 {
		var cs []Expr
		if c.Cond != nil {
			cs = conjuncts(c.Cond)
		}
		out.Cond = and(append(cs, right...))
	}
	var cond Expr
	if len(rest) > 0 {
		cond = and(rest)
	}
	return &LogicalCalc{base: row(names, calc.types, &out), Exprs: calc.Exprs, Cond: cond, projected: calc.projected}, nil
}

// identityExprs reports a projection of the n input fields in order.
func identityExprs(exprs []Expr, n int) bool {
	if len(exprs) != n {
		return false
	}
	for i, e := range exprs {
		if r, ok := e.(*InputRef); !ok || r.Index != i {
			return false
		}
	}
	return true
}

// convertCorrelate is StreamPhysicalCorrelateRule /
// BatchPhysicalCorrelateRule.
func (b *binder) convertCorrelate(r *LogicalTableCorrelate) (Node, error) {
	scan, ok := r.inputs[1].(*TableFunctionScan)
	if !ok {
		return nil, sql.Errorf(sql.TableException, "sqlrun cannot plan this UNNEST (no $UNNEST_ROWS$1 scan)")
	}
	in, err := b.convert(r.inputs[0])
	if err != nil {
		return nil, err
	}
	attrs := make([]string, len(r.inputs[0].Names()))
	for i := range attrs {
		attrs[i] = timeAttribute(r.inputs[0], i)
	}
	return &Correlate{base: row(r.names, r.types, in), Args: scan.Args, Replicate: scan.Replicate,
		Invocation: scan.Invocation, Call: scan.Call, Elem: scan.Args[0].Type(), ElemTypes: scan.types,
		JoinType: r.JoinType, Cond: r.Cond, timeAttrs: attrs}, nil
}
