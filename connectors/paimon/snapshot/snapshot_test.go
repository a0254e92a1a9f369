package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
)

func TestFixtureSnapshots(t *testing.T) {
	root := fixtures.PaimonDir(t)
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.db", "*", "snapshot", "snapshot-*"))
	if len(files) < 15 {
		t.Fatalf("found %d snapshots", len(files))
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(out)
		s.normalize() // older files lack nextRowId; the 1.4 shape has it
		if err != nil || !reflect.DeepEqual(s, s2) {
			t.Fatalf("%s: round trip %v\n%+v\n%+v", f, err, s, s2)
		}
		// Files without the ≤1.3 leftovers (logOffsets, explicit nulls) are
		// the 1.4 shape: ours must be byte-identical.
		if !strings.Contains(string(b), "logOffsets") && string(out) != string(b) {
			t.Errorf("%s: not byte-identical:\n%s\n---\n%s", f, b, out)
		}
	}
	b, _ := os.ReadFile(filepath.Join(root, "pk_dv_golden_java21/default.db/test_pk_global_index_golden/snapshot/snapshot-6"))
	s, _ := Parse(b)
	if s.CommitIdentifier != BatchCommitIdentifier || s.CommitKind != Compact || *s.IndexManifest == "" || Get(s.BaseManifestListSize) != 1189 {
		t.Errorf("snapshot-6: %+v", s)
	}
}

func TestManagerFixture(t *testing.T) {
	root := fixtures.PaimonDir(t)
	m := NewManager(fs.NewLocal(), filepath.Join(root, "pk_mor_partitioned/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"))
	l, ok, err := m.LatestID()
	if err != nil || !ok || l != 5 {
		t.Fatalf("latest %d %v %v", l, ok, err)
	}
	e, ok, err := m.EarliestID()
	if err != nil || !ok || e != 1 {
		t.Fatalf("earliest %d %v %v", e, ok, err)
	}
	s, err := m.EarlierOrEqualTime(1756267057573 - 1)
	if err != nil || s == nil || s.ID != 4 {
		t.Fatalf("by time: %+v %v", s, err)
	}
}

func snap(id int64) *Snapshot {
	return &Snapshot{ID: id, SchemaID: 0, BaseManifestList: "manifest-list-a-0", DeltaManifestList: "manifest-list-a-1",
		CommitUser: "u", CommitIdentifier: BatchCommitIdentifier, CommitKind: Append, TimeMillis: 1000 * id,
		TotalRecordCount: Int64(id), DeltaRecordCount: Int64(1), NextRowID: Int64(0)}
}

func TestManagerHints(t *testing.T) {
	dir := t.TempDir()
	m := NewManager(fs.NewLocal(), dir)
	if _, ok, err := m.LatestID(); ok || err != nil {
		t.Fatal("empty table has a latest snapshot")
	}
	if s, err := m.Latest(); s != nil || err != nil {
		t.Fatal("empty Latest")
	}
	for i := int64(1); i <= 3; i++ {
		if err := m.Commit(snap(i)); err != nil {
			t.Fatal(err)
		}
	}
	// No hint yet: listing.
	if id, _, _ := m.LatestID(); id != 3 {
		t.Fatalf("latest %d", id)
	}
	// Stale hint (commit landed, hint not yet written).
	m.CommitLatestHint(2)
	if id, _, _ := m.LatestID(); id != 3 {
		t.Fatalf("stale hint: %d", id)
	}
	m.CommitLatestHint(3)
	if id, _, _ := m.LatestID(); id != 3 {
		t.Fatalf("hint: %d", id)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "snapshot", "LATEST")); string(b) != "3" {
		t.Fatalf("LATEST content %q", b)
	}
	// Expiration removed snapshot 1; EARLIEST names a deleted one.
	m.CommitEarliestHint(1)
	m.Delete(1)
	if id, _, _ := m.EarliestID(); id != 2 {
		t.Fatalf("earliest %d", id)
	}
	if _, err := m.Read(1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read expired: %v", err)
	}
	if err := m.Commit(snap(3)); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("double commit: %v", err)
	}
}

// TestCommitRace: several committers race for the same id; one wins.
func TestCommitRace(t *testing.T) {
	m := NewManager(fs.NewLocal(), t.TempDir())
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := snap(1)
			s.CommitUser = string(rune('a' + i))
			err := m.Commit(s)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
			} else if !errors.Is(err, fs.ErrExist) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d winners", wins)
	}
}

func TestConsumersAndTags(t *testing.T) {
	dir := t.TempDir()
	m := NewManager(fs.NewLocal(), dir)
	if err := m.WriteConsumer("c1", Consumer{NextSnapshot: 12}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "consumer", "consumer-c1"))
	if string(b) != "{\n  \"nextSnapshot\" : 12\n}" {
		t.Fatalf("consumer file %q", b)
	}
	cs, err := m.Consumers()
	if err != nil || cs["c1"].NextSnapshot != 12 {
		t.Fatalf("%v %v", cs, err)
	}
	if _, err := m.ReadConsumer("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// A Java tag file: snapshot JSON plus tagCreateTime/tagTimeRetained.
	os.MkdirAll(filepath.Join(dir, "tag"), 0o755)
	javaTag := `{
  "version" : 3,
  "id" : 2,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-x-0",
  "deltaManifestList" : "manifest-list-x-1",
  "commitUser" : "u",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 5,
  "totalRecordCount" : 1,
  "deltaRecordCount" : 1,
  "tagCreateTime" : [ 2026, 2, 4, 6, 8, 10, 12 ],
  "tagTimeRetained" : 3.000000000
}`
	os.WriteFile(filepath.Join(dir, "tag", "tag-t1"), []byte(javaTag), 0o644)
	tg, err := m.ReadTag("t1")
	if err != nil || tg.ID != 2 || len(tg.TagCreateTime) != 7 || tg.TagTimeRetained.String() != "3.000000000" {
		t.Fatalf("tag %+v %v", tg, err)
	}
	out, _ := tg.Marshal()
	// Rewritten in the 1.4 shape: nextRowId (always written by 1.3+) appears.
	if want := strings.Replace(javaTag, `"deltaRecordCount" : 1,`, `"deltaRecordCount" : 1,`+"\n"+`  "nextRowId" : 0,`, 1); string(out) != want {
		t.Fatalf("tag rewrite:\n%s", out)
	}
	if err := m.CreateTag("t2", tg); err != nil {
		t.Fatal(err)
	}
	if names, _ := m.TagNames(); strings.Join(names, ",") != "t1,t2" {
		t.Fatalf("tags %v", names)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":3,"id":4,"commitIdentifier":9223372036854775807,"properties":{"a":"b"}}`))
	f.Add([]byte(`{"id":1,"tagCreateTime":[1,2],"tagTimeRetained":1.5}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := Parse(b); err == nil {
			if _, err := s.Marshal(); err != nil {
				t.Fatal(err)
			}
		}
		if tg, err := ParseTag(b); err == nil {
			_, _ = tg.Marshal()
		}
		_, _ = ParseConsumer(b)
	})
}

// TestCommitUnderInjectedFailures fails every file operation of a commit
// (snapshot file, then LATEST hint) in turn: afterwards the table has
// either the old or the new latest snapshot, never a partial one, and a
// retry of a commit that landed is detected as ErrExist.
func TestCommitUnderInjectedFailures(t *testing.T) {
	commit := func(fio fs.FileIO, id int64) error {
		m := NewManager(fio, "/t")
		if err := m.Commit(snap(id)); err != nil {
			return err
		}
		return m.CommitLatestHint(id)
	}
	for _, op := range []fs.Op{fs.OpWriteAtomic, fs.OpOverwrite} {
		mem := fs.NewMem()
		if err := commit(mem, 1); err != nil {
			t.Fatal(err)
		}
		inj := fs.NewInjecting(mem, fs.FailNth(op, 1))
		err := commit(inj, 2)
		if !errors.Is(err, fs.ErrInjected) {
			t.Fatalf("%s: %v", op, err)
		}
		m := NewManager(mem, "/t")
		latest, ok, err := m.LatestID()
		if err != nil || !ok {
			t.Fatal(err)
		}
		switch op {
		case fs.OpWriteAtomic: // snapshot never written: old state
			if latest != 1 {
				t.Fatalf("%s: latest %d", op, latest)
			}
		case fs.OpOverwrite: // snapshot landed, hint stale: listing finds it
			if latest != 2 {
				t.Fatalf("%s: latest %d", op, latest)
			}
			if err := m.Commit(snap(2)); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("retried commit: %v", err)
			}
		}
		if s, err := m.Read(latest); err != nil || s.ID != latest {
			t.Fatalf("read latest: %v", err)
		}
	}
}

// listCounter counts the directory listings of a FileIO.
type listCounter struct {
	fs.FileIO
	lists int
}

func (l *listCounter) List(dir string) ([]fs.FileStatus, error) {
	l.lists++
	return l.FileIO.List(dir)
}

// TestEarliestWithoutHintListsOnce: until a table's first expiration there
// is no EARLIEST hint, and EarliestID listed the snapshot directory on every
// call (twice per commit), so a commit's cost grew with the number of
// snapshots (issue 24: 1,000 commits). Now a listing's answer is kept while
// it is still the bottom of the contiguous ids; a bottom moved without a
// hint (snapshots deleted by hand) is found by listing again, and the hint
// wins when there is one (HintFileUtils.findEarliest).
func TestEarliestWithoutHintListsOnce(t *testing.T) {
	fio := &listCounter{FileIO: fs.NewMem()}
	m := NewManager(fio, "/t")
	for id := int64(1); id <= 100; id++ {
		if err := fio.WriteFileAtomic(m.Path(id), []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	earliest := func(want int64) {
		t.Helper()
		id, ok, err := m.EarliestID()
		if err != nil || !ok || id != want {
			t.Fatalf("EarliestID = %d, %v, %v; want %d", id, ok, err, want)
		}
	}
	for range 10 {
		earliest(1)
	}
	if fio.lists != 1 {
		t.Fatalf("%d listings for 10 calls", fio.lists)
	}
	for id := int64(1); id <= 10; id++ {
		if err := fio.Delete(m.Path(id)); err != nil {
			t.Fatal(err)
		}
	}
	earliest(11)
	earliest(11)
	if fio.lists != 2 {
		t.Fatalf("%d listings after the bottom moved", fio.lists)
	}
	if err := fio.Overwrite(fs.Join(m.Dir(), EarliestHint), []byte("50")); err != nil {
		t.Fatal(err)
	}
	earliest(50)
	if fio.lists != 2 {
		t.Fatalf("%d listings with a hint", fio.lists)
	}
}
