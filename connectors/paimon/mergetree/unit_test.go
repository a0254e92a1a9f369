package mergetree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/coreoptions"
	"github.com/sqlrun/sqlrun/sql"
)

func TestComparatorOrders(t *testing.T) {
	ts := func(ms int64, ns int32) sql.TimestampData { return sql.TimestampData{Millis: ms, NanoOfMilli: ns} }
	cases := []struct {
		typ  sql.DataType
		a, b any
		want int
	}{
		{sql.Int(), int32(-5), int32(3), -1},
		{sql.BigInt(), int64(7), int64(7), 0},
		{sql.TinyInt(), int8(2), int8(-1), 1},
		{sql.SmallInt(), int16(1), int16(2), -1},
		// Strings by unsigned UTF-8 bytes: "z" (0x7a) < "é" (0xc3 0xa9),
		// where UTF-16 order would agree but a signed-byte order would not.
		{sql.String(), "z", "é", -1},
		{sql.String(), "ab", "abc", -1},
		{sql.String(), "€", "￿", -1},
		{sql.Decimal(10, 2), decimal.RequireFromString("80.00"), decimal.RequireFromString("100.00"), -1},
		{sql.Decimal(10, 2), decimal.RequireFromString("1.50"), decimal.RequireFromString("1.5"), 0},
		{sql.Timestamp(9), ts(1000, 5), ts(1000, 7), -1},
		{sql.Timestamp(3), ts(2000, 0), ts(1000, 999999), 1},
		{sql.Date(), int32(19000), int32(18000), 1},
		{sql.Boolean(), false, true, -1},
		{sql.Bytes(), []byte{0x01, 0xff}, []byte{0x01, 0x80}, 1},
		{sql.Double(), 1.5, 2.5, -1},
		{sql.Int(), nil, int32(0), -1},
		{sql.Int(), nil, nil, 0},
	}
	for _, c := range cases {
		cmp, err := NewComparator([]sql.DataType{c.typ})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmp.Compare([]any{c.a}, []any{c.b}); got != c.want {
			t.Errorf("%s: compare(%v, %v) = %d, want %d", c.typ, c.a, c.b, got, c.want)
		}
		if got := cmp.Compare([]any{c.b}, []any{c.a}); got != -c.want {
			t.Errorf("%s: compare(%v, %v) = %d, want %d", c.typ, c.b, c.a, got, -c.want)
		}
	}
	multi, _ := NewComparator([]sql.DataType{sql.Int(), sql.String()})
	if multi.Compare([]any{int32(1), "b"}, []any{int32(1), "a"}) != 1 || multi.Compare([]any{int32(0), "z"}, []any{int32(1), "a"}) != -1 {
		t.Error("multi-field comparison is not field by field")
	}
	desc, _ := NewFieldComparator([]sql.DataType{sql.Int(), sql.BigInt()}, []int{1}, true)
	if desc.Compare([]any{int32(9), int64(1)}, []any{int32(0), int64(2)}) != 1 {
		t.Error("descending comparator does not reverse")
	}
	if _, err := NewComparator([]sql.DataType{sql.MapOf(sql.Int(), sql.Int())}); err == nil {
		t.Error("MAP keys must be refused")
	}
}

func TestSpecErrors(t *testing.T) {
	names := []string{"id", "v"}
	types := []sql.DataType{sql.Int(), sql.BigInt()}
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"merge-engine": "nope"}, "unknown merge-engine"},
		{map[string]string{"changelog-producer": "nope"}, "invalid changelog-producer"},
		{map[string]string{"write-buffer-size": "lots"}, "write-buffer-size"},
		{map[string]string{"num-levels": "1"}, "Number of levels must be at least 2."},
		{map[string]string{"sequence.field": "missing"}, "sequence.field"},
		{map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "count"}, "Use unsupported aggregation: count"},
		{map[string]string{"merge-engine": "partial-update", "ignore-delete": "true", "partial-update.remove-record-on-delete": "true"}, "conflicting behavior"},
		{map[string]string{"changelog-producer.row-deduplicate": "true", "changelog-producer.row-deduplicate-ignore-fields": "x"}, "row-deduplicate-ignore-fields"},
		{map[string]string{"ignore-delete": "maybe"}, "Could not parse value 'maybe' for key 'ignore-delete'"},
	} {
		_, err := newSpec(names, types, []string{"id"}, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	s, err := newSpec(names, types, []string{"id"}, map[string]string{"num-sorted-run.compaction-trigger": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumLevels != 4 || s.StopTrigger != 6 || s.CompactionFileSize != 128<<20/10*7 || s.WriteBufferSize != 256<<20 {
		t.Errorf("defaults: levels %d stop %d compaction file size %d buffer %d", s.NumLevels, s.StopTrigger, s.CompactionFileSize, s.WriteBufferSize)
	}
	s, _ = newSpec(names, types, []string{"id"}, map[string]string{"merge-engine": "first-row"})
	if !s.NeedLookup {
		t.Error("first-row must need lookup")
	}
	s, _ = newSpec(names, types, []string{"id"}, map[string]string{"changelog-producer.lookup-wait": "false", "changelog-producer": "lookup"})
	if s.LookupWait {
		t.Error("changelog-producer.lookup-wait is a fallback key of lookup-wait")
	}
}

func mkFile(name string, level int, lo, hi int32) *FileMeta {
	return &FileMeta{Name: name, Level: level, MinKey: []any{lo}, MaxKey: []any{hi}, Size: 10}
}

func TestLevels(t *testing.T) {
	key, _ := NewComparator([]sql.DataType{sql.Int()})
	a, b := mkFile("a", 1, 0, 10), mkFile("b", 1, 11, 20)
	l, err := NewLevels(key, []*FileMeta{b, a, mkFile("x", 0, 0, 5)}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.String(); got != "L0: x\nL1: a b\n" {
		t.Errorf("levels:\n%s", got)
	}
	if err := l.Update(nil, []*FileMeta{mkFile("c", 1, 20, 30)}); err == nil || !strings.Contains(err.Error(), "level 1 would overlap") {
		t.Errorf("overlap not refused: %v", err)
	}
	if got := l.String(); got != "L0: x\nL1: a b\n" {
		t.Errorf("failed update changed the levels:\n%s", got)
	}
	// Restoring a file above num-levels grows the levels.
	l, _ = NewLevels(key, []*FileMeta{mkFile("deep", 7, 0, 1)}, 3)
	if l.MaxLevel() != 7 || l.NonEmptyHighestLevel() != 7 {
		t.Errorf("max level %d highest %d", l.MaxLevel(), l.NonEmptyHighestLevel())
	}
	// Level 0 is newest first by max sequence number.
	old := &FileMeta{Name: "old", MaxSeq: 5, MinKey: []any{int32(0)}, MaxKey: []any{int32(1)}}
	nw := &FileMeta{Name: "new", MaxSeq: 9, MinKey: []any{int32(0)}, MaxKey: []any{int32(1)}}
	l, _ = NewLevels(key, []*FileMeta{old, nw}, 3)
	if l.Level0()[0].Name != "new" {
		t.Errorf("level 0 order: %s", l)
	}
}

func TestPartitionIntervals(t *testing.T) {
	key, _ := NewComparator([]sql.DataType{sql.Int()})
	files := []*FileMeta{mkFile("a", 0, 0, 10), mkFile("b", 1, 5, 8), mkFile("c", 1, 9, 12), mkFile("d", 1, 20, 30), mkFile("e", 0, 31, 40)}
	var parts []string
	for _, sec := range PartitionIntervals(files, key) {
		var runs []string
		for _, r := range sec {
			var names []string
			for _, f := range r.Files {
				names = append(names, f.Name)
			}
			runs = append(runs, strings.Join(names, "+"))
		}
		parts = append(parts, "["+strings.Join(runs, " ")+"]")
	}
	if got := strings.Join(parts, " "); got != "[a b+c] [d] [e]" {
		t.Errorf("sections: %s", got)
	}
}

// TestWriteBufferSpill checks that spilling sorted runs gives the same
// flush as keeping everything in memory.
func TestWriteBufferSpill(t *testing.T) {
	spec, err := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	flush := func(limit int64, sp Spiller) (merged, raw []string) {
		buf := NewWriteBuffer(spec, limit, sp, nil)
		for i := 0; i < 500; i++ {
			kind := sql.Insert
			if i%7 == 0 {
				kind = sql.Delete
			}
			v := []any{int32(i * 31 % 97), int64(i)}
			if full, err := buf.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Kind: kind, Value: v}); err != nil || full {
				t.Fatalf("put: full=%v err=%v", full, err)
			}
		}
		err := buf.Flush(func(r *KV) error { merged = append(merged, fmt.Sprint(r.Kind, r.Value)); return nil },
			func(r *KV) error { raw = append(raw, fmt.Sprint(r.Kind, r.Value)); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !buf.Empty() {
			t.Fatal("buffer not empty after flush")
		}
		return merged, raw
	}
	sp := &MemSpiller{}
	m1, r1 := flush(1<<30, nil)
	m2, r2 := flush(2000, sp)
	if sp.Spilled < 5 {
		t.Fatalf("only %d spills", sp.Spilled)
	}
	if strings.Join(m1, "\n") != strings.Join(m2, "\n") || strings.Join(r1, "\n") != strings.Join(r2, "\n") {
		t.Error("spilled flush differs from in-memory flush")
	}
	if len(m1) != 97 || len(r1) != 500 {
		t.Errorf("merged %d keys, raw %d records", len(m1), len(r1))
	}
	// Without a spiller the buffer reports full (a record of two fields
	// is 13 bytes packed and 32 of index).
	buf := NewWriteBuffer(spec, 40, nil, nil)
	v := []any{int32(1), int64(1)}
	if full, _ := buf.Put(&KV{Key: spec.KeyOf(v), Value: v}); !full {
		t.Error("a buffer over its limit must report full")
	}
}

// TestCompactionFault injects store failures into compactions: the error
// surfaces, the levels stay as they were, and a fresh writer restored from
// the committed files reads the same data.
func TestCompactionFault(t *testing.T) {
	for _, producer := range []string{coreoptions.ProducerNone, coreoptions.ProducerLookup, coreoptions.ProducerFullCompaction} {
		t.Run(producer, func(t *testing.T) {
			spec, err := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"},
				map[string]string{"changelog-producer": producer})
			if err != nil {
				t.Fatal(err)
			}
			store := NewMemStore(spec.Key, 0)
			w, err := NewWriter(spec, store, nil, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 10; i++ {
				w.Write(sql.Insert, []any{int32(i), int64(i)})
			}
			if _, err := w.PrepareCommit(true); err != nil {
				t.Fatal(err)
			}
			committed := w.Levels().AllFiles()
			before := w.Levels().String()
			w.Write(sql.Insert, []any{int32(3), int64(300)})
			store.Fail = func(op string) error {
				if strings.HasPrefix(op, "open") {
					return errors.New("disk on fire")
				}
				return nil
			}
			err = w.Compact(true)
			if err == nil || !strings.Contains(err.Error(), "disk on fire") {
				t.Fatalf("compaction error not reported: %v", err)
			}
			if _, err := w.PrepareCommit(true); !errors.Is(err, ErrWriterFailed) {
				t.Fatalf("a failed writer must refuse to commit, got %v", err)
			}
			w.Close()
			if got := w.Levels().String(); !strings.Contains(got, strings.TrimSpace(before)) {
				t.Errorf("failed compaction changed levels:\n%s\nwas\n%s", got, before)
			}
			store.Fail = nil
			w2, err := NewWriter(spec, store, committed, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			recs, err := Collect(w2.NewReader())
			if err != nil || len(recs) != 10 || recs[3].Value[1] != int64(3) {
				t.Fatalf("restored read: %d records, err %v", len(recs), err)
			}
		})
	}
}

func TestLookupIndexes(t *testing.T) {
	for _, kind := range []string{"memory", "disk"} {
		t.Run(kind, func(t *testing.T) { testLookupIndex(t, kind) })
	}
}

func testLookupIndex(t *testing.T, kind string) {
	spec, _ := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"}, nil)
	store := NewMemStore(spec.Key, 0)
	write := func(level int, kind sql.RowKind, ids ...int32) *FileMeta {
		w, _ := store.NewWriter(level, CompactFile)
		for _, id := range ids {
			w.Write(&KV{Key: []any{id}, Kind: kind, Value: []any{id, int64(level)}})
		}
		fs, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return fs[0]
	}
	var many []int32
	for i := int32(100); i < 1100; i += 2 {
		many = append(many, i)
	}
	files := []*FileMeta{write(1, sql.Insert, 1, 2), write(2, sql.Delete, 2, 3), write(3, sql.Insert, append([]int32{3, 4, 5}, many...)...)}
	levels, _ := NewLevels(spec.Key, files, 4)
	var lk LookupLevels
	var disk *DiskLookup
	dir := t.TempDir()
	if kind == "memory" {
		m := NewMemLookup(levels, store, spec.Key)
		m.MaxCachedRecords = 4
		lk = m
	} else {
		var err error
		disk, err = NewDiskLookup(dir, levels, store, spec.Key)
		if err != nil {
			t.Fatal(err)
		}
		disk.BlockSize, disk.MaxMemoryBytes = 200, 2000
		lk = disk
	}
	for _, c := range []struct {
		key, start int32
		want       string
	}{
		{2, 1, "+I 1"}, {2, 2, "-D 2"}, {3, 1, "-D 2"}, {3, 3, "+I 3"}, {5, 1, "+I 3"}, {9, 1, "none"}, {1, 2, "none"},
		{0, 1, "none"}, {100, 1, "+I 3"}, {101, 1, "none"}, {1098, 1, "+I 3"}, {1099, 3, "none"}, {5000, 1, "none"},
	} {
		r, _, err := lk.Lookup([]any{c.key}, int(c.start))
		if err != nil {
			t.Fatal(err)
		}
		got := "none"
		if r != nil {
			got = fmt.Sprintf("%s %d", r.Kind, r.Level)
			if r.Value[0] != c.key {
				t.Errorf("lookup(%d) returned key %v", c.key, r.Value[0])
			}
		}
		if got != c.want {
			t.Errorf("lookup(%d, from L%d) = %s, want %s", c.key, c.start, got, c.want)
		}
	}
	if disk != nil {
		if disk.Builds != 3 {
			t.Errorf("%d lookup files built, want 3 (one per data file, lazily)", disk.Builds)
		}
		// Every even key of the big file, twice: the second pass is served
		// by the block cache only as far as memory allows.
		for pass := 0; pass < 2; pass++ {
			for _, k := range many {
				r, _, err := disk.Lookup([]any{k}, 3)
				if err != nil || r == nil {
					t.Fatalf("lookup(%d): %v %v", k, r, err)
				}
			}
		}
		if disk.memBytes > disk.MaxMemoryBytes {
			t.Errorf("block cache %d bytes over its bound %d", disk.memBytes, disk.MaxMemoryBytes)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 3 {
			t.Errorf("%d local files, want 3", len(entries))
		}
		disk.MaxDiskBytes = 1
		disk.Forget([]string{files[0].Name})
		disk.Lookup([]any{int32(1)}, 1) // rebuilds files[0], evicting the others
		if entries, _ = os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d local files over the disk bound, want 1", len(entries))
		}
		disk.Close()
		if entries, _ = os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("close left %d local files", len(entries))
		}
		if _, _, err := disk.Lookup([]any{int32(1)}, 1); err == nil {
			t.Error("lookup after close must fail")
		}
		return
	}
	m := lk.(*MemLookup)
	if m.cached > 4 && len(m.order) > 1 {
		t.Errorf("cache holds %d records over its bound", m.cached)
	}
	lk.Forget([]string{files[0].Name, files[1].Name, files[2].Name})
	if len(m.cache) != 0 || m.cached != 0 {
		t.Errorf("forget left %d files", len(m.cache))
	}
}

func TestRecordCodec(t *testing.T) {
	ts := sql.TimestampData{Millis: -12345678, NanoOfMilli: 999}
	r := &KV{Key: []any{int32(-7), "ключ"}, Seq: 1 << 40, Kind: sql.UpdateBefore, Value: []any{
		nil, true, false, int8(-8), int16(300), int32(-70000), int64(-1 << 50), float32(1.5), -2.25,
		"", "héllo", []byte{0, 1, 255}, decimal.RequireFromString("80.00"), decimal.RequireFromString("-12345678901234567890.1234"),
		ts, []any{int32(1), nil, "x"}, &sql.Map{Keys: []any{"a"}, Values: []any{int64(1)}},
	}}
	b, err := appendRecord(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	d := &sql.Decoder{Buf: b}
	got, err := decodeRecord(d)
	if err != nil || !d.Done() {
		t.Fatalf("decode: %v, %d bytes left", err, len(b)-d.Off)
	}
	// The key alone, the rest skipped: the lookup index's block read.
	d = &sql.Decoder{Buf: b}
	key, keyLen, err := decodeKey(d)
	if err != nil || !d.Done() || fmt.Sprint(key) != fmt.Sprint(r.Key) || keyLen >= len(b) || keyLen < 3 {
		t.Fatalf("decodeKey: %v %v (%d key bytes), %d bytes left", key, err, keyLen, len(b)-d.Off)
	}
	render := func(r *KV) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%v %d %s", r.Key, r.Seq, r.Kind)
		for _, v := range r.Value {
			switch x := v.(type) {
			case decimal.Decimal:
				fmt.Fprintf(&b, " dec(%s,%d)", x.Coefficient(), x.Exponent())
			case *sql.Map:
				fmt.Fprintf(&b, " map%v=%v", x.Keys, x.Values)
			default:
				fmt.Fprintf(&b, " %T(%v)", v, v)
			}
		}
		return b.String()
	}
	if render(got) != render(r) {
		t.Errorf("round trip:\n got %s\nwant %s", render(got), render(r))
	}
	if got.Value[12].(decimal.Decimal).StringFixed(2) != "80.00" || got.Value[12].(decimal.Decimal).Exponent() != -2 {
		t.Error("decimal scale lost")
	}
	for cut := 1; cut < len(b); cut++ {
		if _, err := decodeRecord(&sql.Decoder{Buf: b[:cut]}); !errors.Is(err, sql.ErrCorrupt) {
			t.Fatalf("truncated record (%d of %d bytes): %v, want a corruption error", cut, len(b), err)
		}
		if _, _, err := decodeKey(&sql.Decoder{Buf: b[:cut]}); !errors.Is(err, sql.ErrCorrupt) {
			t.Fatalf("truncated record's key (%d of %d bytes): %v, want a corruption error", cut, len(b), err)
		}
	}
	bad := append([]byte(nil), b...)
	bad[keyLen+len(binary.AppendVarint(nil, r.Seq))] = 9 // the row kind, after the key and Seq
	if _, err := decodeRecord(&sql.Decoder{Buf: bad}); !errors.Is(err, sql.ErrCorrupt) {
		t.Errorf("row kind 9 decoded: %v", err)
	}
	if _, err := appendRecord(nil, &KV{Value: []any{struct{}{}}}); err == nil {
		t.Error("unknown Go type must not encode")
	}
}

// TestStopTrigger checks the back-pressure signal: with compaction blocked
// (write-only), sorted runs pile up beyond num-sorted-run.stop-trigger.
func TestStopTrigger(t *testing.T) {
	spec, _ := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"},
		map[string]string{"write-only": "true", "num-sorted-run.compaction-trigger": "2"})
	w, _ := NewWriter(spec, NewMemStore(spec.Key, 0), nil, WriterOptions{})
	defer w.Close()
	for i := 0; i <= spec.StopTrigger; i++ {
		if w.CompactManager().ShouldWaitForLatestCompaction() {
			t.Fatalf("back-pressure after only %d runs", i)
		}
		w.Write(sql.Insert, []any{int32(i), int64(i)})
		w.Flush()
	}
	if !w.CompactManager().ShouldWaitForLatestCompaction() {
		t.Fatalf("%d runs > stop-trigger %d but no back-pressure", w.Levels().NumberOfSortedRuns(), spec.StopTrigger)
	}
	if err := w.Compact(false); err != nil {
		t.Fatal(err)
	}
	if w.CompactManager().ShouldWaitForLatestCompaction() {
		t.Errorf("still %d runs after compaction", w.Levels().NumberOfSortedRuns())
	}
}

// TestWrongGoTypeIsAnError checks that a value of the wrong Go type for its
// column surfaces as an error, not a panic.
func TestWrongGoTypeIsAnError(t *testing.T) {
	spec, err := newSpec([]string{"id", "total"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"},
		map[string]string{"merge-engine": "aggregation", "fields.total.aggregate-function": "sum"})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NewWriter(spec, NewMemStore(spec.Key, 0), nil, WriterOptions{})
	defer w.Close()
	if err := w.Write(sql.Insert, []any{int32(1), int64(5)}); err != nil {
		t.Fatal(err)
	}
	// An INT value in a BIGINT column: the write buffer serializes each
	// record as it comes, so the write itself fails.
	err = w.Write(sql.Insert, []any{int32(1), int32(5)})
	if err == nil || !strings.Contains(err.Error(), "field 1 (BIGINT): unexpected Go value int32") {
		t.Fatalf("got %v", err)
	}
	if _, err := w.PrepareCommit(true); err == nil {
		t.Fatal("the writer must stay failed")
	}
}

// TestGentleLookupCompaction: in gentle lookup-compact mode level 0 is
// forced up only every lookup-compact.max-interval triggers.
func TestGentleLookupCompaction(t *testing.T) {
	f := &ForceUpLevel0Compaction{Universal: UniversalCompaction{MaxSizeAmp: 200, SizeRatio: 1, NumRunTrigger: 5}, MaxInterval: 3}
	runs := []LevelSortedRun{{Level: 0, Run: SortedRun{Files: []*FileMeta{{Name: "a", Size: 1}}}},
		{Level: 5, Run: SortedRun{Files: []*FileMeta{{Name: "b", Size: 100}}}}}
	var got []bool
	for i := 0; i < 6; i++ {
		got = append(got, f.Pick(6, runs) != nil)
	}
	if fmt.Sprint(got) != "[false false true false false true]" {
		t.Errorf("picks: %v", got)
	}
	spec, _ := newSpec([]string{"id"}, []sql.DataType{sql.Int()}, []string{"id"},
		map[string]string{"changelog-producer": "lookup", "lookup-compact": "gentle"})
	if spec.LookupCompactMaxInterval != 10 {
		t.Errorf("gentle default interval %d, want 2 × trigger", spec.LookupCompactMaxInterval)
	}
}

// TestLookupNoWait: with lookup-wait=false a commit does not wait for the
// lookup compaction; its changelog arrives with a later commit, and all of
// it together is complete.
func TestLookupNoWait(t *testing.T) {
	spec, _ := newSpec([]string{"id", "v"}, []sql.DataType{sql.Int(), sql.BigInt()}, []string{"id"},
		map[string]string{"changelog-producer": "lookup", "lookup-wait": "false"})
	store := NewMemStore(spec.Key, 0)
	w, _ := NewWriter(spec, store, nil, WriterOptions{})
	defer w.Close()
	state := map[any]any{}
	apply := func(inc *CommitIncrement) {
		for _, f := range append(inc.NewChangelog, inc.CompactChangelog...) {
			for _, r := range store.Records(f.Name) {
				if r.Kind.IsAdd() {
					state[r.Key[0]] = r.Value[1]
				} else {
					delete(state, r.Key[0])
				}
			}
		}
	}
	for i := 0; i < 20; i++ {
		w.Write(sql.Insert, []any{int32(i % 7), int64(i)})
		if i%3 == 2 {
			w.Write(sql.Delete, []any{int32(i % 5), int64(0)})
		}
		inc, err := w.PrepareCommit(spec.LookupWait)
		if err != nil {
			t.Fatal(err)
		}
		apply(inc)
	}
	inc, err := w.PrepareCommit(true) // end of input waits
	if err != nil {
		t.Fatal(err)
	}
	apply(inc)
	recs, _ := Collect(w.NewReader())
	if len(recs) != len(state) {
		t.Fatalf("table has %d keys, changelog %d", len(recs), len(state))
	}
	for _, r := range recs {
		if state[r.Key[0]] != r.Value[1] {
			t.Errorf("key %v: table %v, changelog %v", r.Key[0], r.Value[1], state[r.Key[0]])
		}
	}
}

// TestDiskSpillerRoundTrip: a run spilled to disk reads back record for
// record (key, sequence number, kind, level, values with NULLs), with
// spill-compression zstd (Paimon's default, at spill-compression.zstd-level
// 1 and 19) and none; zstd blocks are smaller than the records, and the
// level reaches the encoder (19 makes a smaller run than 1);
// write-buffer-spill.max-disk-size makes the buffer report full once its
// spilled runs reach it.
func TestDiskSpillerRoundTrip(t *testing.T) {
	sizes := map[string]int64{}
	for _, c := range []struct{ comp, level string }{{"zstd", "1"}, {"zstd", "19"}, {"none", "1"}} {
		comp := c.comp
		spec, err := newSpec([]string{"k", "s", "n"}, []sql.DataType{sql.Int().NotNull(), sql.String(), sql.BigInt()},
			[]string{"k"}, map[string]string{"spill-compression": comp, "spill-compression.zstd-level": c.level})
		if err != nil {
			t.Fatal(err)
		}
		var in []*KV
		for i := 0; i < 20000; i++ {
			v := []any{int32(i), strings.Repeat("x", i%50), int64(i) * 3}
			if i%7 == 0 {
				v[1], v[2] = nil, nil
			}
			in = append(in, &KV{Key: spec.KeyOf(v), Seq: int64(i) - 5, Kind: sql.RowKind(i % 4), Value: v, Level: i%3 - 1})
		}
		d := NewDiskSpiller(spec, t.TempDir())
		run, err := d.Spill(NewSliceIter(in))
		if err != nil {
			t.Fatal(err)
		}
		raw := 0
		for _, r := range in {
			raw += 4 + 8*3 + len(fmt.Sprint(r.Value[1]))
		}
		size := run.(*diskRun).size
		sizes[comp+" "+c.level] = size
		t.Logf("%s level %s: %d records, %d bytes on disk", comp, c.level, len(in), size)
		if comp == "zstd" && size >= int64(raw)/2 {
			t.Errorf("zstd spill of %d records is %d bytes", len(in), size)
		}
		if d.DiskBytes() != size {
			t.Errorf("DiskBytes %d, run %d", d.DiskBytes(), size)
		}
		it, err := run.Open()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			r := it.Next()
			if r == nil {
				if i != len(in) {
					t.Fatalf("%d records read back, %d spilled", i, len(in))
				}
				break
			}
			if !reflect.DeepEqual(r, in[i]) {
				t.Fatalf("record %d: %+v, spilled %+v", i, r, in[i])
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		run.Discard()
		run.Discard()
		if d.DiskBytes() != 0 {
			t.Errorf("DiskBytes %d after discarding", d.DiskBytes())
		}
	}
	if sizes["zstd 19"] >= sizes["zstd 1"] {
		t.Errorf("spill-compression.zstd-level 19 spilled %d bytes, level 1 %d", sizes["zstd 19"], sizes["zstd 1"])
	}

	spec, err := newSpec([]string{"k", "s"}, []sql.DataType{sql.Int().NotNull(), sql.String()}, []string{"k"},
		map[string]string{"write-buffer-spill.max-disk-size": "1 b"})
	if err != nil {
		t.Fatal(err)
	}
	b := NewWriteBuffer(spec, 4096, NewDiskSpiller(spec, t.TempDir()), nil)
	defer b.Flush(func(*KV) error { return nil }, nil)
	for i := 0; ; i++ {
		v := []any{int32(i), "abcdefghij"}
		full, err := b.Put(&KV{Key: spec.KeyOf(v), Seq: int64(i), Value: v})
		if err != nil {
			t.Fatal(err)
		}
		if full {
			if len(b.spilled) != 1 {
				t.Fatalf("full with %d spilled runs", len(b.spilled))
			}
			break
		}
		if i > 10000 {
			t.Fatal("the buffer never reported full")
		}
	}
}
