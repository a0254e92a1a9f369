package ast

// QueryExpr is a query body: *Select, *SetOp, *Values or *With.
type QueryExpr interface {
	Pos() Pos
	queryExpr()
}

// SelectItem is one item of a SELECT list: an expression with an optional
// alias, or a star (with an optional table qualifier, "t.*").
type SelectItem struct {
	Node
	Expr  Expr
	Alias string
	Star  bool
	// StarQualifier is the "t" of "t.*"; empty for a bare "*".
	StarQualifier string
}

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Node
	Expr Expr
	Desc bool
	// NullsFirst is nil when NULLS FIRST/LAST was not written.
	NullsFirst *bool
}

// Select is one SELECT block. OrderBy, Limit and Offset apply to its result.
type Select struct {
	Node
	// Hints are the query hints written after SELECT (/*+ BROADCAST(t) */).
	Hints    []Hint
	Distinct bool
	Items    []SelectItem
	// From is nil for "SELECT 1".
	From    TableExpr
	Where   Expr
	GroupBy []Expr
	Having  Expr
	OrderBy []OrderItem
	// Limit and Offset are nil when absent (FETCH FIRST n ROWS is Limit).
	Limit  *int64
	Offset *int64
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind string

// The set operations.
const (
	Union     SetOpKind = "UNION"
	Intersect SetOpKind = "INTERSECT"
	Except    SetOpKind = "EXCEPT"
)

// SetOp is "left UNION [ALL] right" (and INTERSECT / EXCEPT). OrderBy, Limit
// and Offset apply to the combined result.
type SetOp struct {
	Node
	Kind        SetOpKind
	All         bool
	Left, Right QueryExpr
	OrderBy     []OrderItem
	Limit       *int64
	Offset      *int64
}

// Values is VALUES (e, ...), (e, ...).
type Values struct {
	Node
	Rows [][]Expr
}

// CTE is one "name [(cols)] AS (query)" of a WITH clause.
type CTE struct {
	Node
	Name    string
	Columns []string
	Query   QueryExpr
}

// With is "WITH cte, ... body".
type With struct {
	Node
	CTEs []CTE
	Body QueryExpr
}

func (*Select) queryExpr() {}
func (*SetOp) queryExpr()  {}
func (*Values) queryExpr() {}
func (*With) queryExpr()   {}

// TableExpr is an item of FROM: *TableRef, *SubqueryRef or *Join.
type TableExpr interface {
	Pos() Pos
	tableExpr()
}

// TableRef is a named table with an optional alias and table hints
// ("orders /*+ OPTIONS('scan.mode'='latest-full') */ AS o").
type TableRef struct {
	Node
	Name  ObjectName
	Alias string
	Hints []Hint
	// SystemTimeAsOf is the expression of FOR SYSTEM_TIME AS OF (a lookup
	// or temporal join), nil otherwise.
	SystemTimeAsOf Expr
}

// SubqueryRef is "(query) [AS] alias [(cols)]" in FROM.
type SubqueryRef struct {
	Node
	Query   QueryExpr
	Alias   string
	Columns []string
	Lateral bool
}

// JoinKind is the join type.
type JoinKind string

// The join types.
const (
	InnerJoin JoinKind = "INNER"
	LeftJoin  JoinKind = "LEFT"
	RightJoin JoinKind = "RIGHT"
	FullJoin  JoinKind = "FULL"
	CrossJoin JoinKind = "CROSS"
)

// Join is "left [kind] JOIN right ON cond | USING (cols)"; a comma in FROM is
// a CrossJoin without condition.
type Join struct {
	Node
	Kind        JoinKind
	Left, Right TableExpr
	On          Expr
	Using       []string
}

// TableFunctionRef is a table-valued function in FROM, Flink's window
// TVFs: TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' MINUTES)).
type TableFunctionRef struct {
	Node
	Name  string // upper-cased: TUMBLE, HOP, CUMULATE, SESSION, ...
	Args  []TableFuncArg
	Alias string
}

// TableFuncArg is one argument of a table function: exactly one of Table,
// Descriptor and Expr is set; Name is set for a named argument
// (DATA => TABLE t).
type TableFuncArg struct {
	Node
	Name  string
	Table *ObjectName
	// Partition is TABLE t PARTITION BY's keys.
	Partition  []string
	Descriptor []string
	Expr       Expr
}

// Unnest is UNNEST(array [, ...]) [WITH ORDINALITY] [AS t (cols)] in FROM,
// usually after CROSS JOIN to expand a column of the left side.
type Unnest struct {
	Node
	Args           []Expr
	WithOrdinality bool
	Alias          string
	Columns        []string
}

func (*Unnest) tableExpr()           {}
func (*TableFunctionRef) tableExpr() {}
func (*TableRef) tableExpr()         {}
func (*SubqueryRef) tableExpr()      {}
func (*Join) tableExpr()             {}
