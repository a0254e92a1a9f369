package mergetree

import (
	"errors"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// CommitIncrement is what a bucket writer hands to the commit since the last
// one (Paimon's CommitIncrement): the APPEND part (new level-0 files and the
// input producer's changelog) and the COMPACT part (files removed and added
// by compaction, upgrades included, and the compaction changelog, with the
// deletion vector index file of the latest compaction that changed the
// vectors, nil if none did).
type CommitIncrement struct {
	NewFiles         []*FileMeta
	NewChangelog     []*FileMeta
	CompactBefore    []*FileMeta
	CompactAfter     []*FileMeta
	CompactChangelog []*FileMeta
	DeletionIndex    IndexFile
}

// Empty reports an increment with nothing to commit.
func (c *CommitIncrement) Empty() bool {
	return len(c.NewFiles)+len(c.NewChangelog)+len(c.CompactBefore)+len(c.CompactAfter)+len(c.CompactChangelog) == 0 &&
		c.DeletionIndex == nil
}

// WriterOptions are the parts of a bucket writer the table layer provides.
type WriterOptions struct {
	// Spiller lets the write buffer spill instead of flushing when full
	// (write-buffer-spillable; nil flushes a level-0 file when full), and
	// compaction spill the sorted runs past sort-spill-threshold.
	Spiller Spiller
	// NewLookup creates the lookup index for tables that need lookup, over
	// the writer's levels (Spec.NewDiskLookup for a local-disk index); nil
	// creates a MemLookup. An index that is an io.Closer is closed with the
	// writer.
	NewLookup func(levels *Levels) (LookupLevels, error)
	// DeleteFile removes a file that compaction made obsolete before it was
	// ever committed; nil leaves it (the table's orphan cleanup will).
	DeleteFile func(*FileMeta)
	// DeletionVectors is the bucket's deletion-vector maintainer, restored
	// from the committed index; required when Spec.DeletionVectors.
	DeletionVectors DeletionVectors
	// Pool lends the write buffer its pages: the task's pool, shared by
	// its writers (TableWrite's, of write-buffer-size). nil gives the
	// buffer a pool of its own.
	Pool *MemoryPool
}

// Writer is the merge-tree writer of one (partition, bucket) (Paimon's
// MergeTreeWriter): records go to the write buffer with increasing sequence
// numbers, flushes write level-0 files, compaction runs in the background
// and is collected at flush and commit.
type Writer struct {
	spec    *Spec
	store   RunStore
	levels  *Levels
	mgr     *CompactManager
	buf     *WriteBuffer
	opts    WriterOptions
	nextSeq int64
	commits int
	lookup  LookupLevels

	newFiles, newChangelog         []*FileMeta
	compactBefore                  map[string]*FileMeta
	compactAfter, compactChangelog []*FileMeta
	deletionIndex                  IndexFile
	err                            error
}

// NewWriter restores a bucket writer from its committed files; the next
// sequence number is one past the highest restored.
func NewWriter(spec *Spec, store RunStore, restored []*FileMeta, opts WriterOptions) (*Writer, error) {
	levels, err := NewLevels(spec.Key, restored, spec.NumLevels)
	if err != nil {
		return nil, err
	}
	var lookup LookupLevels
	if spec.NeedLookup {
		if opts.NewLookup != nil {
			if lookup, err = opts.NewLookup(levels); err != nil {
				return nil, fmt.Errorf("mergetree: lookup index: %w", err)
			}
		} else {
			m := NewMemLookup(levels, store, spec.Key)
			m.Expire = spec.Expire
			lookup = m
		}
	}
	mgr, err := NewCompactManager(spec, levels, store, lookup, opts.DeletionVectors)
	if err != nil {
		return nil, err
	}
	mgr.rw.spill = opts.Spiller
	w := &Writer{spec: spec, store: store, levels: levels, mgr: mgr, opts: opts, lookup: lookup,
		buf: NewWriteBuffer(spec, spec.WriteBufferSize, opts.Spiller, opts.Pool), compactBefore: map[string]*FileMeta{}}
	for _, f := range restored {
		w.nextSeq = max(w.nextSeq, f.MaxSeq+1)
	}
	return w, nil
}

// Levels returns the bucket's levels (committed and uncommitted files).
func (w *Writer) Levels() *Levels { return w.levels }

// CompactManager returns the bucket's compaction manager.
func (w *Writer) CompactManager() *CompactManager { return w.mgr }

// Write buffers one row change; value holds all table columns, each in the
// Go type sql.Row documents for its column type. The writer keeps value:
// the caller must not modify it afterwards.
func (w *Writer) Write(kind sql.RowKind, value []any) error {
	if w.err != nil {
		return w.err
	}
	if !kind.Valid() {
		return fmt.Errorf("mergetree: invalid row kind %d", kind)
	}
	if len(value) != len(w.spec.FieldTypes) {
		return fmt.Errorf("mergetree: row has %d fields, table has %d", len(value), len(w.spec.FieldTypes))
	}
	r := &KV{Key: w.spec.KeyOf(value), Seq: w.nextSeq, Kind: kind, Value: value, Level: -1}
	w.nextSeq++
	full, err := w.buf.Put(r)
	if err != nil {
		return w.fail(err)
	}
	if full {
		return w.flush(false, false)
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = fmt.Errorf("%w: %w", ErrWriterFailed, err)
	return err
}

// Flush writes the buffer as level-0 files now (MergeTreeWriter's
// flushWriteBuffer), then collects a finished compaction and triggers the
// next one.
func (w *Writer) Flush() error { return w.flush(false, false) }

func (w *Writer) flush(waitForLatest, forceFull bool) error {
	if w.err != nil {
		return w.err
	}
	if !w.buf.Empty() {
		if w.mgr.ShouldWaitForLatestCompaction() {
			waitForLatest = true
		}
		data, err := w.store.NewWriter(0, FlushFile)
		if err != nil {
			return w.fail(fmt.Errorf("mergetree: flush: %w", err))
		}
		var changelog FileWriter
		var raw func(*KV) error
		if w.spec.Producer == coreoptions.ProducerInput {
			if changelog, err = w.store.NewWriter(0, ChangelogFile); err != nil {
				data.Abort()
				return w.fail(fmt.Errorf("mergetree: flush: %w", err))
			}
			raw = changelog.Write
		}
		if err := w.buf.FlushTo(data, raw); err != nil {
			data.Abort()
			if changelog != nil {
				changelog.Abort()
			}
			return w.fail(fmt.Errorf("mergetree: flush: %w", err))
		}
		if changelog != nil {
			files, err := changelog.Finish()
			if err != nil {
				data.Abort()
				return w.fail(fmt.Errorf("mergetree: flush changelog: %w", err))
			}
			w.newChangelog = append(w.newChangelog, files...)
		}
		files, err := data.Finish()
		if err != nil {
			return w.fail(fmt.Errorf("mergetree: flush: %w", err))
		}
		for _, f := range files {
			w.newFiles = append(w.newFiles, f)
			if err := w.mgr.AddNewFile(f); err != nil {
				return w.fail(err)
			}
		}
	}
	if err := w.syncCompaction(waitForLatest); err != nil {
		return err
	}
	if w.spec.WriteOnly && !forceFull {
		return nil
	}
	if _, err := w.mgr.Trigger(forceFull); err != nil {
		return w.fail(err)
	}
	return nil
}

// syncCompaction collects a finished (or, blocking, the running) compaction.
func (w *Writer) syncCompaction(blocking bool) error {
	res, err := w.mgr.Result(blocking)
	if err != nil {
		return w.fail(err)
	}
	if res != nil {
		w.updateCompactResult(res)
	}
	return nil
}

// updateCompactResult folds a compaction into the pending increment. A file
// that an earlier, uncommitted compaction produced and this one consumed is
// an intermediate file: it leaves the increment and is deleted, unless it is
// an upgraded file (same name before and after) that snapshots still need.
func (w *Writer) updateCompactResult(res *CompactResult) {
	afterNames := map[string]bool{}
	for _, f := range res.After {
		afterNames[f.Name] = true
	}
	for _, f := range res.Before {
		if i := indexFile(w.compactAfter, f); i >= 0 {
			w.compactAfter = append(w.compactAfter[:i], w.compactAfter[i+1:]...)
			if _, ok := w.compactBefore[f.Name]; !ok && !afterNames[f.Name] && w.opts.DeleteFile != nil {
				w.opts.DeleteFile(f)
			}
			continue
		}
		w.compactBefore[f.Name] = f
	}
	w.compactAfter = append(w.compactAfter, res.After...)
	w.compactChangelog = append(w.compactChangelog, res.Changelog...)
	if res.DeletionIndex != nil {
		// GeneratedDeletionFile.mergeOldFile: the newer file holds every
		// vector; the older, uncommitted one goes.
		if w.deletionIndex != nil {
			w.deletionIndex.Discard()
		}
		w.deletionIndex = res.DeletionIndex
	}
}

func indexFile(fs []*FileMeta, f *FileMeta) int {
	for i, x := range fs {
		if x.Name == f.Name && x.Level == f.Level {
			return i
		}
	}
	return -1
}

// PrepareCommit flushes the buffer and returns the increment since the last
// commit. waitCompaction waits for the running compaction (the table layer
// passes true for lookup tables with lookup-wait, and at end of input;
// commit.force-compact waits for it on every commit, without the loop below);
// tables needing lookup keep compacting until level 0 is empty so every
// commit's changelog is complete. Every full-compaction.delta-commits
// commits a full compaction is forced and waited for.
func (w *Writer) PrepareCommit(waitCompaction bool) (*CommitIncrement, error) {
	w.commits++
	forceFull := w.spec.FullCompactionDeltaCommits > 0 && w.commits%w.spec.FullCompactionDeltaCommits == 0
	if forceFull {
		// A forced full compaction may not overlap a running one.
		if err := w.syncCompaction(true); err != nil {
			return nil, err
		}
	}
	if err := w.flush(waitCompaction, forceFull); err != nil {
		return nil, err
	}
	if forceFull || w.mgr.ShouldWaitForPreparingCheckpoint() {
		waitCompaction = true
	}
	// commit.force-compact: MergeTreeWriter.prepareCommit waits for the
	// compaction flushWriteBuffer triggered (a normal pick), whether or
	// not this writer had new rows.
	if err := w.syncCompaction(waitCompaction || w.spec.CommitForceCompact); err != nil {
		return nil, err
	}
	if waitCompaction && w.spec.NeedLookup && !w.spec.WriteOnly {
		// Lookup-wait: keep compacting until no level-0 file is left, so
		// the changelog of this commit is complete.
		for w.mgr.CompactNotCompleted() {
			started, err := w.mgr.Trigger(false)
			if err != nil {
				return nil, w.fail(err)
			}
			if !started && !w.mgr.Running() {
				break
			}
			if err := w.syncCompaction(true); err != nil {
				return nil, err
			}
		}
	}
	return w.drain(), nil
}

func (w *Writer) drain() *CommitIncrement {
	inc := &CommitIncrement{NewFiles: w.newFiles, NewChangelog: w.newChangelog,
		CompactAfter: w.compactAfter, CompactChangelog: w.compactChangelog, DeletionIndex: w.deletionIndex}
	w.deletionIndex = nil
	for _, f := range w.compactBefore {
		inc.CompactBefore = append(inc.CompactBefore, f)
	}
	sortFiles(inc.CompactBefore)
	w.newFiles, w.newChangelog, w.compactAfter, w.compactChangelog = nil, nil, nil, nil
	w.compactBefore = map[string]*FileMeta{}
	return inc
}

func sortFiles(fs []*FileMeta) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].Name < fs[j-1].Name; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// Compact runs a compaction now and waits for it (a dedicated compaction
// job or CALL sys.compact): full compacts everything to the max level.
// It works also for write-only tables.
func (w *Writer) Compact(full bool) error {
	if err := w.flush(true, false); err != nil {
		return err
	}
	if err := w.syncCompaction(true); err != nil {
		return err
	}
	if _, err := w.mgr.Trigger(full); err != nil {
		return w.fail(err)
	}
	return w.syncCompaction(true)
}

// Close waits for a running compaction so no goroutine outlives the writer;
// its result is discarded and the files it wrote are deleted (through
// WriterOptions.DeleteFile), since only committed files survive a restart.
func (w *Writer) Close() error {
	w.buf.Close()
	if w.deletionIndex != nil {
		w.deletionIndex.Discard()
		w.deletionIndex = nil
	}
	for _, f := range w.mgr.Discard() {
		if w.opts.DeleteFile != nil {
			w.opts.DeleteFile(f)
		}
	}
	if c, ok := w.lookup.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// NewReader is merge-on-read over the bucket's current files: every
// level-0 file and every level is a sorted run, merged by key with the
// table's merge function; retracted keys are dropped, and so are rows the
// deletion vectors mark.
func (w *Writer) NewReader() Iterator {
	return newLevelsReader(w.spec, w.mgr.rw.open, w.levels.LevelSortedRuns())
}

// NewLevelsReader is merge-on-read over the given sorted runs.
func NewLevelsReader(spec *Spec, store RunStore, runs []LevelSortedRun) Iterator {
	return newLevelsReader(spec, store.Open, runs)
}

func newLevelsReader(spec *Spec, open func(*FileMeta) (Iterator, error), runs []LevelSortedRun) Iterator {
	its := make([]Iterator, 0, len(runs))
	for _, r := range runs {
		its = append(its, newConcatIter(r.Run.Files, open))
	}
	if len(its) == 0 {
		return NewSliceIter(nil)
	}
	return NewMergeIter(NewMergingIter(its, spec.Key, spec.Order), spec.Key, spec.NewMergeFunction(), true)
}

// ErrWriterFailed is returned by calls after a writer failed; the writer
// must be discarded and restored from the last commit.
var ErrWriterFailed = errors.New("mergetree: writer failed earlier")
