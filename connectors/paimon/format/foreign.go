package format

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/sql"
)

// ORC and Avro data files ('file.format' = 'orc' or 'avro') are read
// through this small interface rather than the Parquet machinery: each is
// decoded a batch at a time (an ORC stripe, an Avro block) into values of
// the Paimon types the columns were written with, then projected and
// evolved exactly as Parquet columns are (by field id, with evolveCast).
// Writing stays Parquet only.

// foreign is a decoded non-Parquet data file.
type foreign interface {
	// columns lists the file's top-level column names in file order.
	columns() []string
	// fieldIDs holds each column's Paimon field id when the file records
	// it (ORC's paimon.id attribute), else 0.
	fieldIDs() []int
	numRows() int64
	// open reads columns cols (positions in columns()) as values of the
	// Paimon types ts (p gives the read options). next returns a batch (one slice per column, n rows)
	// or n == 0 at the end.
	open(cols []int, ts []sql.DataType, p Projection) (next func() (batch [][]any, n int, err error), err error)
}

// foreignCol is one output slot: batch column src (-1: absent, null),
// converted by cast when the type evolved.
type foreignCol struct {
	src  int
	cast caster
}

type foreignReader struct {
	name  string
	cols  []foreignCol
	next  func() ([][]any, int, error)
	batch [][]any
	n, i  int
	pos   int64 // rows consumed, for deletion vectors
	err   error
}

func (f *File) foreignProjected(p Projection, prefix string, srcs *[]int, types *[]sql.DataType) ([]foreignCol, error) {
	names := f.alien.columns()
	if _, ok := f.alien.(*blobFile); ok && len(p.FileFields) == 1 {
		// A blob file's one column is nameless: it is the file's
		// _WRITE_COLS column, the only file field (blob.go).
		names = []string{prefix + p.FileFields[0].Name}
	}
	out := make([]foreignCol, len(p.Fields))
	for i, want := range p.Fields {
		src := -1
		for j, ff := range p.FileFields {
			if ff.ID == want.ID {
				src = j
				break
			}
		}
		if src < 0 {
			out[i] = foreignCol{src: -1}
			continue
		}
		ff := p.FileFields[src]
		col := -1
		for j, n := range names {
			if n == prefix+ff.Name {
				col = j
				break
			}
		}
		if col < 0 {
			return nil, fmt.Errorf("%s file %s has no column %s (columns: %v)", FormatOf(f.name), f.name, prefix+ff.Name, names)
		}
		c := foreignCol{src: len(*srcs)}
		*srcs = append(*srcs, col)
		*types = append(*types, ff.Type)
		if isNested(ff.Type) && isNested(want.Type) {
			cast, err := nestedEvolution(ff, want)
			if err != nil {
				return nil, fmt.Errorf("%s file %s column %s: %w", FormatOf(f.name), f.name, want.Name, err)
			}
			c.cast = cast
		} else if !ff.Type.WithNullable(true).Equal(want.Type.WithNullable(true)) {
			cast, err := evolveCast(ff.Type, want.Type)
			if err != nil {
				return nil, fmt.Errorf("%s file %s column %s: %w", FormatOf(f.name), f.name, want.Name, err)
			}
			c.cast = cast
		}
		out[i] = c
	}
	return out, nil
}

func (f *File) foreignReader(srcs []int, types []sql.DataType, cols []foreignCol, p Projection) (*foreignReader, error) {
	next, err := f.alien.open(srcs, types, p)
	if err != nil {
		return nil, fmt.Errorf("%s file %s: %w", FormatOf(f.name), f.name, err)
	}
	return &foreignReader{name: f.name, cols: cols, next: next}, nil
}

// row returns the next row, or nil at the end or on error (r.err).
func (r *foreignReader) row() []any {
	for r.i >= r.n {
		if r.err != nil || r.next == nil {
			return nil
		}
		b, n, err := r.next()
		if err != nil {
			r.err = fmt.Errorf("%s file %s: %w", FormatOf(r.name), r.name, err)
			return nil
		}
		if n == 0 {
			r.next = nil
			return nil
		}
		r.batch, r.n, r.i = b, n, 0
	}
	out := make([]any, len(r.cols))
	for j, c := range r.cols {
		if c.src < 0 {
			continue
		}
		v := r.batch[c.src][r.i]
		if v != nil && c.cast != nil {
			var err error
			if v, err = c.cast(v); err != nil {
				r.err = fmt.Errorf("%s file %s: %w", FormatOf(r.name), r.name, err)
				return nil
			}
		}
		out[j] = v
	}
	r.i++
	r.pos++
	return out
}

func (f *File) foreignKeyValues(keys, vals []foreignCol, srcs []int, types []sql.DataType, level int, p Projection) (*KVIterator, error) {
	all := append(append(append([]foreignCol(nil), keys...), foreignCol{src: len(srcs)}, foreignCol{src: len(srcs) + 1}), vals...)
	cols := f.alien.columns()
	for _, special := range []string{SequenceNumberField, ValueKindField} {
		found := false
		for j, n := range cols {
			if n == special {
				srcs = append(srcs, j)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s file %s has no column %s (columns: %v)", FormatOf(f.name), f.name, special, cols)
		}
	}
	types = append(types, sql.BigInt().NotNull(), sql.TinyInt().NotNull())
	fr, err := f.foreignReader(srcs, types, all, p)
	if err != nil {
		return nil, err
	}
	return &KVIterator{alt: fr, nkeys: len(keys), level: level, deleted: p.Deleted}, nil
}

// nextForeign is KVIterator.Next for ORC and Avro files.
func (it *KVIterator) nextForeign() *kv.KeyValue {
	for it.err == nil {
		row := it.alt.row()
		if row == nil {
			it.err = it.alt.err
			return nil
		}
		if it.deleted != nil && it.deleted.IsDeleted(it.alt.pos-1) {
			continue
		}
		nk := it.nkeys
		s, ok := row[nk].(int64)
		if !ok {
			it.err = fmt.Errorf("%s file %s: bad %s %v", FormatOf(it.alt.name), it.alt.name, SequenceNumberField, row[nk])
			return nil
		}
		k, ok := row[nk+1].(int8)
		if !ok || !sql.RowKind(k).Valid() {
			it.err = fmt.Errorf("%s file %s: bad %s %v", FormatOf(it.alt.name), it.alt.name, ValueKindField, row[nk+1])
			return nil
		}
		return &kv.KeyValue{Key: row[:nk:nk], Seq: s, Kind: sql.RowKind(k), Value: row[nk+2:], Level: it.level}
	}
	return nil
}

// nextForeign is RowIterator.Next for ORC and Avro files.
func (it *RowIterator) nextForeign() []any {
	for it.err == nil {
		row := it.alt.row()
		if row == nil {
			it.err = it.alt.err
			return nil
		}
		if it.deleted != nil && it.deleted.IsDeleted(it.alt.pos-1) {
			continue
		}
		return row
	}
	return nil
}
