package mergetree

import (
	"reflect"
	"testing"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/sql"
)

// binaryRecorder is a BinaryWriter that decodes what it is given (a copy:
// the bytes are the buffer's) and notes which way each record came.
type binaryRecorder struct {
	types    []sql.DataType
	out      []*KV
	binaries int
}

func (w *binaryRecorder) Write(r *KV) error { w.out = append(w.out, r); return nil }

func (w *binaryRecorder) WriteBinary(r *KV, value []byte) error {
	v, err := binrow.Decode(w.types, value)
	if err != nil {
		return err
	}
	w.binaries++
	w.out = append(w.out, &KV{Key: r.Key, Seq: r.Seq, Kind: r.Kind, Value: v, Level: r.Level})
	return nil
}

func (w *binaryRecorder) Finish() ([]*FileMeta, error) { return nil, nil }
func (w *binaryRecorder) Abort()                       {}

// packedRecorder is a binaryRecorder that also takes packed rows (a
// PackedWriter, as the table's file writer is).
type packedRecorder struct {
	binaryRecorder
	packed int
}

func (w *packedRecorder) WritePacked(r *KV, p []byte) error {
	row, err := binrow.AppendUnpacked(nil, w.types, p)
	if err != nil {
		return err
	}
	w.packed++
	return w.WriteBinary(r, row)
}

// recorders are the two ways a flush hands a record over serialized:
// unpacked to a BinaryRow (a BinaryWriter) or packed (a PackedWriter).
func recorders(types []sql.DataType) map[string]interface {
	BinaryWriter
	recorded() *binaryRecorder
} {
	return map[string]interface {
		BinaryWriter
		recorded() *binaryRecorder
	}{"binary": &binaryRecorder{types: types}, "packed": &packedRecorder{binaryRecorder: binaryRecorder{types: types}}}
}

func (w *binaryRecorder) recorded() *binaryRecorder { return w }

// TestFlushToWritesSerialized: a flush into a BinaryWriter hands each key
// with one version over serialized, not decoded, and merges keys with
// several versions as Flush does; the records written are Flush's, in
// Flush's order. A spilled buffer or a raw (input changelog) callback
// takes Flush's way.
func TestFlushToWritesSerialized(t *testing.T) {
	spec := poolSpec(t)
	fill := func(b *WriteBuffer) {
		for i := 0; i < 3000; i++ {
			r := poolRow(spec, 0, (i*7919)%2000) // keys 0..1999, a third of them twice
			r.Seq = int64(i)
			if i%11 == 0 {
				r.Kind = sql.UpdateAfter
			}
			if _, err := b.Put(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	a := NewWriteBuffer(spec, 64<<20, nil, nil)
	defer a.Close()
	fill(a)
	want := flushAll(t, a)

	for name, rw := range recorders(spec.FieldTypes) {
		b := NewWriteBuffer(spec, 64<<20, nil, nil)
		defer b.Close()
		fill(b)
		if err := b.FlushTo(rw, nil); err != nil {
			t.Fatal(err)
		}
		w := rw.recorded()
		if len(w.out) != len(want) || len(want) != 2000 {
			t.Fatalf("%s: FlushTo wrote %d records, Flush %d (want 2000)", name, len(w.out), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(w.out[i], want[i]) {
				t.Fatalf("%s: record %d: FlushTo %v, Flush %v", name, i, w.out[i], want[i])
			}
		}
		if w.binaries != 1000 {
			t.Fatalf("%s: %d records written serialized, want the 1000 keys with one version", name, w.binaries)
		}
		if p, ok := rw.(*packedRecorder); ok && p.packed != 1000 {
			t.Fatalf("%d records written packed, want the 1000 keys with one version", p.packed)
		}
	}

	// With a raw callback every record is decoded.
	c := NewWriteBuffer(spec, 64<<20, nil, nil)
	defer c.Close()
	fill(c)
	w := &binaryRecorder{types: spec.FieldTypes}
	raws := 0
	if err := c.FlushTo(w, func(*KV) error { raws++; return nil }); err != nil {
		t.Fatal(err)
	}
	if w.binaries != 0 || raws != 3000 || len(w.out) != 2000 {
		t.Fatalf("with a raw callback: %d serialized, %d raw, %d written", w.binaries, raws, len(w.out))
	}
}

// TestFlushToMergesSpilledRunsSerialized: a buffer that spilled sorted
// runs (write-buffer-spillable, Paimon's BinaryExternalSortBuffer) and
// flushes into a BinaryWriter merges the runs with its pages on the
// integer key and sequence number and still hands each key with one
// version over serialized; what it writes is what Flush's merge of the
// decoded runs writes, in the same order, and a PackedWriter gets every
// such key packed, the spilled ones too (the code that spilled BinaryRows
// handed those over unpacked: the test fails there). The runs are spilled
// from the pages as they are, packed: a run reads back (Open, Flush's way)
// as the decoded records spilled with Spill read back, and Flush of the
// disk-spilled buffer writes what Flush of the one spilled in memory
// writes; the packed run is smaller than the BinaryRow one.
func TestFlushToMergesSpilledRunsSerialized(t *testing.T) {
	spec := poolSpec(t)
	spec.SpillCompression, spec.SpillZstdLevel = "zstd", 1
	fill := func(b *WriteBuffer) {
		for i := 0; i < 3000; i++ {
			r := poolRow(spec, 0, (i*7919)%2000) // keys 0..1999, a third of them twice
			r.Seq = int64(i)
			switch {
			case i%11 == 0:
				r.Kind = sql.UpdateAfter
			case i%13 == 0:
				r.Kind = sql.Delete
			}
			if i%5 == 0 {
				r.Value[3] = nil
			}
			if _, err := b.Put(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	const limit = 300 << 10 // about 550 records a run
	mem := &MemSpiller{}
	a := NewWriteBuffer(spec, limit, mem, nil)
	defer a.Close()
	fill(a)
	want := flushAll(t, a)

	d := NewDiskSpiller(spec, t.TempDir())
	for name, rw := range recorders(spec.FieldTypes) {
		b := NewWriteBuffer(spec, limit, d, nil)
		defer b.Close()
		fill(b)
		if len(b.spilled) < 3 || len(b.spilled) != mem.Spilled {
			t.Fatalf("%s: %d runs spilled to disk, %d in memory, want the same and at least 3", name, len(b.spilled), mem.Spilled)
		}
		if err := b.FlushTo(rw, nil); err != nil {
			t.Fatal(err)
		}
		w := rw.recorded()
		if len(w.out) != len(want) || len(want) != 2000 {
			t.Fatalf("%s: FlushTo wrote %d records, Flush %d (want 2000)", name, len(w.out), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(w.out[i], want[i]) {
				t.Fatalf("%s: record %d: FlushTo %v, Flush %v", name, i, w.out[i], want[i])
			}
		}
		if w.binaries != 1000 {
			t.Fatalf("%s: %d records written serialized, want the 1000 keys with one version", name, w.binaries)
		}
		if p, ok := rw.(*packedRecorder); ok && p.packed != 1000 {
			t.Fatalf("%d records written packed, want the 1000 keys with one version, spilled or not", p.packed)
		}
		if d.DiskBytes() != 0 {
			t.Fatalf("%s: %d bytes of spilled runs left after the flush", name, d.DiskBytes())
		}
	}

	// Flush (not FlushTo) reads the packed runs back decoded.
	e := NewWriteBuffer(spec, limit, d, nil)
	defer e.Close()
	fill(e)
	if len(e.spilled) != mem.Spilled {
		t.Fatalf("%d runs spilled to disk, %d in memory", len(e.spilled), mem.Spilled)
	}
	if got := flushAll(t, e); !reflect.DeepEqual(got, want) {
		t.Fatalf("Flush of the disk-spilled buffer wrote %d records, differing from the %d of the memory-spilled one", len(got), len(want))
	}

	// The same sorted records spilled from the pages (packed) and from
	// decoded records (Spill: BinaryRows) read back alike.
	c := NewWriteBuffer(spec, 64<<20, nil, nil)
	defer c.Close()
	fill(c)
	if err := c.sort(); err != nil {
		t.Fatal(err)
	}
	fromPages, err := d.spillBuffer(c)
	if err != nil {
		t.Fatal(err)
	}
	defer fromPages.Discard()
	decoded, err := d.Spill(c.memIter())
	if err != nil {
		t.Fatal(err)
	}
	defer decoded.Discard()
	readBack := func(run SpilledRun) []*KV {
		it, err := run.Open()
		if err != nil {
			t.Fatal(err)
		}
		var out []*KV
		for r := it.Next(); r != nil; r = it.Next() {
			out = append(out, r)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	x, y := readBack(fromPages), readBack(decoded)
	if len(x) != 3000 || !reflect.DeepEqual(x, y) {
		t.Fatalf("the run spilled from the pages reads back %d records, the one spilled from decoded records %d, or they differ", len(x), len(y))
	}
	px, py := fromPages.(*diskRun).size, decoded.(*diskRun).size
	if px <= 0 || px >= py {
		t.Fatalf("the packed run is %d bytes, the BinaryRow run %d", px, py)
	}

}
