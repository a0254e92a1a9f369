package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// TestZstdEncodersShared: the writers of a process share their zstd
// encoders, whose history is sized for a page. Before, each file's writer
// built an encoder of its own with an 8 MiB window: 16 MiB allocated per
// file written, however small (a streaming job writes a file per bucket
// and checkpoint).
func TestZstdEncodersShared(t *testing.T) {
	fs := []schema.Field{{ID: 0, Name: "k", Type: sql.Int().NotNull()}, {ID: 1, Name: "s", Type: sql.String()}}
	// A page past the encoder's block size (128 KiB), as a flush's or a
	// compaction's are, is what needs the history.
	const rows = 12_000
	write := func() {
		var buf bytes.Buffer
		w, err := NewAppendWriter(&buf, fs, 0, WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < rows; i++ {
			if err := w.Write([]any{int32(i), fmt.Sprintf("value %012d", i*7919)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-zstd.parquet")
		if err != nil {
			t.Fatal(err)
		}
		it, err := f.Rows(Projection{FileFields: fs, Fields: fs})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r := it.Next(); r != nil; r = it.Next() {
			if r[1] != fmt.Sprintf("value %012d", n*7919) {
				t.Fatalf("row %d: %v", n, r)
			}
			n++
		}
		if it.Error() != nil || n != rows {
			t.Fatalf("read %d rows: %v", n, it.Error())
		}
		it.Close()
	}
	write() // the first file may build the encoder
	const files = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < files; i++ {
		write()
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / files
	if per > 8<<20 {
		t.Errorf("%d bytes allocated per file of %d rows", per, rows)
	}
}

// TestZstdDecodersKept: page decompression keeps its zstd decoders across
// garbage collections. parquet-go's codec kept them in a sync.Pool, which
// every second collection empties, and a batch read collects a few times a
// second: each time a new decoder and its buffers (hundreds of KiB) were
// built again.
func TestZstdDecodersKept(t *testing.T) {
	page := bytes.Repeat([]byte("0123456789abcdef value "), 20_000)
	comp, err := zstdCodecOf(1).Encode(nil, page)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, len(page)+decodeSlack)
	var codec zstdReadCodec
	if out, err := codec.Decode(dst, comp); err != nil || !bytes.Equal(out, page) {
		t.Fatalf("decode: %v", err)
	}
	var before, after runtime.MemStats
	var allocated uint64
	for i := 0; i < 5; i++ {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		out, err := codec.Decode(dst, comp)
		runtime.ReadMemStats(&after)
		if err != nil || !bytes.Equal(out, page) {
			t.Fatalf("decode %d: %v", i, err)
		}
		allocated += after.TotalAlloc - before.TotalAlloc
	}
	if allocated > 64<<10 {
		t.Errorf("%d bytes allocated by 5 decodes after garbage collections", allocated)
	}
}

// TestZstdPageLevel: a page is one zstd frame that klauspost's decoder
// (not the library that wrote it) reads back, and the codec compresses
// at file.compression.zstd-level: level 19 makes another frame than level
// 1 of the same page (smaller with the reference zstd; klauspost's best
// level happens to make a larger one of these strings).
func TestZstdPageLevel(t *testing.T) {
	page := zstdBenchPage()
	var frames [2][]byte
	for i, level := range []int{1, 19} {
		comp, err := zstdCodecOf(level).Encode(nil, page)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		back, err := dec.DecodeAll(comp, nil)
		dec.Close()
		if err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if !bytes.Equal(back, page) {
			t.Fatalf("level %d: the page read back differs", level)
		}
		var h kzstd.Header
		if err := h.Decode(comp); err != nil {
			t.Fatalf("level %d: frame header: %v", level, err)
		}
		// parquet-java's readers (zstd-jni, aircompressor) accept windows
		// up to 2^27; a page needs no more than its own size.
		if h.WindowSize > 1<<20 && h.WindowSize > uint64(len(page)) {
			t.Errorf("level %d: window %d for a page of %d bytes", level, h.WindowSize, len(page))
		}
		frames[i] = comp
	}
	if bytes.Equal(frames[0], frames[1]) {
		t.Errorf("levels 1 and 19 made the same %d bytes: the level does not reach the encoder", len(frames[0]))
	}
}

// zstdBenchPage is a PLAIN page (1 MiB) of TableWriterBenchmark's strings:
// 4-byte lengths and 10 random hexadecimal characters.
func zstdBenchPage() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	const hex = "0123456789abcdef"
	var p []byte
	for len(p) <= pageSize-14 {
		p = binary.LittleEndian.AppendUint32(p, 10)
		for range 10 {
			p = append(p, hex[r.IntN(16)])
		}
	}
	return p
}

// BenchmarkZstdPage: compressing a PLAIN string page at level 1 with the
// codec's encoder (the reference zstd with cgo) and with klauspost's
// SpeedFastest, which it replaced; out-bytes is the frame's size.
func BenchmarkZstdPage(b *testing.B) {
	page := zstdBenchPage()
	b.Run("codec", func(b *testing.B) {
		c := zstdCodecOf(1)
		var out []byte
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			out, _ = c.Encode(out, page)
		}
		b.ReportMetric(float64(len(out)), "out-bytes")
	})
	b.Run("klauspost", func(b *testing.B) {
		e, err := kzstd.NewWriter(nil, kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithEncoderConcurrency(1),
			kzstd.WithWindowSize(zstdWindow), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
		if err != nil {
			b.Fatal(err)
		}
		var out []byte
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			out = e.EncodeAll(page, out[:0])
		}
		b.ReportMetric(float64(len(out)), "out-bytes")
	})
}
