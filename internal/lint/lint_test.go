// Package lint holds the repository's lint test, in the style of pebble's
// internal/lint: one Go test that runs gofmt, go vet, staticcheck and
// deadcode over the module, checks that `go mod tidy` leaves no diff and
// that no tracked file holds a merge-conflict marker, and
// checks the import rules of docs/architecture.md, kept below as a table.
// `make test` runs it with every other test; `make lint` runs only it.
//
// The external tools are pinned here and run with `go run pkg@version`, so
// go.mod does not depend on them; the first run downloads them through the
// module proxy, later runs build from the module and build caches. A tool
// that cannot be built (no network and nothing cached) skips its subtest and
// says why.
package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/sqlrun/sqlrun"

// The pinned tool versions.
const (
	staticcheckPkg = "honnef.co/go/tools/cmd/staticcheck@v0.7.0" // staticcheck 2026.1
	deadcodePkg    = "golang.org/x/tools/cmd/deadcode@v0.52.0"
)

// accepted is a staticcheck finding that stays, with its reason: a file or
// directory (module-relative prefix), the check, and a piece of the message. Whole checks that
// do not fit sqlrun are off in staticcheck.conf instead.
var accepted = []struct {
	file, check, msg string
	why              string
}{
	// Parquet's PLAIN_DICTIONARY encoding is deprecated for writers, but files
	// written by parquet-mr 1.x and Paimon's older writers use it and readers
	// must accept it (Parquet's Encodings.md).
	{"connectors/paimon/format/", "SA1019", "PlainDictionary", "reading old files"},
	// Files with nested columns are written by parquet-go's Writer; moving to
	// its GenericWriter is Paimon format work.
	{"connectors/paimon/format/writer.go", "SA1019", "parquet.Writer", "nested files"},
}

// rule says which of our packages a package may import (its non-test
// imports; tests may reach higher). Patterns are module-relative; "x/..."
// matches x and everything under it. The first rule whose pattern matches a
// package applies, so specific rules come before general ones. Every package
// of the module must match a rule: a new package gets a line here (and one in
// docs/architecture.md).
type rule struct {
	pkg   string
	allow []string
}

var rules = []rule{
	// The shared vocabulary and its parser: sql imports nothing of ours.
	{"sql", nil},
	{"sql/ast", []string{"sql"}},
	{"sql/parser", []string{"sql", "sql/ast"}},
	{"internal/box", nil},
	{"internal/fnv1a", nil},
	{"internal/gctune", nil},
	{"internal/procstat", nil},
	{"internal/lint", nil},
	{"internal/testutil/...", []string{"sql", "internal/testutil/..."}},

	// Connectors: the SPI, and each connector its own subtree. The Paimon
	// warehouse is also a catalog (catalog.Catalog); Paimon's CDC action
	// (paimon/cdc) reads MySQL through mysql-cdc and creates tables through
	// the warehouse; connectors/all links every connector into a binary.
	{"connectors", []string{"sql", "internal/box"}},
	{"connectors/all", []string{"connectors/..."}},
	{"connectors/paimon/warehouse", []string{"sql", "internal/box", "connectors", "connectors/paimon/...", "catalog"}},
	{"connectors/paimon/cdc", []string{"sql", "internal/box", "connectors", "connectors/paimon/...", "catalog", "connectors/mysqlcdc"}},
	{"connectors/paimon/...", []string{"sql", "internal/box", "connectors", "connectors/paimon/..."}},
	{"connectors/jdbc/...", []string{"sql", "internal/box", "connectors", "connectors/jdbc/..."}},
	// print, datagen, blackhole, filesystem, values; a type named in an
	// option ('readable-metadata' = 'k:BIGINT') is read by sql/parser's type
	// grammar, as Flink's connectors read one with LogicalTypeParser.
	{"connectors/*", []string{"sql", "sql/parser", "internal/box", "internal/fnv1a", "connectors"}},

	// Scalar expressions (types, printing, evaluation), below the planner
	// and the job compiler: never the parser's AST.
	{"expr", []string{"sql"}},

	// The session's option spec, the catalog and the planner.
	{"config", []string{"sql", "connectors"}},
	{"catalog", []string{"sql", "sql/ast", "connectors"}},
	{"plan/...", []string{"sql", "sql/ast", "internal/box", "config", "catalog", "connectors", "expr", "plan/..."}},

	// The runtime and the session: plan and below.
	{"exec/runtime/...", []string{"sql", "internal/box", "internal/fnv1a", "config", "connectors", "exec/runtime/..."}},
	{"exec/compile", []string{"sql", "sql/ast", "internal/box", "internal/fnv1a", "config", "catalog", "connectors", "expr", "plan/...", "exec/runtime/..."}},
	{"exec/gateway", nil}, // Flink's SQL Gateway REST API: the protocol only
	{"exec", []string{"sql", "sql/ast", "sql/parser", "internal/box", "config", "catalog", "connectors", "expr", "plan/...", "exec/..."}},

	// The binary: exec's API and its vocabulary (sql), connectors/all to
	// link the connectors, and its collector policy (internal/gctune).
	{"cmd/...", []string{"sql", "exec", "connectors/all", "internal/gctune"}},

	// Whole-program tests and tools: anything.
	{"docs/gen", []string{"..."}},
	{"e2e", []string{"..."}},
	{"badinput", []string{"..."}},
	{"bench/...", []string{"..."}},
	{"soak", []string{"..."}},
}

// exception is an import that breaks a rule today and is known: each names
// the work that removes it (issue 21 item 1, one connector boundary). The
// test reports every exception still present and logs one that is gone (to
// be removed from the list); a new violation fails.
type exception struct {
	from, to string
	why      string
}

var exceptions = []exception{}

// foreignRules: a package outside the module that only the listed packages
// may import.
var foreignRules = []struct {
	path  string
	allow []string
	why   string
}{
	{"github.com/pingcap/tidb/pkg/parser/...", []string{"sql/parser"}, "sql/parser is the only importer of the TiDB parser"},
}

// match reports whether a module-relative package path matches pattern.
func match(pattern, pkg string) bool {
	switch {
	case pattern == "...":
		return true
	case strings.HasSuffix(pattern, "/..."):
		p := strings.TrimSuffix(pattern, "/...")
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	case strings.HasSuffix(pattern, "/*"):
		p := strings.TrimSuffix(pattern, "*")
		return strings.HasPrefix(pkg, p) && !strings.Contains(pkg[len(p):], "/")
	}
	return pattern == pkg
}

func TestLint(t *testing.T) {
	root := moduleRoot(t)

	t.Run("gofmt", func(t *testing.T) {
		t.Parallel()
		var files []string
		for _, p := range listPackages(t, root) {
			for _, set := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles, p.IgnoredGoFiles} {
				for _, f := range set {
					files = append(files, filepath.Join(p.Dir, f))
				}
			}
		}
		out := run(t, root, "gofmt", append([]string{"-l"}, files...)...)
		for _, l := range lines(out) {
			t.Errorf("not gofmt'd: %s", rel(root, l))
		}
	})

	// A rebase that took a file with its conflict unresolved commits the
	// markers; in a Markdown page or a golden nothing else notices.
	t.Run("conflict-markers", func(t *testing.T) {
		t.Parallel()
		out := run(t, root, "git", "grep", "-n", "-I", "-E", "^(<<<<<<< |>>>>>>> )", "--", ".")
		if strings.HasPrefix(out, "fatal:") {
			t.Skipf("not a git checkout: %s", strings.TrimSpace(out))
		}
		for _, l := range lines(out) {
			t.Errorf("merge-conflict marker: %s", l)
		}
	})

	t.Run("vet", func(t *testing.T) {
		t.Parallel()
		out := run(t, root, "go", "vet", "./...")
		for _, l := range lines(out) {
			if !strings.HasPrefix(l, "#") {
				t.Error(l)
			}
		}
	})

	t.Run("staticcheck", func(t *testing.T) {
		t.Parallel()
		if testing.Short() {
			t.Skip("-short: staticcheck takes minutes")
		}
		bin := buildTool(t, staticcheckPkg)
		out := run(t, root, bin, "./...")
	findings:
		for _, l := range lines(out) {
			for _, a := range accepted {
				if strings.HasPrefix(l, a.file) && strings.HasSuffix(l, "("+a.check+")") && strings.Contains(l, a.msg) {
					t.Logf("accepted: %s — %s", l, a.why)
					continue findings
				}
			}
			t.Error(l)
		}
	})

	t.Run("deadcode", func(t *testing.T) {
		t.Parallel()
		if testing.Short() {
			t.Skip("-short: deadcode takes minutes")
		}
		bin := buildTool(t, deadcodePkg)
		release := machineLock(t, "deadcode")
		out := run(t, root, bin, "-test", "./...")
		release()
		for _, l := range lines(out) {
			t.Errorf("%s (delete it, or reach it from the code that needs it)", l)
		}
	})

	t.Run("go-mod-tidy", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("go", "mod", "tidy", "-diff")
		cmd.Dir = root
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		switch {
		case err == nil:
		case stdout.Len() > 0:
			t.Errorf("go mod tidy would change go.mod/go.sum; run it:\n%s", stdout.String())
		default:
			t.Skipf("cannot run go mod tidy -diff (offline?): %v\n%s", err, stderr.String())
		}
	})

	t.Run("imports", func(t *testing.T) {
		t.Parallel()
		checkImports(t, listPackages(t, root))
	})
}

type goPackage struct {
	Dir            string
	ImportPath     string
	Imports        []string
	GoFiles        []string
	CgoFiles       []string
	TestGoFiles    []string
	XTestGoFiles   []string
	IgnoredGoFiles []string
}

var (
	listOnce sync.Once
	listed   []goPackage
	listErr  error
)

// listPackages is `go list -json ./...`, run once per test binary.
func listPackages(t *testing.T, root string) []goPackage {
	t.Helper()
	listOnce.Do(func() {
		cmd := exec.Command("go", "list", "-e", "-json", "./...")
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			listErr = fmt.Errorf("go list: %v\n%s", err, stderr.String())
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p goPackage
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				listErr = fmt.Errorf("go list output: %v", err)
				return
			}
			listed = append(listed, p)
		}
	})
	if listErr != nil {
		t.Fatal(listErr)
	}
	return listed
}

// ours returns the module-relative path of an import path of this module.
func ours(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest, true
	}
	return "", false
}

func checkImports(t *testing.T, pkgs []goPackage) {
	type edge struct{ from, to string }
	known := map[edge]string{}
	for _, e := range exceptions {
		known[edge{e.from, e.to}] = e.why
	}
	seen := map[edge]bool{}
	for _, p := range pkgs {
		from, ok := ours(p.ImportPath)
		if !ok {
			continue
		}
		r := findRule(from)
		if r == nil {
			t.Errorf("%s: no import rule; add one to the table in internal/lint/lint_test.go and to docs/architecture.md", from)
			continue
		}
		allow := r.allow
		for _, imp := range p.Imports {
			for _, fr := range foreignRules {
				if match(fr.path, imp) && !matchAny(fr.allow, from) {
					t.Errorf("%s imports %s: %s", from, imp, fr.why)
				}
			}
			to, ok := ours(imp)
			if !ok || matchAny(allow, to) {
				continue
			}
			e := edge{from, to}
			if why, ok := known[e]; ok {
				seen[e] = true
				t.Logf("known exception: %s imports %s — %s", from, to, why)
				continue
			}
			t.Errorf("%s imports %s: not allowed by the rule for %s (allowed: %s)", from, to, r.pkg, strings.Join(allow, ", "))
		}
	}
	var stale []string
	for _, e := range exceptions {
		if !seen[edge{e.from, e.to}] {
			stale = append(stale, e.from+" -> "+e.to)
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		// An exception that no longer occurs goes from the table in the
		// same commit that removed the import, so the table stays the list
		// of what issue 21.1 still has to do.
		t.Errorf("exception %s no longer occurs: remove it from the table", s)
	}
}

func findRule(pkg string) *rule {
	for i := range rules {
		if match(rules[i].pkg, pkg) {
			return &rules[i]
		}
	}
	return nil
}

func matchAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"sql", "sql", true},
		{"sql", "sql/ast", false},
		{"exec/...", "exec", true},
		{"exec/...", "exec/runtime/state", true},
		{"exec/...", "execx", false},
		{"connectors/*", "connectors/print", true},
		{"connectors/*", "connectors/jdbc/dialect", false},
		{"connectors/*", "connectors", false},
		{"...", "anything/at/all", true},
	} {
		if got := match(c.pattern, c.pkg); got != c.want {
			t.Errorf("match(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

var toolMu sync.Mutex

// buildTool installs pkg@version once into the user's cache directory
// (sqlrun-lint/<name>@<version>/) and returns the binary's path; later runs
// reuse it. It skips the test when the tool cannot be built, e.g. offline
// with nothing in the module cache.
func buildTool(t *testing.T, pkgAtVersion string) string {
	t.Helper()
	toolMu.Lock()
	defer toolMu.Unlock()
	base := pkgAtVersion[strings.LastIndex(pkgAtVersion, "/")+1:] // name@version
	name := base[:strings.Index(base, "@")]
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "sqlrun-lint", base)
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	cmd := exec.Command("go", "install", pkgAtVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build %s (offline and not in the module cache?): %v\n%s", pkgAtVersion, err, out)
	}
	return bin
}

// run runs a command in dir and returns its combined output; a non-zero exit
// is expected (findings), a failure to start is fatal.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out)
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
