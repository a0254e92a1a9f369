package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/hamba/avro/v2"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

func tableDirs(t *testing.T) map[string]string {
	root := fixtures.PaimonDir(t)
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*.db", "*"))
	out := map[string]string{}
	for _, d := range dirs {
		rel, _ := filepath.Rel(root, d)
		out[strings.Split(rel, string(filepath.Separator))[0]] = d
	}
	if len(out) != 5 {
		t.Fatalf("expected 5 fixture tables, found %v", out)
	}
	return out
}

// TestSchemasMatchJava: our writer schemas are byte-identical to the ones
// Java 1.3+/2.x writes (record names, null-first unions, field order).
func TestSchemasMatchJava(t *testing.T) {
	dirs := tableDirs(t)
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, codec, err := Header(b)
		if err != nil || codec != "zstandard" {
			t.Fatalf("%s: %v codec %q", p, err, codec)
		}
		return s
	}
	m := filepath.Join(dirs["pk_dv_golden_java21"], "manifest")
	if got := read(filepath.Join(m, "manifest-list-5e07ff5a-eeb7-49ef-8769-c73b058ae171-3")); got != ManifestListSchema {
		t.Errorf("manifest list schema differs:\njava %s\nours %s", got, ManifestListSchema)
	}
	if got := read(filepath.Join(m, "manifest-47606e25-ccef-4a80-9c04-8bd4988af3c1-0")); got != ManifestSchema {
		t.Errorf("manifest schema differs:\njava %s\nours %s", got, ManifestSchema)
	}
	for _, s := range []string{ManifestListSchema, ManifestSchema} {
		if _, err := avro.Parse(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixtureManifests decodes every manifest file Java wrote, checks the
// recorded sizes against the files, and re-encodes each: what we write
// decodes to the same records.
func TestFixtureManifests(t *testing.T) {
	for name, dir := range tableDirs(t) {
		st := &Store{FIO: fs.NewLocal(), Root: dir}
		ents, _ := os.ReadDir(filepath.Join(dir, "manifest"))
		for _, e := range ents {
			p := filepath.Join(dir, "manifest", e.Name())
			data, _ := os.ReadFile(p)
			switch {
			case strings.HasPrefix(e.Name(), "manifest-list-"):
				metas, err := DecodeManifestList(data)
				if err != nil {
					t.Fatalf("%s/%s: %v", name, e.Name(), err)
				}
				for _, m := range metas {
					fi, err := os.Stat(filepath.Join(dir, "manifest", m.FileName))
					if err != nil || fi.Size() != m.FileSize {
						t.Errorf("%s: %s size %d recorded %d (%v)", name, m.FileName, fi.Size(), m.FileSize, err)
					}
				}
				b, err := EncodeManifestList(metas, CodecZstd)
				if err != nil {
					t.Fatal(err)
				}
				back, err := DecodeManifestList(b)
				if err != nil || !reflect.DeepEqual(back, metas) {
					t.Errorf("%s/%s: list round trip %v\n%+v\n%+v", name, e.Name(), err, back, metas)
				}
			case strings.HasPrefix(e.Name(), "manifest-"):
				es, err := DecodeManifest(data)
				if err != nil {
					t.Fatalf("%s/%s: %v", name, e.Name(), err)
				}
				b, err := EncodeManifest(es, CodecZstd)
				if err != nil {
					t.Fatal(err)
				}
				back, err := DecodeManifest(b)
				if err != nil || !reflect.DeepEqual(back, es) {
					t.Errorf("%s/%s: manifest round trip %v\n%+v\n%+v", name, e.Name(), err, back, es)
				}
			case strings.HasPrefix(e.Name(), "index-manifest-"):
				ix, err := st.ReadIndexManifest(e.Name())
				if err != nil {
					t.Fatalf("%s/%s: %v", name, e.Name(), err)
				}
				if len(ix) != 2 || !ix[0].HasGlobalIndex || ix[0].IndexType != "bitmap" || ix[1].IndexType != "btree" {
					t.Errorf("index manifest: %+v", ix)
				}
			}
		}
	}
}

// TestFixtureLiveFiles renders, for every fixture snapshot, the delta
// entries and the live files after folding (golden file).
func TestFixtureLiveFiles(t *testing.T) {
	dirs := tableDirs(t)
	datadriven.RunTest(t, "testdata/fixtures", func(t *testing.T, d *datadriven.TestData) string {
		dir, ok := dirs[d.CmdArgs[0].Key]
		if !ok {
			return "unknown fixture " + d.CmdArgs[0].Key
		}
		fio := fs.NewLocal()
		sc, err := schema.NewManager(fio, dir).Latest()
		if err != nil {
			return err.Error()
		}
		partTypes, keyTypes := typesOf(sc, sc.PartitionKeys), typesOf(sc, sc.TrimmedPrimaryKeys())
		if len(sc.PrimaryKeys) == 0 {
			keyTypes = []sql.DataType{}
		}
		sm := snapshot.NewManager(fio, dir)
		st := &Store{FIO: fio, Root: dir}
		ids, _ := sm.ListIDs()
		var b strings.Builder
		for _, id := range ids {
			s, err := sm.Read(id)
			if err != nil {
				return err.Error()
			}
			switch d.Cmd {
			case "deltas":
				fmt.Fprintf(&b, "snapshot %d %s total=%d delta=%d\n", s.ID, s.CommitKind, snapshot.Get(s.TotalRecordCount), snapshot.Get(s.DeltaRecordCount))
				es, err := st.ReadEntries(s.DeltaManifestList)
				if err != nil {
					return err.Error()
				}
				var rows int64
				for _, e := range es {
					fmt.Fprintf(&b, "  %s\n", e.DebugString(partTypes, keyTypes))
					if e.Kind == Add {
						rows += e.File.RowCount
					} else {
						rows -= e.File.RowCount
					}
				}
				if rows != snapshot.Get(s.DeltaRecordCount) {
					fmt.Fprintf(&b, "  MISMATCH deltaRecordCount: entries say %d\n", rows)
				}
			case "live":
				if id != ids[len(ids)-1] {
					continue
				}
				live, err := st.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
				if err != nil {
					return err.Error()
				}
				SortEntries(live)
				var total int64
				for _, e := range live {
					fmt.Fprintf(&b, "%s\n", e.DebugString(partTypes, keyTypes))
					total += e.File.RowCount
				}
				fmt.Fprintf(&b, "snapshot %d: %d files, %d rows (totalRecordCount %d)\n", s.ID, len(live), total, snapshot.Get(s.TotalRecordCount))
			}
		}
		return b.String()
	})
}

func typesOf(s *schema.TableSchema, names []string) []sql.DataType {
	fs, _ := s.Project(names)
	out := make([]sql.DataType, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out
}

func entry(kind FileKind, name string, level int32) ManifestEntry {
	return ManifestEntry{Kind: kind, Partition: binrow.EmptyRow(), Bucket: 0, TotalBuckets: 1,
		File: DataFileMeta{FileName: name, Level: level, ExtraFiles: []string{}, RowCount: 1}}
}

func TestFold(t *testing.T) {
	es := []ManifestEntry{entry(Add, "a", 0), entry(Add, "b", 0), entry(Delete, "a", 0), entry(Add, "a", 5), entry(Delete, "c", 1)}
	live, err := Fold(es)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range live {
		names = append(names, fmt.Sprintf("%s@%d", e.File.FileName, e.File.Level))
	}
	if strings.Join(names, ",") != "b@0,a@5" {
		t.Fatalf("live %v", names)
	}
	all, _ := FoldEntries(es)
	if len(all) != 3 || all[2].Kind != Delete {
		t.Fatalf("tombstone kept: %+v", all)
	}
	if _, err := Fold([]ManifestEntry{entry(Add, "a", 0), entry(Add, "a", 0)}); !errors.Is(err, ErrDuplicateAdd) {
		t.Fatalf("duplicate add: %v", err)
	}
	// Re-adding after a delete is fine.
	if l, err := Fold([]ManifestEntry{entry(Add, "a", 0), entry(Delete, "a", 0), entry(Add, "a", 0)}); err != nil || len(l) != 1 {
		t.Fatalf("re-add: %v %v", l, err)
	}
}

// TestWriteRead writes a manifest and a list through the Store and reads
// them back; sizes are exact and partition stats are computed.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	st := &Store{FIO: fs.NewLocal(), Root: dir}
	pt := []sql.DataType{sql.Int(), sql.String()}
	var es []ManifestEntry
	for i, p := range [][]any{{int32(3), "b"}, {int32(1), nil}, {int32(2), "a"}} {
		part, _ := binrow.Serialize(pt, p)
		src := SourceCompact
		del := int64(1)
		ct := int64(1756267057573)
		es = append(es, ManifestEntry{Kind: FileKind(i % 2), Partition: part, Bucket: int32(i), TotalBuckets: 4, File: DataFileMeta{
			FileName: fmt.Sprintf("data-x-%d.parquet", i), FileSize: 100, RowCount: 3, MinKey: binrow.EmptyRow(), MaxKey: binrow.EmptyRow(),
			KeyStats: EmptyStats(), ValueStats: EmptyStats(), SchemaID: int64(i), Level: int32(5 - i), ExtraFiles: []string{},
			CreationTime: &ct, DeleteRowCount: &del, FileSource: &src, ValueStatsCols: []string{}}})
	}
	names := NewNames()
	mname := names.Manifest()
	meta, err := st.WriteManifest(mname, es, pt)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "manifest", mname))
	if fi.Size() != meta.FileSize {
		t.Fatalf("size %d vs %d", fi.Size(), meta.FileSize)
	}
	if meta.NumAddedFiles != 2 || meta.NumDeletedFiles != 1 || meta.SchemaID != 2 || *meta.MinBucket != 0 || *meta.MaxBucket != 2 || *meta.MinLevel != 3 || *meta.MaxLevel != 5 {
		t.Fatalf("meta %+v", meta)
	}
	min, _ := binrow.Deserialize(pt, meta.PartitionStats.MinValues)
	max, _ := binrow.Deserialize(pt, meta.PartitionStats.MaxValues)
	if !reflect.DeepEqual(min, []any{int32(1), "a"}) || !reflect.DeepEqual(max, []any{int32(3), "b"}) || *meta.PartitionStats.NullCounts[1] != 1 {
		t.Fatalf("partition stats %v %v %v", min, max, meta.PartitionStats.NullCounts)
	}
	lname := names.ManifestList()
	size, err := st.WriteManifestList(lname, []ManifestFileMeta{meta})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(filepath.Join(dir, "manifest", lname))
	if fi.Size() != size {
		t.Fatalf("list size %d vs %d", fi.Size(), size)
	}
	back, err := st.ReadEntries(lname)
	if err != nil || !reflect.DeepEqual(back, es) {
		t.Fatalf("read back %v\n%+v\n%+v", err, back, es)
	}
	// Sorted names follow Java's pattern.
	if !strings.HasPrefix(mname, "manifest-") || !strings.HasSuffix(mname, "-0") || !strings.HasPrefix(lname, "manifest-list-") {
		t.Fatalf("names %s %s", mname, lname)
	}
	// Other codecs round-trip too.
	for _, c := range []string{CodecNull, CodecDeflate} {
		b, _ := EncodeManifest(es, c)
		if got, err := DecodeManifest(b); err != nil || !reflect.DeepEqual(got, es) {
			t.Fatalf("codec %s: %v", c, err)
		}
	}
}

// TestManyEntriesBlocks crosses the block size so several blocks are
// written and read.
func TestManyEntriesBlocks(t *testing.T) {
	var es []ManifestEntry
	for i := 0; i < 3000; i++ {
		e := entry(Add, fmt.Sprintf("data-%036d-%d.parquet", i, i), 0)
		e.File.KeyStats, e.File.ValueStats = EmptyStats(), EmptyStats()
		es = append(es, e)
	}
	b, err := EncodeManifest(es, CodecZstd)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, b[len(b)-16:]); n < 3 {
		t.Fatalf("expected several blocks, sync markers: %d", n)
	}
	back, err := DecodeManifest(b)
	if err != nil || len(back) != 3000 || back[2999].File.FileName != es[2999].File.FileName {
		t.Fatalf("%v %d", err, len(back))
	}
	sort.Slice(back, func(i, j int) bool { return false })
}

func TestCorruptManifest(t *testing.T) {
	b, _ := EncodeManifest([]ManifestEntry{entry(Add, "a", 0)}, CodecZstd)
	for _, cut := range []int{0, 3, 10, len(b) / 2, len(b) - 1} {
		if _, err := DecodeManifest(b[:cut]); err == nil {
			t.Errorf("truncated at %d decoded", cut)
		}
	}
	if _, err := AvroCodec("lz4"); err == nil {
		t.Error("lz4 accepted")
	}
}

func FuzzDecodeManifest(f *testing.F) {
	b, _ := EncodeManifest([]ManifestEntry{entry(Add, "a", 0)}, CodecNull)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeManifest(data)
		_, _ = DecodeManifestList(data)
	})
}

func TestCreationTime(t *testing.T) {
	loc := time.FixedZone("UTC+8", 8*3600)
	tm := time.Date(2025, 8, 27, 11, 57, 0, 471e6, loc)
	// The fixture's _CREATION_TIME 2025-08-27T11:57:00.471 is the writer's
	// wall clock read as UTC.
	if got := CreationTimeMillis(tm); got != time.Date(2025, 8, 27, 11, 57, 0, 471e6, time.UTC).UnixMilli() {
		t.Fatal(got)
	}
}

// TestRandomEntriesRoundTrip encodes random entries (every optional field
// sometimes null) and lists, and decodes them unchanged.
func TestRandomEntriesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	optI64 := func() *int64 {
		if r.Intn(3) == 0 {
			return nil
		}
		v := r.Int63() - r.Int63()
		return &v
	}
	optI32 := func() *int32 {
		if r.Intn(3) == 0 {
			return nil
		}
		v := int32(r.Uint32())
		return &v
	}
	strs := func(nilable bool) []string {
		if nilable && r.Intn(3) == 0 {
			return nil
		}
		out := []string{}
		for i := r.Intn(3); i > 0; i-- {
			out = append(out, fmt.Sprintf("s%d", r.Intn(100)))
		}
		return out
	}
	bs := func() []byte {
		b := make([]byte, r.Intn(40))
		r.Read(b)
		return b
	}
	stats := func() SimpleStats {
		s := SimpleStats{MinValues: bs(), MaxValues: bs(), NullCounts: []*int64{}}
		for i := r.Intn(4); i > 0; i-- {
			s.NullCounts = append(s.NullCounts, optI64())
		}
		return s
	}
	for iter := 0; iter < 50; iter++ {
		var es []ManifestEntry
		for i := r.Intn(20); i >= 0; i-- {
			f := DataFileMeta{FileName: fmt.Sprintf("data-%d.parquet", r.Int()), FileSize: r.Int63(), RowCount: r.Int63(),
				MinKey: bs(), MaxKey: bs(), KeyStats: stats(), ValueStats: stats(), MinSequenceNumber: r.Int63(), MaxSequenceNumber: r.Int63(),
				SchemaID: r.Int63n(10), Level: int32(r.Intn(6)), ExtraFiles: strs(false), CreationTime: optI64(), DeleteRowCount: optI64(),
				ValueStatsCols: strs(true), ExternalPath: nil, FirstRowID: optI64(), WriteCols: strs(true)}
			if r.Intn(2) == 0 {
				f.EmbeddedIndex = bs()
			}
			if r.Intn(2) == 0 {
				src := FileSource(r.Intn(2))
				f.FileSource = &src
			}
			if r.Intn(3) == 0 {
				p := fmt.Sprintf("/ext/%d", r.Int())
				f.ExternalPath = &p
			}
			es = append(es, ManifestEntry{Kind: FileKind(r.Intn(2)), Partition: bs(), Bucket: int32(r.Intn(100)) - 2, TotalBuckets: int32(r.Intn(10)) - 1, File: f})
		}
		b, err := EncodeManifest(es, []string{CodecZstd, CodecNull, CodecDeflate}[iter%3])
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeManifest(b)
		if err != nil || !reflect.DeepEqual(back, es) {
			t.Fatalf("iter %d: %v\n%+v\n%+v", iter, err, back, es)
		}
		var ms []ManifestFileMeta
		for i := r.Intn(5); i >= 0; i-- {
			ms = append(ms, ManifestFileMeta{FileName: fmt.Sprint("manifest-", r.Int()), FileSize: r.Int63(), NumAddedFiles: r.Int63(),
				NumDeletedFiles: r.Int63(), PartitionStats: stats(), SchemaID: r.Int63(), MinBucket: optI32(), MaxBucket: optI32(),
				MinLevel: optI32(), MaxLevel: optI32(), MinRowID: optI64(), MaxRowID: optI64()})
		}
		b, _ = EncodeManifestList(ms, CodecZstd)
		backL, err := DecodeManifestList(b)
		if err != nil || !reflect.DeepEqual(backL, ms) {
			t.Fatalf("list iter %d: %v", iter, err)
		}
	}
}

// TestFixtureBinaryRowsCanonical decodes every BinaryRow Java wrote in the
// fixtures' manifests (partitions, min/max keys, key stats, value stats)
// and re-encodes it: the bytes must be identical, which is what Java's
// byte-wise partition comparison and hashing require of our encoder.
func TestFixtureBinaryRowsCanonical(t *testing.T) {
	n := 0
	for name, dir := range tableDirs(t) {
		fio := fs.NewLocal()
		schemas := schema.NewManager(fio, dir)
		sc, _ := schemas.Latest()
		st := &Store{FIO: fio, Root: dir}
		ents, _ := os.ReadDir(filepath.Join(dir, "manifest"))
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), "manifest-") || strings.HasPrefix(e.Name(), "manifest-list-") {
				continue
			}
			es, err := st.ReadManifest(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			for _, me := range es {
				fsch, err := schemas.Read(me.File.SchemaID)
				if err != nil {
					t.Fatal(err)
				}
				nullable := func(ts []sql.DataType) []sql.DataType {
					out := make([]sql.DataType, len(ts))
					for i, t := range ts {
						out[i] = t.WithNullable(true)
					}
					return out
				}
				keyTypes := typesOf(fsch, fsch.TrimmedPrimaryKeys())
				if len(fsch.PrimaryKeys) == 0 {
					keyTypes = nil
				}
				check := func(what string, types []sql.DataType, b []byte) {
					vals, err := binrow.Deserialize(types, b)
					if err != nil {
						t.Fatalf("%s %s %s: %v", name, me.File.FileName, what, err)
					}
					again, err := binrow.Serialize(types, vals)
					if err != nil || !bytes.Equal(again, b) {
						t.Errorf("%s %s %s: re-encoded\n%x\njava\n%x", name, me.File.FileName, what, again, b)
					}
					n++
				}
				check("partition", typesOf(sc, sc.PartitionKeys), me.Partition)
				check("min key", keyTypes, me.File.MinKey)
				check("max key", keyTypes, me.File.MaxKey)
				check("key stats min", nullable(keyTypes), me.File.KeyStats.MinValues)
				check("key stats max", nullable(keyTypes), me.File.KeyStats.MaxValues)
				if me.File.ValueStatsCols == nil {
					check("value stats min", nullable(fsch.Types()), me.File.ValueStats.MinValues)
					check("value stats max", nullable(fsch.Types()), me.File.ValueStats.MaxValues)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d rows checked", n)
	}
}

// TestORCManifests: a table Paimon Java wrote with 'manifest.format' =
// 'orc' (testdata/paimon/java/orc_append_10) has its manifest list and
// manifest read through the same record decoders as Avro ones; a damaged
// ORC manifest fails naming the file.
func TestORCManifests(t *testing.T) {
	st := &Store{FIO: fs.NewLocal(), Root: filepath.Join("..", "..", "..", "testdata", "paimon", "java", "orc_append_10", "append_10.db", "append_10")}
	metas, err := st.ReadManifestList("manifest-list-c1608bce-77c8-4c2e-9152-53a777381288-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) != 1 || metas[0].FileName != "manifest-73ba774f-6146-4dc6-84ac-9b8c97fffa24-0" || metas[0].NumAddedFiles != 3 || metas[0].NumDeletedFiles != 0 {
		t.Fatalf("%+v", metas)
	}
	entries, err := st.ReadManifest(metas[0].FileName)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%d %s rows=%d level=%d seq=%d-%d created=%v", e.Bucket, e.File.FileName, e.File.RowCount, e.File.Level,
			e.File.MinSequenceNumber, e.File.MaxSequenceNumber, e.File.CreationTime != nil))
	}
	sort.Strings(got)
	want := []string{
		"0 data-8ab054d3-0480-4268-84f7-bf2759632f76-0.orc rows=1 level=0 seq=0-0 created=true",
		"0 data-e54f10e3-60ec-4a2a-be29-32f2b6183884-0.orc rows=1 level=0 seq=0-0 created=true",
		"1 data-de4e972f-5cc8-49b1-844e-374191534c68-0.orc rows=3 level=0 seq=0-2 created=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries\n%s", strings.Join(got, "\n"))
	}

	mem := &Store{FIO: fs.NewMem(), Root: "/t"}
	if err := mem.FIO.MkdirAll("/t/manifest"); err != nil {
		t.Fatal(err)
	}
	f, err := mem.FIO.Create("/t/manifest/manifest-list-x-0")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("ORC\x0a\x06\x08\x03\x10\x00"))
	f.Close()
	if _, err = mem.ReadManifestList("manifest-list-x-0"); err == nil || !strings.Contains(err.Error(), "manifest-list-x-0") || !strings.Contains(err.Error(), "ORC") {
		t.Fatalf("got %v", err)
	}
}

// TestParquetManifestNamed: a manifest Paimon wrote with
// 'manifest.format' = 'parquet' fails naming the file, the format and the
// option, not as a damaged Avro file.
func TestParquetManifestNamed(t *testing.T) {
	st := &Store{FIO: fs.NewMem(), Root: "/t"}
	if err := st.FIO.MkdirAll("/t/manifest"); err != nil {
		t.Fatal(err)
	}
	f, err := st.FIO.Create("/t/manifest/manifest-list-p-0")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("PAR1\x15\x04PAR1"))
	f.Close()
	_, err = st.ReadManifestList("manifest-list-p-0")
	if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), "manifest-list-p-0") || !strings.Contains(err.Error(), "'manifest.format' = 'parquet'") {
		t.Fatalf("got %v", err)
	}
}

// TestManifestListOlderWriterSchemas: a manifest list is read by its
// writer's schema, fields resolved by name, missing optional fields
// defaulted: here a 0.8-style list (no bucket/level/row-id ranges), in
// another field order, with _FILE_NAME declared nullable or as bytes.
func TestManifestListOlderWriterSchemas(t *testing.T) {
	stats := `{"type":"record","name":"record__PARTITION_STATS","fields":[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}`
	for _, nameType := range []string{`"string"`, `["null","string"]`, `"bytes"`} {
		schemaText := `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
			`{"name":"_FILE_SIZE","type":"long"},{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":` + nameType + `},` +
			`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
			`{"name":"_PARTITION_STATS","type":` + stats + `},{"name":"_SCHEMA_ID","type":"long"}]}`
		sc := avro.MustParse(schemaText)
		var name any = "manifest-a-0"
		if nameType == `"bytes"` {
			name = []byte("manifest-a-0")
		}
		rec, err := avro.Marshal(sc, map[string]any{"_FILE_SIZE": int64(10), "_VERSION": 2, "_FILE_NAME": name,
			"_NUM_ADDED_FILES": int64(3), "_NUM_DELETED_FILES": int64(1),
			"_PARTITION_STATS": map[string]any{"_MIN_VALUES": []byte{}, "_MAX_VALUES": []byte{}, "_NULL_COUNTS": nil}, "_SCHEMA_ID": int64(0)})
		if err != nil {
			t.Fatal(err)
		}
		w := newOCFWriter(schemaText, CodecNull)
		w.block.b = append(w.block.b, rec...)
		w.endRecord()
		file, err := w.finish()
		if err != nil {
			t.Fatal(err)
		}
		metas, err := DecodeManifestList(file)
		if err != nil {
			t.Fatalf("_FILE_NAME %s: %v", nameType, err)
		}
		if len(metas) != 1 || metas[0].FileName != "manifest-a-0" || metas[0].FileSize != 10 || metas[0].NumAddedFiles != 3 || metas[0].MinBucket != nil {
			t.Fatalf("_FILE_NAME %s: %+v", nameType, metas)
		}
	}
}

// TestManifestOlderWriterSchemas reads manifests whose writer schema (the
// one in the Avro header) is an older Paimon's: DataFileMeta as 0.8 wrote
// it (no _FILE_SOURCE, _VALUE_STATS_COLS, _EXTERNAL_PATH, _FIRST_ROW_ID,
// _WRITE_COLS), as 0.9 (adds _FILE_SOURCE) and as 1.0 (adds
// _VALUE_STATS_COLS). Fields are resolved by name and the missing ones read
// as Paimon's defaults (null), as Java's reader resolves them
// (ManifestEntrySerializer, DataFileMetaSerializer with the file's
// schema); the fields written read back as they were.
func TestManifestOlderWriterSchemas(t *testing.T) {
	drop := func(s string, names ...string) string {
		for _, n := range names {
			i := strings.Index(s, `,{"name":"`+n+`"`)
			if i < 0 {
				t.Fatalf("no field %s in the schema", n)
			}
			// A field's JSON ends before the next field or the record's end.
			j := strings.Index(s[i+1:], `,{"name":"_`)
			if j < 0 {
				j = strings.Index(s[i:], `]}}]}`) - 1
			}
			s = s[:i] + s[i+1+j:]
		}
		return s
	}
	newer := []string{"_WRITE_COLS", "_FIRST_ROW_ID", "_EXTERNAL_PATH"}
	for _, v := range []struct {
		version string
		schema  string
	}{
		{"0.8", drop(ManifestSchema, append(newer, "_VALUE_STATS_COLS", "_FILE_SOURCE")...)},
		{"0.9", drop(ManifestSchema, append(newer, "_VALUE_STATS_COLS")...)},
		{"1.0", drop(ManifestSchema, newer...)},
	} {
		sc, err := avro.Parse(v.schema)
		if err != nil {
			t.Fatalf("%s schema: %v\n%s", v.version, err, v.schema)
		}
		if strings.Contains(v.schema, "_EXTERNAL_PATH") || strings.Contains(v.schema, "_WRITE_COLS") {
			t.Fatalf("%s schema has newer fields: %s", v.version, v.schema)
		}
		stats := map[string]any{"_MIN_VALUES": []byte{1}, "_MAX_VALUES": []byte{2}, "_NULL_COUNTS": nil}
		file := map[string]any{"_FILE_NAME": "data-1.parquet", "_FILE_SIZE": int64(100), "_ROW_COUNT": int64(7),
			"_MIN_KEY": []byte{3}, "_MAX_KEY": []byte{4}, "_KEY_STATS": stats, "_VALUE_STATS": stats,
			"_MIN_SEQUENCE_NUMBER": int64(1), "_MAX_SEQUENCE_NUMBER": int64(7), "_SCHEMA_ID": int64(2), "_LEVEL": 5,
			"_EXTRA_FILES": []any{}, "_CREATION_TIME": nil, "_DELETE_ROW_COUNT": nil, "_EMBEDDED_FILE_INDEX": nil,
			"_FILE_SOURCE": nil, "_VALUE_STATS_COLS": nil}
		rec, err := avro.Marshal(sc, map[string]any{"_VERSION": 2, "_KIND": 0, "_PARTITION": []byte{}, "_BUCKET": 1,
			"_TOTAL_BUCKETS": 2, "_FILE": file})
		if err != nil {
			t.Fatalf("%s: %v", v.version, err)
		}
		w := newOCFWriter(v.schema, CodecNull)
		w.block.b = append(w.block.b, rec...)
		w.endRecord()
		data, err := w.finish()
		if err != nil {
			t.Fatal(err)
		}
		entries, err := DecodeManifest(data)
		if err != nil {
			t.Fatalf("Paimon %s manifest: %v", v.version, err)
		}
		if len(entries) != 1 {
			t.Fatalf("Paimon %s manifest: %d entries", v.version, len(entries))
		}
		e := entries[0]
		f := e.File
		if e.Bucket != 1 || e.TotalBuckets != 2 || f.FileName != "data-1.parquet" || f.FileSize != 100 || f.RowCount != 7 ||
			f.Level != 5 || f.SchemaID != 2 || f.MaxSequenceNumber != 7 || !bytes.Equal(f.MinKey, []byte{3}) ||
			f.FileSource != nil || f.ValueStatsCols != nil || f.ExternalPath != nil || f.FirstRowID != nil || f.WriteCols != nil ||
			f.DeleteRowCount != nil || f.CreationTime != nil {
			t.Errorf("Paimon %s manifest: %+v", v.version, e)
		}
	}
}

// TestIndexManifestOlderWriterSchemas reads index manifests written with
// older layouts: 0.8's (no _DELETIONS_VECTORS_RANGES, no _EXTERNAL_PATH)
// and 0.9's (deletion vector ranges without _CARDINALITY), resolved by
// name with nulls for the missing fields (IndexManifestEntrySerializer).
func TestIndexManifestOlderWriterSchemas(t *testing.T) {
	head := `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},` +
		`{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"}`
	v08 := head + `]}`
	v09 := head + `,{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[` +
		`{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"}]}]}],"default":null}]}`
	rec := map[string]any{"_VERSION": 1, "_KIND": 0, "_PARTITION": []byte{}, "_BUCKET": 3, "_INDEX_TYPE": "DELETION_VECTORS",
		"_FILE_NAME": "index-1", "_FILE_SIZE": int64(40), "_ROW_COUNT": int64(2)}
	for _, c := range []struct {
		version, schema string
		ranges          any
		want            []DVRange
	}{
		{"0.8", v08, nil, nil},
		{"0.9", v09, map[string]any{"array": []any{map[string]any{"org.apache.paimon.avro.generated.record__DELETIONS_VECTORS_RANGES": map[string]any{"f0": "data-1.parquet", "f1": 1, "f2": 22}}}},
			[]DVRange{{DataFile: "data-1.parquet", Offset: 1, Length: 22}}},
	} {
		sc, err := avro.Parse(c.schema)
		if err != nil {
			t.Fatal(err)
		}
		r := map[string]any{}
		for k, v := range rec {
			r[k] = v
		}
		if c.ranges != nil {
			r["_DELETIONS_VECTORS_RANGES"] = c.ranges
		}
		b, err := avro.Marshal(sc, r)
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		w := newOCFWriter(c.schema, CodecNull)
		w.block.b = append(w.block.b, b...)
		w.endRecord()
		data, err := w.finish()
		if err != nil {
			t.Fatal(err)
		}
		es, err := DecodeIndexManifest(data)
		if err != nil {
			t.Fatalf("Paimon %s index manifest: %v", c.version, err)
		}
		if len(es) != 1 || es[0].Bucket != 3 || es[0].FileName != "index-1" || es[0].IndexType != "DELETION_VECTORS" ||
			es[0].RowCount != 2 || es[0].ExternalPath != nil || !reflect.DeepEqual(es[0].DVRanges, c.want) {
			t.Errorf("Paimon %s index manifest: %+v", c.version, es)
		}
	}
}
