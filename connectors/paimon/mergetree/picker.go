package mergetree

import "slices"

// CompactUnit is a picked compaction: the files to compact and the level
// their output goes to.
type CompactUnit struct {
	OutputLevel int
	Files       []*FileMeta
}

func unitFromRuns(outputLevel int, runs []LevelSortedRun) *CompactUnit {
	u := &CompactUnit{OutputLevel: outputLevel}
	for _, r := range runs {
		u.Files = append(u.Files, r.Run.Files...)
	}
	return u
}

// CompactStrategy picks a compaction from the sorted runs of a bucket
// (newest first), or returns nil when nothing should be compacted.
type CompactStrategy interface {
	Pick(numLevels int, runs []LevelSortedRun) *CompactUnit
}

// UniversalCompaction is Paimon's universal compaction picker (RocksDB
// style), given sorted runs newest first:
//
//  1. fewer runs than NumRunTrigger: nothing.
//  2. size amplification: if the size of all runs but the oldest, ×100,
//     exceeds MaxSizeAmp × the oldest run's size, compact everything to the
//     max level.
//  3. size ratio: starting from the newest run, keep adding the next run
//     while (candidate size × (100+SizeRatio)/100) ≥ its size; compact if
//     more than one run was taken.
//  4. file number: if there are more runs than NumRunTrigger, force the
//     newest runs−trigger+1 runs (extended by the size-ratio rule).
//
// The output level is the max level when all runs are taken, else the level
// of the first run not taken minus one; level 0 is never an output, so the
// pick is extended to the next run above level 0 (and to the max level if
// that takes everything).
type UniversalCompaction struct {
	MaxSizeAmp    int // compaction.max-size-amplification-percent
	SizeRatio     int // compaction.size-ratio
	NumRunTrigger int // num-sorted-run.compaction-trigger
}

// Pick implements CompactStrategy.
func (u UniversalCompaction) Pick(numLevels int, runs []LevelSortedRun) *CompactUnit {
	maxLevel := numLevels - 1
	if unit := u.pickForSizeAmp(maxLevel, runs); unit != nil {
		return unit
	}
	if unit := u.pickForSizeRatio(maxLevel, runs); unit != nil {
		return unit
	}
	if len(runs) > u.NumRunTrigger {
		return u.pickForSizeRatioFrom(maxLevel, runs, len(runs)-u.NumRunTrigger+1, false)
	}
	return nil
}

func (u UniversalCompaction) pickForSizeAmp(maxLevel int, runs []LevelSortedRun) *CompactUnit {
	if len(runs) < u.NumRunTrigger {
		return nil
	}
	var candidate int64
	for _, r := range runs[:len(runs)-1] {
		candidate += r.Run.TotalSize()
	}
	earliest := runs[len(runs)-1].Run.TotalSize()
	if candidate*100 > int64(u.MaxSizeAmp)*earliest {
		return unitFromRuns(maxLevel, runs)
	}
	return nil
}

func (u UniversalCompaction) pickForSizeRatio(maxLevel int, runs []LevelSortedRun) *CompactUnit {
	if len(runs) < u.NumRunTrigger {
		return nil
	}
	return u.pickForSizeRatioFrom(maxLevel, runs, 1, false)
}

// pickForSizeRatioFrom starts with the newest count runs and extends by the
// size-ratio rule; forcePick compacts even a single run.
func (u UniversalCompaction) pickForSizeRatioFrom(maxLevel int, runs []LevelSortedRun, count int, forcePick bool) *CompactUnit {
	var size int64
	for _, r := range runs[:count] {
		size += r.Run.TotalSize()
	}
	for i := count; i < len(runs); i++ {
		next := runs[i].Run.TotalSize()
		if float64(size)*(100.0+float64(u.SizeRatio))/100.0 < float64(next) {
			break
		}
		size += next
		count++
	}
	if forcePick || count > 1 {
		return createUnit(runs, maxLevel, count)
	}
	return nil
}

// ForcePickL0 picks all level-0 runs (extended by size ratio), or nil when
// level 0 is empty; lookup tables use it after every write so changelog is
// produced for each commit.
func (u UniversalCompaction) ForcePickL0(numLevels int, runs []LevelSortedRun) *CompactUnit {
	count := 0
	for _, r := range runs {
		if r.Level > 0 {
			break
		}
		count++
	}
	if count == 0 {
		return nil
	}
	return u.pickForSizeRatioFrom(numLevels-1, runs, count, true)
}

func createUnit(runs []LevelSortedRun, maxLevel, count int) *CompactUnit {
	var outputLevel int
	if count == len(runs) {
		outputLevel = maxLevel
	} else {
		outputLevel = max(0, runs[count].Level-1)
	}
	if outputLevel == 0 {
		// Never output to level 0: take runs until one above level 0.
		for i := count; i < len(runs); i++ {
			count++
			if runs[i].Level != 0 {
				outputLevel = runs[i].Level
				break
			}
		}
	}
	if count == len(runs) {
		outputLevel = maxLevel
	}
	return unitFromRuns(outputLevel, runs[:count])
}

// ForceUpLevel0Compaction is the strategy of tables that need lookup: the
// universal pick if there is one, else level 0 forced up. In gentle
// lookup-compact mode (MaxInterval > 0) level 0 is forced up only every
// MaxInterval triggers.
type ForceUpLevel0Compaction struct {
	Universal   UniversalCompaction
	MaxInterval int
	count       int
}

// Pick implements CompactStrategy.
func (f *ForceUpLevel0Compaction) Pick(numLevels int, runs []LevelSortedRun) *CompactUnit {
	if u := f.Universal.Pick(numLevels, runs); u != nil {
		return u
	}
	if f.MaxInterval <= 0 {
		return f.Universal.ForcePickL0(numLevels, runs)
	}
	f.count++
	if f.count >= f.MaxInterval {
		f.count = 0
		return f.Universal.ForcePickL0(numLevels, runs)
	}
	return nil
}

// PickFullCompaction compacts every run to the max level; nil when there is
// nothing or only the max level (Paimon's CompactStrategy.pickFullCompaction
// without record expiry or deletion vectors).
func PickFullCompaction(numLevels int, runs []LevelSortedRun) *CompactUnit {
	if len(runs) == 0 || (len(runs) == 1 && runs[0].Level == numLevels-1) {
		return nil
	}
	return unitFromRuns(numLevels-1, runs)
}

// PartitionIntervals splits files into sections of overlapping key ranges,
// ordered by key; each section is split into as few sorted runs as possible
// (Paimon's IntervalPartition). A section with one run does not overlap
// anything and may be upgraded instead of rewritten.
func PartitionIntervals(files []*FileMeta, key *Comparator) [][]SortedRun {
	fs := slices.Clone(files)
	slices.SortStableFunc(fs, func(a, b *FileMeta) int {
		if c := key.Compare(a.MinKey, b.MinKey); c != 0 {
			return c
		}
		return key.Compare(a.MaxKey, b.MaxKey)
	})
	var out [][]SortedRun
	var section []*FileMeta
	var bound []any
	for _, f := range fs {
		if len(section) > 0 && key.Compare(f.MinKey, bound) > 0 {
			out = append(out, partitionSection(section, key))
			section, bound = nil, nil
		}
		section = append(section, f)
		if bound == nil || key.Compare(f.MaxKey, bound) > 0 {
			bound = f.MaxKey
		}
	}
	if len(section) > 0 {
		out = append(out, partitionSection(section, key))
	}
	return out
}

// partitionSection packs files (sorted by min key) greedily into runs: each
// file goes after the run whose last max key is smallest, if it starts
// after it, else opens a new run.
func partitionSection(files []*FileMeta, key *Comparator) []SortedRun {
	runs := [][]*FileMeta{{files[0]}}
	for _, f := range files[1:] {
		best := 0
		for i := range runs {
			if key.Compare(last(runs[i]).MaxKey, last(runs[best]).MaxKey) < 0 {
				best = i
			}
		}
		if key.Compare(f.MinKey, last(runs[best]).MaxKey) > 0 {
			runs[best] = append(runs[best], f)
		} else {
			runs = append(runs, []*FileMeta{f})
		}
	}
	out := make([]SortedRun, len(runs))
	for i, r := range runs {
		out[i] = SortedRun{Files: r}
	}
	return out
}

func last(fs []*FileMeta) *FileMeta { return fs[len(fs)-1] }
