package plan_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/catalog"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
	"github.com/sqlrun/sqlrun/sql/parser"
)

// TestFlinkSuites is the yardstick of issue 16: it plans every case of the
// pinned extracts of Flink 1.20's stream planner tests in
// ../testdata/flinksuite/*.cases (see its README.md) and writes the
// verdicts, per suite and per case, to ../testdata/flinksuite/summary.
// Regenerate with go test ./plan -run TestFlinkSuites -rewrite; review the
// diff: a case leaving "exact" is a regression.
func TestFlinkSuites(t *testing.T) {
	dir := filepath.Join("..", "testdata", "flinksuite")
	files, err := filepath.Glob(filepath.Join(dir, "*.cases"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suites in %s: %v", dir, err)
	}
	sort.Strings(files)
	datadriven.RunTest(t, filepath.Join(dir, "summary"), func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "run" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		var b strings.Builder
		var total, logical tally
		var details strings.Builder
		for _, f := range files {
			suite := strings.TrimSuffix(filepath.Base(f), ".cases")
			cases, err := readCases(f)
			if err != nil {
				t.Fatal(err)
			}
			var tl tally
			fmt.Fprintf(&details, "\n%s\n", suite)
			for _, c := range cases {
				v, why := c.run()
				tl.add(v)
				total.add(v)
				if c.kind == "logical" {
					logical.add(v)
				}
				line := fmt.Sprintf("  %-16s %s", v, c.name)
				if why != "" {
					line += ": " + why
				}
				details.WriteString(line + "\n")
			}
			fmt.Fprintf(&b, "%-40s %s\n", suite, tl)
		}
		fmt.Fprintf(&b, "%-40s %s\n", "total", total)
		// The shares leave out the cases whose stored plan is another
		// Flink's than 1.20 (other-version), and count the physical plans
		// and the logical rule suites' trees apart.
		phys := total.minus(logical)
		if run := phys.runnable() - phys.n[verdictVersion]; run > 0 {
			ex, sc, same := phys.n[verdictExact], phys.n[verdictScan], phys.n[verdictSame]
			fmt.Fprintf(&b, "of the %d runnable cases with a Flink 1.20 plan (%d more have another Flink's): %d%% exact, %d%% exact but for the scan's spelling or better, %d%% same changelog semantics or better\n",
				run, phys.n[verdictVersion], 100*ex/run, 100*(ex+sc)/run, 100*(ex+sc+same)/run)
		}
		if run := logical.runnable() - logical.n[verdictVersion]; run > 0 {
			fmt.Fprintf(&b, "of the %d runnable logical rule cases with a Flink 1.20 tree (%d more have another Flink's): %d exact, %d more with the same scans\n",
				run, logical.n[verdictVersion], logical.n[verdictExact], logical.n[verdictSameScan])
		}
		b.WriteString(details.String())
		return b.String()
	})
}

type verdict string

const (
	verdictExact       verdict = "exact"
	verdictScan        verdict = "exact-but-scan"
	verdictSame        verdict = "same-changelog"
	verdictDiffers     verdict = "differs"
	verdictUnsupported verdict = "unsupported"
	verdictError       verdict = "error"
	// verdictVersion: the case's stored plan is of a Flink other than
	// 1.20 (its --- version section says how it differs) and sqlrun's
	// plan is not that text.
	verdictVersion verdict = "other-version"
	// verdictSameScan (logical rule suites only): the tree differs from
	// Flink's but every scan carries the same pushed-down specs.
	verdictSameScan verdict = "same-scan"
)

var verdictOrder = []verdict{verdictExact, verdictScan, verdictSame, verdictSameScan, verdictDiffers, verdictError, verdictVersion, verdictUnsupported}

type tally struct{ n map[verdict]int }

func (t *tally) add(v verdict) {
	if t.n == nil {
		t.n = map[verdict]int{}
	}
	t.n[v]++
}

// minus returns t's counts less o's.
func (t tally) minus(o tally) tally {
	out := tally{n: map[verdict]int{}}
	for v, k := range t.n {
		out.n[v] = k - o.n[v]
	}
	return out
}

// runnable counts the cases that are not marked unsupported.
func (t tally) runnable() int {
	n := 0
	for v, k := range t.n {
		if v != verdictUnsupported {
			n += k
		}
	}
	return n
}

func (t tally) String() string {
	var parts []string
	for _, v := range verdictOrder {
		if v == verdictSameScan && t.n[v] == 0 {
			// Only logical rule suites have it.
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", v, t.n[v]))
	}
	return strings.Join(parts, ", ")
}

type flinkCase struct {
	name string
	ddl  []string
	sql  string
	kind string // rel, exec, logical or error
	want string
	// program names, comma-separated, the sqlrun rules that stand for
	// the program a logical rule test installs (kind logical): the
	// harness runs only those and prints the logical tree they leave.
	program     string
	unsupported string
	version     string // why the stored plan is not Flink 1.20's
	// functions are the user-defined functions the test class registers
	// (name = Java class), as --- functions lines "name = Class".
	functions []string
}

// readCases parses a .cases file (format in testdata/flinksuite/README.md).
// A case without DDL uses the tables of the case before it.
func readCases(path string) ([]*flinkCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []*flinkCase
	var cur *flinkCase
	var section string
	var buf []string
	flush := func() error {
		if cur == nil || section == "" {
			return nil
		}
		text := strings.TrimSpace(strings.Join(buf, "\n"))
		switch section {
		case "ddl":
			cur.ddl = splitDDL(text)
		case "sql":
			cur.sql = text
		case "rel", "exec", "logical", "error":
			cur.kind, cur.want = section, text
		case "program":
			cur.program = text
		case "unsupported":
			cur.unsupported = text
		case "version":
			cur.version = text
		case "functions":
			cur.functions = strings.Split(text, "\n")
		default:
			return fmt.Errorf("%s: case %s: unknown section %q", path, cur.name, section)
		}
		section, buf = "", nil
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "=== "):
			if err := flush(); err != nil {
				return nil, err
			}
			var prevDDL, prevFuncs []string
			var prevProgram string
			if cur != nil {
				prevDDL, prevProgram, prevFuncs = cur.ddl, cur.program, cur.functions
			}
			cur = &flinkCase{name: strings.TrimSpace(line[4:]), ddl: prevDDL, program: prevProgram, functions: prevFuncs}
			cases = append(cases, cur)
		case strings.HasPrefix(line, "--- "):
			if err := flush(); err != nil {
				return nil, err
			}
			section = strings.TrimSpace(line[4:])
		case section != "":
			buf = append(buf, line)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	for _, c := range cases {
		if c.unsupported == "" && (c.sql == "" || c.kind == "") {
			return nil, fmt.Errorf("%s: case %s has no sql or no expected result", path, c.name)
		}
		if c.kind == "logical" && c.program == "" {
			return nil, fmt.Errorf("%s: case %s has a logical plan but no program", path, c.name)
		}
	}
	return cases, nil
}

func splitDDL(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`;\s*\n`).Split(s, -1) {
		if p = strings.TrimSuffix(strings.TrimSpace(p), ";"); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// run plans the case in a fresh environment and judges the result.
func (c *flinkCase) run() (verdict, string) {
	if c.unsupported != "" {
		return verdictUnsupported, c.unsupported
	}
	env := newEnv()
	for _, f := range c.functions {
		if err := env.registerJavaFunction(f); err != nil {
			return verdictError, "functions: " + err.Error()
		}
	}
	for _, s := range c.ddl {
		if err := env.execDDL(s); err != nil {
			return verdictError, "DDL: " + firstLine(err)
		}
	}
	if c.kind == "error" {
		_, err := env.exec("EXPLAIN "+c.sql, false)
		if err == nil {
			return verdictDiffers, "planned; Flink fails"
		}
		// The expected text is Flink's message, or (where Flink's test
		// checks only the exception) its class.
		// its class: Flink's assertThatExceptionOfType looks at the
		// outermost exception, withMessageContaining at its message.
		for e := err; e != nil; e = errors.Unwrap(e) {
			se, ok := e.(*sql.Error)
			if !ok {
				continue
			}
			if strings.Contains(string(se.Class)+": "+se.Msg, c.want) || isJavaSubclass(se.Class, c.want) {
				return verdictExact, ""
			}
		}
		return verdictDiffers, "error text: " + firstLine(err)
	}
	if c.kind == "logical" {
		return c.judgeLogical(env)
	}
	explain := "EXPLAIN CHANGELOG_MODE "
	section := "== Optimized Physical Plan =="
	if !strings.Contains(c.want, "changelogMode=") {
		// verifyRelPlan without ExplainDetail.CHANGELOG_MODE.
		explain = "EXPLAIN "
	}
	if c.kind == "exec" {
		explain, section = "EXPLAIN ", "== Optimized Execution Plan =="
	}
	// Flink's verifyRelPlan / verifyExecPlan print the plans without
	// translating them to a job (its EXPLAIN, an error case's, does).
	env.planOnly = true
	out, err := env.exec(explain+c.sql, false)
	if err != nil {
		if c.version != "" {
			// The stored query is another Flink's too (a syntax Flink
			// 1.20 no longer takes).
			return verdictVersion, c.version + "; " + firstLine(err)
		}
		return verdictError, firstLine(err)
	}
	got := planSection(out, section)
	if strings.Contains(c.want, "DataStreamScan(") {
		got = dropDataStreamWatermark(got)
	}
	if os.Getenv("FLINKSUITE_CASE") == c.name {
		fmt.Fprintf(os.Stderr, "=== %s\n--- got\n%s\n--- want\n%s\n", c.name, got, c.want)
	}
	if got == c.want {
		return verdictExact, ""
	}
	if c.version != "" {
		return verdictVersion, c.version + "; " + firstDiff(got, c.want)
	}
	if sameAboveScans(got, c.want) {
		return verdictScan, firstDiff(got, c.want)
	}
	if strings.Contains(c.want, "DataStreamScan(") {
		// A DataStreamScan takes no projection (it does not implement
		// SupportsProjectionPushDown), so Flink projects its fields in a
		// Calc above it; sqlrun's spelling of the table takes the
		// projection into its scan, or computes proctime in a Calc
		// that reads as the bare fields once dropDataStreamWatermark has
		// rewritten it. The same fields reaching the operator above are
		// the scan's spelling too.
		// Under a Calc, which reads its input's fields by name, fewer
		// of them are the same too (the Calc Flink's DataStreamScan
		// has above it where sqlrun's table has a watermark assigner
		// between its projection and that Calc).
		gp, gf := projectedScans(got)
		wp, wf := projectedScans(c.want)
		if sameAboveScans(gp, wp) && len(gf) == len(wf) {
			parents := scanParents(gp)
			same := true
			for i := range gf {
				same = same && (gf[i] == wf[i] || parents[i] == "Calc" && subsetFields(gf[i], wf[i]))
			}
			if same {
				return verdictScan, firstDiff(got, c.want)
			}
		}
	}
	if semantics(got) == semantics(c.want) {
		return verdictSame, firstDiff(got, c.want)
	}
	return verdictDiffers, firstDiff(got, c.want)
}

// execDDL runs CREATE TABLE (with computed columns and watermarks, through
// catalog.TableFromDDL as the session does) and SET.
func (e *testEnv) execDDL(text string) error {
	stmt, err := parser.Parse(text)
	if err != nil {
		return err
	}
	if ct, ok := stmt.(*ast.CreateTable); ok {
		t, err := catalog.TableFromDDL(ct, nil)
		if err != nil {
			return err
		}
		if err := plan.ResolveComputedColumns(t); err != nil {
			return err
		}
		return e.cat.CreateTable(catalog.DefaultDatabase, ct.Name.Table, t, ct.IfNotExists)
	}
	_, err = e.exec(text, false)
	return err
}

func rootMsg(err error) string {
	if rc := sql.RootCause(err); rc != nil {
		return rc.Msg
	}
	return err.Error()
}

func firstLine(err error) string {
	return strings.SplitN(rootMsg(err), "\n", 2)[0]
}

// planSection returns one section of EXPLAIN's text, trimmed.
func planSection(out, title string) string {
	i := strings.Index(out, title)
	if i < 0 {
		return ""
	}
	rest := out[i+len(title):]
	if j := strings.Index(rest, "\n== "); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

var (
	nodeRe      = regexp.MustCompile(`^([:| +\-]*)([A-Za-z]+)\(`)
	changelogRe = regexp.MustCompile(`changelogMode=\[([A-Z,]*)\]`)
	distRe      = regexp.MustCompile(`distribution=\[(single|hash|broadcast|any)`)
)

// semantics reduces a plan to what decides its changelog behaviour: each
// operator other than Calc, its exchange's distribution kind and its
// changelog mode. Calc placement, digests and field order are left out;
// every kind of scan (TableSourceScan, LegacyTableSourceScan,
// DataStreamScan) counts as a scan.
func semantics(plan string) string {
	var b strings.Builder
	for _, line := range strings.Split(plan, "\n") {
		m := nodeRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[2]
		if strings.HasSuffix(name, "Scan") { // TableSourceScan, Legacy..., DataStreamScan
			name = "Scan"
		}
		if name == "Calc" {
			continue
		}
		fmt.Fprintf(&b, "%s", name)
		if d := distRe.FindStringSubmatch(line); d != nil {
			fmt.Fprintf(&b, "[%s]", d[1])
		}
		if c := changelogRe.FindStringSubmatch(line); c != nil {
			fmt.Fprintf(&b, "{%s}", c[1])
		}
		b.WriteString(";")
	}
	return b.String()
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = strings.TrimLeft(g[i], ":|+- ")
		}
		if i < len(w) {
			wl = strings.TrimLeft(w[i], ":|+- ")
		}
		if gl != wl {
			return fmt.Sprintf("line %d: got %q, Flink %q", i+1, clip(gl), clip(wl))
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "..."
	}
	return s
}

// sameAboveScans reports whether two plans differ only in their scan
// lines: the case spells a Java-only test source (a legacy TestTableSource,
// Flink's COLLECTION connector, a TableFactoryHarness source) as a sqlrun
// table whose scan prints differently, and every operator above it is
// Flink's text.
func sameAboveScans(got, want string) bool {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		gm, wm := nodeRe.FindStringSubmatch(g[i]), nodeRe.FindStringSubmatch(w[i])
		if gm == nil || wm == nil || gm[1] != wm[1] ||
			!strings.HasSuffix(gm[2], "Scan") || !strings.HasSuffix(wm[2], "Scan") {
			return false
		}
		if gc, wc := changelogRe.FindString(g[i]), changelogRe.FindString(w[i]); gc != wc {
			return false
		}
	}
	return true
}

var (
	projectionCalcRe = regexp.MustCompile(`^([:| +\-]*)Calc\(select=\[([A-Za-z0-9_$, ]*)\](, changelogMode=\[[A-Z,]*\])?\)$`)
	scanFieldsRe     = regexp.MustCompile(`fields=\[([^\]]*)\]`)
)

// scanParents returns, for each scan of plan in order, the name of the
// node right above it ("" at the root).
func scanParents(plan string) []string {
	lines := strings.Split(plan, "\n")
	var out []string
	for i, l := range lines {
		m := nodeRe.FindStringSubmatch(l)
		if m == nil || !strings.HasSuffix(m[2], "Scan") {
			continue
		}
		parent := ""
		for j := i - 1; j >= 0; j-- {
			if p := nodeRe.FindStringSubmatch(lines[j]); p != nil && len(p[1]) < len(m[1]) {
				parent = p[2]
				break
			}
		}
		out = append(out, parent)
	}
	return out
}

// subsetFields reports whether every field of the list a is in the list b.
func subsetFields(a, b string) bool {
	in := map[string]bool{}
	for _, f := range strings.Split(b, ", ") {
		in[f] = true
	}
	for _, f := range strings.Split(a, ", ") {
		if !in[f] {
			return false
		}
	}
	return true
}

// projectedScans folds each Calc that only selects fields (no expression,
// no rename, no condition) into the scan right below it, repeatedly (a
// chain of such Calcs folds into the scan), and returns the plan without
// those Calcs and, for each scan in plan order, the fields it passes up:
// the topmost folded Calc's selection where there was one, else the
// scan's fields.
func projectedScans(plan string) (string, []string) {
	lines := strings.Split(plan, "\n")
	for folded := true; folded; {
		folded = false
		var out []string
		for i := 0; i < len(lines); i++ {
			if c := projectionCalcRe.FindStringSubmatch(lines[i]); c != nil && i+1 < len(lines) {
				if next := nodeRe.FindStringSubmatch(lines[i+1]); next != nil && strings.HasSuffix(next[2], "Scan") && len(next[1]) > len(c[1]) {
					scan := lines[i+1][len(next[1]):]
					if scanFieldsRe.MatchString(scan) {
						scan = scanFieldsRe.ReplaceAllLiteralString(scan, "fields=["+c[2]+"]")
					} else {
						scan = strings.TrimSuffix(scan, ")") + ", fields=[" + c[2] + "])"
					}
					out = append(out, c[1]+scan)
					folded = true
					i++
					continue
				}
			}
			out = append(out, lines[i])
		}
		lines = out
	}
	var fields []string
	for _, l := range lines {
		if m := nodeRe.FindStringSubmatch(l); m != nil && strings.HasSuffix(m[2], "Scan") {
			f := ""
			if fm := scanFieldsRe.FindStringSubmatch(l); fm != nil {
				f = fm[1]
			}
			fields = append(fields, f)
		}
	}
	return strings.Join(lines, "\n"), fields
}

// dropDataStreamWatermark undoes the spelling of a Scala DataStream's time
// attributes (no plan node of their own in Flink) as DDL: it removes a
// WatermarkAssigner (WATERMARK FOR rowtime AS rowtime) over a chain of
// Calcs ending at the scan (ProjectWatermarkAssignerTransposeRule leaves
// the projections below it), and prints the Calc right above the scan
// reading proctime instead of computing it (proctime AS PROCTIME()); the
// scan line then differs as for any Java-only source.
func dropDataStreamWatermark(plan string) string {
	lines := strings.Split(plan, "\n")
	for i := 0; i+1 < len(lines); i++ {
		m := nodeRe.FindStringSubmatch(lines[i])
		if m == nil || m[2] != "WatermarkAssigner" {
			continue
		}
		// The chain below: Calcs (one input each, so each is the line
		// after its parent), then the scan.
		j := i + 1
		for ; j < len(lines); j++ {
			next := nodeRe.FindStringSubmatch(lines[j])
			if next == nil || next[2] != "Calc" {
				break
			}
		}
		if next := nodeRe.FindStringSubmatch(lines[min(j, len(lines)-1)]); j == len(lines) || next == nil || !strings.HasSuffix(next[2], "Scan") {
			continue
		}
		// Each line of the chain moves up one level: the three
		// characters of indentation the assigner added go.
		at := max(len(m[1])-3, 0)
		for k := i + 1; k <= j; k++ {
			lines[k] = lines[k][:at] + lines[k][at+3:]
		}
		lines = append(lines[:i], lines[i+1:]...)
	}
	// Its proctime attribute, spelled as a PROCTIME() computed column, is
	// computed by the Calc right above the scan.
	for i := 0; i+1 < len(lines); i++ {
		m, next := nodeRe.FindStringSubmatch(lines[i]), nodeRe.FindStringSubmatch(lines[i+1])
		if m != nil && next != nil && m[2] == "Calc" && strings.HasSuffix(next[2], "Scan") {
			// A Calc that also materializes it for its consumer (an
			// interval join's input) reads it the same way.
			lines[i] = strings.ReplaceAll(lines[i], "PROCTIME_MATERIALIZE(PROCTIME()) AS proctime", "PROCTIME_MATERIALIZE(proctime) AS proctime")
			lines[i] = strings.ReplaceAll(lines[i], "PROCTIME() AS proctime", "proctime")
		}
	}
	return strings.Join(lines, "\n")
}

// javaRuntimeExceptions are the exception classes sqlrun raises whose Java
// counterparts extend java.lang.RuntimeException (Flink's ValidationException,
// TableException and SqlParserException, CatalogException, and the
// java.lang ones); SqlValidatorException, IOException and AssertionError do not.
var javaRuntimeExceptions = map[sql.ExceptionClass]bool{
	sql.ValidationException:      true,
	sql.TableException:           true,
	sql.SqlParserException:       true,
	sql.CatalogException:         true,
	sql.IllegalStateException:    true,
	sql.IllegalArgumentException: true,
	sql.UnsupportedOperation:     true,
}

// isJavaSubclass reports whether want names only an exception class that
// class is an instance of in Java: Flink's tests that expect a class alone
// (assertThatExceptionOfType(classOf[RuntimeException])) accept its
// subclasses, as AssertJ's isInstanceOf does.
func isJavaSubclass(class sql.ExceptionClass, want string) bool {
	return want == "RuntimeException" && javaRuntimeExceptions[class]
}

// judgeLogical plans a case of a logical rule suite: Flink's test replaces
// the optimizer's programs with the rule's own (converters and the rule)
// and prints the logical tree it leaves; sqlrun runs only the rules the
// case's program names, in its order (plan.TraceProgram), and prints the
// tree they leave. Where the texts differ but every scan
// carries what Flink's rule pushed into it (the table=[[...]] digest:
// project, filter, limit, partitions, watermark), the verdict is
// same-scan: the rule did the same; only the nodes around it are printed
// as the two programs leave them (Flink's converters do not merge Calcs,
// or a test converts nothing and prints Calcite's LogicalProject, where
// sqlrun's CalcMerge made one FlinkLogicalCalc).
func (c *flinkCase) judgeLogical(env *testEnv) (verdict, string) {
	stmt, err := parser.Parse(c.sql)
	if err != nil {
		return verdictError, firstLine(err)
	}
	var program []string
	for _, n := range strings.Split(c.program, ",") {
		program = append(program, strings.TrimSpace(n))
	}
	got, err := plan.TraceProgram(plan.New(env), stmt, program)
	if err != nil {
		return verdictError, firstLine(err)
	}
	got = strings.TrimSpace(got)
	if os.Getenv("FLINKSUITE_CASE") == c.name {
		fmt.Fprintf(os.Stderr, "=== %s\n--- got\n%s\n--- want\n%s\n", c.name, got, c.want)
	}
	if got == c.want {
		return verdictExact, ""
	}
	if c.version != "" {
		return verdictVersion, c.version + "; " + firstDiff(got, c.want)
	}
	gs, ws := scanTables(got), scanTables(c.want)
	if len(gs) > 0 && strings.Join(gs, "\n") == strings.Join(ws, "\n") {
		return verdictSameScan, firstDiff(got, c.want)
	}
	if len(gs) == len(ws) {
		// Name the scan that differs: it is what the rule decides.
		for i := range gs {
			if gs[i] != ws[i] {
				return verdictDiffers, fmt.Sprintf("scan %d: got %q, Flink %q", i+1, clip(gs[i]), clip(ws[i]))
			}
		}
	}
	return verdictDiffers, firstDiff(got, c.want)
}

var scanTableRe = regexp.MustCompile(`(?:TableScan|TableSourceScan)\(table=\[\[([^\n]*?)\]\](?:, |\))`)

// scanTables returns the table=[[...]] digest of each scan of a logical
// plan in order (Calcite's LogicalTableScan, FlinkLogicalTableSourceScan):
// the table's path and the specs the push-down rules put into it.
func scanTables(plan string) []string {
	var out []string
	for _, m := range scanTableRe.FindAllStringSubmatch(plan, -1) {
		out = append(out, m[1])
	}
	return out
}
