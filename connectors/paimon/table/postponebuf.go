package table

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	kzstd "github.com/klauspost/compress/zstd"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/sql"
)

// The forced buffer spill of a postpone bucket write
// (PostponeBucketFileStoreWrite.forceBufferSpill). A postpone writer
// starts writing its files directly (PostponeBucketWriter's
// DirectSinkWriter), which keeps one open file per partition: its Avro
// block, its codec and, on an object store, the upload part being filled.
// When a write is about to open a writer while it already has
// 'write-max-writers-to-spill' of them (AbstractFileStoreWrite.
// createWriterContainer), every writer of the write turns into a buffered
// one (PostponeBucketWriter.toBufferedWriter: the files written since the
// last commit are read back into the buffer and deleted) and so does every
// later one: records go, encoded, into pages of a pool the write's
// writers share ('write-buffer-size', MemoryFileStoreWrite's
// MemoryPoolFactory), and a writer that needs a page when the pool is
// exhausted makes the other writer holding the most pages spill them to a
// local file (MemoryPoolFactory.preemptMemory), or spills its own when no
// other holds any (ExternalBuffer.put), compressed with
// 'spill-compression'. A writer whose spilled runs reached
// 'write-buffer-spill.max-disk-size' writes its buffer into data files
// instead (BufferedSinkWriter.flushMemory returning false,
// PostponeBucketWriter.flush). At each commit a buffered writer writes its
// spilled runs and then its pages into rolling files: the records in
// arrival order, as the direct writer writes them, one file open at a
// time.

// postponePage is a pool page: Paimon's 'page-size' default (64 kb).
const postponePage = 64 << 10

// postponePool is the write's pool of buffer pages and the buffered
// writers that hold them. Not safe for concurrent use (one TableWrite).
type postponePool struct {
	t        *Table
	dir      string
	capacity int64
	free     [][]byte
	pages    int64 // pages allocated, free or lent
	owners   []*postponeFileWriter
	enc      *kzstd.Encoder
	// spills counts the runs spilled, peak the most pages allocated at
	// once (tests and benchmarks).
	spills, peak int64
}

func newPostponePool(t *Table, dir string) *postponePool {
	return &postponePool{t: t, dir: dir, capacity: t.Spec.WriteBufferSize}
}

// page lends owner a page: a free one, a new one while the pool is under
// its capacity (or force), else one the other writer holding the most
// pages frees by spilling them. It returns nil when no other writer holds
// a page.
func (p *postponePool) page(owner *postponeFileWriter, force bool) ([]byte, error) {
	for {
		if n := len(p.free); n > 0 {
			b := p.free[n-1]
			p.free = p.free[:n-1]
			return b, nil
		}
		if force || (p.pages+1)*postponePage <= p.capacity {
			p.pages++
			p.peak = max(p.peak, p.pages)
			return make([]byte, postponePage), nil
		}
		var victim *postponeFileWriter
		for _, o := range p.owners {
			if o != owner && o.buf.held() > 0 && (victim == nil || o.buf.held() > victim.buf.held()) {
				victim = o
			}
		}
		if victim == nil {
			return nil, nil
		}
		if err := victim.flushMemory(); err != nil {
			return nil, err
		}
	}
}

func (p *postponePool) close() {
	if p.enc != nil {
		p.enc.Close()
		p.enc = nil
	}
	p.free, p.owners = nil, nil
}

// postponeBuffer holds a buffered postpone writer's records
// (BufferedSinkWriter's RowBuffer): spilled runs, then pages. A record is
// its key as a BinaryRow (uvarint length first), its kind (a byte), its
// sequence number (varint) and its Avro record (uvarint length first);
// records span pages.
type postponeBuffer struct {
	pool    *postponePool
	enc     *format.AvroKVEncoder
	pages   [][]byte // written pages, the last one being filled
	spare   [][]byte // pages reserved for the record being added
	used    int      // bytes used of the last page
	runs    []postponeRun
	disk    int64
	scratch []byte
	rec     []byte
	key     []byte
}

// postponeRun is a spilled run's file.
type postponeRun struct {
	path string
	size int64
}

// held counts the pages the buffer holds.
func (b *postponeBuffer) held() int { return len(b.pages) + len(b.spare) }

// release gives the pages back to the pool.
func (b *postponeBuffer) release() {
	b.pool.free = append(append(b.pool.free, b.pages...), b.spare...)
	b.pages, b.spare, b.used = nil, nil, 0
}

// drop releases the pages and deletes the spilled runs.
func (b *postponeBuffer) drop() {
	b.release()
	for _, r := range b.runs {
		_ = os.Remove(r.path)
	}
	b.runs, b.disk = nil, 0
}

// toBuffered is PostponeBucketWriter.toBufferedWriter: the open file is
// closed, the files written since the last commit are read back into a
// buffer and deleted, and records go to the buffer from then on.
func (p *postponeFileWriter) toBuffered(pool *postponePool) error {
	if p.buf != nil {
		return nil
	}
	enc, err := format.NewAvroKVEncoder(p.t.KeyFields, p.t.Schema.Fields)
	if err != nil {
		return err
	}
	if p.w != nil {
		if err := p.closeFile(); err != nil {
			return err
		}
	}
	files := p.done
	p.done = nil
	p.buf = &postponeBuffer{pool: pool, enc: enc}
	pool.owners = append(pool.owners, p)
	for _, f := range files {
		if err := p.readBack(f); err != nil {
			return fmt.Errorf("paimon table %s: read back %s: %w", p.t.Root, fs.Join(p.dir, f.FileName), err)
		}
		_ = p.t.FIO.Delete(fs.Join(p.dir, f.FileName))
	}
	return nil
}

func (p *postponeFileWriter) readBack(f manifest.DataFileMeta) error {
	it, err := p.t.readKV(Split{Kind: SplitChangelog, Partition: p.part, Bucket: -2, TotalBuckets: -2, Files: []manifest.DataFileMeta{f}}, false)
	if err != nil {
		return err
	}
	for r := it.Next(); r != nil; r = it.Next() {
		if err := p.buffer(r); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

// buffer appends one record to the buffer.
func (p *postponeFileWriter) buffer(r *kv.KeyValue) error {
	b := p.buf
	var err error
	if b.rec, err = b.enc.Append(b.rec[:0], r); err != nil {
		return fmt.Errorf("write %s: %w", p.dir, err)
	}
	if b.key, err = binrow.Serialize(b.enc.KeyTypes(), r.Key); err != nil {
		return fmt.Errorf("write %s: key: %w", p.dir, err)
	}
	s := binary.AppendUvarint(b.scratch[:0], uint64(len(b.key)))
	s = append(s, b.key...)
	s = append(s, byte(r.Kind))
	s = binary.AppendVarint(s, r.Seq)
	s = binary.AppendUvarint(s, uint64(len(b.rec)))
	s = append(s, b.rec...)
	b.scratch = s
	if err := p.reserve(len(s)); err != nil {
		return err
	}
	for len(s) > 0 {
		if len(b.pages) == 0 || b.used == postponePage {
			b.pages = append(b.pages, b.spare[0])
			b.spare = b.spare[1:]
			b.used = 0
		}
		n := copy(b.pages[len(b.pages)-1][b.used:], s)
		b.used += n
		s = s[n:]
	}
	return nil
}

// reserve makes room for n more bytes, taking pages from the pool; when
// the pool has none to give, the writer spills its own pages first
// (ExternalBuffer.put) and then takes what it needs even past the pool's
// capacity (a record larger than the pool).
func (p *postponeFileWriter) reserve(n int) error {
	b := p.buf
	force := false
	for {
		room := len(b.spare) * postponePage
		if len(b.pages) > 0 {
			room += postponePage - b.used
		}
		if room >= n {
			return nil
		}
		pg, err := b.pool.page(p, force)
		if err != nil {
			return err
		}
		if pg == nil {
			if err := p.flushMemory(); err != nil {
				return err
			}
			force = true
			continue
		}
		b.spare = append(b.spare, pg)
	}
}

// flushMemory is PostponeBucketWriter.flushMemory: the pages are spilled
// to a local run, or, when the runs already take
// 'write-buffer-spill.max-disk-size', the whole buffer is written into
// data files.
func (p *postponeFileWriter) flushMemory() error {
	b := p.buf
	if len(b.pages) == 0 {
		b.release()
		return nil
	}
	if max := p.t.Options.WriteBufferSpillMaxDisk; max > 0 && b.disk >= max {
		return p.writeBuffered()
	}
	if err := b.spill(); err != nil {
		return fmt.Errorf("paimon table %s: spill the buffer of %s: %w", p.t.Root, p.dir, err)
	}
	return nil
}

// spill writes the pages to a new run and releases them.
func (b *postponeBuffer) spill() error {
	pool := b.pool
	if err := os.MkdirAll(pool.dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(pool.dir, "postpone-*.run")
	if err != nil {
		return err
	}
	var w io.Writer = f
	z := pool.t.Options.SpillCompression == "zstd"
	if z {
		if pool.enc == nil {
			pool.enc, err = kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.EncoderLevelFromZstd(pool.t.Options.SpillZstdLevel)),
				kzstd.WithEncoderConcurrency(1), kzstd.WithLowerEncoderMem(true), kzstd.WithWindowSize(postponePage))
			if err != nil {
				f.Close()
				os.Remove(f.Name())
				return err
			}
		}
		pool.enc.Reset(f)
		w = pool.enc
	}
	for i, pg := range b.pages {
		if i == len(b.pages)-1 {
			pg = pg[:b.used]
		}
		if _, err = w.Write(pg); err != nil {
			break
		}
	}
	if err == nil && z {
		err = pool.enc.Close()
	}
	var size int64
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil {
			size = st.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	b.runs = append(b.runs, postponeRun{path: f.Name(), size: size})
	b.disk += size
	pool.spills++
	b.release()
	return nil
}

// each calls fn with every buffered record in arrival order: the spilled
// runs, then the pages.
func (b *postponeBuffer) each(fn func(key []byte, kind sql.RowKind, seq int64, rec []byte) error) error {
	var key, rec []byte
	read := func(r *bufio.Reader) error {
		for {
			n, err := binary.ReadUvarint(r)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			key = grow(key, int(n))
			if _, err := io.ReadFull(r, key); err != nil {
				return err
			}
			kind, err := r.ReadByte()
			if err != nil {
				return err
			}
			seq, err := binary.ReadVarint(r)
			if err != nil {
				return err
			}
			if n, err = binary.ReadUvarint(r); err != nil {
				return err
			}
			rec = grow(rec, int(n))
			if _, err := io.ReadFull(r, rec); err != nil {
				return err
			}
			if err := fn(key, sql.RowKind(kind), seq, rec); err != nil {
				return err
			}
		}
	}
	for _, run := range b.runs {
		f, err := os.Open(run.path)
		if err != nil {
			return err
		}
		var src io.Reader = f
		var dec *kzstd.Decoder
		if b.pool.t.Options.SpillCompression == "zstd" {
			if dec, err = kzstd.NewReader(f, kzstd.WithDecoderConcurrency(1), kzstd.WithDecoderLowmem(true)); err != nil {
				f.Close()
				return err
			}
			src = dec
		}
		err = read(bufio.NewReaderSize(src, postponePage))
		if dec != nil {
			dec.Close()
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("spilled run %s: %w", run.path, err)
		}
	}
	rs := make([]io.Reader, len(b.pages))
	for i, pg := range b.pages {
		if i == len(b.pages)-1 {
			pg = pg[:b.used]
		}
		rs[i] = bytes.NewReader(pg)
	}
	return read(bufio.NewReaderSize(io.MultiReader(rs...), 4096))
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// writeBuffered is BufferedSinkWriter.flush: the buffer's records go into
// rolling data files and the buffer is emptied.
func (p *postponeFileWriter) writeBuffered() error {
	b := p.buf
	err := b.each(func(key []byte, kind sql.RowKind, seq int64, rec []byte) error {
		if p.w == nil {
			if err := p.openFile(); err != nil {
				return err
			}
		}
		if err := p.w.WriteEncoded(rec, key, seq, kind); err != nil {
			return fmt.Errorf("write %s: %w", p.name, err)
		}
		if p.w.BytesWritten() >= p.target {
			return p.closeFile()
		}
		return nil
	})
	if err == nil && p.w != nil {
		err = p.closeFile()
	}
	b.drop()
	if err != nil {
		return fmt.Errorf("paimon table %s: write the buffer of %s: %w", p.t.Root, p.dir, err)
	}
	return nil
}
