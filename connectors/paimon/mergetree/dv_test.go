package mergetree

import (
	"fmt"
	"sort"
	"sync"
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
