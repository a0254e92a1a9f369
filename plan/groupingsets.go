package plan

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// GROUP BY GROUPING SETS / ROLLUP / CUBE, as Calcite's validator expands
// them (SqlValidatorUtil.analyzeGroupItem, convertGroupSet) and Flink's
// DecomposeGroupingSetsRule plans them: an Expand emitting every input row
// once per grouping set, with the keys outside the set nulled and the
// set's id in $e, a regular aggregate grouped by the keys and $e, and a
// Calc computing GROUPING / GROUPING_ID from $e.

// isGroupingConstruct reports a GROUP BY item the parser keeps as a call:
// GROUPING SETS (...), ROLLUP (...), CUBE (...) or the empty set ().
func isGroupingConstruct(e ast.Expr) bool {
	f, ok := e.(*ast.FuncCall)
	if !ok || f.Over != nil {
		return false
	}
	switch f.Name {
	case "GROUPING_SETS", "ROLLUP", "CUBE", "GROUPING_EMPTY":
		return true
	}
	return false
}

// expandGroupBy returns the distinct grouping expressions of a GROUP BY, in
// order of first appearance, and its grouping sets over them (nil for a
// plain GROUP BY: a single set of all keys), sorted as Calcite's
// ImmutableBitSet.ORDERING sorts an Aggregate's groupSets.
func expandGroupBy(items []ast.Expr) ([]ast.Expr, [][]int, error) {
	var keys []ast.Expr
	index := map[string]int{}
	key := func(e ast.Expr) int {
		t := e.String()
		if i, ok := index[t]; ok {
			return i
		}
		index[t] = len(keys)
		keys = append(keys, e)
		return len(keys) - 1
	}
	construct := false
	// unit is one element of a ROLLUP / CUBE / GROUPING SETS list: a
	// parenthesized list of keys, (), or one key.
	unit := func(e ast.Expr) []int {
		if f, ok := e.(*ast.FuncCall); ok && f.Over == nil {
			switch f.Name {
			case "ROW":
				var u []int
				for _, a := range f.Args {
					u = append(u, key(a))
				}
				return u
			case "GROUPING_EMPTY":
				return []int{}
			}
		}
		return []int{key(e)}
	}
	var setsOf func(e ast.Expr) ([][]int, error)
	setsOf = func(e ast.Expr) ([][]int, error) {
		f, ok := e.(*ast.FuncCall)
		if !ok || !isGroupingConstruct(e) {
			return [][]int{unit(e)}, nil
		}
		construct = true
		switch f.Name {
		case "GROUPING_EMPTY":
			return [][]int{{}}, nil
		case "GROUPING_SETS":
			var out [][]int
			for _, a := range f.Args {
				if isGroupingConstruct(a) {
					s, err := setsOf(a)
					if err != nil {
						return nil, err
					}
					out = append(out, s...)
					continue
				}
				out = append(out, unit(a))
			}
			return out, nil
		}
		units := make([][]int, len(f.Args))
		for i, a := range f.Args {
			if isGroupingConstruct(a) && a.(*ast.FuncCall).Name != "GROUPING_EMPTY" {
				return nil, validationErr(a.Pos(), 1, "Incorrect syntax near the keyword '%s'", a.(*ast.FuncCall).Name)
			}
			units[i] = unit(a)
		}
		var out [][]int
		if f.Name == "ROLLUP" {
			for k := len(units); k >= 0; k-- {
				var s []int
				for _, u := range units[:k] {
					s = append(s, u...)
				}
				out = append(out, s)
			}
			return out, nil
		}
		for mask := 0; mask < 1<<len(units); mask++ {
			var s []int
			for i, u := range units {
				if mask&(1<<(len(units)-1-i)) == 0 {
					s = append(s, u...)
				}
			}
			out = append(out, s)
		}
		return out, nil
	}
	sets := [][]int{{}}
	for _, it := range items {
		s, err := setsOf(it)
		if err != nil {
			return nil, nil, err
		}
		var next [][]int
		for _, a := range sets {
			for _, c := range s {
				next = append(next, append(append([]int(nil), a...), c...))
			}
		}
		sets = next
	}
	if !construct {
		return keys, nil, nil
	}
	// A set may repeat (GROUPING SETS ((a), (a))): the repeats are kept,
	// and buildAggregate plans them as Calcite's RelBuilder does.
	var out [][]int
	for _, s := range sets {
		out = append(out, normSet(s))
	}
	sortSets(out)
	if len(out) == 1 {
		// One set: a plain GROUP BY of its keys (Calcite's Aggregate with
		// a simple group).
		return keys, nil, nil
	}
	return keys, out, nil
}

// normSet sorts and dedupes a set's keys.
func normSet(s []int) []int {
	out := append([]int(nil), s...)
	sort.Ints(out)
	k := 0
	for i, x := range out {
		if i == 0 || x != out[k-1] {
			out[k] = x
			k++
		}
	}
	return out[:k]
}

// setString prints a set as Calcite prints an ImmutableBitSet: {0, 2}.
func setString(s []int) string {
	p := make([]string, len(s))
	for i, x := range s {
		p[i] = strconv.Itoa(x)
	}
	return "{" + strings.Join(p, ", ") + "}"
}

// sortSets sorts sets as ImmutableBitSet.COMPARATOR: a set before the sets
// it contains, otherwise lexicographically ({0} before {1}).
func sortSets(sets [][]int) {
	contains := func(a, b []int) bool {
		m := map[int]bool{}
		for _, x := range a {
			m[x] = true
		}
		for _, x := range b {
			if !m[x] {
				return false
			}
		}
		return true
	}
	sort.SliceStable(sets, func(i, j int) bool {
		a, b := sets[i], sets[j]
		if contains(a, b) {
			return len(a) > len(b)
		}
		if contains(b, a) {
			return false
		}
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
}

// isGroupingFunc reports GROUPING, GROUPING_ID and GROUP_ID, which Calcite
// counts as aggregate functions.
func isGroupingFunc(name string) bool {
	return name == "GROUPING" || name == "GROUPING_ID" || name == "GROUP_ID"
}

// bindGroupingCall binds GROUPING(k, ...) / GROUPING_ID(k, ...) (an
// aggregate call over grouping keys, BIGINT NOT NULL) and GROUP_ID() (0,
// unless a grouping set repeats: then an aggregate call that
// buildAggregate replaces by each repeat's number).
func (b *binder) bindGroupingCall(f *ast.FuncCall, agg *aggCollector) (Expr, error) {
	if f.Name == "GROUP_ID" {
		if len(f.Args) != 0 {
			return nil, validationErr(f.At, len(f.Name), "Invalid number of arguments to function 'GROUP_ID'. Was expecting 0 arguments")
		}
		if agg.sets == nil {
			// A plain GROUP BY: one set, never repeated.
			return &Literal{Value: int64(0), T: sql.BigInt().NotNull()}, nil
		}
		for i, c := range agg.callText {
			if c == "GROUP_ID()" {
				return &aggPlaceholder{i: len(agg.groupExprs) + i, t: agg.calls[i].T}, nil
			}
		}
		agg.calls = append(agg.calls, AggCall{Func: f.Name, T: sql.BigInt().NotNull()})
		agg.callArgs = append(agg.callArgs, nil)
		agg.callFilter = append(agg.callFilter, nil)
		agg.callText = append(agg.callText, "GROUP_ID()")
		return &aggPlaceholder{i: len(agg.groupExprs) + len(agg.calls) - 1, t: sql.BigInt().NotNull()}, nil
	}
	if len(f.Args) == 0 {
		return nil, validationErr(f.At, len(f.Name), "Invalid number of arguments to function '%s'. Was expecting 1 arguments", f.Name)
	}
	var args []Expr
	for _, a := range f.Args {
		at := -1
		for i, g := range agg.groupAST {
			if g == a.String() {
				at = i
			}
		}
		if at < 0 {
			// SqlValidatorImpl's groupingArgument check.
			return nil, validationErr(a.Pos(), 1, "Argument to %s operator must be a grouped expression", f.Name)
		}
		args = append(args, agg.groupExprs[at])
	}
	if agg.sets == nil {
		// A plain GROUP BY: every key is in the one set.
		return &Literal{Value: int64(0), T: sql.BigInt().NotNull()}, nil
	}
	txt := f.String()
	for i, c := range agg.callText {
		if c == txt {
			return &aggPlaceholder{i: len(agg.groupExprs) + i, t: agg.calls[i].T}, nil
		}
	}
	agg.calls = append(agg.calls, AggCall{Func: f.Name, T: sql.BigInt().NotNull()})
	agg.callArgs = append(agg.callArgs, args)
	agg.callFilter = append(agg.callFilter, nil)
	agg.callText = append(agg.callText, txt)
	return &aggPlaceholder{i: len(agg.groupExprs) + len(agg.calls) - 1, t: sql.BigInt().NotNull()}, nil
}

// LogicalExpand is Flink's Expand: every input row once per projection.
type LogicalExpand struct {
	base
	Projects [][]Expr
}

func (*LogicalExpand) Name() string { return "LogicalExpand" }

func (n *LogicalExpand) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalExpand) describe(f Format) string {
	return "LogicalExpand(" + expandProjects(n.Projects, n.input(), n.names, f) + ")"
}

// Expand is Flink's StreamPhysicalExpand / BatchPhysicalExpand.
type Expand struct {
	base
	Projects [][]Expr
}

func (*Expand) Name() string { return "Expand" }

func (n *Expand) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// describe is Expand's explainTerms (RelExplainUtil.projectsToString):
// projects=[{a, null AS b, 1 AS $e}, ...].
func (n *Expand) describe(f Format) string {
	return "Expand(" + expandProjects(n.Projects, n.input(), n.names, f) + ")"
}

func expandProjects(projects [][]Expr, in Node, names []string, f Format) string {
	var ps []string
	for _, p := range projects {
		var fs []string
		for i, e := range p {
			if r, ok := e.(*InputRef); ok && in.Names()[r.Index] == names[i] {
				fs = append(fs, names[i])
				continue
			}
			s := FormatExpr(e, in.Names(), f)
			if l, ok := e.(*Literal); ok {
				// Expand prints its literals bare: null, 1.
				s = "null"
				if l.Value != nil {
					s = strconv.FormatInt(l.Value.(int64), 10)
				}
			}
			fs = append(fs, s+" AS "+names[i])
		}
		ps = append(ps, "{"+strings.Join(fs, ", ")+"}")
	}
	return "projects=[" + strings.Join(ps, ", ") + "]"
}

// decomposeGroupingSets is Flink's DecomposeGroupingSetsRule: an aggregate
// with grouping sets becomes a Calc over an aggregate grouped by its keys
// and $e over an Expand. $e of a set has bit n-1-i set for each key i of
// the n keys outside it (GROUPING_ID of all keys); GROUPING(k) and
// GROUPING_ID(k, ...) are CASEs on $e.
func decomposeGroupingSets(b *binder, n Node) (Node, error) {
	if p, ok := n.(*LogicalProject); ok && identityProject(p) {
		// ProjectRemoveRule (PROJECT_RULES, before LOGICAL where this rule
		// runs) has dropped a projection that returns the aggregate's
		// fields in order, whatever it renamed: the projection over the
		// decomposed aggregate names them as the aggregate does
		// (GroupingSetsTest.testGroupingGrouping_idAndGroup_id: gd_0,
		// Aggregate.deriveRowType's name for a second call aliased gd).
		if a, ok := p.input().(*LogicalAggregate); ok && a.Sets != nil {
			if out, err := decomposeGroupingSets(b, a); err != nil || out != nil {
				return out, err
			}
		}
		return nil, nil
	}
	orig, ok := n.(*LogicalAggregate)
	if !ok || orig.Sets == nil {
		return nil, nil
	}
	split, err := splits(b, orig)
	if err != nil {
		return nil, err
	}
	if windowGroupingSets(orig) && !split {
		// Every set holds window_start and window_end: a window aggregate
		// over an Expand (convertWindowAggregate), as Flink's
		// ExpandWindowTableFunctionTransposeRule and
		// StreamPhysicalWindowAggregateRule plan it. Otherwise (a set
		// without them) the aggregate is a regular one over the
		// WindowTableFunction, as in Flink
		// (WindowAggregateTest.testCantTranslateToWindowAgg_GroupingSetsWithoutWindowStartEnd).
		// An aggregate SplitAggregateRule splits is decomposed here, as
		// Flink decomposes all grouping sets: its partial and final
		// window aggregates group by $e
		// (WindowAggregateTest.testTumble_GroupingSetsDistinctSplitEnabled).
		return nil, nil
	}
	agg, keyAt := expandInput(orig)
	in := agg.input()
	nIn := len(in.Names())
	keyPos := map[int]int{} // input field -> position among the keys
	for i, g := range agg.Group {
		keyPos[g] = i
	}
	inSet := func(set []int, f int) bool {
		for _, x := range set {
			if x == f {
				return true
			}
		}
		return false
	}
	eValue := func(set []int) int64 {
		// The bits follow the keys' order in the Expand's input.
		var v int64
		for i, g := range agg.Group {
			if !inSet(set, g) {
				v |= 1 << (len(agg.Group) - 1 - i)
			}
		}
		return v
	}
	// ExpandUtil.buildExpandNode: a key a regular aggregate also reads
	// (MAX(s) ... GROUP BY CUBE(s)), unless every set holds it, is
	// output twice, nulled as the key and whole for the aggregate, after
	// $e; otherwise the grand total's MAX(s) would read the nulled key.
	var common []int
	for i, set := range agg.Sets {
		if i == 0 {
			common = append([]int(nil), set...)
			continue
		}
		var keep []int
		for _, f := range common {
			if inSet(set, f) {
				keep = append(keep, f)
			}
		}
		common = keep
	}
	dupSet := map[int]bool{}
	for _, a := range agg.Aggs {
		if a.Func == "GROUPING" || a.Func == "GROUPING_ID" || a.Func == "GROUP_ID" {
			continue
		}
		args := append([]int(nil), a.Args...)
		if a.Filtered {
			args = append(args, a.Filter)
		}
		for _, f := range args {
			if _, isKey := keyPos[f]; isKey && !inSet(common, f) {
				dupSet[f] = true
			}
		}
	}
	var dups []int
	for f := range dupSet {
		dups = append(dups, f)
	}
	sort.Ints(dups)
	dupAt := map[int]int{} // input field -> its whole copy in the Expand
	names := append(append([]string(nil), in.Names()...), "$e")
	names = uniquify(names)
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	for i, f := range dups {
		dupAt[f] = nIn + 1 + i
		// ExpandUtil.buildDuplicateFieldName: name_0, name_1, ...
		n := in.Names()[f] + "_0"
		for j := 1; taken[n]; j++ {
			n = in.Names()[f] + "_0_" + strconv.Itoa(j-1)
		}
		taken[n] = true
		names = append(names, n)
	}
	types := append([]sql.DataType(nil), in.Types()...)
	for _, g := range agg.Group {
		types[g] = types[g].WithNullable(true)
	}
	types = append(types, sql.BigInt().NotNull())
	for _, f := range dups {
		types = append(types, in.Types()[f])
	}
	var projects [][]Expr
	for _, set := range agg.Sets {
		p := make([]Expr, 0, nIn+1)
		for f := 0; f < nIn; f++ {
			if _, isKey := keyPos[f]; isKey && !inSet(set, f) {
				p = append(p, &Literal{T: types[f]})
				continue
			}
			p = append(p, &InputRef{Index: f, T: types[f]})
		}
		p = append(p, &Literal{Value: eValue(set), T: sql.BigInt().NotNull()})
		for _, f := range dups {
			p = append(p, &InputRef{Index: f, T: in.Types()[f]})
		}
		projects = append(projects, p)
	}
	ex := &LogicalExpand{base: row(names, types, in), Projects: projects}
	group := append(append([]int(nil), agg.Group...), nIn)
	var aggs []AggCall
	var outNames []string
	var outTypes []sql.DataType
	for _, g := range group {
		outNames = append(outNames, names[g])
		outTypes = append(outTypes, types[g])
	}
	at := map[int]int{}
	for i, a := range agg.Aggs {
		if a.Func == "GROUPING" || a.Func == "GROUPING_ID" || a.Func == "GROUP_ID" {
			continue
		}
		at[i] = len(group) + len(aggs)
		a.Name = a.fieldName(len(group) + len(aggs))
		if len(dupAt) > 0 {
			a = a.remapped(func(f int) int {
				if d, ok := dupAt[f]; ok {
					return d
				}
				return f
			})
		}
		aggs = append(aggs, a)
		outNames = append(outNames, a.Name)
		outTypes = append(outTypes, a.T)
	}
	inner := &LogicalAggregate{base: row(aggregateNames(outNames, len(group)), outTypes, ex), Group: group, Aggs: aggs}
	eRef := &InputRef{Index: len(agg.Group), T: sql.BigInt().NotNull()}
	exprs := make([]Expr, len(agg.names))
	for i := range agg.Group {
		exprs[keyAt[i]] = &InputRef{Index: i, T: outTypes[i]}
	}
	for i, a := range agg.Aggs {
		k := len(agg.Group) + i
		if j, ok := at[i]; ok {
			exprs[k] = &InputRef{Index: j, T: a.T}
			continue
		}
		if a.Func == "GROUP_ID" {
			// DecomposeGroupingSetsRule: no set repeats (buildAggregate
			// has made a union of the repeats), so every row's GROUP_ID
			// is 0.
			exprs[k] = &Literal{Value: int64(0), T: sql.BigInt().NotNull()}
			continue
		}
		// The value of the call in each set, as a CASE on $e.
		vals := make([]int64, len(agg.Sets))
		for s, set := range agg.Sets {
			var v int64
			for j, x := range a.Args {
				if !inSet(set, x) {
					v |= 1 << (len(a.Args) - 1 - j)
				}
			}
			vals[s] = v
		}
		eVals := make([]int64, len(agg.Sets))
		for s, set := range agg.Sets {
			eVals[s] = eValue(set)
		}
		exprs[k] = groupingCase(eRef, eVals, vals)
	}
	return &LogicalProject{base: row(agg.names, agg.types, inner), Exprs: exprs}, nil
}

// windowGroupingSets reports an aggregate with grouping sets over a window
// table function (directly or through a Calc) whose every set holds both
// window_start and window_end.
func windowGroupingSets(agg *LogicalAggregate) bool {
	if agg.Sets == nil {
		return false
	}
	var exprs []Expr
	var tvf *LogicalWindowTableFunction
	switch x := agg.input().(type) {
	case *LogicalCalc:
		if x.Cond != nil {
			return false
		}
		tvf, _ = x.input().(*LogicalWindowTableFunction)
		exprs = x.Exprs
	case *LogicalProject:
		tvf, _ = x.input().(*LogicalWindowTableFunction)
		exprs = x.Exprs
	case *LogicalWindowTableFunction:
		tvf, exprs = x, identity(x.types)
	}
	if tvf == nil || tvf.Window.Func == "SESSION" {
		// A SESSION window aggregate groups by exactly its PARTITION BY
		// keys (WindowUtil.validGroupKeyPartitionKey), never by the
		// Expand's $e: grouping sets over it are a regular aggregate
		// over an Expand of the session table function.
		return false
	}
	nIn := len(tvf.input().Names())
	for _, set := range agg.Sets {
		var start, end bool
		for _, f := range set {
			if ref, ok := exprs[f].(*InputRef); ok {
				start = start || ref.Index == nIn
				end = end || ref.Index == nIn+1
			}
		}
		if !start || !end {
			return false
		}
	}
	return true
}

// expandInput is the aggregate the Expand goes under: where its input
// is a permutation of all of a scan's fields, or fields of a join (whose
// inputs the projection is pushed into), the Expand reads those
// fields of the projection's input directly, in that input's order, as
// Flink's plans show (GroupingSetsTest.testCube: Expand over the scan's
// a, b, c where the aggregate's input is b, c, a; testCubeAndJoin: over
// the join's fields), with the keys sorted by
// field. keyAt[i] is the original position of the new aggregate's key i.
func expandInput(agg *LogicalAggregate) (*LogicalAggregate, []int) {
	keyAt := make([]int, len(agg.Group))
	for i := range keyAt {
		keyAt[i] = i
	}
	p, ok := agg.input().(*LogicalProject)
	if !ok {
		return agg, keyAt
	}
	below := p.input()
	_, isJoin := below.(*LogicalJoin)
	if _, isScan := below.(*LogicalTableScan); !isScan && !isJoin {
		return agg, keyAt
	}
	used := map[int]bool{}
	for _, e := range p.Exprs {
		r, ok := e.(*InputRef)
		if !ok {
			return agg, keyAt
		}
		used[r.Index] = true
	}
	if len(used) != len(p.Exprs) || !isJoin && len(used) != len(below.Names()) {
		// A field read twice, or a scan's fields not all read (Flink keeps
		// that projection: GroupingSetsTest.testGroupingInSelectClauseOfCubeQuery).
		return agg, keyAt
	}
	var fields []int
	for f := range below.Names() {
		if used[f] {
			fields = append(fields, f)
		}
	}
	pos := map[int]int{}
	for i, f := range fields {
		pos[f] = i
	}
	in := below
	if len(fields) != len(below.Names()) {
		exprs := make([]Expr, len(fields))
		names := make([]string, len(fields))
		for i, f := range fields {
			exprs[i] = &InputRef{Index: f, T: below.Types()[f]}
			names[i] = below.Names()[f]
		}
		in = project(below, exprs, names)
	}
	// m maps the aggregate's input fields to fields of in.
	m := make([]int, len(p.Exprs))
	for i, e := range p.Exprs {
		m[i] = pos[e.(*InputRef).Index]
	}
	type key struct{ at, field int }
	keys := make([]key, len(agg.Group))
	for i, g := range agg.Group {
		keys[i] = key{i, m[g]}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].field < keys[j].field })
	out := &LogicalAggregate{base: agg.base.with([]Node{in}), Group: make([]int, len(keys))}
	for i, k := range keys {
		out.Group[i] = k.field
		keyAt[i] = k.at
	}
	for _, a := range agg.Aggs {
		out.Aggs = append(out.Aggs, a.remapped(func(x int) int { return m[x] }))
	}
	for _, s := range agg.Sets {
		fs := make([]int, len(s))
		for i, x := range s {
			fs[i] = m[x]
		}
		out.Sets = append(out.Sets, normSet(fs))
	}
	sortSets(out.Sets)
	return out, keyAt
}

// groupingCase is the CASE Calcite's simplification makes of
// CASE WHEN $e = e0 THEN v0 ... ELSE vLast END: trailing branches equal to
// the ELSE dropped, consecutive branches of one value merged into a
// SEARCH.
func groupingCase(e *InputRef, eVals, vals []int64) Expr {
	lit := func(v int64) Expr { return &Literal{Value: v, T: sql.BigInt().NotNull()} }
	last := vals[len(vals)-1]
	k := len(vals) - 1
	for k > 0 && vals[k-1] == last {
		k--
	}
	if k == 0 {
		return lit(last)
	}
	var args []Expr
	for i := 0; i < k; {
		j := i
		var terms []Expr
		for j < k && vals[j] == vals[i] {
			terms = append(terms, &Call{Op: "=", Args: []Expr{e, lit(eVals[j])}, T: sql.Boolean().NotNull()})
			j++
		}
		args = append(args, simplifyFilter(or(terms)), lit(vals[i]))
		i = j
	}
	args = append(args, lit(last))
	return &Call{Op: "CASE", Args: args, T: sql.BigInt().NotNull()}
}

// hasRepeatedSet reports grouping sets of which one repeats.
func hasRepeatedSet(sets [][]int) bool {
	seen := map[string]bool{}
	for _, s := range sets {
		k := setString(s)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// repeatedSetsUnion is Calcite's RelBuilder.rewriteAggregateWithDuplicateGroupSets:
// where a grouping set repeats n times, GROUP_ID() numbers its repeats 0
// to n - 1, so the aggregate becomes a UNION ALL of one aggregate per
// number, each over the sets that repeat more often than that number (a
// set counted once in each), with GROUP_ID() the number as a literal in
// the projection above it. agg is the aggregate as it would be without the
// rewrite (its Sets with the repeats), whose row the union keeps.
func repeatedSetsUnion(agg *LogicalAggregate) Node {
	count := map[string]int{}
	var order [][]int // the distinct sets, in agg.Sets order
	for _, s := range agg.Sets {
		k := setString(s)
		if count[k] == 0 {
			order = append(order, s)
		}
		count[k]++
	}
	maxID := 0
	for _, n := range count {
		maxID = max(maxID, n-1)
	}
	var keep []AggCall // the calls but GROUP_ID
	for _, c := range agg.Aggs {
		if c.Func != "GROUP_ID" {
			keep = append(keep, c)
		}
	}
	full := normSet(agg.Group)
	branches := make([]Node, 0, maxID+1)
	for id := 0; id <= maxID; id++ {
		var sets [][]int
		for _, s := range order {
			if count[setString(s)] > id {
				sets = append(sets, s)
			}
		}
		names := append([]string(nil), agg.names[:len(agg.Group)]...)
		types := append([]sql.DataType(nil), agg.types[:len(agg.Group)]...)
		for _, c := range keep {
			names = append(names, c.Name)
			types = append(types, c.T)
		}
		a := &LogicalAggregate{base: row(aggregateNames(names, len(agg.Group)), types, agg.input()), Group: agg.Group, Aggs: keep}
		if len(sets) > 1 || setString(sets[0]) != setString(full) {
			a.Sets = sets
			sortSets(a.Sets)
		}
		exprs := make([]Expr, 0, len(agg.names))
		for i := range agg.Group {
			exprs = append(exprs, &InputRef{Index: i, T: a.types[i]})
		}
		seen := 0
		for _, c := range agg.Aggs {
			if c.Func == "GROUP_ID" {
				exprs = append(exprs, &Literal{Value: int64(id), T: sql.BigInt().NotNull()})
				continue
			}
			f := len(agg.Group) + seen
			exprs = append(exprs, &InputRef{Index: f, T: a.types[f]})
			seen++
		}
		branches = append(branches, &LogicalProject{base: row(agg.names, agg.types, a), Exprs: exprs})
	}
	return &LogicalUnion{base: row(agg.names, agg.types, branches...), All: true}
}
