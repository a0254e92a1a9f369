package table

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestRowTrackingCommit checks the commit of a 'row-tracking.enabled' table
// against Paimon 1.4's RowTrackingCommitUtils.assignRowTracking: every
// appended file gets the table's next first row id in commit order, a file
// whose sequence numbers start at 0 gets the snapshot id as min and max
// sequence number, and the snapshot's nextRowId moves past the rows. sqlrun
// wrote no first row id and left nextRowId at 0 before, so Paimon's
// data-evolution read refused its files and _ROW_ID was wrong.
func TestRowTrackingCommit(t *testing.T) {
	for _, evolution := range []string{"false", "true"} {
		t.Run("data-evolution="+evolution, func(t *testing.T) {
			sch := sql.Schema{Columns: []sql.Column{{Name: "a", Type: sql.Int()}, {Name: "b", Type: sql.String()}}}
			tbl, err := Create(nil, t.TempDir(), sch, nil, map[string]string{"row-tracking.enabled": "true", "data-evolution.enabled": evolution}, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			writeCommit(t, tbl, "u", 1, row(sql.Insert, int32(1), "x"), row(sql.Insert, int32(2), "y"), row(sql.Insert, int32(3), "z"))
			writeCommit(t, tbl, "u", 2, row(sql.Insert, int32(4), "w"))
			writeCommit(t, tbl, "u", 3, row(sql.Insert, int32(5), "v"), row(sql.Insert, int32(6), "u"))
			var got []string
			for id := int64(1); id <= 3; id++ {
				s, err := tbl.Snapshots.Read(id)
				if err != nil {
					t.Fatal(err)
				}
				es, err := tbl.Manifests.ReadManifestList(s.DeltaManifestList)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range es {
					entries, err := tbl.Manifests.ReadManifest(m.FileName)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range entries {
						f := e.File
						got = append(got, fmt.Sprintf("snapshot %d: first_row_id %d rows %d seq [%d, %d]", id, *f.FirstRowID, f.RowCount, f.MinSequenceNumber, f.MaxSequenceNumber))
					}
				}
				got = append(got, fmt.Sprintf("snapshot %d: nextRowId %d", id, *s.NextRowID))
			}
			want := []string{
				"snapshot 1: first_row_id 0 rows 3 seq [1, 1]", "snapshot 1: nextRowId 3",
				"snapshot 2: first_row_id 3 rows 1 seq [2, 2]", "snapshot 2: nextRowId 4",
				"snapshot 3: first_row_id 4 rows 2 seq [3, 3]", "snapshot 3: nextRowId 6",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got, want := mustRead(t, tbl), "+I[1, x]\n+I[2, y]\n+I[3, z]\n+I[4, w]\n+I[5, v]\n+I[6, u]"; got != want {
				t.Fatalf("read\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestRowIDGroups checks the grouping of DataEvolutionSplitRead
// .mergeRangesAndSort: overlapping row-id ranges form one group, newest
// file first, and a group whose files cover different ranges is refused as
// Paimon refuses it.
func TestRowIDGroups(t *testing.T) {
	file := func(name string, first, rows, seq int64) manifest.DataFileMeta {
		return manifest.DataFileMeta{FileName: name, FirstRowID: &first, RowCount: rows, MaxSequenceNumber: seq}
	}
	groups, err := rowIDGroups([]manifest.DataFileMeta{file("c", 4, 2, 3), file("a", 0, 4, 1), file("b", 0, 4, 2)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		var names []string
		for _, f := range g {
			names = append(names, f.FileName)
		}
		got = append(got, strings.Join(names, ","))
	}
	if strings.Join(got, " | ") != "b,a | c" {
		t.Fatalf("groups %v", got)
	}
	_, err = rowIDGroups([]manifest.DataFileMeta{file("a", 0, 4, 1), file("b", 2, 4, 2)})
	if err == nil || !strings.Contains(err.Error(), "should be all row id ranges same") {
		t.Fatalf("got %v", err)
	}
	_, err = rowIDGroups([]manifest.DataFileMeta{{FileName: "x", RowCount: 1}})
	if err == nil || !strings.Contains(err.Error(), "data file x of a data-evolution table ('data-evolution.enabled' = true) has no first row id") {
		t.Fatalf("got %v", err)
	}
}

// TestBlobFieldBunches: a row-id group's blob files form one source per
// BLOB column, as DataEvolutionSplitRead.splitFieldBunches and
// SpecialFieldBunch build it: files in first-row-id order that continue one
// another, an older file for the same or an overlapped range superseded,
// a gap or an excess refused with Paimon's messages.
func TestBlobFieldBunches(t *testing.T) {
	s := &schema.TableSchema{Fields: []schema.Field{
		{ID: 0, Name: "id", Type: sql.Int()},
		{ID: 1, Name: "pic", Type: sql.Bytes(), Blob: true},
		{ID: 2, Name: "doc", Type: sql.Bytes(), Blob: true},
	}}
	tb := &Table{Root: "t", schemas: map[int64]*schema.TableSchema{0: s}}
	file := func(name string, first, rows, seq int64, cols ...string) manifest.DataFileMeta {
		return manifest.DataFileMeta{FileName: name, FirstRowID: &first, RowCount: rows, MaxSequenceNumber: seq, WriteCols: cols}
	}
	bunches := func(files ...manifest.DataFileMeta) (string, error) {
		groups, err := rowIDGroups(files)
		if err != nil {
			return "", err
		}
		var out []string
		for _, g := range groups {
			bs, err := tb.fieldBunches(g)
			if err != nil {
				return "", err
			}
			for _, b := range bs {
				out = append(out, fileNames(b))
			}
		}
		return strings.Join(out, " | "), nil
	}
	for _, c := range []struct {
		name  string
		files []manifest.DataFileMeta
		want  string // bunches, or the error's text
	}{
		{"two columns, rolled files", []manifest.DataFileMeta{
			file("d.parquet", 0, 5, 1, "id"), file("p2.blob", 3, 2, 1, "pic"), file("p1.blob", 0, 3, 1, "pic"), file("q.blob", 0, 5, 1, "doc")},
			"d.parquet | p1.blob, p2.blob | q.blob"},
		{"same first row id: the newest wins", []manifest.DataFileMeta{
			file("d.parquet", 0, 2, 1, "id"), file("old.blob", 0, 2, 1, "pic"), file("new.blob", 0, 2, 2, "pic")},
			"d.parquet | new.blob"},
		{"overlapped by a newer file", []manifest.DataFileMeta{
			file("d.parquet", 0, 4, 1, "id"), file("new.blob", 0, 4, 3, "pic"), file("old.blob", 2, 2, 1, "pic")},
			"d.parquet | new.blob"},
		{"gap", []manifest.DataFileMeta{
			file("d.parquet", 0, 5, 1, "id"), file("p1.blob", 0, 2, 1, "pic"), file("p2.blob", 3, 2, 1, "pic")},
			"Blob/vector-store file first row id should be continuous, expect 2 but got 3"},
		{"too few rows", []manifest.DataFileMeta{
			file("d.parquet", 0, 5, 1, "id"), file("p1.blob", 0, 2, 1, "pic")},
			"All files in a field merge split should have the same row count."},
		{"overlap by an older file that is newer", []manifest.DataFileMeta{
			file("d.parquet", 0, 4, 1, "id"), file("a.blob", 0, 3, 1, "pic"), file("b.blob", 2, 2, 2, "pic")},
			"Blob/vector-store file with overlapping row id should have decreasing sequence number."},
		{"blob file writing a normal column", []manifest.DataFileMeta{
			file("d.parquet", 0, 1, 1, "pic"), file("x.blob", 0, 1, 1, "id")},
			"blob file x.blob should write one BLOB column"},
	} {
		got, err := bunches(c.files...)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
