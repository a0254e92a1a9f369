package exec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// Configuration keys the session reads itself. The runtime reads its own
// keys (execution.checkpointing.*, state.*, restart-strategy*, ...) from
// Config.Map.
const (
	KeyRuntimeMode          = "execution.runtime-mode"
	KeyParallelism          = "parallelism.default"
	KeyCheckpointInterval   = "execution.checkpointing.interval"
	KeyNumRetained          = "execution.checkpointing.num-retained"
	KeyCheckpointDir        = "state.checkpoints.dir"
	KeySavepointDir         = "state.savepoints.dir"
	KeySavepointPath        = "execution.savepoint.path"
	KeyIgnoreUnclaimed      = "execution.savepoint.ignore-unclaimed-state"
	KeyDMLSync              = "table.dml-sync"
	KeyResultMode           = "sql-client.execution.result-mode"
	KeyPrintTimeCost        = "sql-client.display.print-time-cost"
	KeyMaxColumnWidth       = "table.display.max-column-width"
	KeyUpsertMaterialize    = "table.exec.sink.upsert-materialize"
	KeyCDCDuplicate         = "table.exec.source.cdc-events-duplicate"
	KeyNotNullEnforcer      = "table.exec.sink.not-null-enforcer"
	KeyPipelineName         = "pipeline.name"
	KeyRestartStrategy      = "restart-strategy.type"
	KeyRestartStrategyOld   = "restart-strategy"
	KeyRestartAttempts      = "restart-strategy.fixed-delay.attempts"
	KeyRestartDelay         = "restart-strategy.fixed-delay.delay"
	KeyPromPort             = "metrics.reporter.prom.port"
	KeyLocalTimeZone        = "table.local-time-zone"
	KeyMaxRowsTableMode     = "sql-client.execution.max-table-result.rows"
	KeyExecutionCheckpointM = "execution.checkpointing.mode"
)

// ConfigOptions are the keys sqlrun knows, with Flink's names, types and
// defaults. SET accepts any key, as Flink does (connectors and the
// runtime may read keys not listed here), but a known key's value must
// parse as its type. They also feed the shell's tab completion.
var ConfigOptions = []connectors.Option{
	{Key: KeyRuntimeMode, Type: connectors.Enum, Default: "streaming", Enum: []string{"streaming", "batch", "automatic"},
		Description: "Runtime execution mode of DataStream programs."},
	{Key: KeyParallelism, Type: connectors.Int, Default: "1", Description: "Default parallelism of operators."},
	{Key: KeyCheckpointInterval, Type: connectors.Duration,
		Description: "Interval between checkpoints; checkpointing is off when unset."},
	{Key: KeyExecutionCheckpointM, Type: connectors.Enum, Default: "EXACTLY_ONCE", Enum: []string{"EXACTLY_ONCE", "AT_LEAST_ONCE"},
		Description: "Checkpointing mode (sqlrun always aligns barriers)."},
	{Key: KeyNumRetained, Type: connectors.Int, Default: "1", Description: "Number of completed checkpoints to retain."},
	{Key: KeyCheckpointDir, Type: connectors.String,
		Description: "Directory for checkpoints; default $XDG_DATA_HOME/sqlrun/checkpoints or ~/.local/share/sqlrun/checkpoints."},
	{Key: KeySavepointDir, Type: connectors.String, Description: "Default directory for savepoints."},
	{Key: KeySavepointPath, Type: connectors.String, Description: "Checkpoint or savepoint the next job restores from."},
	{Key: KeyIgnoreUnclaimed, Type: connectors.Bool, Default: "false",
		Description: "Allow restoring a savepoint with state no operator claims."},
	{Key: KeyDMLSync, Type: connectors.Bool, Default: "false", Description: "Wait for INSERT jobs to finish."},
	{Key: KeyResultMode, Type: connectors.Enum, Default: "table", Enum: []string{"table", "changelog", "tableau"},
		Description: "How the shell shows query results."},
	{Key: KeyPrintTimeCost, Type: connectors.Bool, Default: "true", Description: "Print the query time in tableau mode."},
	{Key: KeyMaxColumnWidth, Type: connectors.Int, Default: "30",
		Description: "Maximum width of a column in tableau results; longer values are cut with '...'."},
	{Key: KeyMaxRowsTableMode, Type: connectors.Int, Default: "1000000",
		Description: "Rows the table result mode keeps."},
	{Key: KeyUpsertMaterialize, Type: connectors.Enum, Default: "AUTO", Enum: []string{"NONE", "AUTO", "FORCE"},
		Description: "Add a SinkUpsertMaterializer in front of upsert sinks."},
	{Key: KeyCDCDuplicate, Type: connectors.Bool, Default: "false",
		Description: "CDC sources may produce duplicate events (adds ChangelogNormalize)."},
	{Key: "table.exec.state.ttl", Type: connectors.Duration, Default: "0 ms",
		Description: "State retention; sqlrun keeps state forever and reads this only to let ChangelogNormalize forward duplicates when it is set."},
	{Key: KeyNotNullEnforcer, Type: connectors.Enum, Default: "ERROR", Enum: []string{"ERROR", "DROP"},
		Description: "What to do with a NULL for a NOT NULL sink column."},
	{Key: KeyPipelineName, Type: connectors.String, Description: "Name of the next job (also its checkpoint directory)."},
	{Key: KeyRestartStrategy, Type: connectors.String, FallbackKeys: []string{KeyRestartStrategyOld},
		Description: "none or fixed-delay."},
	{Key: KeyRestartStrategyOld, Type: connectors.String, Description: "Deprecated name of restart-strategy.type."},
	{Key: KeyRestartAttempts, Type: connectors.Int, Default: "1", Description: "Restarts before a job fails."},
	{Key: KeyRestartDelay, Type: connectors.Duration, Default: "1 s", Description: "Delay between restarts."},
	{Key: KeyPromPort, Type: connectors.String, Description: "Port (or range) of the Prometheus metrics endpoint."},
	{Key: KeyLocalTimeZone, Type: connectors.String, Default: "default", Description: "Session time zone."},
}

var optionByKey = func() map[string]connectors.Option {
	m := map[string]connectors.Option{}
	for _, o := range ConfigOptions {
		m[o.Key] = o
	}
	return m
}()

// Config is the session configuration: what SET changed, over Flink's
// defaults. It is not safe for concurrent use; the session serialises
// statements.
type Config struct {
	set map[string]string
}

// NewConfig returns a configuration with only defaults.
func NewConfig() *Config { return &Config{set: map[string]string{}} }

// Set changes a key. Values of known keys are checked against their type
// with Flink's ConfigOption parse wording.
func (c *Config) Set(key, value string) error {
	if o, ok := optionByKey[key]; ok {
		if err := checkValue(o, value); err != nil {
			return err
		}
	}
	c.set[key] = value
	return nil
}

func checkValue(o connectors.Option, v string) error {
	bad := sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", v, o.Key)
	v = strings.TrimSpace(v)
	switch o.Type {
	case connectors.Int:
		if _, err := strconv.Atoi(v); err != nil {
			return bad
		}
	case connectors.Bool:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return bad
		}
	case connectors.Duration:
		if _, err := connectors.ParseDuration(v); err != nil {
			return bad
		}
	case connectors.Enum:
		for _, e := range o.Enum {
			if strings.EqualFold(e, v) {
				return nil
			}
		}
		return bad
	}
	return nil
}

// Reset removes one key (back to its default) or, with key "", all.
func (c *Config) Reset(key string) {
	if key == "" {
		c.set = map[string]string{}
		return
	}
	delete(c.set, key)
}

// Get returns the key's value: what SET gave it, else its default, else "".
// state.checkpoints.dir defaults to a directory under the user's data
// directory ($XDG_DATA_HOME/sqlrun/checkpoints or
// ~/.local/share/sqlrun/checkpoints), computed when asked.
func (c *Config) Get(key string) string {
	if v, ok := c.set[key]; ok {
		return v
	}
	if key == KeyCheckpointDir {
		return runtime.DefaultCheckpointDir()
	}
	return optionByKey[key].Default
}

// IsSet reports whether SET gave the key a value.
func (c *Config) IsSet(key string) bool {
	_, ok := c.set[key]
	return ok
}

// Map returns the keys SET gave values, plus the defaults of known keys
// that have one: what the planner, the runtime and connectors read.
func (c *Config) Map() map[string]string {
	m := map[string]string{}
	for _, o := range ConfigOptions {
		if o.Default != "" {
			m[o.Key] = o.Default
		}
	}
	// restart-strategy.fixed-delay.* defaults must not switch restarts on.
	delete(m, KeyRestartAttempts)
	delete(m, KeyRestartDelay)
	for k, v := range c.set {
		m[k] = v
	}
	return m
}

// Entries lists the keys SET gave values, sorted, with sensitive values
// masked: the rows of `SET;`. Defaults are not listed, as Flink lists only
// the configuration it was given.
func (c *Config) Entries() [][2]string {
	keys := make([]string, 0, len(c.set))
	for k := range c.set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, len(keys))
	for i, k := range keys {
		v := c.set[k]
		if connectors.IsSensitive(k) {
			v = connectors.Mask
		}
		out[i] = [2]string{k, v}
	}
	return out
}

// Streaming reports execution.runtime-mode=streaming.
func (c *Config) Streaming() bool { return !strings.EqualFold(c.Get(KeyRuntimeMode), "batch") }

// DMLSync reports table.dml-sync.
func (c *Config) DMLSync() bool { return strings.EqualFold(c.Get(KeyDMLSync), "true") }

// ResultMode is sql-client.execution.result-mode, lower-cased.
func (c *Config) ResultMode() string { return strings.ToLower(c.Get(KeyResultMode)) }

// PrintTimeCost reports sql-client.display.print-time-cost.
func (c *Config) PrintTimeCost() bool { return !strings.EqualFold(c.Get(KeyPrintTimeCost), "false") }

// MaxColumnWidth is table.display.max-column-width.
func (c *Config) MaxColumnWidth() int {
	n, err := strconv.Atoi(strings.TrimSpace(c.Get(KeyMaxColumnWidth)))
	if err != nil || n <= 0 {
		return 30
	}
	return n
}

// Parallelism is parallelism.default.
func (c *Config) Parallelism() int {
	n, err := strconv.Atoi(strings.TrimSpace(c.Get(KeyParallelism)))
	if err != nil || n <= 0 {
		return 1
	}
	return n
}
