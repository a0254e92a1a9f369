package table

import (
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/sql"
)

// changelogOf reads the changelog of the snapshots a commit created.
func changelogOf(t *testing.T, tbl *Table, ids []int64) string {
	t.Helper()
	var out []string
	for _, id := range ids {
		s, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		splits, err := tbl.PlanChangelog(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range splits {
			it, err := tbl.ReadKV(sp)
			if err != nil {
				t.Fatal(err)
			}
			for kv := it.Next(); kv != nil; kv = it.Next() {
				out = append(out, sql.FormatRow(sql.Row{Kind: kv.Kind, Values: kv.Value}, tbl.Schema.Types()))
			}
			if err := it.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return strings.Join(out, " ")
}

// TestFullCompactionProducerEveryCommit follows Paimon's FlinkSink
// (createWriteProvider): changelog-producer = full-compaction without
// full-compaction.delta-commits uses GlobalFullCompactionSinkWrite with
// Math.max(deltaCommits, 1), a full compaction at every commit, so a
// streaming writer's every commit has its changelog. With delta-commits = 2
// only every second commit of the same writer does.
func TestFullCompactionProducerEveryCommit(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
		want []string
	}{
		{"default", map[string]string{}, []string{"+I[1, d, 1, a]", "-U[1, d, 1, a] +U[1, d, 2, b]", "-U[1, d, 2, b] +U[1, d, 3, c]"}},
		{"delta-commits=2", map[string]string{"full-compaction.delta-commits": "2"}, []string{"", "+I[1, d, 2, b]", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := map[string]string{"bucket": "1", "changelog-producer": "full-compaction"}
			for k, v := range c.opts {
				opts[k] = v
			}
			tbl, err := Create(fs.NewLocal(), t.TempDir(), pkSchema(), nil, opts, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			// One writer across commits, as in a streaming job.
			w, err := tbl.NewWrite(WriteOptions{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for i, v := range []string{"a", "b", "c"} {
				if err := w.Write(row(sql.Insert, int64(1), "d", int32(i+1), v)); err != nil {
					t.Fatal(err)
				}
				msgs, err := w.PrepareCommit(false)
				if err != nil {
					t.Fatal(err)
				}
				cm := tbl.NewCommit("u")
				if err := cm.Commit(int64(i+1), msgs, nil); err != nil {
					t.Fatal(err)
				}
				if got := changelogOf(t, tbl, cm.LastSnapshots); got != c.want[i] {
					t.Errorf("commit %d: changelog %q, want %q", i+1, got, c.want[i])
				}
			}
		})
	}
}
