package operators

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/exec/runtime/state/lsm"
	"github.com/sqlrun/sqlrun/sql"
)

// parseType reads the short type names the golden files use.
func parseType(t testing.TB, s string) sql.DataType {
	switch {
	case s == "int":
		return sql.Int()
	case s == "bigint":
		return sql.BigInt()
	case s == "str":
		return sql.String()
	case s == "double":
		return sql.Double()
	case s == "ts":
		// A TIMESTAMP(3), written as epoch milliseconds.
		return sql.Timestamp(3)
	case strings.HasPrefix(s, "dec"):
		scale, err := strconv.Atoi(strings.TrimPrefix(s, "dec"))
		if err != nil {
			t.Fatalf("type %q", s)
		}
		return sql.Decimal(38, scale)
	}
	t.Fatalf("unknown type %q", s)
	return sql.DataType{}
}

func types(t testing.TB, td *datadriven.TestData, key string) []sql.DataType {
	arg, ok := td.Arg(key)
	if !ok {
		t.Fatalf("missing %s=", key)
	}
	var out []sql.DataType
	for _, v := range arg.Vals {
		out = append(out, parseType(t, v))
	}
	return out
}

func ints(t testing.TB, td *datadriven.TestData, key string) []int {
	arg, ok := td.Arg(key)
	if !ok {
		return nil
	}
	var out []int
	for _, v := range arg.Vals {
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out = append(out, n)
	}
	return out
}

func boolArg(td *datadriven.TestData, key string) bool {
	arg, ok := td.Arg(key)
	return ok && (len(arg.Vals) == 0 || arg.Vals[0] == "true")
}

// parseRow reads "+U[1001, 80.00, CREATED]" with the given column types.
func parseRow(t testing.TB, line string, ts []sql.DataType) sql.Row {
	line = strings.TrimSpace(line)
	kind, err := sql.ParseRowKind(line[:2])
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(line[2:], "["), "]")
	parts := strings.Split(body, ",")
	if len(parts) != len(ts) {
		t.Fatalf("%q: %d values for %d types", line, len(parts), len(ts))
	}
	vals := make([]any, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "null" {
			continue
		}
		switch ts[i].Root {
		case sql.TypeInt:
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil {
				t.Fatal(err)
			}
			vals[i] = int32(n)
		case sql.TypeBigInt:
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals[i] = n
		case sql.TypeDouble:
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals[i] = f
		case sql.TypeDecimal:
			vals[i] = decimal.RequireFromString(p)
		case sql.TypeTimestamp:
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals[i] = sql.TimestampData{Millis: n}
		default:
			vals[i] = p
		}
	}
	return sql.Row{Kind: kind, Values: vals}
}

// drive feeds rows one batch per line group to a fresh operator. With
// restart > 0 it snapshots after that many rows and continues on a new
// instance restored from the snapshot, which must not change the output.
// With lsmDir set the state lives in the LSM backend (state.backend.type
// rocksdb) and the snapshot is a checkpoint of its files under lsmDir.
func drive(t testing.TB, f runtime.OperatorFactory, rows []sql.Row, restart int, finish bool, lsmDir string) []sql.Row {
	return driveInputs(t, f, rows, nil, restart, finish, lsmDir)
}

// driveInputs is drive for an operator with several inputs: row i goes to
// input inputs[i] (nil: all to input 0).
func driveInputs(t testing.TB, f runtime.OperatorFactory, rows []sql.Row, inputs []int, restart int, finish bool, lsmDir string) []sql.Row {
	ctx := func(i int, restoreDir string) *runtime.Context {
		if lsmDir == "" {
			return &runtime.Context{}
		}
		s, err := lsm.Open(filepath.Join(lsmDir, fmt.Sprintf("work-%d-%d", restart, i)), "op")
		if err != nil {
			t.Fatal(err)
		}
		s.SetRestoreDir(restoreDir)
		stores = append(stores, s)
		return &runtime.Context{State: &state.Backend{Store: s}}
	}
	stores = nil
	defer func() {
		for _, s := range stores {
			_ = s.Close()
		}
	}()
	op, err := f(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(ctx(0, ""), nil); err != nil {
		t.Fatal(err)
	}
	var out runtime.Collector
	for i, r := range rows {
		if restart > 0 && i == restart {
			cpDir := ""
			if lsmDir != "" {
				cpDir = filepath.Join(lsmDir, fmt.Sprintf("chk-%d", restart))
				stores[0].BeginSnapshot(cpDir)
			}
			snap, err := op.Snapshot(1)
			if err != nil {
				t.Fatal(err)
			}
			if lsmDir != "" {
				if w := stores[0].CheckpointDone(); w != nil {
					if err := w(); err != nil {
						t.Fatal(err)
					}
				}
			}
			_ = op.Close()
			if op, err = f(0, 1); err != nil {
				t.Fatal(err)
			}
			if err := op.Open(ctx(1, cpDir), snap); err != nil {
				t.Fatalf("restore: %v", err)
			}
		}
		input := 0
		if inputs != nil {
			input = inputs[i]
		}
		if err := op.ProcessBatch(input, []sql.Row{r}, &out); err != nil {
			return append(out.Rows(), sql.Row{Kind: 255, Values: []any{err.Error()}})
		}
	}
	if finish {
		if err := op.Finish(&out); err != nil {
			t.Fatal(err)
		}
	}
	_ = op.Close()
	return out.Rows()
}

var stores []*lsm.Store

func format(rows []sql.Row, ts []sql.DataType) string {
	var b strings.Builder
	for _, r := range rows {
		if r.Kind == 255 {
			fmt.Fprintf(&b, "error: %v\n", r.Values[0])
			continue
		}
		b.WriteString(sql.FormatRow(r, ts))
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "(no output)\n"
	}
	return b.String()
}

func parseAggs(t testing.TB, td *datadriven.TestData, in []sql.DataType) []AggSpec {
	arg, _ := td.Arg("aggs")
	var specs []AggSpec
	for _, v := range arg.Vals {
		name, col, _ := strings.Cut(v, ":")
		s := AggSpec{}
		if strings.HasSuffix(name, "-distinct") {
			s.Distinct = true
			name = strings.TrimSuffix(name, "-distinct")
		}
		s.InsertOnly = boolArg(td, "insert-only")
		switch name {
		case "count*":
			s.Kind = CountStar
		case "count":
			s.Kind = Count
		case "sum":
			s.Kind = Sum
		case "min":
			s.Kind = Min
		case "max":
			s.Kind = Max
		case "avg":
			s.Kind = Avg
		case "first":
			s.Kind = FirstValue
		case "last":
			s.Kind = LastValue
		default:
			t.Fatalf("agg %q", name)
		}
		if col != "" {
			n, err := strconv.Atoi(col)
			if err != nil {
				t.Fatal(err)
			}
			s.Arg = n
			if in[n].Root == sql.TypeDecimal {
				s.ResultType = sql.Decimal(38, in[n].Scale)
				if s.Kind == Avg {
					s.ResultType = sql.Decimal(38, max(6, in[n].Scale))
				}
			}
		}
		specs = append(specs, s)
	}
	return specs
}

func TestOperators(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd == "join" {
				return runJoin(t, td)
			}
			if td.Cmd == "batch-join" {
				return runBatchJoin(t, td)
			}
			if td.Cmd == "window" {
				return runWindow(t, td)
			}
			if td.Cmd == "proc-window" || td.Cmd == "proc-session-tvf" {
				return runProcWindow(t, td)
			}
			if td.Cmd == "proc-tvf" {
				return runProcTVF(t, td)
			}
			if td.Cmd == "session-tvf" {
				return runSessionTVF(t, td)
			}
			if td.Cmd == "over" {
				return runOver(t, td)
			}
			if td.Cmd == "window-rank" {
				return runWindowRank(t, td)
			}
			if td.Cmd == "window-join" {
				return runWindowJoin(t, td)
			}
			if td.Cmd == "interval-join" {
				return runIntervalJoin(t, td)
			}
			if td.Cmd == "temporal-join" {
				return runTemporalJoin(t, td)
			}
			if td.Cmd == "temporal-sort" {
				return runTemporalSort(t, td)
			}
			if td.Cmd == "proc-temporal-sort" {
				return runProcTemporalSort(t, td)
			}
			in := types(t, td, "in")
			outT := types(t, td, "out")
			var rows []sql.Row
			for _, line := range strings.Split(td.Input, "\n") {
				if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
					rows = append(rows, parseRow(t, line, in))
				}
			}
			var f runtime.OperatorFactory
			finish := false
			switch td.Cmd {
			case "normalize":
				f = ChangelogNormalize(NormalizeSpec{Keys: ints(t, td, "keys"),
					GenerateUpdateBefore: boolArg(td, "ub"), EmitDuplicates: boolArg(td, "emit-duplicates")})
			case "agg":
				f = GroupAggregate(AggregateSpec{GroupKeys: ints(t, td, "group"), Aggs: parseAggs(t, td, in),
					GenerateUpdateBefore: boolArg(td, "ub"), EmitOnFinish: boolArg(td, "batch")})
				finish = true
			case "materialize":
				f = SinkUpsertMaterializer(MaterializerSpec{Keys: ints(t, td, "keys"), UpsertKey: ints(t, td, "upsert-key")})
			case "not-null":
				f = NotNullEnforcer(ints(t, td, "cols"), []string{"status"}, boolArg(td, "drop"))
			case "dedup":
				spec := DeduplicateSpec{Keys: ints(t, td, "keys"), KeepLast: boolArg(td, "last"),
					GenerateUpdateBefore: boolArg(td, "ub"), GenerateInsert: boolArg(td, "insert")}
				if rt := ints(t, td, "rowtime"); len(rt) == 1 {
					spec.Rowtime, spec.TimeField = true, rt[0]
				}
				f = Deduplicate(spec)
			case "rank":
				f = TopN(rankSpec(t, td))
			case "union":
				f = Union()
			case "drop-ub":
				f = DropUpdateBefore()
			case "project":
				f = ProjectFilter(ints(t, td, "fields"), nil)
			case "sort":
				var keys []SortKey
				for _, k := range ints(t, td, "keys") {
					keys = append(keys, SortKey{Index: k, Desc: boolArg(td, "desc"), NullsFirst: !boolArg(td, "desc")})
				}
				fetch := int64(-1)
				if v := ints(t, td, "fetch"); len(v) == 1 {
					fetch = int64(v[0])
				}
				f = Sort(keys, 0, fetch)
				finish = true
			case "limit":
				f = Limit(int64(ints(t, td, "offset")[0]), int64(ints(t, td, "fetch")[0]))
			default:
				t.Fatalf("unknown command %s", td.Cmd)
			}
			got := format(drive(t, f, rows, 0, finish, ""), outT)
			// Every prefix length is also a restart point: state must
			// survive a snapshot/restore without changing the output, on
			// either state backend.
			dir := t.TempDir()
			if again := format(drive(t, f, rows, 0, finish, dir), outT); again != got {
				t.Fatalf("the LSM backend changed the output:\n%s\nvs\n%s", again, got)
			}
			for r := 1; r < len(rows); r++ {
				if again := format(drive(t, f, rows, r, finish, ""), outT); again != got {
					t.Fatalf("restart after %d rows changed the output:\n%s\nvs\n%s", r, again, got)
				}
				if again := format(drive(t, f, rows, r, finish, dir), outT); again != got {
					t.Fatalf("LSM backend: restart after %d rows changed the output:\n%s\nvs\n%s", r, again, got)
				}
			}
			return got
		})
	})
}

// rankSpec reads "rank partition=(0) order=(2) desc start=1 end=3 number
// strategy=retract rowkey=(0) ub".
func rankSpec(t *testing.T, td *datadriven.TestData) RankSpec {
	spec := RankSpec{Partition: ints(t, td, "partition"), Start: 1, RowKey: ints(t, td, "rowkey"),
		OutputNumber: boolArg(td, "number"), GenerateUpdateBefore: boolArg(td, "ub")}
	for _, k := range ints(t, td, "order") {
		spec.Order = append(spec.Order, SortKey{Index: k, Desc: boolArg(td, "desc"), NullsFirst: !boolArg(td, "desc")})
	}
	if v := ints(t, td, "start"); len(v) == 1 {
		spec.Start = int64(v[0])
	}
	spec.End = int64(ints(t, td, "end")[0])
	arg, _ := td.Arg("strategy")
	switch {
	case len(arg.Vals) == 0 || arg.Vals[0] == "append":
		spec.Strategy = AppendFast
	case arg.Vals[0] == "update":
		spec.Strategy = UpdateFast
	case arg.Vals[0] == "retract":
		spec.Strategy = Retract
	default:
		t.Fatalf("strategy %v", arg.Vals)
	}
	return spec
}
