package stream

import (
	"errors"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// rowIter yields rows; nil = exhausted or failed (see err). Rows are fresh
// and may be retained.
type rowIter interface {
	next() (sql.Row, bool)
	err() error
	close() error
}

// openedFile is an open data file with the handle to close.
type openedFile struct {
	f  fs.File
	pf *format.File
}

func (t *Table) openFile(e *manifest.ManifestEntry) (*openedFile, error) {
	if err := format.CheckReadable(e.File.FileName); err != nil {
		return nil, err
	}
	p, err := t.FilePath(e)
	if err != nil {
		return nil, err
	}
	f, err := t.FIO.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open data file %s: %w", p, err)
	}
	pf, err := format.Open(f, f.Size(), e.File.FileName)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open data file %s: %w", p, err)
	}
	return &openedFile{f: f, pf: pf}, nil
}

// kvFileIter is the KeyValues of one primary-key file as a merge-tree
// iterator.
type kvFileIter struct {
	of *openedFile
	it *format.KVIterator
}

func (k *kvFileIter) Next() *mergetree.KV { return k.it.Next() }
func (k *kvFileIter) Error() error        { return k.it.Err() }
func (k *kvFileIter) Close() error {
	k.it.Close()
	return k.of.f.Close()
}

// openKV reads a primary-key file's KeyValues with the given value fields.
func (t *Table) openKV(e *manifest.ManifestEntry, values []schema.Field) (*kvFileIter, error) {
	fsch, err := t.fileSchema(e.File.SchemaID)
	if err != nil {
		return nil, err
	}
	fileKeys, err := fsch.Project(fsch.TrimmedPrimaryKeys())
	if err != nil {
		return nil, fmt.Errorf("file %s: %w", e.File.FileName, err)
	}
	of, err := t.openFile(e)
	if err != nil {
		return nil, err
	}
	it, err := of.pf.KeyValues(fileKeys, t.keyFields, format.Projection{FileFields: fsch.Fields, Fields: values}, int(e.File.Level))
	if err != nil {
		of.f.Close()
		return nil, fmt.Errorf("read %s: %w", e.File.FileName, err)
	}
	return &kvFileIter{of: of, it: it}, nil
}

// readOnlyStore backs mergetree's merge-on-read with the Parquet files of
// one split.
type readOnlyStore struct {
	t      *Table
	byName map[string]*manifest.ManifestEntry
}

func (s *readOnlyStore) Open(f *mergetree.FileMeta) (mergetree.Iterator, error) {
	e, ok := s.byName[f.Name]
	if !ok {
		return nil, fmt.Errorf("file %s is not in the split", f.Name)
	}
	return s.t.openKV(e, s.t.Schema.Fields)
}

func (s *readOnlyStore) NewWriter(int, mergetree.FileKind) (mergetree.FileWriter, error) {
	return nil, errors.New("paimon stream: read-only store")
}

// mergedIter is merge-on-read of one primary-key split: the merged value
// of every live key, as +I rows of all table fields.
type mergedIter struct {
	it   mergetree.Iterator
	proj []int
	e    error
}

func (t *Table) newMergedIter(sp *Split, proj []int) (rowIter, error) {
	st := &readOnlyStore{t: t, byName: map[string]*manifest.ManifestEntry{}}
	metas := make([]*mergetree.FileMeta, 0, len(sp.Files))
	for i := range sp.Files {
		e := &sp.Files[i]
		st.byName[e.File.FileName] = e
		minK, err := binrow.Deserialize(t.Spec.KeyTypes, e.File.MinKey)
		if err != nil {
			return nil, fmt.Errorf("file %s min key: %w", e.File.FileName, err)
		}
		maxK, err := binrow.Deserialize(t.Spec.KeyTypes, e.File.MaxKey)
		if err != nil {
			return nil, fmt.Errorf("file %s max key: %w", e.File.FileName, err)
		}
		del := int64(-1)
		if e.File.DeleteRowCount != nil {
			del = *e.File.DeleteRowCount
		}
		var ct int64
		if e.File.CreationTime != nil {
			ct = *e.File.CreationTime
		}
		metas = append(metas, &mergetree.FileMeta{Name: e.File.FileName, Level: int(e.File.Level), MinKey: minK, MaxKey: maxK,
			Size: e.File.FileSize, MinSeq: e.File.MinSequenceNumber, MaxSeq: e.File.MaxSequenceNumber,
			RowCount: e.File.RowCount, DeleteRowCount: del, CreationMillis: ct})
	}
	levels, err := mergetree.NewLevels(t.Spec.Key, metas, t.Spec.NumLevels)
	if err != nil {
		return nil, fmt.Errorf("bucket %d: %w", sp.Key.Bucket, err)
	}
	return &mergedIter{it: mergetree.NewLevelsReader(t.Spec, st, levels.LevelSortedRuns()), proj: proj}, nil
}

func (m *mergedIter) next() (sql.Row, bool) {
	r := m.it.Next()
	if r == nil {
		m.e = m.it.Error()
		return sql.Row{}, false
	}
	return sql.Row{Kind: sql.Insert, Values: project(r.Value, m.proj)}, true
}
func (m *mergedIter) err() error   { return m.e }
func (m *mergedIter) close() error { return m.it.Close() }

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

// rawIter reads the files of a split one after another, unmerged: each
// KeyValue becomes a row with its RowKind (primary-key files), each append
// row a +I. forceInsert stamps +I on every row (full phase of a table
// read without merging, e.g. $ro top-level files).
type rawIter struct {
	t           *Table
	files       []manifest.ManifestEntry
	fields      []schema.Field
	forceInsert bool

	i    int
	kv   *kvFileIter
	rows *format.RowIterator
	of   *openedFile
	e    error
}

func (t *Table) newRawIter(sp *Split, proj []int, forceInsert bool) rowIter {
	fields := t.Schema.Fields
	if proj != nil {
		fields = make([]schema.Field, len(proj))
		for i, p := range proj {
			fields[i] = t.Schema.Fields[p]
		}
	}
	return &rawIter{t: t, files: sp.Files, fields: fields, forceInsert: forceInsert}
}

func (r *rawIter) openNext() bool {
	r.closeCur()
	if r.i >= len(r.files) {
		return false
	}
	e := &r.files[r.i]
	r.i++
	if r.t.HasPrimaryKey() {
		r.kv, r.e = r.t.openKV(e, r.fields)
		return r.e == nil
	}
	fsch, err := r.t.fileSchema(e.File.SchemaID)
	if err != nil {
		r.e = err
		return false
	}
	if r.of, r.e = r.t.openFile(e); r.e != nil {
		return false
	}
	if r.rows, r.e = r.of.pf.Rows(format.Projection{FileFields: fsch.Fields, Fields: r.fields}); r.e != nil {
		r.e = fmt.Errorf("read %s: %w", e.File.FileName, r.e)
		return false
	}
	return true
}

func (r *rawIter) next() (sql.Row, bool) {
	for r.e == nil {
		switch {
		case r.kv != nil:
			if kv := r.kv.Next(); kv != nil {
				k := kv.Kind
				if r.forceInsert {
					k = sql.Insert
				}
				return sql.Row{Kind: k, Values: kv.Value}, true
			}
			if r.e = r.kv.Error(); r.e != nil {
				return sql.Row{}, false
			}
		case r.rows != nil:
			if v := r.rows.Next(); v != nil {
				return sql.Row{Kind: sql.Insert, Values: v}, true
			}
			if r.e = r.rows.Err(); r.e != nil {
				return sql.Row{}, false
			}
		}
		if !r.openNext() {
			return sql.Row{}, false
		}
	}
	return sql.Row{}, false
}

func (r *rawIter) closeCur() {
	if r.kv != nil {
		r.kv.Close()
		r.kv = nil
	}
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
	if r.of != nil {
		r.of.f.Close()
		r.of = nil
	}
}

func (r *rawIter) err() error   { return r.e }
func (r *rawIter) close() error { r.closeCur(); return nil }

// multiIter chains the iterators of several splits, opening each lazily.
type multiIter struct {
	open func(i int) (rowIter, error)
	n, i int
	cur  rowIter
	e    error
}

func (m *multiIter) next() (sql.Row, bool) {
	for m.e == nil {
		if m.cur == nil {
			if m.i >= m.n {
				return sql.Row{}, false
			}
			if m.cur, m.e = m.open(m.i); m.e != nil {
				return sql.Row{}, false
			}
			m.i++
		}
		if r, ok := m.cur.next(); ok {
			return r, true
		}
		m.e = m.cur.err()
		m.cur.close()
		m.cur = nil
	}
	return sql.Row{}, false
}

func (m *multiIter) err() error { return m.e }
func (m *multiIter) close() error {
	if m.cur != nil {
		m.cur.close()
		m.cur = nil
	}
	return nil
}

var _ = io.EOF
