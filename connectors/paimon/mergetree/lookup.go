package mergetree

import (
	"sort"
	"sync"
)

// LookupLevels finds the newest version of a key in the levels at or above
// startLevel (Paimon's LookupLevels.lookup): level by level, the first level
// holding the key wins, whatever its kind (a -D found there means the key is
// deleted). It is the lookup index the lookup changelog producer and
// first-row use for keys whose older versions are not in the compaction.
// It also reports the file and row position of what it found, which
// deletion-vector tables mark deleted (Paimon's PositionedKeyValue).
type LookupLevels interface {
	Lookup(key []any, startLevel int) (*KV, FilePos, error)
	// Forget drops cached data of files that are gone (after compaction).
	Forget(names []string)
}

// FilePos is a row of a data file: its name and 0-based position.
type FilePos struct {
	File string
	Pos  int64
}

// fileFinder finds a key in one data file and its row position there.
type fileFinder interface {
	find(f *FileMeta, key []any) (*KV, int64, error)
}

// lookupLevels walks the levels from startLevel and asks a fileFinder for
// the one file per level whose key range holds the key (all overlapping
// files, newest first, in level 0).
func lookupLevels(levels *Levels, cmp *Comparator, ff fileFinder, key []any, startLevel int) (*KV, FilePos, error) {
	snap := levels.snapshot()
	for lv := startLevel; lv < snap.numberOfLevels(); lv++ {
		var files []*FileMeta
		if lv == 0 {
			files = snap.level0
		} else {
			run := snap.levels[lv-1]
			i := sort.Search(len(run), func(i int) bool { return cmp.Compare(run[i].MaxKey, key) >= 0 })
			if i < len(run) && cmp.Compare(run[i].MinKey, key) <= 0 {
				files = run[i : i+1]
			}
		}
		for _, f := range files {
			if cmp.Compare(f.MinKey, key) > 0 || cmp.Compare(f.MaxKey, key) < 0 {
				continue
			}
			r, pos, err := ff.find(f, key)
			if err != nil {
				return nil, FilePos{}, err
			}
			if r != nil {
				return r, FilePos{File: f.Name, Pos: pos}, nil
			}
		}
	}
	return nil, FilePos{}, nil
}

// searchRecords binary-searches records sorted by key; with repeated keys
// the last (newest) version wins. It returns the record's index too.
func searchRecords(recs []*KV, cmp *Comparator, key []any, level int) (*KV, int64) {
	i := sort.Search(len(recs), func(i int) bool { return cmp.Compare(recs[i].Key, key) >= 0 })
	if i >= len(recs) || cmp.Compare(recs[i].Key, key) != 0 {
		return nil, 0
	}
	for i+1 < len(recs) && cmp.Compare(recs[i+1].Key, key) == 0 {
		i++
	}
	r := *recs[i]
	r.Level = level
	return &r, int64(i)
}

// MemLookup is an in-memory LookupLevels: it loads a file's records on the
// first lookup that needs the file (built lazily per bucket, as Paimon's
// lookup files are) and keeps them until the file is forgotten. Memory is
// bounded by MaxCachedRecords (0: unbounded); the least recently loaded file
// is evicted first.
type MemLookup struct {
	levels *Levels
	store  RunStore
	key    *Comparator

	// MaxCachedRecords bounds the records held across cached files.
	MaxCachedRecords int
	// Expire, when set, leaves out the records expired when a file is
	// first looked up: Paimon's lookup levels read the data files through
	// the same RecordLevelExpire.wrap filter as the compaction
	// (MergeTreeCompactManagerFactory.createRewriter: lookupReaderFactory
	// is the wrapped readerFactory, except for first-row), so an expired
	// old value is not found and the lookup changelog of its key's next
	// record is an insert. Files are cached as first read.
	Expire *RecordExpire

	mu     sync.Mutex
	cache  map[string][]*KV
	order  []string
	cached int
}

// NewMemLookup creates a lookup over levels, reading files from store.
func NewMemLookup(levels *Levels, store RunStore, key *Comparator) *MemLookup {
	return &MemLookup{levels: levels, store: store, key: key, cache: map[string][]*KV{}}
}

// Lookup implements LookupLevels.
func (m *MemLookup) Lookup(key []any, startLevel int) (*KV, FilePos, error) {
	return lookupLevels(m.levels, m.key, m, key, startLevel)
}

func (m *MemLookup) find(f *FileMeta, key []any) (*KV, int64, error) {
	recs, err := m.load(f)
	if err != nil {
		return nil, 0, err
	}
	r, pos := searchRecords(recs, m.key, key, f.Level)
	return r, pos, nil
}

func (m *MemLookup) load(f *FileMeta) ([]*KV, error) {
	m.mu.Lock()
	recs, ok := m.cache[f.Name]
	m.mu.Unlock()
	if ok {
		return recs, nil
	}
	it, err := openLookup(m.store, f, m.Expire)
	if err != nil {
		return nil, err
	}
	recs, err = Collect(it)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.cache[f.Name]; !ok {
		m.cache[f.Name] = recs
		m.order = append(m.order, f.Name)
		m.cached += len(recs)
		for m.MaxCachedRecords > 0 && m.cached > m.MaxCachedRecords && len(m.order) > 1 {
			m.evict(m.order[0])
		}
	}
	return recs, nil
}

func (m *MemLookup) evict(name string) {
	m.cached -= len(m.cache[name])
	delete(m.cache, name)
	for i, n := range m.order {
		if n == name {
			m.order = append(m.order[:i], m.order[i+1:]...)
			break
		}
	}
}

// Forget implements LookupLevels.
func (m *MemLookup) Forget(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if _, ok := m.cache[n]; ok {
			m.evict(n)
		}
	}
}

// openLookup reads a data file for a lookup index, without the records e
// expires. Positions then skip them, which only deletion vectors read,
// and the table layer refuses record expiry with deletion vectors.
func openLookup(store RunStore, f *FileMeta, e *RecordExpire) (Iterator, error) {
	it, err := store.Open(f)
	if err != nil || e == nil {
		return it, err
	}
	return &expireIter{it: it, e: e, now: e.nowSeconds()}, nil
}
