package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// vertexState is one vertex's share of a completed checkpoint.
type vertexState struct {
	name  string
	bytes int // state bytes over all subtasks (committables excluded)
	keys  int // rows of keyed state, for ChangelogNormalize; -1 otherwise
}

// checkpointStates reads a completed checkpoint's per-vertex state sizes
// (the op-i.state files through runtime.ReadCheckpoint) and, for
// ChangelogNormalize, decodes its keyed state to count the keys kept.
func checkpointStates(t testing.TB, path string) (vs []vertexState, total int64) {
	t.Helper()
	cp, err := runtime.ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []vertexState
	for i := range cp.Vertices {
		v := &cp.Vertices[i]
		vs := vertexState{name: v.Name, keys: -1}
		for s := 0; s < v.Parallelism; s++ {
			blob := v.Subtask(s)
			vs.bytes += len(blob)
			if v.Name == "ChangelogNormalize" {
				tab := state.NewMemTable(state.RowCodec)
				if blob != nil {
					if err := tab.Restore(blob); err != nil {
						t.Fatalf("decode ChangelogNormalize state: %v", err)
					}
				}
				vs.keys = max(vs.keys, 0) + tab.Len()
			}
		}
		out = append(out, vs)
	}
	return out, cp.Size
}

// ordersWriter is the upstream of the seed job: it writes the seed's
// orders table (id, amount, status) through the Paimon table layer.
type ordersWriter struct {
	tw *table.TableWrite
	tc *table.Commit
	n  int64
}

func (w *ordersWriter) commit(t testing.TB, rows []sql.Row) {
	t.Helper()
	for _, r := range rows {
		if err := w.tw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := w.tw.PrepareCommit(false)
	if err != nil {
		t.Fatal(err)
	}
	w.n++
	if err := w.tc.Commit(w.n, msgs, nil); err != nil {
		t.Fatal(err)
	}
}

func order(kind sql.RowKind, id int64, cents int64, status string) sql.Row {
	return sql.Row{Kind: kind, Values: []any{id, decimal.New(cents, -2), status}}
}

// sinkRecords is how many rows the job's sink vertex has received.
func sinkRecords(job *runtime.Job) int64 {
	for _, v := range job.Metrics().Vertices {
		if v.Kind == "sink" {
			return v.RecordsIn
		}
	}
	return 0
}

// checkpointAfter waits until the sink has received want rows and then
// for a checkpoint triggered after that (two completions later, so an
// in-flight one whose barrier went ahead of the rows does not count), and
// returns its directory.
func checkpointAfter(t testing.TB, job *runtime.Job, want int64) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for sinkRecords(job) < want {
		if time.Now().After(deadline) || job.Status().Terminal() {
			t.Fatalf("sink got %d rows, want %d (job %v, %v)", sinkRecords(job), want, job.Status(), job.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	id0 := job.Metrics().Checkpoints.LastID
	for {
		c := job.Metrics().Checkpoints
		if c.LastID >= id0+2 && c.LastPath != "" {
			return c.LastPath
		}
		if time.Now().After(deadline) || job.Status().Terminal() {
			t.Fatalf("no checkpoint after %d (job %v, %v)", id0, job.Status(), job.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNoNormalizeState shows, from the checkpoints of the running seed
// job (Paimon orders → an upsert sink keyed by id, scan.mode latest-full,
// checkpoints every 100 ms), what state each changelog producer makes
// the job keep (issue 7: "a job's state size confirms none is kept"):
//
//   - none: the plan has ChangelogNormalize, whose keyed state holds one
//     row per live key — 200 after the full phase, 2,180 after 2,000 new
//     keys, 50 updates and 20 deletes — and grows with the keys;
//   - input, lookup, full-compaction: no ChangelogNormalize vertex, no
//     operator or sink state at all, and the source's position is the
//     same few bytes for 200 keys as for 2,180.
//
// The sink is 'blackhole' with a primary key: an upsert sink like the
// seed's JDBC one, without needing MySQL.
func TestNoNormalizeState(t *testing.T) {
	const first, added, updated, deleted = 200, 2000, 50, 20
	for _, producer := range []string{"none", "input", "lookup", "full-compaction"} {
		t.Run(producer, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "orders")
			opts := map[string]string{"bucket": "1", "changelog-producer": producer}
			if producer == "full-compaction" {
				// Every commit fully compacts, so each one has changelog.
				opts["full-compaction.delta-commits"] = "1"
			}
			tt, err := table.Create(nil, path, sql.Schema{Columns: []sql.Column{
				{Name: "id", Type: sql.BigInt().NotNull()}, {Name: "amount", Type: sql.Decimal(10, 2)},
				{Name: "status", Type: sql.String()}}, PrimaryKey: []string{"id"}}, nil, opts, "", time.Now().UnixMilli())
			if err != nil {
				t.Fatal(err)
			}
			tw, err := tt.NewWrite(table.WriteOptions{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer tw.Close()
			w := &ordersWriter{tw: tw, tc: tt.NewCommit("upstream")}
			var rows []sql.Row
			for id := int64(0); id < first; id++ {
				rows = append(rows, order(sql.Insert, id, 8000, "CREATED"))
			}
			w.commit(t, rows)

			var ddlOpts strings.Builder
			for k, v := range opts {
				fmt.Fprintf(&ddlOpts, ", '%s' = '%s'", k, v)
			}
			ddl := fmt.Sprintf(`
SET 'execution.runtime-mode' = 'streaming';
SET 'execution.checkpointing.interval' = '100 ms';
SET 'state.checkpoints.dir' = '%s';
CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'paimon', 'path' = '%s'%s);
CREATE TABLE orders_rt (id BIGINT, amount DECIMAL(10, 2), status STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'blackhole');
`, filepath.Join(dir, "ckp"), path, ddlOpts.String())
			insert := `INSERT INTO orders_rt SELECT id, amount, status FROM orders /*+ OPTIONS(
  'scan.mode' = 'latest-full', 'continuous.discovery-interval' = '10 ms') */;`
			s, job := startSession(t, ddl+insert)

			var explain strings.Builder
			if err := s.ExecuteScript(context.Background(), "EXPLAIN "+insert, "explain.sql", &explain); err != nil {
				t.Fatalf("explain: %v", err)
			}
			hasNormalize := strings.Contains(explain.String(), "ChangelogNormalize")
			if hasNormalize != (producer == "none") {
				t.Fatalf("EXPLAIN shows ChangelogNormalize=%v for producer %s:\n%s", hasNormalize, producer, explain.String())
			}

			cp1, size1 := checkpointStates(t, checkpointAfter(t, job, first))
			rows = rows[:0]
			for id := int64(first); id < first+added; id++ {
				rows = append(rows, order(sql.Insert, id, 8000, "CREATED"))
			}
			for id := int64(0); id < updated; id++ {
				rows = append(rows, order(sql.Insert, id, 10000, "CREATED"))
			}
			for id := int64(updated); id < updated+deleted; id++ {
				rows = append(rows, order(sql.Delete, id, 8000, "CREATED"))
			}
			w.commit(t, rows)
			// At least +I per new key, +U (or -U/+U) per update, -D per delete.
			cp2, size2 := checkpointStates(t, checkpointAfter(t, job, first+added+updated+deleted))
			t.Logf("%-16s checkpoint state files: %d B -> %d B", producer, size1, size2)
			// The whole checkpoint: it grows by ~25 B per key with
			// ChangelogNormalize, and not at all without it (the source
			// position may gain a digit).
			if grew := size2 - size1; (producer == "none") != (grew > 10*(added-deleted)) || (producer != "none" && (grew > 16 || grew < -16)) {
				t.Errorf("producer %s: checkpoint state files grew by %d B for %d more keys", producer, grew, added-deleted)
			}

			for i := range cp2 {
				t.Logf("%-16s %-45s %7d B (%d keys) -> %7d B (%d keys)", producer, cp2[i].name,
					cp1[i].bytes, cp1[i].keys, cp2[i].bytes, cp2[i].keys)
			}
			for i, v := range cp2 {
				switch {
				case v.name == "ChangelogNormalize":
					if producer != "none" {
						t.Fatalf("producer %s: the job has a ChangelogNormalize vertex", producer)
					}
					if cp1[i].keys != first || v.keys != first+added-deleted {
						t.Errorf("ChangelogNormalize keeps %d then %d keys, want %d then %d", cp1[i].keys, v.keys, first, first+added-deleted)
					}
					if v.bytes < 5*cp1[i].bytes {
						t.Errorf("ChangelogNormalize state %d B then %d B: it should grow with the keys", cp1[i].bytes, v.bytes)
					}
				case strings.HasPrefix(v.name, "Source:"):
					// The reader's position ({"phase","snapshot","offset"}):
					// a few bytes, whatever the number of keys.
					if v.bytes > 256 || cp1[i].bytes > 256 || v.bytes-cp1[i].bytes > 16 {
						t.Errorf("source state %d B then %d B: want a small, constant position", cp1[i].bytes, v.bytes)
					}
				default:
					if v.bytes != 0 || cp1[i].bytes != 0 {
						t.Errorf("vertex %s keeps %d then %d B of state, want none", v.name, cp1[i].bytes, v.bytes)
					}
				}
			}
			if producer == "none" && !hasVertex(cp2, "ChangelogNormalize") {
				t.Fatalf("producer none: no ChangelogNormalize vertex in the checkpoint")
			}
		})
	}
}

func hasVertex(vs []vertexState, name string) bool {
	for _, v := range vs {
		if v.name == name {
			return true
		}
	}
	return false
}
