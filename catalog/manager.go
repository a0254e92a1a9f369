package catalog

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// ErrCatalogNotExist is wrapped by errors about unknown catalogs.
var ErrCatalogNotExist = errors.New("catalog does not exist")

// Serializable prints an identifier as Flink's
// ObjectIdentifier.asSerializableString does: `cat`.`db`.`name`.
func Serializable(id connectors.ObjectIdentifier) string {
	return sql.QuoteIdentifier(id.Catalog) + "." + sql.QuoteIdentifier(id.Database) + "." + sql.QuoteIdentifier(id.Name)
}

// Manager is the session's view of its catalogs, as Flink's
// CatalogManager: catalogs by name, the current catalog and database that
// complete partial names, and temporary tables, which live in the session
// (not in any catalog) and shadow permanent tables of the same name.
//
// All methods are safe for concurrent use: the shell's completer reads
// table names while a statement runs.
type Manager struct {
	mu        sync.RWMutex
	catalogs  map[string]Catalog
	current   string
	currentDB string
	temporary map[connectors.ObjectIdentifier]*Table
	// Open builds the catalog of a CREATE CATALOG; nil is NewCatalog. A
	// session that must change nothing (EXPLAIN of a script) opens
	// catalogs over a scratch overlay instead.
	Open Factory
}

// NewManager creates a manager holding default_catalog, an in-memory
// catalog with default_database, which is current.
func NewManager() *Manager {
	return &Manager{
		catalogs:  map[string]Catalog{DefaultCatalog: NewInMemory(DefaultDatabase)},
		current:   DefaultCatalog,
		currentDB: DefaultDatabase,
		temporary: map[connectors.ObjectIdentifier]*Table{},
	}
}

// CurrentCatalog names the current catalog.
func (m *Manager) CurrentCatalog() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.current
}

// CurrentDatabase names the current database.
func (m *Manager) CurrentDatabase() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.currentDB
}

// ListCatalogs lists catalog names, sorted (SHOW CATALOGS).
func (m *Manager) ListCatalogs() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.catalogs))
	for n := range m.catalogs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Catalog returns a catalog by name.
func (m *Manager) Catalog(name string) (Catalog, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.catalogLocked(name)
}

func (m *Manager) catalogLocked(name string) (Catalog, error) {
	c, ok := m.catalogs[name]
	if !ok {
		return nil, &sql.Error{Class: sql.CatalogException,
			Msg: fmt.Sprintf("A catalog with name [%s] does not exist.", name), Err: ErrCatalogNotExist}
	}
	return c, nil
}

// RegisterCatalog adds a catalog under name.
func (m *Manager) RegisterCatalog(name string, c Catalog, ignoreIfExists bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.catalogs[name]; ok {
		if ignoreIfExists {
			return nil
		}
		return sql.Errorf(sql.CatalogException, "Catalog %s already exists.", name)
	}
	m.catalogs[name] = c
	return nil
}

// CreateCatalog is CREATE CATALOG: it builds the catalog through
// NewCatalog (which picks the factory by the 'type' option) and registers
// it. The options are not kept: SHOW CREATE CATALOG is not supported.
func (m *Manager) CreateCatalog(name string, options map[string]string, ignoreIfExists bool) error {
	m.mu.RLock()
	_, exists := m.catalogs[name]
	m.mu.RUnlock()
	if exists {
		if ignoreIfExists {
			return nil
		}
		return sql.Errorf(sql.CatalogException, "Catalog %s already exists.", name)
	}
	open := m.Open
	if open == nil {
		open = NewCatalog
	}
	c, err := open(name, options)
	if err != nil {
		// The shell prints the deepest *sql.Error; a plain cause (say, a
		// warehouse path that is a file) would otherwise vanish behind
		// the summary, so it becomes the reported root cause.
		if sql.RootCause(err) == nil {
			err = &sql.Error{Class: sql.CatalogException, Msg: err.Error(), Err: err}
		}
		return &sql.Error{Class: sql.ValidationException,
			Msg: fmt.Sprintf("Could not execute CREATE CATALOG: (catalogName: [%s], properties: [%s])", name, formatProperties(options)),
			Err: err}
	}
	return m.RegisterCatalog(name, c, ignoreIfExists)
}

// formatProperties prints catalog options as Flink's CreateCatalogOperation
// summary does ({k=v, ...}), with sensitive values masked.
func formatProperties(options map[string]string) string {
	masked := connectors.MaskOptions(options)
	keys := make([]string, 0, len(masked))
	for k := range masked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + masked[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// DropCatalog is DROP CATALOG. The current catalog cannot be dropped, as
// in Flink.
func (m *Manager) DropCatalog(name string, ignoreIfNotExists bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.catalogs[name]; !ok {
		if ignoreIfNotExists {
			return nil
		}
		return &sql.Error{Class: sql.ValidationException,
			Msg: fmt.Sprintf("Catalog %s does not exist.", name), Err: ErrCatalogNotExist}
	}
	if name == m.current {
		return sql.Errorf(sql.CatalogException, "Cannot drop a catalog which is currently in use.")
	}
	delete(m.catalogs, name)
	return nil
}

// UseCatalog makes name current; the current database becomes that
// catalog's default (its first database, default_database when present).
func (m *Manager) UseCatalog(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := m.catalogLocked(name)
	if err != nil {
		return err
	}
	db, err := defaultDatabase(c)
	if err != nil {
		return fmt.Errorf("use catalog %s: %w", name, err)
	}
	m.current, m.currentDB = name, db
	return nil
}

// defaultDatabase picks the database a USE CATALOG lands in: the
// catalog's own default (DefaultDatabaser, as Flink's
// Catalog.getDefaultDatabase), else default_database when it exists, else
// the first database.
func defaultDatabase(c Catalog) (string, error) {
	if d, ok := c.(DefaultDatabaser); ok {
		return d.DefaultDatabase(), nil
	}
	if ok, err := c.DatabaseExists(DefaultDatabase); err != nil {
		return "", err
	} else if ok {
		return DefaultDatabase, nil
	}
	dbs, err := c.ListDatabases()
	if err != nil {
		return "", err
	}
	if len(dbs) == 0 {
		return "", nil
	}
	return dbs[0], nil
}

// UseDatabase is USE [cat.]db.
func (m *Manager) UseDatabase(catalogName, db string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if catalogName == "" {
		catalogName = m.current
	}
	c, err := m.catalogLocked(catalogName)
	if err != nil {
		return err
	}
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return fmt.Errorf("use database %s: %w", db, err)
	}
	if !ok {
		return &sql.Error{Class: sql.CatalogException,
			Msg: fmt.Sprintf("A database with name [%s] does not exist in the catalog: [%s].", db, catalogName),
			Err: ErrDatabaseNotExist}
	}
	m.current, m.currentDB = catalogName, db
	return nil
}

// ListDatabases lists the current catalog's databases (SHOW DATABASES).
func (m *Manager) ListDatabases() ([]string, error) {
	c, err := m.Catalog(m.CurrentCatalog())
	if err != nil {
		return nil, err
	}
	return c.ListDatabases()
}

// CreateDatabase is CREATE DATABASE [IF NOT EXISTS] [cat.]db.
func (m *Manager) CreateDatabase(catalogName, db string, ignoreIfExists bool) error {
	if catalogName == "" {
		catalogName = m.CurrentCatalog()
	}
	c, err := m.Catalog(catalogName)
	if err != nil {
		return err
	}
	if err := c.CreateDatabase(db, ignoreIfExists); err != nil {
		if errors.Is(err, ErrDatabaseExists) {
			return &sql.Error{Class: sql.ValidationException, Msg: "Could not execute CREATE DATABASE: " + createDBSummary(catalogName, db, ignoreIfExists),
				Err: &sql.Error{Class: sql.DatabaseAlreadyExistException,
					Msg: fmt.Sprintf("Database %s already exists in Catalog %s.", db, catalogName), Err: ErrDatabaseExists}}
		}
		return fmt.Errorf("create database %s.%s: %w", catalogName, db, err)
	}
	return nil
}

func createDBSummary(catalogName, db string, ignore bool) string {
	return fmt.Sprintf("(catalogDatabase: [{}], catalogName: [%s], databaseName: [%s], ignoreIfExists: [%t])", catalogName, db, ignore)
}

// DropDatabase is DROP DATABASE [IF EXISTS] [cat.]db [CASCADE]. The
// current database cannot be dropped.
func (m *Manager) DropDatabase(catalogName, db string, ignoreIfNotExists, cascade bool) error {
	if catalogName == "" {
		catalogName = m.CurrentCatalog()
	}
	if catalogName == m.CurrentCatalog() && db == m.CurrentDatabase() {
		return sql.Errorf(sql.ValidationException, "Cannot drop a database which is currently in use.")
	}
	c, err := m.Catalog(catalogName)
	if err != nil {
		return err
	}
	if err := c.DropDatabase(db, ignoreIfNotExists, cascade); err != nil {
		switch {
		case errors.Is(err, ErrDatabaseNotExist):
			return &sql.Error{Class: sql.DatabaseNotExistException,
				Msg: fmt.Sprintf("Database %s does not exist in Catalog %s.", db, catalogName), Err: ErrDatabaseNotExist}
		case errors.Is(err, ErrDatabaseNotEmpty):
			return &sql.Error{Class: sql.DatabaseNotEmptyException,
				Msg: fmt.Sprintf("Database %s in catalog %s is not empty.", db, catalogName), Err: ErrDatabaseNotEmpty}
		}
		return fmt.Errorf("drop database %s.%s: %w", catalogName, db, err)
	}
	m.mu.Lock()
	for id := range m.temporary {
		if cascade && id.Catalog == catalogName && id.Database == db {
			delete(m.temporary, id)
		}
	}
	m.mu.Unlock()
	return nil
}

// Qualify completes a name with the current catalog and database, as
// Flink's CatalogManager.qualifyIdentifier does.
func (m *Manager) Qualify(n ast.ObjectName) connectors.ObjectIdentifier {
	m.mu.RLock()
	defer m.mu.RUnlock()
	id := connectors.ObjectIdentifier{Catalog: n.Catalog, Database: n.Database, Name: n.Table}
	if id.Catalog == "" {
		id.Catalog = m.current
	}
	if id.Database == "" {
		id.Database = m.currentDB
	}
	return id
}

// ResolvedTable is a table found by its identifier.
type ResolvedTable struct {
	ID        connectors.ObjectIdentifier
	Table     *Table
	Temporary bool
}

// GetTable finds a table by its full identifier: a temporary table first,
// then the catalog's. A missing table returns an error wrapping
// ErrTableNotExist (callers put their own Flink message around it).
func (m *Manager) GetTable(id connectors.ObjectIdentifier) (*ResolvedTable, error) {
	m.mu.RLock()
	t, ok := m.temporary[id]
	m.mu.RUnlock()
	if ok {
		return &ResolvedTable{ID: id, Table: t.Clone(), Temporary: true}, nil
	}
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", id, ErrTableNotExist)
	}
	t, err = c.GetTable(id.Database, id.Name)
	if err != nil {
		if errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist) {
			return nil, fmt.Errorf("table %s: %w", id, ErrTableNotExist)
		}
		return nil, fmt.Errorf("get table %s: %w", id, err)
	}
	return &ResolvedTable{ID: id, Table: t}, nil
}

// LookupTable resolves a name a query uses (the planner's lookup): a
// table, or a system table of one (orders$snapshots). A missing table
// fails as Calcite's validator does: "Object 'x' not found", "Object 'x'
// not found within 'cat.db'", naming the first part that does not
// resolve.
func (m *Manager) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *Table, error) {
	id := m.Qualify(n)
	rt, err := m.GetTable(id)
	if err == nil {
		return id, rt.Table, nil
	}
	if !errors.Is(err, ErrTableNotExist) {
		return id, nil, err
	}
	if t, ok, serr := m.GetSystemTable(id); ok {
		return id, t, serr
	}
	return id, nil, m.notFound(n, id)
}

// LookupTableAt resolves a name read FOR SYSTEM_TIME AS OF a constant
// time (Flink's CatalogManager.getTable(ObjectIdentifier, long)): a
// catalog's table as its TimeTraveler returns it at the time at() gives
// (epoch milliseconds; asked only of a table that has versions).
// versioned is false, with no table, for a temporary table and for a
// table of a catalog without versions: the planner then keeps Flink's
// temporal-table refusal, which Flink 1.20's own tests expect for such
// tables (TemporalJoinTest.testInvalidTemporalTablJoin_constantTimestamp).
func (m *Manager) LookupTableAt(n ast.ObjectName, at func() (int64, error)) (id connectors.ObjectIdentifier, t *Table, versioned bool, err error) {
	id = m.Qualify(n)
	m.mu.RLock()
	_, temporary := m.temporary[id]
	m.mu.RUnlock()
	if temporary {
		return id, nil, false, nil
	}
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return id, nil, false, m.notFound(n, id)
	}
	tt, ok := c.(TimeTraveler)
	if !ok {
		return id, nil, false, nil
	}
	millis, err := at()
	if err != nil {
		return id, nil, true, err
	}
	t, err = tt.GetTableAt(id.Database, id.Name, millis)
	if err != nil {
		if errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist) {
			return id, nil, false, m.notFound(n, id)
		}
		return id, nil, false, fmt.Errorf("get table %s: %w", id, err)
	}
	return id, t, true, nil
}

func (m *Manager) notFound(n ast.ObjectName, id connectors.ObjectIdentifier) error {
	msg := fmt.Sprintf("Object '%s' not found", n.Table)
	switch {
	case n.Catalog != "":
		c, err := m.Catalog(n.Catalog)
		if err != nil {
			msg = fmt.Sprintf("Object '%s' not found", n.Catalog)
			break
		}
		if ok, _ := c.DatabaseExists(n.Database); !ok {
			msg = fmt.Sprintf("Object '%s' not found within '%s'", n.Database, n.Catalog)
			break
		}
		msg = fmt.Sprintf("Object '%s' not found within '%s.%s'", n.Table, n.Catalog, n.Database)
	case n.Database != "":
		c, err := m.Catalog(id.Catalog)
		if err == nil {
			if ok, _ := c.DatabaseExists(n.Database); ok {
				msg = fmt.Sprintf("Object '%s' not found within '%s'", n.Table, n.Database)
				break
			}
		}
		msg = fmt.Sprintf("Object '%s' not found", n.Database)
	}
	return &sql.Error{Class: sql.SqlValidatorException, Msg: msg, Err: ErrTableNotExist}
}

// ListTables lists the tables of a database, temporary ones included,
// sorted and without duplicates (SHOW TABLES). Empty names mean current.
func (m *Manager) ListTables(catalogName, db string) ([]string, error) {
	if catalogName == "" {
		catalogName = m.CurrentCatalog()
	}
	if db == "" {
		db = m.CurrentDatabase()
	}
	c, err := m.Catalog(catalogName)
	if err != nil {
		return nil, err
	}
	names, err := c.ListTables(db)
	if err != nil {
		if errors.Is(err, ErrDatabaseNotExist) {
			return nil, &sql.Error{Class: sql.ValidationException,
				Msg: fmt.Sprintf("Database '%s'.'%s' doesn't exist.", catalogName, db), Err: err}
		}
		return nil, fmt.Errorf("list tables of %s.%s: %w", catalogName, db, err)
	}
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	m.mu.RLock()
	for id := range m.temporary {
		if id.Catalog == catalogName && id.Database == db && !seen[id.Name] {
			seen[id.Name] = true
			names = append(names, id.Name)
		}
	}
	m.mu.RUnlock()
	sort.Strings(names)
	return names, nil
}

// CreateTable stores a table: in the session when temporary, else in its
// catalog. Errors are Flink's: "Could not execute CreateTable in path
// `c`.`d`.`t`" caused by "Table (or view) d.t already exists in Catalog c."
func (m *Manager) CreateTable(id connectors.ObjectIdentifier, t *Table, ignoreIfExists, temporary bool) error {
	if temporary {
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.temporary[id]; ok {
			if ignoreIfExists {
				return nil
			}
			return &sql.Error{Class: sql.ValidationException,
				Msg: fmt.Sprintf("Temporary table '%s' already exists", Serializable(id)), Err: ErrTableExists}
		}
		c, err := m.catalogLocked(id.Catalog)
		if err != nil {
			return err
		}
		if ok, err := c.DatabaseExists(id.Database); err == nil && !ok {
			return m.dbNotExistForCreate(id)
		}
		m.temporary[id] = t.Clone()
		return nil
	}
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return err
	}
	if err := c.CreateTable(id.Database, id.Name, t, ignoreIfExists); err != nil {
		switch {
		case errors.Is(err, ErrTableExists):
			return &sql.Error{Class: sql.ValidationException,
				Msg: "Could not execute CreateTable in path " + Serializable(id),
				Err: &sql.Error{Class: sql.TableAlreadyExistException,
					Msg: fmt.Sprintf("Table (or view) %s.%s already exists in Catalog %s.", id.Database, id.Name, id.Catalog),
					Err: ErrTableExists}}
		case errors.Is(err, ErrDatabaseNotExist):
			return m.dbNotExistForCreate(id)
		}
		return fmt.Errorf("create table %s: %w", id, err)
	}
	return nil
}

func (m *Manager) dbNotExistForCreate(id connectors.ObjectIdentifier) error {
	return &sql.Error{Class: sql.ValidationException,
		Msg: "Could not execute CreateTable in path " + Serializable(id),
		Err: &sql.Error{Class: sql.DatabaseNotExistException,
			Msg: fmt.Sprintf("Database %s does not exist in Catalog %s.", id.Database, id.Catalog),
			Err: ErrDatabaseNotExist}}
}

func errorsIsNotExist(err error) bool {
	return errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist)
}

// AlterTable replaces a permanent table's descriptor. Temporary tables
// cannot be altered, as in Flink.
func (m *Manager) AlterTable(id connectors.ObjectIdentifier, t *Table) error {
	m.mu.RLock()
	_, isTemp := m.temporary[id]
	m.mu.RUnlock()
	notExist := &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("Table %s doesn't exist or is a temporary table.", Serializable(id)), Err: ErrTableNotExist}
	if isTemp {
		return notExist
	}
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return notExist
	}
	if err := c.AlterTable(id.Database, id.Name, t); err != nil {
		if errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist) {
			return notExist
		}
		return fmt.Errorf("alter table %s: %w", id, err)
	}
	return nil
}

// AlterColumns applies the column changes of one ALTER TABLE to a
// permanent table: a catalog that keeps its own schema history
// (ColumnAlterer) applies changes, others store the new descriptor nt.
func (m *Manager) AlterColumns(id connectors.ObjectIdentifier, nt *Table, changes []TableChange) error {
	ca, ok := m.catalogOf(id).(ColumnAlterer)
	if !ok {
		return m.AlterTable(id, nt)
	}
	m.mu.RLock()
	_, isTemp := m.temporary[id]
	m.mu.RUnlock()
	if isTemp {
		return m.AlterTable(id, nt) // refused there, with Flink's message
	}
	if err := ca.AlterColumns(id.Database, id.Name, changes); err != nil {
		if errors.Is(err, ErrTableNotExist) || errors.Is(err, ErrDatabaseNotExist) {
			return &sql.Error{Class: sql.ValidationException,
				Msg: fmt.Sprintf("Table %s doesn't exist or is a temporary table.", Serializable(id)), Err: ErrTableNotExist}
		}
		return fmt.Errorf("alter table %s: %w", id, err)
	}
	return nil
}

// catalogOf returns id's catalog, nil when there is none.
func (m *Manager) catalogOf(id connectors.ObjectIdentifier) Catalog {
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return nil
	}
	return c
}

// AllTableNames lists every table of the current database (temporary
// included) plus qualified names of other catalogs' current-database
// tables; the shell's completer uses it. Errors are ignored: completion
// is best effort.
func (m *Manager) AllTableNames() []string {
	names, _ := m.ListTables("", "")
	return names
}

// DefaultConnector names the connector of a table whose catalog implies
// one (a Paimon catalog's tables need no 'connector' option), or "".
func (m *Manager) DefaultConnector(id connectors.ObjectIdentifier) string {
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return ""
	}
	if dc, ok := c.(DefaultConnector); ok {
		return dc.DefaultConnector()
	}
	return ""
}

// TablePath is where a catalog table lives, "" for catalogs that do not
// store tables themselves. Paimon's FlinkCatalog hands its tables to the
// connector with their location; the planner passes this as the table's
// 'path' option, so SHOW CREATE TABLE stays as the user declared it.
func (m *Manager) TablePath(id connectors.ObjectIdentifier) string {
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return ""
	}
	if tp, ok := c.(TablePather); ok {
		return tp.TablePath(id.Database, id.Name)
	}
	return ""
}

// GetSystemTable resolves a system table such as orders$snapshots: for a
// table declared with a connector that has system tables
// (connectors.SystemTableFactory), the connector's; else the catalog's
// own (SystemTabler). ok is false when id names no system table: the caller
// keeps Flink's "not found" error.
func (m *Manager) GetSystemTable(id connectors.ObjectIdentifier) (*Table, bool, error) {
	c, err := m.Catalog(id.Catalog)
	if err != nil {
		return nil, false, nil
	}
	for _, ident := range connectors.Identifiers() {
		f, err := connectors.Lookup(ident)
		if err != nil {
			continue
		}
		sf, ok := f.(connectors.SystemTableFactory)
		if !ok {
			continue
		}
		base, sys, ok := sf.SplitSystemTable(id.Name)
		if !ok {
			continue
		}
		bid := id
		bid.Name = base
		bt, err := m.GetTable(bid)
		if err != nil || bt.Table.Options["connector"] != ident {
			continue
		}
		sch, err := sf.SystemTableSchema(sys, bt.Table.Options)
		if err != nil {
			return nil, true, fmt.Errorf("system table %s: %w", id, err)
		}
		return &Table{Schema: sch, Options: bt.Table.Clone().Options}, true, nil
	}
	if st, ok := c.(SystemTabler); ok {
		t, ok, err := st.GetSystemTable(id.Database, id.Name)
		if err != nil {
			return nil, ok, fmt.Errorf("system table %s: %w", id, err)
		}
		return t, ok, nil
	}
	return nil, false, nil
}

// LocateTable resolves a name as LookupTable does and adds the table's
// connector (its 'connector' option or the catalog's default) and its
// directory (its 'path' option or the catalog's TablePath).
func (m *Manager) LocateTable(n ast.ObjectName) (*LocatedTable, error) {
	id, t, err := m.LookupTable(n)
	if err != nil {
		return nil, err
	}
	lt := &LocatedTable{ID: id, Table: t, Connector: t.Options["connector"], Path: t.Options["path"]}
	if lt.Connector == "" {
		lt.Connector = m.DefaultConnector(id)
	}
	if lt.Path == "" {
		lt.Path = m.TablePath(id)
	}
	return lt, nil
}
