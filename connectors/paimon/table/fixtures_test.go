package table

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

// readAll plans and reads every split of the resolved snapshot and
// returns the rows formatted as Flink prints them, sorted.
func readAll(t *Table, f *Filter, o ReadOptions) ([]string, error) {
	s, err := t.ResolveSnapshot()
	if err != nil {
		return nil, err
	}
	splits, err := t.PlanFull(s, f)
	if err != nil {
		return nil, err
	}
	types := t.Schema.Types()
	if o.Projection != nil {
		pt := make([]sql.DataType, len(o.Projection))
		for i, p := range o.Projection {
			pt[i] = types[p]
		}
		types = pt
	}
	var out []string
	for _, sp := range splits {
		r, err := t.NewSplitReader(sp, o)
		if err != nil {
			return nil, err
		}
		for {
			row, ok := r.Next()
			if !ok {
				break
			}
			out = append(out, sql.FormatRow(row, types))
		}
		if err := r.Close(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// TestFixtures reads the Java-written fixture tables through the scan and
// split readers; the goldens in testdata/fixtures were checked against
// each fixture's README ("Expected read ...").
func TestFixtures(t *testing.T) {
	root := fixtures.PaimonDir(t)
	datadriven.RunTest(t, "testdata/fixtures", func(t *testing.T, d *datadriven.TestData) string {
		var name string
		d.ScanArgs(t, "fixture", &name)
		dirs, _ := filepath.Glob(filepath.Join(root, name, "*.db", "*"))
		if len(dirs) != 1 {
			t.Fatalf("fixture %s: %v", name, dirs)
		}
		dyn := map[string]string{}
		for _, a := range d.CmdArgs {
			if a.Key != "fixture" && a.Key != "project" && len(a.Vals) > 0 {
				dyn[a.Key] = a.Vals[0]
			}
		}
		tbl, err := Open(fs.NewLocal(), dirs[0], dyn)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var o ReadOptions
		if d.HasArg("project") {
			var p string
			d.ScanArgs(t, "project", &p)
			for _, s := range strings.Split(p, ",") {
				n, _ := strconv.Atoi(s)
				o.Projection = append(o.Projection, n)
			}
		}
		rows, err := readAll(tbl, nil, o)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return fmt.Sprintf("%s\n", strings.Join(rows, "\n"))
	})
}
