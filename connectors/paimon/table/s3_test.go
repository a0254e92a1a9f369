package table

import (
	"errors"
	"fmt"
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
