package exec

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// Configuration keys the session reads itself, declared in package config.
const (
	KeyRuntimeMode          = config.KeyRuntimeMode
	KeyParallelism          = config.KeyParallelism
	KeyCheckpointInterval   = config.KeyCheckpointInterval
	KeyNumRetained          = config.KeyNumRetained
	KeyCheckpointDir        = config.KeyCheckpointDir
	KeySavepointDir         = config.KeySavepointDir
	KeySavepointPath        = config.KeySavepointPath
	KeyIgnoreUnclaimed      = config.KeyIgnoreUnclaimed
	KeyDMLSync              = config.KeyDMLSync
	KeyResultMode           = config.KeyResultMode
	KeyPrintTimeCost        = config.KeyPrintTimeCost
	KeyMaxColumnWidth       = config.KeyMaxColumnWidth
	KeyUpsertMaterialize    = config.KeyUpsertMaterialize
	KeyCDCDuplicate         = config.KeyCDCDuplicate
	KeyNotNullEnforcer      = config.KeyNotNullEnforcer
	KeyPipelineName         = config.KeyPipelineName
	KeyRestartStrategy      = config.KeyRestartStrategy
	KeyRestartStrategyOld   = config.KeyRestartStrategyOld
	KeyRestartAttempts      = config.KeyRestartAttempts
	KeyRestartDelay         = config.KeyRestartDelay
	KeyPromPort             = config.KeyPromPort
	KeyLocalTimeZone        = config.KeyLocalTimeZone
	KeyMaxRowsTableMode     = config.KeyMaxRowsTableMode
	KeyExecutionCheckpointM = config.KeyExecutionCheckpointM
)

// ConfigOptions are the keys sqlrun knows (config.Options): SET checks a
// known key's value against its type; the shell completes them.
var ConfigOptions = config.Options

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
