//go:build unix

package mergetree

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestWriteBufferOffHeap: a full write buffer holds its records outside
// the Go heap, serialized (as Paimon's BinaryInMemorySortBuffer holds them
// in MemorySegments of its pool), and what it holds is bounded by its
// limit plus one page chunk and the index's growth. With the records on
// the heap as Go values (1.1 KB for a row of 20 ten-character strings
// against the 600 bytes the estimate counted) and the binary's GOGC=400,
// a 256 MB write buffer let a 1M-row write peak at 1.4 GB (issue 24).
func TestWriteBufferOffHeap(t *testing.T) {
	types := []sql.DataType{sql.Int().NotNull()}
	names := []string{"k"}
	for i := 1; i <= 20; i++ {
		types = append(types, sql.String())
		names = append(names, fmt.Sprintf("s%d", i))
	}
	spec, err := newSpec(names, types, []string{"k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 32 << 20
	b := NewWriteBuffer(spec, limit, nil, nil)
	defer b.Flush(func(*KV) error { return nil }, nil)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for ; ; n++ {
		v := make([]any, 21)
		v[0] = int32(n * 7919)
		for j := 1; j <= 20; j++ {
			v[j] = fmt.Sprintf("%010d", n*31+j)
		}
		full, err := b.Put(&KV{Key: spec.KeyOf(v), Seq: int64(n), Kind: sql.Insert, Value: v})
		if err != nil {
			t.Fatal(err)
		}
		if full {
			break
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d records, %d bytes counted, %d mapped, heap grew %d bytes", n+1, b.MemoryBytes(), b.MappedBytes(), heap)
	// A row of 20 ten-character strings is 504 BinaryRow bytes and a
	// 32-byte index entry.
	if n < limit/600 {
		t.Errorf("the buffer was full after %d records", n+1)
	}
	if m := b.MemoryBytes(); m < limit || m > limit+600 {
		t.Errorf("full at %d bytes, limit %d", m, limit)
	}
	if m := b.MappedBytes(); m > limit+pageChunk+int64((n+1)*entrySize/2) {
		t.Errorf("%d bytes mapped for a limit of %d", m, limit)
	}
	if heap > 1<<20 {
		t.Errorf("the Go heap grew by %d bytes for %d buffered records", heap, n+1)
	}
}
