package mergetree

import (
	"errors"
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
)

// CompactResult is what a compaction changed: files removed (Before), files
// added (After; an upgraded file appears in both, at its old and new level)
// and changelog files produced. DeletionIndex is the bucket's deletion
// vector index file written at the end of the compaction when the vectors
// changed (CompactDeletionFile.generateFiles), nil otherwise.
type CompactResult struct {
	Before, After, Changelog []*FileMeta
	DeletionIndex            IndexFile
}

func (r *CompactResult) merge(o *CompactResult) {
	r.Before = append(r.Before, o.Before...)
	r.After = append(r.After, o.After...)
	r.Changelog = append(r.Changelog, o.Changelog...)
}

// DeletionVectors is the deletion-vector maintainer of one bucket as the
// merge tree uses it (Paimon's BucketedDvMaintainer); the table layer keeps
// the vectors and writes their index files. Only the compaction goroutine
// calls it while a compaction runs.
type DeletionVectors interface {
	// IsDeleted reports whether row pos of data file is marked deleted.
	IsDeleted(file string, pos int64) bool
	// Has reports whether data file has a deletion vector.
	Has(file string) bool
	// Delete marks row pos of data file deleted (notifyNewDeletion).
	Delete(file string, pos int64) error
	// Remove drops the vector of a data file compaction rewrote
	// (removeDeletionVectorOf).
	Remove(file string)
	// WriteIndex writes all vectors as a new index file if they changed
	// since the last call (writeDeletionVectorsIndex); nil when unchanged.
	WriteIndex() (IndexFile, error)
}

// IndexFile is a deletion-vector index file written by a compaction and
// not yet committed. Discard deletes it: a later compaction's file
// superseded it before the commit, or the writer closed without
// committing it.
type IndexFile interface {
	Discard()
}

// Rewriter rewrites compaction sections into new files, producing changelog
// as the table's producer requires (Paimon's MergeTreeCompactRewriter and
// its Lookup/FullChangelog subclasses).
type Rewriter struct {
	spec     *Spec
	store    RunStore
	lookup   LookupLevels    // nil unless spec.NeedLookup
	dvs      DeletionVectors // nil unless spec.DeletionVectors
	maxLevel int
	// spill, when set, takes the sorted runs of a section past
	// sort-spill-threshold (spillMerge).
	spill Spiller
}

// NewRewriter creates the rewriter of a bucket. lookup must be non-nil when
// spec.NeedLookup, dvs when spec.DeletionVectors.
func NewRewriter(spec *Spec, store RunStore, lookup LookupLevels, dvs DeletionVectors, maxLevel int) (*Rewriter, error) {
	if spec.NeedLookup && lookup == nil {
		return nil, fmt.Errorf("mergetree: %s needs a lookup index", spec.describeLookup())
	}
	if spec.DeletionVectors && dvs == nil {
		return nil, fmt.Errorf("mergetree: deletion-vectors.enabled needs a deletion vector maintainer")
	}
	if !spec.DeletionVectors {
		dvs = nil
	}
	return &Rewriter{spec: spec, store: store, lookup: lookup, dvs: dvs, maxLevel: maxLevel}, nil
}

func (s *Spec) describeLookup() string {
	switch {
	case s.Engine == coreoptions.EngineFirstRow:
		return "merge-engine first-row"
	case s.DeletionVectors && s.Producer != coreoptions.ProducerLookup:
		return "deletion-vectors.enabled"
	}
	return "changelog-producer " + s.Producer
}

// open reads a data file for compaction: rows its deletion vector marks
// are skipped (RunStore.Open returns every row, in file order, so a row's
// position is its ordinal).
func (rw *Rewriter) open(f *FileMeta) (Iterator, error) {
	it, err := rw.store.Open(f)
	if err != nil {
		return nil, err
	}
	if rw.dvs != nil && rw.dvs.Has(f.Name) {
		it = &dvFilterIter{it: it, file: f.Name, dvs: rw.dvs}
	}
	if e := rw.spec.Expire; e != nil {
		// After the deletion vector, which counts every row's position.
		it = &expireIter{it: it, e: e, now: e.nowSeconds()}
	}
	return it, nil
}

// dvFilterIter drops the rows of one file its deletion vector marks.
type dvFilterIter struct {
	it   Iterator
	file string
	dvs  DeletionVectors
	pos  int64
}

func (d *dvFilterIter) Next() *KV {
	for {
		r := d.it.Next()
		if r == nil {
			return nil
		}
		p := d.pos
		d.pos++
		if !d.dvs.IsDeleted(d.file, p) {
			return r
		}
	}
}

func (d *dvFilterIter) Error() error { return d.it.Error() }
func (d *dvFilterIter) Close() error { return d.it.Close() }

// rewritten drops the deletion vectors of files a rewrite consumed
// (LookupMergeTreeCompactRewriter.notifyRewriteCompactBefore).
func (rw *Rewriter) rewritten(before []*FileMeta) {
	if rw.dvs == nil {
		return
	}
	for _, f := range before {
		rw.dvs.Remove(f.Name)
	}
}

// changelogRewrite decides whether a rewrite goes through a changelog
// wrapper: full-compaction when the output is the max level; lookup when
// the output is above level 0 and a level-0 file takes part.
func (rw *Rewriter) changelogRewrite(outputLevel int, sections [][]SortedRun) bool {
	switch {
	case rw.spec.NeedLookup:
		if outputLevel == 0 {
			return false
		}
		for _, sec := range sections {
			for _, run := range sec {
				for _, f := range run.Files {
					if f.Level == 0 {
						return true
					}
				}
			}
		}
		return false
	case rw.spec.Producer == coreoptions.ProducerFullCompaction:
		return outputLevel == rw.maxLevel
	}
	return false
}

func (rw *Rewriter) produceChangelog() bool {
	return rw.spec.Producer == coreoptions.ProducerLookup || rw.spec.Producer == coreoptions.ProducerFullCompaction
}

// Rewrite merges the sections into files at outputLevel.
func (rw *Rewriter) Rewrite(outputLevel int, dropDelete bool, sections [][]SortedRun) (*CompactResult, error) {
	if rw.changelogRewrite(outputLevel, sections) {
		return rw.rewriteWithChangelog(outputLevel, sections, dropDelete, true)
	}
	return rw.rewriteCompaction(outputLevel, dropDelete, sections)
}

// upgradeStrategy decides how a non-overlapping file moves to outputLevel.
type upgradeStrategy struct{ changelog, rewrite bool }

func (rw *Rewriter) upgradeStrategy(outputLevel int, f *FileMeta) upgradeStrategy {
	switch {
	case rw.spec.NeedLookup:
		// LookupMergeTreeCompactRewriter.upgradeStrategy (one file format).
		if f.Level != 0 {
			return upgradeStrategy{}
		}
		if rw.dvs != nil && f.mayContainDeletes() {
			// Deletion vector mode drops retractions, so a file that may
			// hold some is rewritten.
			return upgradeStrategy{changelog: true, rewrite: true}
		}
		if outputLevel == rw.maxLevel {
			return upgradeStrategy{changelog: true}
		}
		// Deduplicate keeps the newest record, so a level-0 file can move up
		// unchanged; other engines must merge with the looked-up value.
		if rw.spec.Engine == coreoptions.EngineDeduplicate && rw.spec.Order.user == nil {
			return upgradeStrategy{changelog: true}
		}
		return upgradeStrategy{changelog: true, rewrite: true}
	case rw.spec.Producer == coreoptions.ProducerFullCompaction:
		if outputLevel == rw.maxLevel {
			return upgradeStrategy{changelog: true}
		}
	}
	return upgradeStrategy{}
}

// Upgrade moves a file that overlaps nothing in the compaction to
// outputLevel: a metadata change, plus changelog (and a rewrite) when the
// producer needs it.
func (rw *Rewriter) Upgrade(outputLevel int, f *FileMeta) (*CompactResult, error) {
	st := rw.upgradeStrategy(outputLevel, f)
	if st.changelog {
		// ChangelogMergeTreeRewriter.upgrade: forceDropDelete in deletion
		// vector mode.
		return rw.rewriteWithChangelog(outputLevel, [][]SortedRun{{{Files: []*FileMeta{f}}}}, rw.dvs != nil, st.rewrite)
	}
	return &CompactResult{Before: []*FileMeta{f}, After: []*FileMeta{f.Upgrade(outputLevel)}}, nil
}

// sectionsIter reads sections one after the other; within a section the
// runs are merged. Sections are disjoint and in key order, so the
// concatenation is sorted.
func (rw *Rewriter) sectionsIter(sections [][]SortedRun) Iterator {
	open := rw.open
	var its []func() Iterator
	for _, sec := range sections {
		sec := sec
		its = append(its, func() Iterator {
			size := func(i int) int64 {
				var n int64
				for _, f := range sec[i].Files {
					n += f.Size
				}
				return n
			}
			it, err := spillMerge(rw.spec, rw.spill, len(sec), size, func(i int) Iterator { return newConcatIter(sec[i].Files, open) })
			if err != nil {
				return &errIter{err: err}
			}
			return it
		})
	}
	return &lazyConcat{makers: its}
}

// rewriteCompaction is the plain rewrite: merge, drop retractions when the
// output is the highest level, write.
func (rw *Rewriter) rewriteCompaction(outputLevel int, dropDelete bool, sections [][]SortedRun) (*CompactResult, error) {
	it := NewMergeIter(rw.sectionsIter(sections), rw.spec.Key, rw.spec.NewMergeFunction(), dropDelete)
	w, err := rw.store.NewWriter(outputLevel, CompactFile)
	if err != nil {
		it.Close()
		return nil, fmt.Errorf("mergetree: compaction writer: %w", err)
	}
	for r := it.Next(); r != nil; r = it.Next() {
		if err = w.Write(r); err != nil {
			break
		}
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
	}
	after, err := w.Finish()
	if err != nil {
		return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
	}
	before := sectionFiles(sections)
	rw.rewritten(before)
	return &CompactResult{Before: before, After: after}, nil
}

func (rw *Rewriter) wrapper(outputLevel int) ChangelogWrapper {
	if rw.spec.NeedLookup {
		if rw.spec.Engine == coreoptions.EngineFirstRow {
			return NewFirstRowChangelogWrapper(rw.spec, func(key []any) (bool, error) {
				r, _, err := rw.lookup.Lookup(key, outputLevel+1)
				return r != nil, err
			})
		}
		return NewLookupChangelogWrapper(rw.spec, func(key []any) (*KV, error) {
			r, at, err := rw.lookup.Lookup(key, outputLevel+1)
			if err != nil || r == nil || rw.dvs == nil {
				return r, err
			}
			// The older version moves out of sight: mark it in its file's
			// deletion vector (LookupChangelogMergeFunctionWrapper). A hit
			// already marked is a key deleted since that file was
			// written (its retraction was dropped): the key is absent,
			// deeper levels only hold older versions. Paimon 1.4 uses such
			// a hit as the changelog's before image (apache/paimon#8204).
			if rw.dvs.IsDeleted(at.File, at.Pos) {
				return nil, nil
			}
			return r, rw.dvs.Delete(at.File, at.Pos)
		}, rw.spec.Producer == coreoptions.ProducerLookup)
	}
	return NewFullChangelogWrapper(rw.spec, rw.maxLevel)
}

// rewriteWithChangelog is ChangelogMergeTreeRewriter.rewriteOrProduceChangelog:
// every key goes through the changelog wrapper; the results are written to
// new files when rewrite is set, else the input files are upgraded as they
// are; changelog goes to changelog files at the output level.
func (rw *Rewriter) rewriteWithChangelog(outputLevel int, sections [][]SortedRun, dropDelete, rewrite bool) (res *CompactResult, err error) {
	wrap := rw.wrapper(outputLevel)
	groups := newGroupIter(rw.sectionsIter(sections), rw.spec.Key)
	var data, changelog FileWriter
	defer func() {
		if cerr := groups.src.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, cerr)
		}
		if err != nil {
			res = nil
			if data != nil {
				data.Abort()
			}
			if changelog != nil {
				changelog.Abort()
			}
		}
	}()
	if rewrite {
		if data, err = rw.store.NewWriter(outputLevel, CompactFile); err != nil {
			return nil, fmt.Errorf("mergetree: compaction writer: %w", err)
		}
	}
	if rw.produceChangelog() {
		if changelog, err = rw.store.NewWriter(outputLevel, ChangelogFile); err != nil {
			return nil, fmt.Errorf("mergetree: changelog writer: %w", err)
		}
	}
	for g := groups.nextGroup(); g != nil; g = groups.nextGroup() {
		result, cl, err := applyWrapper(wrap, g)
		if err != nil {
			return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
		}
		if data != nil && result != nil && (!dropDelete || result.Kind.IsAdd()) {
			if err := data.Write(result); err != nil {
				return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
			}
		}
		if changelog != nil {
			for _, c := range cl {
				if err := changelog.Write(c); err != nil {
					return nil, fmt.Errorf("mergetree: changelog at level %d: %w", outputLevel, err)
				}
			}
		}
	}
	if err := groups.src.Error(); err != nil {
		return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
	}
	before := sectionFiles(sections)
	res = &CompactResult{Before: before}
	if data != nil {
		after, err := data.Finish()
		data = nil
		if err != nil {
			return nil, fmt.Errorf("mergetree: compaction to level %d: %w", outputLevel, err)
		}
		res.After = after
		rw.rewritten(before)
	} else {
		for _, f := range before {
			res.After = append(res.After, f.Upgrade(outputLevel))
		}
	}
	if changelog != nil {
		cl, err := changelog.Finish()
		changelog = nil
		if err != nil {
			return nil, fmt.Errorf("mergetree: changelog at level %d: %w", outputLevel, err)
		}
		res.Changelog = cl
	}
	return res, nil
}

func sectionFiles(sections [][]SortedRun) []*FileMeta {
	var out []*FileMeta
	for _, sec := range sections {
		for _, r := range sec {
			out = append(out, r.Files...)
		}
	}
	return out
}

// lazyConcat concatenates iterators created on demand.
type lazyConcat struct {
	makers []func() Iterator
	cur    Iterator
	err    error
}

func (l *lazyConcat) Next() *KV {
	for l.err == nil {
		if l.cur == nil {
			if len(l.makers) == 0 {
				return nil
			}
			l.cur = l.makers[0]()
			l.makers = l.makers[1:]
		}
		if r := l.cur.Next(); r != nil {
			return r
		}
		l.err = l.cur.Close()
		l.cur = nil
	}
	return nil
}

func (l *lazyConcat) Error() error { return l.err }

func (l *lazyConcat) Close() error {
	if l.cur != nil {
		l.err = errors.Join(l.err, l.cur.Close())
		l.cur = nil
	}
	l.makers = nil
	return l.err
}

// compactTask runs one picked compaction (Paimon's MergeTreeCompactTask):
// files are partitioned into sections of overlapping key ranges; sections
// with several runs are rewritten; a section that is a single run is
// upgraded file by file when a file is at least CompactionFileSize, while
// smaller files are gathered with their neighbours and rewritten. Adjacent
// candidates are never skipped, so the output stays ordered. A file that may
// hold retractions is rewritten rather than upgraded into the max level, so
// the max level never keeps deletes.
type compactTask struct {
	rw          *Rewriter
	key         *Comparator
	minFileSize int64
	outputLevel int
	maxLevel    int
	dropDelete  bool
}

func (t *compactTask) run(files []*FileMeta) (*CompactResult, error) {
	res := &CompactResult{}
	var candidate [][]SortedRun
	for _, sec := range PartitionIntervals(files, t.key) {
		if len(sec) > 1 {
			candidate = append(candidate, sec)
			continue
		}
		for _, f := range sec[0].Files {
			if f.Size < t.minFileSize {
				candidate = append(candidate, []SortedRun{{Files: []*FileMeta{f}}})
				continue
			}
			if err := t.rewrite(&candidate, res); err != nil {
				return nil, err
			}
			if err := t.upgrade(f, res); err != nil {
				return nil, err
			}
		}
	}
	if err := t.rewrite(&candidate, res); err != nil {
		return nil, err
	}
	return res, nil
}

// rewriteFiles rewrites each file alone at the output level
// (FileRewriteCompactTask).
func (t *compactTask) rewriteFiles(files []*FileMeta) (*CompactResult, error) {
	res := &CompactResult{}
	for _, f := range files {
		r, err := t.rw.Rewrite(t.outputLevel, t.dropDelete, [][]SortedRun{{{Files: []*FileMeta{f}}}})
		if err != nil {
			return nil, err
		}
		res.merge(r)
	}
	return res, nil
}

func (t *compactTask) upgrade(f *FileMeta, res *CompactResult) error {
	if t.outputLevel == t.maxLevel && f.mayContainDeletes() || t.rw.spec.Expire.FileExpired(f) {
		return t.rewriteImpl(&[][]SortedRun{{{Files: []*FileMeta{f}}}}, res)
	}
	if f.Level != t.outputLevel {
		r, err := t.rw.Upgrade(t.outputLevel, f)
		if err != nil {
			return err
		}
		res.merge(r)
	}
	return nil
}

func (t *compactTask) rewrite(candidate *[][]SortedRun, res *CompactResult) error {
	c := *candidate
	if len(c) == 0 {
		return nil
	}
	if len(c) == 1 && len(c[0]) <= 1 {
		*candidate = nil
		if len(c[0]) == 1 {
			for _, f := range c[0][0].Files {
				if err := t.upgrade(f, res); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return t.rewriteImpl(candidate, res)
}

func (t *compactTask) rewriteImpl(candidate *[][]SortedRun, res *CompactResult) error {
	r, err := t.rw.Rewrite(t.outputLevel, t.dropDelete, *candidate)
	if err != nil {
		return err
	}
	res.merge(r)
	*candidate = nil
	return nil
}

// applyWrapper runs a changelog wrapper, turning a panic (a value of the
// wrong Go type for its column) into an error.
func applyWrapper(w ChangelogWrapper, g []*KV) (r *KV, cl []*KV, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, cl, err = nil, nil, fmt.Errorf("mergetree: merging key %v: %v", g[0].Key, p)
		}
	}()
	return w.Apply(g)
}
