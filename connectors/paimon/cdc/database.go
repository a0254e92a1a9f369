package cdc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/mysqlcdc"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/warehouse"
	"github.com/sqlrun/sqlrun/sql"
)

// DatabaseActionName is Paimon's mysql_sync_database on the command line.
const DatabaseActionName = "mysql-sync-database"

func init() { connectors.RegisterJobAction(DatabaseActionName, mysqlSyncDatabase{}) }

var _ connectors.JobAction = mysqlSyncDatabase{}

type mysqlSyncDatabase struct{}

const databaseUsage = `Usage:
  sqlrun action mysql-sync-database --warehouse W --database D
      --mysql-conf hostname=H --mysql-conf username=U --mysql-conf password=P
      --mysql-conf database-name=DB [options]

Paimon's MySQL CDC database action (mysql_sync_database): one Paimon table
in D for every MySQL table of DB ('database-name', a regular expression)
that has a primary key and that --including-tables and not
--excluding-tables name (tables of one name in several databases merged
into one), created from the MySQL table's schema when it does not exist
(an existing one must be compatible), then one streaming job
synchronizes them all, snapshot then binlog, until Ctrl-C or SIGTERM (a
final savepoint; with --mysql-conf scan.startup.mode=snapshot, until the
snapshots are read). An UPDATE arrives as -D[before] and +I[after]. ADD COLUMN
and type widening of a MySQL table are applied to its Paimon table as the
job runs. With --mode combined, MySQL tables created while the job runs
that the options name are synchronized too: the job stops at the CREATE
TABLE and resumes with a Paimon table and a source more (its rows: a
snapshot, then the binlog); with --mode divided (the default) they are not.

Options (Paimon's argument names; --a_b and --a-b are the same):
  --warehouse W             the Paimon warehouse (file:///... , a local path, s3://...)
  --database D              the Paimon database (created when missing)
  --including-tables RE     the MySQL tables to synchronize (a regular
                            expression matching whole names; default .*)
  --excluding-tables RE     the MySQL tables not to synchronize (wins over
                            --including-tables)
  --including-dbs RE        the MySQL databases to synchronize (default .*)
  --excluding-dbs RE        the MySQL databases not to synchronize
  --table-mapping T=P       the Paimon table of MySQL table T is P (repeatable)
  --table-prefix P          the Paimon tables' name prefix
  --table-suffix S          the Paimon tables' name suffix
  --table-prefix-db DB=P    the name prefix of the Paimon tables of MySQL
                            database DB's tables, over --table-prefix
                            (repeatable)
  --table-suffix-db DB=S    the same for the suffix
  --merge-shards B          true (default): a Paimon table is named after the
                            MySQL table, same-named tables of several databases
                            merged into it; false: database_table
  --mode M                  divided (default): the tables of when the job
                            starts; combined: and the ones created later
  --ignore-incompatible B   true: skip a table whose existing Paimon table is
                            incompatible instead of failing
  --partition-keys K1,K2    the partition keys of the tables that have them all
  --multiple-table-partition-keys T=K1,K2
                            with --mode combined: the partition keys of MySQL
                            table T's Paimon table when the running job
                            creates it (repeatable)
  --eager-init B            true: with --mode combined, as Paimon's committer of
                            every table from the start (sqlrun's job always has
                            one sink per table); refused for a table with
                            'tag.automatic-creation'
  --primary-keys K1,K2      the primary keys of the tables that have them all
                            (others keep the MySQL table's)
  --type-mapping M1,M2      tinyint1-not-bool, to-nullable, to-string,
                            char-to-string, longtext-to-bytes,
                            bigint-unsigned-to-bigint
  --metadata-column C1,C2   metadata columns: table_name, database_name,
                            op_ts (the change's time, 0 for snapshot rows)
  --mysql-conf K=V          a 'mysql-cdc' source option (repeatable; no
                            'table-name')
  --catalog-conf K=V        a Paimon catalog option (repeatable)
  --table-conf K=V          a Paimon table option of every table (repeatable)
  -D K=V                    a SET option of the job, e.g.
                            execution.checkpointing.interval=10s (default 3 min,
                            as Paimon's action)
  --resume                  restore the job from its latest checkpoint or savepoint
  --allow-fresh             with --resume: start from scratch when there is none

Every Paimon table is written from its own 'mysql-cdc' source of the one
job; the sources read the binlog through one shared replication connection.
Server ids: the 'server-id' given (or a random one) plus the Paimon table's
index for each source's snapshot, plus the number of tables for the binlog.
`

type databaseArgs struct {
	syncArgs
	including, excluding       *regexp.Regexp
	includingDBs, excludingDBs *regexp.Regexp
	tableMapping               map[string]string
	prefix, suffix             string
	// dbPrefix and dbSuffix are --table_prefix_db and --table_suffix_db:
	// a MySQL database's name in lower case to the prefix (suffix) of
	// its tables' Paimon tables, over --table_prefix (--table_suffix).
	dbPrefix, dbSuffix              map[string]string
	mergeShards, ignoreIncompatible bool
	// combined is --mode combined: tables created while the job runs
	// are synchronized too.
	combined bool
	// eagerInit is --eager_init true: Paimon's combined sink has the
	// committer of every table from the start (StoreMultiCommitter), as
	// sqlrun's job always has each table's sink.
	eagerInit bool
	// multiPartition is --multiple_table_partition_keys: a MySQL table's
	// name to the partition keys of its Paimon table when the job creates
	// it while running (combined mode).
	multiPartition map[string][]string
	// databaseName and includingSrc are 'database-name' and
	// --including_tables as given, excludingSrc and excludingDBsSrc
	// --excluding_tables and --excluding_dbs ("" when not given): the
	// sources' patterns of new tables.
	databaseName, includingSrc, excludingSrc, excludingDBsSrc string
	// includingDBsSrc is --including_dbs as given ("" when not given).
	includingDBsSrc string
}

// parseDatabaseArgs reads the command line; a non-nil error is a usage
// error. It is MySqlSyncDatabaseActionFactory.withParams.
func parseDatabaseArgs(args []string) (*databaseArgs, bool, error) {
	var (
		a                           databaseArgs
		partition, primary, mapping string
		including, excluding, mode  string
		merge, ignore               string
		computedArg, metaC          multi
		includingDBs, excludingDBs  string
		mapping2, multiPart         multi
		prefixDB, suffixDB          multi
		eager                       string
	)
	f := newActionFlags(DatabaseActionName, &a.syncArgs)
	f.str(&partition, "partition_keys", "partition-keys")
	f.str(&primary, "primary_keys", "primary-keys")
	f.str(&mapping, "type_mapping", "type-mapping")
	f.str(&including, "including_tables", "including-tables")
	f.str(&excluding, "excluding_tables", "excluding-tables")
	f.str(&a.prefix, "table_prefix", "table-prefix")
	f.str(&a.suffix, "table_suffix", "table-suffix")
	f.list(&prefixDB, "table_prefix_db", "table-prefix-db")
	f.list(&suffixDB, "table_suffix_db", "table-suffix-db")
	f.str(&mode, "mode")
	f.str(&merge, "merge_shards", "merge-shards")
	f.str(&ignore, "ignore_incompatible", "ignore-incompatible")
	f.str(&includingDBs, "including_dbs", "including-dbs")
	f.str(&excludingDBs, "excluding_dbs", "excluding-dbs")
	f.list(&mapping2, "table_mapping", "table-mapping")
	f.list(&multiPart, "multiple_table_partition_keys", "multiple-table-partition-keys")
	f.str(&eager, "eager_init", "eager-init")
	f.list(&computedArg, "computed_column", "computed-column")
	f.list(&metaC, "metadata_column", "metadata-column")
	if help, err := f.parse(args, &a.syncArgs); help || err != nil {
		return nil, help, err
	}
	switch {
	case a.warehouse == "":
		return nil, false, errors.New("--warehouse is required")
	case a.database == "":
		return nil, false, errors.New("--database is required")
	case a.allowFresh && !a.resume:
		return nil, false, errors.New("--allow-fresh only makes sense with --resume")
	}
	if len(computedArg) > 0 {
		// SyncDatabaseActionBase.withComputedColumnArgs builds the
		// columns over no fields at all: 'cast' and 'now' (which
		// reference no column) and functions of those work, a function
		// of a table's column fails with "Referenced field '...' is not
		// in given fields: []."; every table gets the columns.
		var err error
		if a.computed, err = buildComputedColumns(computedArg, nil); err != nil {
			return nil, false, err
		}
	}
	// Boolean.valueOf: "true" in any case is true, anything else false.
	a.eagerInit = strings.EqualFold(eager, "true")
	// MultiTablesSinkMode.fromString.
	switch strings.ToLower(mode) {
	case "", "divided":
	case "combined":
		a.combined = true
	default:
		return nil, false, fmt.Errorf("Unsupported mode: %s", mode)
	}
	var err error
	if including == "" {
		including = ".*"
	}
	a.includingSrc, a.excludingSrc, a.excludingDBsSrc = including, excluding, excludingDBs
	// Java's Pattern.matcher(name).matches(): the whole name.
	if a.including, err = regexp.Compile("^(?:" + including + ")$"); err != nil {
		return nil, false, fmt.Errorf("--including_tables %q: %w", including, err)
	}
	if excluding != "" {
		if a.excluding, err = regexp.Compile("^(?:" + excluding + ")$"); err != nil {
			return nil, false, fmt.Errorf("--excluding_tables %q: %w", excluding, err)
		}
	}
	a.includingDBsSrc = includingDBs
	if includingDBs == "" {
		includingDBs = ".*"
	}
	if a.includingDBs, err = regexp.Compile("^(?:" + includingDBs + ")$"); err != nil {
		return nil, false, fmt.Errorf("--including_dbs %q: %w", includingDBs, err)
	}
	if excludingDBs != "" {
		if a.excludingDBs, err = regexp.Compile("^(?:" + excludingDBs + ")$"); err != nil {
			return nil, false, fmt.Errorf("--excluding_dbs %q: %w", excludingDBs, err)
		}
	}
	// optionalConfigMap: key=value; TableNameConverter looks the MySQL
	// table's name up in lower case.
	a.tableMapping = map[string]string{}
	for _, kv := range mapping2 {
		// ParameterUtils.parseKeyValueString.
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, false, fmt.Errorf("Invalid key-value string '%s'. Please use format 'key=value'", kv)
		}
		a.tableMapping[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	// SyncDatabaseActionBase.withDbPrefix / withDbSuffix: optionalConfigMap
	// with the database names in lower case.
	for _, m := range []struct {
		in  multi
		out *map[string]string
	}{{prefixDB, &a.dbPrefix}, {suffixDB, &a.dbSuffix}} {
		*m.out = map[string]string{}
		for _, kv := range m.in {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, false, fmt.Errorf("Invalid key-value string '%s'. Please use format 'key=value'", kv)
			}
			(*m.out)[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
	}
	// optionalConfigMapList with ParameterUtils.parseKeyValueList:
	// table=k1,k2, the table's name trimmed, the keys as they are.
	a.multiPartition = map[string][]string{}
	for _, kv := range multiPart {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, false, fmt.Errorf("Invalid key-value string '%s'. Please use format 'key=value'", kv)
		}
		a.multiPartition[strings.TrimSpace(k)] = strings.Split(strings.TrimSpace(v), ",")
	}
	// Boolean.parseBoolean: "true" in any case is true, anything else false.
	a.mergeShards = merge == "" || strings.EqualFold(merge, "true")
	a.ignoreIncompatible = strings.EqualFold(ignore, "true")
	if len(metaC) > 0 {
		// MySqlSyncDatabaseActionFactory: params.get(METADATA_COLUMN).split(",").
		if a.metadata, err = parseMetadataColumns(strings.Split(strings.Join(metaC, ","), ","), ""); err != nil {
			return nil, false, err
		}
	}
	a.partitionKeys, a.primaryKeys = splitList(partition), splitList(primary)
	if a.typeMapping, err = parseTypeMapping(mapping); err != nil {
		return nil, false, err
	}
	return &a, false, nil
}

// Prepare parses the command line, reads the MySQL tables' schemas,
// creates, checks or evolves the Paimon tables, and returns the job's
// script.
func (mysqlSyncDatabase) Prepare(args []string, again bool, stdout, stderr io.Writer) (connectors.ActionJob, int) {
	a, help, err := parseDatabaseArgs(args)
	if help {
		fmt.Fprint(stdout, databaseUsage)
		return connectors.ActionJob{}, 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun action %s: %v\n%s", DatabaseActionName, err, databaseUsage)
		return connectors.ActionJob{}, 2
	}
	if again && a.snapshotOnly() {
		return connectors.ActionJob{}, 0
	}
	script, msgs, err := prepareDatabase(context.Background(), a, again)
	for _, m := range msgs {
		fmt.Fprintln(stdout, m)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sqlrun action %s: %v\n", DatabaseActionName, err)
		return connectors.ActionJob{}, 1
	}
	return connectors.ActionJob{Script: script, Resume: a.resume, AllowFresh: a.allowFresh}, 0
}

// synced are the MySQL tables (db.table) of this process's last prepared
// database job: after a schema change the job stopped at, the action
// waits for all of them (an ALTER that copies a table renames it into
// place at its end).
var synced struct {
	sync.Mutex
	tables []string
}

// syncedTable is one Paimon table of the job and its MySQL tables.
type syncedTable struct {
	m   *merged
	cur *schema.TableSchema
}

// prepareDatabase is MySqlSyncDatabaseAction.beforeBuildingSourceSink and
// the job: one 'mysql-cdc' source per MySQL table, one INSERT into its
// Paimon table each, in one statement set.
func prepareDatabase(ctx context.Context, a *databaseArgs, again bool) (string, []string, error) {
	// SyncJobHandler.checkRequiredOption.
	for _, k := range []string{mysqlcdc.OptHostname, mysqlcdc.OptUsername, mysqlcdc.OptPassword, mysqlcdc.OptDatabaseName} {
		if _, ok := a.mysqlConf[k]; !ok {
			return "", nil, fmt.Errorf("mysql_conf [%s] must be specified.", k)
		}
	}
	if _, ok := a.mysqlConf[mysqlcdc.OptTableName]; ok {
		return "", nil, errors.New("table-name cannot be set for mysql_sync_database. If you want to sync several MySQL tables into one Paimon table, use mysql_sync_table instead.")
	}
	for _, k := range []string{"connector", mysqlcdc.OptSyncAction, mysqlcdc.OptSyncTables, mysqlcdc.OptSharedBinlog,
		mysqlcdc.OptSyncColumns, mysqlcdc.OptSyncNewTables, mysqlcdc.OptSyncNewTablesExcluded, mysqlcdc.OptSyncNewTablesDatabases} {
		if _, ok := a.mysqlConf[k]; ok {
			return "", nil, fmt.Errorf("mysql_conf [%s] is set by the action; remove it", k)
		}
	}
	if a.eagerInit && a.combined {
		if err := checkEagerInit(a.database+".*", a.tableConf); err != nil {
			return "", nil, err
		}
	}
	conf := map[string]string{}
	for k, v := range a.mysqlConf {
		conf[k] = v
	}
	conf[mysqlcdc.OptTableName] = ".*"
	a.databaseName = a.mysqlConf[mysqlcdc.OptDatabaseName]
	all, err := mysqlcdc.Describe(ctx, conf)
	synced.Lock()
	last := synced.tables
	synced.Unlock()
	for wait := 0; again && err == nil && !hasAll(all, last) && wait < 300; wait++ {
		time.Sleep(100 * time.Millisecond)
		all, err = mysqlcdc.Describe(ctx, conf)
	}
	if err != nil {
		return "", nil, err
	}
	// MySqlActionUtils.getMySqlTableInfos with shouldMonitorTable, then
	// logNonPkTables: a table without a primary key is not synchronized.
	var tables []mysqlcdc.TableInfo
	var noPK []string
	for _, t := range all {
		if !a.including.MatchString(t.Name) || a.excluding != nil && a.excluding.MatchString(t.Name) {
			continue
		}
		// RichCdcMultiplexRecordEventParser.shouldSynchronizeCurrentDb.
		if !a.includingDBs.MatchString(t.Database) || a.excludingDBs != nil && a.excludingDBs.MatchString(t.Database) {
			continue
		}
		if len(t.PrimaryKey) == 0 {
			noPK = append(noPK, t.Database+"."+t.Name)
			continue
		}
		tables = append(tables, t)
	}
	var msgs []string
	if len(noPK) > 0 {
		msgs = append(msgs, fmt.Sprintf("[INFO] Didn't find primary keys for tables '%s'. These tables won't be synchronized.", strings.Join(noPK, ",")))
	}
	if len(tables) == 0 {
		return "", msgs, fmt.Errorf("No tables found in MySQL database %s, or MySQL database does not exist.", a.mysqlConf[mysqlcdc.OptDatabaseName])
	}
	// JdbcSchemasInfo.toMySqlTableInfos: with merge_shards the tables of
	// one name in several databases are merged into one Paimon table
	// named after them; without, each is database_table. Then
	// TableNameConverter: --table_mapping, else the prefix and suffix.
	var groups []*merged
	byName := map[string][]mysqlcdc.TableInfo{}
	var order []string
	for _, t := range tables {
		n := t.Name
		if !a.mergeShards {
			n = t.Database + "_" + t.Name
		}
		if byName[n] == nil {
			order = append(order, n)
		}
		byName[n] = append(byName[n], t)
	}
	// The tables of one name go to one Paimon table but where
	// --table_prefix_db / --table_suffix_db name them apart by database.
	var parts [][]mysqlcdc.TableInfo
	var raws, paimonOrder []string
	paimonNames := map[string]int{}
	for _, n := range order {
		for _, t := range byName[n] {
			p := a.paimonName(t.Database, n)
			i, ok := paimonNames[p]
			if !ok {
				i = len(parts)
				paimonNames[p] = i
				paimonOrder = append(paimonOrder, p)
				raws = append(raws, n)
				parts = append(parts, nil)
			} else if raws[i] != n {
				first := parts[i][0]
				return "", msgs, fmt.Errorf("MySQL tables %s.%s and %s.%s map to the one Paimon table %s.%s: sqlrun synchronizes one Paimon table from tables of one name only",
					first.Database, first.Name, t.Database, t.Name, a.database, p)
			}
			parts[i] = append(parts[i], t)
		}
	}
	for i, p := range paimonOrder {
		m, err := mergeTables(parts[i], a.typeMapping, true)
		if err != nil {
			return "", msgs, err
		}
		m.paimon = p
		groups = append(groups, m)
	}
	cat, err := openCatalog(&a.syncArgs)
	if err != nil {
		return "", msgs, err
	}
	var jobs []syncedTable
	for _, m := range groups {
		ta := a.syncArgs
		ta.table = m.paimon
		t, fields := m.info(), m.fields
		if keys, ok := a.multiPartition[t.Name]; ok && len(keys) > 0 && a.combined && again {
			// NewTableSchemaBuilder.build: a table the job creates while
			// running (here: on a run after the job stopped, the MySQL
			// table new) takes its --multiple_table_partition_keys over
			// --partition_keys; the tables created when the action starts
			// (also on --resume) do not (beforeBuildingSourceSink).
			if exists, err := tableExists(cat, a.database, m.paimon); err != nil {
				return "", msgs, err
			} else if !exists {
				ta.partitionKeys = keys
			}
		}
		if len(t.PrimaryKey) == 0 && (len(ta.primaryKeys) == 0 || !containsAll(columnNames(fields), ta.primaryKeys)) {
			// CdcActionCommonUtils.setPrimaryKeys.
			return "", msgs, fmt.Errorf("Failed to set specified primary keys for sink table %s.%s. Also, can't infer primary keys from source table schemas because source tables have no primary keys or have different primary keys.",
				a.database, ta.table)
		}
		// CdcActionCommonUtils.buildPaimonSchema with strictlyCheckSpecified
		// false: keys a table does not have all of are not applied to it.
		colNames := columnNames(fields)
		for _, c := range a.computed {
			colNames = append(colNames, c.name)
		}
		for _, md := range a.metadata {
			colNames = append(colNames, md.name)
		}
		if !containsAll(colNames, ta.primaryKeys) {
			ta.primaryKeys = nil
		}
		if !containsAll(colNames, ta.partitionKeys) {
			ta.partitionKeys = nil
		}
		want, err := buildSchema(&ta, t, fields)
		if err != nil {
			return "", msgs, err
		}
		skip := false
		cur, more, err := ensureTable(cat, &ta, m.location, want, again, func(cur *schema.TableSchema) error {
			// MySqlSyncDatabaseAction.shouldMonitorTable.
			for _, f := range want.Schema.Columns {
				i := cur.FieldIndex(f.Name)
				if i >= 0 && canConvert(f.Type, cur.Fields[i].Type) == convert {
					continue
				}
				msg := fmt.Sprintf("Incompatible schema found.\nPaimon table is: %s.%s, fields are: %s.\nMySQL table is: %s, fields are: %s.\n",
					ta.database, ta.table, fieldList(cur.Fields), m.location, columnList(fields))
				if a.ignoreIncompatible {
					skip = true
					msgs = append(msgs, "[WARN] "+msg+"This table will be ignored.")
					return errSkip
				}
				return errors.New(msg + "If you want to ignore the incompatible tables, please specify --ignore-incompatible to true.")
			}
			return nil
		})
		if skip {
			continue
		}
		if err != nil {
			return "", msgs, err
		}
		msgs = append(msgs, more...)
		jobs = append(jobs, syncedTable{m: m, cur: cur})
	}
	if a.combined {
		// The job restores each source's and sink's state by the place
		// of its statement in the statement set, so the tables the job
		// adds as they are created in MySQL come after the ones it had:
		// the statements are in the order the Paimon tables were created
		// (their first schema's time), the order of the MySQL tables
		// for the ones created together. A table placed otherwise (a
		// Paimon table older than the job's, for a MySQL table created
		// while the job runs) is refused by its source's restore
		// (mysqlcdc: the state of another table).
		created := make([]int64, len(jobs))
		for i, j := range jobs {
			if created[i], err = firstSchemaTime(cat, a.database, j.m.paimon); err != nil {
				return "", msgs, err
			}
		}
		idx := make([]int, len(jobs))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(created[x], created[y]) })
		sorted := make([]syncedTable, len(jobs))
		for i, k := range idx {
			sorted[i] = jobs[k]
		}
		jobs = sorted
	}
	if a.eagerInit && a.combined {
		// StoreMultiCommitter with eagerInit: a table that got no rows
		// commits an empty snapshot when its commit forces one
		// (TableCommitImpl.forceCreatingSnapshot: 'tag.automatic-creation'
		// of process-time, or watermark with an idle timeout). Else the
		// eager committers change nothing a table holds.
		for _, j := range jobs {
			if err := checkEagerInit(a.database+"."+j.m.paimon, j.cur.Options); err != nil {
				return "", msgs, err
			}
		}
	}
	if len(jobs) == 0 {
		return "", msgs, errors.New("No tables to be synchronized. Possible cause is the schemas of all tables in specified MySQL database are not compatible with those of existed Paimon tables. Please check the log.")
	}
	script, err := buildDatabaseScript(a, jobs)
	if err != nil {
		return "", msgs, err
	}
	synced.Lock()
	synced.tables = synced.tables[:0]
	for _, j := range jobs {
		for _, t := range j.m.srcs {
			synced.tables = append(synced.tables, t.Database+"."+t.Name)
		}
	}
	synced.Unlock()
	return script, msgs, nil
}

var errSkip = errors.New("skip")

// optTagCreation is CoreOptions.TAG_AUTOMATIC_CREATION.
const optTagCreation = "tag.automatic-creation"

// checkEagerInit refuses --eager_init true in combined mode for a table
// whose commits may force a snapshot: StoreMultiCommitter's eager
// committers then commit empty snapshots of tables with no new rows
// (TableCommitImpl.forceCreatingSnapshot: 'tag.automatic-creation'
// process-time, or watermark with an idle timeout), which sqlrun's
// combined job does not do for the tables it has no rows of (its Paimon
// sink forces such a snapshot only at a commit of the table's own). For
// other tables the eager committers change nothing a table
// holds: sqlrun's job has each table's sink from the start.
func checkEagerInit(table string, opts map[string]string) error {
	v := opts[optTagCreation]
	if v == "" || strings.EqualFold(v, "none") || strings.EqualFold(v, "batch") {
		return nil
	}
	return fmt.Errorf("--eager_init true with Paimon table %s's '%s' = '%s': Paimon's combined sink then commits empty snapshots of tables with no new rows so that their tags are created; sqlrun's combined job does not",
		table, optTagCreation, v)
}

// paimonName is the Paimon table of the MySQL table db.name, raw its name
// (database_table without --merge_shards): TableNameConverter.convert,
// --table_mapping first (by the name in lower case), else the prefix and
// suffix --table_prefix_db / --table_suffix_db give the database (by its
// name in lower case), else --table_prefix / --table_suffix.
func (a *databaseArgs) paimonName(db, raw string) string {
	if to, ok := a.tableMapping[strings.ToLower(raw)]; ok {
		return to
	}
	prefix, suffix := a.prefix, a.suffix
	if p, ok := a.dbPrefix[strings.ToLower(db)]; ok {
		prefix = p
	}
	if s, ok := a.dbSuffix[strings.ToLower(db)]; ok {
		suffix = s
	}
	return prefix + raw + suffix
}

// buildDatabaseScript is the job: the catalog, a 'mysql-cdc' source per
// MySQL table (its exact database and table name, a server id of its own
// for its snapshot, the shared binlog connection's, all the job's tables
// as the ones whose ALTER TABLE ends the input), and a statement set of
// the INSERTs.
func buildDatabaseScript(a *databaseArgs, jobs []syncedTable) (string, error) {
	var b strings.Builder
	writeHeader(&b, &a.syncArgs, fmt.Sprintf("MySQL-Paimon Database Sync: %s", a.database))
	base, err := serverIDBase(a.mysqlConf[mysqlcdc.OptServerID])
	if err != nil {
		return "", err
	}
	var all []string
	for _, j := range jobs {
		for _, t := range j.m.srcs {
			all = append(all, t.Database+"."+t.Name)
		}
	}
	var inserts []string
	for i, j := range jobs {
		ta := a.syncArgs
		ta.table = j.m.paimon
		dbs := make([]string, len(j.m.srcs))
		for k, t := range j.m.srcs {
			dbs[k] = regexp.QuoteMeta(t.Database)
		}
		more := map[string]string{
			mysqlcdc.OptDatabaseName: strings.Join(dbs, "|"),
			mysqlcdc.OptTableName:    regexp.QuoteMeta(j.m.srcs[0].Name),
			mysqlcdc.OptServerID:     strconv.FormatUint(base+uint64(i), 10),
			mysqlcdc.OptSyncTables:   strings.Join(all, ","),
			// One binlog connection for all the tables, as Paimon's one
			// MySqlSource; its server id follows the tables' own.
			mysqlcdc.OptSharedBinlog: strconv.FormatUint(base+uint64(len(jobs)), 10),
			mysqlcdc.OptSyncColumns:  mysqlcdc.SyncColumns(j.m.srcs),
		}
		if a.combined {
			// CdcActionCommonUtils.combinedModeTableList: the tables of
			// the databases 'database-name' matches that --including_tables
			// matches, but --excluding_tables; of those, the ones of the
			// databases --including_dbs matches and --excluding_dbs does
			// not (RichCdcMultiplexRecordEventParser.shouldSynchronizeCurrentDb).
			more[mysqlcdc.OptSyncNewTables] = "(?:" + a.databaseName + `)\.(?:` + a.includingSrc + ")"
			if a.includingDBsSrc != "" {
				more[mysqlcdc.OptSyncNewTablesDatabases] = a.includingDBsSrc
			}
			var ex []string
			if a.excludingSrc != "" {
				ex = append(ex, `[^.]*\.(?:`+a.excludingSrc+")")
			}
			if a.excludingDBsSrc != "" {
				ex = append(ex, "(?:"+a.excludingDBsSrc+`)\.[^.]*`)
			}
			if len(ex) > 0 {
				more[mysqlcdc.OptSyncNewTablesExcluded] = strings.Join(ex, "|")
			}
		}
		insert, err := writeSync(&b, &ta, j.m.info(), j.cur, fmt.Sprintf("%s_%d", sourceTable, i), more)
		if err != nil {
			return "", fmt.Errorf("MySQL table %s: %w", j.m.location, err)
		}
		inserts = append(inserts, insert)
	}
	b.WriteString("EXECUTE STATEMENT SET BEGIN\n")
	for _, s := range inserts {
		b.WriteString(s)
	}
	b.WriteString("END;\n")
	return b.String(), nil
}

// serverIDBase is the first server id of the job's sources: the
// 'server-id' given ('n' or the start of 'n-m'), or a random one in
// [5400, 6400] as MySqlSourceConfigFactory picks it. The random one is
// picked once per process, so a run after a schema change keeps it.
func serverIDBase(v string) (uint64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return randomServerID, nil
	}
	lo, _, _ := strings.Cut(v, "-")
	n, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("The value of option 'server-id' is invalid: '%s'", v)
	}
	return n, nil
}

var randomServerID = uint64(5400 + time.Now().UnixNano()%1001)

// tableExists reports whether the Paimon table has a schema.
func tableExists(cat *warehouse.Catalog, db, table string) (bool, error) {
	cur, err := schema.NewManager(cat.FIO, cat.TablePath(db, table)).Latest()
	if err != nil {
		return false, fmt.Errorf("Paimon table %s.%s: %w", db, table, err)
	}
	return cur != nil, nil
}

// firstSchemaTime is when the Paimon table was created: its first
// schema's time.
func firstSchemaTime(cat *warehouse.Catalog, db, table string) (int64, error) {
	mgr := schema.NewManager(cat.FIO, cat.TablePath(db, table))
	ids, err := mgr.ListIDs()
	if err == nil && len(ids) == 0 {
		err = errors.New("no schema")
	}
	if err != nil {
		return 0, fmt.Errorf("Paimon table %s.%s: %w", db, table, err)
	}
	s, err := mgr.Read(ids[0])
	if err != nil {
		return 0, fmt.Errorf("Paimon table %s.%s: %w", db, table, err)
	}
	return s.TimeMillis, nil
}

func hasAll(tables []mysqlcdc.TableInfo, names []string) bool {
	have := map[string]bool{}
	for _, t := range tables {
		have[t.Database+"."+t.Name] = true
	}
	for _, n := range names {
		if !have[n] {
			return false
		}
	}
	return true
}

func columnNames(cols []sql.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
