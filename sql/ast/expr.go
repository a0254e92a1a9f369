package ast

import "github.com/sqlrun/sqlrun/sql"

// Expr is a scalar expression. Every expression knows where it starts and
// prints itself in Flink's SQL spelling (String).
type Expr interface {
	Pos() Pos
	String() string
	expr()
}

// ColumnRef is a column, optionally qualified by a table name or alias
// ("o.amount"). Names keep the case they were written in.
type ColumnRef struct {
	Node
	// Qualifier is the table (alias) part; for "db.t.c" it is "db.t".
	Qualifier string
	Name      string
}

// FieldAccess is a ROW field of an expression that is not a compound
// identifier, Calcite's DOT: (x).f, f(x).f, x[i].f, and the fourth and
// later names of a.b.c.d (a ColumnRef holds three at most).
type FieldAccess struct {
	Node
	X     Expr
	Field string
}

// LiteralKind is the lexical kind of a literal.
type LiteralKind int

// The literal kinds.
const (
	LitNull LiteralKind = iota
	LitBool
	LitInt
	LitDecimal
	LitFloat
	LitString
	LitBinary
	LitDate
	LitTime
	LitTimestamp
	LitInterval
)

var literalKindNames = [...]string{
	LitNull: "Null", LitBool: "Bool", LitInt: "Int", LitDecimal: "Decimal", LitFloat: "Float",
	LitString: "String", LitBinary: "Binary", LitDate: "Date", LitTime: "Time",
	LitTimestamp: "Timestamp", LitInterval: "Interval",
}

func (k LiteralKind) String() string {
	if int(k) >= 0 && int(k) < len(literalKindNames) {
		return literalKindNames[k]
	}
	return "LiteralKind(?)"
}

// IntervalValue is the value of an INTERVAL literal, in Flink's two
// interval families: year-month intervals count months, day-time intervals
// count milliseconds. Exactly one of the two is used, as Unit says.
type IntervalValue struct {
	Months int64
	Millis int64
	// Unit is the qualifier as written and upper-cased: "DAY", "SECOND",
	// "YEAR TO MONTH", "DAY TO SECOND", ...
	Unit string
}

// Literal is a constant. Raw is the source spelling ("100.00", "'PAID'",
// "DATE '2024-01-01'"); Value is the parsed value in the Go representation
// sql.Row uses for Type:
//
//	Null       nil                       Type NULL
//	Bool       bool                      BOOLEAN NOT NULL
//	Int        int32 or int64            INT NOT NULL if it fits, else BIGINT NOT NULL
//	Decimal    decimal.Decimal           DECIMAL(p, s) NOT NULL (digits as written)
//	Float      float64                   DOUBLE NOT NULL ("1.5E3")
//	String     string                    CHAR(n) NOT NULL (n = length in characters)
//	Binary     []byte                    BINARY(n) NOT NULL (X'0A0B')
//	Date       int32 days since epoch    DATE NOT NULL
//	Time       int32 millis of the day   TIME(p) NOT NULL
//	Timestamp  sql.TimestampData         TIMESTAMP(p) NOT NULL
//	Interval   IntervalValue             zero Type (sql has no interval type)
type Literal struct {
	Node
	Kind  LiteralKind
	Raw   string
	Value any
	Type  sql.DataType
}

// Param is a "?" placeholder; Index counts from 0 in order of appearance.
type Param struct {
	Node
	Index int
}

// UnaryOp is a prefix operator.
type UnaryOp string

// The prefix operators.
const (
	OpNeg    UnaryOp = "-"
	OpPlus   UnaryOp = "+"
	OpNot    UnaryOp = "NOT"
	OpBitNot UnaryOp = "~"
)

// Unary is a prefix operation.
type Unary struct {
	Node
	Op UnaryOp
	X  Expr
}

// BinaryOp is an infix operator.
type BinaryOp string

// The infix operators. "||" is string concatenation, as in Flink.
const (
	OpAdd           BinaryOp = "+"
	OpSub           BinaryOp = "-"
	OpMul           BinaryOp = "*"
	OpDiv           BinaryOp = "/"
	OpMod           BinaryOp = "%"
	OpEq            BinaryOp = "="
	OpNe            BinaryOp = "<>"
	OpLt            BinaryOp = "<"
	OpLe            BinaryOp = "<="
	OpGt            BinaryOp = ">"
	OpGe            BinaryOp = ">="
	OpAnd           BinaryOp = "AND"
	OpOr            BinaryOp = "OR"
	OpConcat        BinaryOp = "||"
	OpIsDistinct    BinaryOp = "IS DISTINCT FROM"
	OpIsNotDistinct BinaryOp = "IS NOT DISTINCT FROM"
	// OpOverlaps is (a, b) OVERLAPS (c, d), each side a ROW of two
	// values or one value.
	OpOverlaps BinaryOp = "OVERLAPS"
)

// Binary is an infix operation.
type Binary struct {
	Node
	Op   BinaryOp
	L, R Expr
}

// FuncCall is a function or aggregate call. Name is upper-cased and may be
// qualified ("SYS.COMPACT"); Star is COUNT(*).
type FuncCall struct {
	Node
	// Name is the function's name in upper case; Written is the name as
	// the query spelled it when that is not Name (empty for a name written
	// in upper case and for calls the parser makes up).
	Name     string
	Written  string
	Args     []Expr
	Distinct bool
	Star     bool
	// NoParens marks a niladic function written without parentheses
	// (LOCALTIME, not LOCALTIME()): Calcite parses it as an identifier,
	// which names its select item (SqlValidatorUtil.getAlias).
	NoParens bool
	// Filter is the condition of an aggregate's FILTER (WHERE cond); nil
	// for none.
	Filter Expr
	// Over is the window of an OVER aggregation or a ranking function
	// (ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC), Flink's
	// deduplication and Top-N); nil for plain calls.
	Over *WindowSpec
}

// WindowSpec is OVER ([PARTITION BY ...] [ORDER BY ...] [frame]).
type WindowSpec struct {
	Node
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *WindowFrame
}

// WindowFrame is "ROWS|RANGE BETWEEN start AND end" (End nil for the
// short form "ROWS start").
type WindowFrame struct {
	Node
	Rows  bool // ROWS; false for RANGE
	Start FrameBound
	End   *FrameBound
}

// FrameBound is one end of a window frame.
type FrameBound struct {
	// Kind is "UNBOUNDED PRECEDING", "PRECEDING", "CURRENT ROW",
	// "FOLLOWING" or "UNBOUNDED FOLLOWING".
	Kind string
	// Offset is the n of "n PRECEDING|FOLLOWING" (a number, or an INTERVAL
	// literal for RANGE).
	Offset Expr
}

// Cast is CAST(x AS type) or TRY_CAST(x AS type) (Try: NULL instead of an
// error when the value does not convert).
type Cast struct {
	Node
	X    Expr
	Type sql.DataType
	Try  bool
}

// When is one WHEN cond THEN result of CASE.
type When struct {
	Node
	Cond   Expr
	Result Expr
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END. With an Operand
// each When.Cond is compared to it for equality.
type Case struct {
	Node
	Operand Expr
	Whens   []When
	Else    Expr
}

// In is "x [NOT] IN (list)" or "x [NOT] IN (subquery)"; exactly one of List
// and Query is set.
type In struct {
	Node
	X     Expr
	List  []Expr
	Query QueryExpr
	Not   bool
}

// Between is "x [NOT] BETWEEN lo AND hi".
type Between struct {
	Node
	X, Lo, Hi Expr
	Not       bool
	// Symmetric is BETWEEN SYMMETRIC: Lo and Hi in either order.
	Symmetric bool
}

// Like is "x [NOT] LIKE pattern [ESCAPE e]" (Similar for SIMILAR TO).
type Like struct {
	Node
	X       Expr
	Pattern Expr
	Escape  Expr
	Not     bool
	Similar bool
	// CaseInsensitive is ILIKE.
	CaseInsensitive bool
}

// IsNull is "x IS [NOT] NULL".
type IsNull struct {
	Node
	X   Expr
	Not bool
}

// IsBool is "x IS [NOT] TRUE|FALSE|UNKNOWN"; Value is nil for UNKNOWN.
type IsBool struct {
	Node
	X     Expr
	Value *bool
	Not   bool
}

// Subquery is a scalar subquery "(SELECT ...)" used as an expression.
type Subquery struct {
	Node
	Query QueryExpr
}

// Exists is "[NOT] EXISTS (subquery)".
type Exists struct {
	Node
	Query QueryExpr
	Not   bool
}

// Item is "x[index]" (array element or map value).
type Item struct {
	Node
	X     Expr
	Index Expr
}

// TimeUnit is a unit keyword used as a function argument:
// EXTRACT(DAY FROM ts), TIMESTAMPDIFF(SECOND, a, b), TRIM(BOTH ...) mode.
type TimeUnit struct {
	Node
	Unit string // upper-cased: DAY, SECOND, ..., or BOTH/LEADING/TRAILING for TRIM
}

func (*TimeUnit) expr()    {}
func (*ColumnRef) expr()   {}
func (*FieldAccess) expr() {}
func (*Literal) expr()     {}
func (*Param) expr()       {}
func (*Unary) expr()       {}
func (*Binary) expr()      {}
func (*FuncCall) expr()    {}
func (*Cast) expr()        {}
func (*Case) expr()        {}
func (*In) expr()          {}
func (*Between) expr()     {}
func (*Like) expr()        {}
func (*IsNull) expr()      {}
func (*IsBool) expr()      {}
func (*Subquery) expr()    {}
func (*Exists) expr()      {}
func (*Item) expr()        {}
