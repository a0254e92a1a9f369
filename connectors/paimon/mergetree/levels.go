package mergetree

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// FileMeta is what the merge tree knows about one data file; the table layer
// maps it to and from Paimon's DataFileMeta. Values are immutable once a
// file is written; an upgrade (moving a file to another level without
// rewriting it) yields a copy with a new Level.
type FileMeta struct {
	// Name is the file name, unique within the bucket.
	Name string
	// Level is the LSM level (0..NumLevels-1).
	Level int
	// MinKey and MaxKey are the first and last (trimmed) keys in the file.
	MinKey, MaxKey []any
	// Size is the file size in bytes; it drives compaction picking.
	Size int64
	// MinSeq and MaxSeq bound the sequence numbers in the file.
	MinSeq, MaxSeq int64
	// RowCount is the number of records.
	RowCount int64
	// DeleteRowCount counts -U/-D records; -1 means unknown (treated as
	// "may contain deletes", as Paimon treats a null _DELETE_ROW_COUNT).
	DeleteRowCount int64
	// CreationMillis orders level-0 files that share sequence bounds.
	CreationMillis int64
	// MinTime is the least 'record-level.time-field' value in the file,
	// in epoch seconds, from its value statistics (nil: unknown, or no
	// record expiry).
	MinTime *int64
}

// Upgrade returns a copy of f at another level (DataFileMeta.upgrade).
func (f *FileMeta) Upgrade(level int) *FileMeta {
	c := *f
	c.Level = level
	return &c
}

// mayContainDeletes reports whether the file may hold -U/-D records.
func (f *FileMeta) mayContainDeletes() bool { return f.DeleteRowCount != 0 }

// SortedRun is a list of files with non-overlapping key ranges, sorted by
// key: one level ≥ 1, or one level-0 file.
type SortedRun struct {
	Files []*FileMeta
}

// TotalSize sums the file sizes.
func (r SortedRun) TotalSize() int64 {
	var n int64
	for _, f := range r.Files {
		n += f.Size
	}
	return n
}

// LevelSortedRun is a sorted run with the level it lives on.
type LevelSortedRun struct {
	Level int
	Run   SortedRun
}

// Levels holds the files of one bucket: level 0 newest first (by max
// sequence number descending, then min sequence ascending, creation time,
// name — Paimon's Levels order), and for each level 1..n one sorted run.
// INVARIANT: files of one level ≥ 1 never overlap in key range.
type Levels struct {
	key *Comparator
	// mu guards the two slices; they are replaced, never modified in place
	// (copy on write), so a snapshot stays valid for a concurrent
	// compaction's lookups while the writer adds level-0 files.
	mu     sync.RWMutex
	level0 []*FileMeta
	levels [][]*FileMeta // levels[i] is level i+1, sorted by MinKey
}

// levelsSnapshot is an immutable view of the levels.
type levelsSnapshot struct {
	level0 []*FileMeta
	levels [][]*FileMeta
}

func (s levelsSnapshot) numberOfLevels() int { return len(s.levels) + 1 }

func (l *Levels) snapshot() levelsSnapshot {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return levelsSnapshot{level0: l.level0, levels: l.levels}
}

// NewLevels builds levels from restored files. numLevels grows to hold the
// highest level present, as Paimon does when num-levels was lowered.
func NewLevels(key *Comparator, files []*FileMeta, numLevels int) (*Levels, error) {
	for _, f := range files {
		numLevels = max(numLevels, f.Level+1)
	}
	if numLevels < 2 {
		return nil, fmt.Errorf("mergetree: Number of levels must be at least 2.")
	}
	l := &Levels{key: key, levels: make([][]*FileMeta, numLevels-1)}
	if err := l.Update(nil, files); err != nil {
		return nil, err
	}
	return l, nil
}

// NumberOfLevels is the level count (max level + 1).
func (l *Levels) NumberOfLevels() int { return len(l.levels) + 1 }

// MaxLevel is the highest level number.
func (l *Levels) MaxLevel() int { return len(l.levels) }

// Level0 returns the level-0 files, newest first. Do not modify.
func (l *Levels) Level0() []*FileMeta { return l.snapshot().level0 }

// RunOfLevel returns the sorted run of a level ≥ 1. Do not modify.
func (l *Levels) RunOfLevel(level int) SortedRun {
	return SortedRun{Files: l.snapshot().levels[level-1]}
}

// NumberOfSortedRuns counts level-0 files plus non-empty levels; it is what
// num-sorted-run.compaction-trigger and stop-trigger compare with.
func (l *Levels) NumberOfSortedRuns() int {
	s := l.snapshot()
	n := len(s.level0)
	for _, r := range s.levels {
		if len(r) > 0 {
			n++
		}
	}
	return n
}

// NonEmptyHighestLevel is the highest level holding files, 0 if only level
// 0 does, -1 if the bucket is empty.
func (l *Levels) NonEmptyHighestLevel() int {
	s := l.snapshot()
	for i := len(s.levels) - 1; i >= 0; i-- {
		if len(s.levels[i]) > 0 {
			return i + 1
		}
	}
	if len(s.level0) > 0 {
		return 0
	}
	return -1
}

// TotalFileSize sums all file sizes.
func (l *Levels) TotalFileSize() int64 {
	var n int64
	for _, r := range l.LevelSortedRuns() {
		n += r.Run.TotalSize()
	}
	return n
}

// AllFiles lists every file, in sorted-run order.
func (l *Levels) AllFiles() []*FileMeta {
	var out []*FileMeta
	for _, r := range l.LevelSortedRuns() {
		out = append(out, r.Run.Files...)
	}
	return out
}

// LevelSortedRuns lists the runs newest first: each level-0 file, then each
// non-empty level ascending. This is the input of compaction picking.
func (l *Levels) LevelSortedRuns() []LevelSortedRun {
	s := l.snapshot()
	var runs []LevelSortedRun
	for _, f := range s.level0 {
		runs = append(runs, LevelSortedRun{Level: 0, Run: SortedRun{Files: []*FileMeta{f}}})
	}
	for i, r := range s.levels {
		if len(r) > 0 {
			runs = append(runs, LevelSortedRun{Level: i + 1, Run: SortedRun{Files: r}})
		}
	}
	return runs
}

// Update applies a compaction result or new files: files in before are
// removed (matched by name and level), files in after added at their level.
// It fails without changing anything if a level ≥ 1 would overlap.
func (l *Levels) Update(before, after []*FileMeta) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	level0 := slices.Clone(l.level0)
	levels := slices.Clone(l.levels)
	for _, f := range after {
		if f.Level < 0 || f.Level > len(levels) {
			return fmt.Errorf("mergetree: file %s has level %d, levels are 0..%d", f.Name, f.Level, len(levels))
		}
	}
	gone := func(f *FileMeta) bool {
		for _, b := range before {
			if b.Name == f.Name && b.Level == f.Level {
				return true
			}
		}
		return false
	}
	touched := map[int]bool{}
	for _, b := range before {
		touched[b.Level] = true
	}
	for _, a := range after {
		touched[a.Level] = true
	}
	for lv := range touched {
		if lv == 0 {
			level0 = slices.DeleteFunc(level0, gone)
			for _, a := range after {
				if a.Level == 0 {
					level0 = append(level0, a)
				}
			}
			slices.SortFunc(level0, compareLevel0)
			continue
		}
		if lv > len(levels) {
			continue
		}
		files := slices.DeleteFunc(slices.Clone(levels[lv-1]), gone)
		for _, a := range after {
			if a.Level == lv {
				files = append(files, a)
			}
		}
		slices.SortFunc(files, func(a, b *FileMeta) int { return l.key.Compare(a.MinKey, b.MinKey) })
		for i := 1; i < len(files); i++ {
			if l.key.Compare(files[i-1].MaxKey, files[i].MinKey) >= 0 {
				return fmt.Errorf("mergetree: level %d would overlap: %s [%v..%v] and %s [%v..%v]", lv,
					files[i-1].Name, files[i-1].MinKey, files[i-1].MaxKey, files[i].Name, files[i].MinKey, files[i].MaxKey)
			}
		}
		levels[lv-1] = files
	}
	l.level0, l.levels = level0, levels
	return nil
}

// compareLevel0 is Paimon's level-0 order: newest (largest max sequence)
// first, then min sequence, creation time and name so that no two files are
// considered equal.
func compareLevel0(a, b *FileMeta) int {
	if a.MaxSeq != b.MaxSeq {
		if a.MaxSeq > b.MaxSeq {
			return -1
		}
		return 1
	}
	if a.MinSeq != b.MinSeq {
		if a.MinSeq < b.MinSeq {
			return -1
		}
		return 1
	}
	if a.CreationMillis != b.CreationMillis {
		if a.CreationMillis < b.CreationMillis {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

// String renders the levels for tests and debugging, one line per run.
func (l *Levels) String() string {
	var b strings.Builder
	for _, r := range l.LevelSortedRuns() {
		fmt.Fprintf(&b, "L%d:", r.Level)
		for _, f := range r.Run.Files {
			fmt.Fprintf(&b, " %s", f.Name)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
