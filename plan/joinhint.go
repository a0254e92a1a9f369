package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Join hints, as Flink 1.20 resolves them.
//
// A query hint (SELECT /*+ BROADCAST(t1) */ ...) belongs to its query
// block: Calcite propagates it to every join of the SELECT's FROM, and
// Flink's ClearQueryHintsWithInvalidPropagationShuttle takes it back from
// the joins of views and subqueries, which are blocks of their own. So
// each join of a block carries all the block's join hints (the AST prints
// them as joinHints=[[[BROADCAST inheritPath:[0] options:[t1]]]]).
//
// JoinHintsResolver then reads each hint against the join's inputs: an
// input's name is its view or subquery alias, or the name of the table it
// scans; an option names the input whose name it is a dot-separated suffix
// of (or the input is a suffix of it: matchIdentifier). A hint none of
// whose options names an input of a join does not apply to that join; of
// the options that do, the first decides the side (the build side of a
// hash or nested-loop join, the broadcast side). An option that names no
// input of any join the hint reached fails the statement with Flink's
// "The options of following hints cannot match the name of input tables
// or views: ..." (validateHints).
//
// The batch join rules then try the hints in order
// (BatchPhysicalJoinRuleBase.getFirstValidJoinHint): the first whose
// strategy can run the join (an equi-join for all but NEST_LOOP, the
// strategy's operator not disabled, a broadcast side the join type allows,
// not a SEMI or ANTI join) is the only strategy offered; without a valid
// hint the join is planned as without hints. Streaming joins ignore the
// hints (StreamPhysicalJoinRule has no hint check), after the same
// validation.

// Flink's JoinStrategy hint names other than LOOKUP.
const (
	hintBroadcast    = "BROADCAST"
	hintShuffleHash  = "SHUFFLE_HASH"
	hintShuffleMerge = "SHUFFLE_MERGE"
	hintNestLoop     = "NEST_LOOP"
	hintLookup       = "LOOKUP"
)

func isJoinStrategyHint(name string) bool {
	switch name {
	case hintBroadcast, hintShuffleHash, hintShuffleMerge, hintNestLoop:
		return true
	}
	return false
}

// queryHint is one hint of a query block as the AST prints it on a join
// (Calcite's RelHint: name, inheritPath, list or key-value options).
type queryHint struct {
	name    string
	options []string
	kv      []ast.Option
	path    []int
}

func (h queryHint) String() string {
	path := make([]string, len(h.path))
	for i, p := range h.path {
		path[i] = fmt.Sprint(p)
	}
	s := "[" + h.name + " inheritPath:[" + strings.Join(path, ", ") + "] options:"
	if len(h.kv) > 0 {
		kv := make([]string, len(h.kv))
		for i, o := range h.kv {
			kv[i] = o.Key + "=" + o.Value
		}
		return s + "{" + strings.Join(kv, ", ") + "}]"
	}
	return s + "[" + strings.Join(h.options, ", ") + "]]"
}

// joinHint is a join strategy hint resolved on one join: its strategy
// and whether its first option named the left input (FlinkHints.LEFT_INPUT).
type joinHint struct {
	name string
	left bool
}

// hintBlock is the query block being bound: its join hints and the joins
// that carry them (their inheritPath is set when the block is done).
type hintBlock struct {
	hints []queryHint
	joins []*LogicalJoin
}

// hintResolver holds, per hint name, each option written and whether it
// named an input of a join (JoinHintsResolver.allOptionsInJoinHints), in
// the order the statement wrote them.
type hintResolver struct {
	names   []string
	options map[string][]string
	matched map[string]map[string]bool
}

// enterBlock starts binding a SELECT with hints; the returned function
// ends it, setting the inheritPath of the block's hints on its joins from
// the block's root.
func (b *binder) enterBlock(hints []ast.Hint) (func(root Node), error) {
	saved := b.block
	var blk *hintBlock
	for _, h := range hints {
		switch {
		case isJoinStrategyHint(h.Name):
			if len(h.Params) == 0 || len(h.Options) > 0 {
				return nil, sql.Errorf(sql.ValidationException,
					"Invalid hint %s: a join hint takes the names of tables or views, %s(t1[, t2, ...]).", h.Name, h.Name)
			}
			if blk == nil {
				blk = &hintBlock{}
			}
			blk.hints = append(blk.hints, queryHint{name: h.Name, options: h.Params})
		case h.Name == hintLookup:
			// Read by the lookup join of the block (bindLookupJoin).
		case h.Name == "STATE_TTL":
			return nil, sql.Errorf(sql.TableException, "sqlrun does not support the STATE_TTL hint yet")
		case h.Name == "OPTIONS":
			return nil, sql.Errorf(sql.AssertionError, "Hint: OPTIONS should be registered in the HintStrategyTable")
		default:
			// Calcite's HintStrategyTable with Flink's Litmus.THROW.
			return nil, sql.Errorf(sql.AssertionError, "Hint: %s should be registered in the HintStrategyTable", h.Name)
		}
	}
	b.block = blk
	return func(root Node) {
		b.block = saved
		if blk == nil || root == nil {
			return
		}
		for _, j := range blk.joins {
			path, ok := pathTo(root, j)
			if !ok {
				continue
			}
			for i := range j.queryHints {
				j.queryHints[i].path = path
			}
		}
	}, nil
}

// pathTo is the inheritPath from root to n: the input index at each step.
func pathTo(root, n Node) ([]int, bool) {
	if root == n {
		return []int{}, true
	}
	for i, in := range root.Inputs() {
		if p, ok := pathTo(in, n); ok {
			return append([]int{i}, p...), true
		}
	}
	return nil, false
}

// hintInputName is JoinHintsResolver.extractAliasOrTableName over the AST
// of a join input: a view's or subquery's alias, or a table's name.
func (b *binder) hintInputName(t ast.TableExpr) string {
	switch x := t.(type) {
	case *ast.TableRef:
		if _, ok := b.ctes[x.Name.Table]; ok && x.Name.Catalog == "" && x.Name.Database == "" {
			return x.Name.Table
		}
		if id, _, err := b.env.LookupTable(x.Name); err == nil {
			return id.Name
		}
		return x.Name.Table
	case *ast.SubqueryRef:
		return x.Alias
	}
	return ""
}

// resolveJoinHints attaches the block's join hints to a join of it and
// resolves them against its inputs' names (JoinHintsResolver.visitBiRel).
func (b *binder) resolveJoinHints(j *LogicalJoin, leftName, rightName string) error {
	blk := b.block
	if blk == nil {
		return nil
	}
	if b.hintNames == nil {
		b.hintNames = &hintResolver{options: map[string][]string{}, matched: map[string]map[string]bool{}}
	}
	r := b.hintNames
	blk.joins = append(blk.joins, j)
	for _, h := range blk.hints {
		j.queryHints = append(j.queryHints, queryHint{name: h.name, options: h.options})
		if r.matched[h.name] == nil {
			r.names = append(r.names, h.name)
			r.matched[h.name] = map[string]bool{}
		}
		for _, o := range h.options {
			if _, ok := r.matched[h.name][o]; !ok {
				r.options[h.name] = append(r.options[h.name], o)
				r.matched[h.name][o] = false
			}
			if leftName != "" && matchIdentifier(o, leftName) || rightName != "" && matchIdentifier(o, rightName) {
				r.matched[h.name][o] = true
			}
		}
		var sides []bool
		for _, o := range h.options {
			l := leftName != "" && matchIdentifier(o, leftName)
			rt := rightName != "" && matchIdentifier(o, rightName)
			switch {
			case l && rt:
				return sql.Errorf(sql.ValidationException, "Ambitious option: %s in hint: %s, the input relations are: Optional[%s], Optional[%s]",
					o, h.name, leftName, rightName)
			case l:
				sides = append(sides, true)
			case rt:
				sides = append(sides, false)
			}
		}
		if len(sides) > 0 {
			j.joinHints = append(j.joinHints, joinHint{name: h.name, left: sides[0]})
		}
	}
	return nil
}

// validateJoinHints is JoinHintsResolver.validateHints: every option of a
// join hint must have named an input of a join the hint reached. Flink
// lists the hints in its HashMap's order and the options of each in a
// HashSet's; sqlrun lists both as Java's hash order for a small map
// (javaHashOrder).
func (b *binder) validateJoinHints() error {
	r := b.hintNames
	if r == nil {
		return nil
	}
	var msg strings.Builder
	bad := false
	for _, name := range javaHashOrder(r.names) {
		var unmatched []string
		for _, o := range javaHashOrder(r.options[name]) {
			if !r.matched[name][o] {
				unmatched = append(unmatched, o)
			}
		}
		bad = bad || len(unmatched) > 0
		fmt.Fprintf(&msg, "\n`%s` in `%s`", strings.Join(unmatched, ", "), name)
	}
	if bad {
		return sql.Errorf(sql.ValidationException,
			"The options of following hints cannot match the name of input tables or views: %s", msg.String())
	}
	return nil
}

// matchIdentifier is JoinHintsResolver.matchIdentifier: the shorter of
// the two dotted names is a suffix of the other.
func matchIdentifier(option, table string) bool {
	o, t := strings.Split(option, "."), strings.Split(table, ".")
	for i := 0; i < len(o) && i < len(t); i++ {
		if o[len(o)-1-i] != t[len(t)-1-i] {
			return false
		}
	}
	return true
}

// javaHashOrder orders strings as a java.util.HashMap (or HashSet) of
// them iterates: by bucket of String.hashCode spread by HashMap.hash, for
// the table size the map has grown to; a bucket keeps insertion order.
func javaHashOrder(keys []string) []string {
	size := 16
	for float64(len(keys)) > 0.75*float64(size) {
		size *= 2
	}
	bucket := func(s string) int {
		var h int32
		for _, c := range s {
			if c > 0xffff { // a surrogate pair: two UTF-16 units
				c -= 0x10000
				h = 31*h + int32(0xd800+(c>>10))
				h = 31*h + int32(0xdc00+(c&0x3ff))
				continue
			}
			h = 31*h + int32(c)
		}
		u := uint32(h)
		return int((u ^ (u >> 16)) & uint32(size-1))
	}
	out := append([]string(nil), keys...)
	sort.SliceStable(out, func(i, j int) bool { return bucket(out[i]) < bucket(out[j]) })
	return out
}

// firstValidJoinHint is BatchPhysicalJoinRuleBase.getFirstValidJoinHint:
// the first hint whose strategy can run j, with the side it puts first
// (the build side; the broadcast side for BROADCAST).
func firstValidJoinHint(j *Join, hints []joinHint, disabled map[string]bool) (joinHint, bool) {
	equi := len(j.LeftKeys) > 0
	for _, h := range hints {
		if isSemiAnti(j.JoinType) {
			// "currently join hint is not supported with semi/anti join"
			continue
		}
		ok := false
		switch h.name {
		case hintBroadcast:
			if equi && !disabled["BroadcastHashJoin"] {
				switch j.JoinType {
				case ast.LeftJoin:
					ok = !h.left
				case ast.RightJoin:
					ok = h.left
				case ast.InnerJoin:
					ok = true
				}
			}
		case hintShuffleHash:
			ok = equi && !disabled["ShuffleHashJoin"]
		case hintShuffleMerge:
			ok = equi && !disabled["SortMergeJoin"]
		case hintNestLoop:
			ok = !disabled["NestedLoopJoin"]
		}
		if ok {
			return h, true
		}
	}
	return joinHint{}, false
}

// joinHintsDigest prints a join's hints as Calcite's RelHint list in the
// AST ("joinHints=[[[BROADCAST inheritPath:[0] options:[t1]]]]").
func joinHintsDigest(hs []queryHint) string {
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", joinHints=[[")
	for _, h := range hs {
		b.WriteString(h.String())
	}
	b.WriteString("]]")
	return b.String()
}
