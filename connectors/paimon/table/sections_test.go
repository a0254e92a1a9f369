package table

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestSectionsReadRaw: a bucket whose level-0 files mostly do not overlap
// (five commits of new keys, then a few updates, a delete and an insert
// among them; write-only, so nothing is compacted) is read section by section, as Paimon's
// MergeTreeSplitGenerator.splitForBatch splits it: the files that overlap
// nothing raw, the others merged. The rows, in order, are those of merging
// the whole bucket, with and without a projection.
func TestSectionsReadRaw(t *testing.T) {
	tbl, err := Create(nil, t.TempDir(), tmSchema(), nil, map[string]string{"bucket": "1", "write-only": "true",
		"num-sorted-run.stop-trigger": "100"}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	id := int64(0)
	commit := func(rows ...sql.Row) {
		id++
		writeCommit(t, tbl, "u", id, rows...)
	}
	for f := int32(0); f < 5; f++ {
		var rows []sql.Row
		for k := f * 1000; k < (f+1)*1000; k++ {
			rows = append(rows, row(sql.Insert, k, "a", int64(k), fmt.Sprint("s", k)))
		}
		commit(rows...)
	}
	var rows []sql.Row
	for k := int32(100); k < 110; k++ {
		rows = append(rows, row(sql.Insert, k, "a", int64(-k), "updated"))
	}
	commit(rows...)
	commit(row(sql.Delete, int32(2500), "a", int64(2500), "s2500"))
	commit(row(sql.Insert, int32(3500), "b", nil, nil))

	s, err := tbl.ResolveSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	splits, err := tbl.PlanFull(s, nil)
	if err != nil || len(splits) != 1 {
		t.Fatalf("splits %d: %v", len(splits), err)
	}
	sp := splits[0]
	secs, err := tbl.sections(sp.Files)
	if err != nil {
		t.Fatal(err)
	}
	raw, merged := 0, 0
	for _, sec := range secs {
		if rawConvertible(sec) {
			raw++
		} else {
			merged++
		}
	}
	if raw < 2 || merged < 2 {
		t.Fatalf("%d files in %d sections: %d raw, %d merged; the test wants both kinds", len(sp.Files), len(secs), raw, merged)
	}
	drain := func(r RowIterator, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%v %v", row.Kind, row.Values))
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, proj := range [][]int{nil, {3, 0}} {
		r, err := tbl.NewSplitReader(sp, ReadOptions{Projection: proj})
		if _, ok := r.(*sectionRows); !ok && err == nil {
			t.Fatalf("reader %T, want *sectionRows", r)
		}
		got := drain(r, err)
		want := drain(tbl.newKVRows(sp, false, proj))
		if len(want) != 5000-1+1 {
			t.Fatalf("merged read: %d rows", len(want))
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("projection %v: row %d: section read %s, merged read %s", proj, i, got[i], want[i])
				}
			}
			t.Fatalf("projection %v: section read %d rows, merged read %d", proj, len(got), len(want))
		}
	}
}
