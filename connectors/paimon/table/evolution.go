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
// ranges merged), the files of a group newest first
// (DataEvolutionSplitRead.mergeRangesAndSort). Every file of a group must
// cover the same range, as Paimon checks.
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
	for _, g := range groups {
		sort.SliceStable(g, func(i, j int) bool { return g[i].MaxSequenceNumber > g[j].MaxSequenceNumber })
		for _, f := range g[1:] {
			if *f.FirstRowID != *g[0].FirstRowID || f.RowCount != g[0].RowCount {
				names := make([]string, len(g))
				for i, f := range g {
					names[i] = fmt.Sprintf("%s [%d, %d]", f.FileName, *f.FirstRowID, *f.FirstRowID+f.RowCount-1)
				}
				return nil, fmt.Errorf("data files %s should be all row id ranges same", strings.Join(names, ", "))
			}
		}
	}
	return groups, nil
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

// unionRows zips the files of one row-id group: column j of an output row
// is value pos[j] of file src[j]'s row, or NULL when no file wrote it.
type unionRows struct {
	names []string
	files []fs.File
	its   []*format.RowIterator
	src   []int
	pos   []int
	err   error
}

// openUnion opens the files of a group, each reading only the wanted
// columns it supplies (DataEvolutionSplitRead.createUnionReader).
func (t *Table) openUnion(dir string, group []manifest.DataFileMeta, want []schemaField) (*unionRows, error) {
	u := &unionRows{src: make([]int, len(want)), pos: make([]int, len(want))}
	for j := range u.src {
		u.src[j] = -1
	}
	for _, m := range group {
		written, err := t.writtenFields(m)
		if err != nil {
			u.close()
			return nil, err
		}
		var fields []schemaField
		for j, w := range want {
			if u.src[j] >= 0 || !slices.ContainsFunc(written, func(f schemaField) bool { return f.ID == w.ID }) {
				continue
			}
			u.src[j], u.pos[j] = len(u.its), len(fields)
			fields = append(fields, w)
		}
		if len(fields) == 0 && len(u.its) > 0 {
			continue // a newer file wrote every column this one has
		}
		f, pf, err := t.openFile(dir, m)
		if err != nil {
			u.close()
			return nil, fmt.Errorf("read %s: %w", m.FileName, err)
		}
		it, err := pf.Rows(format.Projection{FileFields: written, Fields: fields, ORCInstantLTZ: t.orcInstantLTZ()})
		if err != nil {
			f.Close()
			u.close()
			return nil, fmt.Errorf("read %s: %w", m.FileName, err)
		}
		u.names, u.files, u.its = append(u.names, m.FileName), append(u.files, f), append(u.its, it)
	}
	for j, w := range want {
		if u.src[j] < 0 && !w.Type.Nullable {
			u.close()
			return nil, fmt.Errorf("paimon table %s: field %s is not null but can't find any file contains it", t.Root, w.Name)
		}
	}
	return u, nil
}

func (u *unionRows) next() ([]any, bool) {
	if u.err != nil {
		return nil, false
	}
	rows := make([][]any, len(u.its))
	ended := 0
	for i, it := range u.its {
		if rows[i] = it.Next(); rows[i] == nil {
			if u.err = it.Error(); u.err != nil {
				u.err = fmt.Errorf("read %s: %w", u.names[i], u.err)
				return nil, false
			}
			ended++
		}
	}
	if ended > 0 {
		if ended < len(u.its) {
			u.err = fmt.Errorf("data files %s of one row-id range have different row counts", strings.Join(u.names, ", "))
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
	for i, it := range u.its {
		it.Close()
		if err := u.files[i].Close(); err != nil && u.err == nil {
			u.err = err
		}
	}
	u.its, u.files = nil, nil
	return u.err
}
