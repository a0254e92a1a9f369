package ast

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// reservedWords are the Flink (Calcite) reserved words most likely to be
// used as names; printed names that collide with them are quoted so the
// text parses again.
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ALL ALTER AND ARRAY AS BETWEEN BY CASE CAST CREATE CROSS CURRENT DATE DAY
		DELETE DESCRIBE DISTINCT DROP ELSE END EXCEPT EXISTS FALSE FOR FROM FULL GROUP HAVING HOUR IN INNER INSERT
		INTERSECT INTERVAL INTO IS JOIN LEFT LIKE LIMIT LOCAL MAP MINUTE MONTH NATURAL NOT NULL OF OFFSET ON OR
		ORDER OUTER OVER PARTITION PRIMARY RANGE RIGHT ROW ROWS SECOND SELECT SET SYSTEM_TIME TABLE THEN TIME
		TIMESTAMP TO TRUE UNION UPDATE USER USING VALUE VALUES WHEN WHERE WINDOW WITH YEAR`) {
		reservedWords[w] = true
	}
}

// QuoteIdentIfNeeded returns name as is when it is a plain identifier
// (letters, digits, '_' and '$', not starting with a digit, not a reserved
// word: what the lexer reads as one word) and quoted with backticks otherwise, the way Flink prints names it
// has to re-parse.
func QuoteIdentIfNeeded(name string) string {
	if isPlainIdent(name) && !reservedWords[strings.ToUpper(name)] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && unicode.IsLetter(r):
		case (r >= '0' && r <= '9' || r > 127 && unicode.IsDigit(r)) && i > 0:
		default:
			return false
		}
	}
	return true
}

// QuoteString returns s as a SQL string literal, doubling quotes.
func QuoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Operator precedence for printing, loosely Calcite's: a child is
// parenthesized when it binds less tightly than its parent.
func precedence(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case OpOr:
			return 1
		case OpAnd:
			return 2
		case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpIsDistinct, OpIsNotDistinct, OpOverlaps:
			return 4
		case OpAdd, OpSub, OpConcat:
			return 5
		case OpMul, OpDiv, OpMod:
			return 6
		}
	case *Unary:
		if e.Op == OpNot {
			return 3
		}
		return 7
	case *In, *Between, *Like, *IsNull, *IsBool:
		return 4
	}
	return 10
}

func paren(e Expr, min int) string {
	if e == nil {
		return "<nil>"
	}
	s := e.String()
	if precedence(e) < min {
		return "(" + s + ")"
	}
	return s
}

func (e *ColumnRef) String() string {
	if e.Qualifier != "" {
		parts := strings.Split(e.Qualifier, ".")
		for i, p := range parts {
			parts[i] = QuoteIdentIfNeeded(p)
		}
		return strings.Join(parts, ".") + "." + QuoteIdentIfNeeded(e.Name)
	}
	return QuoteIdentIfNeeded(e.Name)
}

func (e *Literal) String() string {
	if e.Raw != "" {
		return e.Raw
	}
	switch v := e.Value.(type) {
	case nil:
		return "NULL"
	case bool:
		if v {
			return "TRUE"
		}
		return "FALSE"
	case string:
		return QuoteString(v)
	case []byte:
		return fmt.Sprintf("X'%X'", v)
	}
	return fmt.Sprint(e.Value)
}

func (e *Param) String() string { return "?" }

func (e *Unary) String() string {
	p := precedence(e)
	if e.Op == OpNot {
		return "NOT " + paren(e.X, p)
	}
	return string(e.Op) + paren(e.X, p+1)
}

func (e *Binary) String() string {
	p := precedence(e)
	return paren(e.L, p) + " " + string(e.Op) + " " + paren(e.R, p+1)
}

// Niladic reports a function Flink calls without parentheses.
func Niladic(name string) bool { return niladic[name] }

// niladic are the functions Flink calls without parentheses.
var niladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIME": true,
	"LOCALTIMESTAMP": true, "CURRENT_USER": true, "USER": true, "SESSION_USER": true,
}

func (e *TimeUnit) String() string { return e.Unit }

func (e *FuncCall) String() string {
	if e.Over != nil {
		c := *e
		c.Over = nil
		return c.String() + " OVER (" + e.Over.String() + ")"
	}
	if e.Filter != nil {
		c := *e
		c.Filter = nil
		return c.String() + " FILTER (WHERE " + e.Filter.String() + ")"
	}
	if len(e.Args) == 0 && !e.Star && niladic[e.Name] {
		return e.Name
	}
	if s, ok := jsonCallString(e); ok {
		return s
	}
	// The functions with keyword syntax print as written in Flink SQL.
	switch {
	case (e.Name == "ARRAY" || e.Name == "MAP") && !e.Distinct:
		return e.Name + "[" + joinExprs(e.Args) + "]"
	case e.Name == "EXTRACT" && len(e.Args) == 2:
		return "EXTRACT(" + exprString(e.Args[0]) + " FROM " + exprString(e.Args[1]) + ")"
	case (e.Name == "FLOOR" || e.Name == "CEIL" || e.Name == "CEILING") && len(e.Args) == 2 && isTimeUnit(e.Args[1]):
		return e.Name + "(" + exprString(e.Args[0]) + " TO " + exprString(e.Args[1]) + ")"
	case e.Name == "POSITION" && len(e.Args) == 2:
		return "POSITION(" + exprString(e.Args[0]) + " IN " + exprString(e.Args[1]) + ")"
	case e.Name == "TRIM" && len(e.Args) == 3:
		return "TRIM(" + exprString(e.Args[0]) + " " + exprString(e.Args[1]) + " FROM " + exprString(e.Args[2]) + ")"
	case (e.Name == "GROUPING_SETS" || e.Name == "ROLLUP" || e.Name == "CUBE") && !e.Distinct && !e.Star:
		// GROUP BY constructs the parser keeps as calls: a ROW is a set
		// "(a, b)", GROUPING_EMPTY() the empty set "()".
		name := e.Name
		if name == "GROUPING_SETS" {
			name = "GROUPING SETS"
		}
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = exprString(a)
			if r, ok := a.(*FuncCall); ok && r.Name == "ROW" && r.Over == nil && r.Filter == nil && !r.Distinct && !r.Star {
				parts[i] = "(" + joinExprs(r.Args) + ")"
			}
		}
		return name + " (" + strings.Join(parts, ", ") + ")"
	case e.Name == "GROUPING_EMPTY" && len(e.Args) == 0 && !e.Star:
		return "()"
	}
	var b strings.Builder
	b.WriteString(e.Name)
	b.WriteByte('(')
	if e.Distinct {
		b.WriteString("DISTINCT ")
	}
	if e.Star {
		b.WriteByte('*')
	}
	for i, a := range e.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(exprString(a))
	}
	b.WriteByte(')')
	return b.String()
}

func (e *Cast) String() string {
	fn := "CAST"
	if e.Try {
		fn = "TRY_CAST"
	}
	return fn + "(" + exprString(e.X) + " AS " + e.Type.String() + ")"
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if e.Operand != nil {
		b.WriteString(" " + e.Operand.String())
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + exprString(w.Cond) + " THEN " + exprString(w.Result))
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func not(n bool) string {
	if n {
		return "NOT "
	}
	return ""
}

func (e *In) String() string {
	var inner string
	if e.Query != nil {
		inner = FormatQuery(e.Query)
	} else {
		inner = joinExprs(e.List)
	}
	return paren(e.X, 5) + " " + not(e.Not) + "IN (" + inner + ")"
}

func (e *Between) String() string {
	sym := ""
	if e.Symmetric {
		sym = "SYMMETRIC "
	}
	return paren(e.X, 5) + " " + not(e.Not) + "BETWEEN " + sym + paren(e.Lo, 5) + " AND " + paren(e.Hi, 5)
}

func (e *Like) String() string {
	op := "LIKE"
	if e.CaseInsensitive {
		op = "ILIKE"
	}
	if e.Similar {
		op = "SIMILAR TO"
	}
	s := paren(e.X, 5) + " " + not(e.Not) + op + " " + paren(e.Pattern, 5)
	if e.Escape != nil {
		s += " ESCAPE " + paren(e.Escape, 5)
	}
	return s
}

func (e *IsNull) String() string { return paren(e.X, 5) + " IS " + not(e.Not) + "NULL" }

func (e *IsBool) String() string {
	v := "UNKNOWN"
	if e.Value != nil {
		v = "FALSE"
		if *e.Value {
			v = "TRUE"
		}
	}
	return paren(e.X, 5) + " IS " + not(e.Not) + v
}

func (e *Subquery) String() string { return "(" + FormatQuery(e.Query) + ")" }

func (e *Exists) String() string { return not(e.Not) + "EXISTS (" + FormatQuery(e.Query) + ")" }

func (e *Item) String() string { return paren(e.X, 10) + "[" + exprString(e.Index) + "]" }

// String prints a.b.c.d for a fourth name and (x).f otherwise, the forms
// that parse back to the same access.
func (e *FieldAccess) String() string {
	switch x := e.X.(type) {
	case *ColumnRef:
		if strings.Count(x.Qualifier, ".") == 1 {
			return x.String() + "." + QuoteIdentIfNeeded(e.Field)
		}
	case *FieldAccess:
		return x.String() + "." + QuoteIdentIfNeeded(e.Field)
	}
	return "(" + exprString(e.X) + ")." + QuoteIdentIfNeeded(e.Field)
}

// String prints the window's contents (without OVER and parentheses).
func (w *WindowSpec) String() string {
	var parts []string
	if len(w.PartitionBy) > 0 {
		parts = append(parts, "PARTITION BY "+joinExprs(w.PartitionBy))
	}
	if len(w.OrderBy) > 0 {
		var b strings.Builder
		formatTail(&b, w.OrderBy, nil, nil)
		parts = append(parts, strings.TrimSpace(b.String()))
	}
	if f := w.Frame; f != nil {
		kind := "RANGE"
		if f.Rows {
			kind = "ROWS"
		}
		if f.End == nil {
			parts = append(parts, kind+" "+f.Start.String())
		} else {
			parts = append(parts, kind+" BETWEEN "+f.Start.String()+" AND "+f.End.String())
		}
	}
	return strings.Join(parts, " ")
}

func (b FrameBound) String() string {
	if b.Offset != nil {
		return b.Offset.String() + " " + b.Kind
	}
	return b.Kind
}

func isTimeUnit(e Expr) bool {
	_, ok := e.(*TimeUnit)
	return ok
}

func exprString(e Expr) string {
	if e == nil {
		return "<nil>"
	}
	return e.String()
}

func joinExprs(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = exprString(e)
	}
	return strings.Join(s, ", ")
}

// FormatQuery prints a query body back as SQL on one line.
func FormatQuery(q QueryExpr) string {
	var b strings.Builder
	formatQuery(&b, q)
	return b.String()
}

func formatQuery(b *strings.Builder, q QueryExpr) {
	switch q := q.(type) {
	case *Select:
		b.WriteString("SELECT ")
		if h := FormatHints(q.Hints); h != "" {
			b.WriteString(h[1:] + " ")
		}
		if q.Distinct {
			b.WriteString("DISTINCT ")
		}
		for i, it := range q.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case it.Star && it.StarQualifier != "":
				b.WriteString(QuoteIdentIfNeeded(it.StarQualifier) + ".*")
			case it.Star:
				b.WriteByte('*')
			default:
				b.WriteString(exprString(it.Expr))
				if it.Alias != "" {
					b.WriteString(" AS " + QuoteIdentIfNeeded(it.Alias))
				}
			}
		}
		if q.From != nil {
			b.WriteString(" FROM ")
			formatTable(b, q.From)
		}
		if q.Where != nil {
			b.WriteString(" WHERE " + q.Where.String())
		}
		if len(q.GroupBy) > 0 {
			b.WriteString(" GROUP BY " + joinExprs(q.GroupBy))
		}
		if q.Having != nil {
			b.WriteString(" HAVING " + q.Having.String())
		}
		formatTail(b, q.OrderBy, q.Limit, q.Offset)
	case *SetOp:
		b.WriteByte('(')
		formatQuery(b, q.Left)
		b.WriteString(") " + string(q.Kind))
		if q.All {
			b.WriteString(" ALL")
		}
		b.WriteString(" (")
		formatQuery(b, q.Right)
		b.WriteByte(')')
		formatTail(b, q.OrderBy, q.Limit, q.Offset)
	case *Values:
		b.WriteString("VALUES ")
		for i, r := range q.Rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + joinExprs(r) + ")")
		}
	case *With:
		b.WriteString("WITH ")
		for i, c := range q.CTEs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(QuoteIdentIfNeeded(c.Name))
			if len(c.Columns) > 0 {
				b.WriteString(" (" + joinIdents(c.Columns) + ")")
			}
			b.WriteString(" AS (")
			formatQuery(b, c.Query)
			b.WriteByte(')')
		}
		b.WriteByte(' ')
		formatQuery(b, q.Body)
	case nil:
		b.WriteString("<nil>")
	}
}

func joinIdents(names []string) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = QuoteIdentIfNeeded(n)
	}
	return strings.Join(s, ", ")
}

func formatTail(b *strings.Builder, order []OrderItem, limit, offset *int64) {
	if len(order) > 0 {
		b.WriteString(" ORDER BY ")
		for i, o := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(exprString(o.Expr))
			if o.Desc {
				b.WriteString(" DESC")
			}
			if o.NullsFirst != nil {
				if *o.NullsFirst {
					b.WriteString(" NULLS FIRST")
				} else {
					b.WriteString(" NULLS LAST")
				}
			}
		}
	}
	if limit != nil {
		b.WriteString(" LIMIT " + strconv.FormatInt(*limit, 10))
	}
	if offset != nil {
		b.WriteString(" OFFSET " + strconv.FormatInt(*offset, 10))
	}
}

// FormatHints prints hints as " /*+ OPTIONS('k'='v') */", or "" for none.
func FormatHints(hs []Hint) string {
	if len(hs) == 0 {
		return ""
	}
	parts := make([]string, len(hs))
	for i, h := range hs {
		var args []string
		for _, p := range h.Params {
			args = append(args, QuoteIdentIfNeeded(p))
		}
		for _, o := range h.Options {
			args = append(args, QuoteString(o.Key)+"="+QuoteString(o.Value))
		}
		parts[i] = h.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return " /*+ " + strings.Join(parts, ", ") + " */"
}

func formatTable(b *strings.Builder, t TableExpr) {
	switch t := t.(type) {
	case *TableRef:
		b.WriteString(t.Name.String())
		b.WriteString(FormatHints(t.Hints))
		if t.SystemTimeAsOf != nil {
			b.WriteString(" FOR SYSTEM_TIME AS OF " + t.SystemTimeAsOf.String())
		}
		if t.Alias != "" {
			b.WriteString(" AS " + QuoteIdentIfNeeded(t.Alias))
		}
	case *Unnest:
		b.WriteString("UNNEST(" + joinExprs(t.Args) + ")")
		if t.WithOrdinality {
			b.WriteString(" WITH ORDINALITY")
		}
		if t.Alias != "" {
			b.WriteString(" AS " + QuoteIdentIfNeeded(t.Alias))
		}
		if len(t.Columns) > 0 {
			b.WriteString(" (" + joinIdents(t.Columns) + ")")
		}
	case *TableFunctionRef:
		b.WriteString("TABLE(" + t.Name + "(")
		for i, a := range t.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			if a.Name != "" {
				b.WriteString(QuoteIdentIfNeeded(a.Name) + " => ")
			}
			switch {
			case a.Table != nil:
				b.WriteString("TABLE " + a.Table.String())
			case a.Descriptor != nil:
				b.WriteString("DESCRIPTOR(" + joinIdents(a.Descriptor) + ")")
			default:
				b.WriteString(exprString(a.Expr))
			}
		}
		b.WriteString("))")
		if t.Alias != "" {
			b.WriteString(" AS " + QuoteIdentIfNeeded(t.Alias))
		}
	case *SubqueryRef:
		if t.Lateral {
			b.WriteString("LATERAL ")
		}
		b.WriteByte('(')
		formatQuery(b, t.Query)
		b.WriteByte(')')
		if t.Alias != "" {
			b.WriteString(" AS " + QuoteIdentIfNeeded(t.Alias))
		}
		if len(t.Columns) > 0 {
			b.WriteString(" (" + joinIdents(t.Columns) + ")")
		}
	case *Join:
		formatTable(b, t.Left)
		if t.Kind == CrossJoin && t.On == nil && len(t.Using) == 0 {
			b.WriteString(" CROSS JOIN ")
		} else {
			b.WriteString(" " + string(t.Kind) + " JOIN ")
		}
		if _, nested := t.Right.(*Join); nested {
			b.WriteByte('(')
			formatTable(b, t.Right)
			b.WriteByte(')')
		} else {
			formatTable(b, t.Right)
		}
		if t.On != nil {
			b.WriteString(" ON " + t.On.String())
		}
		if len(t.Using) > 0 {
			b.WriteString(" USING (" + joinIdents(t.Using) + ")")
		}
	}
}
