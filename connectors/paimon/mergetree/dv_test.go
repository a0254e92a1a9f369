package mergetree

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// memDVs is an in-memory DeletionVectors: positions per data file, and the
// vectors as of each WriteIndex ("index files"), so a restarted writer
// starts from what the last commit carried.
type memDVs struct {
	mu       sync.Mutex
	vecs     map[string]map[int64]bool
	modified bool
	written  int // index files written
}

func newMemDVs(restored map[string]map[int64]bool) *memDVs {
	d := &memDVs{vecs: map[string]map[int64]bool{}}
	for f, ps := range restored {
		d.vecs[f] = map[int64]bool{}
		for p := range ps {
			d.vecs[f][p] = true
		}
	}
	return d
}

func (d *memDVs) IsDeleted(file string, pos int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vecs[file][pos]
}

func (d *memDVs) Has(file string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vecs[file] != nil
}

func (d *memDVs) Delete(file string, pos int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.vecs[file] == nil {
		d.vecs[file] = map[int64]bool{}
	}
	if !d.vecs[file][pos] {
		d.vecs[file][pos] = true
		d.modified = true
	}
	return nil
}

func (d *memDVs) Remove(file string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.vecs[file]; ok {
		delete(d.vecs, file)
		d.modified = true
	}
}

// memIndex is a written index file: a copy of the vectors.
type memIndex struct {
	vecs      map[string]map[int64]bool
	discarded bool
}

func (i *memIndex) Discard() { i.discarded = true }

func (d *memDVs) WriteIndex() (IndexFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.modified {
		return nil, nil
	}
	d.modified = false
	d.written++
	return &memIndex{vecs: newMemDVs(d.vecs).vecs}, nil
}

// dvRead reads a bucket the way a batch reader reads a deletion-vector
// table (raw convertible splits): level 0 is skipped, and every other
// file's rows minus those its vector marks are returned without merging.
// It fails when a key shows up twice or a retraction is visible.
func dvRead(store *MemStore, levels *Levels, dvs *memDVs) (map[int32]string, error) {
	got := map[int32]string{}
	files := levels.AllFiles()
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		if f.Level == 0 {
			continue
		}
		for pos, r := range store.Records(f.Name) {
			if dvs.IsDeleted(f.Name, int64(pos)) {
				continue
			}
			if !r.Kind.IsAdd() {
				return nil, fmt.Errorf("retraction %s of key %v visible in %s at level %d", r.Kind, r.Key, f.Name, f.Level)
			}
			k := r.Key[0].(int32)
			if old, dup := got[k]; dup {
				return nil, fmt.Errorf("key %d visible twice: %s and %s (in %s at level %d)", k, old, fmtRow(r.Value), f.Name, f.Level)
			}
			got[k] = fmtRow(r.Value)
		}
	}
	return got, nil
}

// TestLookupHitMarkedDeleted: a lookup compaction of a deletion-vector
// table finds the key's row in a higher-level file, but that row is
// already marked deleted (the key was deleted since; its retraction was
// dropped). The key is absent: the lookup producer emits +I for the
// re-insert, even with row-deduplicate and identical content. Paimon 1.4's
// LookupChangelogMergeFunctionWrapper uses the marked row as the before
// image and emits nothing (apache/paimon#8204). An unmarked hit is
// marked and gives -U/+U (or nothing, when row-deduplicate finds it
// equal).
func TestLookupHitMarkedDeleted(t *testing.T) {
	spec, err := newSpec(mmNames, mmTypes, []string{"id"}, map[string]string{"changelog-producer": "lookup",
		"deletion-vectors.enabled": "true", "changelog-producer.row-deduplicate": "true"})
	if err != nil {
		t.Fatal(err)
	}
	v := []any{int32(1), int64(80), "CREATED", int64(0)}
	for _, marked := range []bool{true, false} {
		store := NewMemStore(spec.Key, 0)
		file := func(level int, kind FileKind, seq int64) []*FileMeta {
			w, err := store.NewWriter(level, kind)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(&KV{Key: []any{int32(1)}, Seq: seq, Kind: sql.Insert, Value: v, Level: level}); err != nil {
				t.Fatal(err)
			}
			fs, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			return fs
		}
		high, low := file(2, CompactFile, 1), file(0, FlushFile, 5)
		levels, err := NewLevels(spec.Key, append(append([]*FileMeta{}, high...), low...), 3)
		if err != nil {
			t.Fatal(err)
		}
		dvs := newMemDVs(nil)
		if marked {
			dvs.Delete(high[0].Name, 0)
		}
		rw, err := NewRewriter(spec, store, NewMemLookup(levels, store, spec.Key), dvs, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rw.Rewrite(1, true, [][]SortedRun{{{Files: low}}})
		if err != nil {
			t.Fatal(err)
		}
		var cl []string
		for _, f := range res.Changelog {
			for _, r := range store.Records(f.Name) {
				cl = append(cl, r.Kind.String())
			}
		}
		want := "[+I]"
		if !marked {
			want = "[]" // equal to the before image: row-deduplicate emits nothing
		}
		if fmt.Sprint(cl) != want {
			t.Errorf("marked=%v: changelog %v, want %s", marked, cl, want)
		}
		if !dvs.IsDeleted(high[0].Name, 0) {
			t.Errorf("marked=%v: the older version is not marked deleted", marked)
		}
	}
}
