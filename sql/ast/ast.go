// Package ast is sqlrun's syntax tree for the Flink SQL dialect.
//
// It is produced only by sql/parser and consumed by the planner, the catalog
// and the session. It is our own tree: nothing outside sql/parser sees the
// TiDB parser that reads query bodies, so the rest of the code depends only on
// the shapes below.
//
// The tree is made of sum types closed by unexported marker methods
// (Statement, QueryExpr, TableExpr, Expr), in the style of vitess. Every node
// an error may point to carries a Pos (1-based line and column within the
// statement text), and every statement carries its original Text, which the
// session shows in errors, EXPLAIN and job names.
//
// Nodes are plain data: the parser builds them and nobody mutates them
// afterwards, so they may be shared freely between goroutines.
package ast

import (
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// Pos is a 1-based line and column. Within a statement it is relative to the
// statement's Text; the script parser also reports file positions in its
// errors. The zero Pos means "unknown".
type Pos struct {
	Line, Col int
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String prints "line L, column C", the way Flink's parser errors name places.
func (p Pos) String() string { return fmt.Sprintf("line %d, column %d", p.Line, p.Col) }

// Node is embedded in every node that is not a statement; At is where the
// node starts.
type Node struct {
	At Pos
}

// Pos returns where the node starts.
func (n Node) Pos() Pos { return n.At }

// StmtBase is embedded in every statement: where the statement starts and
// its original text (without the terminating ';').
type StmtBase struct {
	At   Pos
	Text string
}

// Pos returns where the statement starts.
func (s StmtBase) Pos() Pos { return s.At }

// SQL returns the statement's original text.
func (s StmtBase) SQL() string { return s.Text }

// Statement is one top-level statement.
type Statement interface {
	Pos() Pos
	// SQL returns the original text of the statement.
	SQL() string
	stmt()
}

// ObjectName is a possibly qualified table (or other object) name, with the
// parts exactly as written: an unqualified name has only Table set. The
// catalog resolves missing parts through the current catalog and database.
// Identifier case is kept as written, as Flink does.
type ObjectName struct {
	Node
	Catalog  string
	Database string
	Table    string
}

// Parts returns the non-empty parts in order.
func (n ObjectName) Parts() []string {
	var p []string
	if n.Catalog != "" {
		p = append(p, n.Catalog)
	}
	if n.Database != "" {
		p = append(p, n.Database)
	}
	return append(p, n.Table)
}

// String joins the parts with dots, quoting a part with backticks only when
// it is not a plain identifier.
func (n ObjectName) String() string {
	parts := n.Parts()
	for i, p := range parts {
		parts[i] = QuoteIdentIfNeeded(p)
	}
	return strings.Join(parts, ".")
}

// IsZero reports an absent name.
func (n ObjectName) IsZero() bool { return n.Table == "" && n.Database == "" && n.Catalog == "" }

// Option is one 'key' = 'value' pair of a WITH (...) clause, an OPTIONS hint,
// SET or a PARTITION spec. Options keep their order of declaration, because
// SHOW CREATE TABLE prints them back in that order.
type Option struct {
	Node
	Key   string
	Value string
}

// Hint is a /*+ NAME(...) */ hint. OPTIONS('k'='v', ...) fills Options (the
// dynamic table options); other hints (e.g. LOOKUP, BROADCAST) keep their
// plain parameters in Params and any key-value parameters in Options.
type Hint struct {
	Node
	Name    string // upper-cased
	Options []Option
	Params  []string
}

// ColumnDef is one column of CREATE TABLE. A physical column has Type; a
// computed column ("c AS expr") has Expr; a metadata column has Metadata set.
type ColumnDef struct {
	Node
	Name string
	// Type is the declared type. Columns of the primary key are NOT NULL,
	// as Flink makes them, even when the DDL did not say so.
	Type    sql.DataType
	Comment string
	// Expr is the expression of a computed column, nil otherwise.
	Expr Expr
	// Metadata is true for "c TYPE METADATA [FROM 'key'] [VIRTUAL]".
	Metadata    bool
	MetadataKey string
	Virtual     bool
}

// WatermarkDef is "WATERMARK FOR rowtime AS expr".
type WatermarkDef struct {
	Node
	Column string
	Expr   Expr
}

// LikeOption is one "INCLUDING|EXCLUDING|OVERWRITING ALL|CONSTRAINTS|
// PARTITIONS|OPTIONS|WATERMARKS|GENERATED|METADATA" of a LIKE clause.
type LikeOption struct {
	Node
	Strategy string // INCLUDING, EXCLUDING or OVERWRITING
	Feature  string // ALL, CONSTRAINTS, PARTITIONS, OPTIONS, WATERMARKS, GENERATED, METADATA
}

// LikeClause is "LIKE source [(options)]" of CREATE TABLE.
type LikeClause struct {
	Node
	Source  ObjectName
	Options []LikeOption
}

// CreateTable is CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (...)
// [COMMENT '...'] [DISTRIBUTED ...] [PARTITIONED BY (...)] WITH (...)
// [LIKE src (...)].
type CreateTable struct {
	StmtBase
	Temporary   bool
	IfNotExists bool
	Name        ObjectName
	Columns     []ColumnDef
	// PrimaryKey names the key columns in declaration order (always NOT
	// ENFORCED: the parser rejects ENFORCED keys with Flink's message).
	PrimaryKey []string
	// PrimaryKeyName is the CONSTRAINT name when one was given.
	PrimaryKeyName string
	Watermark      *WatermarkDef
	Comment        string
	// Distribution is DISTRIBUTED BY/INTO (Flink 1.20, FLIP-376); nil for
	// none.
	Distribution  *Distribution
	PartitionedBy []string
	Options       []Option
	Like          *LikeClause
	// AsQuery is the query of CREATE TABLE ... AS SELECT (CTAS), nil
	// otherwise.
	AsQuery QueryExpr
}

// Distribution is a table's bucketing, Flink's SqlDistribution:
// DISTRIBUTED BY [HASH | RANGE] (cols) [INTO n BUCKETS] or DISTRIBUTED
// INTO n BUCKETS.
type Distribution struct {
	Node
	Kind    string   // "HASH", "RANGE" or "" (the connector's default)
	Columns []string // empty for DISTRIBUTED INTO n BUCKETS
	Buckets int      // 0 when INTO n BUCKETS is not given
}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(cols)]
// [COMMENT '...'] AS query.
type CreateView struct {
	StmtBase
	Temporary   bool
	IfNotExists bool
	Name        ObjectName
	Columns     []string
	Comment     string
	Query       QueryExpr
}

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS] name.
type DropView struct {
	StmtBase
	Temporary bool
	IfExists  bool
	Name      ObjectName
}

// DropTable is DROP [TEMPORARY] TABLE [IF EXISTS] name.
type DropTable struct {
	StmtBase
	Temporary bool
	IfExists  bool
	Name      ObjectName
}

// AlterTableSet is ALTER TABLE name SET ('k' = 'v', ...).
type AlterTableSet struct {
	StmtBase
	Name    ObjectName
	Options []Option
}

// AlterTableReset is ALTER TABLE name RESET ('k', ...).
type AlterTableReset struct {
	StmtBase
	Name ObjectName
	Keys []string
}

// AlterTableRename is ALTER TABLE name RENAME TO new.
type AlterTableRename struct {
	StmtBase
	Name    ObjectName
	NewName ObjectName
}

// ColumnChange is one column of ALTER TABLE ADD/MODIFY with its optional
// place: FIRST or AFTER col.
type ColumnChange struct {
	Column ColumnDef
	First  bool
	After  string
}

// AlterTableAddColumns is ALTER TABLE t ADD (col TYPE [FIRST|AFTER c], ...)
// (or ADD col TYPE without parentheses). Paimon applies it as schema
// evolution.
type AlterTableAddColumns struct {
	StmtBase
	Name    ObjectName
	Columns []ColumnChange
}

// AlterTableModifyColumns is ALTER TABLE t MODIFY (col TYPE ..., ...).
type AlterTableModifyColumns struct {
	StmtBase
	Name    ObjectName
	Columns []ColumnChange
}

// AlterTableDropColumns is ALTER TABLE t DROP (c1, c2) or DROP c1.
type AlterTableDropColumns struct {
	StmtBase
	Name    ObjectName
	Columns []string
}

// AlterTableRenameColumn is ALTER TABLE t RENAME old TO new.
type AlterTableRenameColumn struct {
	StmtBase
	Name     ObjectName
	Old, New string
}

// CreateCatalog is CREATE CATALOG [IF NOT EXISTS] name WITH (...).
type CreateCatalog struct {
	StmtBase
	IfNotExists bool
	Name        string
	Options     []Option
}

// DropCatalog is DROP CATALOG [IF EXISTS] name.
type DropCatalog struct {
	StmtBase
	IfExists bool
	Name     string
}

// UseCatalog is USE CATALOG name.
type UseCatalog struct {
	StmtBase
	Name string
}

// CreateDatabase is CREATE DATABASE [IF NOT EXISTS] [cat.]db [COMMENT '...']
// [WITH (...)]. Catalog is empty unless the name was qualified.
type CreateDatabase struct {
	StmtBase
	IfNotExists bool
	Catalog     string
	Name        string
	Comment     string
	Options     []Option
}

// DropDatabase is DROP DATABASE [IF EXISTS] [cat.]db [RESTRICT|CASCADE].
type DropDatabase struct {
	StmtBase
	IfExists bool
	Catalog  string
	Name     string
	Cascade  bool
}

// UseDatabase is USE [cat.]db.
type UseDatabase struct {
	StmtBase
	Catalog string
	Name    string
}

// ShowKind says what SHOW lists.
type ShowKind int

// The SHOW forms.
const (
	ShowCatalogs ShowKind = iota
	ShowDatabases
	ShowTables
	ShowCreateTable
	ShowJobs
	ShowCurrentCatalog
	ShowCurrentDatabase
	ShowFunctions
	ShowViews
	ShowColumns
	ShowCreateView
)

var showKindNames = [...]string{
	ShowCatalogs:        "CATALOGS",
	ShowDatabases:       "DATABASES",
	ShowTables:          "TABLES",
	ShowCreateTable:     "CREATE TABLE",
	ShowJobs:            "JOBS",
	ShowCurrentCatalog:  "CURRENT CATALOG",
	ShowCurrentDatabase: "CURRENT DATABASE",
	ShowFunctions:       "FUNCTIONS",
	ShowViews:           "VIEWS",
	ShowColumns:         "COLUMNS",
	ShowCreateView:      "CREATE VIEW",
}

func (k ShowKind) String() string {
	if int(k) >= 0 && int(k) < len(showKindNames) {
		return showKindNames[k]
	}
	return fmt.Sprintf("ShowKind(%d)", int(k))
}

// Show is SHOW CATALOGS | DATABASES | TABLES [FROM|IN db] [[NOT] LIKE 'p'] |
// CREATE TABLE t | CREATE VIEW v | COLUMNS FROM t | JOBS | CURRENT CATALOG | CURRENT
// DATABASE | [USER] FUNCTIONS | VIEWS.
type Show struct {
	StmtBase
	Kind ShowKind
	// Table is the table of SHOW CREATE TABLE and SHOW COLUMNS (the view
	// of SHOW CREATE VIEW); for SHOW
	// TABLES FROM db, Table holds the database as Table (and its catalog as
	// Database).
	Table ObjectName
	// Like is the pattern of [NOT] LIKE / ILIKE, empty when absent.
	Like    string
	NotLike bool
	ILike   bool
	// User is SHOW USER FUNCTIONS.
	User bool
}

// Describe is DESCRIBE [EXTENDED] t or DESC t.
type Describe struct {
	StmtBase
	Name     ObjectName
	Extended bool
}

// Set is SET (list all) or SET 'key' = 'value'. Key is empty for the bare
// form.
type Set struct {
	StmtBase
	Key   string
	Value string
}

// Reset is RESET (everything) or RESET 'key'. Key is empty for the bare
// form.
type Reset struct {
	StmtBase
	Key string
}

// PartitionValue is one "col = literal" of INSERT ... PARTITION (...).
type PartitionValue struct {
	Node
	Column string
	Value  *Literal
}

// Insert is INSERT INTO | OVERWRITE t [/*+ hints */] [PARTITION (...)]
// [(cols)] query.
type Insert struct {
	StmtBase
	Overwrite bool
	Table     ObjectName
	// Hints are the table hints written after the target table.
	Hints []Hint
	// Partition is the static PARTITION (k = v, ...) spec, if any.
	Partition []PartitionValue
	// Columns is the explicit target column list, nil when absent.
	Columns []string
	Query   QueryExpr
}

// StatementSet is EXECUTE STATEMENT SET BEGIN insert; ... END (also written
// BEGIN STATEMENT SET; ... END;). All inserts run as one job.
type StatementSet struct {
	StmtBase
	Inserts []*Insert
}

// Query is a query statement: SELECT, VALUES, a set operation or a WITH.
type Query struct {
	StmtBase
	Body QueryExpr
}

// Explain is EXPLAIN [PLAN FOR | detail, ...] stmt. Details are upper-cased:
// CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN, PLAN_ADVICE.
type Explain struct {
	StmtBase
	Details []string
	Stmt    Statement
}

// Delete is DELETE FROM t [WHERE cond] (batch mode in Flink).
type Delete struct {
	StmtBase
	Table ObjectName
	Where Expr
}

// Assignment is "col = expr" of UPDATE ... SET.
type Assignment struct {
	Node
	Column string
	Value  Expr
}

// Update is UPDATE t SET c = e, ... [WHERE cond] (batch mode in Flink).
type Update struct {
	StmtBase
	Table ObjectName
	Sets  []Assignment
	Where Expr
}

// StopJob is STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN].
type StopJob struct {
	StmtBase
	ID            string
	WithSavepoint bool
	WithDrain     bool
}

// Call is CALL proc(args...), e.g. CALL sys.compact('db.t') or, with
// named arguments, CALL sys.compact(`table` => 'db.t').
type Call struct {
	StmtBase
	Procedure ObjectName
	Args      []Expr
	// ArgNames parallels Args when named arguments were used ("" for a
	// positional one); nil when none was named.
	ArgNames []string
}

// Quit is QUIT or EXIT (shell only).
type Quit struct {
	StmtBase
}

// Help is HELP (shell only).
type Help struct {
	StmtBase
}

// Clear is CLEAR (shell only: clears the terminal).
type Clear struct {
	StmtBase
}

func (*CreateTable) stmt()      {}
func (*DropTable) stmt()        {}
func (*CreateView) stmt()       {}
func (*DropView) stmt()         {}
func (*AlterTableSet) stmt()    {}
func (*AlterTableReset) stmt()  {}
func (*AlterTableRename) stmt() {}

func (*AlterTableAddColumns) stmt()    {}
func (*AlterTableModifyColumns) stmt() {}
func (*AlterTableDropColumns) stmt()   {}
func (*AlterTableRenameColumn) stmt()  {}
func (*CreateCatalog) stmt()           {}
func (*DropCatalog) stmt()             {}
func (*UseCatalog) stmt()              {}
func (*CreateDatabase) stmt()          {}
func (*DropDatabase) stmt()            {}
func (*UseDatabase) stmt()             {}
func (*Show) stmt()                    {}
func (*Describe) stmt()                {}
func (*Set) stmt()                     {}
func (*Reset) stmt()                   {}
func (*Insert) stmt()                  {}
func (*StatementSet) stmt()            {}
func (*Query) stmt()                   {}
func (*Explain) stmt()                 {}
func (*Delete) stmt()                  {}
func (*Update) stmt()                  {}
func (*StopJob) stmt()                 {}
func (*Call) stmt()                    {}
func (*Quit) stmt()                    {}
func (*Help) stmt()                    {}
func (*Clear) stmt()                   {}
