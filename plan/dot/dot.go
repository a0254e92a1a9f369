// Package dot draws the optimized physical plans of a script as one
// Graphviz document (`sqlrun explain --dot`): one digraph, one cluster per
// statement, a short label per operator (its name and key, such as
// "ChangelogNormalize key=[id]") with the full EXPLAIN digest as the
// tooltip, every edge labelled with the changelog mode flowing on it and
// coloured by it, and a note beside each ChangelogNormalize and
// SinkUpsertMaterializer saying which input's mode made the planner add
// it. It reads plans through plan's exported API only.
package dot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/plan"
	"github.com/sqlrun/sqlrun/sql"
)

// Statement is one planned statement of the script.
type Statement struct {
	// Title names the statement in its cluster's label, e.g.
	// "job.sql:12 INSERT INTO orders_rt SELECT ...". It is shown as
	// given: callers mask secrets in it.
	Title string
	Plan  *plan.Plan
}

// Mode colours: what a reader must tell apart at a glance.
const (
	colorInsertOnly = "#404040" // [I]
	colorUpsert     = "#1f6fd1" // updates without -U: [I,UA] / [I,UA,D]
	colorRetract    = "#d62728" // with -U: [I,UB,UA,D]
	colorDeletes    = "#e08a00" // deletes, no updates: [I,D]
	colorNote       = "#8a8a8a"
)

// ModeColor is the colour of an edge carrying mode m.
func ModeColor(m sql.ChangelogMode) string {
	switch {
	case m.Contains(sql.UpdateBefore):
		return colorRetract
	case m.Contains(sql.UpdateAfter):
		return colorUpsert
	case m.Contains(sql.Delete):
		return colorDeletes
	}
	return colorInsertOnly
}

const legend = `edge colour = changelog mode:  dark grey [I] insert-only  ·  blue upsert (+U without -U)  ·  ` +
	`red retract (with -U)  ·  orange inserts and deletes.  Hover a node for its full EXPLAIN digest.`

// Render returns the DOT document of the statements' plans.
func Render(stmts []Statement) string {
	var b strings.Builder
	b.WriteString("digraph plans {\n")
	fmt.Fprintf(&b, "  graph [rankdir=LR, fontname=\"Helvetica\", fontsize=11, labelloc=b, labeljust=l, label=%s];\n", quote(legend))
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f7f7f7\", fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	// Graphviz stacks the clusters of a left-to-right graph bottom up in
	// the order they are written; writing them last first shows the
	// script's statements top down.
	for i := len(stmts) - 1; i >= 0; i-- {
		st := stmts[i]
		r := &renderer{b: &b, prefix: fmt.Sprintf("s%d_", i+1), pl: st.Plan, ids: map[plan.Node]string{}}
		fmt.Fprintf(&b, "  subgraph cluster_s%d {\n", i+1)
		fmt.Fprintf(&b, "    label=%s;\n    labelloc=t; style=rounded; color=\"#bbbbbb\";\n", quote(st.Title))
		if st.Plan != nil {
			for _, root := range st.Plan.Physical {
				r.node(shown(root))
			}
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// shown skips a query's collect sink, which EXPLAIN does not print either.
func shown(r *plan.Sink) plan.Node {
	if r.Collect && len(r.Inputs()) == 1 {
		return r.Inputs()[0]
	}
	return r
}

type renderer struct {
	b      *strings.Builder
	prefix string
	pl     *plan.Plan
	ids    map[plan.Node]string
	n      int
}

// node writes n, its inputs and the edges between them once, and returns
// its id. A node shared by two sinks is drawn once with two out-edges.
func (r *renderer) node(n plan.Node) string {
	if id, ok := r.ids[n]; ok {
		return id
	}
	id := r.prefix + "n" + strconv.Itoa(r.n)
	r.n++
	r.ids[n] = id
	fmt.Fprintf(r.b, "    %s [label=%s, tooltip=%s];\n", id, quote(Label(n)), quote(plan.Digest(n)))
	if why := Reason(n, r.pl); why != "" {
		note := id + "_why"
		fmt.Fprintf(r.b, "    %s [shape=note, style=filled, fillcolor=\"#fff8dc\", color=%q, fontsize=9, label=%s];\n",
			note, colorNote, quote(wrap(why, 44)))
		fmt.Fprintf(r.b, "    %s -> %s [style=dashed, arrowhead=none, color=%q, constraint=false];\n", note, id, colorNote)
	}
	for _, in := range n.Inputs() {
		from := r.node(in)
		mode := in.Mode().String()
		width := "1.6"
		if in.Mode().IsInsertOnly() || mode == "" {
			width = "1.0"
		}
		fmt.Fprintf(r.b, "    %s -> %s [label=%s, color=%q, fontcolor=%q, penwidth=%s];\n",
			from, id, quote("["+mode+"]"), ModeColor(in.Mode()), ModeColor(in.Mode()), width)
	}
	return id
}

// Label is a node's short label: the operator and its key.
func Label(n plan.Node) string {
	var in []string
	if ins := n.Inputs(); len(ins) > 0 {
		in = ins[0].Names()
	}
	name := n.Name()
	switch n := n.(type) {
	case *plan.TableSourceScan:
		if n.Table != nil {
			return name + " table=[" + n.Table.ID.Name + "]"
		}
	case *plan.Sink:
		s := name
		if n.Table != nil {
			s += " table=[" + n.Table.ID.Name + "]"
		}
		if n.UpsertMaterialize && n.Table != nil {
			s += "\n+ SinkUpsertMaterializer pk=[" + strings.Join(n.Table.Schema.PrimaryKey, ", ") + "]"
		}
		return s
	case *plan.Exchange:
		if n.Single {
			return name + " single"
		}
		return name + " hash=[" + fields(in, n.Keys) + "]"
	case *plan.ChangelogNormalize:
		return name + " key=[" + fields(in, n.Keys) + "]"
	case *plan.GroupAggregate:
		return groupLabel(name, n.Names(), n.Group)
	case *plan.LocalAggregate:
		return groupLabel(name, n.Names(), n.Group)
	case *plan.FinalAggregate:
		return groupLabel(name, n.Names(), n.Group)
	case *plan.Join:
		if ins := n.Inputs(); len(ins) == 2 {
			var pairs []string
			for i := range n.LeftKeys {
				if i < len(n.RightKeys) {
					pairs = append(pairs, field(ins[0].Names(), n.LeftKeys[i])+"="+field(ins[1].Names(), n.RightKeys[i]))
				}
			}
			return name + " " + strings.ToLower(string(n.JoinType)) + " on=[" + strings.Join(pairs, ", ") + "]"
		}
	case *plan.Sort:
		return orderLabel(name, in, n.Order, -1)
	case *plan.SortLimit:
		return orderLabel(name, in, n.Order, n.Fetch)
	case *plan.Limit:
		return fmt.Sprintf("%s fetch=%d", name, n.Fetch)
	case *plan.Calc:
		if n.Cond != nil {
			return name + " (filter)"
		}
	case *plan.Values:
		return fmt.Sprintf("%s rows=%d", name, len(n.Rows))
	}
	return name
}

func groupLabel(name string, names []string, group []int) string {
	if len(group) == 0 {
		return name
	}
	g := names
	if len(g) > len(group) {
		g = g[:len(group)]
	}
	return name + " groupBy=[" + strings.Join(g, ", ") + "]"
}

func orderLabel(name string, in []string, order []plan.SortKey, fetch int64) string {
	var keys []string
	for _, k := range order {
		s := field(in, k.Field)
		if k.Desc {
			s += " DESC"
		}
		keys = append(keys, s)
	}
	s := name + " orderBy=[" + strings.Join(keys, ", ") + "]"
	if fetch >= 0 {
		s += fmt.Sprintf(" fetch=%d", fetch)
	}
	return s
}

// Reason says why the planner added a ChangelogNormalize or a
// SinkUpsertMaterializer: which input's changelog mode forced it (Flink's
// StreamPhysicalTableSourceScanRule and SinkUpsertMaterializer decision).
// It is "" for every other node.
func Reason(n plan.Node, pl *plan.Plan) string {
	var cfg map[string]string
	if pl != nil {
		cfg = pl.Config
	}
	switch n := n.(type) {
	case *plan.ChangelogNormalize:
		var scan *plan.TableSourceScan
		for c := plan.Node(n); c != nil; {
			if s, ok := c.(*plan.TableSourceScan); ok {
				scan = s
				break
			}
			if len(c.Inputs()) == 0 {
				break
			}
			c = c.Inputs()[0]
		}
		key := ""
		if len(n.Inputs()) > 0 {
			key = fields(n.Inputs()[0].Names(), n.Keys)
		}
		if scan == nil || scan.Table == nil || scan.Table.Source == nil {
			return "ChangelogNormalize: the source's changes are normalized per key (" + key + ")"
		}
		src := scan.Table.Source.ChangelogMode()
		t := scan.Table.ID.Name
		if src.IsUpsert() {
			return fmt.Sprintf("ChangelogNormalize: source %s emits an upsert changelog [%s] (no -U) keyed by PRIMARY KEY (%s); "+
				"it keeps the last row per key to produce [%s]", t, src, key, n.Mode())
		}
		return fmt.Sprintf("ChangelogNormalize: 'table.exec.source.cdc-events-duplicate' = 'true' and source %s emits [%s]; "+
			"it drops duplicate changes per PRIMARY KEY (%s)", t, src, key)
	case *plan.Sink:
		if !n.UpsertMaterialize {
			return ""
		}
		if mode, _ := config.Enum(cfg, config.KeyUpsertMaterialize); mode == "FORCE" {
			return "SinkUpsertMaterializer: 'table.exec.sink.upsert-materialize' = 'FORCE'"
		}
		pk := ""
		if n.Table != nil {
			pk = strings.Join(n.Table.Schema.PrimaryKey, ", ")
		}
		if len(n.Inputs()) == 0 {
			return "SinkUpsertMaterializer: the input's updates are not keyed by the sink's PRIMARY KEY (" + pk + ")"
		}
		in := n.Inputs()[0]
		if len(in.UpsertKeys()) == 0 {
			return fmt.Sprintf("SinkUpsertMaterializer: input %s sends [%s] with no upsert key, so changes to one sink "+
				"PRIMARY KEY (%s) may arrive out of order; it keeps each key's rows to emit them in order", Label(in), in.Mode(), pk)
		}
		var uks []string
		for _, k := range in.UpsertKeys() {
			uks = append(uks, "("+fields(in.Names(), k)+")")
		}
		return fmt.Sprintf("SinkUpsertMaterializer: input %s sends [%s] keyed by %s, not by the sink's PRIMARY KEY (%s); "+
			"it keeps each key's rows to emit them in order", Label(in), in.Mode(), strings.Join(uks, " or "), pk)
	}
	return ""
}

func field(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return "$" + strconv.Itoa(i)
}

func fields(names []string, idx []int) string {
	out := make([]string, len(idx))
	for i, x := range idx {
		out[i] = field(names, x)
	}
	return strings.Join(out, ", ")
}

// wrap breaks text into lines of about width characters at spaces.
func wrap(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// quote makes s a DOT quoted string: backslash and double quote escaped,
// newlines as \n (a centred line break), other control characters as
// spaces. UTF-8 passes through (DOT's default charset).
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
