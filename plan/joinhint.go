package plan

import (
	"fmt"
	"strconv"
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
	// table is a LOOKUP hint's 'table' option.
	table string
}

func (h queryHint) String() string {
	path := make([]string, len(h.path))
	for i, p := range h.path {
		path[i] = fmt.Sprint(p)
	}
	s := "[" + h.name + " inheritPath:[" + strings.Join(path, ", ") + "] options:"
	if len(h.kv) > 0 {
		return s + hintMap(h.kv) + "]"
	}
	return s + "[" + strings.Join(h.options, ", ") + "]]"
}

// joinHint is a join strategy hint resolved on one join: its strategy
// and whether its first option named the left input (FlinkHints.LEFT_INPUT).
type joinHint struct {
	name string
	left bool
}

// hintBlock is the query block being bound: its join hints (strategies
// and LOOKUP, in the order written) and the nodes that carry them (their
// inheritPath is set when the block is done).
type hintBlock struct {
	hints   []queryHint
	holders []hintHolder
}

// hintHolder is a join or lookup correlate of a block and its hints.
type hintHolder struct {
	node  Node
	hints []queryHint
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
			table, err := checkLookupHint(h)
			if err != nil {
				return nil, err
			}
			if blk == nil {
				blk = &hintBlock{}
			}
			blk.hints = append(blk.hints, queryHint{name: h.Name, kv: h.Options, table: table})
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
		for _, h := range blk.holders {
			path, ok := pathTo(root, h.node)
			if !ok {
				continue
			}
			for i := range h.hints {
				h.hints[i].path = path
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
// of a join input: its alias (the ALIAS hint Flink's converter puts on an
// aliased table, view or subquery), else a view's or table's name.
func (b *binder) hintInputName(t ast.TableExpr) string {
	switch x := t.(type) {
	case *ast.TableRef:
		if x.Alias != "" {
			return x.Alias
		}
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
// resolves them against its inputs' names (JoinHintsResolver.visitBiRel):
// a strategy hint takes the side its first matching option names; a
// LOOKUP hint is valid where its table is the right input.
func (b *binder) resolveJoinHints(j *LogicalJoin, leftName, rightName string) error {
	blk := b.block
	if blk == nil {
		return nil
	}
	r := b.hintResolver()
	j.queryHints = append([]queryHint(nil), blk.hints...)
	blk.holders = append(blk.holders, hintHolder{node: j, hints: j.queryHints})
	for _, h := range blk.hints {
		if h.name == hintLookup {
			r.note(h.name, h.table, rightName != "" && matchIdentifier(h.table, rightName))
			continue
		}
		var sides []bool
		for _, o := range h.options {
			l := leftName != "" && matchIdentifier(o, leftName)
			rt := rightName != "" && matchIdentifier(o, rightName)
			r.note(h.name, o, l || rt)
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

// resolveLookupHints attaches the block's LOOKUP hints to a lookup join's
// correlate and applies the one whose 'table' names the looked-up table
// (its alias, else its name). sqlrun's lookup joins are synchronous and do
// not retry: a hint asking for either is refused by name.
func (b *binder) resolveLookupHints(c *LogicalCorrelate, rightName string) error {
	blk := b.block
	if blk == nil {
		return nil
	}
	r := b.hintResolver()
	for _, h := range blk.hints {
		if h.name != hintLookup {
			continue
		}
		c.queryHints = append(c.queryHints, h)
		match := matchIdentifier(h.table, rightName)
		r.note(h.name, h.table, match)
		if !match {
			continue
		}
		if err := applyLookupHint(h); err != nil {
			return err
		}
	}
	if len(c.queryHints) > 0 {
		blk.holders = append(blk.holders, hintHolder{node: c, hints: c.queryHints})
	}
	return nil
}

func (b *binder) hintResolver() *hintResolver {
	if b.hintNames == nil {
		b.hintNames = &hintResolver{options: map[string][]string{}, matched: map[string]map[string]bool{}}
	}
	return b.hintNames
}

// note records that hint name's option was seen on a join, and whether it
// named one of the join's inputs (updateInfoForOptionCheck).
func (r *hintResolver) note(name, option string, matched bool) {
	if r.matched[name] == nil {
		r.names = append(r.names, name)
		r.matched[name] = map[string]bool{}
	}
	if _, ok := r.matched[name][option]; !ok {
		r.options[name] = append(r.options[name], option)
	}
	r.matched[name][option] = r.matched[name][option] || matched
}

// checkLookupHint checks a LOOKUP hint's options as Flink's hint option
// checker does (FlinkHintStrategies, LookupJoinHintOptions), in its words
// (an AssertionError, from Calcite's Litmus.THROW), and returns its
// 'table'. As in Flink, keys it does not know are ignored.
func checkLookupHint(h ast.Hint) (string, error) {
	invalid := func(format string, args ...any) error {
		return sql.Errorf(sql.AssertionError, format, args...)
	}
	if len(h.Options) == 0 {
		return "", invalid("Hint [LOOKUP] only support non empty key value options")
	}
	kv := map[string]string{}
	for _, o := range h.Options {
		kv[o.Key] = o.Value
	}
	table, ok := kv["table"]
	if !ok {
		return "", invalid("Invalid LOOKUP hint: incomplete required option(s): [Key: 'table' , default: null (fallback keys: [])]")
	}
	parse := func(key string, ok bool) error {
		if v, set := kv[key]; set && !ok {
			return invalid("Invalid LOOKUP hint options: Could not parse value '%s' for key '%s'", v, key)
		}
		return nil
	}
	lower := func(k string) string { return strings.ToLower(strings.TrimSpace(kv[k])) }
	_, capErr := strconv.Atoi(strings.TrimSpace(kv["capacity"]))
	attempts, attErr := strconv.Atoi(strings.TrimSpace(kv["max-attempts"]))
	for _, err := range []error{
		parse("async", lower("async") == "true" || lower("async") == "false"),
		parse("output-mode", lower("output-mode") == "ordered" || lower("output-mode") == "allow_unordered"),
		parse("capacity", capErr == nil),
		parse("timeout", isDuration(kv["timeout"])),
		parse("retry-strategy", lower("retry-strategy") == "fixed_delay"),
		parse("fixed-delay", isDuration(kv["fixed-delay"])),
		parse("max-attempts", attErr == nil),
	} {
		if err != nil {
			return "", err
		}
	}
	retry := 0
	for _, k := range []string{"retry-predicate", "retry-strategy", "fixed-delay", "max-attempts"} {
		if _, set := kv[k]; set {
			retry++
		}
	}
	switch {
	case retry != 0 && retry != 4:
		return "", invalid("Invalid LOOKUP hint: retry options can be both null or all not null")
	case retry == 4 && lower("retry-predicate") != "lookup_miss":
		return "", invalid("Invalid LOOKUP hint option: unsupported retry-predicate '%s', only 'lookup_miss' is supported currently", kv["retry-predicate"])
	case retry == 4 && attempts <= 0:
		return "", invalid("Invalid LOOKUP hint option: max-attempts value should be positive integer but was %d", attempts)
	}
	return table, nil
}

// isDuration reports whether s parses as Flink's TimeUtils.parseDuration
// does: a non-negative integer and an optional unit.
func isDuration(s string) bool {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(s[i:])) {
	case "", "d", "day", "days", "h", "hour", "hours", "min", "m", "minute", "minutes", "s", "sec", "secs",
		"second", "seconds", "ms", "milli", "millis", "millisecond", "milliseconds", "us", "micro", "micros",
		"microsecond", "microseconds", "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		return true
	}
	return false
}

// applyLookupHint applies a LOOKUP hint to a lookup join. sqlrun's lookup
// joins are synchronous and do not retry: 'async' = 'true' and the retry
// options are refused by name. The async options ('output-mode',
// 'capacity', 'timeout') have no effect on a synchronous lookup, as in
// Flink when its lookup is synchronous.
func applyLookupHint(h queryHint) error {
	for _, o := range h.kv {
		switch {
		case o.Key == "async" && strings.EqualFold(strings.TrimSpace(o.Value), "true"):
			return sql.Errorf(sql.TableException,
				"sqlrun does not support async lookup joins yet: the LOOKUP hint's 'async' = 'true' cannot be applied to table '%s'", h.table)
		case o.Key == "retry-predicate":
			return sql.Errorf(sql.TableException,
				"sqlrun does not support the LOOKUP hint's retry options yet ('retry-predicate' = '%s' on table '%s'): its lookup joins do not retry", o.Value, h.table)
		}
	}
	return nil
}

// validateJoinHints is JoinHintsResolver.validateHints: every option of a
// join hint must have named an input of a join the hint reached. Flink
// lists the hints in its HashMap's order and the options of each in a
// HashSet's, which javaHashMapOrder reproduces.
func (b *binder) validateJoinHints() error {
	r := b.hintNames
	if r == nil {
		return nil
	}
	var msg strings.Builder
	bad := false
	for _, name := range javaHashMapOrder(r.names) {
		var unmatched []string
		for _, o := range javaHashMapOrder(r.options[name]) {
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
