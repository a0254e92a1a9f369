// Package jdbc is the 'jdbc' connector: flink-connector-jdbc 3.3's MySQL
// table sink and scan source, in Go over github.com/go-sql-driver/mysql.
//
// The sink (Writer) is Flink's JdbcOutputFormat: per subtask a buffer
// reduced by primary key, flushed on max-rows, on an interval timer, at each
// checkpoint and at close, with retries and reconnects; upserts go out as
// multi-row INSERT ... ON DUPLICATE KEY UPDATE statements and deletes as
// multi-key DELETEs (what rewriteBatchedStatements=true gives Flink). It is
// at-least-once: after a failure the job replays from its last checkpoint,
// and the replay converges because every statement is by key.
//
// The source is Flink's bounded JdbcRowDataInputFormat: one SELECT, split
// into BETWEEN ranges by scan.partition.*, insert-only even in streaming.
//
// The options, their defaults and the validation messages are the
// connector's own (JdbcConnectorOptions, JdbcDynamicTableFactory).
package jdbc

import (
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	"github.com/sqlrun/sqlrun/sql"
)

// Identifier is the 'connector' value.
const Identifier = "jdbc"

// Option keys.
const (
	OptURL                 = "url"
	OptTableName           = "table-name"
	OptDriver              = "driver"
	OptUsername            = "username"
	OptPassword            = "password"
	OptCompatibleMode      = "compatible-mode"
	OptMaxRetryTimeout     = "connection.max-retry-timeout"
	OptScanPartitionColumn = "scan.partition.column"
	OptScanPartitionNum    = "scan.partition.num"
	OptScanPartitionLower  = "scan.partition.lower-bound"
	OptScanPartitionUpper  = "scan.partition.upper-bound"
	OptScanFetchSize       = "scan.fetch-size"
	OptScanAutoCommit      = "scan.auto-commit"
	OptFilterHandling      = "filter.handling.policy"
	OptLookupCache         = "lookup.cache"
	OptLookupMaxRows       = "lookup.partial-cache.max-rows"
	OptLookupExpireWrite   = "lookup.partial-cache.expire-after-write"
	OptLookupExpireAccess  = "lookup.partial-cache.expire-after-access"
	OptLookupCacheMissing  = "lookup.partial-cache.cache-missing-key"
	OptLookupMaxRetries    = "lookup.max-retries"
	OptLookupOldMaxRows    = "lookup.cache.max-rows"
	OptLookupOldTTL        = "lookup.cache.ttl"
	OptLookupOldMissing    = "lookup.cache.caching-missing-key"
	OptSinkMaxRows         = "sink.buffer-flush.max-rows"
	OptSinkInterval        = "sink.buffer-flush.interval"
	OptSinkMaxRetries      = "sink.max-retries"
	OptSinkParallelism     = "sink.parallelism"
	// OptDeliveryGuarantee is Flink's option name (the Kafka sink's); the
	// JDBC connector has no such option, so 'exactly-once' is sqlrun's own.
	OptDeliveryGuarantee = "sink.delivery-guarantee"
	// sqlrun's own sink options (see guarantees.md).
	OptTransactionalFlush = "sink.transactional-flush"
	OptProgressTable      = "sink.exactly-once.progress-table"
	OptVersionColumn      = "sink.version-column"
	OptOrphans            = "sink.orphans-on-full-start"
)

var options = []connectors.Option{
	{Key: OptURL, Type: connectors.String, Required: true, Description: "The JDBC database url."},
	{Key: OptTableName, Type: connectors.String, Required: true, Description: "The JDBC table name."},
	{Key: OptDriver, Type: connectors.String, Description: "The class name of the JDBC driver to use to connect to this URL. If not set, it will automatically be derived from the URL."},
	{Key: OptUsername, Type: connectors.String, Description: "The JDBC user name."},
	{Key: OptPassword, Type: connectors.String, Description: "The JDBC password."},
	{Key: OptCompatibleMode, Type: connectors.String, Description: "The compatible mode of database."},
	{Key: OptMaxRetryTimeout, Default: "60s", Type: connectors.Duration, Description: "Maximum timeout between retries."},
	{Key: OptScanPartitionColumn, Type: connectors.String, Description: "The column name used for partitioning the input."},
	{Key: OptScanPartitionNum, Type: connectors.Int, Description: "The number of partitions."},
	{Key: OptScanPartitionLower, Type: connectors.Long, Description: "The smallest value of the first partition."},
	{Key: OptScanPartitionUpper, Type: connectors.Long, Description: "The largest value of the last partition."},
	{Key: OptScanFetchSize, Default: "0", Type: connectors.Int, Description: "Gives the reader a hint as to the number of rows that should be fetched from the database per round-trip when reading. If the value is zero, then the hint is ignored."},
	{Key: OptScanAutoCommit, Default: "true", Type: connectors.Bool, Description: "Sets whether the driver is in auto-commit mode."},
	{Key: OptFilterHandling, Default: "always", Type: connectors.Enum, Enum: []string{"always", "never"}, Description: "Fine-grained configuration to control filter push down."},
	{Key: OptLookupCache, Default: "NONE", Type: connectors.Enum, Enum: []string{"NONE", "PARTIAL"}, Description: "The caching strategy for this lookup table, including NONE and PARTIAL."},
	{Key: OptLookupMaxRows, Type: connectors.Long, Description: "The maximum number of rows to store in the cache."},
	{Key: OptLookupExpireWrite, Type: connectors.Duration, Description: "The time after which a row expires from the cache after it was written."},
	{Key: OptLookupExpireAccess, Type: connectors.Duration, Description: "The time after which a row expires from the cache after it was last accessed."},
	{Key: OptLookupCacheMissing, Default: "true", Type: connectors.Bool, Description: "Whether to store an empty value into the cache if the lookup key doesn't match any rows in the table."},
	{Key: OptLookupMaxRetries, Default: "3", Type: connectors.Int, Description: "The max retry times if lookup database failed."},
	{Key: OptLookupOldMaxRows, Default: "-1", Type: connectors.Long, Description: "Deprecated: use lookup.partial-cache.max-rows."},
	{Key: OptLookupOldTTL, Default: "10s", Type: connectors.Duration, Description: "Deprecated: use lookup.partial-cache.expire-after-write."},
	{Key: OptLookupOldMissing, Default: "true", Type: connectors.Bool, Description: "Deprecated: use lookup.partial-cache.cache-missing-key."},
	{Key: OptSinkMaxRows, Default: "100", Type: connectors.Int, Description: "The max size of buffered records before flush. Can be set to zero to disable it."},
	{Key: OptSinkInterval, Default: "1s", Type: connectors.Duration, Description: "The flush interval mills, over this time, asynchronous threads will flush data. Can be set to '0' to disable it. "},
	{Key: OptSinkMaxRetries, Default: "3", Type: connectors.Int, Description: "The max retry times if writing records to database failed."},
	{Key: OptSinkParallelism, Type: connectors.Int, Description: "Defines a custom parallelism for the sink."},
	{Key: OptDeliveryGuarantee, SqlrunOnly: true, Default: "at-least-once", Type: connectors.Enum, Enum: []string{"at-least-once", "exactly-once"}, Description: "sqlrun only (Flink's Kafka sink has this option, flink-connector-jdbc does not). at-least-once (flink-connector-jdbc's behaviour) or exactly-once: each checkpoint's rows are written in one MySQL transaction with a progress row when the checkpoint completes, and never twice."},
	{Key: OptTransactionalFlush, SqlrunOnly: true, Default: "false", Type: connectors.Bool, Description: "sqlrun only. Write each flush's upserts and deletes in one transaction, so readers never see part of a flush."},
	{Key: OptProgressTable, SqlrunOnly: true, Default: "_sqlrun_sink_progress", Type: connectors.String, Description: "sqlrun only. The table, in the URL's database, where exactly-once sinks record the last committed checkpoint."},
	{Key: OptVersionColumn, SqlrunOnly: true, Type: connectors.String, Description: "sqlrun only. A column whose value orders a key's versions: an upsert or delete never replaces a row whose stored version is newer."},
	{Key: OptOrphans, SqlrunOnly: true, Default: connectors.OrphansKeep, Type: connectors.Enum, Enum: []string{connectors.OrphansKeep, connectors.OrphansReport, connectors.OrphansDelete}, Description: "sqlrun only. When a job starts with a full read of its sources (latest-full, no state restored): keep (flink-connector-jdbc's behaviour) leaves rows whose key the full read does not produce, report lists them, delete deletes them before the job starts."},
	{Key: OptAllowOtherUniqueKeys, SqlrunOnly: true, Default: "false", Type: connectors.Bool, Description: "sqlrun only. Open the sink even when the MySQL table has unique keys besides the declared primary key; an upsert that collides on one of them overwrites that other row."},
}

// Factory is the 'jdbc' table factory.
type Factory struct{}

func init() { connectors.Register(Factory{}) }

var (
	_ connectors.SourceFactory = Factory{}
	_ connectors.SinkFactory   = Factory{}
	_ connectors.FlinkPortable = Factory{}
)

// FlinkConnector is flink-connector-jdbc 3.3 for Flink 1.20 with MySQL's
// Connector/J.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true,
		Jars: []string{"org.apache.flink:flink-connector-jdbc:3.3.0-1.20", "com.mysql:mysql-connector-j:8.4.0"}}
}

// Identifier returns "jdbc".
func (Factory) Identifier() string { return Identifier }

// Options declares every option of JdbcDynamicTableFactory.
func (Factory) Options() []connectors.Option { return options }

// config is a validated table definition shared by source and sink.
type config struct {
	opts   connectors.Options
	table  string
	conn   *dialect.Connection
	schema sql.Schema
	ident  connectors.ObjectIdentifier
}

// validate is JdbcDynamicTableFactory.validateConfigOptions plus the
// dialect's type check, in Flink's order and wording.
func validate(ctx *connectors.Context) (*config, error) {
	if err := connectors.Validate(Factory{}, ctx.Options); err != nil {
		return nil, err
	}
	o := connectors.NewOptions(options, ctx.Options)
	if err := allOrNone(o, OptUsername, OptPassword); err != nil {
		return nil, err
	}
	if err := allOrNone(o, OptScanPartitionColumn, OptScanPartitionNum, OptScanPartitionLower, OptScanPartitionUpper); err != nil {
		return nil, err
	}
	if o.Has(OptScanPartitionLower) && o.Has(OptScanPartitionUpper) {
		lo, hi := o.Int64(OptScanPartitionLower), o.Int64(OptScanPartitionUpper)
		if lo > hi {
			return nil, sql.Errorf(sql.IllegalArgumentException, "'%s'='%d' must not be larger than '%s'='%d'.",
				OptScanPartitionLower, lo, OptScanPartitionUpper, hi)
		}
	}
	if err := allOrNone(o, OptLookupOldMaxRows, OptLookupOldTTL); err != nil {
		return nil, err
	}
	for _, k := range []string{OptLookupMaxRetries, OptSinkMaxRetries} {
		if n := o.Int(k); n < 0 {
			return nil, sql.Errorf(sql.IllegalArgumentException, "The value of '%s' option shouldn't be negative, but is %d.", k, n)
		}
	}
	if d := o.Duration(OptMaxRetryTimeout); d.Seconds() < 1 || d%1e9 != 0 {
		return nil, sql.Errorf(sql.IllegalArgumentException,
			"The value of '%s' option must be in second granularity and shouldn't be smaller than 1 second, but is %s.",
			OptMaxRetryTimeout, o.Get(OptMaxRetryTimeout))
	}
	if o.Has(OptScanPartitionNum) && o.Int(OptScanPartitionNum) < 1 {
		return nil, sql.Errorf(sql.IllegalArgumentException, "'%s' must be a positive integer, but is %d.",
			OptScanPartitionNum, o.Int(OptScanPartitionNum))
	}
	if o.Has(OptSinkParallelism) && o.Int(OptSinkParallelism) < 1 {
		return nil, sql.Errorf(sql.ValidationException, "Invalid configured parallelism %d for table '%s'.",
			o.Int(OptSinkParallelism), ctx.Table)
	}
	if o.Has(OptDriver) {
		switch o.Get(OptDriver) {
		case "com.mysql.jdbc.Driver", "com.mysql.cj.jdbc.Driver", "org.mariadb.jdbc.Driver":
		default:
			return nil, sql.Errorf(sql.ValidationException,
				"Unsupported JDBC driver '%s': sqlrun speaks MySQL through its built-in driver (use com.mysql.cj.jdbc.Driver or leave 'driver' unset).",
				o.Get(OptDriver))
		}
	}
	conn, err := dialect.ParseURL(o.Get(OptURL), o.Get(OptUsername), o.Get(OptPassword), o.Has(OptUsername))
	if err != nil {
		return nil, err
	}
	if err := (dialect.MySQL{}).Validate(ctx.Schema); err != nil {
		return nil, err
	}
	for _, k := range ctx.Schema.PrimaryKey {
		if ctx.Schema.Index(k) < 0 {
			return nil, sql.Errorf(sql.ValidationException, "Primary key column '%s' is not a column of table %s.", k, ctx.Table)
		}
	}
	if err := validateVersionColumn(o, ctx); err != nil {
		return nil, err
	}
	if orphansPolicy(o) != connectors.OrphansKeep && !ctx.Schema.HasPrimaryKey() {
		return nil, sql.Errorf(sql.ValidationException,
			"'%s' = '%s' needs a primary key: table %s has none, so its rows cannot be matched with the source's.",
			OptOrphans, o.Get(OptOrphans), ctx.Table)
	}
	if o.Has(OptProgressTable) && strings.TrimSpace(o.Get(OptProgressTable)) == "" {
		return nil, sql.Errorf(sql.ValidationException, "'%s' must not be empty.", OptProgressTable)
	}
	return &config{opts: o, table: o.Get(OptTableName), conn: conn, schema: ctx.Schema, ident: ctx.Table}, nil
}

// validateVersionColumn checks 'sink.version-column': a column of the
// table, not part of the primary key (it versions the key's row), of a
// type MySQL compares by value.
func validateVersionColumn(o connectors.Options, ctx *connectors.Context) error {
	if !o.Has(OptVersionColumn) {
		return nil
	}
	name := o.Get(OptVersionColumn)
	i := ctx.Schema.Index(name)
	if i < 0 {
		return sql.Errorf(sql.ValidationException, "Unknown column '%s' in '%s' of table %s.", name, OptVersionColumn, ctx.Table)
	}
	if !ctx.Schema.HasPrimaryKey() {
		return sql.Errorf(sql.ValidationException,
			"'%s' needs a primary key: table %s has none, so its rows are appended, never replaced.", OptVersionColumn, ctx.Table)
	}
	for _, k := range ctx.Schema.PrimaryKey {
		if strings.EqualFold(k, name) {
			return sql.Errorf(sql.ValidationException, "'%s' = '%s' is a primary key column of table %s; it must version the key's row.",
				OptVersionColumn, name, ctx.Table)
		}
	}
	switch ctx.Schema.Columns[i].Type.Root {
	case sql.TypeTinyInt, sql.TypeSmallInt, sql.TypeInt, sql.TypeBigInt, sql.TypeDecimal, sql.TypeFloat, sql.TypeDouble,
		sql.TypeDate, sql.TypeTime, sql.TypeTimestamp, sql.TypeTimestampLTZ, sql.TypeChar, sql.TypeVarChar:
		return nil
	}
	return sql.Errorf(sql.ValidationException, "'%s' = '%s' has type %s; a version column must be numeric, a date/time or a string.",
		OptVersionColumn, name, ctx.Schema.Columns[i].Type)
}

// orphansPolicy is 'sink.orphans-on-full-start' (an enum, case-insensitive).
func orphansPolicy(o connectors.Options) string {
	return strings.ToLower(strings.TrimSpace(o.Get(OptOrphans)))
}

// allOrNone is JdbcDynamicTableFactory.checkAllOrNone.
func allOrNone(o connectors.Options, keys ...string) error {
	n := 0
	for _, k := range keys {
		if o.Has(k) {
			n++
		}
	}
	if n != 0 && n != len(keys) {
		return sql.Errorf(sql.ValidationException, "Either all or none of the following options should be provided:\n%s",
			strings.Join(keys, "\n"))
	}
	return nil
}

// CreateSink validates the table and returns the upsert (primary key) or
// append sink.
func (Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	c, err := validate(ctx)
	if err != nil {
		return nil, err
	}
	sink := &Sink{cfg: c, runID: newRunID(), noCheckpoints: ctx.Streaming && ctx.CheckpointInterval <= 0}
	sink.stats.latency = newLatencyHistogram()
	return sink, nil
}

// CreateSource validates the table and returns the bounded scan source.
func (Factory) CreateSource(ctx *connectors.Context) (connectors.TableSource, error) {
	c, err := validate(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := lookupOptions(c.opts); err != nil {
		return nil, err
	}
	s := &Source{cfg: c, fields: allFields(len(c.schema.Columns))}
	if c.opts.Has(OptScanPartitionColumn) {
		col := c.opts.Get(OptScanPartitionColumn)
		if c.schema.Index(col) < 0 {
			return nil, sql.Errorf(sql.ValidationException, "Unknown column '%s' in '%s' of table %s.",
				col, OptScanPartitionColumn, ctx.Table)
		}
	}
	return s, nil
}

func allFields(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// String describes a table's connection without its password, for logs.
func (c *config) String() string {
	return c.ident.String() + " -> " + c.conn.String() + " table " + strconv.Quote(c.table)
}
