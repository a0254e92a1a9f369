package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

// discovery0 makes the streaming source look for snapshot N+1 on every
// poll ('continuous.discovery-interval' = 0): the latency measured then
// excludes the discovery interval, which only adds a wait of up to one
// interval (Paimon's default is 10 s) on top. What remains is the
// runtime's 5 ms idle back-off between two empty polls of a source.
const discovery0 = `, 'continuous.discovery-interval' = '0 ms'`

// latencyRun is what one feed measured.
type latencyRun struct {
	lat       []time.Duration // arrival − Commit returned, per +I/+U row
	early     int             // rows seen before Commit returned
	commit    []time.Duration // PrepareCommit + Commit per commit
	prepare   []time.Duration // PrepareCommit alone
	gap       []time.Duration // first → last snapshot of a commit
	afterNext int             // rows that arrived only after the next commit was published
	first     int64           // the feed's first measured commit
	last      int64           // and its last
}

func (r latencyRun) String() string {
	return fmt.Sprintf("n=%d p50=%.2fms p99=%.2fms max=%.2fms (early %d, after next commit %d); commit p50=%.2fms p99=%.2fms, of which PrepareCommit p50=%.2fms; first→last snapshot p50=%.2fms",
		len(r.lat), ms(pct(r.lat, .5)), ms(pct(r.lat, .99)), ms(pct(r.lat, 1)), r.early, r.afterNext,
		ms(pct(r.commit, .5)), ms(pct(r.commit, .99)), ms(pct(r.prepare, .5)), ms(pct(r.gap, .5)))
}

// drive commits `commits` rounds of `rows` rows into every feed, one
// round every `every` (the feeds' commits alternate in order from round
// to round, so neither always goes first), then keeps committing empty
// rounds until every row's after-image has reached its probe (a producer
// whose changelog lags, lookup-wait = false, needs later commits to
// publish it), and returns each feed's figures.
func drive(t testing.TB, feeds []*feed, commits, rows int, every time.Duration) []latencyRun {
	t.Helper()
	for _, f := range feeds {
		f.warmUp(t)
	}
	first := make([]int64, len(feeds))
	last := make([]int64, len(feeds))
	tick := time.Now()
	for i := 0; i < commits; i++ {
		for j := range feeds {
			f := feeds[(i+j)%len(feeds)]
			k := (i + j) % len(feeds)
			b := f.commit(t, keys(i, rows, 20))
			if i == 0 {
				first[k] = b
			}
			last[k] = b
		}
		tick = tick.Add(every)
		time.Sleep(time.Until(tick))
	}
	deadline := time.Now().Add(60 * time.Second)
	for j, f := range feeds {
		for {
			seen := afterImages(f.probe.snapshot())
			missing := 0
			for b := first[j]; b <= last[j]; b++ {
				missing += max(0, rows-seen[b])
			}
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d rows never reached the sink", f.name, missing, commits*rows)
			}
			f.commit(t, nil)
			time.Sleep(every)
		}
	}
	out := make([]latencyRun, len(feeds))
	for j, f := range feeds {
		r := &out[j]
		r.first, r.last = first[j], last[j]
		r.lat, r.early = f.latencies(first[j], last[j])
		r.commit, r.prepare, r.gap = f.commitDurations(first[j], last[j])
		for _, a := range f.probe.snapshot() {
			b, ok := a.row[1].(int64)
			if !ok || b < first[j] || b > last[j] || (a.kind != sql.Insert && a.kind != sql.UpdateAfter) {
				continue
			}
			if nd, ok := f.done[b+1]; ok && a.at.After(nd) {
				r.afterNext++
			}
		}
	}
	return out
}

// TestCommitToSinkLatency is the short, asserting form of
// BenchmarkCommitToSink: every committed row reaches the sink, as +I, and
// within seconds.
func TestCommitToSinkLatency(t *testing.T) {
	for _, producer := range []string{"input", "none"} {
		t.Run(producer, func(t *testing.T) {
			f := newFeed(t, "t_"+producer, map[string]string{"changelog-producer": producer}, discovery0)
			r := drive(t, []*feed{f}, 5, 20, 20*time.Millisecond)[0]
			t.Logf("%s: %s", producer, r)
			if len(r.lat) != 5*20 {
				t.Fatalf("%d after-images, want %d", len(r.lat), 100)
			}
			if p := pct(r.lat, .99); p > 5*time.Second {
				t.Fatalf("p99 %s", p)
			}
		})
	}
}

// BenchmarkCommitToSink: end-to-end latency from a Paimon commit to the
// sink of a streaming job reading the table, through exec.Session (the
// planner, the runtime, the Paimon source, ChangelogNormalize where
// planned, the sink writer). b.N commits of 100 new keys, one every
// 50 ms, written by the test through the table layer; per row, latency =
// the probe sink's Write call − the modification time of the commit's
// first snapshot file (when the rows became visible).
// continuous.discovery-interval = 0 (see discovery0) for input and none;
// the discovery=100ms case shows what a real interval adds (up to one
// interval, half of it on average).
func BenchmarkCommitToSink(b *testing.B) {
	for _, c := range []struct{ producer, discovery string }{
		{"input", "0 ms"}, {"none", "0 ms"}, {"input", "100 ms"},
	} {
		name := "producer=" + c.producer
		if c.discovery != "0 ms" {
			name += "/discovery=" + strings.ReplaceAll(c.discovery, " ", "")
		}
		b.Run(name, func(b *testing.B) {
			f := newFeed(b, "t_"+c.producer, map[string]string{"changelog-producer": c.producer},
				fmt.Sprintf(", 'continuous.discovery-interval' = '%s'", c.discovery))
			b.ResetTimer()
			r := drive(b, []*feed{f}, b.N, 100, 50*time.Millisecond)[0]
			b.StopTimer()
			b.Logf("%s: %s", name, r)
			b.ReportMetric(ms(pct(r.lat, .5)), "p50-ms")
			b.ReportMetric(ms(pct(r.lat, .99)), "p99-ms")
			b.ReportMetric(float64(len(r.lat)), "rows")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// lookupFeeds are two lookup tables differing only in lookup-wait.
func lookupFeeds(t testing.TB) (wait, nowait *feed) {
	wait = newFeed(t, "lookup_wait", map[string]string{"changelog-producer": "lookup",
		"changelog-producer.lookup-wait": "true"}, discovery0)
	nowait = newFeed(t, "lookup_nowait", map[string]string{"changelog-producer": "lookup",
		"changelog-producer.lookup-wait": "false"}, discovery0)
	return wait, nowait
}

// TestLookupWaitLatency is the short form of BenchmarkLookupWait: both
// tables deliver every row's changelog (+I the first time a key is
// written, -U/+U after), lookup-wait = true within the commit that wrote
// it.
func TestLookupWaitLatency(t *testing.T) {
	w, nw := lookupFeeds(t)
	r := drive(t, []*feed{w, nw}, 25, 20, 50*time.Millisecond)
	t.Logf("lookup-wait=true:  %s", r[0])
	t.Logf("lookup-wait=false: %s", r[1])
	for i, f := range []*feed{w, nw} {
		if len(r[i].lat) != 25*20 {
			t.Fatalf("%s: %d after-images, want %d", f.name, len(r[i].lat), 25*20)
		}
	}
	// lookup-wait = true: each commit publishes its own rows' changelog
	// (+I the first 20 rounds, -U and +U after).
	for b := r[0].first; b <= r[0].last; b++ {
		want := int64(20)
		if b >= r[0].first+20 {
			want = 40
		}
		if got := w.changelog[b]; got != want {
			t.Errorf("lookup-wait=true: commit %d published %d changelog rows, want %d", b, got, want)
		}
	}
	// Keys repeat after 20 rounds: rounds 20..24 update keys, so both
	// tables must have produced -U rows carrying the old values.
	for _, f := range []*feed{w, nw} {
		ub := 0
		for _, a := range f.probe.snapshot() {
			if a.kind == sql.UpdateBefore {
				ub++
			}
		}
		if ub < 5*20 {
			t.Errorf("%s: %d -U rows, want >= 100", f.name, ub)
		}
	}
}

// BenchmarkLookupWait: changelog latency from commit to a streaming
// reader's sink for changelog-producer = lookup with
// changelog-producer.lookup-wait true and false, side by side in one
// run: b.N rounds, every 200 ms (a checkpoint interval, scaled down),
// each committing 100 rows into both tables (keys repeat every 20
// rounds, so after the first 20 rounds every row is an update and the
// lookup finds its old value). Latency per +I/+U row = arrival at the
// probe sink − the Commit that wrote the row returning. Also reported:
// PrepareCommit+Commit time, what lookup-wait = true pays instead.
func BenchmarkLookupWait(b *testing.B) {
	w, nw := lookupFeeds(b)
	b.ResetTimer()
	r := drive(b, []*feed{w, nw}, b.N, 100, 200*time.Millisecond)
	b.StopTimer()
	b.Logf("lookup-wait=true:  %s", r[0])
	b.Logf("lookup-wait=false: %s", r[1])
	b.ReportMetric(ms(pct(r[0].lat, .5)), "wait-p50-ms")
	b.ReportMetric(ms(pct(r[0].lat, .99)), "wait-p99-ms")
	b.ReportMetric(ms(pct(r[1].lat, .5)), "nowait-p50-ms")
	b.ReportMetric(ms(pct(r[1].lat, .99)), "nowait-p99-ms")
	b.ReportMetric(ms(pct(r[0].commit, .5)), "wait-commit-p50-ms")
	b.ReportMetric(ms(pct(r[1].commit, .5)), "nowait-commit-p50-ms")
	b.ReportMetric(ms(pct(r[0].prepare, .5)), "wait-prepare-p50-ms")
	b.ReportMetric(ms(pct(r[1].prepare, .5)), "nowait-prepare-p50-ms")
	b.ReportMetric(ms(pct(r[0].gap, .5)), "wait-append-to-compact-p50-ms")
	b.ReportMetric(0, "ns/op")
}
