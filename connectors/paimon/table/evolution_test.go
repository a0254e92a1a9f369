package table

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
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
