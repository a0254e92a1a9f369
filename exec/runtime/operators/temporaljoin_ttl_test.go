package operators

import (
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// TestTemporalJoinStateRetention checks table.exec.state.ttl on the
// event-time temporal join as Flink's TemporalRowTimeJoinOperator applies
// it (BaseTwoInputStreamOperatorWithStateRetention, max retention 1.5 ×
// the TTL per TableConfigUtils.getMaxIdleStateRetentionTime): a key no row
// reached for longer than that loses its versions, so a later left row of
// that key is padded (LEFT); a key that keeps receiving rows keeps its
// version; the cleanup times survive a snapshot and restore.
func TestTemporalJoinStateRetention(t *testing.T) {
	clock := time.UnixMilli(1_000_000)
	ctx := &runtime.Context{Now: func() time.Time { return clock }}
	spec := TemporalJoinSpec{LeftTime: 1, RightTime: 1, Retention: 10 * time.Second,
		Left:  JoinSideSpec{Keys: []int{0}, Arity: 2, Outer: true},
		Right: JoinSideSpec{Keys: []int{0}, Arity: 2}}
	row := func(k string, ms int64) sql.Row {
		return sql.Row{Kind: sql.Insert, Values: []any{k, sql.TimestampData{Millis: ms}}}
	}
	open := func(snap []byte) *temporalJoin {
		op, err := TemporalJoin(spec)(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(ctx, snap); err != nil {
			t.Fatal(err)
		}
		return op.(*temporalJoin)
	}
	j := open(nil)
	if j.TimerInterval() != time.Second {
		t.Fatalf("timer interval %v", j.TimerInterval())
	}
	var out runtime.Collector
	step := func(input int, r sql.Row) {
		t.Helper()
		if err := j.ProcessBatch(input, []sql.Row{r}, &out); err != nil {
			t.Fatal(err)
		}
	}
	// Versions of a and b at time 1.
	step(1, row("a", 1))
	step(1, row("b", 1))
	// 12 s later (past the TTL, before 1.5 × TTL = 15 s): b gets a row,
	// which moves its cleanup time to now + 15 s; a does not.
	clock = clock.Add(12 * time.Second)
	if err := j.OnProcessingTime(clock, &out); err != nil {
		t.Fatal(err)
	}
	step(1, row("b", 2))
	snap, err := j.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	j = open(snap)
	// 16 s after the start: a's cleanup time (start + 15 s) has passed.
	clock = clock.Add(4 * time.Second)
	if err := j.OnProcessingTime(clock, &out); err != nil {
		t.Fatal(err)
	}
	step(0, row("a", 5))
	step(0, row("b", 5))
	if err := j.ProcessWatermark(10, &out); err != nil {
		t.Fatal(err)
	}
	got := sortedFormat(out.Rows(), nil) // keys fire in their encoded order
	want := "+I[a, 1970-01-01T00:00:00.005, null, null]\n+I[b, 1970-01-01T00:00:00.005, b, 1970-01-01T00:00:00.002]\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}

	// Without retention nothing expires.
	spec.Retention = 0
	j = open(nil)
	if j.TimerInterval() != 0 {
		t.Fatalf("timer interval without retention: %v", j.TimerInterval())
	}
	out.Reset()
	step(1, row("a", 1))
	clock = clock.Add(time.Hour)
	if err := j.OnProcessingTime(clock, &out); err != nil {
		t.Fatal(err)
	}
	step(0, row("a", 5))
	if err := j.ProcessWatermark(10, &out); err != nil {
		t.Fatal(err)
	}
	if got := format(out.Rows(), nil); got != "+I[a, 1970-01-01T00:00:00.005, a, 1970-01-01T00:00:00.001]\n" {
		t.Fatalf("without retention: %s", got)
	}
}

var _ runtime.ProcessingTimeOperator = (*temporalJoin)(nil)
