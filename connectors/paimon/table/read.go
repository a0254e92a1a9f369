package table

import (
	"fmt"
	"sort"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/sql"
)

// RowIterator yields rows of a split. The contract is the one every
// iterator of the store keeps (mergetree.Iterator, format.KVIterator and
// format.RowIterator, pebble's style): Next returns no row (here false)
// when exhausted or failed, Error tells which, Close is mandatory. Rows are
// freshly allocated and may be retained.
type RowIterator interface {
	Next() (sql.Row, bool)
	Error() error
	Close() error
}

// ReadOptions configure a split reader.
type ReadOptions struct {
	// Projection lists the table columns to produce, as indexes into
	// Schema.Fields, in output order; nil produces every column.
	Projection []int
	// KeepDelete is Paimon's forceKeepDelete (the $audit_log read): a
	// SplitFull of a primary-key table is always merged (never read raw),
	// retracted keys are kept and every row keeps its merged RowKind.
	KeepDelete bool
	// Aggregate, when set, makes the reader yield partial aggregates of
	// these calls (over the projected row) instead of rows: one row per
	// data file read raw whose columns the column path takes
	// (format.File.Aggregate), and format.Partial of every other row
	// (merged sections, deletion vectors, ORC/Avro, evolved columns), with
	// its RowKind. Merging the partial rows with the calls' merge functions
	// (COUNT by SUM, MIN/MAX/SUM by themselves) gives the calls' results
	// over the rows the reader would have yielded.
	Aggregate []format.AggCall
	// Filter are the conjuncts a row must pass to be yielded, or with
	// Aggregate to be aggregated (format.Pred). Files read raw are skipped
	// by their manifest statistics and row groups by their Parquet
	// statistics; the column path tests the rest per batch, the other rows
	// are tested one by one after the merge (format.Keep).
	Filter []format.Pred
}

// NewSplitReader reads a split as rows:
//
//   - SplitFull of a primary-key table: merge-on-read of all sorted runs
//     with the table's merge engine, retracted keys dropped, rows +I; a
//     split whose files are one sorted run without retractions (a single
//     file, or one level ≥ 1) is read raw with projection push-down;
//   - SplitDelta of a primary-key table: the added files merged by key with
//     RowKinds kept (-D/-U included);
//   - SplitChangelog: the changelog files concatenated, RowKinds kept;
//   - append tables: the files' rows in sequence order, +I; with data
//     evolution, files of one row-id range read as one (evolution.go).
func (t *Table) NewSplitReader(s Split, o ReadOptions) (RowIterator, error) {
	it, err := t.newSplitReader(s, o)
	if err != nil || (o.Aggregate == nil && o.Filter == nil) {
		return it, err
	}
	if _, ok := it.(partials); ok {
		return it, nil
	}
	return &partialRows{it: it, calls: o.Aggregate, filter: o.Filter}, nil
}

func (t *Table) newSplitReader(s Split, o ReadOptions) (RowIterator, error) {
	proj := o.Projection
	if !t.PrimaryKey() {
		if t.Options.DataEvolution {
			return t.newEvolvedRows(s, proj)
		}
		files := append([]manifest.DataFileMeta(nil), s.Files...)
		sort.SliceStable(files, func(i, j int) bool { return files[i].MinSequenceNumber < files[j].MinSequenceNumber })
		dir, err := t.bucketDir(s.Partition, s.Bucket)
		if err != nil {
			return nil, err
		}
		return &rawRows{t: t, dir: dir, files: files, proj: proj, dfs: s.DeletionFiles, agg: o.Aggregate, filter: o.Filter}, nil
	}
	if s.Kind == SplitFull && !o.KeepDelete {
		if rawConvertible(s.Files) {
			return t.newRawRows(s, proj, o.Aggregate, o.Filter)
		}
		secs, err := t.sections(s.Files)
		if err != nil {
			return nil, err
		}
		if len(secs) > 1 {
			return &sectionRows{t: t, s: s, proj: proj, secs: secs, agg: o.Aggregate, filter: o.Filter}, nil
		}
	}
	return t.newKVRows(s, o.KeepDelete, proj)
}

// newRawRows reads the files of a rawConvertible split one after another
// in key order.
func (t *Table) newRawRows(s Split, proj []int, agg []format.AggCall, filter []format.Pred) (RowIterator, error) {
	dir, err := t.bucketDir(s.Partition, s.Bucket)
	if err != nil {
		return nil, err
	}
	files := append([]manifest.DataFileMeta(nil), s.Files...)
	if len(files) > 1 {
		if err := t.sortByMinKey(files); err != nil {
			return nil, err
		}
	}
	return &rawRows{t: t, dir: dir, files: files, proj: proj, dfs: s.DeletionFiles, agg: agg, filter: filter}, nil
}

// newKVRows merges the split's files by key.
func (t *Table) newKVRows(s Split, keepDelete bool, proj []int) (RowIterator, error) {
	it, err := t.readKV(s, keepDelete)
	if err != nil {
		return nil, err
	}
	return &kvRows{it: it, proj: proj, full: s.Kind == SplitFull && !keepDelete}, nil
}

// sections splits files into sections of overlapping key ranges, in key
// order (Paimon's IntervalPartition, as MergeTreeSplitGenerator.splitForBatch
// uses it): no key of one section is in another's files.
func (t *Table) sections(files []manifest.DataFileMeta) ([][]manifest.DataFileMeta, error) {
	metas := make([]*mergetree.FileMeta, len(files))
	byName := make(map[string]manifest.DataFileMeta, len(files))
	for i, f := range files {
		fm, err := t.fileMeta(f)
		if err != nil {
			return nil, err
		}
		metas[i] = fm
		byName[f.FileName] = f
	}
	var out [][]manifest.DataFileMeta
	for _, sec := range mergetree.PartitionIntervals(metas, t.Spec.Key) {
		var fs []manifest.DataFileMeta
		for _, run := range sec {
			for _, f := range run.Files {
				fs = append(fs, byName[f.Name])
			}
		}
		out = append(out, fs)
	}
	return out, nil
}

// sectionRows reads a full split of a primary-key table section by section
// in key order, as Paimon's MergeTreeSplitGenerator.splitForBatch splits a
// bucket: a section whose files need no merge (rawConvertible: one file
// without retractions, as level-0 files of one flush or of a spilled
// write are) is read raw with projection push-down, the others merged by
// key. The rows and their order are those of merging the whole split: the
// sections' key ranges do not overlap, so a key's records are all in one
// section.
type sectionRows struct {
	t    *Table
	s    Split
	proj []int
	secs [][]manifest.DataFileMeta
	agg  []format.AggCall // ReadOptions.Aggregate: partial rows
	// filter is ReadOptions.Filter.
	filter []format.Pred
	cur    RowIterator
	err    error
}

func (r *sectionRows) partials() {}

func (r *sectionRows) Next() (sql.Row, bool) {
	for r.err == nil {
		if r.cur == nil {
			if len(r.secs) == 0 {
				return sql.Row{}, false
			}
			sub := r.s
			sub.Files = r.secs[0]
			r.secs = r.secs[1:]
			var err error
			if rawConvertible(sub.Files) {
				r.cur, err = r.t.newRawRows(sub, r.proj, r.agg, r.filter)
			} else {
				r.cur, err = r.t.newKVRows(sub, false, r.proj)
				if err == nil && (r.agg != nil || r.filter != nil) {
					r.cur = &partialRows{it: r.cur, calls: r.agg, filter: r.filter}
				}
			}
			if err != nil {
				r.err = err
				return sql.Row{}, false
			}
		}
		if row, ok := r.cur.Next(); ok {
			return row, true
		}
		r.err = r.cur.Close()
		r.cur = nil
	}
	return sql.Row{}, false
}

func (r *sectionRows) Error() error { return r.err }

func (r *sectionRows) Close() error {
	if r.cur != nil {
		if err := r.cur.Close(); err != nil && r.err == nil {
			r.err = err
		}
		r.cur = nil
	}
	return r.err
}

// rawConvertible reports whether the files form one sorted run without
// retractions, so no merge is needed (Paimon's DataSplit.rawConvertible).
func rawConvertible(files []manifest.DataFileMeta) bool {
	if len(files) == 0 {
		return true
	}
	for _, f := range files {
		if f.DeleteRowCount == nil || *f.DeleteRowCount != 0 {
			return false
		}
	}
	if len(files) == 1 {
		return true
	}
	lvl := files[0].Level
	if lvl == 0 {
		return false
	}
	for _, f := range files {
		if f.Level != lvl {
			return false
		}
	}
	return true
}

func (t *Table) sortByMinKey(files []manifest.DataFileMeta) error {
	keys := make(map[string][]any, len(files))
	for _, f := range files {
		fm, err := t.fileMeta(f)
		if err != nil {
			return err
		}
		keys[f.FileName] = fm.MinKey
	}
	sort.SliceStable(files, func(i, j int) bool {
		return t.Spec.Key.Compare(keys[files[i].FileName], keys[files[j].FileName]) < 0
	})
	return nil
}

func (t *Table) bucketDir(part []byte, bucket int) (string, error) {
	pp, err := t.PartitionPath(part)
	if err != nil {
		return "", err
	}
	return format.BucketDir(t.Root, pp, bucket), nil
}

// ReadKV reads a split of a primary-key table as KeyValues: merged with
// retractions dropped (SplitFull), merged with RowKinds kept (SplitDelta),
// or raw in file order (SplitChangelog). Records carry the trimmed key,
// sequence number, RowKind and every table column (current schema).
func (t *Table) ReadKV(s Split) (mergetree.Iterator, error) { return t.readKV(s, false) }

// readKV is ReadKV; keepDelete merges a SplitFull like a SplitDelta (every
// file a run, RowKinds and retractions kept), which gives the same rows
// per key as the level merge without dropping deletes.
func (t *Table) readKV(s Split, keepDelete bool) (mergetree.Iterator, error) {
	if !t.PrimaryKey() {
		return nil, fmt.Errorf("paimon table %s: ReadKV needs a primary-key table", t.Root)
	}
	st, err := t.newBucketStore(s.Partition, s.Bucket)
	if err != nil {
		return nil, err
	}
	if s.Kind != SplitChangelog {
		st.dfs = s.DeletionFiles
	}
	metas := make([]*mergetree.FileMeta, 0, len(s.Files))
	for _, f := range s.Files {
		st.remember(f)
		fm, err := t.fileMeta(f)
		if err != nil {
			return nil, err
		}
		metas = append(metas, fm)
	}
	kind := s.Kind
	if keepDelete && kind == SplitFull {
		kind = SplitDelta
	}
	if s.Bucket == -2 {
		// A postpone bucket's files hold records in arrival order; they
		// are read one after another, never merged (MergeFileSplitRead:
		// bucket == POSTPONE_BUCKET takes the no-merge reader).
		kind = SplitChangelog
	}
	switch kind {
	case SplitChangelog:
		return &concat{files: metas, open: st.Open}, nil
	case SplitDelta:
		if len(metas) == 0 {
			return mergetree.NewSliceIter(nil), nil
		}
		if len(metas) == 1 {
			return st.Open(metas[0])
		}
		its := make([]mergetree.Iterator, 0, len(metas))
		for _, m := range metas {
			it, err := st.Open(m)
			if err != nil {
				for _, o := range its {
					o.Close()
				}
				return nil, err
			}
			its = append(its, it)
		}
		return mergetree.NewMergeIter(mergetree.NewMergingIter(its, t.Spec.Key, t.Spec.Order), t.Spec.Key, t.Spec.NewMergeFunction(), false), nil
	default:
		levels, err := mergetree.NewLevels(t.Spec.Key, metas, t.Spec.NumLevels)
		if err != nil {
			return nil, fmt.Errorf("paimon table %s bucket %d: %w", t.Root, s.Bucket, err)
		}
		return mergetree.NewLevelsReader(t.Spec, st, levels.LevelSortedRuns()), nil
	}
}

// concat reads files one after another.
type concat struct {
	files []*mergetree.FileMeta
	open  func(*mergetree.FileMeta) (mergetree.Iterator, error)
	cur   mergetree.Iterator
	err   error
}

func (c *concat) Next() *mergetree.KV {
	for c.err == nil {
		if c.cur == nil {
			if len(c.files) == 0 {
				return nil
			}
			it, err := c.open(c.files[0])
			c.files = c.files[1:]
			if err != nil {
				c.err = err
				return nil
			}
			c.cur = it
		}
		if r := c.cur.Next(); r != nil {
			return r
		}
		err := c.cur.Close()
		c.cur = nil
		if err != nil {
			c.err = err
		}
	}
	return nil
}

func (c *concat) Error() error { return c.err }

func (c *concat) Close() error {
	if c.cur != nil {
		if err := c.cur.Close(); err != nil && c.err == nil {
			c.err = err
		}
		c.cur = nil
	}
	return c.err
}

// kvRows turns KeyValues into projected rows.
type kvRows struct {
	it   mergetree.Iterator
	proj []int
	full bool
	err  error
}

func (k *kvRows) Next() (sql.Row, bool) {
	r := k.it.Next()
	if r == nil {
		k.err = k.it.Error()
		return sql.Row{}, false
	}
	kind := r.Kind
	if k.full {
		kind = sql.Insert
	}
	return sql.Row{Kind: kind, Values: project(r.Value, k.proj)}, true
}

func project(v []any, proj []int) []any {
	if proj == nil {
		return v
	}
	out := make([]any, len(proj))
	for i, p := range proj {
		out[i] = v[p]
	}
	return out
}

func (k *kvRows) Error() error { return k.err }

func (k *kvRows) Close() error {
	if err := k.it.Close(); err != nil && k.err == nil {
		k.err = err
	}
	return k.err
}

// rawRows reads the value columns of files one after another, with the
// projection pushed into the Parquet reader.
type rawRows struct {
	t     *Table
	dir   string
	files []manifest.DataFileMeta
	proj  []int
	dfs   map[string]DeletionFile
	agg   []format.AggCall // ReadOptions.Aggregate: partial rows
	// filter is ReadOptions.Filter.
	filter []format.Pred

	f  fs.File
	it *format.RowIterator
	// tested: it yields only rows that pass filter (FilteredRows).
	tested bool
	pend   [][]any // partials of a file not yielded yet (agg)
	err    error
}

func (r *rawRows) partials() {}

// openNext opens the next file: its rows, or, with agg, its partial
// aggregates when the column path takes the file (then they are in pend
// and no file stays open).
func (r *rawRows) openNext() bool {
	m := r.files[0]
	r.files = r.files[1:]
	written, err := r.t.writtenFields(m)
	if err != nil {
		r.err = err
		return false
	}
	want := r.t.Schema.Fields
	if r.proj != nil {
		want = make([]schemaField, len(r.proj))
		for i, p := range r.proj {
			want[i] = r.t.Schema.Fields[p]
		}
	}
	if !fileMayPass(m, written, want, r.filter) {
		filesSkipped.Add(1)
		return true // no row of the file passes: nothing to yield
	}
	deleted, err := r.t.deletionVector(r.dfs, m.FileName)
	if err != nil {
		r.err = err
		return false
	}
	f, pf, err := r.t.openFile(r.dir, m)
	if err != nil {
		r.err = err
		return false
	}
	proj := format.Projection{FileFields: written, Fields: want, ORCInstantLTZ: r.t.orcInstantLTZ()}
	if deleted != nil {
		proj.Deleted = deleted
	}
	if r.agg != nil && useColumnPath {
		parts, ok, err := pf.Aggregate(proj, r.agg, r.filter)
		if err == nil && ok {
			err = f.Close()
		}
		if err != nil {
			f.Close()
			r.err = fmt.Errorf("read %s: %w", m.FileName, err)
			return false
		}
		if ok {
			r.pend = parts
			return true
		}
	}
	var it *format.RowIterator
	tested := false
	if len(r.filter) > 0 && useColumnPath {
		it, tested, err = pf.FilteredRows(proj, r.filter)
	}
	if err == nil && !tested {
		it, err = pf.Rows(proj)
	}
	if err != nil {
		f.Close()
		r.err = fmt.Errorf("read %s: %w", m.FileName, err)
		return false
	}
	r.f, r.it, r.tested = f, it, tested
	return true
}

// useColumnPath lets rawRows compute partial aggregates column by column;
// tests turn it off to compare with partials of every row.
var useColumnPath = true

func (r *rawRows) Next() (sql.Row, bool) {
	for r.err == nil {
		if r.it == nil {
			if len(r.pend) > 0 {
				part := r.pend[0]
				r.pend = r.pend[1:]
				return sql.Row{Kind: sql.Insert, Values: part}, true
			}
			if len(r.files) == 0 {
				return sql.Row{}, false
			}
			if !r.openNext() {
				return sql.Row{}, false
			}
			continue
		}
		if v := r.it.Next(); v != nil {
			if !r.tested && !format.Keep(r.filter, v) {
				continue
			}
			if r.agg != nil {
				v = format.Partial(r.agg, v)
			}
			return sql.Row{Kind: sql.Insert, Values: v}, true
		}
		r.err = r.it.Error()
		r.closeCur()
	}
	return sql.Row{}, false
}

func (r *rawRows) closeCur() {
	if r.it != nil {
		r.it.Close()
		if err := r.f.Close(); err != nil && r.err == nil {
			r.err = err
		}
		r.it, r.f = nil, nil
	}
}

func (r *rawRows) Error() error { return r.err }

func (r *rawRows) Close() error {
	r.closeCur()
	return r.err
}

// partials marks the iterators that yield partial aggregates themselves
// when ReadOptions.Aggregate is set.
type partials interface{ partials() }

// partialRows turns the rows of it that pass filter into partial
// aggregates of calls (format.Partial), or without calls yields them,
// keeping each row's RowKind.
type partialRows struct {
	it     RowIterator
	calls  []format.AggCall
	filter []format.Pred
}

func (p *partialRows) partials() {}

func (p *partialRows) Next() (sql.Row, bool) {
	for {
		r, ok := p.it.Next()
		if !ok {
			return r, false
		}
		if !format.Keep(p.filter, r.Values) {
			continue
		}
		if p.calls == nil {
			return r, true
		}
		return sql.Row{Kind: r.Kind, Values: format.Partial(p.calls, r.Values)}, true
	}
}

func (p *partialRows) Error() error { return p.it.Error() }
func (p *partialRows) Close() error { return p.it.Close() }
