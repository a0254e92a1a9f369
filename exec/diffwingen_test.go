package exec

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The generator of the differential time-operator test (diffwin_test.go):
// seeded event-time tables and queries over Flink's streaming time
// operators, each with a DuckDB query meant to give the same rows.
//
// Tables ev1 and ev2 are (k INT, g STRING, v DOUBLE, ts TIMESTAMP(3),
// WATERMARK FOR ts AS ts - INTERVAL 'd' SECOND), bounded 'values' tables
// whose rows arrive in the order generated. The values source runs as one
// task at any parallelism (connectors/values: Flink's FromElementsFunction is
// no parallel source), so the watermark each row meets at an operator with
// one input is known: with the watermark pushed into the source
// ('enable-watermark-push-down', FromElementSourceFunctionWithWatermark
// emits a row's watermark before the row) it is max(ts of the rows so far,
// this one included) - d; through a WatermarkAssigner with
// 'pipeline.auto-watermark-interval' = '0 ms' (WatermarkAssignerOperator
// emits an advanced watermark after the row) the same without this row.
// The end of input emits Long.MAX_VALUE, which fires every pending window
// and timer (Flink's StreamSource / SourceOperator at end of input).
//
// Without late rows, a row's ts is > its watermark (rows arrive out of
// order by less than d), so no operator drops one and each query means what
// its batch reading means (DuckDB's). With late rows (late mode: operators
// with one input only, since with two the interleaving of the inputs'
// watermarks depends on scheduling), the DuckDB query drops exactly what
// Flink drops, from the watermark wm a row met, kept per row in the DuckDB
// tables (column wm, epoch milliseconds):
//
//   - window aggregates (TUMBLE, HOP, CUMULATE), window Top-N and window
//     deduplication: a row counts in those of its windows that had not
//     fired, window_end - 1 > wm (TimeWindowUtil.isWindowFired;
//     AbstractSliceWindowAggProcessor.processElement drops a row only when
//     its last window fired, and adds it to its slice, or for CUMULATE the
//     shared slice state SliceSharedWindowAggProcessor.sliceStateMergeTarget
//     names, so it counts in the windows not fired yet;
//     RowTimeWindowDeduplicateProcessor and WindowRankProcessor drop a row
//     whose window fired); a window that fired without rows emits none;
//   - OVER with an unbounded frame: a row is dropped when ts <= wm
//     (AbstractRowTimeUnboundedPrecedingOver.processElement);
//   - OVER with a bounded frame: a row is dropped when ts <= the last
//     timestamp its partition key's timer fired for
//     (RowTimeRowsBoundedPrecedingFunction /
//     RowTimeRangeBoundedPrecedingFunction, lastTriggeringTsState, updated in
//     onTimer; a timer fires at the first watermark advance that reaches
//     it): computed here by simulating those timers (columns obk, obn, obkg
//     for the partitions k, none and k, g);
//   - ROW_NUMBER deduplication and Top-N over rowtime read no watermark
//     (RowTimeDeduplicateFunction, AppendOnlyTopNFunction): nothing dropped.
//   - SESSION windows, interval joins and window joins are generated
//     without late rows only.
//
// Ties: rows of one timestamp are ordered by arrival (column seq in
// DuckDB): a deduplication keeping the first row keeps the first to
// arrive of the smallest ts and one keeping the last the last to arrive of
// the largest (DeduplicateFunctionHelper.isDuplicate: a later row replaces
// the kept one when its rowtime is >=, keeping last, or <, keeping first);
// a Top-N (Rank, WindowRank) ranks rows of equal sort key in arrival order
// (TopNBuffer appends), and so does a ROWS frame (the rows of one
// timestamp in arrival order in the over functions' list state). A window
// Top-N over a window aggregate sorts by the aggregate and the key, so no
// tie depends on the order windows fire in.
//
// Left out, as docs/differences.md and docs/sql.md say sqlrun does not run
// them or runs them otherwise: processing time, RANK() / DENSE_RANK(),
// window TVFs in batch mode, OVER calls inside expressions, several ranking
// calls in one SELECT. Values follow diffqgen_test.go's rules: DOUBLEs are
// multiples of 1/4 (exact sums in any order), AVG only of a DOUBLE, one
// character strings.

// dwRow is one generated row in arrival order; its values as SQL literals.
type dwRow struct {
	k, g, v string
	ts      int64 // epoch ms
	seq     int
	wm      int64 // the watermark the row meets at a one-input operator
	// Whether a bounded OVER frame partitioned by k, by nothing, by k, g
	// keeps the row (late mode).
	obk, obn, obkg bool
}

type dwData struct {
	delay  int64 // the WATERMARK's delay, ms
	pushed bool  // watermark pushed into the source
	late   bool
	tabs   map[string][]dwRow
	// p2opts are options of the parallelism-2 session: other plans for
	// the same rows (the distinct aggregate split, mini-batch, one-phase
	// aggregates) and the other state backend.
	p2opts string
}

var dwTables = []string{"ev1", "ev2"}

// dwBase is the first rowtime: 2024-01-01 00:00:00 UTC.
var dwBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

type dwGen struct {
	r *rand.Rand
	d *dwData
}

func (g *dwGen) pick(n int) int    { return g.r.Intn(n) }
func (g *dwGen) chance(p int) bool { return g.r.Intn(100) < p }

func (g *dwGen) data(late bool) *dwData {
	d := &dwData{delay: int64(1+g.pick(4)) * 1000, pushed: g.chance(50), late: late, tabs: map[string][]dwRow{}}
	for _, t := range dwTables {
		n := 8 + g.pick(25)
		var rows []dwRow
		var maxTs int64 = -1
		cur := dwBase + int64(g.pick(5))*1000
		for i := 0; i < n; i++ {
			var row dwRow
			if i > 0 && g.chance(10) {
				row = rows[g.pick(len(rows))] // same values, its own time below
			} else {
				row.k = "NULL"
				if !g.chance(15) {
					row.k = strconv.Itoa(g.pick(5) - 1)
				}
				row.g = "NULL"
				if !g.chance(15) {
					row.g = "'" + string(rune('a'+g.pick(3))) + "'"
				}
				row.v = "NULL"
				if !g.chance(15) {
					row.v = strconv.FormatFloat(float64(g.pick(81)-40)/4, 'f', -1, 64)
				}
			}
			// Time: mostly on whole seconds (window bounds), sometimes a
			// millisecond off them.
			step := int64(g.pick(4)) * 1000
			if g.chance(15) {
				step += int64(g.pick(1000))
			}
			cur += step
			ts := cur
			switch {
			case maxTs >= 0 && g.chance(30):
				// Out of order by less than the delay: not late.
				back := int64(g.pick(int(d.delay/1000))) * 1000
				if g.chance(20) {
					back = int64(g.pick(int(d.delay)))
				}
				ts = maxTs - back
			case late && maxTs >= 0 && g.chance(15):
				// Behind the watermark.
				ts = maxTs - d.delay - int64(g.pick(20))*1000 - int64(g.pick(2))*int64(g.pick(1000))
			}
			if ts < cur-60000 {
				ts = cur - 60000
			}
			prevMax := maxTs
			maxTs = max(maxTs, ts)
			row.ts, row.seq = ts, i
			if d.pushed {
				row.wm = maxTs - d.delay
			} else if prevMax >= 0 {
				row.wm = prevMax - d.delay
			} else {
				row.wm = 0 // WatermarkAssignerOperator starts at 0
			}
			rows = append(rows, row)
		}
		dwBoundedOver(rows, func(r *dwRow) string { return r.k }, func(r *dwRow, ok bool) { r.obk = ok })
		dwBoundedOver(rows, func(r *dwRow) string { return "" }, func(r *dwRow, ok bool) { r.obn = ok })
		dwBoundedOver(rows, func(r *dwRow) string { return r.k + "|" + r.g }, func(r *dwRow, ok bool) { r.obkg = ok })
		d.tabs[t] = rows
	}
	for _, o := range []string{
		"SET 'table.optimizer.distinct-agg.split.enabled' = 'true';\n",
		"SET 'table.exec.mini-batch.enabled' = 'true';\nSET 'table.exec.mini-batch.allow-latency' = '1 s';\nSET 'table.exec.mini-batch.size' = '100';\n",
		"SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';\n",
		"SET 'state.backend.type' = 'rocksdb';\n",
	} {
		if g.chance(35) {
			d.p2opts += o
		}
	}
	g.d = d
	return d
}

// dwBoundedOver decides which rows a bounded OVER frame keeps: a row is
// late when its ts is not after the last timer its key fired
// (lastTriggeringTsState); a kept row registers a timer at its ts, which
// fires at the first watermark advance reaching it (timers registered at
// or below the current watermark fire at the next advance,
// InternalTimerServiceImpl.advanceWatermark).
func dwBoundedOver(rows []dwRow, key func(*dwRow) string, set func(*dwRow, bool)) {
	last := map[string]int64{}
	pending := map[string][]int64{}
	var cur int64 = -1 << 62
	for i := range rows {
		r := &rows[i]
		if r.wm > cur {
			cur = r.wm
			for k, ts := range pending {
				var keep []int64
				for _, t := range ts {
					if t <= cur {
						last[k] = max(last[k], t)
					} else {
						keep = append(keep, t)
					}
				}
				pending[k] = keep
			}
		}
		k := key(r)
		ok := r.ts > last[k]
		if ok {
			pending[k] = append(pending[k], r.ts)
		}
		set(r, ok)
	}
}

func dwTsLit(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
}

// flinkDDL creates the tables; watermark push-down or a WatermarkAssigner
// with watermarks after every row (late mode) or every 200 ms.
func (d *dwData) flinkDDL() string {
	var b strings.Builder
	if d.late && !d.pushed {
		b.WriteString("SET 'pipeline.auto-watermark-interval' = '0 ms';\n")
	}
	for _, t := range dwTables {
		var rows []string
		for _, r := range d.tabs[t] {
			rows = append(rows, fmt.Sprintf(`["+I",%s]`, dqJSONRow([]string{r.k, r.g, r.v, "'" + dwTsLit(r.ts) + "'"})))
		}
		opts := ""
		if d.pushed {
			opts = "'enable-watermark-push-down' = 'true', 'disable-lookup' = 'true', "
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (k INT, g STRING, v DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND) WITH ('connector' = 'values', 'bounded' = 'true', %s'rows' = '[%s]');\n",
			t, d.delay/1000, opts, strings.ReplaceAll(strings.Join(rows, ","), "'", "''"))
	}
	return b.String()
}

func (d *dwData) duckSetup() []string {
	var out []string
	for _, t := range dwTables {
		out = append(out, fmt.Sprintf("CREATE TABLE %s (k INTEGER, g VARCHAR, v DOUBLE, ts TIMESTAMP, seq INTEGER, tsms BIGINT, wm BIGINT, obk BOOLEAN, obn BOOLEAN, obkg BOOLEAN)", t))
		for _, r := range d.tabs[t] {
			out = append(out, fmt.Sprintf("INSERT INTO %s VALUES (%s, %s, %s, TIMESTAMP '%s', %d, %d, %d, %t, %t, %t)",
				t, r.k, r.g, r.v, dwTsLit(r.ts), r.seq, r.ts, r.wm, r.obk, r.obn, r.obkg))
		}
	}
	return out
}

// dwQuery is a generated query: Flink's text, DuckDB's, and each output
// column's class for comparing rows: i(nteger), d(ouble), s(tring),
// t(imestamp).
type dwQuery struct {
	kind, flink, duck, classes string
}

// dwWin is a window TVF call and its DuckDB expansion.
type dwWin struct {
	kind                  string // TUMBLE, HOP, CUMULATE, SESSION
	size, slide, off, gap int64  // ms
	part                  bool   // SESSION ... PARTITION BY k
}

func sec(ms int64) string { return fmt.Sprintf("INTERVAL '%d' SECOND", ms/1000) }

func (g *dwGen) win(session bool) dwWin {
	kinds := []string{"TUMBLE", "HOP", "CUMULATE"}
	if session && !g.d.late {
		kinds = append(kinds, "SESSION")
	}
	w := dwWin{kind: kinds[g.pick(len(kinds))]}
	switch w.kind {
	case "TUMBLE":
		w.size = []int64{2, 3, 5, 10, 30}[g.pick(5)] * 1000
		if g.chance(20) {
			w.off = int64(1+g.pick(int(w.size/1000))) * 1000
			if w.off >= w.size {
				w.off = -1000
			}
		}
	case "HOP", "CUMULATE":
		w.slide = []int64{1, 2, 5}[g.pick(3)] * 1000
		w.size = w.slide * int64(2+g.pick(3))
		if g.chance(15) {
			w.off = w.slide
		}
	case "SESSION":
		w.gap = []int64{2, 3, 5}[g.pick(3)] * 1000
		w.part = g.chance(60)
	}
	return w
}

// flink is the TVF over table t.
func (w dwWin) flink(t string) string {
	off := ""
	if w.off != 0 {
		off = ", " + sec(w.off)
	}
	switch w.kind {
	case "TUMBLE":
		return fmt.Sprintf("TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), %s%s))", t, sec(w.size), off)
	case "HOP", "CUMULATE":
		return fmt.Sprintf("TABLE(%s(TABLE %s, DESCRIPTOR(ts), %s, %s%s))", w.kind, t, sec(w.slide), sec(w.size), off)
	default:
		p := ""
		if w.part {
			p = " PARTITION BY k"
		}
		return fmt.Sprintf("TABLE(SESSION(TABLE %s%s, DESCRIPTOR(ts), %s))", t, p, sec(w.gap))
	}
}

// duck is the same rows in DuckDB: t's columns and window_start,
// window_end (TIMESTAMP), window_time, and wsms / wems (epoch ms); in late
// mode without the (row, window) pairs whose window had fired.
func (w dwWin) duck(t string, late bool) string {
	var starts string // a list of window starts per row, and the size
	cols := "epoch_ms(w.s) AS window_start, epoch_ms(w.e) AS window_end, epoch_ms(w.e - 1) AS window_time, w.s AS wsms, w.e AS wems"
	switch w.kind {
	case "TUMBLE":
		starts = fmt.Sprintf("SELECT s, s + %d AS e FROM (SELECT (x.tsms - %d) // %d * %d + %d AS s)", w.size, w.off, w.size, w.size, w.off)
	case "HOP":
		starts = fmt.Sprintf("SELECT s, s + %d AS e FROM (SELECT unnest(generate_series((x.tsms - %d) // %d * %d + %d - %d, (x.tsms - %d) // %d * %d + %d, %d)) AS s)",
			w.size, w.off, w.slide, w.slide, w.off, w.size-w.slide, w.off, w.slide, w.slide, w.off, w.slide)
	case "CUMULATE":
		st := fmt.Sprintf("((x.tsms - %d) // %d * %d + %d)", w.off, w.size, w.size, w.off)
		starts = fmt.Sprintf("SELECT %s AS s, e FROM (SELECT unnest(generate_series(%s + (x.tsms - %s) // %d * %d + %d, %s + %d, %d)) AS e)",
			st, st, st, w.slide, w.slide, w.slide, st, w.size, w.slide)
	default:
		pk, part := "", ""
		if w.part {
			pk, part = "k, ", "PARTITION BY k "
		}
		return fmt.Sprintf(`(SELECT x.*, epoch_ms(x.s) AS window_start, epoch_ms(x.e) AS window_end, epoch_ms(x.e - 1) AS window_time, x.s AS wsms, x.e AS wems FROM (
  SELECT c.*, MIN(tsms) OVER (PARTITION BY %[1]ssid) AS s, MAX(tsms) OVER (PARTITION BY %[2]ssid) + %[3]d AS e FROM (
    SELECT b.*, SUM(nw) OVER (%[4]sORDER BY tsms, seq ROWS UNBOUNDED PRECEDING) AS sid FROM (
      SELECT e0.*, CASE WHEN tsms - lag(tsms) OVER (%[4]sORDER BY tsms, seq) < %[3]d OR tsms - lag(tsms) OVER (%[4]sORDER BY tsms, seq) = %[3]d AND wm < tsms - 1 THEN 0 ELSE 1 END AS nw FROM %[5]s e0) b) c) x)`,
			pk, pk, w.gap, part, t)
	}
	where := ""
	if late {
		where = " WHERE w.e - 1 > x.wm"
	}
	return fmt.Sprintf("(SELECT x.*, %s FROM %s x, LATERAL (%s) w%s)", cols, t, starts, where)
}

func (g *dwGen) query() dwQuery {
	kinds := []string{"winagg", "winagg", "wintopn", "windedup", "dedup", "topn", "over", "over", "cascade", "wtopnagg", "tvf"}
	if !g.d.late {
		kinds = append(kinds, "ijoin", "ijoin", "wjoin", "wjoin", "wjoinagg", "ijoinwin")
	}
	switch kinds[g.pick(len(kinds))] {
	case "winagg":
		return g.winAgg()
	case "wintopn":
		return g.winTopN()
	case "windedup":
		return g.winDedup()
	case "dedup":
		return g.dedup()
	case "topn":
		return g.topN()
	case "over":
		return g.over()
	case "cascade":
		return g.cascade()
	case "tvf":
		return g.tvf()
	case "wtopnagg":
		return g.winTopNAgg()
	case "ijoin":
		return g.intervalJoin()
	case "ijoinwin":
		return g.intervalJoinWindow()
	case "wjoin":
		return g.windowJoin()
	default:
		return g.windowJoinAgg()
	}
}

// dwAggs picks aggregate calls over v and g: Flink's and DuckDB's text, and
// classes.
func (g *dwGen) aggs(alias string) (fl, du []string, cls string) {
	all := []struct{ f, d, c string }{
		{"COUNT(*)", "COUNT(*)", "i"},
		{"COUNT(v)", "COUNT(v)", "i"},
		{"SUM(v)", "SUM(v)", "d"},
		{"MIN(v)", "MIN(v)", "d"},
		{"MAX(v)", "MAX(v)", "d"},
		{"AVG(v)", "AVG(v)", "d"},
		{"COUNT(DISTINCT g)", "COUNT(DISTINCT g)", "i"},
		{"MAX(g)", "MAX(g)", "s"},
		{"SUM(v) FILTER (WHERE k > 0)", "SUM(v) FILTER (WHERE k > 0)", "d"},
	}
	n := 1 + g.pick(4)
	for i := 0; i < n; i++ {
		a := all[g.pick(len(all))]
		fl = append(fl, fmt.Sprintf("%s AS %s%d", a.f, alias, i))
		du = append(du, a.d)
		cls += a.c
	}
	return
}

// filter is an optional WHERE over the input's columns.
func (g *dwGen) filter() string {
	if !g.chance(25) {
		return ""
	}
	return []string{" WHERE v > 0", " WHERE k IS NOT NULL", " WHERE g <> 'a'", " WHERE v IS NULL OR k = 1"}[g.pick(4)]
}

func (g *dwGen) winAgg() dwQuery {
	w := g.win(true)
	keyed := g.chance(60)
	if w.kind == "SESSION" {
		keyed = w.part
	}
	fa, da, cls := g.aggs("a")
	fk, gk, kc := "", "", ""
	if keyed {
		fk, gk, kc = "k, ", "k, ", "i"
	}
	if w.kind != "SESSION" && g.chance(15) {
		// Grouping sets in a window aggregate (an Expand below it).
		fk, gk, kc = "k, g, ", []string{"ROLLUP (k, g), ", "CUBE (k, g), ", "GROUPING SETS ((k), (g), ()), "}[g.pick(3)], "is"
	}
	wt, wc := "", ""
	if g.chance(20) {
		wt, wc = ", window_time", "t"
	}
	f := g.filter()
	src, df := "ev1", f
	if w.kind == "SESSION" && f != "" {
		// Flink computes the sessions of the rows the WHERE keeps: the
		// window aggregate absorbs the SESSION TVF and the Calc between
		// them goes below it (StreamPhysicalWindowAggregateRule).
		src, df = "(SELECT * FROM ev1"+f+")", ""
	}
	if w.kind != "SESSION" && g.chance(15) {
		// A filter on a window column: the WindowTableFunction stays
		// below the Calc and the aggregate reads the windows it names.
		c := []string{"window_start >= TIMESTAMP '2024-01-01 00:00:10'", "window_end <= TIMESTAMP '2024-01-01 00:00:30'"}[g.pick(2)]
		if f == "" {
			f = " WHERE " + c
		} else {
			f += " AND " + c
		}
		df = f
	}
	having := ""
	if g.chance(15) {
		having = " HAVING COUNT(*) > 1"
	}
	return dwQuery{kind: "winagg " + w.kind,
		flink: fmt.Sprintf("SELECT %swindow_start, window_end%s, %s FROM %s%s GROUP BY %swindow_start, window_end%s%s",
			fk, wt, strings.Join(fa, ", "), w.flink("ev1"), f, gk, wt, having),
		duck: fmt.Sprintf("SELECT %swindow_start, window_end%s, %s FROM %s x%s GROUP BY %swindow_start, window_end%s%s",
			fk, wt, strings.Join(da, ", "), w.duck(src, g.d.late), df, gk, wt, having),
		classes: kc + "tt" + wc + cls}
}

// tvf is a window TVF without a window aggregate: its rows, or a regular
// aggregate over them. AlignedWindowTableFunctionOperator drops no late
// row, so neither does DuckDB's query.
func (g *dwGen) tvf() dwQuery {
	w := g.win(false)
	if g.chance(50) {
		return dwQuery{kind: "tvf " + w.kind,
			flink:   fmt.Sprintf("SELECT k, v, ts, window_start, window_end, window_time FROM %s", w.flink("ev1")),
			duck:    fmt.Sprintf("SELECT k, v, ts, window_start, window_end, window_time FROM %s x", w.duck("ev1", false)),
			classes: "idtttt"}
	}
	key, kc := []string{"k", "window_start, k", "window_end"}[g.pick(3)], ""
	for _, c := range strings.Split(key, ", ") {
		if c == "k" {
			kc += "i"
		} else {
			kc += "t"
		}
	}
	fa, da, cls := g.aggs("a")
	return dwQuery{kind: "tvf group " + w.kind,
		flink:   fmt.Sprintf("SELECT %s, %s FROM %s GROUP BY %s", key, strings.Join(fa, ", "), w.flink("ev1"), key),
		duck:    fmt.Sprintf("SELECT %s, %s FROM %s x GROUP BY %s", key, strings.Join(da, ", "), w.duck("ev1", false), key),
		classes: kc + cls}
}

// order is a Top-N sort key on v or ts: Flink's text and DuckDB's (NULLs
// are smallest in Flink), ties by arrival.
func (g *dwGen) order() (fl, du string) {
	switch g.pick(4) {
	case 0:
		return "v DESC", "v DESC NULLS LAST, seq"
	case 1:
		return "v", "v ASC NULLS FIRST, seq"
	case 2:
		return "ts DESC", "ts DESC, seq"
	default:
		return "v DESC, ts", "v DESC NULLS LAST, ts, seq"
	}
}

func (g *dwGen) winTopN() dwQuery {
	w := g.win(false)
	part, dpart := "window_start, window_end", "window_start, window_end"
	if g.chance(50) {
		part += ", k"
		dpart += ", k"
	}
	fo, do := g.order()
	n := 1 + g.pick(3)
	rn, drn, rc := "", "", ""
	if g.chance(50) {
		rn, drn, rc = ", rn", ", rn", "i"
	}
	if n == 1 && fo == "ts DESC" {
		// A window deduplication keeping the last row, also with rn
		// selected: RankNumberColumnRemoveRule makes a rank number of a
		// range [1, 1] the literal 1.
		do = "ts DESC, seq DESC"
	}
	return dwQuery{kind: "wintopn " + w.kind,
		flink: fmt.Sprintf("SELECT k, v, ts, window_start, window_end%s FROM (SELECT k, v, ts, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM %s) WHERE rn <= %d",
			rn, part, fo, w.flink("ev1"), n),
		duck: fmt.Sprintf("SELECT k, v, ts, window_start, window_end%s FROM (SELECT k, v, ts, window_start, window_end, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM %s x) WHERE rn <= %d",
			drn, dpart, do, w.duck("ev1", g.d.late), n),
		classes: "idttt" + rc}
}

func (g *dwGen) winDedup() dwQuery {
	w := g.win(false)
	part := "window_start, window_end"
	if g.chance(70) {
		part += ", k"
	}
	fo, do := "ts", "ts, seq"
	if g.chance(50) {
		fo, do = "ts DESC", "ts DESC, seq DESC"
	}
	return dwQuery{kind: "windedup " + w.kind,
		flink: fmt.Sprintf("SELECT k, g, v, ts, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM %s) WHERE rn = 1",
			part, fo, w.flink("ev1")),
		duck: fmt.Sprintf("SELECT k, g, v, ts, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM %s x) WHERE rn = 1",
			part, do, w.duck("ev1", g.d.late)),
		classes: "isdttt"}
}

func (g *dwGen) dedup() dwQuery {
	part := []string{"k", "k, g", "g"}[g.pick(3)]
	fo, do := "ts", "ts, seq"
	if g.chance(50) {
		fo, do = "ts DESC", "ts DESC, seq DESC"
	}
	return dwQuery{kind: "dedup",
		flink:   fmt.Sprintf("SELECT k, g, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM ev1) WHERE rn = 1", part, fo),
		duck:    fmt.Sprintf("SELECT k, g, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM ev1) WHERE rn = 1", part, do),
		classes: "isdt"}
}

func (g *dwGen) topN() dwQuery {
	part := []string{"k", "k, g", "g"}[g.pick(3)]
	fo, do := g.order()
	if g.chance(30) {
		fo, do = "ts", "ts, seq"
	}
	n := 2 + g.pick(3)
	rn, rc := "", ""
	if g.chance(50) {
		rn, rc = ", rn", "i"
	}
	return dwQuery{kind: "topn",
		flink:   fmt.Sprintf("SELECT k, g, v, ts%s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM ev1) WHERE rn <= %d", rn, part, fo, n),
		duck:    fmt.Sprintf("SELECT k, g, v, ts%s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM ev1) WHERE rn <= %d", rn, part, do, n),
		classes: "isdt" + rc}
}

func (g *dwGen) over() dwQuery {
	parts := []struct{ p, col string }{{"PARTITION BY k ", "obk"}, {"", "obn"}, {"PARTITION BY k, g ", "obkg"}}
	pt := parts[g.pick(3)]
	var frame, dframe string
	bounded := false
	rows := false
	switch g.pick(5) {
	case 0:
		n := g.pick(4)
		frame, bounded, rows = fmt.Sprintf(" ROWS BETWEEN %d PRECEDING AND CURRENT ROW", n), true, true
	case 1:
		frame, rows = " ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", true
	case 2:
		s := 1 + g.pick(10)
		frame, bounded = fmt.Sprintf(" RANGE BETWEEN INTERVAL '%d' SECOND PRECEDING AND CURRENT ROW", s), true
		dframe = fmt.Sprintf(" RANGE BETWEEN INTERVAL %d SECOND PRECEDING AND CURRENT ROW", s)
	case 3:
		frame = " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
	default:
		frame = ""
	}
	if dframe == "" {
		dframe = frame
	}
	dord := "ts"
	if rows {
		dord = "ts, seq"
	}
	src := "ev1"
	if g.d.late {
		if bounded {
			src = "(SELECT * FROM ev1 WHERE " + pt.col + ")"
		} else {
			src = "(SELECT * FROM ev1 WHERE tsms > wm)"
		}
	}
	var fl, du []string
	cls := "idt"
	f := ""
	if !g.d.late {
		// (In late mode a filter would change which timers a key
		// registers, which the precomputed drops do not follow.)
		f = g.filter()
	}
	if frame == "" && g.chance(35) {
		// LAG (LagAggFunction) over the unbounded RANGE frame: the rows
		// of one timestamp take the value offset rows before the last of
		// them in arrival order, which DuckDB reads from the list of the
		// partition's values at that position: lagn, the rows up to the
		// current one's last peer, counted in a subquery over the rows
		// the window reads.
		for i := 0; i <= g.pick(2); i++ {
			col, c, def := []string{"v", "k", "g"}[g.pick(3)], byte(0), ""
			c = map[string]byte{"v": 'd', "k": 'i', "g": 's'}[col]
			off := 1 + g.pick(3)
			args := col
			if off > 1 || g.chance(50) {
				args += fmt.Sprintf(", %d", off)
				if g.chance(60) {
					def = map[string]string{"v": "CAST(-1.5 AS DOUBLE)", "k": "-1", "g": "'zz'"}[col]
					args += ", " + def
				}
			}
			if def == "" {
				def = "NULL"
			}
			fl = append(fl, "LAG("+args+") OVER (%s) AS l"+strconv.Itoa(i))
			du = append(du, fmt.Sprintf("CASE WHEN lagn - %d >= 1 THEN list_extract(list(%s) OVER (%sORDER BY ts, seq ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), lagn - %d) ELSE %s END",
				off, col, pt.p, off, def)+"%.0s")
			cls += string(c)
		}
		src = "(SELECT *, COUNT(*) OVER (" + pt.p + "ORDER BY ts) AS lagn FROM " + src + " y" + f + ")"
	}
	if len(fl) > 0 {
		// (LAG's window alone: a ROW_NUMBER would be another one.)
	} else if frame == "" && g.chance(30) {
		// Calcite frames ROW_NUMBER as ROWS: peers in arrival order.
		fl = append(fl, "ROW_NUMBER() OVER (%s) AS o0")
		du = append(du, "ROW_NUMBER() OVER (%s)")
		cls += "i"
		dord = "ts, seq"
	} else {
		fa, da, c := g.aggs("o")
		for i := range fa {
			if strings.Contains(fa[i], "FILTER") {
				fa[i], da[i], c = "COUNT(v) AS o"+strconv.Itoa(i), "COUNT(v)", c[:i]+"i"+c[i+1:]
			}
			fl = append(fl, strings.Replace(fa[i], " AS ", " OVER (%s) AS ", 1))
			du = append(du, da[i]+" OVER (%s)")
		}
		cls += c
	}
	fw := pt.p + "ORDER BY ts" + frame
	dw := pt.p + "ORDER BY " + dord + dframe
	for i := range fl {
		fl[i] = fmt.Sprintf(fl[i], fw)
		du[i] = fmt.Sprintf(du[i], dw)
	}
	return dwQuery{kind: "over",
		flink:   fmt.Sprintf("SELECT k, v, ts, %s FROM ev1%s", strings.Join(fl, ", "), f),
		duck:    fmt.Sprintf("SELECT k, v, ts, %s FROM %s x%s", strings.Join(du, ", "), src, f),
		classes: cls}
}

// cascade is a window aggregate over a window aggregate's window_start and
// window_end (WindowAttachedWindowingStrategy).
func (g *dwGen) cascade() dwQuery {
	w := g.win(false)
	inner := "SELECT k, window_start, window_end, COUNT(*) AS c, MAX(v) AS m FROM %s GROUP BY k, window_start, window_end"
	q := "SELECT window_start, window_end, SUM(c) AS sc, MIN(m) AS mm, COUNT(*) AS n FROM (" + inner + ") GROUP BY window_start, window_end"
	return dwQuery{kind: "cascade " + w.kind,
		flink:   fmt.Sprintf(q, w.flink("ev1")),
		duck:    fmt.Sprintf(q, w.duck("ev1", g.d.late)+" x"),
		classes: "ttidi"}
}

// winTopNAgg is a window Top-N over a window aggregate, sorted by the
// aggregate and the key (unique in a window).
func (g *dwGen) winTopNAgg() dwQuery {
	w := g.win(false)
	n := 1 + g.pick(3)
	inner := "SELECT k, window_start, window_end, COUNT(*) AS c, SUM(v) AS s FROM %s GROUP BY k, window_start, window_end"
	fo, do := "c DESC, k", "c DESC, k ASC NULLS FIRST"
	if g.chance(50) {
		fo, do = "s, k DESC", "s ASC NULLS FIRST, k DESC NULLS LAST"
	}
	q := "SELECT k, window_start, window_end, c, s, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY %s) AS rn FROM (" + inner + ")) WHERE rn <= %d"
	return dwQuery{kind: "wtopnagg " + w.kind,
		flink:   fmt.Sprintf(q, fo, w.flink("ev1"), n),
		duck:    fmt.Sprintf(q, do, w.duck("ev1", g.d.late)+" x", n),
		classes: "ittidi"}
}

func (g *dwGen) joinType() string {
	return []string{"JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}[g.pick(5)]
}

func (g *dwGen) intervalJoin() dwQuery {
	jt := g.joinType()
	lo, hi := int64(g.pick(6))*1000, int64(g.pick(6))*1000
	var cf, cd string
	switch g.pick(3) {
	case 0:
		cf = fmt.Sprintf("r.ts BETWEEN l.ts - %s AND l.ts + %s", sec(lo), sec(hi))
		cd = fmt.Sprintf("r.ts BETWEEN l.ts - INTERVAL %d SECOND AND l.ts + INTERVAL %d SECOND", lo/1000, hi/1000)
	case 1:
		cf = fmt.Sprintf("l.ts > r.ts - %s AND l.ts < r.ts + %s", sec(lo+1000), sec(hi+1000))
		cd = fmt.Sprintf("l.ts > r.ts - INTERVAL %d SECOND AND l.ts < r.ts + INTERVAL %d SECOND", lo/1000+1, hi/1000+1)
	default:
		cf = fmt.Sprintf("l.ts >= r.ts AND l.ts <= r.ts + %s", sec(hi))
		cd = fmt.Sprintf("l.ts >= r.ts AND l.ts <= r.ts + INTERVAL %d SECOND", hi/1000)
	}
	extra := ""
	if g.chance(25) {
		extra = " AND l.v < r.v"
	}
	q := "SELECT l.k, l.v, l.ts, r.k, r.v, r.ts FROM ev1 l %s ev2 r ON l.k = r.k AND %s%s"
	return dwQuery{kind: "ijoin " + jt,
		flink: fmt.Sprintf(q, jt, cf, extra), duck: fmt.Sprintf(q, jt, cd, extra), classes: "idtidt"}
}

// intervalJoinWindow is a group window over an inner interval join's
// left rowtime (the join holds its output watermark back by its bounds, so
// no joined row is late).
func (g *dwGen) intervalJoinWindow() dwQuery {
	size := []int64{2, 5, 10}[g.pick(3)] * 1000
	lo, hi := int64(g.pick(6))*1000, int64(g.pick(6))*1000
	q := "SELECT l.k, %s AS ws, COUNT(*) AS c, SUM(r.v) AS s FROM ev1 l JOIN ev2 r ON l.k = r.k AND %s GROUP BY l.k, %s"
	return dwQuery{kind: "ijoinwin",
		flink: fmt.Sprintf(q, "TUMBLE_START(l.ts, "+sec(size)+")",
			fmt.Sprintf("r.ts BETWEEN l.ts - %s AND l.ts + %s", sec(lo), sec(hi)), "TUMBLE(l.ts, "+sec(size)+")"),
		duck: fmt.Sprintf(q, fmt.Sprintf("epoch_ms(l.tsms // %d * %d)", size, size),
			fmt.Sprintf("r.ts BETWEEN l.ts - INTERVAL %d SECOND AND l.ts + INTERVAL %d SECOND", lo/1000, hi/1000),
			fmt.Sprintf("l.tsms // %d", size)),
		classes: "itid"}
}

func (g *dwGen) windowJoin() dwQuery {
	w := g.win(false)
	jt := g.joinType()
	q := "SELECT L.k, L.v, L.window_start, L.window_end, R.k, R.v, R.window_start, R.window_end FROM (SELECT * FROM %s) L %s (SELECT * FROM %s) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k"
	cls := "idttidtt"
	if g.chance(25) {
		in := "IN"
		if g.chance(50) {
			in = "NOT IN"
		}
		q = "SELECT L.k, L.v, L.window_start, L.window_end FROM (SELECT * FROM %s) L WHERE L.k " + in + " (SELECT R.k FROM (SELECT * FROM %s) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end)"
		if in == "NOT IN" {
			// NOT IN with NULL keys is three-valued; EXISTS is what Flink's
			// window anti join means for non-null keys.
			q = "SELECT L.k, L.v, L.window_start, L.window_end FROM (SELECT * FROM %s) L WHERE NOT EXISTS (SELECT R.k FROM (SELECT * FROM %s) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k)"
		}
		return dwQuery{kind: "wjoin " + in + " " + w.kind,
			flink:   fmt.Sprintf(q, w.flink("ev1"), w.flink("ev2")),
			duck:    fmt.Sprintf(q, w.duck("ev1", false), w.duck("ev2", false)),
			classes: "idtt"}
	}
	return dwQuery{kind: "wjoin " + jt + " " + w.kind,
		flink:   fmt.Sprintf(q, w.flink("ev1"), jt, w.flink("ev2")),
		duck:    fmt.Sprintf(q, w.duck("ev1", false), jt, w.duck("ev2", false)),
		classes: cls}
}

func (g *dwGen) windowJoinAgg() dwQuery {
	w := g.win(false)
	jt := g.joinType()
	agg := "SELECT k, window_start, window_end, COUNT(*) AS c, SUM(v) AS s FROM %s GROUP BY k, window_start, window_end"
	q := "SELECT L.k, L.window_start, L.c, L.s, R.k, R.window_end, R.c, R.s FROM (" + agg + ") L %s (" + agg + ") R ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k"
	return dwQuery{kind: "wjoinagg " + jt + " " + w.kind,
		flink:   fmt.Sprintf(q, w.flink("ev1"), jt, w.flink("ev2")),
		duck:    fmt.Sprintf(q, w.duck("ev1", false)+" x", jt, w.duck("ev2", false)+" x"),
		classes: "itiditid"}
}

// dwSortedKinds lists the kinds counted, for the log.
func dwSortedKinds(m map[string]int) string {
	var out []string
	for k, n := range m {
		out = append(out, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
