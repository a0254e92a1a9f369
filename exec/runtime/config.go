package runtime

import (
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Config is what a job takes from the session configuration. Build it with
// ConfigFromMap from SET keys, or fill it directly in tests.
type Config struct {
	// Streaming is execution.runtime-mode=streaming (the default).
	Streaming bool
	// CheckpointInterval is execution.checkpointing.interval; 0 disables
	// periodic checkpoints (a final checkpoint is still taken at the end so
	// transactional sinks commit, but it is written only for savepoints).
	CheckpointInterval time.Duration
	// CheckpointDir is state.checkpoints.dir; checkpoints go to
	// <CheckpointDir>/<job name>/chk-N/.
	CheckpointDir string
	// SavepointDir is state.savepoints.dir; when empty savepoints go beside
	// the checkpoints, <CheckpointDir>/<job name>/savepoint-.../, where
	// LatestCheckpoint finds them for --resume.
	SavepointDir string
	// NumRetained is execution.checkpointing.num-retained (default 1).
	NumRetained int
	// CheckpointTimeout is execution.checkpointing.timeout (default 10
	// min): a checkpoint still pending then fails the job, as Flink does
	// with the default of zero tolerable checkpoint failures.
	CheckpointTimeout time.Duration
	// RestorePath is execution.savepoint.path: a checkpoint or savepoint
	// directory to start from.
	RestorePath string
	// IgnoreUnclaimedState is execution.savepoint.ignore-unclaimed-state.
	IgnoreUnclaimedState bool
	// RestartAttempts and RestartDelay are restart-strategy fixed-delay's
	// attempts and delay; 0 attempts means a failure fails the job.
	RestartAttempts int
	RestartDelay    time.Duration
	// ChannelCapacity is the number of batches (up to ~1024 rows each) a
	// channel buffers before the sender blocks (backpressure). Default 4:
	// enough to keep every stage busy, and a small in-flight heap keeps
	// garbage collection cheap (16 cost ~30% throughput in the benchmark).
	ChannelCapacity int
	// StateBackend is state.backend.type: "hashmap" (default) or "rocksdb"
	// (the LSM of state/lsm).
	StateBackend string
	// StateLocalDir is state.backend.rocksdb.localdir: where the LSM's
	// working stores go; empty is <CheckpointDir>/<job name>/lsm-work, on the
	// checkpoints' filesystem so checkpoints hard-link the store's files.
	StateLocalDir string
	// StateTTL is table.exec.state.ttl (0: state never expires).
	StateTTL time.Duration
	// StateCacheSize is sqlrun.state.cache-size in bytes: the budget of each
	// rocksdb state table's write-back cache (0: state.DefaultCacheBytes).
	StateCacheSize int64
	// ProcessMemory is taskmanager.memory.process.size in bytes: Start
	// makes it the process's soft memory limit (debug.SetMemoryLimit; the
	// garbage collector works harder as the heap nears it). 0 leaves the
	// limit as it is (the binary sets one at start).
	ProcessMemory int64
}

// ConfigFromMap reads a job's Config from session configuration. Bad values
// fail with Flink's "Could not parse value" wording. The restart strategy
// is none unless restart-strategy.type is fixed-delay (Flink would pick one
// when checkpointing is on; we keep failures visible by default).
func ConfigFromMap(m map[string]string) (Config, error) {
	c := Config{Streaming: true, NumRetained: 1, ChannelCapacity: 4, RestartDelay: time.Second,
		CheckpointTimeout: 10 * time.Minute}
	get := func(k string) (string, bool) {
		v, ok := m[k]
		return strings.TrimSpace(v), ok
	}
	bad := func(k, v string) error {
		return sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key '%s'.", v, k)
	}
	// The typed values come from config (the session's option spec),
	// which names the key in Flink's words when one does not parse.
	switch mode, err := config.Enum(m, config.KeyRuntimeMode); {
	case err != nil:
		return c, err
	case mode == "batch":
		c.Streaming = false
	case mode != "streaming":
		// 'automatic' (batch when every source is bounded) is not run.
		v, _ := get(config.KeyRuntimeMode)
		return c, bad(config.KeyRuntimeMode, v)
	}
	d, err := config.Duration(m, config.KeyCheckpointInterval)
	if err != nil {
		return c, err
	}
	c.CheckpointInterval = d
	if c.CheckpointTimeout, err = config.Duration(m, config.KeyCheckpointTimeout); err != nil {
		return c, err
	} else if c.CheckpointTimeout <= 0 {
		v, _ := get(config.KeyCheckpointTimeout)
		return c, bad(config.KeyCheckpointTimeout, v)
	}
	if v, ok := get(config.KeyCheckpointDir); ok && v != "" {
		c.CheckpointDir = stripFileScheme(v)
	} else {
		c.CheckpointDir = DefaultCheckpointDir()
	}
	if v, ok := get(config.KeySavepointDir); ok && v != "" {
		c.SavepointDir = stripFileScheme(v)
	}
	if c.NumRetained, err = config.Int(m, config.KeyNumRetained); err != nil {
		return c, err
	} else if c.NumRetained < 1 {
		v, _ := get(config.KeyNumRetained)
		return c, bad(config.KeyNumRetained, v)
	}
	if v, ok := get(config.KeySavepointPath); ok && v != "" {
		c.RestorePath = stripFileScheme(v)
	}
	if c.IgnoreUnclaimedState, err = config.Bool(m, config.KeyIgnoreUnclaimed); err != nil {
		return c, err
	}
	c.StateBackend = "hashmap"
	backend, ok := get(config.KeyStateBackend)
	if !ok {
		backend, ok = get(config.KeyStateBackendOld)
	}
	if ok && backend != "" {
		switch strings.ToLower(backend) {
		case "hashmap", "rocksdb":
			c.StateBackend = strings.ToLower(backend)
		default:
			return c, sql.Errorf(sql.IllegalArgumentException,
				"Unsupported state backend '%s': sqlrun supports hashmap and rocksdb.", backend)
		}
	}
	if v, ok := get(config.KeyStateLocalDir); ok && v != "" {
		c.StateLocalDir = stripFileScheme(v)
	}
	if v, ok := get(config.KeyStateTTL); ok && v != "" {
		d, err := connectors.ParseDuration(v)
		if err != nil || d < 0 {
			return c, bad(config.KeyStateTTL, v)
		}
		c.StateTTL = d
	}
	if v, ok := get(config.KeyStateCacheSize); ok && v != "" {
		n, err := connectors.ParseMemorySize(v)
		if err != nil || n <= 0 {
			return c, bad(config.KeyStateCacheSize, v)
		}
		c.StateCacheSize = n
	}
	if v, ok := get(config.KeyProcessMemory); ok && v != "" {
		n, err := connectors.ParseMemorySize(v)
		if err != nil || n <= 0 {
			return c, bad(config.KeyProcessMemory, v)
		}
		c.ProcessMemory = n
	}
	strategy, ok := get(config.KeyRestartStrategy)
	if !ok {
		strategy, _ = get(config.KeyRestartStrategyOld)
	}
	switch strings.ToLower(strategy) {
	case "", "none", "off", "disable":
	case "fixed-delay", "fixeddelay":
		if c.RestartAttempts, err = config.Int(m, config.KeyRestartAttempts); err != nil {
			return c, err
		} else if c.RestartAttempts < 0 {
			v, _ := get(config.KeyRestartAttempts)
			return c, bad(config.KeyRestartAttempts, v)
		}
		if c.RestartDelay, err = config.Duration(m, config.KeyRestartDelay); err != nil {
			return c, err
		}
	default:
		return c, sql.Errorf(sql.IllegalArgumentException,
			"Unsupported restart strategy '%s': sqlrun supports none and fixed-delay.", strategy)
	}
	return c, nil
}

// stripFileScheme accepts Flink-style file:///path values.
func stripFileScheme(p string) string {
	if strings.HasPrefix(p, "file://") {
		return strings.TrimPrefix(p, "file://")
	}
	if strings.HasPrefix(p, "file:") {
		return strings.TrimPrefix(p, "file:")
	}
	return p
}
