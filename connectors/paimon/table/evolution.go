package table

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/sql"
)

// Data evolution ('data-evolution.enabled' = true, Paimon 1.3+): an append
// table whose rows carry ids ('row-tracking.enabled') may get files that
// write only some columns for an existing range of row ids (a MERGE INTO
// that updates columns, DataFileMeta._WRITE_COLS). Such files are read
// together with the files of the same range: each column comes from the
// newest file (highest max sequence number) that wrote it, rows matched by
// position (DataEvolutionSplitRead, release-1.4).

// writtenFields are the fields a data file holds: its schema's fields, or
// with _WRITE_COLS set only those it names (TableSchema.project); system
// columns (_ROW_ID, _SEQUENCE_NUMBER) a compaction writes are not table
// fields and are skipped.
func (t *Table) writtenFields(m manifest.DataFileMeta) ([]schemaField, error) {
	s, err := t.SchemaByID(m.SchemaID)
	if err != nil {
		return nil, err
	}
	if m.WriteCols == nil {
		return s.Fields, nil
	}
	var out []schemaField
	for _, f := range s.Fields {
		if slices.Contains(m.WriteCols, f.Name) {
			out = append(out, f)
		}
	}
	return out, nil
}

// rowIDGroups groups the files of a data-evolution split by row-id range
// (RangeHelper.mergeOverlappingRanges: sorted by first row id, overlapping
// ranges merged) and orders each group as
// DataEvolutionSplitRead.mergeRangesAndSort does: data files newest first
// (highest max sequence number), which must all cover the group's range,
// then blob files by first row id, newest first among equal ids.
func rowIDGroups(files []manifest.DataFileMeta) ([][]manifest.DataFileMeta, error) {
	sorted := append([]manifest.DataFileMeta(nil), files...)
	for _, f := range sorted {
		if f.FirstRowID == nil {
			return nil, fmt.Errorf("data file %s of a data-evolution table ('data-evolution.enabled' = true) has no first row id", f.FileName)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return *sorted[i].FirstRowID < *sorted[j].FirstRowID })
	var groups [][]manifest.DataFileMeta
	end := int64(-1)
	for _, f := range sorted {
		start := *f.FirstRowID
		if len(groups) > 0 && start <= end {
			groups[len(groups)-1] = append(groups[len(groups)-1], f)
		} else {
			groups = append(groups, []manifest.DataFileMeta{f})
		}
		end = max(end, start+f.RowCount-1)
	}
	for i, g := range groups {
		var data, blobs []manifest.DataFileMeta
		for _, f := range g {
			if isBlobFile(f) {
				blobs = append(blobs, f)
			} else {
				data = append(data, f)
			}
		}
		sort.SliceStable(data, func(i, j int) bool { return data[i].MaxSequenceNumber > data[j].MaxSequenceNumber })
		for _, f := range data[min(1, len(data)):] {
			if *f.FirstRowID != *data[0].FirstRowID || f.RowCount != data[0].RowCount {
				names := make([]string, len(data))
				for i, f := range data {
					names[i] = fmt.Sprintf("%s [%d, %d]", f.FileName, *f.FirstRowID, *f.FirstRowID+f.RowCount-1)
				}
				return nil, fmt.Errorf("data files %s should be all row id ranges same", strings.Join(names, ", "))
			}
		}
		sort.SliceStable(blobs, func(i, j int) bool {
			if *blobs[i].FirstRowID != *blobs[j].FirstRowID {
				return *blobs[i].FirstRowID < *blobs[j].FirstRowID
			}
			return blobs[i].MaxSequenceNumber > blobs[j].MaxSequenceNumber
		})
		groups[i] = append(data, blobs...)
	}
	return groups, nil
}

// isBlobFile is BlobFileFormat.isBlobFile: a BLOB column's values are in
// ".blob" files of their own (format/blob.go).
func isBlobFile(f manifest.DataFileMeta) bool { return strings.HasSuffix(f.FileName, ".blob") }

// fieldBunches splits an ordered row-id group into the sources
// DataEvolutionSplitRead.splitFieldBunches makes of it: each data file
// alone, and per BLOB column the blob files that together cover the
// group's rows once (SpecialFieldBunch: a file repeating a first row id
// with an older sequence number, or overlapping the previous one, is
// superseded; a gap is an error). Every source must hold the group's row
// count from its first row id.
func (t *Table) fieldBunches(group []manifest.DataFileMeta) ([][]manifest.DataFileMeta, error) {
	type blobBunch struct {
		files           []manifest.DataFileMeta
		expected, rows  int64
		lastFirst, next int64
		lastSeq         int64
	}
	var out [][]manifest.DataFileMeta
	var order []int
	bunches := map[int]*blobBunch{}
	rowCount := int64(-1)
	for _, f := range group {
		if !isBlobFile(f) {
			out = append(out, []manifest.DataFileMeta{f})
			rowCount = f.RowCount
			continue
		}
		written, err := t.writtenFields(f)
		if err != nil {
			return nil, err
		}
		if len(written) != 1 || !written[0].Blob {
			return nil, fmt.Errorf("blob file %s should write one BLOB column, not %d columns (_WRITE_COLS %v)", f.FileName, len(written), f.WriteCols)
		}
		id := written[0].ID
		b := bunches[id]
		if b == nil {
			b = &blobBunch{expected: rowCount, lastFirst: -1, next: -1, lastSeq: -1}
			bunches[id] = b
			order = append(order, id)
		}
		first := *f.FirstRowID
		if first == b.lastFirst {
			if f.MaxSequenceNumber >= b.lastSeq {
				return nil, fmt.Errorf("blob file %s: Blob/vector-store file with same first row id should have decreasing sequence number.", f.FileName)
			}
			continue
		}
		if len(b.files) > 0 {
			if first < b.next {
				if f.MaxSequenceNumber >= b.lastSeq {
					return nil, fmt.Errorf("blob file %s: Blob/vector-store file with overlapping row id should have decreasing sequence number.", f.FileName)
				}
				continue
			}
			if first > b.next {
				return nil, fmt.Errorf("blob file %s: Blob/vector-store file first row id should be continuous, expect %d but got %d", f.FileName, b.next, first)
			}
			if !slices.Equal(f.WriteCols, b.files[0].WriteCols) {
				return nil, fmt.Errorf("blob file %s: All files in this bunch should have the same write columns.", f.FileName)
			}
		}
		b.files = append(b.files, f)
		if b.rows += f.RowCount; b.rows > b.expected {
			return nil, fmt.Errorf("blob file %s: Blob/vector-store files row count exceed the expect %d", f.FileName, b.expected)
		}
		b.lastSeq, b.lastFirst, b.next = f.MaxSequenceNumber, first, first+f.RowCount
	}
	for _, id := range order {
		out = append(out, bunches[id].files)
	}
	count := func(b []manifest.DataFileMeta) (n int64) {
		for _, f := range b {
			n += f.RowCount
		}
		return n
	}
	for _, b := range out[1:] {
		if count(b) != count(out[0]) {
			return nil, fmt.Errorf("files %s: All files in a field merge split should have the same row count.", fileNames(b))
		}
		if *b[0].FirstRowID != *out[0][0].FirstRowID {
			return nil, fmt.Errorf("files %s: All files in a field merge split should have the same first row id and could not be null.", fileNames(b))
		}
	}
	return out, nil
}

func fileNames(files []manifest.DataFileMeta) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.FileName
	}
	return strings.Join(names, ", ")
}

// evolvedRows reads a data-evolution split group by group.
type evolvedRows struct {
	t      *Table
	dir    string
	groups [][]manifest.DataFileMeta
	want   []schemaField

	cur *unionRows
	err error
}

func (t *Table) newEvolvedRows(s Split, proj []int) (RowIterator, error) {
	groups, err := rowIDGroups(s.Files)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	dir, err := t.bucketDir(s.Partition, s.Bucket)
	if err != nil {
		return nil, err
	}
	want := t.Schema.Fields
	if proj != nil {
		want = make([]schemaField, len(proj))
		for i, p := range proj {
			want[i] = t.Schema.Fields[p]
		}
	}
	for _, w := range want {
		if !w.Blob {
			continue
		}
		switch {
		case t.Options.BlobAsDescriptor:
			return nil, fmt.Errorf("paimon table %s: %w: BLOB column %s with 'blob-as-descriptor' = 'true' (sqlrun reads BLOB columns as their bytes)", t.Root, format.ErrUnsupportedFormat, w.Name)
		case slices.Contains(t.Options.BlobDescriptorFields, w.Name):
			return nil, fmt.Errorf("paimon table %s: %w: BLOB column %s is stored as descriptors ('blob-descriptor-field'), which sqlrun does not resolve", t.Root, format.ErrUnsupportedFormat, w.Name)
		}
	}
	return &evolvedRows{t: t, dir: dir, groups: groups, want: want}, nil
}

func (e *evolvedRows) Next() (sql.Row, bool) {
	for e.err == nil {
		if e.cur == nil {
			if len(e.groups) == 0 {
				return sql.Row{}, false
			}
			g := e.groups[0]
			e.groups = e.groups[1:]
			if e.cur, e.err = e.t.openUnion(e.dir, g, e.want); e.err != nil {
				return sql.Row{}, false
			}
		}
		if v, ok := e.cur.next(); ok {
			return sql.Row{Kind: sql.Insert, Values: v}, true
		}
		e.err = e.cur.close()
		e.cur = nil
	}
	return sql.Row{}, false
}

func (e *evolvedRows) Error() error { return e.err }

func (e *evolvedRows) Close() error {
	if e.cur != nil {
		if err := e.cur.close(); err != nil && e.err == nil {
			e.err = err
		}
		e.cur = nil
	}
	return e.err
}

// unionRows zips the sources of one row-id group (fieldBunches): column j
// of an output row is value pos[j] of source src[j]'s row, or NULL when no
// source wrote it.
type unionRows struct {
	srcs []*bunchRows
	src  []int
	pos  []int
	err  error
}

// bunchRows reads the files of one source one after another, each for the
// same fields.
type bunchRows struct {
	t       *Table
	dir     string
	files   []manifest.DataFileMeta
	written []schemaField
	fields  []schemaField

	name string
	f    fs.File
	it   *format.RowIterator
}

// openUnion prepares the sources of a group, each reading only the wanted
// columns no earlier (newer) source supplies
// (DataEvolutionSplitRead.createUnionReader).
func (t *Table) openUnion(dir string, group []manifest.DataFileMeta, want []schemaField) (*unionRows, error) {
	bunches, err := t.fieldBunches(group)
	if err != nil {
		return nil, fmt.Errorf("paimon table %s: %w", t.Root, err)
	}
	u := &unionRows{src: make([]int, len(want)), pos: make([]int, len(want))}
	for j := range u.src {
		u.src[j] = -1
	}
	for _, b := range bunches {
		written, err := t.writtenFields(b[0])
		if err != nil {
			return nil, err
		}
		var fields []schemaField
		for j, w := range want {
			if u.src[j] >= 0 || !slices.ContainsFunc(written, func(f schemaField) bool { return f.ID == w.ID }) {
				continue
			}
			u.src[j], u.pos[j] = len(u.srcs), len(fields)
			fields = append(fields, w)
		}
		if len(fields) == 0 && len(u.srcs) > 0 {
			continue // newer sources wrote every column this one has
		}
		u.srcs = append(u.srcs, &bunchRows{t: t, dir: dir, files: b, written: written, fields: fields})
	}
	for j, w := range want {
		if u.src[j] < 0 && !w.Type.Nullable {
			return nil, fmt.Errorf("paimon table %s: field %s is not null but can't find any file contains it", t.Root, w.Name)
		}
	}
	return u, nil
}

// next returns the source's next row, nil at its end or on error.
func (b *bunchRows) next() ([]any, error) {
	for {
		if b.it == nil {
			if len(b.files) == 0 {
				return nil, nil
			}
			m := b.files[0]
			b.files = b.files[1:]
			f, pf, err := b.t.openFile(b.dir, m)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", m.FileName, err)
			}
			it, err := pf.Rows(format.Projection{FileFields: b.written, Fields: b.fields, ORCInstantLTZ: b.t.orcInstantLTZ()})
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("read %s: %w", m.FileName, err)
			}
			b.name, b.f, b.it = m.FileName, f, it
		}
		if row := b.it.Next(); row != nil {
			return row, nil
		}
		if err := b.it.Error(); err != nil {
			return nil, fmt.Errorf("read %s: %w", b.name, err)
		}
		if err := b.closeFile(); err != nil {
			return nil, err
		}
	}
}

func (b *bunchRows) closeFile() error {
	if b.it == nil {
		return nil
	}
	b.it.Close()
	err := b.f.Close()
	b.it, b.f = nil, nil
	return err
}

func (u *unionRows) next() ([]any, bool) {
	if u.err != nil {
		return nil, false
	}
	rows := make([][]any, len(u.srcs))
	ended := 0
	for i, b := range u.srcs {
		var err error
		if rows[i], err = b.next(); err != nil {
			u.err = err
			return nil, false
		}
		if rows[i] == nil {
			ended++
		}
	}
	if ended > 0 {
		if ended < len(u.srcs) {
			var names []string
			for _, b := range u.srcs {
				names = append(names, b.name)
			}
			u.err = fmt.Errorf("data files %s of one row-id range have different row counts", strings.Join(names, ", "))
		}
		return nil, false
	}
	out := make([]any, len(u.src))
	for j, s := range u.src {
		if s >= 0 {
			out[j] = rows[s][u.pos[j]]
		}
	}
	return out, true
}

func (u *unionRows) close() error {
	for _, b := range u.srcs {
		if err := b.closeFile(); err != nil && u.err == nil {
			u.err = err
		}
	}
	u.srcs = nil
	return u.err
}
