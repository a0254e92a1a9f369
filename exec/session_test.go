package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	_ "github.com/sqlrun/sqlrun/connectors/all"
	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Goldens: go test ./exec -run TestGolden -rewrite (datadriven's flag).
//
// Commands:
//
//	exec [interactive] [resume] [real]
//	                              run the input as a script in the test's
//	                              session; prints what the shell prints,
//	                              then "-- error at line N" on failure;
//	                              real plans with plan/ + exec/compile;
//	                              $TMP in the input is a temporary directory
//	new-session                   start over with a fresh session
//	ls <dir>                      list the files under $TMP/<dir>, one a
//	                              line, or "<dir> does not exist"
//	result mode=<m> [batch] [cancel] [no-time]
//	                              show rows through ShowResult; the input
//	                              is a schema line ("a INT, b STRING")
//	                              then rows ("+I 1 | x", "NULL" for null)
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "../testdata/session", func(t *testing.T, path string) {
		t.Setenv("XDG_DATA_HOME", t.TempDir())
		tmp := t.TempDir()
		s := newTestSession()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new-session":
				s = newTestSession()
				return ""
			case "exec":
				s.Interactive = d.HasArg("interactive")
				s.Planner = testPlanner{}
				if d.HasArg("real") {
					s.Planner = PlanPlanner{}
				}
				s.Resume = d.HasArg("resume")
				var out bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				err := s.ExecuteScript(ctx, strings.ReplaceAll(d.Input, "$TMP", tmp), "test.sql", &out)
				if err != nil {
					if se, ok := err.(*StatementError); ok {
						fmt.Fprintf(&out, "-- error at line %d\n", se.Line)
					} else {
						fmt.Fprintf(&out, "-- %v\n", err)
					}
				}
				res := strings.ReplaceAll(scrub(out.String()), tmp, "$TMP")
				if d.HasArg("sort-rows") {
					res = sortTableauRows(res)
				}
				return res
			case "result":
				return runResult(t, s, d)
			case "ls":
				return listFiles(t, tmp, d)
			}
			d.Fatalf(t, "unknown command %s", d.Cmd)
			return ""
		})
		s.Jobs.CancelAll()
	})
}

var (
	jobIDRe     = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	startTimeRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	tempDirRe   = regexp.MustCompile(`/tmp/\S*?/sqlrun/checkpoints/`)
	// The list of registered connectors grows as connectors land; the
	// goldens keep its place, not its content.
	factoryListRe = regexp.MustCompile(`(Available factory identifiers are:\n\n)(?:[a-z0-9-]+\n)+`)
)

// scrub replaces what changes from run to run.
func scrub(s string) string {
	s = jobIDRe.ReplaceAllString(s, strings.Repeat("x", 32))
	s = startTimeRe.ReplaceAllString(s, "YYYY-MM-DDTHH:MM:SS.sssZ")
	s = factoryListRe.ReplaceAllString(s, "${1}<registered connectors>\n")
	return tempDirRe.ReplaceAllString(s, "<checkpoints>/")
}

// listFiles lists the files under tmp/<dir>, relative to it, sorted.
func listFiles(t *testing.T, tmp string, d *datadriven.TestData) string {
	if len(d.CmdArgs) != 1 {
		d.Fatalf(t, "ls takes one directory")
	}
	dir := d.CmdArgs[0].Key
	root := filepath.Join(tmp, dir)
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return dir + " does not exist\n"
	}
	var b strings.Builder
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if e.IsDir() {
			rel += "/"
		}
		b.WriteString(rel + "\n")
		return nil
	})
	if err != nil {
		d.Fatalf(t, "ls %s: %v", dir, err)
	}
	if b.Len() == 0 {
		return "(empty)\n"
	}
	return b.String()
}

func newTestSession() *Session {
	s := NewSession()
	s.Planner = testPlanner{}
	clock := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { clock = clock.Add(1250 * time.Millisecond); return clock }
	return s
}

func runResult(t *testing.T, s *Session, d *datadriven.TestData) string {
	lines := strings.Split(strings.TrimSpace(d.Input), "\n")
	schema := parseSchema(t, lines[0])
	var batches [][]sql.Row
	for _, l := range lines[1:] {
		batches = append(batches, []sql.Row{parseRow(t, l, schema)})
	}
	var mode string
	d.ScanArgs(t, "mode", &mode)
	if d.HasArg("no-time") {
		_ = s.Config.Set(config.KeyPrintTimeCost, "false")
		defer s.Config.Reset(config.KeyPrintTimeCost)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	i := 0
	next := func() ([]sql.Row, error) {
		if i < len(batches) {
			i++
			return batches[i-1], nil
		}
		if d.HasArg("cancel") {
			cancel()
			return nil, ctx.Err()
		}
		return nil, io.EOF
	}
	var out bytes.Buffer
	if err := s.ShowResult(ctx, &out, schema, mode, !d.HasArg("batch"), next, s.Now()); err != nil {
		return FormatError(err)
	}
	return strings.NewReplacer(escAltScreenOn, "<alternate screen>\n", escAltScreenOff, "<normal screen>\n",
		escHome, "<home>\n", escClearLine, "", escClearBelow, "<clear below>\n").Replace(out.String())
}

func parseSchema(t *testing.T, line string) sql.Schema {
	var s sql.Schema
	line = strings.ReplaceAll(line, "(10, 2)", "(10,2)")
	for _, part := range strings.Split(line, ", ") {
		part = strings.ReplaceAll(part, "(10,2)", "(10, 2)")
		f := strings.Fields(strings.TrimSpace(part))
		var ty sql.DataType
		switch strings.Join(f[1:], " ") {
		case "INT":
			ty = sql.Int()
		case "BIGINT":
			ty = sql.BigInt()
		case "STRING":
			ty = sql.String()
		case "DECIMAL(10, 2)":
			ty = sql.Decimal(10, 2)
		case "BOOLEAN":
			ty = sql.Boolean()
		case "TIMESTAMP(3)":
			ty = sql.Timestamp(3)
		case "DATE":
			ty = sql.Date()
		default:
			t.Fatalf("type %q", f[1:])
		}
		s.Columns = append(s.Columns, sql.Column{Name: f[0], Type: ty})
	}
	return s
}

func parseRow(t *testing.T, line string, schema sql.Schema) sql.Row {
	kind, rest, _ := strings.Cut(line, " ")
	k, err := sql.ParseRowKind(kind)
	if err != nil {
		t.Fatal(err)
	}
	r := sql.Row{Kind: k}
	for i, cell := range strings.Split(rest, "|") {
		cell = strings.TrimSpace(cell)
		if cell == "NULL" {
			r.Values = append(r.Values, nil)
			continue
		}
		var v any
		switch schema.Columns[i].Type.Root {
		case sql.TypeInt:
			var n int32
			fmt.Sscan(cell, &n)
			v = n
		case sql.TypeBigInt:
			var n int64
			fmt.Sscan(cell, &n)
			v = n
		case sql.TypeDecimal:
			v = decimal.RequireFromString(cell)
		case sql.TypeBoolean:
			v = cell == "true"
		case sql.TypeTimestamp:
			tm, err := time.Parse("2006-01-02 15:04:05.000", cell)
			if err != nil {
				t.Fatal(err)
			}
			v = sql.TimestampFromTime(tm)
		case sql.TypeDate:
			tm, _ := time.Parse("2006-01-02", cell)
			v = int32(tm.Unix() / 86400)
		default:
			v = cell
		}
		r.Values = append(r.Values, v)
	}
	return r
}

// testPlanner plans just enough for the session's tests: VALUES with
// literals, "SELECT * FROM t" of a connector table, and INSERT INTO t of
// either, through the real connector factories and the real runtime.
type testPlanner struct{}

func (testPlanner) Explain(_ context.Context, _ Env, st *ast.Explain) (string, error) {
	return "== Abstract Syntax Tree ==\n(test planner) " + st.Stmt.SQL() + "\n", nil
}

func (testPlanner) PhysicalPlan(context.Context, Env, ast.Statement) (*plan.Plan, error) {
	return &plan.Plan{}, nil
}

func (p testPlanner) source(env Env, q ast.QueryExpr) (connectors.TableSource, sql.Schema, error) {
	switch q := q.(type) {
	case *ast.Values:
		var rows []sql.Row
		var schema sql.Schema
		for _, r := range q.Rows {
			row := sql.Row{Kind: sql.Insert}
			for i, e := range r {
				lit, ok := e.(*ast.Literal)
				if !ok {
					return nil, schema, fmt.Errorf("test planner: only literals in VALUES")
				}
				row.Values = append(row.Values, lit.Value)
				if len(rows) == 0 {
					schema.Columns = append(schema.Columns, sql.Column{Name: fmt.Sprintf("EXPR$%d", i), Type: lit.Type})
				}
			}
			rows = append(rows, row)
		}
		return &runtime.ValuesSource{Rows: rows}, schema, nil
	case *ast.Select:
		ref, ok := q.From.(*ast.TableRef)
		if !ok || len(q.Items) != 1 || !q.Items[0].Star {
			return nil, sql.Schema{}, fmt.Errorf("test planner: only SELECT * FROM t")
		}
		id, t, err := env.LookupTable(ref.Name)
		if err != nil {
			return nil, sql.Schema{}, err
		}
		f, err := connectors.Lookup(t.Options["connector"])
		if err != nil {
			return nil, sql.Schema{}, err
		}
		if err := connectors.Validate(f, t.Options); err != nil {
			return nil, sql.Schema{}, err
		}
		src, err := f.(connectors.SourceFactory).CreateSource(&connectors.Context{
			Table: id, Schema: t.Schema, Options: t.Options, Config: env.Config(), Streaming: true})
		return src, t.Schema, err
	}
	return nil, sql.Schema{}, fmt.Errorf("test planner: unsupported query")
}

func (p testPlanner) CompileInsert(_ context.Context, env Env, stmt ast.Statement, name string) (*runtime.Graph, error) {
	in, ok := stmt.(*ast.Insert)
	if !ok {
		return nil, fmt.Errorf("test planner: only INSERT")
	}
	src, _, err := p.source(env, in.Query)
	if err != nil {
		return nil, err
	}
	id, t, err := env.LookupTable(in.Table)
	if err != nil {
		return nil, err
	}
	f, err := connectors.Lookup(t.Options["connector"])
	if err != nil {
		return nil, err
	}
	if err := connectors.Validate(f, t.Options); err != nil {
		return nil, err
	}
	sink, err := f.(connectors.SinkFactory).CreateSink(&connectors.Context{
		Table: id, Schema: t.Schema, Options: t.Options, Config: env.Config(), Streaming: true})
	if err != nil {
		return nil, err
	}
	g := runtime.NewGraph(name)
	a := g.AddSource("source", "Source", src, 1)
	b := g.AddSink("sink", "Sink: "+id.String(), sink, 1)
	g.Connect(a, b, runtime.Partitioning{Kind: runtime.Forward})
	return g, nil
}

func (p testPlanner) CompileQuery(_ context.Context, env Env, st *ast.Query, name string) (*QueryJob, error) {
	src, schema, err := p.source(env, st.Body)
	if err != nil {
		return nil, err
	}
	g := runtime.NewGraph(name)
	c := runtime.NewCollect(16)
	a := g.AddSource("source", "Source", src, 1)
	b := g.AddSink("collect", "Sink: Collect", c, 1)
	g.Connect(a, b, runtime.Partitioning{Kind: runtime.Forward})
	return &QueryJob{Graph: g, Collect: c, Schema: schema, Bounded: src.Bounded()}, nil
}

// sortTableauRows sorts the rows of each tableau result ("| +I | ..." or,
// in batch mode, "| ..." lines between its borders): for queries whose inputs interleave as the
// scheduler runs them (two sources into one join), where only the set of
// rows is defined, as in Flink.
func sortTableauRows(out string) string {
	lines := strings.Split(out, "\n")
	// A batch result's rows (no op column): the "| ..." lines after a
	// table's header and its separator.
	for i := 2; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "+-") && strings.HasPrefix(lines[i-1], "| ") && strings.HasPrefix(lines[i-2], "+-") {
			j := i + 1
			for j < len(lines) && strings.HasPrefix(lines[j], "| ") {
				j++
			}
			sort.Strings(lines[i+1 : j])
			i = j
		}
	}
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "| +") && !strings.HasPrefix(lines[i], "| -") {
			i++
			continue
		}
		j := i
		for j < len(lines) && (strings.HasPrefix(lines[j], "| +") || strings.HasPrefix(lines[j], "| -")) {
			j++
		}
		sort.Strings(lines[i:j])
		i = j
	}
	return strings.Join(lines, "\n")
}
