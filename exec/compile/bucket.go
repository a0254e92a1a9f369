package compile

import (
	"context"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/fnv1a"
	"github.com/sqlrun/sqlrun/sql"
)

// channelKeys returns, for each of n subtasks, an INT value that the
// runtime's hash exchange sends to exactly that subtask. The router
// appends the value of a row's channel as an extra column and the edge
// hashes on it, so channel c lands on subtask c: every bucket has exactly
// one writer and the writers share the buckets as Paimon's channel
// computer shares them. (Should the runtime's hash ever change, rows of
// one channel still meet in one subtask: correctness does not depend on
// this table, only balance does.)
func channelKeys(n int) ([]int32, error) {
	keys := make([]int32, n)
	found := 0
	seen := make([]bool, n)
	var enc state.Encoder
	for k := int32(0); found < n; k++ {
		if k > 1<<20 {
			return nil, fmt.Errorf("bucket routing: no hash key for %d subtasks", n)
		}
		enc.Buf = enc.Buf[:0]
		if err := state.AppendKey(&enc, sql.Row{Values: []any{k}}, []int{0}); err != nil {
			return nil, err
		}
		p := int(fnv1a.Sum32(enc.Buf) % uint32(n)) // the runtime's exchange hash
		if !seen[p] {
			seen[p], keys[p] = true, k
			found++
		}
	}
	return keys, nil
}

// bucketRoute adds the routing operator in front of a bucketed sink of
// parallelism p: it appends each row's channel key, the edge into the
// sink hashes on it, and the sink's writers drop it again.
func (b *builder) bucketRoute(in edge, router connectors.BucketRouter, path string, width, p int) (edge, error) {
	keys, err := channelKeys(p)
	if err != nil {
		return in, err
	}
	f := func(r sql.Row) (sql.Row, bool, error) {
		ch, err := router.Channel(r, p)
		if err != nil {
			return r, false, fmt.Errorf("paimon bucket of row %v: %w", r.Values, err)
		}
		vals := make([]any, len(r.Values)+1)
		copy(vals, r.Values)
		vals[len(r.Values)] = keys[ch]
		return sql.Row{Kind: r.Kind, Values: vals}, true, nil
	}
	v := b.g.AddOperator(path+"-BucketChannel", "BucketChannel", operators.Calc(f), in.p)
	b.connect(in, v, in.p)
	return edge{vertex: v, p: in.p, part: runtime.Partitioning{Kind: runtime.Hash, Keys: []int{width}}, exchanged: true}, nil
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
