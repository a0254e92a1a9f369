package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"os"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/sql"
)

// The page writer encodes flat files (every column a top-level primitive:
// the primary-key layout and append tables without nested types) into
// Parquet itself instead of through parquet-go's row/Value API, which costs
// a 24-byte Value per cell plus several calls and copies before a byte
// reaches a page. Here a STRING cell is an append of its length and bytes
// to the column's page buffer (or one map lookup in a dictionary column),
// an INT one 4-byte store. The file layout is what
// parquet-mr writes with its defaults, which Paimon Java reads: one row
// group per file (a new one past parquet.block.size), V1 data pages of at
// most pageSize bytes or pageRowLimit rows, definition levels
// RLE/bit-packed, PLAIN values or a PLAIN dictionary page plus
// RLE_DICTIONARY indexes, compressed with the table's codec: encodings
// Paimon 1.0's reader takes (AbstractColumnReader: PLAIN, PLAIN_DICTIONARY,
// RLE_DICTIONARY). Strings without a dictionary are DELTA_LENGTH_BYTE_ARRAY
// only when asked for (WriterOptions.StringEncoding). The schema, column orders and created-by of the footer are
// taken from parquet-go's own encoding of the same schema (a zero-row
// file), so both writers' footers describe columns identically.

const (
	// pageSize is parquet.page.size (1 MiB): a data page is cut once its
	// encoded values reach it.
	pageSize = 1 << 20
	// pageRowLimit is parquet.page.row.count.limit: at most this many rows
	// per page, so a reader skipping within a file has small steps.
	pageRowLimit = 20_000
	// rowGroupSize is parquet.block.size (128 MiB): a new row group starts
	// once the buffered column chunks reach it.
	rowGroupSize = 128 << 20
	// dictionarySample is how many values a STRING column buffers before
	// deciding whether dictionary encoding pays (parquet-mr decides after
	// its first page; a fixed sample keeps the hashing cost bounded).
	dictionarySample = 1024
)

// pageCol is one column of a flat file: its current page and the finished
// pages of its current column chunk.
type pageCol struct {
	kind     parquet.Kind
	optional bool
	// str marks CHAR/VARCHAR: the STRING fast path and a dictionary
	// candidate. Its PLAIN pages hold each value's 4-byte length and
	// bytes in plain; with delta (the opt-in DELTA_LENGTH_BYTE_ARRAY)
	// plain holds the bytes only and lens the lengths.
	str   bool
	delta bool

	// The current page.
	defs   []byte // definition level per row (optional columns only)
	plain  []byte // PLAIN values (or, for booleans, bit-packed ones)
	lens   []int32
	nbool  int // booleans in plain
	rows   int // rows (= values incl. nulls) in the page
	nulls  int // nulls in the page
	idx    []int32
	dictOn bool // the page's values are dictionary indexes
	// deciding: the column still samples (plain and dictionary both kept).
	deciding bool

	// The dictionary of the current column chunk.
	dict      map[string]int32
	dictPlain []byte
	dictN     int

	// The finished pages of the current column chunk.
	chunk       []page // header and compressed body of each page
	chunkValues int64
	chunkNulls  int64
	chunkUncomp int64
	totalNulls  int64 // in the whole file

	// Typed min/max of the current page's values put through putString,
	// putInt32 and putInt64 (two comparisons of the concrete type per
	// cell instead of the stats collector's interface values), and of the
	// other values (stats, in Parquet's order). At the end of a page they
	// make its column index entry and are folded into cstats, the column
	// chunk's bounds (its Parquet statistics), and into fileStrs and
	// fileInts, the file's, which the value stats take at close.
	strs     minMax[string]
	ints     minMax[int64]
	stats    chunkStats
	cstats   chunkStats
	fileStrs minMax[string]
	fileInts minMax[int64]
	// pidx is the current column chunk's page index; truncate says
	// whether its bounds are cut (truncatesBounds).
	pidx      pageIndex
	truncate  bool
	usedDict  bool
	usedDelta bool // a DELTA_LENGTH_BYTE_ARRAY page

	// The last put, so a row that fails half way can be taken back.
	lastPlain int
	lastNull  bool
	lastKey   string // a dictionary entry the last put added, or ""
	lastNew   bool
}

// page is a finished page (header and compressed body) of a column chunk:
// in memory, or in the writer's spill file once the row group holds more
// than pageMemory bytes of finished pages.
type page struct {
	b   []byte // the page, or nil when it is in the spill file
	off int64  // where it starts in the spill file
	n   int    // its size
}

// pageMemory bounds the finished pages a writer holds in memory. A column
// chunk is contiguous in a Parquet file, so a row group's pages can only be
// written once the row group is complete: parquet-java holds them in
// memory (up to parquet.block.size, 128 MiB compressed, per file being
// written), which is a flush's and a compaction's whole output file here.
// Past pageMemory they go to a scratch file (WriterOptions.SpillDir) and
// are copied into place when the row group is written, so the writer's
// memory is its page buffers plus pageMemory, whatever the file's size.
// Files smaller than this (most of a streaming job's) never touch the disk.
var pageMemory int64 = 8 << 20

// pageBufs are the buffers a page is built in, pooled across files: a
// checkpoint writes a file per bucket, and growing fresh buffers up to a
// page's size for every file costs more than filling them.
type pageBufs struct {
	defs, plain []byte
	lens, idx   []int32
}

// bufList is a bounded free list. Not a sync.Pool: a pool is emptied by
// every garbage collection, and a busy writer collects several times
// between two checkpoints, so pooled page buffers would rarely survive to
// the next file.
type bufList struct {
	mu    sync.Mutex
	free  []*pageBufs
	bytes int
}

// maxFreeBytes bounds the memory each list keeps: the page buffers of a
// few concurrently written files of a wide table.
const maxFreeBytes = 64 << 20

func (b *pageBufs) size() int { return cap(b.defs) + cap(b.plain) + 4*cap(b.lens) + 4*cap(b.idx) }

var (
	colBufs  bufList // a column's page buffers
	fileBufs bufList // a writer's (plain: page body, defs: compressed page)
)

func (l *bufList) get() *pageBufs {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		l.bytes -= b.size()
		return b
	}
	return new(pageBufs)
}

func (l *bufList) put(b *pageBufs) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bytes+b.size() <= maxFreeBytes {
		l.free = append(l.free, b)
		l.bytes += b.size()
	}
}

// release returns the writer's buffers to their pools; the writer is
// finished with.
func (w *pageWriter) release() {
	for i := range w.cols {
		c := &w.cols[i]
		if cap(c.plain) <= maxPooledBuf {
			colBufs.put(&pageBufs{defs: c.defs[:0], plain: c.plain[:0], lens: c.lens[:0], idx: c.idx[:0]})
		}
		c.defs, c.plain, c.lens, c.idx = nil, nil, nil, nil
	}
	if cap(w.scratch) <= maxPooledBuf && cap(w.comp) <= maxPooledBuf {
		fileBufs.put(&pageBufs{plain: w.scratch[:0], defs: w.comp[:0]})
	}
	w.scratch, w.comp = nil, nil
	w.copyBuf = nil
	if w.spill != nil {
		w.spill.Close()
		os.Remove(w.spill.Name()) // gone already where an open file can be removed
		w.spill = nil
	}
}

// maxPooledBuf bounds the buffers kept for reuse: a page that held a few
// huge values does not pin their memory for the life of the process.
const maxPooledBuf = 4 * pageSize

// pageWriter writes a flat Parquet file page by page.
type pageWriter struct {
	out    *countingWriter
	codec  compress.Codec
	cols   []pageCol
	meta   pformat.FileMetaData // template: column orders, created-by
	els    []schemaElement      // the schema (see footer.go)
	groups []pformat.RowGroup
	// indexes are the page indexes of the finished column chunks.
	indexes []chunkIndexes
	rgRows  int64
	rows    int64 // rows in finished row groups
	// buffered is the compressed size of the finished pages of the current
	// row group: with out.n it estimates the file size for rolling.
	buffered int64
	scratch  []byte // a page's encoded body
	comp     []byte // a page's compressed body
	// spillDir is where spill is created once the finished pages held in
	// memory (held) would pass pageMemory; "" keeps them all in memory.
	// spillEnd is the spill file's size (it restarts with each row group).
	spillDir string
	spill    *os.File
	spillEnd int64
	held     int64
	copyBuf  []byte // a spilled page on its way to the file
	header   bytes.Buffer
	enc      *thrift.Encoder
	started  bool
}

// newPageWriter prepares a writer for the flat columns cols.
func newPageWriter(out *countingWriter, cols []Column, codec compress.Codec, deltaStrings bool, spillDir string) (*pageWriter, error) {
	sch, err := parquetSchema(cols)
	if err != nil {
		return nil, err
	}
	meta, err := footerTemplate(sch)
	if err != nil {
		return nil, err
	}
	els, err := paimonSchemaElements(cols)
	if err != nil {
		return nil, err
	}
	w := &pageWriter{out: out, codec: codec, meta: meta, els: els, spillDir: spillDir}
	fb := fileBufs.get()
	w.scratch, w.comp = fb.plain, fb.defs
	w.enc = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&w.header))
	w.cols = make([]pageCol, len(cols))
	leaves := sch.Columns()
	leafStats := leafStatsOf(els)
	for i := range cols {
		leaf, _ := sch.Lookup(leaves[i]...)
		c := &w.cols[i]
		c.kind = leaf.Node.Type().Kind()
		c.stats, c.cstats = leafStats[i], leafStats[i]
		c.truncate = truncatesBounds(&c.stats)
		c.optional = cols[i].Type.Nullable
		c.str = (cols[i].Type.Root == sql.TypeChar || cols[i].Type.Root == sql.TypeVarChar) && c.kind == parquet.ByteArray
		c.deciding = c.str
		c.delta = c.str && deltaStrings
		b := colBufs.get()
		c.defs, c.plain, c.lens, c.idx = b.defs, b.plain, b.lens, b.idx
	}
	return w, nil
}

// footerTemplate is the footer parquet-go writes for a file of schema sch
// with no rows: the schema elements (names, field ids, repetition, logical
// and converted types), the column orders and created-by that every file
// of this writer carries.
func footerTemplate(sch *parquet.Schema) (pformat.FileMetaData, error) {
	var buf bytes.Buffer
	pw := parquet.NewWriter(&buf, sch, parquet.CreatedBy("sqlrun", "0.1.0", "parquet-go"))
	if err := pw.Close(); err != nil {
		return pformat.FileMetaData{}, fmt.Errorf("parquet footer: %w", err)
	}
	b := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	var meta pformat.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-n:len(b)-8], &meta); err != nil {
		return meta, fmt.Errorf("parquet footer: %w", err)
	}
	meta.RowGroups, meta.NumRows = nil, 0
	return meta, nil
}

// rowGroupBytes is the row group size in use: rowGroupSize, lowered by
// tests to see files with several row groups.
var rowGroupBytes int64 = rowGroupSize

// errNullNotNull is the error of a null in a NOT NULL column.
var errNullNotNull = fmt.Errorf("null value in NOT NULL column")

// putNull appends a null to column i.
func (w *pageWriter) putNull(i int) error {
	c := &w.cols[i]
	if !c.optional {
		return errNullNotNull
	}
	c.lastPlain, c.lastNull, c.lastNew = len(c.plain), true, false
	c.defs = append(c.defs, 0)
	c.rows++
	c.nulls++ // dictionary indexes are kept for non-null values only
	c.totalNulls++
	return nil
}

func (c *pageCol) present() {
	c.lastPlain, c.lastNull, c.lastNew = len(c.plain), false, false
	if c.optional {
		c.defs = append(c.defs, 1)
	}
	c.rows++
}

// putString appends a STRING value to column i. s is only read during the
// call: what the column keeps of it (a page bound, a dictionary entry) is
// a copy, so s may point into memory the caller reuses (KVWriter's
// WriteBinary: a write buffer's pages).
func (w *pageWriter) putString(i int, s string) {
	c := &w.cols[i]
	c.present()
	addString(&c.strs, s)
	if c.dictOn || c.deciding {
		id, ok := c.dict[s]
		if !ok {
			if c.dict == nil {
				c.dict = make(map[string]int32)
			}
			id = int32(c.dictN)
			key := strings.Clone(s)
			c.dict[key] = id
			c.dictN++
			c.dictPlain = binary.LittleEndian.AppendUint32(c.dictPlain, uint32(len(s)))
			c.dictPlain = append(c.dictPlain, s...)
			c.lastKey, c.lastNew = key, true
		}
		c.idx = append(c.idx, id)
		if c.dictOn {
			return
		}
	}
	if c.delta {
		c.lens = append(c.lens, int32(len(s)))
	} else {
		c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(len(s)))
	}
	c.plain = append(c.plain, s...)
}

// minMax is a running minimum and maximum of one column's values.
type minMax[T cmp.Ordered] struct {
	min, max T
	ok       bool
}

// addString is m.add keeping copies of the bounds (see putString): a
// bound changes a few dozen times in a page of random values, so the
// copies are few.
func addString(p *minMax[string], x string) {
	switch {
	case !p.ok:
		c := strings.Clone(x)
		p.min, p.max, p.ok = c, c, true
	case x < p.min:
		p.min = strings.Clone(x)
	case x > p.max:
		p.max = strings.Clone(x)
	}
}

func (m *minMax[T]) add(x T) {
	switch {
	case !m.ok:
		m.min, m.max, m.ok = x, x, true
	case x < m.min:
		m.min = x
	case x > m.max:
		m.max = x
	}
}

// putInt32 appends an INT32 value to column i.
func (w *pageWriter) putInt32(i int, v int32) {
	c := &w.cols[i]
	c.present()
	c.ints.add(int64(v))
	c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(v))
}

// putInt64 appends an INT64 value to column i.
func (w *pageWriter) putInt64(i int, v int64) {
	c := &w.cols[i]
	c.present()
	c.ints.add(v)
	c.plain = binary.LittleEndian.AppendUint64(c.plain, uint64(v))
}

// putValue appends a converted value (any type) to column i.
func (w *pageWriter) putValue(i int, v parquet.Value) error {
	c := &w.cols[i]
	if v.IsNull() {
		return w.putNull(i)
	}
	if c.str && v.Kind() == parquet.ByteArray {
		w.putString(i, string(v.ByteArray())) // a copy: it may be kept as a bound
		return nil
	}
	if v.Kind() != c.kind {
		return fmt.Errorf("parquet value of kind %s in a %s column", v.Kind(), c.kind)
	}
	c.present()
	switch c.kind {
	case parquet.Boolean:
		if c.nbool%8 == 0 {
			c.plain = append(c.plain, 0)
		}
		if v.Boolean() {
			c.plain[len(c.plain)-1] |= 1 << (c.nbool % 8)
		}
		c.nbool++
	case parquet.Int32:
		c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(v.Int32()))
	case parquet.Int64:
		c.plain = binary.LittleEndian.AppendUint64(c.plain, uint64(v.Int64()))
	case parquet.Int96:
		x := v.Int96()
		for _, u := range x {
			c.plain = binary.LittleEndian.AppendUint32(c.plain, u)
		}
	case parquet.Float:
		c.plain = binary.LittleEndian.AppendUint32(c.plain, math.Float32bits(v.Float()))
	case parquet.Double:
		c.plain = binary.LittleEndian.AppendUint64(c.plain, math.Float64bits(v.Double()))
	case parquet.ByteArray:
		b := v.ByteArray()
		c.plain = binary.LittleEndian.AppendUint32(c.plain, uint32(len(b)))
		c.plain = append(c.plain, b...)
		c.stats.add(b)
		return nil
	case parquet.FixedLenByteArray:
		c.plain = append(c.plain, v.ByteArray()...)
	default:
		return fmt.Errorf("parquet kind %s is not supported", c.kind)
	}
	if c.kind == parquet.Boolean {
		c.stats.addValue(v)
	} else {
		c.stats.add(c.plain[c.lastPlain:])
	}
	return nil
}

// unput takes back the last value put into column i (a row that failed
// half way is dropped whole).
func (w *pageWriter) unput(i int) {
	c := &w.cols[i]
	c.rows--
	if c.optional {
		c.defs = c.defs[:len(c.defs)-1]
	}
	if c.lastNull {
		c.nulls--
		c.totalNulls--
		return
	}
	c.plain = c.plain[:c.lastPlain]
	if c.delta && !c.dictOn {
		c.lens = c.lens[:len(c.lens)-1]
	}
	if c.kind == parquet.Boolean {
		c.nbool--
		if c.nbool%8 == 0 {
			c.plain = c.plain[:len(c.plain)-1]
		} else {
			c.plain[len(c.plain)-1] &^= 1 << (c.nbool % 8)
		}
	}
	if c.dictOn || c.deciding {
		c.idx = c.idx[:len(c.idx)-1]
		if c.lastNew {
			delete(c.dict, c.lastKey)
			c.dictN--
			c.dictPlain = c.dictPlain[:len(c.dictPlain)-4-len(c.lastKey)]
		}
	}
	c.lastNew = false
}

// sizeCheckRows is how often (in rows) endRow looks at the pages' sizes;
// parquet-mr checks every 100 rows at least, for the same reason: a check
// per cell costs more than a page a few rows longer.
const sizeCheckRows = 64

// endRow finishes a row: every sizeCheckRows rows, columns whose page is
// full are cut, samples that are complete decide their encoding, and a row
// group that reached its size is written out.
func (w *pageWriter) endRow() error {
	w.rgRows++
	if w.rgRows%sizeCheckRows != 0 {
		return nil
	}
	for i := range w.cols {
		c := &w.cols[i]
		if c.deciding && c.rows >= dictionarySample {
			c.decide()
		}
		if c.rows >= pageRowLimit || len(c.plain)+4*len(c.lens) >= pageSize || (c.dictOn && len(c.dictPlain) >= dictionaryMaxBytes) {
			if err := w.flushPage(c); err != nil {
				return err
			}
		}
	}
	if w.buffered >= rowGroupBytes {
		return w.flushRowGroup()
	}
	return nil
}

// decide ends a STRING column's sample: the dictionary stays when the
// dictionary plus bit-packed indexes are smaller than the plain values
// (parquet-mr's rule), else the column is PLAIN from here on.
func (c *pageCol) decide() {
	c.deciding = false
	n := len(c.idx)
	width := bits.Len(uint(c.dictN))
	if n >= dictionaryMinSample && len(c.dictPlain)+(n*width+7)/8 < len(c.plain)+4*len(c.lens) {
		c.dictOn = true
		c.plain, c.lens = c.plain[:0], c.lens[:0]
		return
	}
	c.dropDict()
}

// dropDict forgets the dictionary of a column that writes PLAIN.
func (c *pageCol) dropDict() {
	c.dict, c.dictPlain, c.dictN, c.idx = nil, nil, 0, nil
}

// flushPage encodes, compresses and appends the current page of c to its
// column chunk.
func (w *pageWriter) flushPage(c *pageCol) error {
	if c.rows == 0 {
		return nil
	}
	if c.deciding {
		c.decide()
	}
	body := w.scratch[:0]
	if c.optional {
		body = appendDefLevels(body, c.defs)
	}
	enc := pformat.Plain
	if c.dictOn {
		enc = pformat.RLEDictionary
		body = appendDictIndexes(body, c.idx, c.dictN)
		c.usedDict = true
	} else if c.delta {
		// DELTA_LENGTH_BYTE_ARRAY (opt-in, see StringEncoding): the
		// bytes of PLAIN with the lengths moved out of the way. Paimon's
		// Parquet reader before 1.2 refuses it.
		enc = pformat.DeltaLengthByteArray
		c.usedDelta = true
		body = appendDeltaBinaryPacked(body, c.lens)
		body = append(body, c.plain...)
	} else {
		body = append(body, c.plain...)
	}
	w.scratch = body
	hdr := pformat.PageHeader{Type: pformat.DataPage}
	// No statistics in the header: parquet-java keeps a page's in the
	// column index (ColumnChunkPageWriter.writePage).
	hdr.DataPageHeader = thrift.New(pformat.DataPageHeader{
		NumValues: int32(c.rows), Encoding: enc,
		DefinitionLevelEncoding: pformat.RLE, RepetitionLevelEncoding: pformat.RLE,
	})
	size, err := w.appendPage(c, &hdr, body, true)
	if err != nil {
		return err
	}
	c.endPageStats(size)
	c.chunkValues += int64(c.rows)
	c.chunkNulls += int64(c.nulls)
	c.defs, c.plain, c.idx, c.lens = c.defs[:0], c.plain[:0], c.idx[:0], c.lens[:0]
	c.rows, c.nulls, c.nbool = 0, 0, 0
	c.lastNew = false
	if c.dictOn && len(c.dictPlain) >= dictionaryMaxBytes {
		// parquet-mr's fallback: the dictionary is frozen and the rest of
		// the column chunk is PLAIN.
		c.dictOn, c.dict = false, nil
	}
	return nil
}

// appendPage compresses body and appends header and page to c's chunk;
// it returns the page's size with its header. A data page goes to the
// spill file when the pages held in memory would pass pageMemory.
func (w *pageWriter) appendPage(c *pageCol, hdr *pformat.PageHeader, body []byte, spillable bool) (int, error) {
	comp, err := w.codec.Encode(w.comp[:0], body)
	if err != nil {
		return 0, fmt.Errorf("parquet compress: %w", err)
	}
	w.comp = comp
	hdr.UncompressedPageSize = int32(len(body))
	hdr.CompressedPageSize = int32(len(comp))
	hdr.CRC = int32(crc32.ChecksumIEEE(comp))
	w.header.Reset()
	if err := w.enc.Encode(hdr); err != nil {
		return 0, fmt.Errorf("parquet page header: %w", err)
	}
	n := w.header.Len() + len(comp)
	c.chunkUncomp += int64(w.header.Len() + len(body))
	w.buffered += int64(n)
	if spillable && w.spillDir != "" && w.held+int64(n) > pageMemory {
		if err := w.spillPage(c, comp); err != nil {
			return 0, err
		}
		return n, nil
	}
	// One exact-size allocation per page: no copying as a chunk grows.
	p := make([]byte, 0, n)
	p = append(append(p, w.header.Bytes()...), comp...)
	c.chunk = append(c.chunk, page{b: p, n: n})
	w.held += int64(n)
	return n, nil
}

// spillPage appends the page in w.header and comp to the spill file,
// creating it on first use. The file is removed as soon as it is open
// (where the system allows), so no run, however it ends, leaves it behind.
func (w *pageWriter) spillPage(c *pageCol, comp []byte) error {
	if w.spill == nil {
		if err := os.MkdirAll(w.spillDir, 0o755); err != nil {
			return fmt.Errorf("parquet page spill: %w", err)
		}
		f, err := os.CreateTemp(w.spillDir, "pages-*")
		if err != nil {
			return fmt.Errorf("parquet page spill: %w", err)
		}
		_ = os.Remove(f.Name())
		w.spill = f
	}
	p := page{off: w.spillEnd, n: w.header.Len() + len(comp)}
	if _, err := w.spill.Write(w.header.Bytes()); err != nil {
		return fmt.Errorf("parquet page spill: %w", err)
	}
	if _, err := w.spill.Write(comp); err != nil {
		return fmt.Errorf("parquet page spill: %w", err)
	}
	w.spillEnd += int64(p.n)
	c.chunk = append(c.chunk, p)
	return nil
}

// appendDefLevels appends V1 definition levels (max level 1): a 4-byte
// length, then one RLE run when no value is null, else bit-packed groups.
func appendDefLevels(dst []byte, defs []byte) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	allSet := true
	for _, d := range defs {
		if d == 0 {
			allSet = false
			break
		}
	}
	if allSet {
		dst = binary.AppendUvarint(dst, uint64(len(defs))<<1)
		dst = append(dst, 1)
	} else {
		groups := (len(defs) + 7) / 8
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		for g := 0; g < groups; g++ {
			var b byte
			for j := 0; j < 8 && g*8+j < len(defs); j++ {
				b |= defs[g*8+j] << j
			}
			dst = append(dst, b)
		}
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// appendDictIndexes appends RLE_DICTIONARY data: the bit width, then the
// indexes bit-packed in groups of eight (the last group zero-padded; the
// page's value count says where it ends).
func appendDictIndexes(dst []byte, idx []int32, dictN int) []byte {
	width := max(1, bits.Len(uint(dictN-1)))
	dst = append(dst, byte(width))
	groups := (len(idx) + 7) / 8
	dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
	var acc uint64
	var nacc int
	for g := 0; g < groups; g++ {
		for j := 0; j < 8; j++ {
			var v uint64
			if k := g*8 + j; k < len(idx) {
				v = uint64(idx[k])
			}
			acc |= v << nacc
			nacc += width
			for nacc >= 8 {
				dst = append(dst, byte(acc))
				acc >>= 8
				nacc -= 8
			}
		}
	}
	// 8 values of width bits are a whole number of bytes: nothing is left.
	return dst
}

// Delta encoding's block layout: 128 values per block in 4 miniblocks.
const (
	deltaBlock     = 128
	deltaMiniBlock = 32
)

// appendDeltaBinaryPacked appends vals in DELTA_BINARY_PACKED encoding: a
// header (block size, miniblocks per block, count, first value), then per
// block of deltas the minimum delta, the bit width of each miniblock and
// the miniblocks' deltas-minus-minimum bit-packed. Equal lengths (the
// common case of fixed-width strings) take a few bytes for the page.
func appendDeltaBinaryPacked(dst []byte, vals []int32) []byte {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaBlock/deltaMiniBlock)
	dst = binary.AppendUvarint(dst, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(dst, 0)
	}
	dst = binary.AppendVarint(dst, int64(vals[0]))
	var deltas [deltaBlock]int64
	for i := 1; i < len(vals); i += deltaBlock {
		n := min(deltaBlock, len(vals)-i)
		minD := int64(math.MaxInt64)
		for j := 0; j < n; j++ {
			deltas[j] = int64(vals[i+j]) - int64(vals[i+j-1])
			minD = min(minD, deltas[j])
		}
		dst = binary.AppendVarint(dst, minD)
		var widths [deltaBlock / deltaMiniBlock]int
		for m := range widths {
			var or uint64
			for j := m * deltaMiniBlock; j < min(n, (m+1)*deltaMiniBlock); j++ {
				or |= uint64(deltas[j] - minD)
			}
			widths[m] = bits.Len64(or)
			dst = append(dst, byte(widths[m]))
		}
		for m, w := range widths {
			if m*deltaMiniBlock >= n {
				break // miniblocks past the last value have no body
			}
			var acc uint64
			nacc := 0
			for j := m * deltaMiniBlock; j < (m+1)*deltaMiniBlock; j++ {
				var v uint64
				if j < n {
					v = uint64(deltas[j] - minD)
				}
				for k := 0; k < w; k++ { // bit by bit: widths up to 64 without overflow
					acc |= (v >> k & 1) << nacc
					nacc++
					if nacc == 8 {
						dst = append(dst, byte(acc))
						acc, nacc = 0, 0
					}
				}
			}
		}
	}
	return dst
}

// endPageStats ends the bounds of the page just cut: they make its column
// index entry and are folded into the chunk's and the file's.
func (c *pageCol) endPageStats(size int) {
	var buf [8]byte
	if c.strs.ok {
		c.stats.add(unsafeBytes(c.strs.min))
		c.stats.add(unsafeBytes(c.strs.max))
		// The file's bounds outlive the page: a copy, or they would keep
		// what the values point into (a compaction reader's page) alive
		// until the file is closed.
		if !c.fileStrs.ok || c.strs.min < c.fileStrs.min {
			c.fileStrs.add(strings.Clone(c.strs.min))
		}
		if c.strs.max > c.fileStrs.max {
			c.fileStrs.add(strings.Clone(c.strs.max))
		}
	}
	if c.ints.ok {
		for _, x := range []int64{c.ints.min, c.ints.max} {
			if c.kind == parquet.Int32 {
				binary.LittleEndian.PutUint32(buf[:], uint32(x))
				c.stats.add(buf[:4])
			} else {
				binary.LittleEndian.PutUint64(buf[:], uint64(x))
				c.stats.add(buf[:8])
			}
			c.fileInts.add(x)
		}
	}
	var min, max []byte
	if c.stats.has {
		min, max = c.stats.min, c.stats.max
		c.cstats.add(min)
		c.cstats.add(max)
	}
	c.pidx.add(min, max, c.stats.has, int64(c.nulls), int64(c.rows), size, c.truncate)
	c.stats.reset()
	c.strs, c.ints = minMax[string]{}, minMax[int64]{}
}

// chunkStatistics returns the Parquet statistics of c's current column
// chunk and starts the next chunk's.
func (c *pageCol) chunkStatistics() pformat.Statistics {
	st := c.cstats.format(c.chunkNulls)
	c.cstats.reset()
	return st
}

// flushRowGroup writes every column chunk of the current row group.
func (w *pageWriter) flushRowGroup() error {
	for i := range w.cols {
		if err := w.flushPage(&w.cols[i]); err != nil {
			return err
		}
	}
	if w.rgRows == 0 {
		return nil
	}
	if err := w.start(); err != nil {
		return err
	}
	rg := pformat.RowGroup{NumRows: w.rgRows, FileOffset: w.out.n, Ordinal: int16(len(w.groups))}
	leaves := w.meta.Schema[1:]
	for i := range w.cols {
		c := &w.cols[i]
		start := w.out.n
		md := pformat.ColumnMetaData{
			Type:         pformat.Type(c.kind),
			PathInSchema: []string{leaves[i].Name},
			Codec:        w.codec.CompressionCodec(),
			NumValues:    c.chunkValues,
			Statistics:   c.chunkStatistics(),
		}
		var uncomp int64
		if c.usedDict {
			hdr := pformat.PageHeader{Type: pformat.DictionaryPage}
			hdr.DictionaryPageHeader = thrift.New(pformat.DictionaryPageHeader{NumValues: int32(c.dictN), Encoding: pformat.Plain})
			var dc pageCol
			if _, err := w.appendPage(&dc, &hdr, c.dictPlain, false); err != nil {
				return err
			}
			if err := w.writePages(dc.chunk); err != nil {
				return err
			}
			md.DictionaryPageOffset = start
			uncomp += dc.chunkUncomp
		}
		md.DataPageOffset = w.out.n
		if err := w.writePages(c.chunk); err != nil {
			return err
		}
		uncomp += c.chunkUncomp
		md.TotalUncompressedSize = uncomp
		md.TotalCompressedSize = w.out.n - start
		// PLAIN for values or the dictionary page; RLE for the levels every
		// V1 page header names.
		md.Encoding = append(md.Encoding, pformat.Plain, pformat.RLE)
		if c.usedDelta {
			md.Encoding = append(md.Encoding, pformat.DeltaLengthByteArray)
		}
		if c.usedDict {
			md.Encoding = append(md.Encoding, pformat.RLEDictionary)
		}
		w.indexes = append(w.indexes, chunkIndexes{rg: len(w.groups), col: i,
			ci: c.pidx.columnIndex(&c.cstats), oi: c.pidx.offsetIndex(md.DataPageOffset)})
		c.pidx.reset()
		rg.Columns = append(rg.Columns, pformat.ColumnChunk{FileOffset: start, MetaData: md})
		rg.TotalByteSize += uncomp
		rg.TotalCompressedSize += md.TotalCompressedSize

		clear(c.chunk)
		c.chunk = c.chunk[:0]
		c.chunkValues, c.chunkNulls, c.chunkUncomp = 0, 0, 0
		c.usedDict, c.usedDelta = false, false
		c.dictOn, c.deciding = false, c.str
		c.dropDict()
	}
	w.groups = append(w.groups, rg)
	w.rows += w.rgRows
	w.rgRows, w.buffered, w.held = 0, 0, 0
	if w.spill != nil && w.spillEnd > 0 {
		// The next row group's pages reuse the file from its start.
		if err := w.spill.Truncate(0); err != nil {
			return fmt.Errorf("parquet page spill: %w", err)
		}
		if _, err := w.spill.Seek(0, 0); err != nil {
			return fmt.Errorf("parquet page spill: %w", err)
		}
		w.spillEnd = 0
	}
	return nil
}

// writePages writes a column chunk's pages to the file, reading the
// spilled ones back.
func (w *pageWriter) writePages(pages []page) error {
	for _, p := range pages {
		b := p.b
		if b == nil {
			if cap(w.copyBuf) < p.n {
				w.copyBuf = make([]byte, p.n)
			}
			b = w.copyBuf[:p.n]
			if _, err := w.spill.ReadAt(b, p.off); err != nil {
				return fmt.Errorf("parquet page spill: %w", err)
			}
		}
		if _, err := w.out.Write(b); err != nil {
			return fmt.Errorf("parquet write: %w", err)
		}
	}
	return nil
}

// start writes the file's magic number before its first row group.
func (w *pageWriter) start() error {
	if w.started {
		return nil
	}
	w.started = true
	if _, err := w.out.Write([]byte("PAR1")); err != nil {
		return fmt.Errorf("parquet write: %w", err)
	}
	return nil
}

// close writes the last row group and the footer.
func (w *pageWriter) close() error {
	defer w.release()
	if err := w.flushRowGroup(); err != nil {
		return err
	}
	if err := w.start(); err != nil {
		return err
	}
	if err := writePageIndexes(w.out, w.groups, w.indexes); err != nil {
		return err
	}
	meta := w.meta
	meta.NumRows = w.rows
	meta.RowGroups = w.groups
	if meta.RowGroups == nil {
		meta.RowGroups = []pformat.RowGroup{}
	}
	footer, err := marshalFooter(&meta, w.els)
	if err != nil {
		return err
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	if _, err := w.out.Write(footer); err != nil {
		return fmt.Errorf("parquet write: %w", err)
	}
	return nil
}

// size estimates the file's size so far (written plus buffered pages).
func (w *pageWriter) size() int64 { return w.out.n + w.buffered }
