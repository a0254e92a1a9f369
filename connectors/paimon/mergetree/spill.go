package mergetree

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/prefetch"
	"github.com/sqlrun/sqlrun/sql"
)

// DiskSpiller spills sorted runs to local files, as Paimon's external sort
// buffer and MergeSorter spill to IOManager channels: records serialized
// (key and value as BinaryRows, sequence number, kind and level, as
// KeyValueWithLevelNoReusingSerializer keeps them; a write buffer's run on
// the integer-key fast path keeps its pages' packed form, see
// spillBuffer), in blocks of
// spillBlock bytes compressed with spill-compression (zstd at
// spill-compression.zstd-level by default, or none). Reading a run back
// holds one block, whatever the run's size or the table's width. It serves
// the write buffer (write-buffer-spillable) and compaction's merge of more
// sorted runs than sort-spill-threshold. The files are private to this
// process and removed when the run is discarded.
type DiskSpiller struct {
	spec *Spec
	dir  string
	keys []sql.DataType
	n    atomic.Int64
	// disk counts the bytes of the runs not yet discarded.
	disk atomic.Int64
}

// spillBlock is the uncompressed size of a spill file's block (Paimon's
// compressBlock: 64 kb).
const spillBlock = 64 << 10

// NewDiskSpiller returns a spiller writing under dir (created on first
// use).
func NewDiskSpiller(spec *Spec, dir string) *DiskSpiller {
	keys := make([]sql.DataType, len(spec.KeyIndex))
	for i, j := range spec.KeyIndex {
		keys[i] = spec.FieldTypes[j]
	}
	return &DiskSpiller{spec: spec, dir: dir, keys: keys}
}

// DiskBytes is the size of the spilled runs not yet discarded.
func (d *DiskSpiller) DiskBytes() int64 { return d.disk.Load() }

// Spill implements Spiller.
func (d *DiskSpiller) Spill(sorted Iterator) (SpilledRun, error) {
	return d.spillWith(false, func(w *spillWriter) error {
		var err error
		for r := sorted.Next(); r != nil && err == nil; r = sorted.Next() {
			err = w.add(r)
		}
		if err == nil {
			err = sorted.Error()
		}
		return err
	})
}

// spillBuffer spills the sorted records of a write buffer on the
// integer-key fast path as its pages hold them: each record's value in
// binrow's packed form (227 bytes for the benchmarks' 20 strings of 10
// characters, where its BinaryRow is 496), its key the index's integer.
// Nothing is unpacked or decoded; the run reads back as the records
// Spill would have stored (diskRunIter decodes the packed values), and
// FlushTo merges it on the integers and hands its values to the file
// writer still packed. The layout of the run's records is addPacked's:
// the spill files are this process's own, not a format Paimon reads.
func (d *DiskSpiller) spillBuffer(b *WriteBuffer) (SpilledRun, error) {
	return d.spillWith(true, func(w *spillWriter) error {
		ents := b.idx.ents
		for i, e := range ents {
			if k := i + bufAhead; k < len(ents) {
				// In key order the records are visited randomly in
				// memory: hint one a few ahead into cache (see
				// bufIter.Next).
				f := ents[k]
				rec := b.pages.at(f.ref, int(f.size))
				prefetch.Range(unsafe.Pointer(unsafe.SliceData(rec)), len(rec))
			}
			if err := w.addPacked(e.seq, e.kind, e.key, b.pages.at(e.ref, int(e.size))); err != nil {
				return err
			}
		}
		return nil
	})
}

// spillWith writes a run's file with fill; packed says its records are
// addPacked's, not add's.
func (d *DiskSpiller) spillWith(packed bool, fill func(*spillWriter) error) (SpilledRun, error) {
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	name := filepath.Join(d.dir, fmt.Sprintf("spill-%d.run", d.n.Add(1)))
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	w := &spillWriter{d: d, out: bufio.NewWriterSize(f, spillBlock)}
	if d.spec.SpillCompression == "zstd" {
		w.enc, err = newSpillEncoder(d.spec.SpillZstdLevel)
	}
	if err == nil {
		err = fill(w)
		if err == nil {
			err = w.flush()
		}
		if err == nil {
			err = w.out.Flush()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return nil, fmt.Errorf("spill %s: %w", name, err)
	}
	d.disk.Add(w.size)
	return &diskRun{d: d, path: name, size: w.size, packed: packed}, nil
}

type spillWriter struct {
	d     *DiskSpiller
	out   *bufio.Writer
	enc   *spillEncoder
	block []byte
	comp  []byte
	size  int64
}

// add appends a record: its length, then sequence number, kind, level,
// the key's length and the key and value BinaryRows.
func (w *spillWriter) add(r *KV) error {
	at := len(w.block)
	w.block = append(w.block, 0, 0, 0, 0)
	w.block = binary.AppendVarint(w.block, r.Seq)
	w.block = append(w.block, byte(r.Kind))
	w.block = binary.AppendVarint(w.block, int64(r.Level))
	kat := len(w.block)
	w.block = append(w.block, 0, 0, 0, 0)
	var err error
	if w.block, err = binrow.AppendEncode(w.block, w.d.keys, r.Key); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(w.block[kat:], uint32(len(w.block)-kat-4))
	if w.block, err = binrow.AppendEncode(w.block, w.d.spec.FieldTypes, r.Value); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(w.block[at:], uint32(len(w.block)-at-4))
	if len(w.block) >= spillBlock {
		return w.flush()
	}
	return nil
}

// addPacked appends a write buffer's record (spillBuffer): its length as
// a uvarint, then its sequence number, kind, integer key (varints and a
// byte) and its value in binrow's packed form. Its level is -1, a write
// buffer's.
func (w *spillWriter) addPacked(seq int64, kind int8, key int64, value []byte) error {
	var hdr [2*binary.MaxVarintLen64 + 1]byte
	n := binary.PutVarint(hdr[:], seq)
	hdr[n] = byte(kind)
	n++
	n += binary.PutVarint(hdr[n:], key)
	w.block = binary.AppendUvarint(w.block, uint64(n+len(value)))
	w.block = append(w.block, hdr[:n]...)
	w.block = append(w.block, value...)
	if len(w.block) >= spillBlock {
		return w.flush()
	}
	return nil
}

// flush writes the block: its uncompressed and stored lengths, then its
// bytes, compressed unless the spiller stores them as they are.
func (w *spillWriter) flush() error {
	if len(w.block) == 0 {
		return nil
	}
	body := w.block
	if w.enc != nil {
		var err error
		if w.comp, err = w.enc.encode(w.comp[:0], w.block); err != nil {
			return err
		}
		body = w.comp
	}
	var hdr [2 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(w.block)))
	n += binary.PutUvarint(hdr[n:], uint64(len(body)))
	if _, err := w.out.Write(hdr[:n]); err != nil {
		return err
	}
	if _, err := w.out.Write(body); err != nil {
		return err
	}
	w.size += int64(n + len(body))
	w.block = w.block[:0]
	return nil
}

// diskRun is a spilled run's file.
type diskRun struct {
	d    *DiskSpiller
	path string
	size int64
	// packed: the records are addPacked's (a write buffer's pages).
	packed bool
	once   sync.Once
}

func (r *diskRun) Open() (Iterator, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("spilled run: %w", err)
	}
	it := &diskRunIter{d: r.d, f: f, in: bufio.NewReaderSize(f, spillBlock), path: r.path, packed: r.packed}
	if r.d.spec.SpillCompression == "zstd" {
		if it.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err != nil {
			f.Close()
			return nil, fmt.Errorf("spilled run: %w", err)
		}
	}
	return it, nil
}

// Size is the run's file size.
func (r *diskRun) Size() int64 { return r.size }

func (r *diskRun) Discard() {
	r.once.Do(func() {
		os.Remove(r.path)
		r.d.disk.Add(-r.size)
	})
}

type diskRunIter struct {
	d     *DiskSpiller
	f     *os.File
	in    *bufio.Reader
	dec   *zstd.Decoder
	path  string
	comp  []byte
	block []byte
	// spare is the block before this one: readBlock decodes into it and
	// swaps, so the bytes of the record rawNext returned last stay valid
	// through one more rawNext.
	spare []byte
	pos   int
	err   error
	// packed: the run's records are addPacked's; unpacked is
	// DecodePackedCompact's scratch.
	packed   bool
	unpacked []byte
}

func (it *diskRunIter) Next() *KV {
	if it.err != nil {
		return nil
	}
	if it.pos >= len(it.block) {
		if !it.readBlock() {
			return nil
		}
	}
	r, err := it.record()
	if err != nil {
		it.err = fmt.Errorf("spilled run %s: %w", it.path, err)
		return nil
	}
	return r
}

var errSpillCorrupt = errors.New("corrupt spill file")

func (it *diskRunIter) readBlock() bool {
	raw, err := binary.ReadUvarint(it.in)
	if err == io.EOF {
		return false
	}
	var stored uint64
	if err == nil {
		stored, err = binary.ReadUvarint(it.in)
	}
	if err == nil && (raw > 1<<30 || stored > 1<<30) {
		err = errSpillCorrupt
	}
	if err == nil {
		if uint64(cap(it.comp)) < stored {
			it.comp = make([]byte, stored)
		}
		it.comp = it.comp[:stored]
		_, err = io.ReadFull(it.in, it.comp)
	}
	if err == nil {
		it.block, it.spare = it.spare, it.block
		if it.dec != nil {
			it.block, err = it.dec.DecodeAll(it.comp, it.block[:0])
		} else {
			it.block = append(it.block[:0], it.comp...)
		}
	}
	if err == nil && uint64(len(it.block)) != raw {
		err = errSpillCorrupt
	}
	if err != nil {
		it.err = fmt.Errorf("spilled run %s: %w", it.path, err)
		return false
	}
	it.pos = 0
	return true
}

func (it *diskRunIter) record() (*KV, error) {
	if it.packed {
		return it.packedRecord()
	}
	seq, kind, level, keyRow, valueRow, err := it.split()
	if err != nil {
		return nil, err
	}
	// Decoded out of the block, which the next block overwrites.
	nk := len(it.d.keys)
	vals := make([]any, nk+len(it.d.spec.FieldTypes))
	key, value := vals[:nk:nk], vals[nk:]
	if err := binrow.DecodeCompact(key, it.d.keys, keyRow); err != nil {
		return nil, err
	}
	if err := binrow.DecodeCompact(value, it.d.spec.FieldTypes, valueRow); err != nil {
		return nil, err
	}
	return &KV{Key: key, Seq: seq, Kind: sql.RowKind(kind), Value: value, Level: int(level)}, nil
}

// split takes the record at pos apart (add's layout) and moves past it.
func (it *diskRunIter) split() (seq int64, kind int8, level int64, key, value []byte, err error) {
	b := it.block[it.pos:]
	if len(b) < 4 {
		return 0, 0, 0, nil, nil, errSpillCorrupt
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > len(b)-4 {
		return 0, 0, 0, nil, nil, errSpillCorrupt
	}
	rec := b[4 : 4+n]
	it.pos += 4 + n
	seq, k := binary.Varint(rec)
	if k <= 0 || k >= len(rec) {
		return 0, 0, 0, nil, nil, errSpillCorrupt
	}
	kind = int8(rec[k])
	rec = rec[k+1:]
	level, k = binary.Varint(rec)
	if k <= 0 || len(rec)-k < 4 {
		return 0, 0, 0, nil, nil, errSpillCorrupt
	}
	rec = rec[k:]
	kn := int(binary.LittleEndian.Uint32(rec))
	if kn > len(rec)-4 {
		return 0, 0, 0, nil, nil, errSpillCorrupt
	}
	return seq, kind, level, rec[4 : 4+kn], rec[4+kn:], nil
}

// packedRecord decodes the packed record at pos (addPacked's layout)
// as bufIter decodes a record of the pages: the key is the value's key
// fields.
func (it *diskRunIter) packedRecord() (*KV, error) {
	seq, kind, _, p, err := it.splitPacked()
	if err != nil {
		return nil, err
	}
	spec := it.d.spec
	arity := len(spec.FieldTypes)
	vals := make([]any, arity+len(spec.KeyIndex))
	value, key := vals[:arity:arity], vals[arity:]
	if it.unpacked, err = binrow.DecodePackedCompact(value, spec.FieldTypes, p, it.unpacked); err != nil {
		return nil, err
	}
	for i, j := range spec.KeyIndex {
		key[i] = value[j]
	}
	return &KV{Key: key, Seq: seq, Kind: sql.RowKind(kind), Value: value, Level: -1}, nil
}

// splitPacked takes the packed record at pos apart (addPacked's layout)
// and moves past it.
func (it *diskRunIter) splitPacked() (seq int64, kind int8, key int64, value []byte, err error) {
	b := it.block[it.pos:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return 0, 0, 0, nil, errSpillCorrupt
	}
	rec := b[k : k+int(n)]
	it.pos += k + int(n)
	seq, k = binary.Varint(rec)
	if k <= 0 || k >= len(rec) {
		return 0, 0, 0, nil, errSpillCorrupt
	}
	kind = int8(rec[k])
	rec = rec[k+1:]
	key, k = binary.Varint(rec)
	if k <= 0 {
		return 0, 0, 0, nil, errSpillCorrupt
	}
	return seq, kind, key, rec[k:], nil
}

func (it *diskRunIter) Error() error { return it.err }

func (it *diskRunIter) Close() error {
	if it.dec != nil {
		it.dec.Close()
		it.dec = nil
	}
	if it.f != nil {
		if err := it.f.Close(); err != nil && it.err == nil {
			it.err = err
		}
		it.f = nil
	}
	return it.err
}

// spillMerge merges runs as Paimon's MergeSorter.mergeSort does: with more
// than the spill threshold of them, the smallest (by estimated size) are
// first spilled one at a time, so that at most threshold runs are read
// from their data files at once while the others are read back from
// spill files a block at a time. open creates a run's iterator; size
// estimates it.
func spillMerge(spec *Spec, spiller Spiller, n int, size func(int) int64, open func(int) Iterator) (Iterator, error) {
	its := make([]Iterator, n)
	var spilled []SpilledRun
	fail := func(err error) (Iterator, error) {
		for _, it := range its {
			if it != nil {
				it.Close()
			}
		}
		for _, s := range spilled {
			s.Discard()
		}
		return nil, err
	}
	if spiller != nil && spec.SortSpillThreshold > 1 && n > spec.SortSpillThreshold {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return size(order[a]) < size(order[b]) })
		for _, i := range order[:n-spec.SortSpillThreshold] {
			src := open(i)
			run, err := spiller.Spill(src)
			if cerr := src.Close(); err == nil && cerr != nil {
				err = cerr
			}
			if err != nil {
				return fail(fmt.Errorf("mergetree: spilling a sorted run: %w", err))
			}
			spilled = append(spilled, run)
			if its[i], err = run.Open(); err != nil {
				return fail(fmt.Errorf("mergetree: reading a spilled run: %w", err))
			}
		}
	}
	for i := range its {
		if its[i] == nil {
			its[i] = open(i)
		}
	}
	var it Iterator = its[0]
	if n > 1 {
		it = NewMergingIter(its, spec.Key, spec.Order)
	}
	if len(spilled) == 0 {
		return it, nil
	}
	return &discardOnClose{Iterator: it, runs: spilled}, nil
}

// discardOnClose discards spilled runs once their merge is closed.
type discardOnClose struct {
	Iterator
	runs []SpilledRun
}

func (d *discardOnClose) Close() error {
	err := d.Iterator.Close()
	for _, r := range d.runs {
		r.Discard()
	}
	d.runs = nil
	return err
}
