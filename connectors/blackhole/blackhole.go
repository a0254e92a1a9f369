// Package blackhole is Flink's 'blackhole' connector: a sink that discards
// every row (for benchmarks and for jobs run only for their side effects).
package blackhole

import (
	"context"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

func init() { connectors.Register(Factory{}) }

// Factory creates blackhole sinks.
type Factory struct{}

var (
	_ connectors.SinkFactory   = Factory{}
	_ connectors.FlinkPortable = Factory{}
	_ connectors.TableSink     = Sink{}
)

// Identifier is "blackhole".
func (Factory) Identifier() string { return "blackhole" }

// Options: blackhole has none.
func (Factory) Options() []connectors.Option { return nil }

// CreateSink validates (no options allowed) and returns the sink.
func (f Factory) CreateSink(ctx *connectors.Context) (connectors.TableSink, error) {
	if err := connectors.Validate(f, ctx.Options); err != nil {
		return nil, err
	}
	return Sink{}, nil
}

// Sink discards rows.
type Sink struct{}

// ChangelogMode accepts the requested kinds without UPDATE_BEFORE, as
// Flink's BlackHoleSink: an upsert view is enough to discard.
func (Sink) ChangelogMode(requested sql.ChangelogMode) (sql.ChangelogMode, error) {
	return requested.Without(sql.UpdateBefore), nil
}

// Parallelism is the input's.
func (Sink) Parallelism() int { return 0 }

// NewWriter returns a writer that drops everything.
func (Sink) NewWriter(int, int) (connectors.SinkWriter, error) { return writer{}, nil }

type writer struct{}

func (writer) Open(context.Context, []byte) error                      { return nil }
func (writer) Write(context.Context, []sql.Row) error                  { return nil }
func (writer) Snapshot(context.Context, int64) ([]byte, []byte, error) { return nil, nil, nil }
func (writer) NotifyCheckpointComplete(context.Context, int64) error   { return nil }
func (writer) Close(context.Context) error                             { return nil }

// FlinkConnector: 'blackhole' is in Flink's distribution.
func (Factory) FlinkConnector() connectors.FlinkConnector {
	return connectors.FlinkConnector{RejectsUnknownOptions: true}
}
