package compile

import (
	"context"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// bucketRoute adds the routing operator in front of a bucketed sink of
// parallelism p: it appends each row's channel (the writer subtask that
// owns its bucket, Paimon's ChannelComputer), the Channel edge into the
// sink sends the row to that subtask, and the sink's writers drop the
// column again. Every bucket thus has exactly one writer, and the writers
// share the buckets as Paimon's channel computer shares them.
func (b *builder) bucketRoute(in edge, router connectors.BucketRouter, path string, width, p int) (edge, error) {
	f := func(r sql.Row) (sql.Row, bool, error) {
		ch, err := router.Channel(r, p)
		if err != nil {
			return r, false, fmt.Errorf("bucket channel of row %v: %w", r.Values, err)
		}
		vals := make([]any, len(r.Values)+1)
		copy(vals, r.Values)
		vals[len(r.Values)] = int32(ch)
		return sql.Row{Kind: r.Kind, Values: vals}, true, nil
	}
	v := b.g.AddOperator(path+"-BucketChannel", "BucketChannel", operators.Calc(f), in.p)
	b.connect(in, v, in.p)
	return edge{vertex: v, p: in.p, part: runtime.Partitioning{Kind: runtime.Channel, Keys: []int{width}}, exchanged: true}, nil
}

// routedSink is a sink fed by bucketRoute: its writers see rows without
// the channel column.
type routedSink struct {
	connectors.TableSink
}

func (s routedSink) NewWriter(subtask, parallelism int) (connectors.SinkWriter, error) {
	w, err := s.TableSink.NewWriter(subtask, parallelism)
	if err != nil {
		return nil, err
	}
	return &routedWriter{SinkWriter: w}, nil
}

type routedWriter struct {
	connectors.SinkWriter
}

func (w *routedWriter) Write(ctx context.Context, rows []sql.Row) error {
	for i := range rows {
		if n := len(rows[i].Values); n > 0 {
			rows[i].Values = rows[i].Values[:n-1]
		}
	}
	return w.SinkWriter.Write(ctx, rows)
}

// SinkWatermark passes the watermark on to a writer that records it.
func (w *routedWriter) SinkWatermark(wm int64, idle bool) error {
	if r, ok := w.SinkWriter.(connectors.WatermarkWriter); ok {
		return r.SinkWatermark(wm, idle)
	}
	return nil
}
