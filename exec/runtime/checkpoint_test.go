package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/sql"
)

func TestCheckpointFilesAndLatest(t *testing.T) {
	root := t.TempDir()
	jobDir := filepath.Join(root, SanitizeJobName("insert-into_a.b/c"))
	if filepath.Base(jobDir) != "insert-into_a.b_c" {
		t.Fatalf("sanitized %s", jobDir)
	}
	write := func(name string, id int64, sp bool) string {
		cp := &Checkpoint{Version: FormatVersion, JobName: "insert-into_a.b/c", ID: id, Savepoint: sp,
			Vertices: []VertexState{{UID: "u", Name: "op", Parallelism: 2, subtasks: [][]byte{[]byte("s0"), nil},
				Committables: [][]byte{[]byte("c")}}}}
		dir := filepath.Join(jobDir, name)
		if err := writeCheckpoint(dir, cp); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	write("chk-1", 1, false)
	write("chk-2", 2, false)
	sp := write("savepoint-abcdef-000000000000", 3, true)
	// An interrupted checkpoint: state written, no _metadata.
	_ = os.MkdirAll(filepath.Join(jobDir, "chk-4"), 0o755)
	_ = os.WriteFile(filepath.Join(jobDir, "chk-4", "op-0.state"), []byte("x"), 0o644)

	latest, err := LatestCheckpoint(root, "insert-into_a.b/c")
	if err != nil || latest != sp {
		t.Fatalf("latest %q %v", latest, err)
	}
	cp, err := ReadCheckpoint(filepath.Join(latest, MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	if cp.ID != 3 || !cp.Savepoint || string(cp.Vertices[0].Subtask(0)) != "s0" || cp.Vertices[0].Subtask(1) != nil ||
		string(cp.Vertices[0].Committables[0]) != "c" {
		t.Fatalf("read back %+v", cp)
	}
	if _, err := ReadCheckpoint(filepath.Join(jobDir, "chk-4")); err == nil ||
		!strings.Contains(err.Error(), "Cannot find meta data file '_metadata'") {
		t.Fatalf("incomplete checkpoint: %v", err)
	}
	if got := highestCheckpointID(jobDir); got != 4 {
		t.Fatalf("highest %d", got)
	}
	// Retention keeps the newest complete chk and savepoints; the
	// incomplete chk-4 is newer than every complete one and may be in
	// progress, so it stays too.
	if err := retainCheckpoints(jobDir, 1); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(jobDir, "*"))
	var names []string
	for _, l := range left {
		names = append(names, filepath.Base(l))
	}
	if strings.Join(names, " ") != "chk-2 chk-4 savepoint-abcdef-000000000000" {
		t.Fatalf("after retention: %v", names)
	}
	// Corrupt state is an error, never a panic.
	_ = os.WriteFile(filepath.Join(sp, "op-0.state"), []byte{0xff, 0xff}, 0o644)
	if _, err := ReadCheckpoint(sp); err == nil {
		t.Fatal("corrupt state read without error")
	}
}

func TestCheckpointWriteFailureFailsJob(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	_ = os.WriteFile(file, nil, 0o644)
	g := NewGraph("j")
	s := g.AddSource("src", "src", &ValuesSource{Rows: []sql.Row{sql.NewRow(int64(1))}, Unbounded: true}, 1)
	k := g.AddSink("sink", "sink", NewCollect(16), 1)
	g.Connect(s, k, Partitioning{Kind: Forward})
	j, err := Start(context.Background(), g, Config{Streaming: true, CheckpointInterval: 5 * time.Millisecond, CheckpointDir: file})
	if err != nil {
		t.Fatal(err)
	}
	err = j.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Failed to write checkpoint 1 of job j") || j.Metrics().Checkpoints.Failed != 1 {
		t.Fatalf("got %v", err)
	}
	if rc := sql.RootCause(err); rc == nil || rc.Class != sql.IOException {
		t.Fatalf("root cause %v", rc)
	}
}
