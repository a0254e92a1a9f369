package gen

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/systable"
	"github.com/sqlrun/sqlrun/exec"
)

// handWritten are the pages written by hand; the facts they name are
// checked against the code below so that they stay true as it changes.
var handWritten = []string{"../sql.md", "../guarantees.md", "../oncall.md", "../differences.md", "../performance.md"}

// notOptions are dotted words in backquotes that are not option keys:
// file names, procedures (sys.*), metadata keys, and Flink options named because sqlrun
// does NOT accept them.
var notOptions = map[string]bool{
	"sink.rolling-policy.rollover-interval": true,
	"sink.rolling-policy.check-interval":    true,
	// Flink's switch for unaligned splits, named to say sqlrun behaves as
	// with it true (differences.md, watermark alignment).
	"pipeline.watermark-alignment.allow-unaligned-source-splits": true,
	// The filesystem source's metadata keys (METADATA FROM 'file.path').
	"file.path": true, "file.name": true, "file.size": true, "file.modification-time": true,
}

var dottedKey = regexp.MustCompile("`([a-z][a-z0-9-]*(?:\\.[a-z0-9-]+)+)`")

// TestDocsNameRealOptions fails when a hand-written page names an option
// key (a dotted word in backquotes) that no connector and no SET key
// declares: a renamed or removed option, or a typo a reader would copy.
func TestDocsNameRealOptions(t *testing.T) {
	known := map[string]bool{}
	var prefixes []string
	add := func(opts []connectors.Option) {
		for _, o := range opts {
			if o.Prefix {
				prefixes = append(prefixes, o.Key)
			}
			known[o.Key] = true
			for _, fb := range o.FallbackKeys {
				known[fb] = true
			}
		}
	}
	add(exec.ConfigOptions)
	for _, id := range connectors.Identifiers() {
		f, err := connectors.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		add(f.Options())
	}
	for _, page := range handWritten {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		var bad []string
		for _, m := range dottedKey.FindAllStringSubmatch(string(text), -1) {
			k := m[1]
			if known[k] || notOptions[k] || strings.HasPrefix(k, "sys.") || strings.HasPrefix(k, "sqlrun.") || strings.HasSuffix(k, ".sql") || strings.HasSuffix(k, ".md") ||
				strings.HasSuffix(k, ".json") || hasPrefix(k, prefixes) {
				continue
			}
			bad = append(bad, k)
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			t.Errorf("%s names option keys nothing declares: %s", page, strings.Join(bad, ", "))
		}
	}
}

func hasPrefix(k string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

var metricName = regexp.MustCompile("`((?:flink|sqlrun)_[a-zA-Z_]+)`")

// TestOncallMetricsExist fails when the on-call page names a Prometheus
// metric that neither the runtime nor a connector reporting its own
// metrics exports (checked against their sources, where every family name
// is a literal).
func TestOncallMetricsExist(t *testing.T) {
	page, err := os.ReadFile("../oncall.md")
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range []string{"../../exec/runtime/metrics.go", "../../connectors/jdbc/metrics.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	names := metricName.FindAllStringSubmatch(string(page), -1)
	if len(names) < 5 {
		t.Fatalf("found only %d metric names in oncall.md", len(names))
	}
	for _, m := range names {
		if !strings.Contains(string(src), `"`+m[1]+`"`) {
			t.Errorf("oncall.md names metric %s, which neither exec/runtime/metrics.go nor connectors/jdbc/metrics.go exports", m[1])
		}
	}
}

// sysTable matches $name; a digit after it (w0$o0, Flink's generated
// field names of an OverAggregate) makes it no table.
var sysTable = regexp.MustCompile(`\$([a-z_]+)([0-9]?)`)

// TestDocsSystemTablesExist fails when a page presents a Paimon system
// table ($name) that sqlrun does not have, except in a "not yet" list.
func TestDocsSystemTablesExist(t *testing.T) {
	have := map[string]bool{}
	for _, n := range systable.Names() {
		have[n] = true
	}
	for _, page := range append(handWritten, "notes/paimon.md") {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(text), "\n") {
			if strings.Contains(line, "no `$") || strings.Contains(line, "Not yet") || strings.Contains(line, "(no ") {
				continue
			}
			for _, ix := range sysTable.FindAllStringSubmatchIndex(line, -1) {
				m := []string{line[ix[0]:ix[1]], line[ix[2]:ix[3]], line[ix[4]:ix[5]]}
				if groupWindowProperty(line[:ix[0]], m[1]) {
					continue
				}
				if m[2] == "" && !have[m[1]] && !strings.HasPrefix(m[1], "xdg") && m[1] != "t" {
					t.Errorf("%s presents system table $%s, which sqlrun does not have: %q", page, m[1], line)
				}
			}
		}
	}
}

// groupWindowProperty reports Flink's group window properties as EXPLAIN
// prints them (w$start, w$end, w$rowtime, w$proctime), which are no
// system tables.
func groupWindowProperty(before, name string) bool {
	switch name {
	case "start", "end", "rowtime", "proctime":
		return strings.HasSuffix(before, "w")
	}
	return false
}

// TestSqlrunOnlyOptionsMarked: an option's description says "sqlrun only"
// exactly when the option is declared SqlrunOnly, the flag `sqlrun check`
// reports from; docs/connectors.md prints the descriptions, so the page
// and the check agree.
func TestSqlrunOnlyOptionsMarked(t *testing.T) {
	for _, id := range connectors.Identifiers() {
		f, err := connectors.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range f.Options() {
			if said := strings.HasPrefix(o.Description, "sqlrun only"); said != o.SqlrunOnly {
				t.Errorf("%s option %s: SqlrunOnly=%v but its description starts %q", id, o.Key, o.SqlrunOnly, o.Description[:min(len(o.Description), 30)])
			}
		}
	}
}
