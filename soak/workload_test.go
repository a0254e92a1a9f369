package soak

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
)

// TestDiffNamesRows: the comparison names lost, extra, changed and
// duplicated rows by id.
func TestDiffNamesRows(t *testing.T) {
	want := []string{"1,80.00,CREATED", "2,10.00,PAID", "3,5.00,DONE"}
	if d := diff(want, append([]string(nil), want...)); d != "" {
		t.Fatalf("equal tables differ: %s", d)
	}
	got := []string{"1,100.00,CREATED", "3,5.00,DONE", "3,5.00,DONE", "4,1.00,PAID"}
	d := diff(want, got)
	for _, s := range []string{"3 rows expected, 4 present: 1 lost, 1 extra, 1 changed, 1 duplicated",
		"lost: 2,10.00,PAID", "extra: 4,1.00,PAID", "changed (want ≠ got): 1,80.00,CREATED ≠ 1,100.00,CREATED", "duplicated: 3,5.00,DONE"} {
		if !strings.Contains(d, s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	if checksum(want) == checksum(got[:3]) {
		t.Error("checksum does not tell the tables apart")
	}
}

// TestConflictingWritersKeepEveryRow is the soak's conflict fault without
// MariaDB: two writers (two Table instances, as two jobs) full-compact the
// same buckets from the same snapshot and commit concurrently, for every
// changelog producer; the losers redo their batch, and the table always
// equals the union of the writers' models.
func TestConflictingWritersKeepEveryRow(t *testing.T) {
	for _, producer := range []string{"none", "input", "lookup"} {
		t.Run(producer, func(t *testing.T) {
			dir := t.TempDir()
			tbl, err := table.Create(fs.NewLocal(), dir, ordersSchema(), nil,
				map[string]string{"bucket": "2", "changelog-producer": producer}, "", time.Now().UnixMilli())
			if err != nil {
				t.Fatal(err)
			}
			tbl2, err := table.Open(fs.NewLocal(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := newWriter(tbl, "a", 1, 500, true, 1)
			b := newWriter(tbl2, "b", 501, 600, false, 2)
			conflicts := 0
			for i := 0; i < 12; i++ {
				var wg sync.WaitGroup
				var mu sync.Mutex
				errs := make([]error, 2)
				for j, w := range []*writer{a, b} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c, err := w.step(30, true)
						mu.Lock()
						conflicts += c
						mu.Unlock()
						errs[j] = err
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
				got, err := paimonLines(dir)
				if err != nil {
					t.Fatal(err)
				}
				model := append(a.modelLines(), b.modelLines()...)
				sortByID(model)
				if d := diff(model, got); d != "" {
					t.Fatalf("round %d: the table differs from the writers' models: %s", i, d)
				}
			}
			if conflicts == 0 {
				t.Error("12 rounds of concurrent full compactions met no commit conflict")
			}
			t.Logf("%d conflicts redone", conflicts)
		})
	}
}
