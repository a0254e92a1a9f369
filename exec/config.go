package exec

import (
	"sort"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
)

// ConfigOptions are the keys sqlrun knows (config.Options): SET checks a
// known key's value against its type; the shell completes them.
var ConfigOptions = config.Options

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
	if err := config.Check(key, value); err != nil {
		return err
	}
	c.set[key] = value
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
	if key == config.KeyCheckpointDir {
		return runtime.DefaultCheckpointDir()
	}
	o, _ := config.Lookup(key)
	return o.Default
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
	delete(m, config.KeyRestartAttempts)
	delete(m, config.KeyRestartDelay)
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

// The typed reads below take the value SET gave (checked by Set) or the
// key's default, parsed by config; the fallbacks only guard values Set
// cannot have let in.

// Streaming reports execution.runtime-mode=streaming.
func (c *Config) Streaming() bool {
	m, _ := config.Enum(c.set, config.KeyRuntimeMode)
	return m != "batch"
}

// DMLSync reports table.dml-sync.
func (c *Config) DMLSync() bool {
	b, _ := config.Bool(c.set, config.KeyDMLSync)
	return b
}

// ResultMode is sql-client.execution.result-mode, lower-cased.
func (c *Config) ResultMode() string {
	m, _ := config.Enum(c.set, config.KeyResultMode)
	return m
}

// PrintTimeCost reports sql-client.display.print-time-cost.
func (c *Config) PrintTimeCost() bool {
	b, err := config.Bool(c.set, config.KeyPrintTimeCost)
	return b || err != nil
}

// MaxColumnWidth is table.display.max-column-width.
func (c *Config) MaxColumnWidth() int {
	n, err := config.Int(c.set, config.KeyMaxColumnWidth)
	if err != nil || n <= 0 {
		return 30
	}
	return n
}

// Parallelism is parallelism.default.
func (c *Config) Parallelism() int {
	n, err := config.Int(c.set, config.KeyParallelism)
	if err != nil || n <= 0 {
		return 1
	}
	return n
}
