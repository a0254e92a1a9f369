package compile_test

import (
	"math/rand"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/exec/compile"
)

// TestLocalFilterMetamorphic runs queries that return rows (a projection
// under a WHERE) over TestLocalAggregateMetamorphic's random Paimon
// tables twice: with the condition applied in the source (filteredScan:
// files and row groups skipped by their statistics, the rest tested a
// batch at a time, merged rows after the merge) and by the Calc on every
// row, as without it. The rows, values and their Go types, must be equal,
// every query's condition must have run in the source, and some files
// must have been skipped by their statistics.
func TestLocalFilterMetamorphic(t *testing.T) {
	projections := []string{"*", "k, s", "s, i, ti", "x, d, n", "k + 1, UPPER(s), b", "n"}
	checked := 0
	skipped := table.FilesSkipped()
	for seed := int64(1); seed <= 12; seed++ {
		r := rand.New(rand.NewSource(seed))
		e, opts, commits := randomTable(t, seed, r, metaSchema)
		for q := 0; q < 24; q++ {
			w := "(" + wheres[r.Intn(len(wheres))] + ")"
			if w2 := wheres[r.Intn(len(wheres))]; r.Intn(2) == 0 && ident.FindString(w2) != ident.FindString(w) {
				w += " AND (" + w2 + ")"
			}
			text := "SELECT " + projections[r.Intn(len(projections))] + " FROM t WHERE " + w
			restore := compile.SetFuseLocalAggregates(false)
			want, err := e.answer(text)
			restore()
			if err != nil {
				t.Fatalf("seed %d: %s on rows: %v", seed, text, err)
			}
			before := compile.FilteredScans()
			got, err := e.answer(text)
			if err != nil {
				t.Fatalf("seed %d: %s with the filter in the source: %v", seed, text, err)
			}
			if got != want {
				t.Fatalf("seed %d (options %v, %d commits): %s\nwith the filter in the source:\n%s\non rows:\n%s",
					seed, opts, commits, text, got, want)
			}
			if ran := compile.FilteredScans() > before; ran == charOrdered.MatchString(text) {
				t.Fatalf("seed %d: %s: the condition ran in the source: %v", seed, text, ran)
			}
			checked++
		}
	}
	skipped = table.FilesSkipped() - skipped
	if skipped == 0 {
		t.Fatal("no data file was skipped by its statistics")
	}
	t.Logf("%d queries compared, %d data files skipped by their statistics", checked, skipped)
}
