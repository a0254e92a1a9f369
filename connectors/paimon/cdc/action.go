// Package cdc is Paimon's MySQL CDC action (paimon-flink-cdc's
// MySqlSyncTableAction) as `sqlrun action mysql-sync-table`: it creates
// the Paimon table from the MySQL table's schema (or checks an existing
// one), then runs a streaming job, the 'mysql-cdc' source into the table,
// with checkpoints and --resume. An UPDATE reaches Paimon as -D[before]
// and +I[after] (MySqlRecordParser). An ALTER TABLE of the MySQL table
// ends the job's input past the statement; the action then applies the
// schema changes Paimon's action applies (added columns, widened types)
// and resumes the job from its final checkpoint.
package cdc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/warehouse"
	"github.com/sqlrun/sqlrun/sql"
)

// ActionName is the action's name on the command line.
const ActionName = "mysql-sync-table"

func init() { connectors.RegisterJobAction(ActionName, mysqlSyncTable{}) }

var _ connectors.JobAction = mysqlSyncTable{}

type mysqlSyncTable struct{}

const usage = `Usage:
  sqlrun action mysql-sync-table --warehouse W --database D --table T
      --mysql-conf hostname=H --mysql-conf username=U --mysql-conf password=P
      --mysql-conf database-name=DB --mysql-conf table-name=TBL [options]

Paimon's MySQL CDC action (mysql_sync_table): creates the Paimon table D.T
from the MySQL table's schema when it does not exist (or checks that an
existing one is compatible; the tables 'database-name' and 'table-name'
capture merged into one), then synchronizes the MySQL table into it,
snapshot then binlog, until Ctrl-C or SIGTERM (a final savepoint; with
--mysql-conf scan.startup.mode=snapshot, until the snapshot is read). An
UPDATE arrives as -D[before] and +I[after]. ADD COLUMN and type widening of
the MySQL table are applied to the Paimon table as the job runs.

Options (Paimon's argument names; --a_b and --a-b are the same):
  --warehouse W             the Paimon warehouse (file:///... , a local path, s3://...)
  --database D              the Paimon database (created when missing)
  --table T                 the Paimon table
  --partition-keys K1,K2    the Paimon table's partition keys
  --primary-keys K1,K2      its primary keys (default: the MySQL table's)
  --type-mapping M1,M2      tinyint1-not-bool, to-nullable, to-string,
                            char-to-string, longtext-to-bytes,
                            bigint-unsigned-to-bigint
  --computed-column 'c=f(args)'  a computed column: year, month, day, hour,
                            minute, second, date_format, substring, truncate,
                            upper, lower, trim, cast, now (repeatable)
  --metadata-column C1,C2   metadata columns: table_name, database_name,
                            op_ts (the change's time, 0 for snapshot rows)
  --metadata-column-prefix P  the metadata columns' name prefix
  --mysql-conf K=V          a 'mysql-cdc' source option (repeatable)
  --catalog-conf K=V        a Paimon catalog option (repeatable)
  --table-conf K=V          a Paimon table option (repeatable)
  -D K=V                    a SET option of the job, e.g.
                            execution.checkpointing.interval=10s (default 3 min,
                            as Paimon's action)
  --resume                  restore the job from its latest checkpoint or savepoint
  --allow-fresh             with --resume: start from scratch when there is none
`

// multi is a repeatable flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

type syncArgs struct {
	warehouse, database, table string
	partitionKeys, primaryKeys []string
	typeMapping                typeMapping
	computed                   []computedColumn
	computedArgs               []string
	metadata                   []metadataColumn
	mysqlConf                  map[string]string
	catalogConf                map[string]string
	tableConf                  map[string]string
	sets                       [][2]string
	resume, allowFresh         bool
}

// parseArgs reads the command line; a non-nil error is a usage error.
func parseArgs(args []string, stderr io.Writer) (*syncArgs, bool, error) {
	var (
		a                           syncArgs
		partition, primary, mapping string
		computed, metaC             multi
		metaPrefix                  string
	)
	f := newActionFlags(ActionName, &a)
	f.str(&a.table, "table")
	f.str(&partition, "partition_keys", "partition-keys")
	f.str(&primary, "primary_keys", "primary-keys")
	f.str(&mapping, "type_mapping", "type-mapping")
	f.list(&computed, "computed_column", "computed-column")
	f.list(&metaC, "metadata_column", "metadata-column")
	f.str(&metaPrefix, "metadata_column_prefix", "metadata-column-prefix")
	if help, err := f.parse(args, &a); help || err != nil {
		return nil, help, err
	}
	var err error
	switch {
	case a.warehouse == "":
		return nil, false, errors.New("--warehouse is required")
	case a.database == "":
		return nil, false, errors.New("--database is required")
	case a.table == "":
		return nil, false, errors.New("--table is required")
	case a.allowFresh && !a.resume:
		return nil, false, errors.New("--allow-fresh only makes sense with --resume")
	}
	a.partitionKeys, a.primaryKeys = splitList(partition), splitList(primary)
	if a.typeMapping, err = parseTypeMapping(mapping); err != nil {
		return nil, false, err
	}
	a.computedArgs = computed
	if a.metadata, err = parseMetadataColumns(metaC, metaPrefix); err != nil {
		return nil, false, err
	}
	return &a, false, nil
}

// actionFlags is the command line both sync actions share: each of
// Paimon's argument names in both spellings (--a_b and --a-b), and the
// options every action takes.
type actionFlags struct {
	set                           *flag.FlagSet
	mysqlC, catalogC, table, sets multi
	help                          bool
}

func newActionFlags(name string, a *syncArgs) *actionFlags {
	f := &actionFlags{set: flag.NewFlagSet("sqlrun action "+name, flag.ContinueOnError)}
	f.set.SetOutput(io.Discard)
	f.str(&a.warehouse, "warehouse")
	f.str(&a.database, "database")
	f.list(&f.mysqlC, "mysql_conf", "mysql-conf")
	f.list(&f.catalogC, "catalog_conf", "catalog-conf")
	f.list(&f.table, "table_conf", "table-conf")
	f.list(&f.sets, "D")
	f.set.BoolVar(&a.resume, "resume", false, "")
	f.set.BoolVar(&a.allowFresh, "allow-fresh", false, "")
	f.set.BoolVar(&f.help, "h", false, "")
	f.set.BoolVar(&f.help, "help", false, "")
	return f
}

func (f *actionFlags) str(p *string, names ...string) {
	for _, n := range names {
		f.set.StringVar(p, n, "", "")
	}
}

func (f *actionFlags) list(p *multi, names ...string) {
	for _, n := range names {
		f.set.Var(p, n, "")
	}
}

// parse reads args into a (help: -h was asked for) and the key=value
// options into its maps.
func (f *actionFlags) parse(args []string, a *syncArgs) (help bool, err error) {
	if err := f.set.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, err
	}
	if f.help {
		return true, nil
	}
	if f.set.NArg() > 0 {
		return false, fmt.Errorf("unexpected argument %q", f.set.Arg(0))
	}
	return false, a.setConf(f.mysqlC, f.catalogC, f.table, f.sets)
}

// setConf reads the key=value options and -D; --warehouse defaults to
// --catalog-conf warehouse=.
func (a *syncArgs) setConf(mysqlC, catalogC, table, sets multi) error {
	for _, kv := range []struct {
		name string
		in   multi
		out  *map[string]string
	}{{"mysql_conf", mysqlC, &a.mysqlConf}, {"catalog_conf", catalogC, &a.catalogConf}, {"table_conf", table, &a.tableConf}} {
		*kv.out = map[string]string{}
		for _, s := range kv.in {
			k, v, ok := strings.Cut(s, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return fmt.Errorf("--%s %q: expected key=value", kv.name, s)
			}
			(*kv.out)[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("-D %q: expected key=value", s)
		}
		a.sets = append(a.sets, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	if a.warehouse == "" {
		a.warehouse = a.catalogConf["warehouse"]
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Prepare parses the command line, reads the MySQL table's schema,
// creates, checks or evolves the Paimon table, and returns the job's
// script.
func (mysqlSyncTable) Prepare(args []string, again bool, stdout, stderr io.Writer) (connectors.ActionJob, int) {
	a, help, err := parseArgs(args, stderr)
	if help {
		fmt.Fprint(stdout, usage)
		return connectors.ActionJob{}, 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun action %s: %v\n%s", ActionName, err, usage)
		return connectors.ActionJob{}, 2
	}
	if again && a.snapshotOnly() {
		return connectors.ActionJob{}, 0
	}
	script, msgs, err := prepare(context.Background(), a, again)
	for _, m := range msgs {
		fmt.Fprintln(stdout, m)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun action %s: %v\n", ActionName, err)
		return connectors.ActionJob{}, 1
	}
	return connectors.ActionJob{Script: script, Resume: a.resume, AllowFresh: a.allowFresh}, 0
}

// snapshotOnly reports --mysql-conf scan.startup.mode=snapshot: the job
// reads the snapshot and the binlog up to its end, and ends (Flink CDC's
// bounded MySqlSource). Its end is the action's end: the source fails on a
// schema change instead of ending the job to have it prepared anew.
func (a *syncArgs) snapshotOnly() bool {
	return strings.EqualFold(strings.TrimSpace(a.mysqlConf[mysqlcdc.OptStartupMode]), mysqlcdc.ModeSnapshot)
}

// prepare is the action's work before the job: MySqlSyncTableAction.build
// (SyncTableActionBase.beforeBuildingSourceSink). It returns the job's
// script and the [INFO] lines to print.
func prepare(ctx context.Context, a *syncArgs, again bool) (string, []string, error) {
	// SyncJobHandler.checkRequiredOption.
	for _, k := range []string{mysqlcdc.OptHostname, mysqlcdc.OptUsername, mysqlcdc.OptPassword, mysqlcdc.OptDatabaseName, mysqlcdc.OptTableName} {
		if _, ok := a.mysqlConf[k]; !ok {
			return "", nil, fmt.Errorf("mysql_conf [%s] must be specified.", k)
		}
	}
	if _, ok := a.mysqlConf["connector"]; ok {
		return "", nil, errors.New("mysql_conf [connector] is set by the action; remove it")
	}
	tables, err := mysqlcdc.Describe(ctx, a.mysqlConf)
	// After an ALTER TABLE the job stopped at, a later one may be copying
	// the table: MariaDB renames it into place at the end, and for that
	// moment information_schema has no such table. Read again for a while.
	for wait := 0; again && err == nil && len(tables) == 0 && wait < 300; wait++ {
		time.Sleep(100 * time.Millisecond)
		tables, err = mysqlcdc.Describe(ctx, a.mysqlConf)
	}
	if err != nil {
		return "", nil, err
	}
	var noPK []string
	for _, t := range tables {
		if len(t.PrimaryKey) == 0 {
			noPK = append(noPK, t.Database+"."+t.Name)
		}
	}
	if len(noPK) > 0 {
		return "", nil, fmt.Errorf("Source tables of MySQL table synchronization job cannot contain table which doesn't have primary keys.\nThey are: %s", strings.Join(noPK, ","))
	}
	if len(tables) == 0 {
		return "", nil, errors.New("No table satisfies the given database name and table name.")
	}
	// MySqlSyncTableAction.retrieveSchema: JdbcSchemasInfo.mergeAll.
	m, err := mergeTables(tables, a.typeMapping, false)
	if err != nil {
		return "", nil, err
	}
	src, fields := m.info(), m.fields
	if len(src.PrimaryKey) == 0 && len(a.primaryKeys) == 0 {
		// CdcActionCommonUtils.setPrimaryKeys.
		return "", nil, fmt.Errorf("Failed to set specified primary keys for sink table %s.%s. Also, can't infer primary keys from source table schemas because source tables have no primary keys or have different primary keys.",
			a.database, a.table)
	}
	if a.computed, err = buildComputedColumns(a.computedArgs, fields); err != nil {
		return "", nil, err
	}
	want, err := buildSchema(a, src, fields)
	if err != nil {
		return "", nil, err
	}
	cat, err := openCatalog(a)
	if err != nil {
		return "", nil, err
	}
	cur, msgs, err := ensureTable(cat, a, m.location, want, again, func(cur *schema.TableSchema) error {
		return checkExisting(cur, want, a)
	})
	if err != nil {
		return "", nil, err
	}
	script, err := buildScript(a, m.srcs, src, fields, cur)
	return script, msgs, err
}

// openCatalog opens the warehouse with --catalog-conf and creates the
// database when missing.
func openCatalog(a *syncArgs) (*warehouse.Catalog, error) {
	opts := map[string]string{"warehouse": a.warehouse}
	for k, v := range a.catalogConf {
		opts[k] = v
	}
	cat, err := warehouse.New(nil, opts)
	if err != nil {
		return nil, err
	}
	if err := cat.CreateDatabase(a.database, true); err != nil {
		return nil, err
	}
	return cat, nil
}

// ensureTable creates the Paimon table a.database.a.table from want when
// it does not exist; otherwise, on a run after a schema change (again) or
// --resume it applies the MySQL table's changes, else it checks the table
// with check; then it stores the --table-conf options. It returns the
// table's schema and the [INFO] lines to print.
func ensureTable(cat *warehouse.Catalog, a *syncArgs, loc string, want *catalog.Table, again bool, check func(*schema.TableSchema) error) (*schema.TableSchema, []string, error) {
	root := cat.TablePath(a.database, a.table)
	if root == "" {
		_, err := cat.GetTable(a.database, a.table)
		return nil, nil, err
	}
	mgr := schema.NewManager(cat.FIO, root)
	cur, err := mgr.Latest()
	if err != nil {
		return nil, nil, fmt.Errorf("read the schema of Paimon table %s.%s: %w", a.database, a.table, err)
	}
	var msgs []string
	ident := a.database + "." + a.table
	if cur == nil {
		if err := cat.CreateTable(a.database, a.table, want, false); err != nil {
			return nil, nil, err
		}
		if cur, err = mgr.Latest(); err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, fmt.Sprintf("[INFO] Created Paimon table %s from MySQL table %s.", ident, loc))
		return cur, msgs, nil
	}
	if again || a.resume {
		// The job follows the MySQL table's changes: what the binlog
		// brought since (or while the job was down) is applied as
		// Paimon's CDC sink applies a changed record schema.
		var changes []schema.Change
		if changes, err = extractSchemaChanges(cur, want.Schema.Columns, ident); err != nil {
			return nil, nil, err
		}
		if len(changes) > 0 {
			if cur, err = commitChanges(mgr, ident, changes); err != nil {
				return nil, nil, fmt.Errorf("evolve Paimon table %s: %w", ident, err)
			}
			msgs = append(msgs, fmt.Sprintf("[INFO] Paimon table %s follows the schema of MySQL table %s: %s.",
				ident, loc, describeChanges(changes)))
		}
	} else if err := check(cur); err != nil {
		return nil, nil, err
	}
	// SynchronizationActionBase.alterTableOptions: the table options
	// given are stored, but for 'bucket' and the immutable ones.
	var changes []schema.Change
	for _, k := range slices.Sorted(maps.Keys(a.tableConf)) {
		switch k {
		case "bucket", "primary-key", "partition", "bucket-key", "merge-engine":
			continue
		}
		if v, ok := cur.Options[k]; !ok || v != a.tableConf[k] {
			changes = append(changes, schema.SetOption{Key: k, Value: a.tableConf[k]})
		}
	}
	if len(changes) > 0 {
		if cur, err = commitChanges(mgr, ident, changes); err != nil {
			return nil, nil, fmt.Errorf("alter the options of Paimon table %s: %w", ident, err)
		}
	}
	return cur, msgs, nil
}

// buildSchema is CdcActionCommonUtils.buildPaimonSchema: the MySQL
// columns, then the computed ones; the primary key given or the MySQL
// table's; the partition keys given; the table options given; the MySQL
// table's comment.
func buildSchema(a *syncArgs, src mysqlcdc.TableInfo, fields []sql.Column) (*catalog.Table, error) {
	cols := slices.Clone(fields)
	for _, c := range a.computed {
		cols = append(cols, sql.Column{Name: c.name, Type: c.typ})
	}
	for _, m := range a.metadata {
		cols = append(cols, sql.Column{Name: m.name, Type: m.typ})
	}
	names := make([]string, len(cols))
	seen := map[string]int{}
	for i, c := range cols {
		names[i] = c.Name
		seen[c.Name]++
	}
	var dups []string
	for _, n := range names {
		if seen[n] > 1 {
			dups = append(dups, n)
		}
	}
	if len(dups) > 0 {
		return nil, fmt.Errorf("Table %s contains duplicate columns: [%s].\nPossible causes are: 1. computed columns or metadata columns contain duplicate fields; 2. the catalog is case-insensitive and the table columns duplicate after they are all converted to lower-case.",
			a.table, strings.Join(dups, ", "))
	}
	pk := src.PrimaryKey
	if len(a.primaryKeys) > 0 {
		for _, k := range a.primaryKeys {
			if !slices.Contains(names, k) {
				return nil, fmt.Errorf("For sink table %s, not all specified primary keys '[%s]' exist in source tables or computed columns '[%s]'.",
					a.table, strings.Join(a.primaryKeys, ", "), strings.Join(names, ", "))
			}
		}
		pk = a.primaryKeys
	}
	for _, k := range a.partitionKeys {
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("For sink table %s, not all specified partition keys '[%s]' exist in source tables or computed columns '[%s]'.",
				a.table, strings.Join(a.partitionKeys, ", "), strings.Join(names, ", "))
		}
	}
	for i := range cols {
		if slices.Contains(pk, cols[i].Name) {
			cols[i].Type = cols[i].Type.NotNull()
		}
	}
	return &catalog.Table{Schema: sql.Schema{Columns: cols, PrimaryKey: slices.Clone(pk)},
		PartitionKeys: slices.Clone(a.partitionKeys), Options: maps.Clone(a.tableConf), Comment: src.Comment}, nil
}

// checkExisting is what MySqlSyncTableAction checks of a table that
// exists: its computed columns, then CdcActionCommonUtils.
// assertSchemaCompatible.
func checkExisting(cur *schema.TableSchema, want *catalog.Table, a *syncArgs) error {
	names := cur.Names()
	if len(a.computed) > 0 {
		var comp []string
		missing := false
		for _, c := range a.computed {
			comp = append(comp, c.name)
			missing = missing || !slices.Contains(names, c.name)
		}
		if missing {
			return fmt.Errorf(" Exists Table should contain all computed columns [%s], but are [%s].",
				strings.Join(comp, ", "), strings.Join(names, ", "))
		}
	}
	for _, f := range want.Schema.Columns {
		i := cur.FieldIndex(f.Name)
		if i < 0 || canConvert(f.Type, cur.Fields[i].Type) != convert {
			return fmt.Errorf("Paimon schema and source table schema are not compatible.\nPaimon fields are: %s.\nSource table fields are: %s",
				fieldList(cur.Fields), columnList(want.Schema.Columns))
		}
	}
	return nil
}

// fieldList prints fields as Java's List<DataField>.toString.
func fieldList(fs []schema.Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = dataField(f.ID, f.Name, f.Type, f.Description)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func columnList(cols []sql.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		var d *string
		if c.Comment != "" {
			d = &c.Comment
		}
		parts[i] = dataField(i, c.Name, c.Type, d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// dataField is DataField.toString: `name` TYPE[ 'description'].
func dataField(id int, name string, t sql.DataType, desc *string) string {
	ts, err := schema.TypeString(t)
	if err != nil {
		ts = t.String()
	}
	s := fmt.Sprintf("`%s` %s", name, ts)
	if desc != nil {
		s += fmt.Sprintf(" '%s'", *desc)
	}
	return s
}

// buildScript is the job: the catalog, the 'mysql-cdc' source with the
// MySQL table's columns, and the INSERT into the Paimon table in its
// current schema's column order (computed columns computed, columns the
// MySQL table no longer has as NULL).
func buildScript(a *syncArgs, tables []mysqlcdc.TableInfo, src mysqlcdc.TableInfo, fields []sql.Column, cur *schema.TableSchema) (string, error) {
	var b strings.Builder
	writeHeader(&b, a, fmt.Sprintf("MySQL-Paimon Table Sync: %s.%s", a.database, a.table))
	more := map[string]string{mysqlcdc.OptSyncColumns: mysqlcdc.SyncColumns(tables)}
	insert, err := writeSync(&b, a, src, cur, sourceTable, more)
	if err != nil {
		return "", err
	}
	b.WriteString(insert)
	return b.String(), nil
}

// writeHeader writes the job's SET statements and its Paimon catalog.
func writeHeader(b *strings.Builder, a *syncArgs, name string) {
	set := map[string]bool{}
	for _, kv := range a.sets {
		set[kv[0]] = true
	}
	fmt.Fprintf(b, "SET 'pipeline.name' = %s;\n", quote(name))
	if !set["execution.checkpointing.interval"] {
		// SynchronizationActionBase.DEFAULT_CHECKPOINT_INTERVAL.
		b.WriteString("SET 'execution.checkpointing.interval' = '3 min';\n")
	}
	if !set["table.exec.sink.upsert-materialize"] {
		// Paimon's CDC sink writes the records as they come, keyed by the
		// Paimon table's primary key: no materializer, also where the
		// planner would see the key change type (a narrowed MySQL column
		// cast to the wider Paimon one).
		b.WriteString("SET 'table.exec.sink.upsert-materialize' = 'NONE';\n")
	}
	for _, kv := range a.sets {
		fmt.Fprintf(b, "SET %s = %s;\n", quote(kv[0]), quote(kv[1]))
	}
	catOpts := map[string]string{"type": "paimon", "warehouse": a.warehouse}
	for k, v := range a.catalogConf {
		if k != "type" {
			catOpts[k] = v
		}
	}
	fmt.Fprintf(b, "CREATE CATALOG %s WITH (%s);\n", ident(syncCatalog), withList(catOpts))
}

// writeSync writes the 'mysql-cdc' source of one MySQL table, named
// source, and returns the INSERT of it into the Paimon table a.table;
// srcOpts are more source options.
func writeSync(b *strings.Builder, a *syncArgs, src mysqlcdc.TableInfo, cur *schema.TableSchema, source string, more map[string]string) (string, error) {
	// The source declares the Paimon table's columns (but the computed
	// ones) with the Paimon types: the source converts MySQL's values to
	// them, and a column the MySQL table dropped reads as NULL. The query
	// is then the same shape whatever the schema changes were, so the job
	// restores its checkpoint after one (vertex ids follow the plan's
	// shape).
	comp := map[string]computedColumn{}
	for _, c := range a.computed {
		comp[c.name] = c
	}
	meta := map[string]metadataColumn{}
	for _, m := range a.metadata {
		meta[m.name] = m
	}
	b.WriteString("CREATE TEMPORARY TABLE " + ident(source) + " (\n")
	for _, f := range cur.Fields {
		if comp[f.Name].name != "" {
			continue
		}
		if m := meta[f.Name]; m.name != "" {
			// CdcMetadataConverter: the source's metadata key.
			ts, err := schema.TypeString(m.typ)
			if err != nil {
				return "", fmt.Errorf("column %s: %w", f.Name, err)
			}
			fmt.Fprintf(b, "  %s %s METADATA FROM %s VIRTUAL,\n", ident(f.Name), ts, quote(m.key))
			continue
		}
		ts, err := sqlType(f.Type)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", f.Name, err)
		}
		fmt.Fprintf(b, "  %s %s,\n", ident(f.Name), ts)
	}
	pk := src.PrimaryKey
	if len(pk) == 0 {
		pk = a.primaryKeys
	}
	keys := make([]string, len(pk))
	for i, k := range pk {
		keys[i] = ident(k)
	}
	fmt.Fprintf(b, "  PRIMARY KEY (%s) NOT ENFORCED\n", strings.Join(keys, ", "))
	srcOpts := map[string]string{"connector": mysqlcdc.Identifier, mysqlcdc.OptSyncAction: "true"}
	for k, v := range a.mysqlConf {
		srcOpts[k] = v
	}
	for k, v := range more {
		srcOpts[k] = v
	}
	fmt.Fprintf(b, ") WITH (%s);\n", withList(srcOpts))
	sel := make([]string, len(cur.Fields))
	for i, f := range cur.Fields {
		if c := comp[f.Name]; c.name != "" {
			ts, err := sqlType(f.Type)
			if err != nil {
				return "", fmt.Errorf("column %s: %w", f.Name, err)
			}
			sel[i] = fmt.Sprintf("CAST(%s AS %s) AS %s", c.expr, ts, ident(f.Name))
		} else {
			sel[i] = ident(f.Name)
		}
	}
	hint := ""
	dyn := map[string]string{}
	for k, v := range a.tableConf {
		if k != "bucket" {
			dyn[k] = v
		}
	}
	if len(dyn) > 0 {
		hint = " /*+ OPTIONS(" + withList(dyn) + ") */"
	}
	return fmt.Sprintf("INSERT INTO %s.%s.%s%s\nSELECT %s\nFROM %s;\n", ident(syncCatalog), ident(a.database), ident(a.table), hint,
		strings.Join(sel, ", "), ident(source)), nil
}

const (
	syncCatalog = "paimon_sync"
	sourceTable = "mysql_source"
)

// sqlType is a type in Flink SQL, nullable (keys are NOT NULL by the
// PRIMARY KEY clause).
func sqlType(t sql.DataType) (string, error) {
	return schema.TypeString(t.WithNullable(true))
}

func ident(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func withList(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quote(k) + " = " + quote(m[k])
	}
	return strings.Join(parts, ", ")
}
