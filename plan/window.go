package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/config"
	"github.com/sqlrun/sqlrun/sql"
	"github.com/sqlrun/sqlrun/sql/ast"
)

// Windowing is a window TVF's window: TUMBLE(size [, offset]),
// HOP(slide, size [, offset]) or CUMULATE(step, max size [, offset]), in
// milliseconds.
type Windowing struct {
	Func                      string // TUMBLE, HOP, CUMULATE, SESSION
	Size, Slide, Step, Offset int64  // SESSION: Size is the gap
	// Partition is SESSION's PARTITION BY keys (fields of the TVF's
	// input); PartitionNames their names in the aggregate's input.
	Partition      []int
	PartitionNames []string
	// ProcTime is a window on a processing-time attribute (PROCTIME()).
	ProcTime bool
	// Legacy is the group window of GROUP BY TUMBLE(ts, ...) (Flink's
	// GroupWindowAggregate, groupwindow.go); Props that the query reads
	// its window properties (TUMBLE_START, ...).
	Legacy, Props bool
	// Emit is a legacy group window's emit strategy (groupwindow.go).
	Emit EmitStrategy
	// Zone is the session time zone the windows align in when the time
	// attribute is a TIMESTAMP_LTZ (a processing-time one is), nil (UTC)
	// for a TIMESTAMP: Flink's TimeWindowUtil.getShiftTimeZone.
	Zone *time.Location
}

// spec is Flink's WindowSpec.toSummaryString after the time column part.
func (w Windowing) spec() string {
	var s string
	switch w.Func {
	case "HOP":
		s = "size=[" + formatDuration(w.Size) + "], slide=[" + formatDuration(w.Slide) + "]"
	case "CUMULATE":
		s = "max_size=[" + formatDuration(w.Size) + "], step=[" + formatDuration(w.Step) + "]"
	case "SESSION":
		// SessionWindowSpec.toSummaryString.
		s = "gap=[" + formatDuration(w.Size) + "]"
		if len(w.PartitionNames) > 0 {
			s += ", partition keys=[" + strings.Join(w.PartitionNames, ", ") + "]"
		}
		return s
	default:
		s = "size=[" + formatDuration(w.Size) + "]"
	}
	if w.Offset != 0 {
		s += ", offset=[" + formatDuration(w.Offset) + "]"
	}
	return s
}

// formatDuration is Flink's TimeUtils.formatWithHighestUnit: the largest
// unit that divides the duration ("15 min", "1 h", "500 ms").
func formatDuration(ms int64) string {
	for _, u := range []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}} {
		if ms != 0 && ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + " ms"
}

// LogicalWindowTableFunction is a window TVF in FROM (Calcite's
// LogicalTableFunctionScan of TUMBLE/HOP/CUMULATE): its input's row plus
// window_start, window_end and window_time.
type LogicalWindowTableFunction struct {
	base
	TimeCol int
	Window  Windowing
}

func (*LogicalWindowTableFunction) Name() string { return "LogicalTableFunctionScan" }

func (n *LogicalWindowTableFunction) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

func (n *LogicalWindowTableFunction) describe(f Format) string {
	args := []string{"$" + strconv.Itoa(len(n.input().Names())-1), "DESCRIPTOR($" + strconv.Itoa(n.TimeCol) + ")"}
	lit := func(ms int64) string { return strconv.FormatInt(ms, 10) + ":INTERVAL " + intervalUnit(ms) }
	switch n.Window.Func {
	case "HOP":
		args = append(args, lit(n.Window.Slide), lit(n.Window.Size))
	case "CUMULATE":
		args = append(args, lit(n.Window.Step), lit(n.Window.Size))
	default:
		args = append(args, lit(n.Window.Size))
	}
	if n.Window.Offset != 0 {
		args = append(args, lit(n.Window.Offset))
	}
	var fields []string
	in := n.input().Names()
	for i, name := range n.names {
		t := strings.NewReplacer(" CHARACTER SET \"UTF-16LE\"", "", "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "TIMESTAMP_LTZ").Replace(calciteType(n.types[i].WithNullable(true)))
		attr := ""
		if i < len(in) {
			attr = timeAttribute(n.input(), i)
		}
		switch {
		case (i == n.TimeCol || i == len(in)+2) && !n.Window.ProcTime || attr == "rowtime":
			t += " *ROWTIME*"
		case i == len(in)+2 || attr == "proctime":
			t += " *PROCTIME*"
		}
		fields = append(fields, t+" "+name)
	}
	return "LogicalTableFunctionScan(invocation=[" + n.Window.Func + "(" + strings.Join(args, ", ") +
		")], rowType=[RecordType(" + strings.Join(fields, ", ") + ")])"
}

func intervalUnit(ms int64) string {
	switch {
	case ms%86400000 == 0:
		return "DAY"
	case ms%3600000 == 0:
		return "HOUR"
	case ms%60000 == 0:
		return "MINUTE"
	}
	return "SECOND"
}

// WindowAggregate is Flink's StreamPhysicalWindowAggregate (Phase 0), or
// its two phases LocalWindowAggregate (1) and GlobalWindowAggregate (2).
// One-phase and local read the window from TimeCol; the output of
// one-phase and global is the group keys, the aggregates, window_start,
// window_end (and window_time); local's is the keys, the accumulators
// and $slice_end.
type WindowAggregate struct {
	base
	Group      []int
	Aggs       []AggCall
	TimeCol    int
	Window     Windowing
	WindowTime bool
	Phase      int
	// Attached reads each row's window from its window_start and
	// window_end fields WinStart and WinEnd (Flink's
	// WindowAttachedWindowingStrategy, windowattached.go) rather than
	// assigning it from TimeCol; a global phase's from its local phase's
	// $window_end.
	Attached         bool
	WinStart, WinEnd int
}

func (n *WindowAggregate) Name() string {
	if n.Window.Legacy {
		return "GroupWindowAggregate"
	}
	switch n.Phase {
	case 1:
		return "LocalWindowAggregate"
	case 2:
		return "GlobalWindowAggregate"
	}
	return "WindowAggregate"
}

func (n *WindowAggregate) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// Local is a global phase's LocalWindowAggregate below its Exchange.
func (n *WindowAggregate) Local() *WindowAggregate {
	in := n.input()
	if ex, ok := in.(*Exchange); ok {
		in = ex.input()
	}
	l, _ := in.(*WindowAggregate)
	return l
}

func (n *WindowAggregate) describe(Format) string {
	if n.Window.Legacy {
		return n.groupWindowDescribe()
	}
	in := n.input().Names()
	var sel []string
	window := n.Window.Func + "(time_col=[" + in[max(n.TimeCol, 0)] + "], " + n.Window.spec() + ")"
	if n.Attached && n.Phase != 2 {
		window = attachedWindow(n.Window, in, n.WinStart, n.WinEnd)
	}
	switch n.Phase {
	case 1:
		count1 := "COUNT(*)"
		if retracts(n.Aggs) {
			count1 = "COUNT_RETRACT(*)"
		}
		sel = localSelect(in, n.Group, n.Aggs, localBuffers(n), count1)
		sel = append(sel, "slice_end('w$) AS "+n.names[len(n.names)-1])
	case 2:
		local := n.Local()
		l := localBuffers(local)
		window = n.Window.Func + "(slice_end=[$slice_end], " + n.Window.spec() + ")"
		if n.Attached {
			// TwoStageOptimizedWindowAggregateRule: a local phase over
			// attached windows passes each window's end on.
			window = n.Window.Func + "(win_end=[" + in[len(in)-1] + "], " + n.Window.spec() + ")"
		}
		for i := range n.Group {
			sel = append(sel, in[i])
		}
		var vals []string
		for i, a := range n.Aggs {
			arg := strings.Join(l.bufs[i], ", ")
			if len(l.bufs[i]) > 1 {
				arg = "(" + arg + ")"
			}
			if a.Distinct {
				arg = l.distinctOf[i] + " " + arg
			}
			fn := a.Func
			if a.Retract && a.UDF == nil {
				fn += "_RETRACT"
			}
			vals = append(vals, fn+"("+arg+")")
		}
		if l.count1 != "" {
			fn := "COUNT"
			if retracts(n.Aggs) {
				fn = "COUNT_RETRACT"
			}
			vals = append(vals, fn+"("+l.count1+")")
		}
		vals = append(vals, "start('w$)", "end('w$)")
		if n.WindowTime {
			vals = append(vals, "rowtime('w$)")
		}
		// The output fields' names in order: a HOP window's input count
		// (above) shifts them, and the last window property goes unprinted,
		// as StreamPhysicalGlobalWindowAggregate's explainTerms zips its
		// aggregate list with the row type's names
		// (WindowAggregateTest.testHop_GroupingSets[aggPhaseEnforcer=TWO_PHASE]:
		// COUNT(count1$1) AS window_start, start('w$) AS window_end).
		out := n.names[len(n.Group):]
		for i, v := range vals {
			if i < len(out) {
				sel = append(sel, v+" AS "+out[i])
			}
		}
	default:
		for _, g := range n.Group {
			sel = append(sel, in[g])
		}
		for _, a := range n.Aggs {
			sel = append(sel, aggString(a, in)+" AS "+a.Name)
		}
	}
	if n.Phase == 0 {
		k := len(n.Group) + len(n.Aggs)
		sel = append(sel, "start('w$) AS "+n.names[k], "end('w$) AS "+n.names[k+1])
		if n.WindowTime {
			prop := "rowtime"
			if n.Window.ProcTime {
				prop = "proctime"
			}
			sel = append(sel, prop+"('w$) AS "+n.names[k+2])
		}
	}
	s := n.Name() + "("
	if len(n.Group) > 0 {
		if n.Phase == 2 {
			s += "groupBy=[" + strings.Join(in[:len(n.Group)], ", ") + "], "
		} else {
			s += "groupBy=[" + names(in, n.Group) + "], "
		}
	}
	return s + "window=[" + window + "], select=[" + strings.Join(sel, ", ") + "])"
}

// retracts reports a window aggregate over an updating input: its calls
// are the retracting functions.
func retracts(aggs []AggCall) bool {
	for _, a := range aggs {
		if a.Retract {
			return true
		}
	}
	return false
}

// localAccs are a LocalWindowAggregate's accumulator fields as Flink's
// AggregateUtil.transformToStreamAggregateInfoList names them: each call's
// buffers (count1$i, sum$i, ...; i counts buffers across calls), a
// COUNT(*) input count a HOP window needs when no call is one
// (needInputCount: the sliced hopping window merges slices and must know
// an empty one), and one DISTINCT(args) view per distinct argument list
// that the DISTINCT calls reading it share (distinct$0, distinct$1, ...).
type localAccs struct {
	bufs         [][]string
	types        [][]sql.DataType
	count1       string
	distinctOf   []string
	distinctArgs [][]int
}

func (l localAccs) as(i int) string {
	if len(l.bufs[i]) > 1 {
		return "(" + strings.Join(l.bufs[i], ", ") + ")"
	}
	return l.bufs[i][0]
}

// fieldNames are the local phase's accumulator fields in output order.
func (l localAccs) fieldNames() ([]string, []sql.DataType) {
	var ns []string
	var ts []sql.DataType
	for i := range l.bufs {
		ns = append(ns, l.bufs[i]...)
		ts = append(ts, l.types[i]...)
	}
	if l.count1 != "" {
		ns = append(ns, l.count1)
		ts = append(ts, sql.BigInt().NotNull())
	}
	for i := range l.distinctArgs {
		ns = append(ns, "distinct$"+strconv.Itoa(i))
		ts = append(ts, sql.Bytes().NotNull())
	}
	return ns, ts
}

// localSelect is a local aggregate's select list as Flink prints it: the
// grouping fields, each call as its accumulators (a DISTINCT call reads
// the DISTINCT(c) view: COUNT(distinct$0 c)), the row count the global
// phase needs (count1, spelled count1Call), then the distinct views.
func localSelect(in []string, group []int, aggs []AggCall, l localAccs, count1Call string) []string {
	var sel []string
	for _, g := range group {
		sel = append(sel, in[g])
	}
	for i, a := range aggs {
		s := aggString(a, in)
		if a.Distinct {
			fn := a.Func
			if a.Retract {
				fn += "_RETRACT"
			}
			s = fn + "(" + l.distinctOf[i] + " " + names(in, a.Args) + ")"
			if a.Filtered {
				s += " FILTER " + names(in, []int{a.Filter})
			}
		}
		sel = append(sel, s+" AS "+l.as(i))
	}
	if l.count1 != "" {
		sel = append(sel, count1Call+" AS "+l.count1)
	}
	for i, args := range l.distinctArgs {
		sel = append(sel, "DISTINCT("+names(in, args)+") AS distinct$"+strconv.Itoa(i))
	}
	return sel
}

func localBuffers(local *WindowAggregate) localAccs {
	intypes := local.input().Types()
	var l localAccs
	// A retracting SUM keeps (sum, count) (streamAccs).
	l.bufs, l.types = streamAccs(local.Aggs, intypes).bufs, streamAccs(local.Aggs, intypes).types
	hasCount1 := false
	nbuf := 0
	keys := map[string]int{}
	l.distinctOf = make([]string, len(local.Aggs))
	for i, a := range local.Aggs {
		nbuf += len(l.bufs[i])
		if a.Func == "COUNT" && len(a.Args) == 0 && !a.Distinct && !a.Filtered {
			hasCount1 = true
		}
		if !a.Distinct {
			continue
		}
		k := fmt.Sprint(a.Args)
		d, ok := keys[k]
		if !ok {
			d = len(l.distinctArgs)
			keys[k] = d
			l.distinctArgs = append(l.distinctArgs, a.Args)
		}
		l.distinctOf[i] = "distinct$" + strconv.Itoa(d)
	}
	// AggregateUtil.deriveStreamWindowAggregateInfoList: a HOP window,
	// and any window over an updating input (needRetraction), needs the
	// input count to tell an empty window (one whose rows were all
	// retracted emits nothing).
	if (local.Window.Func == "HOP" || retracts(local.Aggs)) && !hasCount1 {
		l.count1 = "count1$" + strconv.Itoa(nbuf)
	}
	return l
}

// bindWindowTVF binds TABLE(TUMBLE|HOP|CUMULATE(TABLE t, DESCRIPTOR(col),
// interval, ...)) as Flink's SqlWindowTableFunction validates it.
func (b *binder) bindWindowTVF(x *ast.TableFunctionRef) (Node, *scope, error) {
	var params []string
	switch x.Name {
	case "TUMBLE":
		params = []string{"DATA", "TIMECOL", "SIZE", "OFFSET"}
	case "HOP":
		params = []string{"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"}
	case "CUMULATE":
		params = []string{"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"}
	case "SESSION":
		params = []string{"DATA", "TIMECOL", "GAP"}
	default:
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support the table function %s yet", x.Name)
	}
	sig := x.Name + "(TABLE table_name, DESCRIPTOR(timecol), datetime interval[, datetime interval])"
	switch x.Name {
	case "SESSION":
		sig = "SESSION(TABLE table_name [PARTITION BY (keycols, ...)], DESCRIPTOR(timecol), datetime interval)"
	case "HOP", "CUMULATE":
		sig = x.Name + "(TABLE table_name, DESCRIPTOR(timecol), datetime interval, datetime interval[, datetime interval])"
	}
	args := map[string]ast.TableFuncArg{}
	for i, a := range x.Args {
		name := strings.ToUpper(a.Name)
		if name == "" && i < len(params) {
			name = params[i]
		}
		args[name] = a
	}
	signatureErr := func() error {
		return validationErr(x.At, len(x.Name), "Invalid number of arguments to function '%s'. Was expecting %d arguments", x.Name, len(params)-1)
	}
	if len(x.Args) < len(params)-1 || len(x.Args) > len(params) {
		return nil, nil, signatureErr()
	}
	// Flink's SqlWindowTableFunction reads its table and descriptor
	// operands by position, named or not: DATA must come first and
	// TIMECOL second (WindowTableFunctionTest.testWindowTVFWithNamedParamsOrderChange1/2;
	// FLINK-34338 is to lift this).
	tvfArgErr := func(msg string) error {
		return &sql.Error{Class: sql.ValidationException, Msg: "SQL validation failed. " + msg,
			Err: &sql.Error{Class: sql.ValidationException, Msg: msg}}
	}
	if n := strings.ToUpper(x.Args[0].Name); n != "" && n != "DATA" {
		return nil, nil, tvfArgErr("Illegal first argument to Window TVF: Note that the DATA param must be the first")
	}
	if n := strings.ToUpper(x.Args[1].Name); n != "" && n != "TIMECOL" {
		return nil, nil, tvfArgErr("Illegal second argument to Window TVF: Expecting TIMECOL")
	}
	data, ok := args["DATA"]
	if !ok || data.Table == nil {
		return nil, nil, sql.Errorf(sql.ValidationException, "Illegal first argument to Window TVF: Note that the DATA param must be the first")
	}
	in, sc, err := b.bindFrom(&ast.TableRef{Node: data.Node, Name: *data.Table})
	if err != nil {
		return nil, nil, err
	}
	var partition []int
	if len(data.Partition) > 0 && x.Name != "SESSION" {
		// Calcite's invalidPartitionKeys: TUMBLE, HOP and CUMULATE take
		// their table with row semantics.
		return nil, nil, sql.Errorf(sql.ValidationException,
			"Only tables with set semantics may be partitioned. Invalid PARTITION BY clause in the 0-th operand of table function '%s'", x.Name)
	}
	for _, k := range data.Partition {
		i := -1
		for j, n := range in.Names() {
			if strings.EqualFold(n, k) {
				i = j
			}
		}
		if i < 0 {
			return nil, nil, validationErr(data.At, len(k), "Column '%s' not found in any table", k)
		}
		partition = append(partition, i)
	}
	tc, ok := args["TIMECOL"]
	if !ok || len(tc.Descriptor) != 1 {
		return nil, nil, sql.Errorf(sql.ValidationException, "Illegal second argument to Window TVF: Expecting TIMECOL")
	}
	timeCol := -1
	for i, n := range in.Names() {
		if strings.EqualFold(n, tc.Descriptor[0]) {
			timeCol = i
		}
	}
	if timeCol < 0 {
		return nil, nil, validationErr(tc.At, len(tc.Descriptor[0]), "Unknown identifier '%s'", tc.Descriptor[0])
	}
	tt := in.Types()[timeCol]
	if tt.Root != sql.TypeTimestamp && tt.Root != sql.TypeTimestampLTZ {
		return nil, nil, sql.Errorf(sql.ValidationException,
			"The window function %s requires the timecol to be TIMESTAMP or TIMESTAMP_LTZ, but is %s.\nBesides, the timecol must be a time attribute type in streaming mode.",
			sig, tt.WithNullable(true))
	}
	if !b.streaming {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support window table functions in batch mode yet")
	}
	procTime := false
	switch timeAttribute(in, timeCol) {
	case "rowtime":
	case "proctime":
		procTime = true
	default:
		// Flink's StreamPhysicalWindowTableFunctionRule refuses it
		// (WindowUtil.convertToWindowingStrategy;
		// WindowTableFunctionTest.testWindowOnNonTimeAttribute).
		return nil, nil, sql.Errorf(sql.ValidationException, "The window function requires the timecol is a time attribute type, but is %s.", tt.WithNullable(true))
	}
	interval := func(name string) (int64, error) {
		a, ok := args[name]
		if !ok {
			return 0, nil
		}
		if a.Expr == nil {
			return 0, signatureErr()
		}
		// An INTERVAL is a TVF operand (bindExpr refuses INTERVAL values).
		b.exprDepth++
		e, err := b.bindExprIn(a.Expr, &scope{}, nil)
		b.exprDepth--
		if err != nil {
			return 0, err
		}
		ev, err := Compile(e)
		if err != nil {
			return 0, err
		}
		v, err := ev(nil)
		if err != nil {
			return 0, err
		}
		ms, ok := v.(int64)
		if !ok || e.Type().Root != sql.TypeIntervalDayTime {
			return 0, sql.Errorf(sql.ValidationException, "Cannot apply '%s' to arguments: the window %s must be a day-time INTERVAL", x.Name, strings.ToLower(name))
		}
		return ms, nil
	}
	w := Windowing{Func: x.Name, Partition: partition, ProcTime: procTime}
	if procTime || tt.Root == sql.TypeTimestampLTZ {
		w.Zone = b.zone
	}
	if w.Size, err = interval("SIZE"); err != nil {
		return nil, nil, err
	}
	if x.Name == "SESSION" {
		if w.Size, err = interval("GAP"); err != nil {
			return nil, nil, err
		}
	}
	if w.Slide, err = interval("SLIDE"); err != nil {
		return nil, nil, err
	}
	if w.Step, err = interval("STEP"); err != nil {
		return nil, nil, err
	}
	if w.Offset, err = interval("OFFSET"); err != nil {
		return nil, nil, err
	}
	if x.Name == "SESSION" && w.Size < 0 {
		// SessionWindowSpec's checkArgument.
		return nil, nil, sql.Errorf(sql.ValidationException, "Session Window parameters must satisfy gap > 0")
	}
	if x.Name == "SESSION" && w.Size == 0 {
		return nil, nil, sql.Errorf(sql.TableException, "sqlrun does not support a SESSION window with a zero gap yet")
	}
	if w.Size <= 0 || (x.Name == "HOP" && w.Slide <= 0) || (x.Name == "CUMULATE" && w.Step <= 0) {
		return nil, nil, sql.Errorf(sql.ValidationException, "The window size, slide and step of %s must be positive", x.Name)
	}
	// A HOP / CUMULATE size that is no multiple of its slide / step plans;
	// translation refuses it (checkSlices, as Flink's SliceAssigners).
	names := append(append([]string(nil), in.Names()...), "window_start", "window_end", "window_time")
	types := append(append([]sql.DataType(nil), in.Types()...), sql.Timestamp(3).NotNull(), sql.Timestamp(3).NotNull(), tt.NotNull())
	n := &LogicalWindowTableFunction{base: row(names, types, in), TimeCol: timeCol, Window: w}
	q := ""
	if len(sc.cols) > 0 {
		q = sc.cols[0].qualifier
	}
	if x.Alias != "" {
		q = x.Alias
	}
	out := scopeOf(n, q)
	for i := range out.cols {
		for j := range out.cols {
			if i != j && out.cols[i].name == out.cols[j].name {
				out.cols[i].ambiguous = true
			}
		}
	}
	return n, out, nil
}

// timeAttribute reports whether field i of n is a rowtime (a
// WATERMARK FOR column) or proctime (PROCTIME()) attribute, following it
// through projections and filters.
func timeAttribute(n Node, i int) string {
	switch x := n.(type) {
	case *LogicalWatermarkAssigner:
		if i == x.Rowtime {
			return "rowtime"
		}
		return timeAttribute(x.input(), i)
	case *LogicalProject:
		switch e := x.Exprs[i].(type) {
		case *InputRef:
			return timeAttribute(x.input(), e.Index)
		case *Call:
			if e.Op == "PROCTIME" {
				return "proctime"
			}
		}
	case *LogicalCalc:
		switch e := x.Exprs[i].(type) {
		case *InputRef:
			return timeAttribute(x.input(), e.Index)
		case *Call:
			if e.Op == "PROCTIME" {
				return "proctime"
			}
			if e.Op == "Reinterpret" {
				// The rowtime of a watermark pushed into the scan
				// (watermarkIntoScan).
				return "rowtime"
			}
		}
	case *LogicalTableScan:
		if x.Watermark != nil && x.Watermark.Rowtime == i {
			return "rowtime"
		}
	case *LogicalFilter:
		if j, ok := x.input().(*LogicalJoin); ok {
			return joinTimeAttribute(j, x.Cond, i)
		}
		return timeAttribute(x.input(), i)
	case *LogicalJoin:
		return joinTimeAttribute(x, nil, i)
	case *LogicalTableCorrelate:
		// The left row's fields pass through a Correlate, time
		// attributes included.
		if i < len(x.inputs[0].Names()) {
			return timeAttribute(x.inputs[0], i)
		}
	case *LogicalExpand:
		// A field every projection passes on unchanged.
		var f *InputRef
		for _, p := range x.Projects {
			r, ok := p[i].(*InputRef)
			if !ok || (f != nil && r.Index != f.Index) {
				return ""
			}
			f = r
		}
		return timeAttribute(x.input(), f.Index)
	case *LogicalWindowTableFunction:
		if i < len(x.input().Names()) {
			return timeAttribute(x.input(), i)
		}
		if i == len(x.input().Names())+2 {
			return timeAttribute(x.input(), x.TimeCol)
		}
	case *LogicalUnion:
		// A field that is the same kind of time attribute in every input
		// stays one (RelTimeIndicatorConverter.visitSetOp).
		k := timeAttribute(x.inputs[0], i)
		for _, in := range x.inputs[1:] {
			if timeAttribute(in, i) != k {
				return ""
			}
		}
		return k
	case *LogicalAggregate:
		// A window aggregate's window_time stays a time attribute (Flink's
		// cascading windows); any other grouped time column is
		// materialized.
		if i < len(x.Group) && isWindowTime(x.input(), x.Group[i]) {
			return timeAttribute(x.input(), x.Group[i])
		}
	}
	return ""
}

// isWindowTime reports whether field i of n is a window TVF's window_time,
// followed through projections and filters.
func isWindowTime(n Node, i int) bool {
	switch x := n.(type) {
	case *LogicalProject:
		if e, ok := x.Exprs[i].(*InputRef); ok {
			return isWindowTime(x.input(), e.Index)
		}
	case *LogicalCalc:
		// After the logical rules (a TemporalSort's input, temporalsort.go).
		if e, ok := x.Exprs[i].(*InputRef); ok {
			return isWindowTime(x.input(), e.Index)
		}
	case *LogicalFilter:
		return isWindowTime(x.input(), i)
	case *LogicalWindowTableFunction:
		return i == len(x.input().Names())+2
	}
	return false
}

// convertWindowAggregate plans an aggregate grouped by window_start and
// window_end of a window TVF below it (through a Calc) as Flink's
// StreamPhysicalWindowAggregateRule: the TVF merges into the aggregate,
// the Calc below keeps the fields the aggregate reads plus the time
// column, and a Calc above restores the aggregate's field order. With
// table.optimizer.agg-phase-strategy other than ONE_PHASE and mergeable
// aggregates it is split into LocalWindowAggregate and
// GlobalWindowAggregate (TwoStageOptimizedWindowAggregateRule). ok is
// false when r is not such an aggregate.
func (b *binder) convertWindowAggregate(r *LogicalAggregate) (Node, bool, error) {
	var exprs []Expr
	var cond Expr
	var tvf *LogicalWindowTableFunction
	var calcNames []string
	var chain []Node
	switch x := r.input().(type) {
	case *LogicalCalc:
		if tvf, _ = x.input().(*LogicalWindowTableFunction); tvf == nil {
			if tvf, chain = windowChain(x); tvf == nil {
				return nil, false, nil
			}
			break
		}
		exprs, cond, calcNames = x.Exprs, x.Cond, x.names
	case *LogicalExpand:
		if tvf, chain = windowChain(x); tvf == nil {
			return nil, false, nil
		}
	case *LogicalWindowTableFunction:
		tvf, exprs, calcNames = x, identity(x.types), x.names
	default:
		return nil, false, nil
	}
	nIn := len(tvf.input().Names())
	if chain != nil {
		// The window column each field of the chain's top carries (as a
		// reference to the table function's field), any other field a
		// reference below nIn.
		exprs = chainWindowRefs(tvf, chain)
	}
	windowRef := func(e Expr) int {
		if ref, ok := e.(*InputRef); ok && ref.Index >= nIn {
			return ref.Index - nIn
		}
		return -1
	}
	var hasStart, hasEnd, hasTime bool
	for _, g := range r.Group {
		switch windowRef(exprs[g]) {
		case 0:
			hasStart = true
		case 1:
			hasEnd = true
		case 2:
			hasTime = true
		}
	}
	if !hasStart || !hasEnd {
		return nil, false, nil
	}
	var calc Node
	var pos map[int]int
	var belowNames []string
	var partPos []int
	timeCol := -1
	retract := false
	window := tvf.Window
	window.PartitionNames = nil
	if chain != nil {
		// A chain of Calcs and Expands between the aggregate and the
		// table function (SplitAggregateRule's partial aggregate,
		// windowsplit.go).
		c, p, t, ok, err := b.convertWindowChain(tvf, chain)
		if err != nil || !ok {
			return nil, false, err
		}
		if err := checkEmitConfiguration(b.config); err != nil {
			return nil, false, err
		}
		calc, pos, timeCol, belowNames = c, p, t, c.Names()
		retract = !modifyKinds(calc, map[Node]sql.ChangelogMode{}).IsInsertOnly()
	} else {
		uses := func(e Expr) bool {
			used := map[int]bool{}
			refs(e, used)
			for f := range used {
				if f >= nIn {
					return true
				}
			}
			return false
		}
		if cond != nil && uses(cond) {
			return b.convertAttachedWindowAggregate(r, tvf, exprs, cond, calcNames, windowRef, hasTime)
		}
		in, err := b.convert(tvf.input())
		if err != nil {
			return nil, false, err
		}
		// Flink's GroupWindowAggregate consumes updates: its WindowOperator
		// retracts from the window's accumulators
		// (GroupWindowTest.testWindowAggregateOnRetractStream); changelog.go
		// marks its calls retracting. Since Flink 1.19 (FLINK-20281) a window
		// TVF aggregation consumes updates too: FlinkChangelogModeInferenceProgram
		// asks its input for all changes, and its calls are the retracting
		// functions (COUNT_RETRACT, SUM_RETRACT, ...: AggregateUtil's
		// deriveStreamWindowAggregateInfoList with needRetraction), set here
		// because the local phase's accumulator fields depend on them.
		retract = !tvf.Window.Legacy && !modifyKinds(in, map[Node]sql.ChangelogMode{}).IsInsertOnly()
		// The Calc below: the calc's fields that are not window columns, in
		// order, then the time column.
		var below []Expr
		pos = map[int]int{}
		legacyTime := -1
		for i, e := range exprs {
			if windowRef(e) >= 0 {
				if tvf.Window.Legacy && legacyTime < 0 {
					// Flink's LogicalWindowAggregateRuleBase puts the time
					// field where the group window call was in the Project
					// below (GroupWindowTest.testMultiHopWindows:
					// Calc(select=[rowtime, c])).
					legacyTime = len(below)
					below = append(below, &InputRef{Index: tvf.TimeCol, T: tvf.types[tvf.TimeCol]})
					belowNames = append(belowNames, legacyTimeName(tvf, legacyTime))
				}
				continue
			}
			if uses(e) {
				return nil, false, sql.Errorf(sql.TableException, "sqlrun cannot aggregate window columns in a window aggregate yet")
			}
			pos[i] = len(below)
			below = append(below, e)
			name := calcNames[i]
			if tvf.Window.Legacy {
				name = legacyBelowName(tvf, e, len(below)-1)
			}
			belowNames = append(belowNames, name)
		}
		// SESSION's partition keys: their fields in the Calc below (added
		// when the aggregate does not read them).
		if window.Legacy {
			// StreamPhysicalGroupWindowAggregateRule creates the window's
			// WindowEmitStrategy, which checks the emit options.
			if window.Emit, err = emitStrategy(b.config, window.Func, window.ProcTime); err != nil {
				return nil, false, err
			}
		} else if err := checkEmitConfiguration(b.config); err != nil {
			return nil, false, err
		}
		for _, k := range window.Partition {
			at := -1
			for i, e := range below {
				if ref, ok := e.(*InputRef); ok && ref.Index == k {
					at = i
				}
			}
			if at < 0 {
				at = len(below)
				below = append(below, &InputRef{Index: k, T: tvf.types[k]})
				belowNames = append(belowNames, uniquify(append(append([]string(nil), belowNames...), tvf.names[k]))[len(belowNames)])
			}
			partPos = append(partPos, at)
		}
		if tvf.Window.Legacy && cond == nil {
			below, belowNames, legacyTime = legacyProjectMerge(r, exprs, in, below, belowNames, pos, partPos, legacyTime)
		}
		// RelTimeIndicatorConverter materializes the time attributes an
		// aggregate call reads (gatherIndicesToMaterialize): a rowtime read by
		// MIN or MAX is a plain TIMESTAMP, cast in the Calc below, while the
		// window's own time column stays an attribute
		// (WindowAggregateTest.testFieldNameConflict: CAST(rowtime) AS rowtime,
		// rowtime AS rowtime_0).
		for _, a := range r.Aggs {
			for _, x := range a.Args {
				if p, ok := pos[x]; ok {
					if ref, isRef := below[p].(*InputRef); isRef && timeAttr(tvf, ref.Index) == rowTime {
						below[p] = &Call{Op: "CAST", Args: []Expr{ref}, T: ref.T}
					}
				}
			}
		}
		timeCol = legacyTime
		if timeCol < 0 {
			timeCol = len(below)
			below = append(below, &InputRef{Index: tvf.TimeCol, T: tvf.types[tvf.TimeCol]})
			// WindowUtil.buildNewProgramWithoutWindowColumns names the appended
			// time attribute by RowTypeUtils.getUniqueName: rowtime_0 when the
			// Calc already has a rowtime (WindowAggregateTest.testFieldNameConflict).
			belowNames = append(belowNames, uniqueName(tvf.names[tvf.TimeCol], belowNames))
		} else {
			belowNames = uniquify(belowNames)
		}
		calc = newCalc(in, below, cond, belowNames)
		if c, ok := in.(*Calc); ok && calc == in && tvf.Window.Legacy && !slices.Equal(c.Names(), belowNames) {
			// The Calc below renames the time field ($f0): a Calc of its
			// own in Flink's plan, merged with the one under it.
			cp := *c
			cp.base = row(belowNames, c.Types(), c.input())
			calc = &cp
		}
	}
	var group []int
	var outNames []string
	var outTypes []sql.DataType
	var windowCols []int // the aggregate's fields of window_start, window_end, window_time
	for gi, g := range r.Group {
		if windowRef(exprs[g]) >= 0 {
			continue
		}
		group = append(group, pos[g])
		outNames = append(outNames, r.names[gi])
		outTypes = append(outTypes, r.types[gi])
	}
	var dupPos map[int]int // a key's whole copy in the Expand
	if r.Sets != nil {
		// Grouping sets each holding window_start and window_end
		// (windowGroupingSets): an Expand of the Calc below, the time
		// column last, and $e a key (Flink's
		// ExpandWindowTableFunctionTransposeRule;
		// WindowAggregateTest.testTumble_GroupingSets).
		if window.Func == "SESSION" {
			// Its grouping holds the expand id $e, never a partition key:
			// Flink plans no window aggregate (validGroupKeyPartitionKey)
			// but a regular one over the SESSION table function.
			return nil, false, nil
		}
		ex, dups := windowExpand(calc, r, windowRef, exprs, pos, timeCol)
		e := len(ex.Names()) - 2 - len(dups)
		calc, timeCol = ex, len(ex.Names())-1
		// A call reading a key that some set nulls reads the key's whole
		// copy after $e (ExpandUtil.buildExpandNode).
		dupPos = dups
		for i, g := range group {
			outTypes[i] = ex.Types()[g]
		}
		group = append(group, e)
		outNames = append(outNames, ex.Names()[e])
		outTypes = append(outTypes, sql.BigInt().NotNull())
	}
	nKeys := len(group)
	// windowOnly: a legacy group window is the GROUP BY's only item.
	windowOnly := window.Legacy && r.Sets == nil
	for _, g := range r.Group {
		windowOnly = windowOnly && windowRef(exprs[g]) >= 0
	}
	castBack := make([]bool, len(r.Aggs))
	var aggs []AggCall
	aggAt := make([]int, len(r.Aggs)) // r.Aggs[i]'s position in aggs; -1 for GROUPING calls
	for i, a := range r.Aggs {
		if r.Sets != nil && (a.Func == "GROUPING" || a.Func == "GROUPING_ID") {
			// Computed from $e in the Calc above, as
			// DecomposeGroupingSetsRule does.
			aggAt[i] = -1
			continue
		}
		aggAt[i] = len(aggs)
		for _, x := range a.fields() {
			if _, ok := pos[x]; !ok {
				return nil, false, sql.Errorf(sql.TableException, "sqlrun cannot aggregate window columns in a window aggregate yet")
			}
		}
		c := a.remapped(func(x int) int {
			if d, ok := dupPos[pos[x]]; ok {
				return d
			}
			return pos[x]
		})
		c.Name = a.fieldName(len(group) + len(aggs))
		if a.Unnamed {
			// Aggregate.deriveRowType makes $f<n> unique among the
			// keys ($f6_0 after a hash bucket key $f6).
			c.Name = uniqueName(c.Name, outNames)
		}
		c.Retract = retract
		if windowOnly && !a.Filtered && a.UDF == nil && !a.T.Nullable && nullableIfEmpty[strings.ToUpper(a.Func)] {
			// LogicalWindowAggregateRuleBase takes the group window out of
			// the GROUP BY and infers each call's type again with no group
			// key (getIndexAndInferredTypesIfChanged, when the window was
			// the only one): SUM, AVG, MIN, MAX, ... become nullable, and
			// the Project above casts them back (adjustTypes;
			// GroupWindowTest.testReturnTypeInferenceForWindowAgg:
			// CAST(s AS INTEGER) AS s).
			c.T = a.T.WithNullable(true)
			castBack[i] = true
		}
		aggs = append(aggs, c)
		outNames = append(outNames, c.Name)
		outTypes = append(outTypes, c.T)
	}
	for _, which := range []int{0, 1, 2} {
		if window.Legacy && !window.Props {
			// A GroupWindowAggregate whose properties no one reads
			// outputs none (WindowPropertiesRules adds them only when
			// read: GroupWindowTest.testIntervalDay).
			break
		}
		for gi, g := range r.Group {
			if windowRef(exprs[g]) == which {
				windowCols = append(windowCols, gi)
				// The window properties keep the TVF's names (a select
				// alias renames them in the Calc above:
				// WindowAggregateTest.testTumble_CascadingWindow).
				outNames = append(outNames, tvf.names[nIn+which])
				outTypes = append(outTypes, r.types[gi])
				break
			}
		}
	}
	for _, p := range partPos {
		window.PartitionNames = append(window.PartitionNames, belowNames[p])
		if !slices.Contains(group, p) {
			// Flink's WindowUtil.validGroupKeyPartitionKey: a SESSION
			// window aggregate groups by exactly its PARTITION BY keys;
			// any other grouping is a regular aggregate over the session
			// table function, whose sessions are the partition keys'
			// (WindowAggregateTest.testGroupKeyLessThanPartitionKeyInSessionWindow).
			return nil, false, nil
		}
	}
	if window.Func == "SESSION" {
		for _, g := range group {
			if !slices.Contains(partPos, g) {
				// testGroupKeyMoreThanPartitionKeyInSessionWindow.
				return nil, false, nil
			}
		}
	}
	ex := &Exchange{base: sameRow(calc), Keys: append([]int(nil), group...), Single: len(group) == 0}
	var agg Node
	strategy, err := config.Enum(b.config, config.KeyAggPhaseStrategy)
	if err != nil {
		return nil, false, err
	}
	// TwoStageOptimizedWindowAggregateRule: a session window is never
	// split (its windows depend on all of a key's rows), nor a window on
	// processing time (WindowAggregateTest.testTumble_DoNotSplitProcessingTimeWindow).
	// A GroupWindowAggregate is never split (Flink has no local phase of
	// it).
	if strategy != "ONE_PHASE" && window.Func != "SESSION" && !window.ProcTime && !window.Legacy && windowTwoPhaseEligible(aggs) {
		local := &WindowAggregate{Group: group, Aggs: aggs, TimeCol: timeCol, Window: window, Phase: 1}
		local.base = sameRow(calc)
		var ln []string
		var lt []sql.DataType
		for _, g := range group {
			ln = append(ln, calc.Names()[g])
			lt = append(lt, calc.Types()[g])
		}
		bn, bt := localBuffers(local).fieldNames()
		ln = append(append(ln, bn...), "$slice_end")
		lt = append(lt, bt...)
		lt = append(lt, sql.BigInt().NotNull())
		local.base = row(ln, lt, calc)
		keys := make([]int, len(group))
		for i := range keys {
			keys[i] = i
		}
		gex := &Exchange{base: sameRow(local), Keys: keys, Single: len(group) == 0}
		agg = &WindowAggregate{base: row(outNames, outTypes, gex), Group: keys, Aggs: aggs, TimeCol: -1,
			Window: window, WindowTime: hasTime, Phase: 2}
	} else {
		agg = &WindowAggregate{base: row(outNames, outTypes, ex), Group: group, Aggs: aggs, TimeCol: timeCol,
			Window: window, WindowTime: hasTime}
	}
	// Back to the aggregate's field order.
	reorder := make([]Expr, len(r.names))
	k := 0
	for gi, g := range r.Group {
		if windowRef(exprs[g]) >= 0 {
			continue
		}
		reorder[gi] = &InputRef{Index: k, T: outTypes[k]}
		k++
	}
	k = nKeys // past $e of grouping sets
	for i, a := range r.Aggs {
		if aggAt[i] < 0 {
			reorder[len(r.Group)+i] = windowGroupingCall(r, a, &InputRef{Index: nKeys - 1, T: sql.BigInt().NotNull()})
			continue
		}
		reorder[len(r.Group)+i] = &InputRef{Index: k, T: outTypes[k]}
		if castBack[i] {
			reorder[len(r.Group)+i] = &Call{Op: "CAST", Args: []Expr{reorder[len(r.Group)+i]}, T: a.T}
		}
		k++
	}
	windowPropRefs(reorder, r, exprs, windowRef, windowCols, k, outTypes)
	if window.Legacy && !window.Props {
		// The window columns nothing above reads.
		for gi, g := range r.Group {
			if windowRef(exprs[g]) >= 0 {
				reorder[gi] = &Literal{T: r.types[gi]}
			}
		}
	}
	return newCalc(agg, reorder, nil, r.names), true, nil
}

// windowPropRefs points the keys of r that are window columns at the
// window aggregate's properties: windowCols (the keys' positions, in the
// order of the properties) are read from output field k on, of types
// outTypes. A window column grouped twice (window_start and its alias ws,
// WindowAggregateTest.testTumble_GroupMultipleWindowColumns) is one window
// property, read by both.
func windowPropRefs(reorder []Expr, r *LogicalAggregate, exprs []Expr, windowRef func(Expr) int, windowCols []int, k int, outTypes []sql.DataType) {
	propAt := map[int]int{}
	for _, gi := range windowCols {
		propAt[windowRef(exprs[r.Group[gi]])] = k
		k++
	}
	for gi, g := range r.Group {
		if at, ok := propAt[windowRef(exprs[g])]; ok {
			reorder[gi] = &InputRef{Index: at, T: outTypes[at]}
		}
	}
}

// windowExpand is the Expand below a window aggregate with grouping sets:
// each of calc's fields but the time column (a key outside the set is
// NULL), $e (GROUPING_ID of the aggregate's keys, window_start and
// window_end among them, as DecomposeGroupingSetsRule numbers it), the
// whole copies of keys a call reads that some set nulls (b_0, as
// ExpandUtil.buildExpandNode duplicates them: MAX(b) ... GROUP BY
// GROUPING SETS ((a), (b)) reads b in the rows of set (a) too), then the
// time column: Expand(projects=[{a, null AS b, c, 4 AS $e, b AS b_0,
// rowtime}, ...]). dups maps a calc field to its copy.
func windowExpand(calc Node, r *LogicalAggregate, windowRef func(Expr) int, exprs []Expr, pos map[int]int, timeCol int) (_ Node, dups map[int]int) {
	keyOf := map[int]int{} // calc field -> aggregate key g
	for _, g := range r.Group {
		if windowRef(exprs[g]) < 0 {
			keyOf[pos[g]] = g
		}
	}
	inSet := func(set []int, g int) bool { return slices.Contains(set, g) }
	in := calc.Names()
	types := append([]sql.DataType(nil), calc.Types()...)
	for f, g := range keyOf {
		for _, set := range r.Sets {
			if !inSet(set, g) {
				types[f] = types[f].WithNullable(true)
			}
		}
	}
	var names []string
	var ts []sql.DataType
	for f := range in {
		if f != timeCol {
			names = append(names, in[f])
			ts = append(ts, types[f])
		}
	}
	names = uniquify(append(names, "$e"))
	ts = append(ts, sql.BigInt().NotNull())
	// ExpandUtil.buildExpandNode: the keys calls read (arguments and
	// filters) that are not in every set, in field order.
	var dupFields []int
	for f := range in {
		g, isKey := keyOf[f]
		if !isKey {
			continue
		}
		inAll := true
		for _, set := range r.Sets {
			inAll = inAll && inSet(set, g)
		}
		read := false
		for _, a := range r.Aggs {
			if a.Func == "GROUPING" || a.Func == "GROUPING_ID" || a.Func == "GROUP_ID" {
				continue
			}
			for _, x := range a.fields() {
				read = read || pos[x] == f
			}
		}
		if read && !inAll {
			dupFields = append(dupFields, f)
		}
	}
	dups = map[int]int{}
	taken := map[string]bool{}
	for _, n := range names {
		taken[n] = true
	}
	for _, f := range dupFields {
		dups[f] = len(names)
		// ExpandUtil.buildDuplicateFieldName: name_0, name_1, ...
		n := in[f] + "_0"
		for j := 1; taken[n]; j++ {
			n = in[f] + "_0_" + strconv.Itoa(j-1)
		}
		taken[n] = true
		names = append(names, n)
		ts = append(ts, calc.Types()[f])
	}
	names = append(names, in[timeCol])
	ts = append(ts, types[timeCol])
	var projects [][]Expr
	for _, set := range r.Sets {
		var p []Expr
		for f := range in {
			if f == timeCol {
				continue
			}
			if g, isKey := keyOf[f]; isKey && !inSet(set, g) {
				p = append(p, &Literal{T: types[f]})
				continue
			}
			p = append(p, &InputRef{Index: f, T: types[f]})
		}
		p = append(p, &Literal{Value: eValue(r, set), T: sql.BigInt().NotNull()})
		for _, f := range dupFields {
			p = append(p, &InputRef{Index: f, T: calc.Types()[f]})
		}
		p = append(p, &InputRef{Index: timeCol, T: types[timeCol]})
		projects = append(projects, p)
	}
	return &Expand{base: row(names, ts, calc), Projects: projects}, dups
}

// eValue is $e of a grouping set: bit n-1-i set for each of the
// aggregate's n keys i outside it (GROUPING_ID of all keys).
func eValue(r *LogicalAggregate, set []int) int64 {
	var v int64
	for i, g := range r.Group {
		if !slices.Contains(set, g) {
			v |= 1 << (len(r.Group) - 1 - i)
		}
	}
	return v
}

// windowGroupingCall is GROUPING(k, ...) / GROUPING_ID(k, ...) of a window
// aggregate with grouping sets: a CASE on $e (field e of the aggregate's
// output), as DecomposeGroupingSetsRule computes it.
func windowGroupingCall(r *LogicalAggregate, a AggCall, e *InputRef) Expr {
	eVals := make([]int64, len(r.Sets))
	vals := make([]int64, len(r.Sets))
	for s, set := range r.Sets {
		eVals[s] = eValue(r, set)
		for j, x := range a.Args {
			if !slices.Contains(set, x) {
				vals[s] |= 1 << (len(a.Args) - 1 - j)
			}
		}
	}
	return groupingCase(e, eVals, vals)
}

// windowTwoPhaseEligible reports a window aggregate's calls that
// TwoStageOptimizedWindowAggregateRule splits into local and global
// phases: every call has a mergeable accumulator; unlike a batch
// aggregate's, DISTINCT calls split too (their local phase keeps a
// DISTINCT(x) view, WindowAggregateTest.testTumble_OnRowtime[TWO_PHASE]).
func windowTwoPhaseEligible(aggs []AggCall) bool {
	for _, a := range aggs {
		if a.UDF != nil {
			if !a.UDF.Merge {
				return false
			}
			continue
		}
		switch a.Func {
		case "COUNT", "SUM", "SUM0", "$SUM0", "MIN", "MAX", "AVG":
		default:
			return false
		}
	}
	return true
}

// projectWindowTableFunctionTranspose is Flink's
// ProjectWindowTableFunctionTransposeRule: a Calc over a window table
// function gets a projection of the input fields it reads, the time column
// and SESSION's partition keys (in input order) below the function. Flink
// applies it in PROJECT_REWRITE, before the Calc a rank's CalcRankTranspose
// puts over the function exists (LOGICAL_REWRITE): that one (pinned) stays
// above it (WindowRankTest.testSimplifyTumbleWindowTVFBeforeWindowRankWithCalc,
// WindowDeduplicateTest.testOnWindowTVFWithCalc).
func projectWindowTableFunctionTranspose(_ *binder, n Node) (Node, error) {
	c, ok := n.(*LogicalCalc)
	if !ok || c.pinned {
		return nil, nil
	}
	tvf, ok := c.input().(*LogicalWindowTableFunction)
	if !ok {
		return nil, nil
	}
	used := c.fieldRefs()
	nt, m := narrowWindowTableFunction(tvf, used)
	if nt == nil {
		return nil, nil
	}
	if tvf.Window.Legacy {
		nt, m = legacyFieldOrder(tvf, nt.(*LogicalWindowTableFunction), m, c.Exprs)
	}
	top := &LogicalCalc{base: c.base.with([]Node{nt}), Exprs: make([]Expr, len(c.Exprs)), fresh: c.fresh}
	for i, e := range c.Exprs {
		top.Exprs[i] = remap(e, m)
	}
	if c.Cond != nil {
		top.Cond = remap(c.Cond, m)
	}
	return top, nil
}

// narrowWindowTableFunction is the rewrite of
// ProjectWindowTableFunctionTransposeRule: tvf over a projection of the
// input fields used reads (the time column and SESSION's partition keys
// added), and the map from tvf's fields to the new one's; nil when used
// reads every input field.
func narrowWindowTableFunction(tvf *LogicalWindowTableFunction, used map[int]bool) (Node, map[int]int) {
	in := tvf.input()
	nIn := len(in.Names())
	used[tvf.TimeCol] = true
	for _, k := range tvf.Window.Partition {
		used[k] = true
	}
	var fields []int
	for i := 0; i < nIn; i++ {
		if used[i] {
			fields = append(fields, i)
		}
	}
	if len(fields) == nIn {
		return nil, nil
	}
	m := map[int]int{}
	exprs := make([]Expr, len(fields))
	names := make([]string, len(fields))
	for i, f := range fields {
		m[f] = i
		exprs[i] = &InputRef{Index: f, T: in.Types()[f]}
		names[i] = in.Names()[f]
	}
	for i := nIn; i < len(tvf.names); i++ {
		m[i] = len(fields) + i - nIn
	}
	var inner Node = mergeCalc(&LogicalCalc{base: row(names, exprTypes(exprs), in), Exprs: exprs})
	if t, err := rankProjectTranspose(nil, inner); err == nil && t != nil {
		// The projection pushed below the table function reaches a Rank
		// under it: Flink's CalcRankTransposeRule (LOGICAL_REWRITE, after
		// the PROJECT_RULES of this one) prunes the Rank's input too
		// (GroupWindowTest.testWindowAggregateOnRetractStream:
		// Calc(select=[a, rowtime]) below the Deduplicate).
		inner = t
	} else if c, ok := inner.(*LogicalCalc); ok && c.Cond == nil {
		if j, ok := c.input().(*LogicalJoin); ok && j.pushed {
			// A join under it: FlinkProjectJoinTransposeRule (PROJECT_RULES,
			// with this one) pushes the projection into the join's inputs
			// too (IntervalJoinTest.testRowTimeInnerJoinAndWindowAggregationOnFirst:
			// Calc(select=[a, b, rowtime]) below each side). The join's
			// conditions were pushed already: only the projection moves.
			again := *j
			again.pushed = false
			if t, err := joinPushDown(nil, c.WithInputs(&again)); err == nil && t != nil {
				inner = t
			}
		}
	}
	outNames := append(append([]string(nil), names...), tvf.names[nIn:]...)
	outTypes := append(exprTypes(exprs), tvf.types[nIn:]...)
	window := tvf.Window
	window.Partition = nil
	for _, k := range tvf.Window.Partition {
		window.Partition = append(window.Partition, m[k])
	}
	return &LogicalWindowTableFunction{base: row(outNames, outTypes, inner), TimeCol: m[tvf.TimeCol], Window: window}, m
}

// WindowTableFunction is Flink's StreamPhysicalWindowTableFunction: a
// TUMBLE, HOP, CUMULATE or SESSION TVF that no window aggregate, Top-N or
// deduplication absorbs. It emits each input row once per window it falls
// in, with window_start, window_end and window_time; insert-only in and
// out.
type WindowTableFunction struct {
	base
	TimeCol int
	Window  Windowing
}

func (*WindowTableFunction) Name() string { return "WindowTableFunction" }

func (n *WindowTableFunction) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// describe is StreamPhysicalWindowTableFunction's explainTerms:
// window=[TUMBLE(time_col=[rowtime], size=[15 min])].
func (n *WindowTableFunction) describe(Format) string {
	in := n.input().Names()
	return "WindowTableFunction(window=[" + n.Window.Func + "(time_col=[" + in[n.TimeCol] + "], " + n.Window.spec() + ")])"
}

// convertWindowTableFunction plans a window TVF without an aggregate over
// it; its input must be insert-only (FlinkChangelogModeInferenceProgram
// names the class, as for a window aggregate).
func (b *binder) convertWindowTableFunction(r *LogicalWindowTableFunction) (Node, error) {
	if !b.streaming {
		return nil, sql.Errorf(sql.TableException, "sqlrun does not support window table functions in batch mode yet")
	}
	in, err := b.convert(r.input())
	if err != nil {
		return nil, err
	}
	mk := map[Node]sql.ChangelogMode{}
	if k := modifyKinds(in, mk); !k.IsInsertOnly() {
		return nil, (&inference{mk: mk}).consumeError("StreamPhysicalWindowTableFunction", in, k.Without(sql.Insert))
	}
	window := r.Window
	if window.Func == "SESSION" {
		// A SESSION table function (Flink's set semantics: its
		// UnalignedWindowTableFunctionOperator) reads each partition
		// key's rows in one task: hash-distributed on the PARTITION BY
		// keys, or all in one without them.
		window.PartitionNames = nil
		for _, k := range window.Partition {
			window.PartitionNames = append(window.PartitionNames, in.Names()[k])
		}
		in = &Exchange{base: sameRow(in), Keys: append([]int(nil), window.Partition...), Single: len(window.Partition) == 0}
	}
	return &WindowTableFunction{base: row(r.names, r.types, in), TimeCol: r.TimeCol, Window: window}, nil
}

// refuseWindowTVFConsumers refuses an OVER aggregate or a join other than
// a WindowJoin that reads a WindowTableFunction (through Calcs and
// Exchanges): Flink materializes the window's time attributes there, which
// sqlrun does not reproduce yet. (A join equating both window_start and
// both window_end columns is a WindowJoin, windowjoin.go; a ROW_NUMBER
// partitioned by window_start and window_end is a WindowRank or
// WindowDeduplicate, windowrank.go; one that is not stays a regular Rank or
// Deduplicate, as in Flink.)
func refuseWindowTVFConsumers(n Node) error {
	switch n.(type) {
	case *OverAggregate, *Join, *IntervalJoin, *TemporalJoin, *LookupJoin:
		for _, in := range n.Inputs() {
			for {
				if _, ok := in.(*WindowTableFunction); ok {
					return sql.Errorf(sql.TableException,
						"sqlrun does not support OVER, or joins other than window joins (ON both window_start and both window_end equal), over a window table function yet (%s reads TABLE(%s(...)))", n.Name(), in.(*WindowTableFunction).Window.Func)
				}
				if _, ok := in.(*Calc); !ok {
					if _, ok := in.(*Exchange); !ok {
						break
					}
				}
				in = in.Inputs()[0]
			}
		}
	}
	for _, in := range n.Inputs() {
		if err := refuseWindowTVFConsumers(in); err != nil {
			return err
		}
	}
	return nil
}
