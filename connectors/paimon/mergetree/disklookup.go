package mergetree

import (
	"container/list"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sqlrun/sqlrun/sql"
)

// DiskLookup is a LookupLevels kept on local disk, the way Paimon keeps
// lookup files beside a writer: the first lookup that needs a data file
// copies it into a local sorted file of fixed-size blocks, with only the
// first key of each block in memory (a sparse index). A lookup binary
// searches the index, reads one block and binary searches it. Decoded
// blocks are cached up to MaxMemoryBytes (lookup.cache-max-memory-size);
// local files are evicted, least recently used first, beyond MaxDiskBytes
// (lookup.cache-max-disk-size). Sort-based rather than hash-based: data files
// are already sorted, so building costs one sequential write and no
// rehashing, and a block read serves neighbouring keys of a compaction that
// walks keys in order.
type DiskLookup struct {
	levels *Levels
	store  RunStore
	key    *Comparator
	dir    string

	// BlockSize is the target block size in bytes (default 4 KiB).
	BlockSize int
	// MaxDiskBytes bounds the local files (0: unbounded, Paimon's default).
	MaxDiskBytes int64
	// MaxMemoryBytes bounds the decoded block cache (default 256 MiB).
	MaxMemoryBytes int64
	// Expire, when set, leaves the expired records out of the local files
	// (see MemLookup.Expire).
	Expire *RecordExpire

	mu        sync.Mutex
	files     map[string]*lookupFile
	fileLRU   *list.List // of *lookupFile, most recent at front
	diskBytes int64
	blocks    map[blockID]*list.Element
	blockLRU  *list.List // of *cachedBlock
	memBytes  int64
	seq       int
	closed    bool
	// Builds and Reads count local files built and blocks read from disk
	// (for tests and metrics).
	Builds, Reads int
}

type lookupFile struct {
	name  string
	path  string
	f     *os.File
	first [][]any // first key of each block
	offs  []int64 // block offsets, plus the end offset
	pos   []int64 // row position (in the data file) of each block's first record
	size  int64
	elem  *list.Element
}

type blockID struct {
	file  string
	block int
}

// cachedBlock is a block's encoded bytes with its records' decoded keys and
// start offsets: a lookup binary searches the keys and decodes only the
// record it finds.
type cachedBlock struct {
	id   blockID
	raw  []byte
	keys [][]any
	offs []int32
	size int64
}

// NewDiskLookup creates a disk lookup index whose local files live in dir
// (created if missing; the table layer gives each bucket writer its own).
func NewDiskLookup(dir string, levels *Levels, store RunStore, key *Comparator) (*DiskLookup, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("mergetree: lookup directory: %w", err)
	}
	return &DiskLookup{levels: levels, store: store, key: key, dir: dir, BlockSize: 4 << 10,
		MaxMemoryBytes: 256 << 20, files: map[string]*lookupFile{}, fileLRU: list.New(),
		blocks: map[blockID]*list.Element{}, blockLRU: list.New()}, nil
}

// Lookup implements LookupLevels.
func (d *DiskLookup) Lookup(key []any, startLevel int) (*KV, FilePos, error) {
	return lookupLevels(d.levels, d.key, d, key, startLevel)
}

func (d *DiskLookup) find(f *FileMeta, key []any) (*KV, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, 0, errors.New("mergetree: lookup index is closed")
	}
	lf, ok := d.files[f.Name]
	if !ok {
		var err error
		if lf, err = d.build(f); err != nil {
			return nil, 0, fmt.Errorf("mergetree: building lookup file for %s: %w", f.Name, err)
		}
	}
	d.fileLRU.MoveToFront(lf.elem)
	// The last block whose first key is ≤ key.
	b := sort.Search(len(lf.first), func(i int) bool { return d.key.Compare(lf.first[i], key) > 0 }) - 1
	if b < 0 {
		return nil, 0, nil
	}
	cb, err := d.block(lf, b)
	if err != nil {
		return nil, 0, err
	}
	i := sort.Search(len(cb.keys), func(i int) bool { return d.key.Compare(cb.keys[i], key) >= 0 })
	if i == len(cb.keys) || d.key.Compare(cb.keys[i], key) != 0 {
		return nil, 0, nil
	}
	r, err := decodeRecord(&sql.Decoder{Buf: cb.raw, Off: int(cb.offs[i])})
	if err != nil {
		return nil, 0, fmt.Errorf("%w in %s", err, lf.path)
	}
	if d.key.Compare(r.Key, key) != 0 {
		return nil, 0, nil
	}
	r.Level = f.Level
	return r, lf.pos[b] + int64(i), nil
}

// build copies a data file into a local block file. Called with d.mu held.
func (d *DiskLookup) build(f *FileMeta) (lf *lookupFile, err error) {
	it, err := openLookup(d.store, f, d.Expire)
	if err != nil {
		return nil, err
	}
	d.seq++
	path := filepath.Join(d.dir, fmt.Sprintf("lookup-%d-%s", d.seq, filepath.Base(f.Name)))
	out, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		it.Close()
		return nil, err
	}
	lf = &lookupFile{name: f.Name, path: path, f: out}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(path)
		}
	}()
	var buf []byte
	var firstInBlock []any
	var rows, blockPos int64
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := out.Write(buf); err != nil {
			return err
		}
		lf.first = append(lf.first, firstInBlock)
		lf.offs = append(lf.offs, lf.size)
		lf.pos = append(lf.pos, blockPos)
		lf.size += int64(len(buf))
		buf, firstInBlock = buf[:0], nil
		return nil
	}
	for r := it.Next(); r != nil; r = it.Next() {
		if firstInBlock == nil {
			firstInBlock, blockPos = r.Key, rows
		}
		rows++
		if buf, err = appendRecord(buf, r); err != nil {
			it.Close()
			return nil, err
		}
		if len(buf) >= d.BlockSize {
			if err := flush(); err != nil {
				it.Close()
				return nil, err
			}
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	lf.offs = append(lf.offs, lf.size)
	lf.elem = d.fileLRU.PushFront(lf)
	d.files[f.Name] = lf
	d.diskBytes += lf.size
	d.Builds++
	for d.MaxDiskBytes > 0 && d.diskBytes > d.MaxDiskBytes && d.fileLRU.Len() > 1 {
		d.drop(d.fileLRU.Back().Value.(*lookupFile))
	}
	return lf, nil
}

// block returns the decoded records of a block, from the cache or disk.
func (d *DiskLookup) block(lf *lookupFile, b int) (*cachedBlock, error) {
	id := blockID{lf.name, b}
	if e, ok := d.blocks[id]; ok {
		d.blockLRU.MoveToFront(e)
		return e.Value.(*cachedBlock), nil
	}
	raw := make([]byte, lf.offs[b+1]-lf.offs[b])
	if _, err := lf.f.ReadAt(raw, lf.offs[b]); err != nil {
		return nil, fmt.Errorf("mergetree: reading lookup file %s: %w", lf.path, err)
	}
	d.Reads++
	cb := &cachedBlock{id: id, raw: raw}
	dec := &sql.Decoder{Buf: raw}
	for !dec.Done() {
		start := dec.Off
		cb.offs = append(cb.offs, int32(start))
		k, keyLen, err := decodeKey(dec)
		if err != nil {
			return nil, fmt.Errorf("%w in %s", err, lf.path)
		}
		cb.keys = append(cb.keys, k)
		cb.size += int64(keyLen)*2 + 48
	}
	cb.size += int64(len(raw))
	d.blocks[id] = d.blockLRU.PushFront(cb)
	d.memBytes += cb.size
	for d.MaxMemoryBytes > 0 && d.memBytes > d.MaxMemoryBytes && d.blockLRU.Len() > 1 {
		d.dropBlock(d.blockLRU.Back())
	}
	return cb, nil
}

func (d *DiskLookup) dropBlock(e *list.Element) {
	cb := e.Value.(*cachedBlock)
	d.blockLRU.Remove(e)
	delete(d.blocks, cb.id)
	d.memBytes -= cb.size
}

// drop deletes a local file and its cached blocks. Called with d.mu held.
func (d *DiskLookup) drop(lf *lookupFile) {
	for b := range lf.first {
		if e, ok := d.blocks[blockID{lf.name, b}]; ok {
			d.dropBlock(e)
		}
	}
	d.fileLRU.Remove(lf.elem)
	delete(d.files, lf.name)
	d.diskBytes -= lf.size
	lf.f.Close()
	os.Remove(lf.path)
}

// Forget implements LookupLevels: local files of removed data files go.
func (d *DiskLookup) Forget(names []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		if lf, ok := d.files[n]; ok {
			d.drop(lf)
		}
	}
}

// DiskBytes reports the size of the local files.
func (d *DiskLookup) DiskBytes() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.diskBytes
}

// Close deletes every local file.
func (d *DiskLookup) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.fileLRU.Len() > 0 {
		d.drop(d.fileLRU.Front().Value.(*lookupFile))
	}
	d.closed = true
	return nil
}
