package plan

import (
	"strings"

	"github.com/sqlrun/sqlrun/config"
)

// execReuse is what the Optimized Execution Plan shows of Flink's sub-plan
// reuse (SubplanReuser.reuseDuplicatedSubplan, with
// table.optimizer.reuse-sub-plan-enabled): sub-plans of one statement
// whose digests are equal become one node, and ExecNodePlanDumper prints
// that node's first appearance with "(reuse_id=[n])" after its line and
// each later one as "Reused(reference_id=[n])", without its inputs. The
// numbers follow the order in which a depth-first walk (inputs left to
// right) meets a node the second time. SubplanReuseContext's exceptions
// hold: a sink is never reused; a scan (and an Exchange right above one)
// only with table.optimizer.reuse-source-enabled. The Optimized Physical
// Plan does not show reuse, as Flink's does not.
//
// The job builds each reused sub-plan once and feeds every consumer from
// it (ReusedSubplans, exec/compile).
type execReuse struct {
	digest map[Node]string
	// id is the reuse number of a digest met twice.
	id map[string]int
	// printed records the digests already printed once.
	printed map[string]bool
}

// newExecReuse finds the reused sub-plans of one tree, or returns nil when
// the configuration turns sub-plan reuse off.
func newExecReuse(root Node, cfg map[string]string) *execReuse {
	if on, err := config.Bool(cfg, config.KeyReuseSubPlan); err == nil && !on {
		return nil
	}
	source := true
	if on, err := config.Bool(cfg, config.KeyReuseSource); err == nil && !on {
		source = false
	}
	r := &execReuse{digest: map[Node]string{}, id: map[string]int{}, printed: map[string]bool{}}
	var dig func(n Node) string
	dig = func(n Node) string {
		if d, ok := r.digest[n]; ok {
			return d
		}
		var b strings.Builder
		b.WriteString(n.describe(FormatInfix))
		b.WriteString(" types=")
		for _, t := range n.Types() {
			b.WriteString(t.String())
			b.WriteString(";")
		}
		b.WriteString(" inputs=[")
		for _, in := range n.Inputs() {
			b.WriteString("{")
			b.WriteString(dig(in))
			b.WriteString("}")
		}
		b.WriteString("]")
		d := b.String()
		r.digest[n] = d
		return d
	}
	disabled := func(n Node) bool {
		for {
			switch x := n.(type) {
			case *Sink:
				return true
			case *TableSourceScan:
				return !source
			case *Exchange:
				n = x.input()
				continue
			}
			return false
		}
	}
	seen := map[string]bool{}
	var visit func(n Node)
	visit = func(n Node) {
		d := dig(n)
		if seen[d] {
			if _, ok := r.id[d]; !ok && !disabled(n) {
				r.id[d] = len(r.id) + 1
			}
			if _, ok := r.id[d]; ok {
				return
			}
		}
		seen[d] = true
		for _, in := range n.Inputs() {
			visit(in)
		}
	}
	visit(root)
	if len(r.id) == 0 {
		return nil
	}
	return r
}

// ReusedSubplans maps each node of pl's job that EXPLAIN's execution plan
// shows as reused (`(reuse_id=[n])` and `Reused(reference_id=[n])`) to
// its reuse number, so that the job builds such a sub-plan once and feeds
// every consumer from it, as Flink's SubplanReuser makes one ExecNode of
// them. As EXPLAIN, only a streaming statement with one sink reuses
// (nil otherwise, or with table.optimizer.reuse-sub-plan-enabled off).
func ReusedSubplans(pl *Plan) map[Node]int {
	if len(pl.Physical) != 1 || !pl.Streaming {
		return nil
	}
	r := newExecReuse(printable(pl.Physical[0]), pl.Config)
	if r == nil {
		return nil
	}
	out := map[Node]int{}
	for n, d := range r.digest {
		if id := r.id[d]; id > 0 {
			out[n] = id
		}
	}
	return out
}
