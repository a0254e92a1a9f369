package plan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/connectors"
)

// The batch MultipleInput of EXPLAIN's Optimized Execution Plan: Flink's
// MultipleInputNodeCreationProcessor (with table.optimizer.multiple-input-enabled,
// true by default, BatchPlanner runs it on the ExecNode graph) fuses an
// exchange-free sub-graph rooted at a node of two or more inputs, a batch
// join with the aggregates, Calcs and joins feeding it, into one
// BatchExecMultipleInput. Only the execution plan shows it: the physical
// plan keeps the unfused tree, and sqlrun runs the members as the separate
// operators they are (the fused operator is a scheduling fact of Flink's
// runtime, not a change of rows).
//
// sqlrun's batch execution plan is a tree (a batch plan shows no reuse,
// Explain), so every node has one output and Flink's
// InputPriorityConflictResolver, which breaks the read-order conflicts of
// reused sub-plans, finds none.

// miNode is one occurrence of a node in the printed tree (Flink's
// ExecNodeWrapper).
type miNode struct {
	n      Node
	inputs []*miNode
	output *miNode
	group  *miGroup
}

// miGroup is a MultipleInputGroup: its members in the order they joined
// (root first) and its root, the node the MultipleInput stands for.
type miGroup struct {
	members []*miNode
	root    *miNode
	// inputs are the group's inputs (the first nodes below it that are not
	// members), desc its MultipleInput(...) text.
	inputs []*miNode
	desc   string
}

// multipleInputEnabled reads table.optimizer.multiple-input-enabled.
func multipleInputEnabled(cfg map[string]string) bool {
	on, err := config.Bool(cfg, config.KeyMultipleInput)
	return err != nil || on // SET checked the value; the default is true
}

// explainBatchExec is a batch tree's Optimized Execution Plan with its
// MultipleInput nodes.
func explainBatchExec(r Node) string {
	root := wrapMultipleInput(r, nil)
	order := miTopological(root)
	createMultipleInputGroups(order)
	optimizeMultipleInputGroups(order)
	for i := len(order) - 1; i >= 0; i-- { // a group's inputs' text first
		if g := order[i].group; g != nil && g.root == order[i] {
			g.describe()
		}
	}
	var b strings.Builder
	var walk func(w *miNode, prefix, childPrefix string)
	walk = func(w *miNode, prefix, childPrefix string) {
		b.WriteString(prefix)
		ins := w.inputs
		if g := w.group; g != nil && g.root == w {
			b.WriteString(g.desc)
			ins = g.inputs
		} else {
			b.WriteString(nodeLine(w.n, explainOpts{format: FormatInfix}))
		}
		b.WriteString("\n")
		for i, c := range ins {
			if i == len(ins)-1 {
				walk(c, childPrefix+"+- ", childPrefix+"   ")
			} else {
				walk(c, childPrefix+":- ", childPrefix+":  ")
			}
		}
	}
	walk(root, "", "")
	return b.String()
}

func wrapMultipleInput(n Node, output *miNode) *miNode {
	w := &miNode{n: n, output: output}
	for _, in := range n.Inputs() {
		w.inputs = append(w.inputs, wrapMultipleInput(in, w))
	}
	return w
}

// miTopological orders the tree's nodes sinks first, sources last, as
// Flink's topologicalSort (breadth first).
func miTopological(root *miNode) []*miNode {
	order := []*miNode{root}
	for i := 0; i < len(order); i++ {
		order = append(order, order[i].inputs...)
	}
	return order
}

func isExchangeNode(n Node) bool { _, ok := n.(*Exchange); return ok }

func isUnionNode(n Node) bool { _, ok := n.(*Union); return ok }

// createMultipleInputGroups puts each node that may be a member (neither a
// source nor an Exchange) into its output's group, or makes a node of two
// or more inputs the root of a new one.
func createMultipleInputGroups(order []*miNode) {
	for _, w := range order {
		if len(w.inputs) == 0 || isExchangeNode(w.n) {
			continue
		}
		if w.output != nil && w.output.group != nil {
			g := w.output.group
			g.members = append(g.members, w)
			w.group = g
			continue
		}
		if len(w.inputs) >= 2 {
			g := &miGroup{root: w, members: []*miNode{w}}
			w.group = g
		}
	}
}

// chainableSource is isChainableSource: a scan of a source Flink reads
// through the FLIP-27 Source API, which it chains into the multiple input
// operator (connectors.NewSourceAPISource).
func chainableSource(w *miNode) bool {
	scan, ok := w.n.(*TableSourceScan)
	if !ok || scan.Table == nil {
		return false
	}
	s, ok := scan.Table.Source.(connectors.NewSourceAPISource)
	return ok && s.NewSourceAPI()
}

// optimizeMultipleInputGroups is Flink's six optimizations: entrances that
// only cost function calls leave the group (unions, one-input operators not
// over an Exchange, any operator over a singleton Exchange), then groups of
// one member, redundant unions at a group's output and one-input roots.
func optimizeMultipleInputGroups(order []*miNode) {
	for i := len(order) - 1; i >= 0; i-- {
		w := order[i]
		if w.group == nil || !w.isEntrance() {
			continue
		}
		remove := false
		if isUnionNode(w.n) {
			remove = true
			for _, in := range w.inputs {
				if chainableSource(in) {
					remove = false
				}
			}
		} else if len(w.inputs) == 1 {
			in := w.inputs[0]
			remove = !isExchangeNode(in.n) && !chainableSource(in)
		}
		for _, in := range w.inputs {
			if x, ok := in.n.(*Exchange); ok && x.Single {
				remove = true
			}
		}
		if remove {
			w.group.removeMember(w)
		}
	}
	for _, w := range order {
		g := w.group
		if g == nil || g.root != w {
			continue
		}
		union := isUnionNode(w.n)
		if len(g.members) == 1 {
			keep := false
			for _, in := range w.inputs {
				if chainableSource(in) {
					keep = true
				}
			}
			if union || !keep {
				g.removeRoot()
			}
			continue
		}
		if union {
			// A union is kept at the output only with two or more input
			// branches holding a node of two or more inputs (other than
			// a union); the others leave with it.
			useful := 0
			var useless [][]*miNode
			for _, in := range w.inputs {
				same := in.sameGroup(g)
				valuable := false
				for _, s := range same {
					if len(s.inputs) >= 2 && !isUnionNode(s.n) {
						valuable = true
					}
				}
				if valuable {
					useful++
				} else {
					useless = append(useless, same)
				}
			}
			if useful < 2 {
				for _, same := range useless {
					for _, s := range same {
						if s.group != nil {
							s.group.removeMember(s)
						}
					}
				}
				g.removeRoot()
			}
		} else if len(w.inputs) == 1 {
			g.removeRoot()
		}
	}
}

// isEntrance: none of the node's inputs is in its group.
func (w *miNode) isEntrance() bool {
	for _, in := range w.inputs {
		if in.group == w.group {
			return false
		}
	}
	return true
}

// sameGroup is the node and the nodes below it in group g.
func (w *miNode) sameGroup(g *miGroup) []*miNode {
	var out []*miNode
	queue := []*miNode{w}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x.group != g {
			continue
		}
		out = append(out, x)
		queue = append(queue, x.inputs...)
	}
	return out
}

func (g *miGroup) removeMember(w *miNode) {
	if w == g.root {
		g.removeRoot()
		return
	}
	g.drop(w)
}

func (g *miGroup) drop(w *miNode) {
	for i, m := range g.members {
		if m == w {
			g.members = append(g.members[:i:i], g.members[i+1:]...)
			break
		}
	}
	w.group = nil
}

// removeRoot takes the root out; its one input left in the group (if any)
// becomes the root.
func (g *miGroup) removeRoot() {
	old := g.root
	var next *miNode
	for _, in := range old.inputs {
		if in.group == g {
			next = in
		}
	}
	g.drop(old)
	g.root = next
}

// describe sets the group's inputs and its text, BatchExecMultipleInput's
// description (ExecNodeUtil.getMultipleInputDescription): readOrder=[...]
// when the inputs are not all read alike, and the member tree with each
// input as "[#n] " and its one line.
func (g *miGroup) describe() {
	g.inputs = nil
	in := map[*miNode]bool{}
	for _, m := range g.members {
		for _, x := range m.inputs {
			if x.group != g {
				g.inputs = append(g.inputs, x)
				in[x] = true
			}
		}
	}
	order := g.readOrder(in)
	var s strings.Builder
	s.WriteString("MultipleInput(")
	distinct := map[int]bool{}
	for _, o := range order {
		distinct[o] = true
	}
	if len(distinct) > 1 {
		parts := make([]string, len(order))
		for i, o := range order {
			parts[i] = strconv.Itoa(o)
		}
		s.WriteString("readOrder=[" + strings.Join(parts, ",") + "], ")
	}
	var members strings.Builder
	var walk func(w *miNode, prefix, childPrefix string)
	walk = func(w *miNode, prefix, childPrefix string) {
		members.WriteString(prefix)
		if in[w] {
			for i, x := range g.inputs {
				if x == w {
					members.WriteString("[#" + strconv.Itoa(i+1) + "] ")
				}
			}
			if w.group != nil && w.group.root == w {
				members.WriteString(w.group.desc)
			} else {
				members.WriteString(nodeLine(w.n, explainOpts{format: FormatInfix}))
			}
			members.WriteString("\n")
			return
		}
		members.WriteString(nodeLine(w.n, explainOpts{format: FormatInfix}))
		members.WriteString("\n")
		for i, c := range w.inputs {
			if i == len(w.inputs)-1 {
				walk(c, childPrefix+"+- ", childPrefix+"   ")
			} else {
				walk(c, childPrefix+":- ", childPrefix+":  ")
			}
		}
	}
	walk(g.root, "", "")
	s.WriteString(`members=[\n`)
	s.WriteString(strings.ReplaceAll(members.String(), "\n", `\n`))
	s.WriteString("])")
	g.desc = s.String()
}

// inputPriority is the read priority of input i of a member (smaller is
// read first) and whether that edge is BLOCKING: a hash or nested-loop
// join reads its whole build side (priority 0, blocking) before its probe
// side (priority 1, pipelined); every other operator reads its inputs
// alike (InputProperty.DEFAULT priority 0).
func inputPriority(n Node, i int) (priority int, blocking bool) {
	j, ok := n.(*Join)
	if !ok || (j.Strategy != StrategyHash && j.Strategy != StrategyNestedLoop) {
		return 0, false
	}
	if (i == 0) == j.LeftIsBuild {
		return 0, true
	}
	return 1, false
}

// readOrder is InputOrderCalculator's: a graph whose edges run from each
// member's inputs to it, plus, for each member reading one input before
// another, edges from the earlier input to the nodes the later one reads
// through pipelined edges; an input's read order is the rank of its
// longest distance from the graph's sources.
func (g *miGroup) readOrder(boundary map[*miNode]bool) []int {
	out := map[*miNode][]*miNode{}
	indeg := map[*miNode]int{}
	nodes := []*miNode{}
	seen := map[*miNode]bool{}
	add := func(x *miNode) {
		if !seen[x] {
			seen[x] = true
			nodes = append(nodes, x)
		}
	}
	link := func(from, to *miNode) {
		for _, y := range out[from] {
			if y == to {
				return
			}
		}
		add(from)
		add(to)
		out[from] = append(out[from], to)
		indeg[to]++
	}
	var ancestors func(x *miNode, acc *[]*miNode)
	ancestors = func(x *miNode, acc *[]*miNode) {
		has := false
		if !boundary[x] {
			for i, in := range x.inputs {
				if _, blocking := inputPriority(x.n, i); blocking {
					continue
				}
				has = true
				ancestors(in, acc)
			}
		}
		if !has {
			*acc = append(*acc, x)
		}
	}
	var visit func(x *miNode)
	visit = func(x *miNode) {
		add(x)
		if boundary[x] {
			return
		}
		for _, in := range x.inputs {
			link(in, x)
			visit(in)
		}
		// neighbouring priority groups: each earlier input before what
		// each later one reads
		byPrio := map[int][]int{}
		var prios []int
		for i := range x.inputs {
			p, _ := inputPriority(x.n, i)
			if _, ok := byPrio[p]; !ok {
				prios = append(prios, p)
			}
			byPrio[p] = append(byPrio[p], i)
		}
		sort.Ints(prios)
		for k := 0; k+1 < len(prios); k++ {
			for _, hi := range byPrio[prios[k]] {
				for _, lo := range byPrio[prios[k+1]] {
					var acc []*miNode
					ancestors(x.inputs[lo], &acc)
					for _, a := range acc {
						link(x.inputs[hi], a)
					}
				}
			}
		}
	}
	visit(g.root)
	dist := map[*miNode]int{}
	var queue []*miNode
	for _, x := range nodes {
		if indeg[x] == 0 {
			queue = append(queue, x)
		}
	}
	left := map[*miNode]int{}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range out[x] {
			if d := dist[x] + 1; d > dist[y] {
				dist[y] = d
			}
			left[y]++
			if left[y] == indeg[y] {
				queue = append(queue, y)
			}
		}
	}
	var ds []int
	have := map[int]bool{}
	for _, x := range g.inputs {
		if !have[dist[x]] {
			have[dist[x]] = true
			ds = append(ds, dist[x])
		}
	}
	sort.Ints(ds)
	order := make([]int, len(g.inputs))
	for i, x := range g.inputs {
		order[i] = sort.SearchInts(ds, dist[x])
	}
	return order
}
