package table

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/internal/testutil/s3server"
	"github.com/sqlrun/sqlrun/sql"
)

// Two writers, each with its own S3 client as two processes would have,
// commit to one table on a real S3-compatible server at the same time, 50
// rounds each: every commit lands in its own snapshot, none is lost or
// overwritten, and every row is read back. The race for snapshot-N is
// decided by the conditional put (fs.S3.WriteFileAtomic).
func TestS3TwoWritersCommit(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "lake")
	const path, rounds = "s3://lake/wh/default.db/t", 50
	open := func() *Table {
		fio, err := fs.ForPath(path, srv.Options())
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := Open(fio, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	fio, _ := fs.ForPath(path, srv.Options())
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "v", Type: sql.String()}}, PrimaryKey: []string{"id"}}
	if _, err := Create(fio, path, schema, nil, map[string]string{"bucket": "2"}, "", 1); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tbl, user := open(), fmt.Sprintf("writer-%d", w)
			for id := int64(1); id <= rounds; id++ {
				for attempt := 0; ; attempt++ {
					tw, err := tbl.NewWrite(WriteOptions{})
					if err != nil {
						t.Error(err)
						return
					}
					key := int64(w)*1000 + id
					err = tw.Write(sql.Row{Kind: sql.Insert, Values: []any{key, fmt.Sprintf("%s-%d", user, id)}})
					var msgs []CommitMessage
					if err == nil {
						msgs, err = tw.PrepareCommit(true)
					}
					tw.Close()
					if err == nil {
						err = tbl.NewCommit(user).Commit(id, msgs, nil)
					}
					if err == nil {
						break
					}
					if !errors.Is(err, ErrCommitConflict) || attempt > 20 {
						t.Errorf("%s commit %d: %v", user, id, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	tbl := open()
	rows, err := readAll(tbl, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*rounds {
		t.Fatalf("%d rows, want %d", len(rows), 2*rounds)
	}
	// Every snapshot from 1 to the latest is there, and each writer's
	// APPEND commits are its identifiers 1..rounds, once each (a lost or
	// overwritten snapshot would leave a gap or a missing identifier;
	// compactions add COMPACT snapshots of their own).
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil {
		t.Fatal(err)
	}
	appends := map[string]int64{}
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("snapshot ids %v: a gap at %d", ids, i+1)
		}
		s, err := tbl.Snapshots.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.CommitKind == snapshot.Append {
			if appends[s.CommitUser]+1 != s.CommitIdentifier {
				t.Fatalf("snapshot %d: %s commit %d after %d", id, s.CommitUser, s.CommitIdentifier, appends[s.CommitUser])
			}
			appends[s.CommitUser] = s.CommitIdentifier
		}
	}
	if appends["writer-0"] != rounds || appends["writer-1"] != rounds {
		t.Fatalf("APPEND commits per writer: %v", appends)
	}
}

// A writer on S3 with Paimon's maintenance turned up: compaction after two
// sorted runs and one retained snapshot. Twelve commits upsert the same 50
// keys; afterwards the bucket holds only the retained snapshots (EARLIEST
// moved), no data or manifest file that no snapshot names (expiration
// deleted them through the S3 FileIO, ExpireSnapshotsImpl's order), and
// the table reads the last round's values.
func TestS3CompactionAndExpiration(t *testing.T) {
	srv := s3server.Start(t)
	srv.Bucket(t, "maint")
	const path, rounds = "s3://maint/wh/default.db/t", 12
	fio, err := fs.ForPath(path, srv.Options())
	if err != nil {
		t.Fatal(err)
	}
	schema := sql.Schema{Columns: []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "v", Type: sql.String()}}, PrimaryKey: []string{"id"}}
	if _, err := Create(fio, path, schema, nil, map[string]string{"bucket": "1", "num-sorted-run.compaction-trigger": "2",
		"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1"}, "", 1); err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(fio, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := int64(1); r <= rounds; r++ {
		w, err := tbl.NewWrite(WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for id := int64(1); id <= 50; id++ {
			if err := w.Write(sql.Row{Kind: sql.Insert, Values: []any{id, fmt.Sprintf("round-%d", r)}}); err != nil {
				t.Fatal(err)
			}
		}
		msgs, err := w.PrepareCommit(true)
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.NewCommit("w").Commit(r, msgs, nil); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := tbl.Snapshots.ListIDs()
	if err != nil {
		t.Fatal(err)
	}
	earliest, _, _ := tbl.Snapshots.EarliestID()
	latest, _, _ := tbl.Snapshots.LatestID()
	if len(ids) != 1 || ids[0] != latest || earliest != latest || latest < rounds {
		t.Fatalf("snapshots %v, EARLIEST %d, LATEST %d: want only the latest retained", ids, earliest, latest)
	}
	s, err := tbl.Snapshots.Read(latest)
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, sp := range splits {
		for _, f := range sp.Files {
			live[f.FileName] = true
		}
	}
	files, err := fio.List(path + "/bucket-0")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !live[f.Name] {
			t.Errorf("bucket-0/%s: no retained snapshot names it, expiration left it", f.Name)
		}
	}
	if len(files) > 2 {
		t.Errorf("%d data files after %d commits with compaction every 2 sorted runs", len(files), rounds)
	}
	rows, err := readAll(tbl, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 50 || !strings.Contains(rows[0], fmt.Sprintf("round-%d", rounds)) {
		t.Fatalf("%d rows, first %q", len(rows), rows[0])
	}
}
