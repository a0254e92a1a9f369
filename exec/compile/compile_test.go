package compile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/values"
	"github.com/sqlrun/sqlrun/exec/compile"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"

	_ "github.com/sqlrun/sqlrun/connectors/blackhole"
	_ "github.com/sqlrun/sqlrun/connectors/datagen"
)

type env struct {
	cat    *catalog.InMemory
	config map[string]string
}

func (e *env) Config() map[string]string { return e.config }

func (e *env) DefaultConnector(connectors.ObjectIdentifier) string { return "" }

func (e *env) TablePath(connectors.ObjectIdentifier) string                { return "" }
func (e *env) PinnedOptions(connectors.ObjectIdentifier) map[string]string { return nil }

func (e *env) LookupTable(n ast.ObjectName) (connectors.ObjectIdentifier, *catalog.Table, error) {
	id := connectors.ObjectIdentifier{Catalog: catalog.DefaultCatalog, Database: catalog.DefaultDatabase, Name: n.Table}
	t, err := e.cat.GetTable(id.Database, id.Name)
	return id, t, err
}

func (e *env) ddl(t *testing.T, text string) {
	stmt, err := parser.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	switch x := stmt.(type) {
	case *ast.CreateTable:
		// As the session creates a table: computed and metadata columns
		// and the watermark resolved.
		tb, err := catalog.TableFromDDL(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.ResolveComputedColumns(tb); err != nil {
			t.Fatal(err)
		}
		if err := e.cat.CreateTable(catalog.DefaultDatabase, x.Name.Table, tb, false); err != nil {
			t.Fatal(err)
		}
	case *ast.Set:
		e.config[x.Key] = x.Value
	default:
		t.Fatalf("not DDL: %s", text)
	}
}

// run plans, translates and runs one statement to the end, returning the
// graph's shape and what reached the sink.
func (e *env) run(text string, sorted bool) (string, error) {
	stmt, err := parser.Parse(text)
	if err != nil {
		return "", err
	}
	pl, err := plan.New(e).PlanStatement(stmt)
	if err != nil {
		return "", err
	}
	col := runtime.NewCollect(64)
	g, err := compile.Graph(pl, compile.Options{JobName: "t", Config: e.config, Collect: col})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, v := range g.Vertices {
		fmt.Fprintf(&b, "vertex %s %q p=%d\n", v.UID, v.Name, v.Parallelism)
	}
	for _, ed := range g.Edges {
		fmt.Fprintf(&b, "edge %s -> %s %s%v\n", g.Vertices[ed.From].UID, g.Vertices[ed.To].UID, ed.Partition.Kind, keysOf(ed.Partition))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	values.ClearResults()
	job, err := runtime.Start(ctx, g, runtime.Config{Streaming: pl.Streaming})
	if err != nil {
		return "", err
	}
	if pl.Query {
		var lines []string
		for {
			rows, err := col.Next(ctx, job)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return b.String() + "error: " + err.Error() + "\n", nil
			}
			for _, r := range rows {
				lines = append(lines, sql.FormatRow(r, pl.Physical[0].Types()))
			}
		}
		if sorted {
			// Rows from several subtasks arrive in no defined order.
			sort.Strings(lines)
		}
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		return b.String(), nil
	}
	if err := job.Wait(ctx); err != nil {
		return b.String() + "error: " + err.Error() + "\n", nil
	}
	sink := pl.Physical[0].Table
	// The values sink keeps each row as it consumes it: the physical
	// columns, then any metadata it writes (typed as the plan's sink
	// input types them).
	types := sink.Schema.Types()
	types = append(types, pl.Physical[0].Types()[min(len(types), len(pl.Physical[0].Types())):]...)
	rows := values.Results(sink.ID.String(), types)
	sort.Strings(rows)
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	return b.String(), nil
}

func keysOf(p runtime.Partitioning) string {
	if len(p.Keys) == 0 {
		return ""
	}
	return fmt.Sprint(p.Keys)
}

// TestRun runs statements end to end over values sources. Commands: ddl
// (CREATE TABLE / SET, one per line), run (one statement: the graph, then
// the sink's rows in order of arrival for queries, sorted for tables and
// for "run sorted"; "run final" folds the changelog into the rows that
// remain).
func TestRun(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		e := &env{cat: catalog.NewInMemory(catalog.DefaultDatabase), config: map[string]string{}}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "ddl":
				for _, l := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					e.ddl(t, strings.TrimSuffix(l, ";"))
				}
				return "ok\n"
			case "run":
				out, err := e.run(strings.TrimSpace(d.Input), d.HasArg("sorted") || d.HasArg("final"))
				if d.HasArg("final") && err == nil {
					out = fold(out)
				}
				if err != nil {
					if rc := sql.RootCause(err); rc != nil {
						return "error: " + rc.Msg + "\n"
					}
					return "error: " + err.Error() + "\n"
				}
				return out
			}
			return "unknown command\n"
		})
	})
}

// fold applies the printed changelog and keeps the graph lines plus the
// rows that remain, sorted: the result of a job whose sources interleave
// in no fixed order.
func fold(out string) string {
	var head, rows []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if len(l) > 2 && (l[0] == '+' || l[0] == '-') && l[2] == '[' {
			rows = append(rows, l)
		} else {
			head = append(head, l)
		}
	}
	live := map[string]int{}
	for _, r := range rows {
		body := r[2:]
		if r[0] == '+' {
			live[body]++
		} else {
			live[body]--
		}
	}
	var final []string
	for body, n := range live {
		for i := 0; i < n; i++ {
			final = append(final, "+I"+body)
		}
	}
	sort.Strings(final)
	return strings.Join(append(head, final...), "\n") + "\n"
}

func (e *env) LookupTableAt(ast.ObjectName, func() (int64, error)) (connectors.ObjectIdentifier, *catalog.Table, bool, error) {
	return connectors.ObjectIdentifier{}, nil, false, nil // in memory: no versions
}
