// Package index is Paimon's dynamic-bucket hash index (bucket = -1 on a
// primary-key table): the HASH index file format, the per-bucket set of
// key hashes a writer maintains (DynamicBucketIndexMaintainer), and the
// assigners that route a key hash to a bucket (HashBucketAssigner with its
// PartitionIndex, and SimpleHashBucketAssigner for INSERT OVERWRITE).
//
// The package does no I/O: callers read and write the index files through
// their FileIO and hand the hashes in and out.
package index

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"github.com/google/uuid"

	"github.com/sqlrun/sqlrun/sql"
)

// TypeHash is the index type of hash index files (HashIndexFile.HASH_INDEX),
// the _INDEX_TYPE of their index manifest entries.
const TypeHash = "HASH"

// ErrCorrupt is wrapped when a hash index file is not a whole number of
// 4-byte ints.
var ErrCorrupt = sql.Corrupt("corrupt hash index file") // matches sql.ErrCorrupt

// EncodeHashes is a HASH index file: each key hash as a 4-byte big-endian
// int, nothing else (IntFileUtils.writeInts, as HashIndexFile.write calls
// it). The file's row count is len(hashes).
func EncodeHashes(hashes []int32) []byte {
	b := make([]byte, 4*len(hashes))
	for i, h := range hashes {
		binary.BigEndian.PutUint32(b[4*i:], uint32(h))
	}
	return b
}

// DecodeHashes reads a HASH index file (IntFileUtils.readInts). Java stops
// silently at a torn last int; a file that is not a whole number of ints
// is refused here instead, naming the file, since its hashes cannot be
// trusted.
func DecodeHashes(b []byte, name string) ([]int32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%w %s: %d bytes is not a whole number of 4-byte hashes", ErrCorrupt, name, len(b))
	}
	out := make([]int32, len(b)/4)
	for i := range out {
		out[i] = int32(binary.BigEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// BucketHashes is the set of key hashes of one (partition, bucket) of a
// dynamic-bucket table (DynamicBucketIndexMaintainer): restored from the
// bucket's HASH index file, every record written adds its key's hash (a
// delete too), and a commit writes the whole set as a new index file when
// it changed. Hashes keep their first-insertion order in the file.
type BucketHashes struct {
	set      map[int32]struct{}
	order    []int32
	modified bool
}

// NewBucketHashes restores the set from the hashes of the bucket's index
// file (nil: none).
func NewBucketHashes(restored []int32) *BucketHashes {
	b := &BucketHashes{set: make(map[int32]struct{}, len(restored))}
	for _, h := range restored {
		b.add(h)
	}
	return b
}

func (b *BucketHashes) add(h int32) bool {
	if _, ok := b.set[h]; ok {
		return false
	}
	b.set[h] = struct{}{}
	b.order = append(b.order, h)
	return true
}

// Add records the key hash of a written record.
func (b *BucketHashes) Add(h int32) {
	if b.add(h) {
		b.modified = true
	}
}

// Len is the number of distinct hashes.
func (b *BucketHashes) Len() int { return len(b.order) }

// Modified reports whether a hash was added since the last Written.
func (b *BucketHashes) Modified() bool { return b.modified }

// Hashes returns the set in file order (shared; do not modify).
func (b *BucketHashes) Hashes() []int32 { return b.order }

// Written marks the set as written to an index file (prepareCommit's
// modified = false).
func (b *BucketHashes) Written() { b.modified = false }

// Names hands out index file names for one writer: index-<uuid>-<n>, as
// FileStorePathFactory's index file factory (one UUID per writer, a
// counter). Index files live in <table>/index/.
type Names struct {
	mu   sync.Mutex
	uuid string
	n    int
}

// NewNames returns a generator with a fresh UUID.
func NewNames() *Names { return &Names{uuid: uuid.NewString()} }

// Next returns the next index file name.
func (n *Names) Next() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := "index-" + n.uuid + "-" + strconv.Itoa(n.n)
	n.n++
	return s
}
