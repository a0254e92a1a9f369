// Package streamtest writes Paimon table directories for tests with the
// leaf packages (format, manifest, snapshot), stating exactly which data and
// changelog files a writer with a given changelog producer would commit.
package streamtest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"sort"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/sql"
)

// Writer writes Paimon table directories with the leaf packages
// (format, manifest, snapshot) exactly as a Paimon writer lays them out:
// Parquet KeyValue files per bucket, an Avro manifest per commit, base and
// delta manifest lists and, when there are changelog files, a changelog
// manifest list. Tests state what a writer with a given producer would
// have written (the merged data file and, for input, the raw changelog).
type Writer struct {
	t       testing.TB
	FIO     fs.FileIO
	Root    string
	TS      *schema.TableSchema
	keys    []schema.Field
	names   *manifest.Names
	files   *format.FileNames
	store   *manifest.Store
	SM      *snapshot.Manager
	seq     map[int32]int64
	base    []manifest.ManifestFileMeta
	live    map[string]manifest.ManifestEntry
	nextID  int64
	clock   int64
	Buckets int
	// IndexManifest, when set, is the index manifest every later snapshot
	// names (WriteDeletionVectors sets it).
	IndexManifest string
}

// NewOrders creates the seed's orders table: order_id INT primary key,
// amount DECIMAL(10, 2), status STRING.
func NewOrders(t testing.TB, opts map[string]string) *Writer {
	cols := []sql.Column{{Name: "order_id", Type: sql.Int()}, {Name: "amount", Type: sql.Decimal(10, 2)}, {Name: "status", Type: sql.String()}}
	o := map[string]string{"bucket": "1"}
	for k, v := range opts {
		o[k] = v
	}
	return NewTable(t, cols, []string{"order_id"}, o)
}

func NewTable(t testing.TB, cols []sql.Column, pk []string, opts map[string]string) *Writer {
	root := filepath.Join(t.TempDir(), "default.db", "orders")
	fio := fs.NewLocal()
	ts, err := schema.New(cols, nil, pk, opts, "", 1_700_000_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.NewManager(fio, root).Commit(ts); err != nil {
		t.Fatal(err)
	}
	w := &Writer{t: t, FIO: fio, Root: root, TS: ts, names: manifest.NewNames(), files: format.NewFileNames("parquet"),
		store: &manifest.Store{FIO: fio, Root: root}, SM: snapshot.NewManager(fio, root), seq: map[int32]int64{},
		live: map[string]manifest.ManifestEntry{}, nextID: 1, clock: 1_700_000_000_000, Buckets: ts.Bucket()}
	if len(pk) > 0 {
		w.keys, _ = ts.Project(ts.TrimmedPrimaryKeys())
	}
	return w
}

// Rec is one record as the test states it: a kind and the row values.
type Rec struct {
	Kind sql.RowKind
	Vals []any
}

func Ins(v ...any) Rec { return Rec{sql.Insert, v} }
func UB(v ...any) Rec  { return Rec{sql.UpdateBefore, v} }
func UA(v ...any) Rec  { return Rec{sql.UpdateAfter, v} }
func Del(v ...any) Rec { return Rec{sql.Delete, v} }

func Dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// FileSpec is one file to write in a commit.
type FileSpec struct {
	Bucket    int32
	Level     int32
	Changelog bool
	Recs      []Rec
}

// WriteFile writes one KeyValue (or append) file and returns its entry.
func (w *Writer) WriteFile(f FileSpec) manifest.ManifestEntry {
	name := w.files.Data()
	if f.Changelog {
		name = w.files.Changelog()
	}
	dir := format.BucketDir(w.Root, "", int(f.Bucket))
	if err := w.FIO.MkdirAll(dir); err != nil {
		w.t.Fatal(err)
	}
	out, err := w.FIO.Create(fs.Join(dir, name))
	if err != nil {
		w.t.Fatal(err)
	}
	var res *format.Result
	if len(w.keys) > 0 {
		kw, err := format.NewKVWriter(out, w.keys, w.TS.Fields, format.WriterOptions{})
		if err != nil {
			w.t.Fatal(err)
		}
		kw.AllowDuplicateKeys = f.Changelog
		for _, r := range f.Recs {
			key := make([]any, len(w.keys))
			for i, k := range w.keys {
				key[i] = r.Vals[w.TS.FieldIndex(k.Name)]
			}
			if err := kw.Write(&kv.KeyValue{Key: key, Seq: w.seq[f.Bucket], Kind: r.Kind, Value: r.Vals}); err != nil {
				w.t.Fatal(err)
			}
			w.seq[f.Bucket]++
		}
		if res, err = kw.Close(); err != nil {
			w.t.Fatal(err)
		}
	} else {
		aw, err := format.NewAppendWriter(out, w.TS.Fields, w.seq[f.Bucket], format.WriterOptions{})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, r := range f.Recs {
			if err := aw.Write(r.Vals); err != nil {
				w.t.Fatal(err)
			}
			w.seq[f.Bucket]++
		}
		if res, err = aw.Close(); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		w.t.Fatal(err)
	}
	src := manifest.SourceAppend
	if f.Level > 0 {
		src = manifest.SourceCompact
	}
	return manifest.ManifestEntry{Kind: manifest.Add, Partition: binrow.EmptyRow(), Bucket: f.Bucket, TotalBuckets: int32(w.Buckets),
		File: res.DataFileMeta(name, w.TS.ID, f.Level, src, w.clock)}
}

// commit writes one snapshot: the data files of files (ADD), DELETE
// entries for the live files named in drop, and the changelog files.
func (w *Writer) Commit(kind snapshot.CommitKind, files []FileSpec, drop ...string) *snapshot.Snapshot {
	var delta, changelog []manifest.ManifestEntry
	for _, name := range drop {
		e, ok := w.live[name]
		if !ok {
			w.t.Fatalf("drop %s: not live", name)
		}
		e.Kind = manifest.Delete
		delta = append(delta, e)
		delete(w.live, name)
	}
	for _, f := range files {
		e := w.WriteFile(f)
		if f.Changelog {
			changelog = append(changelog, e)
			continue
		}
		delta = append(delta, e)
		w.live[e.File.FileName] = e
	}
	writeList := func(es []manifest.ManifestEntry) ([]manifest.ManifestFileMeta, string, int64) {
		var metas []manifest.ManifestFileMeta
		if len(es) > 0 {
			m, err := w.store.WriteManifest(w.names.Manifest(), es, nil)
			if err != nil {
				w.t.Fatal(err)
			}
			metas = append(metas, m)
		}
		name := w.names.ManifestList()
		n, err := w.store.WriteManifestList(name, metas)
		if err != nil {
			w.t.Fatal(err)
		}
		return metas, name, n
	}
	_, baseName, baseSize := writeList(nil)
	if len(w.base) > 0 { // base = everything committed before
		name := w.names.ManifestList()
		n, err := w.store.WriteManifestList(name, w.base)
		if err != nil {
			w.t.Fatal(err)
		}
		baseName, baseSize = name, n
	}
	deltaMetas, deltaName, deltaSize := writeList(delta)
	var rows int64
	for _, e := range delta {
		if e.Kind == manifest.Add {
			rows += e.File.RowCount
		} else {
			rows -= e.File.RowCount
		}
	}
	w.clock += 1000
	s := &snapshot.Snapshot{ID: w.nextID, SchemaID: w.TS.ID, BaseManifestList: baseName, BaseManifestListSize: &baseSize,
		DeltaManifestList: deltaName, DeltaManifestListSize: &deltaSize, CommitUser: "test-user", CommitIdentifier: w.nextID,
		CommitKind: kind, TimeMillis: w.clock, DeltaRecordCount: snapshot.Int64(rows), NextRowID: snapshot.Int64(0)}
	var prevTotal int64
	if prev, err := w.SM.Latest(); err == nil && prev != nil {
		prevTotal = snapshot.Get(prev.TotalRecordCount)
	}
	s.TotalRecordCount = snapshot.Int64(prevTotal + rows)
	if w.IndexManifest != "" {
		im := w.IndexManifest
		s.IndexManifest = &im
	}
	if len(changelog) > 0 {
		_, name, n := writeList(changelog)
		s.ChangelogManifestList, s.ChangelogManifestListSize = &name, &n
		var c int64
		for _, e := range changelog {
			c += e.File.RowCount
		}
		s.ChangelogRecordCount = &c
	}
	if err := w.SM.Commit(s); err != nil {
		w.t.Fatal(err)
	}
	if err := w.SM.CommitLatestHint(s.ID); err != nil {
		w.t.Fatal(err)
	}
	w.base = append(w.base, deltaMetas...)
	w.nextID++
	return s
}

// LiveNames lists live data file names of a bucket at a level (-1: any).
func (w *Writer) LiveNames(level int32) []string {
	var out []string
	for n, e := range w.live {
		if level < 0 || e.File.Level == level {
			out = append(out, n)
		}
	}
	return out
}

// CompactAll rewrites every live file into one file at the top level
// (a full compaction: the merged value of every key, deletes dropped),
// optionally with a changelog (full-compaction producer).
func (w *Writer) CompactAll(merged []Rec, changelog []Rec) *snapshot.Snapshot {
	files := []FileSpec{{Bucket: 0, Level: 5, Recs: merged}}
	if changelog != nil {
		files = append(files, FileSpec{Bucket: 0, Level: 5, Changelog: true, Recs: changelog})
	}
	return w.Commit(snapshot.Compact, files, w.LiveNames(-1)...)
}

// expire deletes snapshot files below id and writes EARLIEST (data files
// stay; the reader only needs to see that the snapshot is gone).
func (w *Writer) Expire(below int64) {
	for id := int64(1); id < below; id++ {
		_ = w.SM.Delete(id)
	}
	if err := w.SM.CommitEarliestHint(below); err != nil {
		w.t.Fatal(err)
	}
}

// WriteDeletionVectors writes one DELETION_VECTORS index file of bucket
// as Paimon's DeletionVectorsIndexFile lays it out (a version byte, then
// per data file a BitmapDeletionVector record, or a Bitmap64DeletionVector
// record with use64), and an index manifest listing it, which the next
// commits name. positions maps data file names to deleted row positions.
func (w *Writer) WriteDeletionVectors(bucket int32, positions map[string][]int64, use64 bool) {
	file := []byte{dv.IndexFileVersion}
	entry := manifest.IndexManifestEntry{Kind: manifest.Add, Partition: binrow.EmptyRow(), Bucket: bucket,
		IndexType: manifest.IndexDeletionVectors, DVRanges: []manifest.DVRange{}}
	names := make([]string, 0, len(positions))
	for n := range positions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var bitmap bytes.Buffer
		var data []byte
		if use64 {
			b := roaring64.New()
			for _, p := range positions[n] {
				b.Add(uint64(p))
			}
			b.RunOptimize()
			if _, err := b.WriteTo(&bitmap); err != nil {
				w.t.Fatal(err)
			}
			data = binary.LittleEndian.AppendUint32(nil, dv.Magic64)
		} else {
			b := roaring.New()
			for _, p := range positions[n] {
				b.Add(uint32(p))
			}
			if _, err := b.WriteTo(&bitmap); err != nil {
				w.t.Fatal(err)
			}
			data = binary.BigEndian.AppendUint32(nil, dv.Magic32)
		}
		data = append(data, bitmap.Bytes()...)
		start := len(file)
		file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
		file = append(file, data...)
		file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))
		length := len(data)
		if use64 {
			length = len(file) - start
		}
		card := int64(len(positions[n]))
		entry.DVRanges = append(entry.DVRanges, manifest.DVRange{DataFile: n, Offset: int32(start), Length: int32(length), Cardinality: &card})
		entry.RowCount += card
	}
	entry.FileName = "index-" + uuid.NewString() + "-0"
	entry.FileSize = int64(len(file))
	dir := fs.Join(w.Root, "index")
	if err := w.FIO.MkdirAll(dir); err != nil {
		w.t.Fatal(err)
	}
	out, err := w.FIO.Create(fs.Join(dir, entry.FileName))
	if err == nil {
		_, err = out.Write(file)
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		w.t.Fatal(err)
	}
	name := w.names.IndexManifest()
	if err := w.store.WriteIndexManifest(name, []manifest.IndexManifestEntry{entry}); err != nil {
		w.t.Fatal(err)
	}
	w.IndexManifest = name
}
