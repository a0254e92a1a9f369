// Package catalog holds table descriptors and the catalogs that store them:
// the in-memory default_catalog (Flink's GenericInMemoryCatalog) and the SPI
// that the Paimon warehouse catalog implements. Names resolve through the
// current catalog and database, as in Flink.
package catalog

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Default names, as Flink's.
const (
	DefaultCatalog  = "default_catalog"
	DefaultDatabase = "default_database"
)

// Table describes one table: what CREATE TABLE declared.
type Table struct {
	// Schema holds the physical columns (what connectors read and write)
	// and the primary key; NonPhysical the computed and metadata columns
	// declared between them (Columns lists all in order).
	Schema        sql.Schema
	NonPhysical   []NonPhysicalColumn
	PartitionKeys []string
	// Options are the WITH options, in the user's spelling. Tables of a
	// catalog with a DefaultConnector may lack 'connector'.
	Options map[string]string
	Comment string
	// Watermark is the WATERMARK FOR clause, nil when absent. The planner
	// reads it; DESCRIBE and SHOW CREATE TABLE print it.
	Watermark *Watermark
	// View is set for a view (CREATE VIEW), nil for a table.
	View *View
	// Stored is what a catalog that owns its tables' storage read to
	// describe the table (a Paimon catalog: the table's latest schema), or
	// nil. The planner hands it to the table's connector
	// (connectors.Context.Stored), so the connector does not read it again
	// in the same statement, as Paimon's FlinkCatalog hands its
	// FileStoreTable to the table factory inside a DataCatalogTable.
	Stored any
}

// Watermark is "WATERMARK FOR column AS expr": the rowtime column and the
// watermark expression in Flink's SQL spelling.
type Watermark struct {
	Column string
	Expr   string
	// ExprAST is the parsed expression the planner binds; nil for a
	// watermark read back from storage that keeps only the text.
	ExprAST ast.Expr
}

// Clone returns a deep copy, so callers may change options without
// touching the catalog's copy. Stored belongs to the one read that
// described the table: a copy, which may be kept (an in-memory catalog's
// table, CREATE TABLE LIKE), does not carry it.
func (t *Table) Clone() *Table {
	c := *t
	c.Stored = nil
	c.Schema.Columns = append([]sql.Column(nil), t.Schema.Columns...)
	c.Schema.PrimaryKey = append([]string(nil), t.Schema.PrimaryKey...)
	c.PartitionKeys = append([]string(nil), t.PartitionKeys...)
	c.NonPhysical = append([]NonPhysicalColumn(nil), t.NonPhysical...)
	if t.Watermark != nil {
		w := *t.Watermark
		c.Watermark = &w
	}
	c.Options = make(map[string]string, len(t.Options))
	for k, v := range t.Options {
		c.Options[k] = v
	}
	return &c
}

// Errors callers branch on. Their messages are Flink's.
var (
	ErrTableNotExist    = errors.New("table does not exist")
	ErrTableExists      = errors.New("table already exists")
	ErrDatabaseNotExist = errors.New("database does not exist")
	ErrDatabaseExists   = errors.New("database already exists")
	ErrDatabaseNotEmpty = errors.New("database is not empty")
)

// TableNotExist builds Flink's "Table (or view) ... does not exist" error.
func TableNotExist(catalog, db, name string) error {
	return &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("Table (or view) %s.%s.%s does not exist.", catalog, db, name), Err: ErrTableNotExist}
}

// Catalog stores databases and tables. Implementations: the in-memory
// catalog here, the Paimon warehouse catalog in connectors/paimon.
type Catalog interface {
	ListDatabases() ([]string, error)
	DatabaseExists(db string) (bool, error)
	CreateDatabase(db string, ignoreIfExists bool) error
	DropDatabase(db string, ignoreIfNotExists, cascade bool) error
	ListTables(db string) ([]string, error)
	// GetTable returns an error wrapping ErrTableNotExist when absent.
	GetTable(db, name string) (*Table, error)
	CreateTable(db, name string, t *Table, ignoreIfExists bool) error
	DropTable(db, name string, ignoreIfNotExists bool) error
	// AlterTable replaces a table's descriptor (ALTER TABLE SET/RESET).
	AlterTable(db, name string, t *Table) error
}

// DefaultConnector is implemented by catalogs whose tables need no
// 'connector' option (Paimon's catalog: its tables are Paimon tables).
type DefaultConnector interface {
	DefaultConnector() string
}

// TablePather is implemented by catalogs that own their tables' storage
// (the Paimon warehouse: <warehouse>/<db>.db/<table>). TablePath is the
// table's directory, "" for a name that is not a valid path element; a
// system table's name (orders$snapshots) gives its base table's.
type TablePather interface {
	TablePath(db, name string) string
}

// SystemTabler is implemented by catalogs whose tables have system tables
// (Paimon's orders$snapshots). GetSystemTable resolves name as one: ok is
// false when it names no system table of an existing table (the caller
// keeps its "not found"); the table's options are the base table's.
type SystemTabler interface {
	GetSystemTable(db, name string) (t *Table, ok bool, err error)
}

// TimeTraveler is implemented by catalogs whose tables have versions
// (Flink's Catalog.getTable(ObjectPath, long timestamp), which Paimon's
// FlinkCatalog implements): GetTableAt returns the table as it was at the
// epoch-millisecond timestamp, with the columns it had then and the options
// that read it then. Time travel (FOR SYSTEM_TIME AS OF a constant) in
// other catalogs fails as the method's default does in Flink.
type TimeTraveler interface {
	GetTableAt(db, name string, timestampMillis int64) (*Table, error)
}

// DefaultDatabaser is implemented by catalogs that name the database USE
// CATALOG lands in (Paimon's 'default-database', "default"). Others land
// in default_database when they have it, else in their first database.
type DefaultDatabaser interface {
	DefaultDatabase() string
}

// Factory creates a catalog from CREATE CATALOG options.
type Factory func(name string, options map[string]string) (Catalog, error)

var factories = map[string]Factory{}

// RegisterFactory adds a catalog type ('type' option), e.g. "paimon".
func RegisterFactory(typ string, f Factory) { factories[typ] = f }

var scratchFactories = map[string]Factory{}

// RegisterScratchFactory adds the scratch form of a catalog type: a
// catalog over a copy-on-write view of its storage, whose writes stay in
// memory (the dry run of `sqlrun explain` opens catalogs this way).
func RegisterScratchFactory(typ string, f Factory) { scratchFactories[typ] = f }

// ScratchTypes are the catalog types with a scratch form, sorted.
func ScratchTypes() []string {
	types := make([]string, 0, len(scratchFactories))
	for t := range scratchFactories {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// NewScratchCatalog opens the scratch form of the catalog type named in
// options['type']; ok is false when the type has none.
func NewScratchCatalog(name string, options map[string]string) (c Catalog, ok bool, err error) {
	f, ok := scratchFactories[options["type"]]
	if !ok {
		return nil, false, nil
	}
	c, err = f(name, options)
	return c, true, err
}

// NewCatalog creates a catalog of the type named in options['type'].
func NewCatalog(name string, options map[string]string) (Catalog, error) {
	typ, ok := options["type"]
	if !ok {
		return nil, sql.Errorf(sql.ValidationException,
			"Catalog options do not contain an option key 'type' for discovering a catalog.")
	}
	f, ok := factories[typ]
	if !ok {
		if typ == "generic_in_memory" {
			return NewInMemory(DefaultDatabase), nil
		}
		return nil, sql.Errorf(sql.ValidationException,
			"Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.CatalogFactory' in the classpath.", typ)
	}
	return f(name, options)
}

// Procedures is implemented by catalogs that have stored procedures
// (Paimon's sys.compact, sys.expire_snapshots, ...): CALL sys.<name>(...)
// runs the current catalog's, as in Flink (Catalog.getProcedure); the
// in-memory default_catalog has none.
type Procedures interface {
	// Procedure returns the procedure of that name (lower case), ok false
	// when there is none.
	Procedure(name string) (p Procedure, ok bool)
}

// Procedure is one stored procedure of a catalog.
type Procedure struct {
	// Params are its parameters in positional order; named arguments use
	// these names.
	Params []string
	// Call runs it with its arguments (literals as text, absent ones
	// missing) and returns the text of its one-row `result` table.
	Call func(ctx ProcedureContext, args map[string]string) (string, error)
	// CallRows, when set instead of Call, returns the rows of a
	// one-column table named Column (a procedure whose Flink signature
	// returns ROW<Column STRING>[]).
	CallRows func(ctx ProcedureContext, args map[string]string) ([]string, error)
	Column   string
}

// ProcedureContext is what a procedure gets from the session that calls it.
type ProcedureContext struct {
	// Streaming is true in streaming runtime mode.
	Streaming bool
	// Now is the session's clock at the call.
	Now time.Time
	// Table resolves a table argument ('database.table', or 'table' in the
	// current database) as a query would (Manager.LocateTable).
	Table func(name string) (*LocatedTable, error)
}

// LocatedTable is a resolved table with what its catalog says about it:
// its connector and where it lives.
type LocatedTable struct {
	ID    connectors.ObjectIdentifier
	Table *Table
	// Connector is the 'connector' option, or the catalog's default.
	Connector string
	// Path is the 'path' option, or the catalog's TablePath; "" when
	// neither says.
	Path string
}
