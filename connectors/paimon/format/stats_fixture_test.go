package format

import (
	"bytes"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
)

// TestRewriteMatchesJavaMeta re-writes the rows of every live file of the
// primary-key fixtures with our writer and compares what goes into
// DataFileMeta with what Java recorded, byte for byte: min/max key rows,
// key stats, value stats (truncate(16) strings included), counts and
// sequence ranges.
func TestRewriteMatchesJavaMeta(t *testing.T) {
	for _, name := range []string{"pk_mor_partitioned", "pk_partial_update", "pk_dv_golden_java21"} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureTable(t, name)
			fio := fs.NewLocal()
			r := &tableReader{t: t, fio: fio, root: dir, schemas: schema.NewManager(fio, dir)}
			r.cur, _ = r.schemas.Latest()
			sm := snapshot.NewManager(fio, dir)
			s, _ := sm.Latest()
			st := &manifest.Store{FIO: fio, Root: dir}
			live, err := st.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
			if err != nil {
				t.Fatal(err)
			}
			keys := r.fields(r.cur, r.cur.TrimmedPrimaryKeys())
			for _, e := range live {
				df, fsch := r.open(e)
				it, err := df.KeyValues(keys, keys, Projection{FileFields: fsch.Fields, Fields: fsch.Fields}, 0)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				w, err := NewKVWriter(&buf, keys, fsch.Fields, WriterOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var kvs []*kv.KeyValue
				for v := it.Next(); v != nil; v = it.Next() {
					kvs = append(kvs, v)
					if err := w.Write(v); err != nil {
						t.Fatal(err)
					}
				}
				res, err := w.Close()
				if err != nil {
					t.Fatal(err)
				}
				j := e.File
				check := func(what string, ours, java []byte) {
					if !bytes.Equal(ours, java) {
						t.Errorf("%s %s:\nours %x\njava %x", j.FileName, what, ours, java)
					}
				}
				check("min key", res.MinKey, j.MinKey)
				check("max key", res.MaxKey, j.MaxKey)
				check("key stats min", res.KeyStats.MinValues, j.KeyStats.MinValues)
				check("key stats max", res.KeyStats.MaxValues, j.KeyStats.MaxValues)
				if j.ValueStatsCols == nil {
					check("value stats min", res.ValueStats.MinValues, j.ValueStats.MinValues)
					check("value stats max", res.ValueStats.MaxValues, j.ValueStats.MaxValues)
					for i, n := range j.ValueStats.NullCounts {
						if n != nil && *n != *res.ValueStats.NullCounts[i] {
							t.Errorf("%s null count %d: %d vs java %d", j.FileName, i, *res.ValueStats.NullCounts[i], *n)
						}
					}
				}
				if res.RowCount != j.RowCount || res.MinSeq != j.MinSequenceNumber || res.MaxSeq != j.MaxSequenceNumber ||
					(j.DeleteRowCount != nil && res.DeleteRowCount != *j.DeleteRowCount) {
					t.Errorf("%s: counts %+v vs java %+v", j.FileName, res, j)
				}
				// And our file reads back to the same records.
				f2, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), j.FileName)
				if err != nil {
					t.Fatal(err)
				}
				it2, _ := f2.KeyValues(keys, keys, Projection{FileFields: fsch.Fields, Fields: fsch.Fields}, 0)
				for i := 0; ; i++ {
					v := it2.Next()
					if v == nil {
						if i != len(kvs) || it2.Error() != nil {
							t.Fatalf("reread %d of %d: %v", i, len(kvs), it2.Error())
						}
						break
					}
					if v.Seq != kvs[i].Seq || v.Kind != kvs[i].Kind {
						t.Fatalf("reread row %d differs", i)
					}
				}
			}
		})
	}
}

// TestRewriteAppendMatchesJavaMeta does the same for append fixtures:
// value stats (incl. non-compact TIMESTAMP(6/9) BinaryRows) equal Java's.
func TestRewriteAppendMatchesJavaMeta(t *testing.T) {
	for _, name := range []string{"append_partitioned_schema_evolution", "append_timestamps"} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureTable(t, name)
			fio := fs.NewLocal()
			r := &tableReader{t: t, fio: fio, root: dir, schemas: schema.NewManager(fio, dir)}
			r.cur, _ = r.schemas.Latest()
			s, _ := snapshot.NewManager(fio, dir).Latest()
			st := &manifest.Store{FIO: fio, Root: dir}
			live, err := st.LiveFiles(s.BaseManifestList, s.DeltaManifestList)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range live {
				df, fsch := r.open(e)
				it, err := df.Rows(Projection{FileFields: fsch.Fields, Fields: fsch.Fields})
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				w, _ := NewAppendWriter(&buf, fsch.Fields, e.File.MinSequenceNumber, WriterOptions{})
				for row := it.Next(); row != nil; row = it.Next() {
					if err := w.Write(row); err != nil {
						t.Fatal(err)
					}
				}
				res, err := w.Close()
				if err != nil {
					t.Fatal(err)
				}
				j := e.File
				if !bytes.Equal(res.ValueStats.MinValues, j.ValueStats.MinValues) || !bytes.Equal(res.ValueStats.MaxValues, j.ValueStats.MaxValues) {
					t.Errorf("%s value stats:\nours %x / %x\njava %x / %x", j.FileName, res.ValueStats.MinValues, res.ValueStats.MaxValues, j.ValueStats.MinValues, j.ValueStats.MaxValues)
				}
				if !bytes.Equal(res.MinKey, j.MinKey) || !bytes.Equal(res.KeyStats.MinValues, j.KeyStats.MinValues) || res.RowCount != j.RowCount ||
					res.MinSeq != j.MinSequenceNumber || res.MaxSeq != j.MaxSequenceNumber {
					t.Errorf("%s: %+v vs java %+v", j.FileName, res, j)
				}
			}
		})
	}
}
