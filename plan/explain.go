package plan

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Explain details, as EXPLAIN's syntax names them.
const (
	DetailChangelogMode     = "CHANGELOG_MODE"
	DetailEstimatedCost     = "ESTIMATED_COST"
	DetailJSONExecutionPlan = "JSON_EXECUTION_PLAN"
	DetailPlanAdvice        = "PLAN_ADVICE"
)

type explainOpts struct {
	format    Format
	changelog bool
	cost      bool
	// reuse marks the sub-plans the Optimized Execution Plan prints once
	// (nil: none).
	reuse *execReuse
}

// Explain plans the statement inside EXPLAIN and prints it in Flink 1.20's
// layout: Abstract Syntax Tree, Optimized Physical Plan, Optimized
// Execution Plan (and the JSON plan when asked). The text ends in "\n".
func (p *Planner) Explain(x *ast.Explain) (string, error) {
	pl, err := p.plan(x.Stmt, true)
	if err != nil {
		return "", err
	}
	if err := pl.CheckTranslation(); err != nil {
		return "", err
	}
	return pl.Explain(x.Details...), nil
}

// PlanForExplain plans a statement as EXPLAIN would (a query root asks for
// ONLY_UPDATE_AFTER first), for callers that render it themselves (DOT).
func (p *Planner) PlanForExplain(stmt ast.Statement) (*Plan, error) { return p.plan(stmt, true) }

// Explain renders the plan with the given details.
func (pl *Plan) Explain(details ...string) string {
	has := func(d string) bool {
		for _, x := range details {
			if strings.EqualFold(x, d) {
				return true
			}
		}
		return false
	}
	var b strings.Builder
	b.WriteString("== Abstract Syntax Tree ==\n")
	for i, r := range pl.Logical {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(explainTree(r, explainOpts{format: FormatAST}))
	}
	b.WriteString("\n")
	if has(DetailPlanAdvice) {
		b.WriteString("== Optimized Physical Plan With Advice ==\n")
	} else {
		b.WriteString("== Optimized Physical Plan ==\n")
	}
	physOpts := explainOpts{format: FormatPrefix, changelog: has(DetailChangelogMode) && pl.Streaming, cost: has(DetailEstimatedCost)}
	for i, r := range pl.Physical {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(explainTree(printable(r), physOpts))
	}
	if has(DetailPlanAdvice) {
		b.WriteString("\nNo available advice...\n")
	}
	b.WriteString("\n== Optimized Execution Plan ==\n")
	for i, r := range pl.Physical {
		if i > 0 {
			b.WriteString("\n")
		}
		execOpts := explainOpts{format: FormatInfix}
		if len(pl.Physical) == 1 && pl.Streaming {
			// A statement set's sub-plans shared by several sinks print
			// as trees of their own in Flink's dump, and a batch plan's
			// reuse can make Flink add the Exchanges of its
			// InputPriorityConflictResolver: sqlrun shows reuse inside
			// one streaming tree only.
			execOpts.reuse = newExecReuse(printable(r), pl.Config)
		}
		if !pl.Streaming && multipleInputEnabled(pl.Config) {
			b.WriteString(explainBatchExec(printable(r)))
			continue
		}
		b.WriteString(explainTree(printable(r), execOpts))
	}
	if has(DetailJSONExecutionPlan) {
		b.WriteString("\n== Physical Execution Plan ==\n")
		b.WriteString(pl.JSONPlan())
		b.WriteString("\n")
	}
	return b.String()
}

// printable hides a query's collect sink, which Flink's EXPLAIN does not
// show.
func printable(r Node) Node {
	if s, ok := r.(*Sink); ok && s.Collect {
		return s.input()
	}
	return r
}

// explainTree draws a tree as Calcite's RelTreeWriterImpl: "+- " before
// the last child, ":- " before the others, and ":  " / "   " to indent
// their subtrees.
func explainTree(r Node, o explainOpts) string {
	var b strings.Builder
	var walk func(n Node, prefix string, childPrefix string)
	walk = func(n Node, prefix, childPrefix string) {
		b.WriteString(prefix)
		line := nodeLine(n, o)
		if o.reuse != nil {
			if d := o.reuse.digest[n]; o.reuse.id[d] > 0 {
				id := strconv.Itoa(o.reuse.id[d])
				if o.reuse.printed[d] {
					b.WriteString("Reused(reference_id=[" + id + "])\n")
					return
				}
				o.reuse.printed[d] = true
				line += "(reuse_id=[" + id + "])"
			}
		}
		b.WriteString(line)
		b.WriteString("\n")
		ins := n.Inputs()
		for i, c := range ins {
			if i == len(ins)-1 {
				walk(c, childPrefix+"+- ", childPrefix+"   ")
			} else {
				walk(c, childPrefix+":- ", childPrefix+":  ")
			}
		}
	}
	walk(r, "", "")
	return b.String()
}

func nodeLine(n Node, o explainOpts) string {
	s := nodeDescription(n, o.format)
	if o.changelog {
		s = strings.TrimSuffix(s, ")")
		if !strings.Contains(nodeDescription(n, o.format), "(") {
			s += "("
		} else {
			s += ", "
		}
		s += "changelogMode=[" + n.Mode().String() + "])"
	}
	if o.cost {
		s += ": rowcount = 1.0E8, cumulative cost = {" + costOf(n) + "}"
	}
	return s
}

// costOf is a placeholder for Flink's cost model: sqlrun has no
// statistics, so every node is costed like an unknown-size table.
func costOf(n Node) string {
	rows := 0.0
	Walk(n, func(Node) { rows += 1e8 })
	return fmt.Sprintf("%s rows, %s cpu, %s io, 0.0 network, 0.0 memory", javaDouble(rows), javaDouble(rows), javaDouble(0))
}

func javaDouble(f float64) string {
	if f == 0 {
		return "0.0"
	}
	return sql.JavaScientific(f, 64)
}

// nodeDescription is one node's text without children or changelog mode;
// Flink's errors quote it ("... produced by node GroupAggregate(...)").
func nodeDescription(n Node, f Format) string { return n.describe(f) }

func targetCols(cols []int) string {
	if cols == nil {
		return ""
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "[" + strconv.Itoa(c) + "]"
	}
	return "targetColumns=[" + strings.Join(parts, ",") + "], "
}

func aggString(a AggCall, in []string) string {
	fn := a.Func
	if a.Retract && a.UDF == nil {
		// A user-defined function has one implementation whether or not
		// it retracts (its retract method): Flink prints its name.
		fn += "_RETRACT"
	}
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	args := "*"
	if len(a.Args) > 0 {
		args = names(in, a.Args)
	}
	s := fn + "(" + d + args + ")"
	if a.Filtered {
		// RelExplainUtil prints the call's filterArg by its field name
		// (AggregateTest.testAggWithFilterClause: SUM(b) FILTER $f2).
		s += " FILTER " + names(in, []int{a.Filter})
	}
	return s
}

func names(in []string, idx []int) string {
	out := make([]string, len(idx))
	for i, x := range idx {
		if x < len(in) {
			out[i] = in[x]
		} else {
			out[i] = "$" + strconv.Itoa(x)
		}
	}
	return strings.Join(out, ", ")
}

func tablePath(t *TableRef) string {
	id := t.ID
	return id.Catalog + ", " + id.Database + ", " + id.Name
}

func tuples(rows [][]Expr, f Format) string {
	out := make([]string, len(rows))
	for i, row := range rows {
		vals := make([]string, len(row))
		for j, e := range row {
			vals[j] = FormatExpr(e, nil, f)
			if l, ok := e.(*Literal); ok && f == FormatPrefix && l.Value != nil {
				// Calcite's Values prints each tuple's RexLiteral digest,
				// a string with its charset as in the Abstract Syntax Tree.
				vals[j] = FormatExpr(l, nil, FormatAST)
			}
			if l, ok := e.(*Literal); ok && l.Value == nil && f == FormatInfix {
				vals[j] = "null"
			}
		}
		out[i] = "{ " + strings.Join(vals, ", ") + " }"
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// hintMap prints OPTIONS hint pairs in java.util.HashMap iteration order,
// as Calcite's RelHint prints its kvOptions.
func hintMap(opts []ast.Option) string {
	keys := make([]string, 0, len(opts))
	vals := map[string]string{}
	for _, o := range opts {
		if _, dup := vals[o.Key]; !dup {
			keys = append(keys, o.Key)
		}
		vals[o.Key] = o.Value
	}
	keys = javaHashMapOrder(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		// Secrets never reach EXPLAIN output: sensitive keys (password,
		// secret, token, ...) print as ******, as do credentials embedded
		// in other values (a JDBC url's password=... or user:pw@).
		v := vals[k]
		if connectors.IsSensitive(k) {
			v = connectors.Mask
		} else {
			v = connectors.MaskValue(v)
		}
		parts[i] = k + "=" + v
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// javaHashMapOrder orders keys as a java.util.HashMap of them iterates:
// by bucket of the spread String.hashCode in a table of the final
// capacity, insertion order within a bucket.
func javaHashMapOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	type ent struct {
		k      string
		bucket int
		pos    int
	}
	es := make([]ent, len(keys))
	for i, k := range keys {
		var h int32
		for _, u := range utf16Units(k) {
			h = 31*h + int32(u)
		}
		spread := uint32(h) ^ (uint32(h) >> 16)
		es[i] = ent{k, int(spread & uint32(capacity-1)), i}
	}
	sort.SliceStable(es, func(a, b int) bool { return es[a].bucket < es[b].bucket })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.k
	}
	return out
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// JSONPlan renders the execution plan as Flink's JSON_EXECUTION_PLAN: the
// StreamGraph's transformations, sources first, with Flink's type names
// ("Source: orders[1]", "Calc[2]", "SinkMaterializer[4]", "Sink: t[5]"),
// contents "[id]:<description>", parallelism and ship strategies, printed
// with Jackson's pretty printer layout. Exchanges are ship strategies, not
// nodes. Parallelism is parallelism.default (1 when unset) unless a source
// or sink sets its own.
func (pl *Plan) JSONPlan() string {
	type pred struct {
		id       int
		strategy string
	}
	type node struct {
		id          int
		typ, pact   string
		contents    string
		parallelism int
		preds       []pred
	}
	defaultP := 1
	if v, err := config.Int(pl.Config, config.KeyParallelism); err == nil && v > 0 {
		defaultP = v
	}
	var nodes []node
	add := func(typ, pact, desc string, p int, preds []pred) int {
		id := len(nodes) + 1
		nodes = append(nodes, node{id: id, typ: fmt.Sprintf("%s[%d]", typ, id), pact: pact,
			contents: fmt.Sprintf("[%d]:%s", id, desc), parallelism: p, preds: preds})
		return id
	}
	type out struct{ id, p int }
	var visit func(r Node) (out, string)
	visit = func(r Node) (out, string) {
		switch x := r.(type) {
		case *Exchange:
			o, _ := visit(x.input())
			if x.Single {
				return o, "GLOBAL"
			}
			return o, "HASH"
		case *TableSourceScan:
			p := defaultP
			if sp, ok := x.Table.Source.(connectors.SupportsParallelism); ok && sp.Parallelism() > 0 {
				p = sp.Parallelism()
			}
			return out{add("Source: "+x.Table.ID.Name, "Data Source", nodeDescription(r, FormatInfix), p, nil), p}, ""
		case *Values:
			return out{add("Source: Values", "Data Source", nodeDescription(r, FormatInfix), 1, nil), 1}, ""
		case *TemporalSort:
			if !x.Rowtime && len(x.Order) == 1 {
				// StreamExecTemporalSort forwards its input: no
				// transformation of its own.
				return visit(x.input())
			}
		}
		var preds []pred
		p := 0
		for _, in := range r.Inputs() {
			o, ship := visit(in)
			if p == 0 {
				p = o.p
				switch ship {
				case "HASH":
					p = defaultP
				case "GLOBAL":
					p = 1
				}
			}
			if ship == "" {
				ship = "FORWARD"
				if o.p != p {
					ship = "REBALANCE"
				}
			}
			preds = append(preds, pred{o.id, ship})
		}
		sink, ok := r.(*Sink)
		if !ok {
			return out{add(r.Name(), "Operator", nodeDescription(r, FormatInfix), p, preds), p}, ""
		}
		sinkP := p
		name := "collect"
		if !sink.Collect {
			name = sink.Table.ID.Name
			if n := sink.Table.Sink.Parallelism(); n > 0 {
				sinkP = n
			}
			var notNull []string
			for i, c := range sink.Table.Schema.Columns {
				if !c.Type.Nullable && i < len(sink.names) {
					notNull = append(notNull, c.Name)
				}
			}
			if len(notNull) > 0 {
				id := add("ConstraintEnforcer", "Operator", "ConstraintEnforcer[NotNullEnforcer(fields=["+strings.Join(notNull, ", ")+"])]", p, preds)
				preds = []pred{{id, "FORWARD"}}
			}
			pk := sink.Table.Schema.PrimaryKey
			ship := "FORWARD"
			if sinkP != p {
				ship = "REBALANCE"
				if len(pk) > 0 {
					ship = "HASH"
				}
			}
			preds[0].strategy = ship
			if sink.UpsertMaterialize {
				id := add("SinkMaterializer", "Operator", "SinkMaterializer(pk=["+strings.Join(pk, ", ")+"])", sinkP,
					[]pred{{preds[0].id, "HASH"}})
				preds = []pred{{id, "FORWARD"}}
			}
		} else {
			sinkP = 1
			if p != 1 {
				preds[0].strategy = "REBALANCE"
			}
		}
		return out{add("Sink: "+name, "Data Sink", nodeDescription(r, FormatInfix), sinkP, preds), sinkP}, ""
	}
	for _, r := range pl.Physical {
		visit(r)
	}
	var b strings.Builder
	b.WriteString("{\n  \"nodes\" : [ ")
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{\n    \"id\" : %d,\n    \"type\" : %s,\n    \"pact\" : %s,\n    \"contents\" : %s,\n    \"parallelism\" : %d",
			n.id, jsonString(n.typ), jsonString(n.pact), jsonString(n.contents), n.parallelism)
		if len(n.preds) > 0 {
			b.WriteString(",\n    \"predecessors\" : [ ")
			for j, p := range n.preds {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "{\n      \"id\" : %d,\n      \"ship_strategy\" : %s,\n      \"side\" : \"second\"\n    }", p.id, jsonString(p.strategy))
			}
			b.WriteString(" ]")
		}
		b.WriteString("\n  }")
	}
	b.WriteString(" ]\n}")
	return b.String()
}

// jsonString quotes s as Jackson does (no HTML escaping).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// DOT renders the physical plan as a Graphviz digraph, each edge labelled
// with the changelog mode flowing along it, so a user can see where -U
// appears.
func (pl *Plan) DOT() string {
	var b strings.Builder
	b.WriteString("digraph plan {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n")
	id := 0
	var visit func(r Node) string
	visit = func(r Node) string {
		name := "n" + strconv.Itoa(id)
		id++
		label := nodeDescription(r, FormatPrefix)
		fmt.Fprintf(&b, "  %s [label=%s];\n", name, strconv.Quote(label))
		for _, in := range r.Inputs() {
			c := visit(in)
			color := "black"
			if in.Mode().Contains(sql.UpdateBefore) {
				color = "red"
			}
			fmt.Fprintf(&b, "  %s -> %s [label=%s, color=%s];\n", c, name, strconv.Quote("["+in.Mode().String()+"]"), color)
		}
		return name
	}
	for _, r := range pl.Physical {
		visit(printable(r))
	}
	b.WriteString("}\n")
	return b.String()
}

func sinkHintText(hints []ast.Option) string {
	if len(hints) == 0 {
		return ""
	}
	return ", hints=[[[OPTIONS options:" + hintMap(hints) + "]]]"
}

func joinTypeName(k ast.JoinKind) string {
	switch k {
	case ast.LeftJoin:
		return "LeftOuterJoin"
	case ast.RightJoin:
		return "RightOuterJoin"
	case ast.FullJoin:
		return "FullOuterJoin"
	case semiJoin:
		return "LeftSemiJoin"
	case antiJoin:
		return "LeftAntiJoin"
	}
	return "InnerJoin"
}

// inputSpec is Flink's JoinInputSideSpec: whether a join input's unique
// key lies within its join key (state can be one row per join key), it has
// some other unique key, or none.
func inputSpec(in Node, joinKeys []int) string {
	s, _ := joinInputSide(in, joinKeys)
	return s
}

// JoinInputSide is the JoinInputSideSpec of the join's left (or right)
// input and the unique key its state is keyed by: as Flink's
// JoinUtil.analyzeJoinInput, the smallest unique key within the join key,
// else the smallest unique key.
func (n *Join) JoinInputSide(right bool) (spec string, uniqueKey []int) {
	if right {
		return joinInputSide(n.inputs[1], n.RightKeys)
	}
	return joinInputSide(n.inputs[0], n.LeftKeys)
}

func joinInputSide(in Node, joinKeys []int) (string, []int) {
	// Unique keys, unlike upsert keys, survive the hash Exchange.
	for {
		ex, ok := in.(*Exchange)
		if !ok {
			break
		}
		in = ex.input()
	}
	if len(in.UpsertKeys()) == 0 {
		return "NoUniqueKey", nil
	}
	// The empty key of a single-row input (a global aggregate) lies
	// within any join key, none included (SemiAntiJoinTest
	// .testInWithUncorrelated_ComplexCondition4: the LeftOuterJoin on true
	// with GroupAggregate(select=[MAX(e) AS EXPR$0]) is
	// rightInputSpec=[JoinKeyContainsUniqueKey]).
	var within, smallest []int
	found := false
	for _, k := range in.UpsertKeys() {
		if containsAll(joinKeys, k) && (!found || len(k) < len(within)) {
			within, found = k, true
		}
		if smallest == nil || len(k) < len(smallest) {
			smallest = k
		}
	}
	if found {
		return "JoinKeyContainsUniqueKey", within
	}
	return "HasUniqueKey", smallest
}

// fetchText is a physical Limit's fetch as Flink prints it: "unlimited"
// for OFFSET without FETCH (RelExplainUtil.fetchToString).
func fetchText(fetch int64) string {
	if fetch < 0 {
		return "unlimited"
	}
	return strconv.FormatInt(fetch, 10)
}
