// Package mysqlcdc is Flink CDC 3.x's 'mysql-cdc' table source: an initial
// snapshot of the captured tables read in primary-key chunks, then the
// binary log, with the hand-over of Flink CDC's incremental snapshot
// algorithm so that no change is lost or doubled.
//
// Per chunk the reader notes the binlog position before its SELECT (the low
// watermark) and after it (the high watermark); the binlog events between
// the two that touch the chunk's key range are merged into the chunk's rows
// (upsert by key), so a chunk is the table's content at its high watermark.
// The binlog phase then starts at the smallest high watermark and skips a
// change whose row lies in a chunk whose high watermark is later than the
// change. The reader's position (the snapshot's finished chunks, then the
// binlog file, position, MariaDB GTID and the rows already emitted of the
// transaction in progress) is its checkpoint state, so a restored job
// continues exactly where its checkpoint left off.
//
// The binlog is read over a replication connection with vitess.io/vitess's
// go/mysql (COM_BINLOG_DUMP, event and row-image decoding); snapshot
// queries go through github.com/go-sql-driver/mysql.
//
// The options, their defaults and the validation messages are Flink CDC's
// (MySqlSourceOptions, MySqlTableSourceFactory).
package mysqlcdc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Identifier is the 'connector' value.
const Identifier = "mysql-cdc"

// Option keys (MySqlSourceOptions).
const (
	OptHostname           = "hostname"
	OptPort               = "port"
	OptUsername           = "username"
	OptPassword           = "password"
	OptDatabaseName       = "database-name"
	OptTableName          = "table-name"
	OptServerTimeZone     = "server-time-zone"
	OptServerID           = "server-id"
	OptIncremental        = "scan.incremental.snapshot.enabled"
	OptChunkSize          = "scan.incremental.snapshot.chunk.size"
	OptChunkKeyColumn     = "scan.incremental.snapshot.chunk.key-column"
	OptFetchSize          = "scan.snapshot.fetch.size"
	OptConnectTimeout     = "connect.timeout"
	OptConnectMaxRetries  = "connect.max-retries"
	OptPoolSize           = "connection.pool.size"
	OptChunkMetaGroupSize = "chunk-meta.group.size"
	OptStartupMode        = "scan.startup.mode"
	OptOffsetFile         = "scan.startup.specific-offset.file"
	OptOffsetPos          = "scan.startup.specific-offset.pos"
	OptOffsetGTID         = "scan.startup.specific-offset.gtid-set"
	OptOffsetSkipEvents   = "scan.startup.specific-offset.skip-events"
	OptOffsetSkipRows     = "scan.startup.specific-offset.skip-rows"
	OptStartupTimestamp   = "scan.startup.timestamp-millis"
	OptHeartbeat          = "heartbeat.interval"
	OptFactorUpper        = "chunk-key.even-distribution.factor.upper-bound"
	OptFactorLower        = "chunk-key.even-distribution.factor.lower-bound"
	OptNewlyAdded         = "scan.newly-added-table.enabled"
	OptCloseIdleReader    = "scan.incremental.close-idle-reader.enabled"
	OptBackfillSkip       = "scan.incremental.snapshot.backfill.skip"
	// OptSyncAction is set by `sqlrun action mysql-sync-table` (Paimon's
	// MySQL CDC action) on the source it declares.
	OptSyncAction = "sqlrun.paimon-sync-action"
	// OptSyncTables is set by `sqlrun action mysql-sync-database` on each
	// of its sources: the job's MySQL tables (db.table, comma-separated),
	// an ALTER TABLE of any of which ends every source's input.
	OptSyncTables = "sqlrun.paimon-sync-tables"
	// OptSyncNewTables and OptSyncNewTablesExcluded are set by
	// `sqlrun action mysql-sync-database --mode combined` on each of its
	// sources: regular expressions on db.table; a table created (or
	// renamed into place) that the first matches and the second does not,
	// and that is not one of OptSyncTables, ends every source's input as
	// an ALTER TABLE does, so that the action adds it to the job.
	OptSyncNewTables         = "sqlrun.paimon-sync-new-tables"
	OptSyncNewTablesExcluded = "sqlrun.paimon-sync-new-tables-excluded"
	// OptSyncNewTablesDatabases is set with them when the action has
	// --including_dbs: a regular expression the new table's database
	// must match too.
	OptSyncNewTablesDatabases = "sqlrun.paimon-sync-new-tables-databases"
	// OptSyncColumns is set by the sync actions on each of their
	// sources: the columns the action read of each MySQL table
	// (SyncColumns).
	OptSyncColumns = "sqlrun.paimon-sync-columns"
	// OptSharedBinlog is set by `sqlrun action mysql-sync-database` on
	// each of its sources: the server id of the one binlog connection
	// they share.
	OptSharedBinlog = "sqlrun.shared-binlog-server-id"
)

// Startup modes.
const (
	ModeInitial  = "initial"
	ModeLatest   = "latest-offset"
	ModeEarliest = "earliest-offset"
	ModeSpecific = "specific-offset"
	ModeTime     = "timestamp"
	ModeSnapshot = "snapshot"
)

var options = []connectors.Option{
	{Key: OptHostname, Type: connectors.String, Required: true, Description: "IP address or hostname of the MySQL database server."},
	{Key: OptPort, Default: "3306", Type: connectors.Int, Description: "Integer port number of the MySQL database server."},
	{Key: OptUsername, Type: connectors.String, Required: true, Description: "Name of the MySQL database to use when connecting to the MySQL database server."},
	{Key: OptPassword, Type: connectors.String, Required: true, Description: "Password to use when connecting to the MySQL database server."},
	{Key: OptDatabaseName, Type: connectors.String, Required: true, Description: "Database name of the MySQL server to monitor (a regular expression)."},
	{Key: OptTableName, Type: connectors.String, Required: true, Description: "Table name of the MySQL database to monitor (a regular expression)."},
	{Key: OptServerTimeZone, Type: connectors.String, Description: "The session time zone in database server, e.g. \"Asia/Shanghai\"; the system's time zone when unset. A MySQL TIMESTAMP read into a TIMESTAMP column is its wall clock in this zone (into TIMESTAMP_LTZ, the instant itself)."},
	{Key: OptServerID, Type: connectors.String, Description: "A numeric ID or a numeric ID range of this database client, e.g. '5400' or '5400-5408'. A random ID between 5400 and 6400 when unset. sqlrun reads with one reader and uses the range's first ID."},
	{Key: OptIncremental, Default: "true", Type: connectors.Bool, Description: "Incremental snapshot is a new mechanism to read snapshot of a table. sqlrun implements only the incremental snapshot: 'false' is refused."},
	{Key: OptChunkSize, Default: "8096", Type: connectors.Int, Description: "The chunk size (number of rows) of table snapshot, captured tables are split into multiple chunks when read the snapshot of table."},
	{Key: OptChunkKeyColumn, Type: connectors.String, Description: "The chunk key of table snapshot, captured tables are split into multiple chunks by a chunk key when read the snapshot of table. A primary-key column; the first one by default."},
	{Key: OptFetchSize, Default: "1024", Type: connectors.Int, Description: "The maximum fetch size for per poll when read table snapshot."},
	{Key: OptConnectTimeout, Default: "30s", Type: connectors.Duration, Description: "The maximum time that the connector should wait after trying to connect to the MySQL database server before timing out."},
	{Key: OptConnectMaxRetries, Default: "3", Type: connectors.Int, Description: "The max retry times that the connector should retry to build MySQL database server connection."},
	{Key: OptPoolSize, Default: "20", Type: connectors.Int, Description: "The connection pool size."},
	{Key: OptChunkMetaGroupSize, Default: "1000", Type: connectors.Int, Description: "The group size of chunk meta, if the meta size exceeds the group size, the meta will be divided into multiple groups."},
	{Key: OptStartupMode, Default: ModeInitial, Type: connectors.String, Description: "Optional startup mode for MySQL CDC consumer, valid enumerations are \"initial\", \"earliest-offset\", \"latest-offset\", \"timestamp\" or \"specific-offset\"; also \"snapshot\": the initial snapshot, then the binlog up to the snapshot's last chunk, and the source ends (a bounded source)."},
	{Key: OptOffsetFile, Type: connectors.String, Description: "Optional binlog file name used in case of \"specific-offset\" startup mode."},
	{Key: OptOffsetPos, Type: connectors.Long, Description: "Optional binlog file position used in case of \"specific-offset\" startup mode."},
	{Key: OptOffsetGTID, Type: connectors.String, Description: "Optional GTID set used in case of \"specific-offset\" startup mode. sqlrun reads a MariaDB GTID position, one GTID per replication domain (domain-server-sequence, e.g. '0-1-42' or '0-1-42,7-2-9'): the binlog from the first transaction after each domain's GTID; it wins over a file and position given with it. A MySQL GTID set is refused."},
	{Key: OptOffsetSkipEvents, Type: connectors.Long, Description: "Optional number of events to skip after the specific starting offset."},
	{Key: OptOffsetSkipRows, Type: connectors.Long, Description: "Optional number of rows to skip after the specific starting offset."},
	{Key: OptStartupTimestamp, Type: connectors.Long, Description: "Optional timestamp used in case of \"timestamp\" startup mode."},
	{Key: OptHeartbeat, Default: "30s", Type: connectors.Duration, Description: "Optional interval of sending heartbeat event for tracing the latest available binlog offsets."},
	{Key: OptFactorUpper, Default: "1000.0", Type: connectors.Double, Description: "The upper bound of chunk key distribution factor."},
	{Key: OptFactorLower, Default: "0.05", Type: connectors.Double, Description: "The lower bound of chunk key distribution factor."},
	{Key: OptNewlyAdded, Default: "false", Type: connectors.Bool, Description: "Whether capture the scan the newly added tables or not (refused by sqlrun when 'true')."},
	{Key: OptCloseIdleReader, Default: "false", Type: connectors.Bool, Description: "Whether to close idle readers at the end of the snapshot phase."},
	{Key: OptBackfillSkip, Default: "false", Type: connectors.Bool, Description: "Whether to skip backfill in snapshot reading phase (refused by sqlrun when 'true')."},
	{Key: OptSyncAction, Default: "false", Type: connectors.Bool, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-table` on the source it runs (Paimon's MySQL CDC action): an UPDATE is emitted as -D[before] and +I[after] (Paimon's MySqlRecordParser), and an ALTER TABLE of the captured table ends the input past the statement, so that the action evolves the Paimon table and resumes."},
	{Key: OptSyncTables, Type: connectors.String, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-database` on each source it runs (one per Paimon table, reading its MySQL table or same-named shards): the job's MySQL tables as db.table, comma-separated. With 'sqlrun.paimon-sync-action', an ALTER TABLE of any of them ends this source's input too, and the sources with the same 'sqlrun.shared-binlog-server-id' stop together: once one has ended at such a statement, each other ends as soon as its binlog is at or past it (after its snapshot); the action then evolves the tables and resumes."},
	{Key: OptSyncNewTables, Type: connectors.String, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-database --mode combined` on each source it runs: a regular expression on db.table. With 'sqlrun.paimon-sync-action', a CREATE TABLE, CREATE OR REPLACE TABLE or RENAME TABLE that makes a table of such a name which is not one of 'sqlrun.paimon-sync-tables' (nor matched by 'sqlrun.paimon-sync-new-tables-excluded') ends the input past the statement, as an ALTER TABLE of the job's tables does, so that the action adds the table to the job."},
	{Key: OptSyncNewTablesExcluded, Type: connectors.String, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-database --mode combined`: a regular expression on db.table; the tables it matches are not the new tables of 'sqlrun.paimon-sync-new-tables'."},
	{Key: OptSyncNewTablesDatabases, Type: connectors.String, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-database --mode combined --including-dbs`: a regular expression on the database name; a new table of 'sqlrun.paimon-sync-new-tables' is one only in a database it matches."},
	{Key: OptSyncColumns, Type: connectors.String, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-table` and `mysql-sync-database` on each source they run: the columns the action read of each captured table, a JSON object of db.table to [\"name COLUMN_TYPE\", ...]. With 'sqlrun.paimon-sync-action', a table whose columns differ at its first snapshot chunk (an ALTER TABLE before the binlog the source reads) ends the input there as an ALTER TABLE does, so that the action evolves the Paimon table and resumes."},
	{Key: OptSharedBinlog, Type: connectors.Long, SqlrunOnly: true, Description: "sqlrun only: set by `sqlrun action mysql-sync-database` on each source it runs: the sources of a job with the same value read the binlog through one replication connection with this server id (Paimon's database action reads it once for all tables), each keeping its own position; 'server-id' is then the one of this source's snapshot chunks."},
	{Key: "debezium.", Prefix: true, Description: "Pass-through Debezium's properties; sqlrun accepts and ignores them."},
	{Key: "jdbc.properties.", Prefix: true, Description: "Pass-through custom JDBC URL properties; sqlrun accepts and ignores them."},
}

// Factory is the 'mysql-cdc' table factory.
type Factory struct{}

func init() { connectors.Register(Factory{}) }

var (
	_ connectors.SourceFactory = Factory{}
	_ connectors.FlinkPortable = Factory{}
)

// FlinkConnector is Flink CDC 3.2's MySQL connector.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true,
		Jars: []string{"org.apache.flink:flink-sql-connector-mysql-cdc:3.2.1"}}
}

// Identifier returns "mysql-cdc".
func (Factory) Identifier() string { return Identifier }

// Options declares the options of MySqlTableSourceFactory.
func (Factory) Options() []connectors.Option { return options }

// config is a validated table definition.
type config struct {
	host, user, password string
	port                 int
	dbRegex, tableRegex  *regexp.Regexp
	serverID             uint32
	mode                 string
	offset               position // specific-offset start
	// gtid is the specific-offset start by 'scan.startup.specific-offset.gtid-set'
	// (a MariaDB GTID position, one GTID per domain; nil: by file and position).
	gtid []mariaGTID
	// startSec is the timestamp startup's second
	// ('scan.startup.timestamp-millis' / 1000, as StartupOptions.timestamp
	// makes BinlogOffset.ofTimestampSec).
	startSec       int64
	chunkSize      int
	fetchSize      int
	chunkKey       string
	heartbeat      time.Duration
	connectTimeout time.Duration
	maxRetries     int
	schema         sql.Schema
	ident          connectors.ObjectIdentifier
	syncAction     bool
	// syncTables are OptSyncTables: [db, table] pairs.
	syncTables [][2]string
	// newTables and newExcluded are OptSyncNewTables and
	// OptSyncNewTablesExcluded (nil: not set).
	newTables, newExcluded *regexp.Regexp
	// newDatabases is OptSyncNewTablesDatabases (nil: not set).
	newDatabases *regexp.Regexp
	// syncColumns is OptSyncColumns: db.table to "name COLUMN_TYPE"s.
	syncColumns map[string][]string
	// sharedServerID is OptSharedBinlog (0: the source's own connection).
	sharedServerID uint32
	// serverZone is 'server-time-zone' (the system's zone when unset, as
	// Flink CDC's MySqlSourceConfigFactory defaults it): a MySQL TIMESTAMP
	// read into a TIMESTAMP (not TIMESTAMP_LTZ) column is its wall clock there.
	serverZone *time.Location
}

// CreateSource validates the table as MySqlTableSourceFactory does, in its
// order and wording.
func (Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	if err := connectors.Validate(Factory{}, ctx.Options); err != nil {
		return nil, err
	}
	o := connectors.NewOptions(options, ctx.Options)
	c := &config{host: o.Get(OptHostname), user: o.Get(OptUsername), password: o.Get(OptPassword),
		port: o.Int(OptPort), chunkSize: o.Int(OptChunkSize), fetchSize: o.Int(OptFetchSize),
		heartbeat: o.Duration(OptHeartbeat), connectTimeout: o.Duration(OptConnectTimeout), maxRetries: o.Int(OptConnectMaxRetries),
		schema: ctx.Schema, ident: ctx.Table, syncAction: o.Bool(OptSyncAction)}
	var err error
	if c.dbRegex, err = compileRegex(OptDatabaseName, o.Get(OptDatabaseName)); err != nil {
		return nil, err
	}
	if c.tableRegex, err = compileRegex(OptTableName, o.Get(OptTableName)); err != nil {
		return nil, err
	}
	for _, n := range strings.Split(o.Get(OptSyncTables), ",") {
		if db, tb, ok := strings.Cut(strings.TrimSpace(n), "."); ok {
			c.syncTables = append(c.syncTables, [2]string{db, tb})
		}
	}
	if o.Has(OptSyncColumns) {
		if err := json.Unmarshal([]byte(o.Get(OptSyncColumns)), &c.syncColumns); err != nil {
			return nil, sql.Errorf(sql.ValidationException, "The value of option '%s' is invalid: %v", OptSyncColumns, err)
		}
	}
	if o.Has(OptSyncNewTables) {
		if c.newTables, err = compileRegex(OptSyncNewTables, o.Get(OptSyncNewTables)); err != nil {
			return nil, err
		}
	}
	if o.Has(OptSyncNewTablesExcluded) {
		if c.newExcluded, err = compileRegex(OptSyncNewTablesExcluded, o.Get(OptSyncNewTablesExcluded)); err != nil {
			return nil, err
		}
	}
	if o.Has(OptSyncNewTablesDatabases) {
		if c.newDatabases, err = compileRegex(OptSyncNewTablesDatabases, o.Get(OptSyncNewTablesDatabases)); err != nil {
			return nil, err
		}
	}
	if o.Has(OptSharedBinlog) {
		n := o.Int64(OptSharedBinlog)
		if n <= 0 || n > 1<<32-1 {
			return nil, sql.Errorf(sql.ValidationException, "The value of option '%s' is invalid: '%s'", OptSharedBinlog, o.Get(OptSharedBinlog))
		}
		c.sharedServerID = uint32(n)
	}
	c.serverZone = time.Local
	if o.Has(OptServerTimeZone) {
		if c.serverZone, err = time.LoadLocation(o.Get(OptServerTimeZone)); err != nil {
			return nil, sql.Errorf(sql.ValidationException, "Invalid value for option '%s': '%s' is not a valid time zone id.",
				OptServerTimeZone, o.Get(OptServerTimeZone))
		}
	}
	if c.serverID, err = serverID(o); err != nil {
		return nil, err
	}
	if err := c.startup(o); err != nil {
		return nil, err
	}
	if !o.Bool(OptIncremental) {
		return nil, sql.Errorf(sql.ValidationException,
			"'%s' = 'false' (the legacy Debezium snapshot with a global read lock) is not supported by sqlrun; use the incremental snapshot (the default).", OptIncremental)
	}
	for _, k := range []string{OptNewlyAdded, OptBackfillSkip} {
		if o.Bool(k) {
			return nil, sql.Errorf(sql.ValidationException, "'%s' = 'true' is not supported by sqlrun yet.", k)
		}
	}
	// MySqlTableSourceFactory: with the incremental snapshot (always on
	// here) the table needs a primary key, and the sizes must be positive.
	if len(ctx.Schema.PrimaryKey) == 0 {
		return nil, sql.Errorf(sql.ValidationException, "The primary key is necessary when enable '%s' to 'true'",
			fmt.Sprintf("Key: '%s' , default: true (fallback keys: [])", OptIncremental))
	}
	for _, k := range []struct {
		key string
		min int
	}{{OptChunkSize, 1}, {OptChunkMetaGroupSize, 1}, {OptFetchSize, 1}, {OptPoolSize, 1}, {OptConnectMaxRetries, 0}} {
		if v := o.Int(k.key); v <= k.min {
			return nil, sql.Errorf(sql.IllegalStateException, "The value of option '%s' must larger than %d, but is %d", k.key, k.min, v)
		}
	}
	if up := o.Get(OptFactorUpper); parseFloat(up) < 1 {
		return nil, sql.Errorf(sql.IllegalStateException, "The value of option '%s' must larger than or equals %s, but is %s", OptFactorUpper, "1.0", up)
	}
	if lo := o.Get(OptFactorLower); parseFloat(lo) < 0 || parseFloat(lo) > 1 {
		return nil, sql.Errorf(sql.IllegalStateException, "The value of option '%s' must between %s and %s inclusively, but is %s", OptFactorLower, "0.0", "1.0", lo)
	}
	c.chunkKey = ctx.Schema.PrimaryKey[0]
	if o.Has(OptChunkKeyColumn) {
		k := o.Get(OptChunkKeyColumn)
		found := false
		for _, pk := range ctx.Schema.PrimaryKey {
			found = found || pk == k
		}
		if !found {
			return nil, sql.Errorf(sql.ValidationException,
				"Chunk key column '%s' doesn't exist in the primary key [%s] of the table %s.",
				k, strings.Join(ctx.Schema.PrimaryKey, ","), ctx.Table)
		}
		c.chunkKey = k
	}
	for _, col := range ctx.Schema.Columns {
		if err := checkDeclaredType(col); err != nil {
			return nil, err
		}
	}
	return &Source{cfg: c}, nil
}

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f
}

// compileRegex is MySqlTableSourceFactory.validateRegex; the pattern must
// match a whole name, as Debezium's include lists do.
func compileRegex(key, pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, sql.Errorf(sql.ValidationException, "The %s '%s' is not a valid regular expression", key, pattern)
	}
	return re, nil
}

// serverID is MySqlTableSourceFactory.validateAndGetServerId and
// ServerIdRange.from: 'n' or 'n-m'; unset, a random ID in [5400, 6400].
func serverID(o connectors.Options) (uint32, error) {
	if !o.Has(OptServerID) {
		return uint32(5400 + rand.IntN(1001)), nil
	}
	v := strings.TrimSpace(o.Get(OptServerID))
	bad := sql.Errorf(sql.ValidationException, "The value of option 'server-id' is invalid: '%s'", o.Get(OptServerID))
	lo, hi, isRange := strings.Cut(v, "-")
	start, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 32)
	if err != nil || start == 0 {
		return 0, bad
	}
	if isRange {
		end, err := strconv.ParseUint(strings.TrimSpace(hi), 10, 32)
		if err != nil || end < start {
			return 0, bad
		}
	}
	return uint32(start), nil
}

// startup is MySqlTableSourceFactory.getStartupOptions, with the modes
// sqlrun does not implement refused by name.
func (c *config) startup(o connectors.Options) error {
	mode := strings.ToLower(o.Get(OptStartupMode))
	switch mode {
	case ModeInitial, ModeSnapshot, ModeLatest, ModeEarliest:
	case ModeSpecific:
		if !o.Has(OptOffsetGTID) && !(o.Has(OptOffsetFile) && o.Has(OptOffsetPos)) {
			return sql.Errorf(sql.ValidationException, "Unable to find a valid binlog offset. Either %s, or %s and %s are required.",
				OptOffsetGTID, OptOffsetFile, OptOffsetPos)
		}
		if o.Has(OptOffsetSkipEvents) || o.Has(OptOffsetSkipRows) {
			return sql.Errorf(sql.ValidationException, "'%s' and '%s' are not supported by sqlrun yet.", OptOffsetSkipEvents, OptOffsetSkipRows)
		}
		if o.Has(OptOffsetGTID) {
			// The GTID set wins over a file and position given with it,
			// as Debezium's binlog reader starts from the GTID set on a
			// server with GTIDs.
			gs, err := checkGTIDOption(o.Get(OptOffsetGTID))
			if err != nil {
				return err
			}
			c.gtid = gs
			break
		}
		c.offset = position{File: o.Get(OptOffsetFile), Pos: uint64(o.Int64(OptOffsetPos))}
	case ModeTime:
		if !o.Has(OptStartupTimestamp) {
			return sql.Errorf(sql.ValidationException, "'%s' is required when '%s' = '%s'.", OptStartupTimestamp, OptStartupMode, ModeTime)
		}
		c.startSec = o.Int64(OptStartupTimestamp) / 1000
	default:
		return sql.Errorf(sql.ValidationException, "Invalid value for option '%s'. Supported values are [%s, %s, %s, %s, %s, %s], but was: %s",
			OptStartupMode, ModeInitial, ModeSnapshot, ModeLatest, ModeEarliest, ModeSpecific, ModeTime, o.Get(OptStartupMode))
	}
	c.mode = mode
	return nil
}

// Source is the mysql-cdc table source.
type Source struct {
	cfg  *config
	meta []string
}

var (
	_ connectors.TableSource         = (*Source)(nil)
	_ connectors.SupportsParallelism = (*Source)(nil)
	_ connectors.MetadataSource      = (*Source)(nil)
	_ connectors.NewSourceAPISource  = (*Source)(nil)
)

// NewSourceAPI: Flink CDC's MySqlTableSource reads through MySqlSource
// (SourceProvider).
func (*Source) NewSourceAPI() bool { return true }

// ReadableMetadata is MySqlReadableMetadata, in its order. op_ts is 0 for
// rows of the snapshot, as Flink CDC's.
func (s *Source) ReadableMetadata() []connectors.MetadataKey {
	return []connectors.MetadataKey{
		{Key: "table_name", Type: sql.String().NotNull()},
		{Key: "database_name", Type: sql.String().NotNull()},
		{Key: "op_ts", Type: sql.TimestampLTZ(3).NotNull()},
		{Key: "row_kind", Type: sql.String().NotNull()},
	}
}

// ApplyReadableMetadata appends the keys' values to every row.
func (s *Source) ApplyReadableMetadata(keys []string) { s.meta = append([]string(nil), keys...) }

// SourceClass is Flink CDC's table source class.
func (s *Source) SourceClass() string {
	return "org.apache.flink.cdc.connectors.mysql.table.MySqlTableSource"
}

// ChangelogMode is all kinds: +I, -U, +U, -D, as MySqlTableSource; +I and
// -D for Paimon's CDC action (OptSyncAction), whose updates are -D/+I.
func (s *Source) ChangelogMode() sql.ChangelogMode {
	if s.cfg.syncAction {
		return sql.ModeOf(sql.Insert, sql.Delete)
	}
	return sql.All
}

// Bounded is MySqlSource.getBoundedness: bounded for 'scan.startup.mode' =
// 'snapshot' (the snapshot, then the binlog up to the snapshot's last high
// watermark), else unbounded: the binlog never ends.
func (s *Source) Bounded() bool { return s.cfg.mode == ModeSnapshot }

// Parallelism is 1: sqlrun reads with a single reader.
func (s *Source) Parallelism() int { return 1 }

// NewReader creates the reader; only subtask 0 reads.
func (s *Source) NewReader(subtask, parallelism int) (connectors.SourceReader, error) {
	return newReader(s.cfg, subtask, s.meta), nil
}
