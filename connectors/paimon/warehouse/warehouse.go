// Package warehouse is the Paimon filesystem catalog: CREATE CATALOG c WITH
// ('type'='paimon', 'warehouse'='...') maps databases to <warehouse>/<db>.db
// and tables to <warehouse>/<db>.db/<table>/, whose schema files are the
// only catalog state (as Paimon's FileSystemCatalog). Tables are read and
// written through connectors/paimon/table.
package warehouse

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// DBSuffix is the directory suffix of a database.
const DBSuffix = fs.DatabaseSuffix

// DefaultDatabase is Paimon's 'default-database' default.
const DefaultDatabase = "default"

func init() {
	catalog.RegisterFactory("paimon", func(name string, options map[string]string) (catalog.Catalog, error) {
		if err := checkWarehouseScheme(name, options); err != nil {
			return nil, err
		}
		return New(nil, options)
	})
	// The dry run of `sqlrun explain`: reads fall through to the disk,
	// writes and deletes stay in memory.
	catalog.RegisterScratchFactory("paimon", func(name string, options map[string]string) (catalog.Catalog, error) {
		if err := checkWarehouseScheme(name, options); err != nil {
			return nil, err
		}
		base, err := fs.ForPath(strings.TrimSpace(options["warehouse"]), options)
		if err != nil {
			return nil, warehouseErr(options, err)
		}
		return New(fs.NewOverlay(base), options)
	})
}

// checkWarehouseScheme refuses, naming the catalog, a 'warehouse' that is
// neither local nor on S3 (hdfs://, oss://) when the catalog is created.
func checkWarehouseScheme(name string, options map[string]string) error {
	wh := options["warehouse"]
	if fs.IsObjectStorePath(wh) {
		return nil // the S3 file system checks it
	}
	return connectors.CheckPathScheme(wh, "option 'warehouse' of catalog "+name)
}

// Catalog is a Paimon filesystem catalog over one warehouse directory.
type Catalog struct {
	FIO       fs.FileIO
	Warehouse string
	defaultDB string
	// Now is the clock for schema timestamps (tests replace it).
	Now func() time.Time
}

var (
	_ catalog.Catalog          = (*Catalog)(nil)
	_ catalog.DefaultConnector = (*Catalog)(nil)
	_ catalog.DefaultDatabaser = (*Catalog)(nil)
	_ catalog.TablePather      = (*Catalog)(nil)
	_ catalog.SystemTabler     = (*Catalog)(nil)
	_ catalog.TimeTraveler     = (*Catalog)(nil)
)

// New opens (creating if needed) the warehouse named by options
// 'warehouse' and its default database ('default-database', "default").
func New(fio fs.FileIO, options map[string]string) (*Catalog, error) {
	wh := strings.TrimSpace(options["warehouse"])
	if wh == "" {
		return nil, &sql.Error{Class: sql.ValidationException, Msg: "Paimon 'warehouse' path must be set"}
	}
	if fio == nil {
		var err error
		if fio, err = fs.ForPath(wh, options); err != nil {
			return nil, warehouseErr(options, err)
		}
		if fs.IsObjectStorePath(wh) {
			fs.Mount(wh, fio)
		}
	}
	c := &Catalog{FIO: fio, Warehouse: strings.TrimRight(wh, "/"), defaultDB: DefaultDatabase, Now: time.Now}
	if d := strings.TrimSpace(options["default-database"]); d != "" {
		c.defaultDB = d
	}
	dir, err := c.dbPath(c.defaultDB)
	if err != nil {
		return nil, fmt.Errorf("paimon catalog %s: 'default-database': %w", wh, err)
	}
	if err := fio.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("paimon catalog %s: create default database: %w", wh, err)
	}
	return c, nil
}

// DefaultConnector is "paimon": tables of this catalog need no 'connector'.
func (c *Catalog) DefaultConnector() string { return "paimon" }

// DefaultDatabase is the database a USE CATALOG switches to.
func (c *Catalog) DefaultDatabase() string { return c.defaultDB }

// dbPath is <warehouse>/<db>.db; a database name that is not one path
// element is refused (fs.DatabasePath).
func (c *Catalog) dbPath(db string) (string, error) { return fs.DatabasePath(c.Warehouse, db) }

// tablePath is <warehouse>/<db>.db/<table>, refusing names that are not
// one path element (fs.TablePath).
func (c *Catalog) tablePath(db, name string) (string, error) {
	return fs.TablePath(c.Warehouse, db, name)
}

// TablePath is the directory of a table, "" when a name is not a valid
// path element (every catalog operation on such a name fails with the
// reason); a system table's (orders$snapshots) is its base table's
// (catalog.TablePather).
func (c *Catalog) TablePath(db, name string) string {
	if base, _, ok := paimon.SystemTable(name); ok {
		name = base
	}
	p, err := c.tablePath(db, name)
	if err != nil {
		return ""
	}
	return p
}

// GetSystemTable resolves a system table of one of the catalog's tables
// (orders$snapshots): its columns as Paimon gives them, read through the
// catalog's own file system, so a dry run sees the tables it created;
// the options are the base table's (catalog.SystemTabler).
func (c *Catalog) GetSystemTable(db, name string) (*catalog.Table, bool, error) {
	base, sys, ok := paimon.SystemTable(name)
	if !ok {
		return nil, false, nil
	}
	bt, err := c.GetTable(db, base)
	if err != nil {
		return nil, false, nil
	}
	path, err := c.tablePath(db, base)
	if err != nil {
		return nil, false, nil
	}
	sch, err := paimon.SystemTableSchema(c.FIO, path, sys, bt.Options)
	if err != nil {
		return nil, true, err
	}
	return &catalog.Table{Schema: sch, Options: bt.Options}, true, nil
}

// ListDatabases lists the <db>.db directories.
func (c *Catalog) ListDatabases() ([]string, error) {
	ents, err := c.FIO.List(c.Warehouse)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list databases of %s: %w", c.Warehouse, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir && strings.HasSuffix(e.Name, DBSuffix) {
			out = append(out, strings.TrimSuffix(e.Name, DBSuffix))
		}
	}
	sort.Strings(out)
	return out, nil
}

// DatabaseExists reports whether <db>.db exists.
func (c *Catalog) DatabaseExists(db string) (bool, error) {
	dir, err := c.dbPath(db)
	if err != nil {
		return false, err
	}
	ok, err := c.FIO.Exists(dir)
	if err != nil {
		return false, fmt.Errorf("database %s: %w", db, err)
	}
	return ok, nil
}

// CreateDatabase creates <db>.db.
func (c *Catalog) CreateDatabase(db string, ignoreIfExists bool) error {
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return err
	}
	if ok {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseExists)
	}
	dir, err := c.dbPath(db)
	if err != nil {
		return err
	}
	if err := c.FIO.MkdirAll(dir); err != nil {
		return fmt.Errorf("create database %s: %w", db, err)
	}
	return nil
}

// DropDatabase removes <db>.db; with tables only when cascade.
func (c *Catalog) DropDatabase(db string, ignoreIfNotExists, cascade bool) error {
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return err
	}
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseNotExist)
	}
	tables, err := c.ListTables(db)
	if err != nil {
		return err
	}
	if len(tables) > 0 && !cascade {
		return fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseNotEmpty)
	}
	dir, err := c.dbPath(db)
	if err != nil {
		return err
	}
	if err := c.FIO.DeleteAll(dir); err != nil {
		return fmt.Errorf("drop database %s: %w", db, err)
	}
	return nil
}

// ListTables lists the table directories of db that hold schema files.
func (c *Catalog) ListTables(db string) ([]string, error) {
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseNotExist)
	}
	dir, err := c.dbPath(db)
	if err != nil {
		return nil, err
	}
	ents, err := c.FIO.List(dir)
	if err != nil {
		return nil, fmt.Errorf("list tables of %s: %w", db, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir {
			continue
		}
		ids, err := schema.NewManager(c.FIO, e.Path).ListIDs()
		if err == nil && len(ids) > 0 {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (c *Catalog) open(db, name string) (*table.Table, error) {
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseNotExist)
	}
	root, err := c.tablePath(db, name)
	if err != nil {
		return nil, err
	}
	t, err := table.Open(c.FIO, root, nil)
	if err != nil {
		if errors.Is(err, table.ErrTableNotExist) {
			return nil, fmt.Errorf("table %s.%s: %w", db, name, catalog.ErrTableNotExist)
		}
		return nil, err
	}
	return t, nil
}

// OpenTable opens a table of the catalog for reading and writing.
func (c *Catalog) OpenTable(db, name string, dynamic map[string]string) (*table.Table, error) {
	t, err := c.open(db, name)
	if err != nil {
		return nil, err
	}
	if len(dynamic) == 0 {
		return t, nil
	}
	return table.Open(c.FIO, t.Root, dynamic)
}

// GetTable maps the latest schema to a table descriptor: columns (primary
// key columns NOT NULL), primary key, partition keys, the user-set options
// and the comment.
func (c *Catalog) GetTable(db, name string) (*catalog.Table, error) {
	t, err := c.open(db, name)
	if err != nil {
		return nil, err
	}
	d := Describe(t.Schema)
	d.Stored = t.Schema // the factory opens the table from it (no second read)
	return d, nil
}

// GetTableAt is Paimon's FlinkCatalog.getTable(ObjectPath, long): the
// table copied with 'scan.timestamp-millis' = timestampMillis, which
// AbstractFileStoreTable.tryTimeTravel turns into the schema of the
// latest snapshot committed at or before that time (the columns the table
// had then; rows read by field id as of that schema). Without such a
// snapshot the latest schema stays, and the scan finds no snapshot.
func (c *Catalog) GetTableAt(db, name string, timestampMillis int64) (*catalog.Table, error) {
	if strings.Contains(name, "$") {
		return nil, &sql.Error{Class: sql.UnsupportedOperation,
			Msg: fmt.Sprintf("Time travel (FOR SYSTEM_TIME AS OF) of the system table %s.%s is not supported by sqlrun yet.", db, name)}
	}
	t, err := c.open(db, name)
	if err != nil {
		return nil, err
	}
	s := t.Schema
	snap, err := t.Snapshots.EarlierOrEqualTime(timestampMillis)
	if err != nil {
		return nil, fmt.Errorf("time travel of %s.%s to %d: %w", db, name, timestampMillis, err)
	}
	if snap != nil && snap.SchemaID != s.ID {
		old, err := t.Schemas.Read(snap.SchemaID)
		if err != nil {
			return nil, fmt.Errorf("time travel of %s.%s to snapshot %d: %w", db, name, snap.ID, err)
		}
		// TableSchema.copy(options): that schema's fields with the
		// table's current options.
		cp := *old
		cp.Options = s.Options
		s = &cp
	}
	d := Describe(s)
	d.Options["scan.timestamp-millis"] = strconv.FormatInt(timestampMillis, 10)
	d.Stored = s
	return d, nil
}

// Describe maps a Paimon schema to a catalog table. Its options are the
// stored ones without 'connector' and 'path', which a table created with
// 'auto-create' stores (FlinkTableFactory.createTableIfNeeded): a table
// of a Paimon catalog is read and written where the catalog found it
// whatever they say, as Flink hands it to the catalog's own factory
// (AbstractFlinkTableFactory with a DataCatalogTable), so the planner
// gives it the catalog's connector and location (TablePath).
func Describe(s *schema.TableSchema) *catalog.Table {
	out := &catalog.Table{Schema: s.SQLSchema(), PartitionKeys: append([]string(nil), s.PartitionKeys...),
		Options: maps.Clone(s.Options)}
	if out.Options == nil {
		out.Options = map[string]string{}
	}
	delete(out.Options, "connector")
	delete(out.Options, "path")
	if s.Comment != nil {
		out.Comment = *s.Comment
	}
	return out
}

// CreateTable writes schema-0 of a new table (see table.Create for the
// bucket rules).
func (c *Catalog) CreateTable(db, name string, t *catalog.Table, ignoreIfExists bool) error {
	ok, err := c.DatabaseExists(db)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("database %s: %w", db, catalog.ErrDatabaseNotExist)
	}
	if conn, ok := t.Options["connector"]; ok && conn != "paimon" {
		return &sql.Error{Class: sql.ValidationException,
			Msg: fmt.Sprintf("Paimon catalog only supports paimon tables, but you specify 'connector'='%s' when using Paimon catalog", conn)}
	}
	if t.IsView() {
		return &sql.Error{Class: sql.UnsupportedOperation,
			Msg: fmt.Sprintf("Views in a Paimon catalog are not supported by sqlrun yet (view %s.%s): use CREATE TEMPORARY VIEW.", db, name)}
	}
	if len(t.NonPhysical) > 0 {
		// Paimon's FlinkCatalog keeps them as schema.N.* options, which
		// sqlrun does not write yet: refuse rather than drop them.
		return &sql.Error{Class: sql.UnsupportedOperation,
			Msg: fmt.Sprintf("Computed and metadata columns ('%s') of tables in a Paimon catalog are not supported by sqlrun yet.", t.NonPhysical[0].Name)}
	}
	if t.Watermark != nil {
		// Paimon's FlinkCatalog keeps it as schema.watermark.0.* options,
		// which sqlrun does not write yet: refuse rather than store a
		// table without it (Flink would later read the table with none).
		return &sql.Error{Class: sql.UnsupportedOperation,
			Msg: fmt.Sprintf("WATERMARK FOR %s of tables in a Paimon catalog is not supported by sqlrun yet (table %s.%s).",
				t.Watermark.Column, db, name)}
	}
	if _, ok := t.Options["path"]; ok {
		// Paimon's AbstractCatalog.validateCustomTablePath: a filesystem
		// catalog decides where its tables live.
		return &sql.Error{Class: sql.UnsupportedOperation,
			Msg: "The current catalog FileSystemCatalog does not support specifying the table path when creating a table."}
	}
	root, err := c.tablePath(db, name)
	if err != nil {
		return err
	}
	ids, err := schema.NewManager(c.FIO, root).ListIDs()
	if err != nil {
		return fmt.Errorf("create table %s.%s: %w", db, name, err)
	}
	if len(ids) > 0 {
		if ignoreIfExists {
			return nil
		}
		return fmt.Errorf("table %s.%s: %w", db, name, catalog.ErrTableExists)
	}
	if _, err := table.Create(c.FIO, root, t.Schema, t.PartitionKeys, t.Options, t.Comment, c.Now().UnixMilli()); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if ignoreIfExists {
				return nil
			}
			return fmt.Errorf("table %s.%s: %w", db, name, catalog.ErrTableExists)
		}
		return err
	}
	return nil
}

// DropTable removes the table directory.
func (c *Catalog) DropTable(db, name string, ignoreIfNotExists bool) error {
	t, err := c.open(db, name)
	if err != nil {
		if ignoreIfNotExists && (errors.Is(err, catalog.ErrTableNotExist) || errors.Is(err, catalog.ErrDatabaseNotExist)) {
			return nil
		}
		return err
	}
	if err := c.FIO.DeleteAll(t.Root); err != nil {
		return fmt.Errorf("drop table %s.%s: %w", db, name, err)
	}
	return nil
}

// AlterTable commits a new schema version when the options or comment
// changed (ALTER TABLE SET/RESET). Column, key and partition changes are
// refused: sqlrun's ALTER TABLE supports options only.
func (c *Catalog) AlterTable(db, name string, nt *catalog.Table) error {
	t, err := c.open(db, name)
	if err != nil {
		return err
	}
	cur := t.Schema
	old := Describe(cur)
	if !sameColumns(old.Schema, nt.Schema) || !slices.Equal(old.PartitionKeys, nt.PartitionKeys) {
		return &sql.Error{Class: sql.UnsupportedOperation,
			Msg: fmt.Sprintf("ALTER TABLE of Paimon table %s.%s: only SET/RESET of options is supported by sqlrun", db, name)}
	}
	opts := map[string]string{}
	for k, v := range nt.Options {
		if k == "connector" || k == "path" {
			continue
		}
		opts[k] = v
	}
	// The stored 'connector' and 'path' Describe leaves out stay (Paimon's
	// alterTable changes only the options SET or RESET).
	for _, k := range []string{"connector", "path"} {
		if v, ok := cur.Options[k]; ok {
			opts[k] = v
		}
	}
	// Paimon's immutable options (SchemaManager.checkAlterTableOption).
	for _, k := range []string{"primary-key", "partition", "bucket-key", "merge-engine"} {
		if old.Options[k] != opts[k] {
			return &sql.Error{Class: sql.UnsupportedOperation, Msg: fmt.Sprintf("Change '%s' is not supported yet.", k)}
		}
	}
	// SchemaManager.checkAlterTableOption: an unset 'bucket' is -1.
	if nb, ok := opts["bucket"]; ok && nb != old.Options["bucket"] {
		ob, set := old.Options["bucket"], true
		if _, set = old.Options["bucket"]; !set {
			ob = "-1"
		}
		if strings.TrimSpace(ob) == "-1" {
			return &sql.Error{Class: sql.UnsupportedOperation, Msg: "Cannot change bucket when it is -1."}
		}
		if strings.TrimSpace(nb) == "-1" {
			return &sql.Error{Class: sql.UnsupportedOperation, Msg: "Cannot change bucket to -1."}
		}
	}
	if maps.Equal(opts, cur.Options) && old.Comment == nt.Comment {
		return nil
	}
	next := *cur
	next.Options = opts
	next.Comment = nil
	if nt.Comment != "" {
		cm := nt.Comment
		next.Comment = &cm
	}
	next.TimeMillis = c.Now().UnixMilli()
	if _, err := schema.NewManager(c.FIO, t.Root).CommitNext(&next); err != nil {
		return fmt.Errorf("alter table %s.%s: %w", db, name, err)
	}
	return nil
}

// AlterColumns applies the column changes of ALTER TABLE ADD / MODIFY /
// DROP / RENAME as Paimon's FlinkCatalog.alterTable converts them
// (toSchemaChange, NestedSchemaUtils for a type change) and its
// SchemaManager.commitChanges applies them: the next schema file, created
// atomically, with new field ids for added columns.
func (c *Catalog) AlterColumns(db, name string, changes []catalog.TableChange) error {
	t, err := c.open(db, name)
	if err != nil {
		return err
	}
	var sc []schema.Change
	for _, ch := range changes {
		switch ch := ch.(type) {
		case catalog.AddColumn:
			f := schema.Field{Name: ch.Column.Name, Type: ch.Column.Type}
			if ch.Column.Comment != "" {
				cm := ch.Column.Comment
				f.Description = &cm
			}
			sc = append(sc, schema.AddColumn{Field: f, First: ch.First, After: ch.After})
		case catalog.DropColumn:
			sc = append(sc, schema.DropColumn{Name: ch.Name})
		case catalog.RenameColumn:
			sc = append(sc, schema.RenameColumn{From: ch.Old, To: ch.New})
		case catalog.ModifyColumnType:
			if !ch.Old.WithNullable(true).Equal(ch.New.WithNullable(true)) {
				sc = append(sc, schema.UpdateColumnType{Name: ch.Name, Type: ch.New})
			}
			if ch.Old.Nullable != ch.New.Nullable {
				sc = append(sc, schema.UpdateColumnNullability{Name: ch.Name, Nullable: ch.New.Nullable})
			}
		case catalog.ModifyColumnComment:
			var cm *string
			if ch.Comment != "" {
				cm = &ch.Comment
			}
			sc = append(sc, schema.UpdateColumnComment{Name: ch.Name, Comment: cm})
		case catalog.ModifyColumnPosition:
			sc = append(sc, schema.MoveColumn{Name: ch.Name, First: ch.First, After: ch.After})
		default:
			return fmt.Errorf("alter table %s.%s: unsupported change %T", db, name, ch)
		}
	}
	a := schema.Alter{Table: db + "." + name, TimeMillis: c.Now().UnixMilli(), CanCast: format.CanEvolve}
	if _, err := schema.NewManager(c.FIO, t.Root).CommitChanges(a, sc...); err != nil {
		return fmt.Errorf("alter table %s.%s: %w", db, name, err)
	}
	return nil
}

func sameColumns(a, b sql.Schema) bool {
	if len(a.Columns) != len(b.Columns) || !slices.Equal(a.PrimaryKey, b.PrimaryKey) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || !a.Columns[i].Type.Equal(b.Columns[i].Type) {
			return false
		}
	}
	return true
}

// warehouseErr names the catalog's warehouse in a file system setup error
// (a bad s3.* option, an unsupported scheme).
func warehouseErr(options map[string]string, err error) error {
	return &sql.Error{Class: sql.ValidationException,
		Msg: fmt.Sprintf("Paimon catalog 'warehouse' %s: %v", strings.TrimSpace(options["warehouse"]), err)}
}
