package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDocSnippets runs every ```sql block of README.md, docs/*.md and
// examples/*.md as written, through `sqlrun -f`, and fails when one errors
// or does not print what its text says it prints.
//
// The rules a page follows (they are the ones a reader follows):
//   - The blocks of one page run in order, in one session: a block may use
//     the tables an earlier block of the same page created.
//   - HTML comments right above a block's fence (invisible when the page is
//     rendered) say what the test needs to know:
//     <!-- snippet: setup examples/quickstart.sql -->  runs that script in
//     a process of its own (the page's text says to run it first) before
//     the page's blocks; with "ddl" after the file name, the statements
//     before its first INSERT (the tables the page talks about, without
//     starting the job) open the page's own session;
//     <!-- snippet: expect "text" -->  the run's output must contain text.
//   - Two rewrites, both of the machine and not of the SQL: absolute paths
//     under /tmp/ land in the test's temp dir, and the working directory is a
//     copy of the repository's examples/ parent (so ./examples/... resolves).
//
// A block that only sketches syntax (placeholders a reader must fill in)
// belongs in a ```text block, which this test does not run.
func TestDocSnippets(t *testing.T) {
	needPaimon(t)
	pages, err := docPages()
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no Markdown page with a sql block found: the test would check nothing")
	}
	for _, p := range pages {
		t.Run(strings.ReplaceAll(p.path, "/", "_"), func(t *testing.T) {
			runDocPage(t, p)
		})
	}
}

// docPage is one Markdown file's runnable blocks.
type docPage struct {
	path   string // relative to the repository root
	setup  []string
	blocks []docBlock
}

type docBlock struct {
	line   int // 1-based line of the opening fence
	sql    string
	expect []string
}

var directiveRE = regexp.MustCompile(`^<!--\s*snippet:\s*(\w+)\s*(.*?)\s*-->$`)

// docPages finds the Markdown pages holding sql blocks.
func docPages() ([]docPage, error) {
	var files []string
	for _, pat := range []string{"../README.md", "../docs/*.md", "../examples/*.md"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	var pages []docPage
	for _, f := range files {
		p, err := parseDocPage(f)
		if err != nil {
			return nil, err
		}
		if len(p.blocks) > 0 {
			pages = append(pages, p)
		}
	}
	return pages, nil
}

func parseDocPage(file string) (docPage, error) {
	rel := strings.TrimPrefix(file, "../")
	page := docPage{path: rel}
	f, err := os.Open(file)
	if err != nil {
		return page, err
	}
	defer f.Close()
	var (
		pending []string // directives seen right above the next fence
		cur     *docBlock
		body    strings.Builder
		inOther bool // inside a fence of another language
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil:
			if trimmed == "```" {
				cur.sql = body.String()
				page.blocks = append(page.blocks, *cur)
				cur = nil
				body.Reset()
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
		case inOther:
			if trimmed == "```" {
				inOther = false
			}
		case trimmed == "```sql":
			cur = &docBlock{line: n}
			for _, d := range pending {
				m := directiveRE.FindStringSubmatch(d)
				switch m[1] {
				case "setup":
					page.setup = append(page.setup, m[2])
				case "expect":
					s, err := strconv.Unquote(m[2])
					if err != nil {
						return page, fmt.Errorf("%s:%d: snippet expect wants a quoted string: %s", rel, n, d)
					}
					cur.expect = append(cur.expect, s)
				default:
					return page, fmt.Errorf("%s:%d: unknown snippet directive %q", rel, n, m[1])
				}
			}
			pending = nil
		case strings.HasPrefix(trimmed, "```"):
			inOther = true
			pending = nil
		case directiveRE.MatchString(trimmed):
			pending = append(pending, trimmed)
		case trimmed == "":
			// Directives may be separated from the fence by blank lines.
		default:
			pending = nil
		}
	}
	if cur != nil {
		return page, fmt.Errorf("%s:%d: unterminated sql block", rel, cur.line)
	}
	return page, sc.Err()
}

// runDocPage runs a page's setup scripts and blocks as one script and checks
// the expectations.
func runDocPage(t *testing.T, p docPage) {
	e := newEnv(t)
	e.copyExamples()
	tmp := filepath.Join(e.Dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite := func(s string) string { return strings.ReplaceAll(s, "/tmp/", tmp+"/") }

	// The script, with a map from its lines back to the page's.
	var script strings.Builder
	var origin []string // origin[i] = where script line i+1 came from
	add := func(text, from string, firstLine int) {
		for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			script.WriteString(l)
			script.WriteByte('\n')
			if firstLine > 0 {
				origin = append(origin, fmt.Sprintf("%s:%d", from, firstLine+i))
			} else {
				origin = append(origin, from)
			}
		}
	}
	for _, s := range p.setup {
		file, ddlOnly := strings.CutSuffix(s, " ddl")
		if !ddlOnly {
			// A script the page says to run first: its own process, as a
			// reader would run it.
			r := e.run(3*time.Minute, "-f", filepath.Join(e.Dir, file))
			if r.code != 0 {
				t.Fatalf("%s: setup %s: exit %d\n%s", p.path, file, r.code, r.all())
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatalf("%s: setup %s: %v", p.path, file, err)
		}
		text := string(b)
		i := strings.Index(text, "\nINSERT INTO")
		if i < 0 {
			t.Fatalf("%s: setup %s: no INSERT to stop before", p.path, s)
		}
		add(rewrite(text[:i+1]), file, 1)
	}
	var expect []string
	for _, b := range p.blocks {
		add(rewrite(b.sql), p.path, b.line+1)
		expect = append(expect, b.expect...)
	}
	r := e.runScript("page.sql", script.String(), 3*time.Minute)
	if r.code != 0 {
		t.Fatalf("%s: exit %d at %s\n%s", p.path, r.code, failedAt(r.stderr, origin), r.all())
	}
	if testing.Verbose() {
		t.Logf("%s:\n%s", p.path, r.stdout)
	}
	for _, want := range expect {
		if !strings.Contains(r.stdout, rewrite(want)) {
			t.Errorf("%s: output lacks %q (the page says it prints it)\n%s", p.path, want, r.stdout)
		}
	}
}

var failedLineRE = regexp.MustCompile(`page\.sql:(\d+): statement failed`)

// failedAt names the page line of the statement sqlrun says failed.
func failedAt(stderr string, origin []string) string {
	m := failedLineRE.FindStringSubmatch(stderr)
	if m == nil {
		return "(no failing statement named)"
	}
	i, _ := strconv.Atoi(m[1])
	if i < 1 || i > len(origin) {
		return "script line " + m[1]
	}
	return origin[i-1]
}
