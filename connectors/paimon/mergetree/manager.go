package mergetree

import (
	"fmt"
	"sync"
)

// CompactManager owns the levels of one bucket and runs compactions on them
// (Paimon's MergeTreeCompactManager). At most one compaction runs at a time,
// on its own goroutine, beside writing; its result is applied to the levels
// only when collected (Result), from the writer's goroutine.
type CompactManager struct {
	spec     *Spec
	levels   *Levels
	strategy CompactStrategy
	rw       *Rewriter
	lookup   LookupLevels
	dvs      DeletionVectors

	mu      sync.Mutex
	running *compactRun
}

type compactRun struct {
	unit *CompactUnit
	// fileRewrite: a full compaction of max-level files that have deletion
	// vectors, each rewritten alone (FileRewriteCompactTask).
	fileRewrite bool
	done        chan struct{}
	res         *CompactResult
	err         error
}

// NewCompactManager sets up compaction for a bucket. The strategy is
// universal compaction, or ForceUpLevel0Compaction for tables that need
// lookup; lookup may be nil when the table does not need it, dvs when it
// has no deletion vectors.
func NewCompactManager(spec *Spec, levels *Levels, store RunStore, lookup LookupLevels, dvs DeletionVectors) (*CompactManager, error) {
	rw, err := NewRewriter(spec, store, lookup, dvs, levels.MaxLevel())
	if err != nil {
		return nil, err
	}
	uni := UniversalCompaction{MaxSizeAmp: spec.MaxSizeAmp, SizeRatio: spec.SizeRatio, NumRunTrigger: spec.CompactionTrigger}
	var st CompactStrategy = uni
	if spec.NeedLookup {
		st = &ForceUpLevel0Compaction{Universal: uni, MaxInterval: spec.LookupCompactMaxInterval}
	}
	return &CompactManager{spec: spec, levels: levels, strategy: st, rw: rw, lookup: lookup, dvs: rw.dvs}, nil
}

// Levels returns the managed levels.
func (m *CompactManager) Levels() *Levels { return m.levels }

// ShouldWaitForLatestCompaction is the stop-trigger back-pressure signal:
// more sorted runs than num-sorted-run.stop-trigger means the writer must
// wait for the running compaction before writing more.
func (m *CompactManager) ShouldWaitForLatestCompaction() bool {
	return m.levels.NumberOfSortedRuns() > m.spec.StopTrigger
}

// ShouldWaitForPreparingCheckpoint is the stronger signal checked at commit
// (stop-trigger + 1).
func (m *CompactManager) ShouldWaitForPreparingCheckpoint() bool {
	return m.levels.NumberOfSortedRuns() > m.spec.StopTrigger+1
}

// AddNewFile registers a flushed level-0 file.
func (m *CompactManager) AddNewFile(f *FileMeta) error { return m.levels.Update(nil, []*FileMeta{f}) }

// Pick chooses a compaction without running it: with full, every run to the
// max level; otherwise the strategy's pick, skipping picks that would only
// leave a single file where it is. dropDelete is true when the output is
// the highest non-empty level (nothing older can be shadowed by a delete),
// and for every output above level 0 with deletion vectors (older versions
// are marked deleted instead).
func (m *CompactManager) Pick(full bool) (unit *CompactUnit, dropDelete bool) {
	unit, dropDelete, _ = m.pick(full)
	return unit, dropDelete
}

func (m *CompactManager) pick(full bool) (unit *CompactUnit, dropDelete, fileRewrite bool) {
	runs := m.levels.LevelSortedRuns()
	if full {
		unit = PickFullCompaction(m.levels.NumberOfLevels(), runs)
		if unit == nil && (m.dvs != nil || m.spec.Expire != nil) && len(runs) == 1 {
			// CompactStrategy.pickFullCompaction: only the max level is
			// left; its files with expired records or deletion vectors
			// are rewritten.
			u := &CompactUnit{OutputLevel: runs[0].Level}
			for _, f := range runs[0].Run.Files {
				if m.spec.Expire.FileExpired(f) || m.dvs != nil && m.dvs.Has(f.Name) {
					u.Files = append(u.Files, f)
				}
			}
			if len(u.Files) > 0 {
				unit, fileRewrite = u, true
			}
		}
	} else {
		unit = m.strategy.Pick(m.levels.NumberOfLevels(), runs)
		if unit != nil && (len(unit.Files) == 0 || (len(unit.Files) == 1 && unit.Files[0].Level == unit.OutputLevel)) {
			unit = nil
		}
	}
	if unit == nil {
		return nil, false, false
	}
	dropDelete = unit.OutputLevel != 0 && (unit.OutputLevel >= m.levels.NonEmptyHighestLevel() || m.dvs != nil)
	return unit, dropDelete, fileRewrite
}

// Trigger starts a compaction if none is running and one is due (full:
// forced full compaction, which requires that none is running). It reports
// whether a compaction was started.
func (m *CompactManager) Trigger(full bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running != nil {
		if full {
			return false, fmt.Errorf("mergetree: A compaction task is still running while the user forces a new compaction. This is unexpected.")
		}
		return false, nil
	}
	unit, dropDelete, fileRewrite := m.pick(full)
	if unit == nil {
		return false, nil
	}
	run := &compactRun{unit: unit, fileRewrite: fileRewrite, done: make(chan struct{})}
	m.running = run
	task := &compactTask{rw: m.rw, key: m.spec.Key, minFileSize: m.spec.CompactionFileSize,
		outputLevel: unit.OutputLevel, maxLevel: m.levels.MaxLevel(), dropDelete: dropDelete}
	go func() {
		defer close(run.done)
		defer func() {
			// A bug in a merge function must not take the process down.
			if p := recover(); p != nil {
				run.err = fmt.Errorf("mergetree: compaction panicked: %v", p)
			}
		}()
		if fileRewrite {
			run.res, run.err = task.rewriteFiles(unit.Files)
		} else {
			run.res, run.err = task.run(unit.Files)
		}
		if run.err == nil && m.dvs != nil {
			// CompactDeletionFile.generateFiles: the vectors as they are
			// after this compaction, written when they changed.
			run.res.DeletionIndex, run.err = m.dvs.WriteIndex()
		}
	}()
	return true, nil
}

// Running reports whether a compaction is in progress.
func (m *CompactManager) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running != nil
}

// Result collects the running compaction: with blocking it waits, else it
// returns nil if the compaction is still running. The result is applied to
// the levels before it is returned; a failed compaction leaves the levels
// unchanged (its outputs were aborted).
func (m *CompactManager) Result(blocking bool) (*CompactResult, error) {
	m.mu.Lock()
	run := m.running
	m.mu.Unlock()
	if run == nil {
		return nil, nil
	}
	if blocking {
		<-run.done
	} else {
		select {
		case <-run.done:
		default:
			return nil, nil
		}
	}
	m.mu.Lock()
	m.running = nil
	m.mu.Unlock()
	if run.err != nil {
		return nil, run.err
	}
	if err := m.levels.Update(run.res.Before, run.res.After); err != nil {
		return nil, fmt.Errorf("mergetree: applying compaction: %w", err)
	}
	if m.lookup != nil {
		var gone []string
		kept := map[string]bool{}
		for _, f := range run.res.After {
			kept[f.Name] = true
		}
		for _, f := range run.res.Before {
			if !kept[f.Name] {
				gone = append(gone, f.Name)
			}
		}
		m.lookup.Forget(gone)
	}
	return run.res, nil
}

// Discard waits for a running compaction and drops its result without
// applying it (a writer closing or restarting: only committed files count).
// It returns the files the compaction wrote, for deletion.
func (m *CompactManager) Discard() []*FileMeta {
	m.mu.Lock()
	run := m.running
	m.running = nil
	m.mu.Unlock()
	if run == nil {
		return nil
	}
	<-run.done
	if run.err != nil || run.res == nil {
		return nil
	}
	if run.res.DeletionIndex != nil {
		run.res.DeletionIndex.Discard()
	}
	before := map[string]bool{}
	for _, f := range run.res.Before {
		before[f.Name] = true
	}
	var out []*FileMeta
	for _, f := range append(run.res.After, run.res.Changelog...) {
		if !before[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// CompactNotCompleted reports whether the bucket still owes work before a
// commit may be considered settled: a running compaction, or, for lookup
// tables, level-0 files not yet compacted (no changelog for them yet).
func (m *CompactManager) CompactNotCompleted() bool {
	return m.Running() || (m.spec.NeedLookup && len(m.levels.Level0()) > 0)
}
