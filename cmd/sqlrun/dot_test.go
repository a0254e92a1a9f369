package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// dotGraph is what checkDOT read from a document: one digraph's clusters,
// nodes and edges with their attributes.
type dotGraph struct {
	clusters []string                     // cluster names, in order
	nodes    map[string]map[string]string // node id → attributes
	cluster  map[string]string            // node id → its cluster
	edges    []dotEdge
}

type dotEdge struct {
	from, to string
	attrs    map[string]string
}

// parseDOT parses s with the DOT language's grammar (graphviz.org/doc/
// info/lang.html): exactly one graph, statements separated by optional
// ';', node, edge, attribute and subgraph statements, IDs as names,
// numerals or double-quoted strings. It fails on anything else, including
// text after the graph.
func parseDOT(s string) (*dotGraph, error) {
	toks, err := lexDOT(s)
	if err != nil {
		return nil, err
	}
	p := &dotParser{toks: toks, g: &dotGraph{nodes: map[string]map[string]string{}, cluster: map[string]string{}}}
	if err := p.graph(); err != nil {
		return nil, err
	}
	return p.g, nil
}

type dotTok struct {
	kind byte // 'i' ID, 'p' punctuation, 'e' edge op
	text string
}

func lexDOT(s string) ([]dotTok, error) {
	var out []dotTok
	rs := []rune(s)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '/' && i+1 < len(rs) && rs[i+1] == '/', c == '#':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(rs) && rs[i+1] == '*':
			j := strings.Index(string(rs[i+2:]), "*/")
			if j < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += 2 + len([]rune(string(rs[i+2:])[:j])) + 2
		case strings.ContainsRune("{}[]=;,:", c):
			out = append(out, dotTok{'p', string(c)})
			i++
		case c == '-' && i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '-'):
			out = append(out, dotTok{'e', string(rs[i : i+2])})
			i += 2
		case c == '"':
			var b strings.Builder
			i++
			for {
				if i >= len(rs) {
					return nil, fmt.Errorf("unterminated string")
				}
				if rs[i] == '\\' && i+1 < len(rs) && rs[i+1] == '"' {
					b.WriteRune('"')
					i += 2
					continue
				}
				if rs[i] == '"' {
					i++
					break
				}
				b.WriteRune(rs[i])
				i++
			}
			out = append(out, dotTok{'i', b.String()})
		case c == '_' || unicode.IsLetter(c):
			j := i
			for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			out = append(out, dotTok{'i', string(rs[i:j])})
			i = j
		case c == '.' || c == '-' || unicode.IsDigit(c):
			j := i + 1
			for j < len(rs) && (rs[j] == '.' || unicode.IsDigit(rs[j])) {
				j++
			}
			if _, err := strconv.ParseFloat(string(rs[i:j]), 64); err != nil {
				return nil, fmt.Errorf("bad numeral %q", string(rs[i:j]))
			}
			out = append(out, dotTok{'i', string(rs[i:j])})
			i = j
		default:
			return nil, fmt.Errorf("unexpected character %q at %d", c, i)
		}
	}
	return out, nil
}

type dotParser struct {
	toks    []dotTok
	pos     int
	g       *dotGraph
	current string // the cluster being read
}

func (p *dotParser) peek() dotTok {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return dotTok{}
}

func (p *dotParser) punct(s string) bool {
	if t := p.peek(); t.kind == 'p' && t.text == s {
		p.pos++
		return true
	}
	return false
}

func (p *dotParser) keyword(s string) bool {
	if t := p.peek(); t.kind == 'i' && strings.EqualFold(t.text, s) {
		p.pos++
		return true
	}
	return false
}

func (p *dotParser) id() (string, error) {
	t := p.peek()
	if t.kind != 'i' {
		return "", fmt.Errorf("token %d: want an ID, got %q", p.pos, t.text)
	}
	p.pos++
	return t.text, nil
}

func (p *dotParser) graph() error {
	p.keyword("strict")
	if !p.keyword("digraph") {
		return fmt.Errorf("the document does not start with digraph")
	}
	if t := p.peek(); t.kind == 'i' {
		p.pos++
	}
	if !p.punct("{") {
		return fmt.Errorf("want { after digraph")
	}
	if err := p.stmts(); err != nil {
		return err
	}
	if !p.punct("}") {
		return fmt.Errorf("token %d: want } closing the graph, got %q", p.pos, p.peek().text)
	}
	if p.pos != len(p.toks) {
		return fmt.Errorf("text after the graph (token %d of %d: %q)", p.pos, len(p.toks), p.peek().text)
	}
	return nil
}

func (p *dotParser) stmts() error {
	for {
		if t := p.peek(); t.kind == 0 || (t.kind == 'p' && t.text == "}") {
			return nil
		}
		if err := p.stmt(); err != nil {
			return err
		}
		p.punct(";")
	}
}

func (p *dotParser) attrList() (map[string]string, error) {
	attrs := map[string]string{}
	for p.punct("[") {
		for !p.punct("]") {
			k, err := p.id()
			if err != nil {
				return nil, err
			}
			if !p.punct("=") {
				return nil, fmt.Errorf("attribute %s without =", k)
			}
			v, err := p.id()
			if err != nil {
				return nil, err
			}
			attrs[k] = v
			if !p.punct(",") {
				p.punct(";")
			}
		}
	}
	return attrs, nil
}

func (p *dotParser) stmt() error {
	switch {
	case p.keyword("graph"), p.keyword("node"), p.keyword("edge"):
		_, err := p.attrList()
		return err
	case p.keyword("subgraph"):
		name, err := p.id()
		if err != nil {
			return err
		}
		if !p.punct("{") {
			return fmt.Errorf("subgraph %s without {", name)
		}
		if strings.HasPrefix(name, "cluster") {
			p.g.clusters = append(p.g.clusters, name)
		}
		outer := p.current
		p.current = name
		if err := p.stmts(); err != nil {
			return err
		}
		p.current = outer
		if !p.punct("}") {
			return fmt.Errorf("subgraph %s not closed", name)
		}
		return nil
	}
	a, err := p.id()
	if err != nil {
		return err
	}
	if p.punct("=") { // ID '=' ID
		_, err := p.id()
		return err
	}
	ids := []string{a}
	for p.peek().kind == 'e' {
		if p.peek().text != "->" {
			return fmt.Errorf("undirected edge in a digraph")
		}
		p.pos++
		b, err := p.id()
		if err != nil {
			return err
		}
		ids = append(ids, b)
	}
	attrs, err := p.attrList()
	if err != nil {
		return err
	}
	if len(ids) == 1 {
		if p.g.nodes[a] == nil {
			p.g.nodes[a] = map[string]string{}
		}
		for k, v := range attrs {
			p.g.nodes[a][k] = v
		}
		p.g.cluster[a] = p.current
		return nil
	}
	for i := 0; i+1 < len(ids); i++ {
		p.g.edges = append(p.g.edges, dotEdge{from: ids[i], to: ids[i+1], attrs: attrs})
	}
	return nil
}

func TestParseDOTRejects(t *testing.T) {
	for _, bad := range []string{
		"digraph a {}\ndigraph b {}\n",
		"digraph a { x -> }",
		"digraph a { x [label=\"unterminated] }",
		"== Optimized Physical Plan ==\ndigraph a {}",
		"digraph a { subgraph cluster_1 { x }",
	} {
		if _, err := parseDOT(bad); err == nil {
			t.Errorf("parseDOT accepted %q", bad)
		}
	}
}

// `sqlrun explain --dot` over a script with several statements is ONE
// valid Graphviz document (issue 23, finding 8): one digraph, one cluster
// per planned statement, short node labels (operator and key) with the
// full EXPLAIN digest as tooltip, the changelog mode on every edge and
// its colour, and a note on each ChangelogNormalize and
// SinkUpsertMaterializer naming the input whose mode forced it. Before,
// it printed one digraph per statement with EXPLAIN text between them
// and whole digests as labels.
func TestExplainDOTScript(t *testing.T) {
	f := writeScript(t, `CREATE TABLE src (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D', 'rows' = '[["+I", 1, "a"]]');
CREATE TABLE ins (id BIGINT, v STRING) WITH ('connector' = 'datagen');
CREATE TABLE by_v (id BIGINT, v STRING, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print');
CREATE TABLE counts (v STRING, n BIGINT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print');
CREATE TABLE out1 (id BIGINT, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO by_v SELECT id, v FROM src;
EXECUTE STATEMENT SET BEGIN
  INSERT INTO counts SELECT v, COUNT(*) FROM src GROUP BY v;
  INSERT INTO out1 SELECT * FROM ins WHERE id > 3;
END;
EXPLAIN CHANGELOG_MODE SELECT v, COUNT(*) FROM ins GROUP BY v;
SELECT 'say "hi" \ back' AS s FROM ins;
`)
	code, out, errOut := runCLI(t, "explain", "--dot", "-f", f)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	g, err := parseDOT(out)
	if err != nil {
		t.Fatalf("not one valid DOT document: %v\n%s", err, out)
	}
	if len(g.clusters) != 4 {
		t.Errorf("%d clusters, want one per planned statement (4):\n%s", len(g.clusters), out)
	}
	modeColor := map[string]string{"[I]": "#404040", "[I,UA,D]": "#1f6fd1", "[I,UB,UA,D]": "#d62728"}
	var labels []string
	notes := map[string]string{} // node → its note's text
	for id, a := range g.nodes {
		if a["shape"] == "note" {
			continue
		}
		labels = append(labels, a["label"])
		if a["tooltip"] == "" || !strings.HasPrefix(a["tooltip"], strings.Fields(a["label"])[0]) {
			t.Errorf("node %s (%q): tooltip %q is not its digest", id, a["label"], a["tooltip"])
		}
		for _, line := range strings.Split(a["label"], `\n`) {
			if len(line) > 50 {
				t.Errorf("node %s: label line %q is not short", id, line)
			}
		}
		if g.cluster[id] == "" {
			t.Errorf("node %s is outside every cluster", id)
		}
	}
	dataEdges := 0
	for _, e := range g.edges {
		if g.nodes[e.from]["shape"] == "note" {
			notes[e.to] = g.nodes[e.from]["label"]
			continue
		}
		dataEdges++
		label := e.attrs["label"]
		if !regexp.MustCompile(`^\[[A-Z,]+\]$`).MatchString(label) {
			t.Errorf("edge %s -> %s: label %q is no changelog mode", e.from, e.to, label)
		}
		if want, ok := modeColor[label]; ok && e.attrs["color"] != want {
			t.Errorf("edge %s -> %s %s: colour %q, want %q", e.from, e.to, label, e.attrs["color"], want)
		}
		if g.cluster[e.from] != g.cluster[e.to] {
			t.Errorf("edge %s -> %s crosses clusters", e.from, e.to)
		}
	}
	if dataEdges < 10 {
		t.Errorf("only %d data edges", dataEdges)
	}
	all := strings.Join(labels, "|")
	for _, want := range []string{"ChangelogNormalize key=[id]", "Exchange hash=[id]", "GroupAggregate groupBy=[v]",
		"TableSourceScan table=[src]", `Sink table=[by_v]\n+ SinkUpsertMaterializer pk=[v]`, "Calc (filter)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no node labelled %q among %q", want, labels)
		}
	}
	// Every ChangelogNormalize and materializer has its reason.
	var cn, sum int
	for id, a := range g.nodes {
		label := a["label"]
		if a["shape"] == "note" {
			continue
		}
		switch {
		case strings.HasPrefix(label, "ChangelogNormalize"):
			cn++
			if n := strings.Join(strings.Split(notes[id], `\n`), " "); !strings.Contains(n, "source src emits an upsert changelog [I,UA,D] (no -U)") {
				t.Errorf("ChangelogNormalize %s: reason %q does not name the source's mode", id, n)
			}
		case strings.Contains(label, "SinkUpsertMaterializer"):
			sum++
			if n := strings.Join(strings.Split(notes[id], `\n`), " "); !strings.Contains(n, "ChangelogNormalize key=[id] sends [I,UB,UA,D] keyed by (id), not by the sink's PRIMARY KEY (v)") {
				t.Errorf("SinkUpsertMaterializer %s: reason %q does not name the input's mode and keys", id, n)
			}
		}
	}
	if cn != 2 || sum != 1 {
		t.Errorf("%d ChangelogNormalize and %d SinkUpsertMaterializer nodes, want 2 and 1", cn, sum)
	}

	// Graphviz itself, when installed (.ci/run installs it): it must lay
	// the document out, and a statement set must not be drawn kilometres
	// wide.
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		t.Log("graphviz (dot) not installed: the document was checked with the DOT grammar only")
		return
	}
	p := filepath.Join(t.TempDir(), "plan.dot")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	svg, err := exec.Command(dotBin, "-Tsvg", p).CombinedOutput()
	if err != nil {
		t.Fatalf("dot -Tsvg: %v\n%s", err, svg)
	}
	m := regexp.MustCompile(`<svg width="(\d+)pt"`).FindSubmatch(svg)
	if m == nil {
		t.Fatalf("no width in the SVG:\n%.300s", svg)
	}
	if w, _ := strconv.Atoi(string(m[1])); w > 2000 {
		t.Errorf("the picture is %dpt wide", w)
	}
}

// A planning error under --dot goes to stderr with the statement's line;
// stdout stays empty rather than half a graph.
func TestExplainDOTError(t *testing.T) {
	f := writeScript(t, "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nINSERT INTO t\nSELECT * FROM missing;\n")
	code, out, errOut := runCLI(t, "explain", "--dot", "-f", f)
	if code != 1 || out != "" || !strings.Contains(errOut, "Object 'missing' not found") || !strings.Contains(errOut, f+":2:") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}
