package format

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/dv"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/datum"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/internal/testutil/fixtures"
	"github.com/sqlrun/sqlrun/sql"
)

func fixtureTable(t *testing.T, name string) string {
	dirs, _ := filepath.Glob(filepath.Join(fixtures.PaimonDir(t), name, "*.db", "*"))
	if len(dirs) != 1 {
		t.Fatalf("fixture %s: %v", name, dirs)
	}
	return dirs[0]
}

// tableReader reads a fixture table's latest snapshot with the leaves of
// this repository only: schema, snapshot, manifest, binrow, format.
type tableReader struct {
	t       *testing.T
	fio     fs.FileIO
	root    string
	schemas *schema.Manager
	cur     *schema.TableSchema
	out     strings.Builder
	dvs     map[string]DeletionVector // by data file name
}

func (r *tableReader) fields(s *schema.TableSchema, names []string) []schema.Field {
	fs, err := s.Project(names)
	if err != nil {
		r.t.Fatal(err)
	}
	return fs
}

// open opens a live file at the directory Java would compute from its
// _PARTITION bytes (so a wrong partition path fails here) and checks its
// size against the manifest.
func (r *tableReader) open(e manifest.ManifestEntry) (*File, *schema.TableSchema) {
	t := r.t
	partFields := r.fields(r.cur, r.cur.PartitionKeys)
	pvals, err := binrow.Deserialize(FieldTypes(partFields), e.Partition)
	if err != nil {
		t.Fatal(err)
	}
	ppath, err := binrow.PartitionPath(r.cur.PartitionKeys, FieldTypes(partFields), pvals,
		r.cur.Option("partition.default-name", binrow.DefaultPartitionName), r.cur.Option("partition.legacy-name", "true") == "true")
	if err != nil {
		t.Fatal(err)
	}
	p := fs.Join(r.root, ppath+fmt.Sprintf("bucket-%d", e.Bucket), e.File.FileName)
	f, err := r.fio.Open(p)
	if err != nil {
		t.Fatalf("data file not at the computed partition path: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	if f.Size() != e.File.FileSize {
		t.Fatalf("%s: size %d, manifest says %d", p, f.Size(), e.File.FileSize)
	}
	df, err := Open(f, f.Size(), e.File.FileName)
	if err != nil {
		t.Fatal(err)
	}
	if df.NumRows() != e.File.RowCount {
		t.Fatalf("%s: %d rows, manifest says %d", p, df.NumRows(), e.File.RowCount)
	}
	fileSchema, err := r.schemas.Read(e.File.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return df, fileSchema
}

func (r *tableReader) liveFiles() []manifest.ManifestEntry {
	sm := snapshot.NewManager(r.fio, r.root)
	s, err := sm.Latest()
	if err != nil || s == nil {
		r.t.Fatalf("latest snapshot: %v", err)
	}
	st := &manifest.Store{FIO: r.fio, Root: r.root}
	live, err := st.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
	if err != nil {
		r.t.Fatal(err)
	}
	manifest.SortEntries(live)
	fmt.Fprintf(&r.out, "snapshot %d (%s), %d live files\n", s.ID, s.CommitKind, len(live))
	if s.IndexManifest != nil {
		ix, err := st.ReadIndexManifest(*s.IndexManifest)
		if err != nil {
			r.t.Fatal(err)
		}
		r.dvs = map[string]DeletionVector{}
		for _, e := range ix {
			fmt.Fprintf(&r.out, "index %s %s rows=%d global=%v\n", e.IndexType, e.FileName, e.RowCount, e.HasGlobalIndex)
			if e.IndexType != manifest.IndexDeletionVectors {
				continue
			}
			f, err := r.fio.Open(fs.Join(r.root, "index", e.FileName))
			if err != nil {
				r.t.Fatal(err)
			}
			for _, rg := range e.DVRanges {
				vec, err := dv.Read(f, int64(rg.Offset), int64(rg.Length), e.FileName)
				if err != nil {
					r.t.Fatal(err)
				}
				r.dvs[rg.DataFile] = vec
			}
			f.Close()
		}
		fmt.Fprintf(&r.out, "deletion vectors: %d data files\n", len(r.dvs))
	}
	return live
}

// readPK reads every live file of a primary-key table and merges by key
// with merge(key's versions in sequence order).
func (r *tableReader) readPK(merge func(vs []*kv.KeyValue) []any) []string {
	t := r.t
	cur := r.cur
	keyNames := cur.TrimmedPrimaryKeys()
	curKeys := r.fields(cur, keyNames)
	bucketKeys := r.fields(cur, cur.BucketKeys())
	byKey := map[string][]*kv.KeyValue{}
	for _, e := range r.liveFiles() {
		df, fileSchema := r.open(e)
		it, err := df.KeyValues(r.fields(fileSchema, keyNames), curKeys,
			Projection{FileFields: fileSchema.Fields, Fields: cur.Fields, Deleted: r.dvs[e.File.FileName]}, int(e.File.Level))
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		var first, last []any
		var dels int64
		for v := it.Next(); v != nil; v = it.Next() {
			n++
			if first == nil {
				first = v.Key
			} else if datum.CompareRows(v.Key, last) <= 0 {
				t.Fatalf("%s: keys not strictly ascending", e.File.FileName)
			}
			last = v.Key
			if v.Kind.IsRetract() {
				dels++
			}
			if v.Seq < e.File.MinSequenceNumber || v.Seq > e.File.MaxSequenceNumber {
				t.Fatalf("%s: seq %d outside [%d,%d]", e.File.FileName, v.Seq, e.File.MinSequenceNumber, e.File.MaxSequenceNumber)
			}
			// The row is in the bucket Java's Murmur3 hash assigns.
			bvals := make([]any, len(bucketKeys))
			for i, bk := range bucketKeys {
				bvals[i] = v.Value[cur.FieldIndex(bk.Name)]
			}
			brow, err := binrow.Encode(FieldTypes(bucketKeys), bvals)
			if err != nil {
				t.Fatal(err)
			}
			if b := binrow.Bucket(brow, cur.Bucket()); int32(b) != e.Bucket {
				t.Fatalf("%s: key %v hashes to bucket %d, file is in bucket %d", e.File.FileName, v.Key, b, e.Bucket)
			}
			k := fmt.Sprint(e.Partition, v.Key)
			byKey[k] = append(byKey[k], v)
		}
		if it.Error() != nil {
			t.Fatal(it.Error())
		}
		it.Close()
		// Stats Java wrote agree with the file's content.
		kt := FieldTypes(curKeys)
		mk, _ := binrow.Deserialize(kt, e.File.MinKey)
		xk, _ := binrow.Deserialize(kt, e.File.MaxKey)
		if dv := r.dvs[e.File.FileName]; dv != nil {
			n += dv.Cardinality()
		}
		if n != e.File.RowCount || datum.CompareRows(mk, first) != 0 || datum.CompareRows(xk, last) != 0 ||
			(e.File.DeleteRowCount != nil && *e.File.DeleteRowCount != dels) {
			t.Fatalf("%s: rows %d keys %v..%v dels %d disagree with manifest %+v", e.File.FileName, n, first, last, dels, e.File)
		}
		fmt.Fprintf(&r.out, "file %s level %d: %d rows ok\n", e.File.FileName, e.File.Level, n)
	}
	var rows []string
	for _, vs := range byKey {
		sort.Slice(vs, func(i, j int) bool { return vs[i].Seq < vs[j].Seq })
		if row := merge(vs); row != nil {
			rows = append(rows, sql.FormatRow(sql.Row{Kind: sql.Insert, Values: row}, cur.Types()))
		}
	}
	sort.Strings(rows)
	return rows
}

// dedupe is the deduplicate merge: newest sequence number wins; a
// retraction winner deletes the key.
func dedupe(vs []*kv.KeyValue) []any {
	w := vs[len(vs)-1]
	if w.Kind.IsRetract() {
		return nil
	}
	return w.Value
}

// partialUpdate with ignore-delete: non-null fields of newer rows
// overwrite; retractions are ignored.
func partialUpdate(vs []*kv.KeyValue) []any {
	var row []any
	for _, v := range vs {
		if v.Kind.IsRetract() {
			continue
		}
		if row == nil {
			row = make([]any, len(v.Value))
		}
		for i, x := range v.Value {
			if x != nil {
				row[i] = x
			}
		}
	}
	return row
}

func (r *tableReader) readAppend() []string {
	var rows []string
	for _, e := range r.liveFiles() {
		df, fileSchema := r.open(e)
		it, err := df.Rows(Projection{FileFields: fileSchema.Fields, Fields: r.cur.Fields, Deleted: r.dvs[e.File.FileName]})
		if err != nil {
			r.t.Fatal(err)
		}
		for row := it.Next(); row != nil; row = it.Next() {
			rows = append(rows, sql.FormatRow(sql.Row{Kind: sql.Insert, Values: row}, r.cur.Types()))
		}
		if it.Error() != nil {
			r.t.Fatal(it.Error())
		}
		it.Close()
		fmt.Fprintf(&r.out, "file %s schema %d: ok\n", e.File.FileName, e.File.SchemaID)
	}
	sort.Strings(rows)
	return rows
}

// TestFixtures reads the latest snapshot of every fixture table written by
// Paimon Java and prints what a read returns (testdata/fixtures holds the
// READMEs' expectations). Along the way it checks the partition paths,
// bucket hashes, key order, key ranges, delete counts and sizes Java
// recorded.
func TestFixtures(t *testing.T) {
	fixtures.PaimonDir(t)
	datadriven.RunTest(t, "testdata/fixtures", func(t *testing.T, d *datadriven.TestData) string {
		dir := fixtureTable(t, d.CmdArgs[0].Key)
		fio := fs.NewLocal()
		r := &tableReader{t: t, fio: fio, root: dir, schemas: schema.NewManager(fio, dir)}
		var err error
		if r.cur, err = r.schemas.Latest(); err != nil {
			t.Fatal(err)
		}
		var rows []string
		switch d.Cmd {
		case "read-dedupe":
			rows = r.readPK(dedupe)
		case "read-partial-update":
			rows = r.readPK(partialUpdate)
		case "read-append":
			rows = r.readAppend()
		default:
			return "unknown command " + d.Cmd
		}
		return r.out.String() + strings.Join(rows, "\n") + "\n"
	})
}
