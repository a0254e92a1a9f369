package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func TestConfigFromMap(t *testing.T) {
	c, err := ConfigFromMap(map[string]string{
		"execution.checkpointing.interval": "10 s", "state.checkpoints.dir": "file:///tmp/cp",
		"execution.checkpointing.num-retained": "3", "restart-strategy.type": "fixed-delay",
		"restart-strategy.fixed-delay.attempts": "4", "restart-strategy.fixed-delay.delay": "2 s",
		"execution.savepoint.path": "/tmp/sp", "execution.savepoint.ignore-unclaimed-state": "true",
		"execution.runtime-mode": "batch", "state.backend": "RocksDB", "table.exec.state.ttl": "1 h",
		"state.backend.rocksdb.localdir": "file:///tmp/lsm", "taskmanager.memory.process.size": "2g",
		"sqlrun.state.cache-size": "16 mb",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Streaming: false, CheckpointInterval: 10 * time.Second, CheckpointDir: "/tmp/cp", NumRetained: 3,
		RestartAttempts: 4, RestartDelay: 2 * time.Second, RestorePath: "/tmp/sp", IgnoreUnclaimedState: true,
		ChannelCapacity: 4, CheckpointTimeout: 10 * time.Minute, StateBackend: "rocksdb", StateTTL: time.Hour,
		StateLocalDir: "/tmp/lsm", ProcessMemory: 2 << 30, StateCacheSize: 16 << 20}
	if c != want {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
	d, _ := ConfigFromMap(nil)
	if !d.Streaming || d.StateBackend != "hashmap" || d.CheckpointInterval != 0 || d.RestartAttempts != 0 || !strings.HasSuffix(d.CheckpointDir, "sqlrun/checkpoints") {
		t.Fatalf("defaults %+v", d)
	}
	for k, v := range map[string]string{"execution.checkpointing.interval": "soon", "execution.runtime-mode": "both",
		"restart-strategy.type": "failure-rate", "execution.checkpointing.num-retained": "0",
		"state.backend.type": "forst", "table.exec.state.ttl": "-1 s", "taskmanager.memory.process.size": "lots",
		"sqlrun.state.cache-size": "0"} {
		if _, err := ConfigFromMap(map[string]string{k: v}); err == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}

// stuckSink blocks in Write until the job is cancelled.
type stuckSink struct{}

func (stuckSink) ChangelogMode(m sql.ChangelogMode) (sql.ChangelogMode, error) { return m, nil }
func (stuckSink) Parallelism() int                                             { return 1 }
func (stuckSink) NewWriter(int, int) (connectors.SinkWriter, error)            { return stuckWriter{}, nil }

type stuckWriter struct{}

func (stuckWriter) Open(context.Context, []byte) error { return nil }
func (stuckWriter) Write(ctx context.Context, _ []sql.Row) error {
	<-ctx.Done()
	return ctx.Err()
}
func (stuckWriter) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (stuckWriter) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (stuckWriter) Close(context.Context) error                             { return nil }

func TestCheckpointTimeoutFailsJob(t *testing.T) {
	g := NewGraph("stuck")
	s := g.AddSource("src", "src", &ValuesSource{Rows: []sql.Row{sql.NewRow(int64(1))}, Unbounded: true}, 1)
	k := g.AddSink("sink", "sink", stuckSink{}, 1)
	g.Connect(s, k, Partitioning{Kind: Forward})
	j, err := Start(context.Background(), g, Config{Streaming: true, CheckpointInterval: 10 * time.Millisecond,
		CheckpointTimeout: 50 * time.Millisecond, CheckpointDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "expired before completing") || j.Status() != Failed {
		t.Fatalf("got %v, %s", err, j.Status())
	}
}
