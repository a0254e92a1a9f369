package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/operators"
	"github.com/sqlrun/sqlrun/sql"
)

// TestFanOutToOneConsumerCrashes: one vertex feeding the same consumer
// over two edges, as exec/compile wires a reused sub-plan (a self-join or
// a UNION ALL of one view: Flink's SubplanReuser), keeps aligned
// checkpoints and exactly-once state through repeated crashes and
// restores with small channels: datagen id → Calc (id % 10, id) on two
// subtasks → two hash edges into one GROUP BY k: SUM(id), COUNT(*), so
// every id counts twice. A barrier the Calc sends down one edge and not
// yet the other, or rows of one edge lost or doubled across a restore,
// would change the sums.
func TestFanOutToOneConsumerCrashes(t *testing.T) {
	const n = 20000
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	graph := func(rps, aggPar int, sink *memSink) *runtime.Graph {
		g := runtime.NewGraph("fan-out")
		s := g.AddSource("src", "Source: datagen", datagenSource(t, n, rps), 1)
		c := g.AddOperator("calc", "Calc", operators.Calc(func(r sql.Row) (sql.Row, bool, error) {
			id := r.Values[0].(int64)
			return sql.Row{Values: []any{id % 10, id}}, true, nil
		}), 2)
		a := g.AddOperator("agg", "GroupAggregate", operators.GroupAggregate(operators.AggregateSpec{
			GroupKeys: []int{0}, Aggs: []operators.AggSpec{{Kind: operators.Sum, Arg: 1}, {Kind: operators.CountStar}},
			GenerateUpdateBefore: true}), aggPar)
		k := g.AddSink("sink", "Sink: out", sink, 1)
		g.Connect(s, c, runtime.Partitioning{Kind: runtime.Rebalance})
		g.Connect(c, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
		g.Connect(c, a, runtime.Partitioning{Kind: runtime.Hash, Keys: []int{0}})
		g.Connect(a, k, runtime.Partitioning{Kind: runtime.Global})
		return g
	}
	var want []string
	for k := int64(0); k < 10; k++ {
		var sum, cnt int64
		for id := int64(1); id <= n; id++ {
			if id%10 == k {
				sum, cnt = sum+2*id, cnt+2
			}
		}
		want = append(want, fmt.Sprintf("+I[%d, %d, %d]", k, sum, cnt))
	}
	sort.Strings(want)
	dir := t.TempDir()
	sink := &memSink{}
	crashes := 0
	aggPar := 1 + rng.Intn(3)
	for attempt := 0; ; attempt++ {
		cfg := runtime.Config{Streaming: true, CheckpointInterval: time.Duration(2+rng.Intn(10)) * time.Millisecond,
			CheckpointDir: dir, ChannelCapacity: 1 + rng.Intn(8)}
		latest, err := runtime.LatestCheckpoint(dir, "fan-out")
		if err != nil {
			t.Fatal(err)
		}
		cfg.RestorePath = latest
		job, err := runtime.Start(context.Background(), graph(50000, aggPar, sink), cfg)
		if err != nil {
			t.Fatalf("seed %d attempt %d: %v", seed, attempt, err)
		}
		if attempt < 5 {
			time.Sleep(time.Duration(20+rng.Intn(60)) * time.Millisecond)
			job.Cancel()
		}
		err = job.Wait(context.Background())
		if job.Status() == runtime.Finished {
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("seed %d attempt %d: %v", seed, attempt, err)
		}
		crashes++
	}
	if got := materialize(sink.rows); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("seed %d, %d crashes:\n got %v\nwant %v", seed, crashes, got, want)
	}
	t.Logf("seed %d: %d crashes, agg parallelism %d", seed, crashes, aggPar)
}
