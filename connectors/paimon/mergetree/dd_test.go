package mergetree

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

// The datadriven tests share a small vocabulary:
//
//	schema [k=<pk fields>]      table columns, one "name TYPE" per line, and
//	  opt key=value             table options
//	pick ...                    compaction picker (see runPick)
//	merge                       merge one key's versions: "<kind> <values>"
//	lookup-changelog / full-changelog
//	                            changelog wrappers over versions with levels
//	write / commit / compact / read
//	                            a bucket Writer over a MemStore
func TestDataDriven(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			h := &ddHarness{}
			defer h.close()
			datadriven.RunTest(t, f, h.run)
		})
	}
}

type ddHarness struct {
	names  []string
	types  []sql.DataType
	pk     []string
	opts   map[string]string
	spec   *Spec
	store  *MemStore
	writer *Writer
	// state is the changelog applied to a map, to check it against reads.
	state map[string][]any
}

func (h *ddHarness) close() {
	if h.writer != nil {
		h.writer.Close()
	}
}

func (h *ddHarness) run(t *testing.T, d *datadriven.TestData) string {
	out, err := h.dispatch(t, d)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return out
}

func (h *ddHarness) dispatch(t *testing.T, d *datadriven.TestData) (string, error) {
	switch d.Cmd {
	case "schema":
		return h.defineSchema(d)
	case "pick":
		return runPick(d)
	case "merge":
		return h.runMerge(d)
	case "lookup-changelog", "full-changelog":
		return h.runWrapper(d)
	case "write":
		return h.runWrite(d)
	case "commit":
		return h.runCommit(d)
	case "compact":
		if h.writer == nil {
			return "", fmt.Errorf("no writer")
		}
		if err := h.writer.Compact(d.HasArg("full")); err != nil {
			return "", err
		}
		return h.runCommit(d)
	case "read":
		return h.runRead()
	case "levels":
		return h.writer.Levels().String(), nil
	case "compact-files":
		return h.runCompactFiles(t, d)
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

func (h *ddHarness) defineSchema(d *datadriven.TestData) (string, error) {
	h.names, h.types, h.pk = nil, nil, nil
	h.opts = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "opt "); ok {
			k, v, _ := strings.Cut(rest, "=")
			h.opts[k] = v
			continue
		}
		f := strings.Fields(line)
		typ, err := parseType(f[1])
		if err != nil {
			return "", err
		}
		for _, m := range f[2:] {
			switch m {
			case "pk":
				h.pk = append(h.pk, f[0])
			case "notnull":
				typ = typ.NotNull()
			}
		}
		h.names = append(h.names, f[0])
		h.types = append(h.types, typ)
	}
	spec, err := newSpec(h.names, h.types, h.pk, h.opts)
	if err != nil {
		return "", err
	}
	h.spec = spec
	if h.writer != nil {
		h.writer.Close()
	}
	h.writer, h.store, h.state = nil, nil, map[string][]any{}
	return fmt.Sprintf("engine=%s producer=%s levels=%d\n", spec.Engine, spec.Producer, spec.NumLevels), nil
}

func parseType(s string) (sql.DataType, error) {
	u := strings.ToUpper(s)
	switch {
	case u == "INT":
		return sql.Int(), nil
	case u == "BIGINT":
		return sql.BigInt(), nil
	case u == "STRING":
		return sql.String(), nil
	case u == "BOOLEAN":
		return sql.Boolean(), nil
	case u == "DOUBLE":
		return sql.Double(), nil
	case u == "DATE":
		return sql.Date(), nil
	case strings.HasPrefix(u, "DECIMAL("):
		var p, sc int
		if _, err := fmt.Sscanf(u, "DECIMAL(%d,%d)", &p, &sc); err != nil {
			return sql.DataType{}, fmt.Errorf("bad type %s", s)
		}
		return sql.Decimal(p, sc), nil
	}
	return sql.DataType{}, fmt.Errorf("unknown type %s", s)
}

func parseValue(s string, t sql.DataType) (any, error) {
	if s == "null" {
		return nil, nil
	}
	switch t.Root {
	case sql.TypeInt, sql.TypeDate:
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	case sql.TypeBigInt:
		return strconv.ParseInt(s, 10, 64)
	case sql.TypeVarChar:
		return s, nil
	case sql.TypeBoolean:
		return strconv.ParseBool(s)
	case sql.TypeDouble:
		return strconv.ParseFloat(s, 64)
	case sql.TypeDecimal:
		d, err := decimal.NewFromString(s)
		return d.Round(int32(t.Scale)), err
	}
	return nil, fmt.Errorf("cannot parse %s", s)
}

// parseRecord reads "[L<level>] <kind> <values...>".
func (h *ddHarness) parseRecord(line string, seq int64) (*KV, error) {
	f := strings.Fields(line)
	level := -1
	if strings.HasPrefix(f[0], "L") {
		n, err := strconv.Atoi(f[0][1:])
		if err != nil {
			return nil, err
		}
		level, f = n, f[1:]
	}
	kind, err := sql.ParseRowKind(f[0])
	if err != nil {
		return nil, err
	}
	f = f[1:]
	if len(f) != len(h.types) {
		return nil, fmt.Errorf("record %q has %d values, schema has %d", line, len(f), len(h.types))
	}
	v := make([]any, len(f))
	for i := range f {
		if v[i], err = parseValue(f[i], h.types[i]); err != nil {
			return nil, err
		}
	}
	return &KV{Key: h.spec.KeyOf(v), Seq: seq, Kind: kind, Value: v, Level: level}, nil
}

func (h *ddHarness) format(r *KV) string {
	return sql.FormatRow(sql.Row{Kind: r.Kind, Values: r.Value}, h.types)
}

func (h *ddHarness) runMerge(d *datadriven.TestData) (string, error) {
	if h.spec == nil {
		return "", fmt.Errorf("no schema")
	}
	mf := h.spec.NewMergeFunction()
	mf.Reset()
	var seq int64
	var versions []*KV
	for _, line := range nonEmptyLines(d.Input) {
		seq++
		r, err := h.parseRecord(line, seq)
		if err != nil {
			return "", err
		}
		versions = append(versions, r)
	}
	// The merge reader hands versions over in SeqOrder (sequence.field).
	sort.SliceStable(versions, func(i, j int) bool { return h.spec.Order.Compare(versions[i], versions[j]) < 0 })
	for _, r := range versions {
		if err := mf.Add(r); err != nil {
			return "", err
		}
	}
	r, err := mf.Result()
	if err != nil {
		return "", err
	}
	if r == nil {
		return "no result\n", nil
	}
	return fmt.Sprintf("%s seq=%d\n", h.format(r), r.Seq), nil
}

// runWrapper feeds versions ("L<n> <kind> <values>") to a changelog wrapper;
// lines "lookup: L<n> <kind> <values>" define what the lookup index holds.
func (h *ddHarness) runWrapper(d *datadriven.TestData) (string, error) {
	if h.spec == nil {
		return "", fmt.Errorf("no schema")
	}
	var versions []*KV
	var found *KV
	var seq int64
	for _, line := range nonEmptyLines(d.Input) {
		seq++
		if rest, ok := strings.CutPrefix(line, "lookup: "); ok {
			r, err := h.parseRecord(rest, seq)
			if err != nil {
				return "", err
			}
			found = r
			continue
		}
		r, err := h.parseRecord(line, seq)
		if err != nil {
			return "", err
		}
		versions = append(versions, r)
	}
	var w ChangelogWrapper
	if d.Cmd == "lookup-changelog" {
		lookup := func([]any) (*KV, error) { return found, nil }
		if h.spec.Engine == coreoptions.EngineFirstRow {
			w = NewFirstRowChangelogWrapper(h.spec, func([]any) (bool, error) { return found != nil, nil })
		} else {
			w = NewLookupChangelogWrapper(h.spec, lookup, true)
		}
	} else {
		w = NewFullChangelogWrapper(h.spec, h.spec.NumLevels-1)
	}
	result, cl, err := w.Apply(versions)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if result == nil {
		b.WriteString("result: none\n")
	} else {
		fmt.Fprintf(&b, "result: %s\n", h.format(result))
	}
	if len(cl) == 0 {
		b.WriteString("changelog: none\n")
	}
	for _, c := range cl {
		fmt.Fprintf(&b, "changelog: %s\n", h.format(c))
	}
	return b.String(), nil
}

func (h *ddHarness) ensureWriter() error {
	if h.spec == nil {
		return fmt.Errorf("no schema")
	}
	if h.writer == nil {
		h.store = NewMemStore(h.spec.Key, h.spec.TargetFileSize)
		w, err := NewWriter(h.spec, h.store, nil, WriterOptions{})
		if err != nil {
			return err
		}
		h.writer = w
	}
	return nil
}

func (h *ddHarness) runWrite(d *datadriven.TestData) (string, error) {
	if err := h.ensureWriter(); err != nil {
		return "", err
	}
	for _, line := range nonEmptyLines(d.Input) {
		r, err := h.parseRecord(line, 0)
		if err != nil {
			return "", err
		}
		if err := h.writer.Write(r.Kind, r.Value); err != nil {
			return "", err
		}
	}
	return "ok\n", nil
}

// runCommit prepares a commit and prints what a streaming reader of the
// table would see: the changelog files' records (APPEND then COMPACT).
func (h *ddHarness) runCommit(d *datadriven.TestData) (string, error) {
	if err := h.ensureWriter(); err != nil {
		return "", err
	}
	inc, err := h.writer.PrepareCommit(!d.HasArg("nowait"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "new files: %d, compacted: %d -> %d\n", len(inc.NewFiles), len(inc.CompactBefore), len(inc.CompactAfter))
	for _, group := range [][]*FileMeta{inc.NewChangelog, inc.CompactChangelog} {
		for _, f := range group {
			for _, r := range h.store.Records(f.Name) {
				fmt.Fprintf(&b, "%s\n", h.format(r))
				h.apply(r)
			}
		}
	}
	if len(inc.NewChangelog)+len(inc.CompactChangelog) == 0 {
		b.WriteString("no changelog\n")
	}
	return b.String(), nil
}

func (h *ddHarness) apply(r *KV) {
	k := fmt.Sprint(r.Key...)
	if r.Kind.IsAdd() {
		h.state[k] = r.Value
	} else {
		delete(h.state, k)
	}
}

func (h *ddHarness) runRead() (string, error) {
	recs, err := Collect(h.writer.NewReader())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s\n", h.format(&KV{Kind: sql.Insert, Value: r.Value}))
	}
	if len(recs) == 0 {
		b.WriteString("empty\n")
	}
	if h.spec.Producer == coreoptions.ProducerLookup || h.spec.Producer == coreoptions.ProducerFullCompaction {
		keys := make([]string, 0, len(h.state))
		for k := range h.state {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "changelog state: %d keys\n", len(keys))
	}
	return b.String(), nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// runPick: "pick [trigger=5] [amp=200] [ratio=1] [levels=6] [mode=universal|full|force-l0]"
// with one run per line: "L<level> <size>[,<size>...]", newest first.
func runPick(d *datadriven.TestData) (string, error) {
	trigger, amp, ratio, levels, mode := 5, 200, 1, 0, "universal"
	for _, a := range d.CmdArgs {
		if len(a.Vals) == 0 {
			continue
		}
		switch a.Key {
		case "trigger":
			trigger, _ = strconv.Atoi(a.Vals[0])
		case "amp":
			amp, _ = strconv.Atoi(a.Vals[0])
		case "ratio":
			ratio, _ = strconv.Atoi(a.Vals[0])
		case "levels":
			levels, _ = strconv.Atoi(a.Vals[0])
		case "mode":
			mode = a.Vals[0]
		}
	}
	if levels == 0 {
		levels = trigger + 1
	}
	var runs []LevelSortedRun
	n := 0
	for _, line := range nonEmptyLines(d.Input) {
		f := strings.Fields(line)
		lv, err := strconv.Atoi(strings.TrimPrefix(f[0], "L"))
		if err != nil {
			return "", err
		}
		var run SortedRun
		for _, sz := range strings.Split(f[1], ",") {
			size, err := strconv.ParseInt(sz, 10, 64)
			if err != nil {
				return "", err
			}
			n++
			run.Files = append(run.Files, &FileMeta{Name: fmt.Sprintf("f%d", n), Level: lv, Size: size})
		}
		runs = append(runs, LevelSortedRun{Level: lv, Run: run})
	}
	uni := UniversalCompaction{MaxSizeAmp: amp, SizeRatio: ratio, NumRunTrigger: trigger}
	var u *CompactUnit
	switch mode {
	case "universal":
		u = uni.Pick(levels, runs)
	case "full":
		u = PickFullCompaction(levels, runs)
	case "force-l0":
		u = (&ForceUpLevel0Compaction{Universal: uni}).Pick(levels, runs)
	default:
		return "", fmt.Errorf("unknown mode %s", mode)
	}
	if u == nil {
		return "no compaction\n", nil
	}
	var b strings.Builder
	b.WriteString("picked:")
	for _, f := range u.Files {
		fmt.Fprintf(&b, " %s(L%d,%d)", f.Name, f.Level, f.Size)
	}
	fmt.Fprintf(&b, "\noutput level: %d\n", u.OutputLevel)
	return b.String(), nil
}

// runCompactFiles runs one compaction task over files given as
// "L<level> <name> size=<n>: <kind> <values> | <kind> <values> ...", with
// args output=<level> [drop-delete]; it prints which files were rewritten,
// which upgraded, and the changelog produced. Files not in the task but on
// the levels (for lookups) are given with a leading "+".
func (h *ddHarness) runCompactFiles(t *testing.T, d *datadriven.TestData) (string, error) {
	if h.spec == nil {
		return "", fmt.Errorf("no schema")
	}
	store := NewMemStore(h.spec.Key, 0)
	var task, all []*FileMeta
	var seq int64
	for _, line := range nonEmptyLines(d.Input) {
		head, body, _ := strings.Cut(line, ":")
		f := strings.Fields(head)
		extra := strings.HasPrefix(f[0], "+")
		level, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(f[0], "+"), "L"))
		if err != nil {
			return "", err
		}
		meta := &FileMeta{Name: f[1], Level: level}
		for _, a := range f[2:] {
			if v, ok := strings.CutPrefix(a, "size="); ok {
				meta.Size, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		var recs []*KV
		for _, rs := range strings.Split(body, "|") {
			seq++
			r, err := h.parseRecord(strings.TrimSpace(rs), seq)
			if err != nil {
				return "", err
			}
			r.Level = 0
			recs = append(recs, r)
			if r.Kind.IsRetract() {
				meta.DeleteRowCount++
			}
		}
		sort.SliceStable(recs, func(i, j int) bool { return h.spec.Key.Compare(recs[i].Key, recs[j].Key) < 0 })
		meta.MinKey, meta.MaxKey = recs[0].Key, recs[len(recs)-1].Key
		meta.MinSeq, meta.MaxSeq, meta.RowCount = recs[0].Seq, recs[0].Seq, int64(len(recs))
		for _, r := range recs {
			meta.MinSeq, meta.MaxSeq = min(meta.MinSeq, r.Seq), max(meta.MaxSeq, r.Seq)
		}
		store.files[meta.Name] = recs
		all = append(all, meta)
		if !extra {
			task = append(task, meta)
		}
	}
	levels, err := NewLevels(h.spec.Key, all, h.spec.NumLevels)
	if err != nil {
		return "", err
	}
	var lookup LookupLevels
	if h.spec.NeedLookup {
		lookup = NewMemLookup(levels, store, h.spec.Key)
	}
	rw, err := NewRewriter(h.spec, store, lookup, nil, levels.MaxLevel())
	if err != nil {
		return "", err
	}
	output := levels.MaxLevel()
	d.MaybeScanArgs(t, "output", &output)
	task2 := &compactTask{rw: rw, key: h.spec.Key, minFileSize: h.spec.CompactionFileSize, outputLevel: output,
		maxLevel: levels.MaxLevel(), dropDelete: d.HasArg("drop-delete")}
	res, err := task2.run(task)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	after := map[string]*FileMeta{}
	for _, f := range res.After {
		after[f.Name] = f
	}
	for _, f := range res.Before {
		if a, ok := after[f.Name]; ok {
			fmt.Fprintf(&b, "upgraded: %s L%d -> L%d\n", f.Name, f.Level, a.Level)
			delete(after, f.Name)
		} else {
			fmt.Fprintf(&b, "rewritten: %s (L%d)\n", f.Name, f.Level)
		}
	}
	var names []string
	for n := range after {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "written: %s L%d:", n, after[n].Level)
		for _, r := range store.files[n] {
			fmt.Fprintf(&b, " %s", h.format(r))
		}
		b.WriteString("\n")
	}
	for _, f := range res.Changelog {
		for _, r := range store.files[f.Name] {
			fmt.Fprintf(&b, "changelog: %s\n", h.format(r))
		}
	}
	return b.String(), nil
}
