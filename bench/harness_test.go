package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// feed is a Paimon primary-key table (k INT, b BIGINT) written and
// committed directly through the table layer, so the test knows the
// instant each commit is published, and read by a streaming INSERT job
// (Paimon source → bench-probe) started through exec.Session.
type feed struct {
	name  string
	path  string
	tt    *table.Table
	tw    *table.TableWrite
	tc    *table.Commit
	fio   *stampFS
	probe *probe
	job   *runtime.Job
	// done[b] is when commit b's first snapshot was published; dur[b] how
	// long PrepareCommit+Commit took.
	done map[int64]time.Time
	dur  map[int64]time.Duration
	// prep[b] is the PrepareCommit part of dur[b] (flush, and with
	// lookup-wait the lookup compaction).
	prep map[int64]time.Duration
	// gap[b] is the time from commit b's first snapshot to its last (the
	// COMPACT snapshot that carries lookup changelog), 0 for one snapshot.
	gap map[int64]time.Duration
	// changelog[b] is the changelogRecordCount of commit b's snapshots.
	changelog map[int64]int64
	next      int64
}

// newFeed creates the table with opts and starts the reading job with
// the given source hints (e.g. the discovery interval).
func newFeed(t testing.TB, name string, opts map[string]string, readOpts string) *feed {
	t.Helper()
	dir := t.TempDir()
	f := &feed{name: name, path: filepath.Join(dir, name), done: map[int64]time.Time{}, dur: map[int64]time.Duration{},
		prep: map[int64]time.Duration{}, gap: map[int64]time.Duration{},
		changelog: map[int64]int64{}}
	all := map[string]string{"bucket": "1"}
	for k, v := range opts {
		all[k] = v
	}
	var err error
	f.fio = &stampFS{FileIO: fs.NewLocal(), at: map[string]time.Time{}}
	f.tt, err = table.Create(f.fio, f.path, sql.Schema{Columns: []sql.Column{{Name: "k", Type: sql.Int().NotNull()},
		{Name: "b", Type: sql.BigInt()}}, PrimaryKey: []string{"k"}}, nil, all, "", time.Now().UnixMilli())
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if f.tw, err = f.tt.NewWrite(table.WriteOptions{TempDir: t.TempDir()}); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
	t.Cleanup(func() { f.tw.Close() })
	f.tc = f.tt.NewCommit("bench-" + name)
	f.probe = newProbe(t, 1)
	// The table's options go into the DDL too: the planner decides
	// from them whether ChangelogNormalize is needed, as Flink's does.
	for k, v := range opts {
		readOpts = fmt.Sprintf(", '%s' = '%s'", k, v) + readOpts
	}
	_, f.job = startSession(t, fmt.Sprintf(`
SET 'execution.runtime-mode' = 'streaming';
SET 'state.checkpoints.dir' = '%s';
CREATE TABLE src (k INT NOT NULL, b BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'paimon', 'path' = '%s'%s);
CREATE TABLE probe (k INT, b BIGINT) WITH ('connector' = 'bench-probe', 'probe' = '%s');
INSERT INTO probe SELECT k, b FROM src;
`, filepath.Join(dir, "ckp"), f.path, readOpts, f.probe.name))
	f.probe.job = f.job
	return f
}

// commit writes one row per key with b = the commit's number and commits;
// it returns that number.
func (f *feed) commit(t testing.TB, keys []int32) int64 {
	t.Helper()
	f.next++
	b := f.next
	start := time.Now()
	for _, k := range keys {
		if err := f.tw.Write(sql.Row{Kind: sql.Insert, Values: []any{k, b}}); err != nil {
			t.Fatalf("%s: write: %v", f.name, err)
		}
	}
	msgs, err := f.tw.PrepareCommit(false)
	if err != nil {
		t.Fatalf("%s: prepare commit: %v", f.name, err)
	}
	end := time.Now()
	f.prep[b] = end.Sub(start)
	if len(msgs) > 0 {
		if err := f.tc.Commit(b, msgs, nil); err != nil {
			t.Fatalf("%s: commit %d: %v", f.name, b, err)
		}
		end = time.Now()
		if len(f.tc.LastSnapshots) == 0 {
			t.Fatalf("%s: commit %d created no snapshot", f.name, b)
		}
		// The commit instant is when its first snapshot file was
		// published (linked to its name, see stampFS): readers can see the rows
		// from then on, while Commit itself goes on (a COMPACT snapshot,
		// expiration).
		ids := f.tc.LastSnapshots
		first, ok := f.fio.published(ids[0])
		lastAt, ok2 := f.fio.published(ids[len(ids)-1])
		if !ok || !ok2 {
			t.Fatalf("%s: commit %d: snapshots %v were not seen published", f.name, b, ids)
		}
		f.done[b] = first
		f.gap[b] = lastAt.Sub(first)
		for _, id := range ids {
			f.changelog[b] += changelogRecords(t, f.path, id)
		}
	} else {
		f.done[b] = end
	}
	f.dur[b] = end.Sub(start)
	return b
}

// afterImages counts, per commit number, the +I/+U rows the probe saw.
func afterImages(rows []arrival) map[int64]int {
	n := map[int64]int{}
	for _, a := range rows {
		if a.kind == sql.Insert || a.kind == sql.UpdateAfter {
			n[a.row[1].(int64)]++
		}
	}
	return n
}

// latencies are arrival − the commit's snapshot time for every +I/+U row
// of commits from..to (inclusive), sorted, and the number of negative
// ones (clock or file-time resolution; expected 0).
func (f *feed) latencies(from, to int64) (lat []time.Duration, early int) {
	for _, a := range f.probe.snapshot() {
		if a.kind != sql.Insert && a.kind != sql.UpdateAfter {
			continue
		}
		b := a.row[1].(int64)
		if b < from || b > to {
			continue
		}
		d := a.at.Sub(f.done[b])
		if d < 0 {
			early++
		}
		lat = append(lat, d)
	}
	sortDurations(lat)
	return lat, early
}

// commitDurations are PrepareCommit+Commit times of commits from..to,
// the PrepareCommit parts and the first-to-last snapshot gaps, each sorted.
func (f *feed) commitDurations(from, to int64) (total, prepare, gap []time.Duration) {
	for b := from; b <= to; b++ {
		total = append(total, f.dur[b])
		prepare = append(prepare, f.prep[b])
		gap = append(gap, f.gap[b])
	}
	sortDurations(total)
	sortDurations(prepare)
	sortDurations(gap)
	return total, prepare, gap
}

// warmUp commits one row and waits for it: the job is running and its
// source follows the table. Empty commits follow every 20 ms, since with
// lookup-wait = false the row's changelog is published by a later commit.
func (f *feed) warmUp(t testing.TB) {
	t.Helper()
	b := f.commit(t, []int32{-1})
	deadline := time.Now().Add(30 * time.Second)
	for afterImages(f.probe.snapshot())[b] == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s (job %v, %v): the warm-up row did not reach the sink in 30 s", f.name, f.job.Status(), f.job.Err())
		}
		time.Sleep(20 * time.Millisecond)
		f.commit(t, nil)
	}
}

// keys returns the r distinct keys of round i out of a cycle of span
// rounds, so a key is written again only every span commits.
func keys(i, r, span int) []int32 {
	out := make([]int32, r)
	for j := range out {
		out[j] = int32((i%span)*r + j)
	}
	return out
}

// changelogRecords is snapshot id's changelogRecordCount (0 when absent).
func changelogRecords(t testing.TB, table string, id int64) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(table, "snapshot", fmt.Sprintf("snapshot-%d", id)))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ChangelogRecordCount *int64 `json:"changelogRecordCount"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("snapshot %d: %v", id, err)
	}
	if s.ChangelogRecordCount == nil {
		return 0
	}
	return *s.ChangelogRecordCount
}

// stampFS is the local file system that notes when each snapshot file is
// published. For snapshot files its WriteFileAtomic does what fs.Local's
// does (a synced temp file, link(2) to the name, a directory sync) and
// takes the time just before the link: a reader cannot see the snapshot
// earlier, and can right after. Neither the return of WriteFileAtomic (the
// directory fsync follows the link and takes milliseconds, during which
// readers already read the rows) nor the file's modification time (Linux
// stamps it with the coarse kernel clock, one 4 ms tick at HZ=250) is
// precise enough for what is measured here.
type stampFS struct {
	fs.FileIO
	mu sync.Mutex
	at map[string]time.Time
}

func (s *stampFS) WriteFileAtomic(p string, data []byte) error {
	base := path.Base(p)
	if !strings.HasPrefix(base, "snapshot-") {
		return s.FileIO.WriteFileAtomic(p, data)
	}
	lp, err := fs.LocalPath(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(lp), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	tmp := filepath.Join(filepath.Dir(lp), fmt.Sprintf(".%s.%d.tmp", base, time.Now().UnixNano()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	defer os.Remove(tmp)
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	now := time.Now()
	if err := os.Link(tmp, lp); err != nil {
		if errors.Is(err, iofs.ErrExist) {
			return fmt.Errorf("create %s: %w: %w", p, fs.ErrExist, err)
		}
		return fmt.Errorf("create %s: %w", p, err)
	}
	if d, err := os.Open(filepath.Dir(lp)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	s.mu.Lock()
	s.at[base] = now
	s.mu.Unlock()
	return nil
}

// published is when snapshot id was published.
func (s *stampFS) published(id int64) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[fmt.Sprintf("snapshot-%d", id)]
	return t, ok
}
