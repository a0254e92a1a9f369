package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
)

// The page decoder below reads the column chunks of flat INT32/INT64/
// BYTE_ARRAY columns itself instead of through parquet-go's Page and
// Values machinery. parquet-go decompresses a page into a pooled buffer,
// decodes it into a second buffer of values plus offsets, and the reader
// then copied every string a third time, one small copy per value. Here a
// page of PLAIN or DELTA_LENGTH strings is decompressed once, into memory
// of its own that its strings then point into (see finish); other pages
// into one reused buffer; levels, lengths and indexes are decoded in tight
// loops. It covers what parquet-mr and sqlrun's page writer produce for
// such columns — V1 and V2 data pages, any codec parquet-go knows, RLE or
// BIT_PACKED definition levels, PLAIN, DELTA_LENGTH_BYTE_ARRAY and
// dictionary encodings — and a chunk whose metadata names any other
// encoding is read through parquet-go. Page CRCs are checked, as
// parquet-go checks them.

// errPageFormat is wrapped by errors of the page decoder: a page that
// contradicts its header or the chunk's metadata.
var errPageFormat = errors.New("malformed parquet page")

// fastEncodings are the encodings the page decoder handles.
var fastEncodings = map[pformat.Encoding]bool{
	pformat.Plain: true, pformat.RLE: true, pformat.BitPacked: true,
	pformat.PlainDictionary: true, pformat.RLEDictionary: true,
	pformat.DeltaLengthByteArray: true,
}

// maxPageValues bounds a page's value count (writers cut pages at 20,000
// rows by default): the decoder sizes buffers by it, 17 bytes a value, and
// a corrupt header must not make that an allocation the runtime cannot
// serve, which would end the process instead of failing the read.
const maxPageValues = 1 << 25

// usePageDecoder switches the page decoder on; tests turn it off to read
// the same files through parquet-go and compare.
var usePageDecoder = true

// chunkReader iterates the pages of one column chunk.
type chunkReader struct {
	ra       io.ReaderAt
	off, end int64
	codec    compress.Codec
	kind     parquet.Kind
	left     int64 // values of the chunk not yet read: bounds a page's count

	hdrBuf []byte
	comp   []byte // compressed page, reused
	page   []byte // decompressed page, reused
	// lean: every page is decompressed into page, strings included (see
	// rowReader.lean), and shared, when set, replaces comp: the chunk
	// readers of one row reader decompress one page at a time.
	lean   bool
	shared *[]byte
	// split: a lean PLAIN page of strings stays as it is, each value
	// after its length, described by offs and ends (pageData.ends), not
	// moved together; for readers of pageData that take ends (the column
	// path), not for bulkCol.
	split bool
	hdr   pformat.PageHeader
	// pending: head read hdr, of hn bytes, and the page's size bytes
	// that follow it are not read yet (body or skip).
	pending  bool
	hn, size int64
	tr       thrift.BytesReader
	dec      *thrift.Decoder
}

// newChunkReader returns a reader of column chunk md (of a row group of
// rows rows) read from ra, or nil when the chunk uses something the page
// decoder does not handle.
func newChunkReader(ra io.ReaderAt, md *pformat.ColumnMetaData, rows int64, kind parquet.Kind) *chunkReader {
	if !usePageDecoder {
		return nil
	}
	switch kind {
	case parquet.Int32, parquet.Int64, parquet.ByteArray:
	default:
		return nil
	}
	for _, e := range md.Encoding {
		if !fastEncodings[e] {
			return nil
		}
	}
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	if start <= 0 || md.TotalCompressedSize <= 0 {
		return nil
	}
	codec := parquet.LookupCompressionCodec(md.Codec)
	if codec.CompressionCodec() != md.Codec {
		return nil // unsupported codec: parquet-go reports it
	}
	if md.Codec == pformat.Zstd {
		codec = zstdReadCodec{}
	}
	tr := new(thrift.CompactProtocol).NewReaderFromBytes(nil)
	if md.NumValues != rows {
		return nil // a flat column has one value per row; else let parquet-go judge
	}
	return &chunkReader{ra: ra, off: start, end: start + md.TotalCompressedSize, codec: codec, kind: kind,
		left: md.NumValues, tr: tr, dec: thrift.NewDecoder(tr)}
}

// pageData is one decoded page: definition levels and values (or
// dictionary indexes), in buffers that the next page reuses.
type pageData struct {
	dict bool    // a dictionary page
	rows int     // values including nulls (data pages)
	defs []byte  // per row; nil when the column is required or no value is null
	idx  []int32 // dictionary indexes of the non-null values, nil if not dictionary-encoded
	i32  []int32
	i64  []int64
	data []byte   // BYTE_ARRAY values, concatenated
	offs []uint32 // value i is data[offs[i]:offs[i+1]]
	// ends, when set, ends the values instead: value i is
	// data[offs[i]:ends[i]] (a PLAIN page read in place, chunkReader.split).
	ends   []uint32
	endBuf []uint32 // ends' buffer, kept from page to page

	// hdrs, when set, points at the string headers of the page's values
	// (see chunkReader.finish).
	hdrs  unsafe.Pointer
	nhdrs int

	defBuf  []byte
	idxBuf  []int32
	dataBuf []byte // dictionary pages: the values' own copy
}

// readHeader decodes the next page header; it returns io.EOF at the end of
// the chunk.
func (c *chunkReader) readHeader() (int, error) {
	if c.off >= c.end {
		return 0, io.EOF
	}
	for size := int64(256); ; size *= 4 {
		n := min(size, c.end-c.off)
		if int64(cap(c.hdrBuf)) < n {
			c.hdrBuf = make([]byte, n)
		}
		buf := c.hdrBuf[:n]
		if _, err := c.ra.ReadAt(buf, c.off); err != nil && !(err == io.EOF && len(buf) > 0) {
			return 0, err
		}
		// Lengths the bytes cannot hold would make the decoder allocate
		// them (see checkCompact): read more, or fail at the chunk's end.
		if _, err := checkCompact(buf); err != nil {
			if errors.Is(err, errThriftTruncated) && n < c.end-c.off && size <= 1<<24 {
				continue
			}
			return 0, fmt.Errorf("%w: page header: %v", errPageFormat, err)
		}
		c.hdr = pformat.PageHeader{}
		c.tr.ResetBytes(buf)
		err := c.dec.Decode(&c.hdr)
		if err == nil {
			return c.tr.BytesRead(), nil
		}
		if n == c.end-c.off || size > 1<<24 {
			return 0, fmt.Errorf("%w: page header: %v", errPageFormat, err)
		}
	}
}

// next decodes the next page: a data page into p, a dictionary page into
// dict (its values are kept until the next dictionary page, so they are
// copied out of the reused page buffer). It returns io.EOF at the end of
// the chunk.
func (c *chunkReader) next(p, dict *pageData, maxDef byte) (isDict bool, err error) {
	isDict, _, err = c.head(dict)
	if err != nil || isDict {
		return isDict, err
	}
	return false, c.body(p, maxDef)
}

// head reads the header of the next page (index pages and unknown page
// types, which carry no rows, are passed over): a dictionary page is
// decoded into dict, as next does; of a data page it returns the value
// count (a flat column's rows) and leaves the page unread, for body to
// decode or skip to pass over. It returns io.EOF at the end of the chunk.
func (c *chunkReader) head(dict *pageData) (isDict bool, rows int, err error) {
	if c.pending {
		return false, 0, fmt.Errorf("%w: page header read twice", errPageFormat)
	}
	for {
		hn, err := c.readHeader()
		if err != nil {
			return false, 0, err
		}
		h := &c.hdr
		size := int64(h.CompressedPageSize)
		if size < 0 || h.UncompressedPageSize < 0 || c.off+int64(hn)+size > c.end {
			return false, 0, fmt.Errorf("%w: page of %d bytes past the column chunk", errPageFormat, size)
		}
		// A page's value count sizes buffers: a corrupt header must not
		// make them huge, so it is checked against what the chunk has left
		// (and a dictionary's against its bytes: 4 at least per value).
		var nv int64
		switch h.Type {
		case pformat.DataPage:
			nv = int64(h.DataPageHeader.V.NumValues)
		case pformat.DataPageV2:
			nv = int64(h.DataPageHeaderV2.V.NumValues)
		case pformat.DictionaryPage:
			nv = int64(h.DictionaryPageHeader.V.NumValues)
			if nv*4 > int64(h.UncompressedPageSize) {
				return false, 0, fmt.Errorf("%w: dictionary of %d values in %d bytes", errPageFormat, nv, h.UncompressedPageSize)
			}
		default:
			// Index pages and unknown page types carry no rows.
			c.off += int64(hn) + size
			continue
		}
		if nv < 0 || nv > maxPageValues || (h.Type != pformat.DictionaryPage && nv > c.left) {
			return false, 0, fmt.Errorf("%w: page of %d values, %d left in the column chunk", errPageFormat, nv, c.left)
		}
		c.hn, c.size, c.pending = int64(hn), size, true
		if h.Type != pformat.DictionaryPage {
			c.left -= nv
			return false, int(nv), nil
		}
		comp, err := c.compressed()
		if err != nil {
			return false, 0, err
		}
		d := &h.DictionaryPageHeader.V
		page, err := c.decompress(comp, 0, 0)
		if err != nil {
			return false, 0, err
		}
		dict.dict, dict.rows, dict.defs, dict.idx, dict.hdrs = true, int(d.NumValues), nil, nil, nil
		if err := c.values(dict, page, int(d.NumValues), pformat.Plain); err != nil {
			return false, 0, err
		}
		dict.dataBuf = append(dict.dataBuf[:0], dict.data...)
		dict.data = dict.dataBuf
		return true, 0, nil
	}
}

// skip passes over the data page whose header head read, unread.
func (c *chunkReader) skip() {
	if c.pending {
		c.off += c.hn + c.size
		c.pending = false
	}
}

// compressed reads the bytes of the page whose header head read (and
// checks their CRC) and moves past the page.
func (c *chunkReader) compressed() ([]byte, error) {
	if !c.pending {
		return nil, fmt.Errorf("%w: page body without a header", errPageFormat)
	}
	c.pending = false
	size := c.size
	cb := &c.comp
	if c.shared != nil {
		cb = c.shared
	}
	if int64(cap(*cb)) < size {
		*cb = make([]byte, size)
	}
	comp := (*cb)[:size]
	if _, err := c.ra.ReadAt(comp, c.off+c.hn); err != nil && !(err == io.EOF && size > 0) {
		return nil, err
	}
	c.off += c.hn + size
	if c.hdr.CRC != 0 && uint32(c.hdr.CRC) != crc32.ChecksumIEEE(comp) {
		return nil, fmt.Errorf("%w: crc32 checksum mismatch", errPageFormat)
	}
	return comp, nil
}

// body decodes the data page whose header head read into p.
func (c *chunkReader) body(p *pageData, maxDef byte) error {
	comp, err := c.compressed()
	if err != nil {
		return err
	}
	h := &c.hdr
	size := int64(len(comp))
	switch h.Type {
	case pformat.DataPage:
		d := &h.DataPageHeader.V
		reserve := c.reserve(int(d.NumValues), d.Encoding)
		buf, err := c.decompress(comp, 0, reserve)
		if err != nil {
			return err
		}
		body, err := c.levels(p, buf[reserve:], int(d.NumValues), maxDef, d.DefinitionLevelEncoding, true)
		if err != nil {
			return err
		}
		return c.finish(p, buf, reserve, body, p.nonNull(maxDef), d.Encoding)
	case pformat.DataPageV2:
		d := &h.DataPageHeaderV2.V
		lv := int64(d.DefinitionLevelsByteLength) + int64(d.RepetitionLevelsByteLength)
		if d.RepetitionLevelsByteLength != 0 || d.DefinitionLevelsByteLength < 0 || lv > size {
			return fmt.Errorf("%w: V2 page levels", errPageFormat)
		}
		reserve := c.reserve(int(d.NumValues), d.Encoding)
		keep := int(lv)
		if d.IsCompressed.Valid && !d.IsCompressed.V {
			keep = len(comp)
		}
		buf, err := c.decompress(comp, keep, reserve)
		if err != nil {
			return err
		}
		page := buf[reserve:]
		if _, err := c.levels(p, page[:lv], int(d.NumValues), maxDef, pformat.RLE, false); err != nil {
			return err
		}
		return c.finish(p, buf, reserve, page[lv:], p.nonNull(maxDef), d.Encoding)
	}
	return fmt.Errorf("%w: page type %s", errPageFormat, h.Type)
}

// reserve returns how many bytes to reserve for string headers in front
// of a data page of n values: a page of non-dictionary strings is
// decompressed into memory of its own, which its strings then point into
// (see finish); other pages reuse one buffer.
func (c *chunkReader) reserve(n int, enc pformat.Encoding) int {
	if c.lean || c.kind != parquet.ByteArray || n < 0 || (enc != pformat.Plain && enc != pformat.DeltaLengthByteArray) {
		return 0
	}
	return strHeader * n
}

// finish decodes the values of a data page and, for a page of strings
// decompressed into buf[reserve:], builds their headers in buf[:reserve].
//
// Why this is safe: buf is one allocation without pointers, so the
// collector never scans it, and it need not: every header points into
// buf itself. An interface whose data word points at a header keeps the
// whole of buf alive (interior pointers count). buf is written here, once,
// before any value is handed out, and never again: the next page gets a
// buffer of its own. The cost is retention: a retained string keeps its
// page (at most a page's uncompressed size plus 16 bytes a value) alive.
func (c *chunkReader) finish(p *pageData, buf []byte, reserve int, body []byte, n int, enc pformat.Encoding) error {
	p.hdrs = nil
	if reserve > 0 && strHeader*n > reserve {
		return fmt.Errorf("%w: %d values in a page of %d", errPageFormat, n, reserve/strHeader)
	}
	if reserve > 0 && enc == pformat.Plain && n > 0 {
		return p.plainHeaders(buf, body, n)
	}
	if err := c.values(p, body, n, enc); err != nil {
		return err
	}
	if reserve == 0 || p.idx != nil || n == 0 {
		return nil
	}
	h := unsafe.Slice((*uintptr)(unsafe.Pointer(&buf[0])), 2*n)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(p.data)))
	offs := p.offs[:n+1]
	for i := 0; i < n; i++ {
		lo, hi := offs[i], offs[i+1]
		if lo == hi {
			h[2*i], h[2*i+1] = 0, 0 // "" points nowhere, not past the page's end
			continue
		}
		h[2*i], h[2*i+1] = base+uintptr(lo), uintptr(hi-lo)
	}
	p.hdrs, p.nhdrs = unsafe.Pointer(&buf[0]), n
	return nil
}

// plainHeaders builds the headers of n PLAIN strings (each after its
// 4-byte length) in buf, pointing at the values where they lie in body,
// a part of buf (see finish): no value is moved. The values are not
// described by data/offs (nothing reads them but through the headers).
func (p *pageData) plainHeaders(buf, body []byte, n int) error {
	p.idx, p.data, p.offs, p.ends = nil, nil, p.offs[:0], nil
	h := unsafe.Slice((*uintptr)(unsafe.Pointer(&buf[0])), 2*n)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(body)))
	r := 0
	for j := 0; j < n; j++ {
		if len(body)-r < 4 {
			return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d", errPageFormat, j)
		}
		l := int(binary.LittleEndian.Uint32(body[r:]))
		r += 4
		if l < 0 || l > len(body)-r {
			return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d of %d bytes", errPageFormat, j, l)
		}
		if l == 0 {
			h[2*j], h[2*j+1] = 0, 0
		} else {
			h[2*j], h[2*j+1] = base+uintptr(r), uintptr(l)
		}
		r += l
	}
	p.hdrs, p.nhdrs = unsafe.Pointer(&buf[0]), n
	return nil
}

// decompress decompresses comp into a page and returns reserve bytes
// followed by the page. With reserve 0 the page is in the reader's reused
// buffer; otherwise it is a new allocation (see finish). The first keep
// bytes of comp are stored uncompressed (V2 levels, or a whole page
// marked uncompressed) and copied as they are.
func (c *chunkReader) decompress(comp []byte, keep, reserve int) ([]byte, error) {
	want := int(c.hdr.UncompressedPageSize)
	if keep > len(comp) || keep > want {
		return nil, fmt.Errorf("%w: levels longer than the page", errPageFormat)
	}
	var dst []byte
	if reserve > 0 {
		dst = allocNoZero(reserve + want + decodeSlack)[:reserve]
	} else {
		if cap(c.page) < want+decodeSlack {
			c.page = make([]byte, 0, want+want/8+decodeSlack)
		}
		dst = c.page[:0]
	}
	dst = append(dst, comp[:keep]...)
	if keep < len(comp) {
		if c.codec.CompressionCodec() == pformat.Uncompressed {
			dst = append(dst, comp[keep:]...)
		} else {
			at := len(dst)
			out, err := c.codec.Decode(dst[at:at], comp[keep:])
			if err != nil {
				return nil, fmt.Errorf("%w: decompress: %v", errPageFormat, err)
			}
			if len(out) > 0 && at < cap(dst) && unsafe.SliceData(out) == unsafe.SliceData(dst[at:cap(dst)]) {
				dst = dst[:at+len(out)] // decoded in place
			} else {
				dst = append(dst[:at], out...)
			}
		}
	}
	if reserve == 0 {
		c.page = dst
	}
	if len(dst)-reserve != want {
		return nil, fmt.Errorf("%w: page is %d bytes uncompressed, header says %d", errPageFormat, len(dst)-reserve, want)
	}
	return dst, nil
}

// decodeSlack is room left past a page's end for the decompressor: the
// zstd decoder copies matches and literals in whole 16- and 32-byte
// blocks where its output buffer has that much room past the frame's end
// (klauspost/compress's compressedBlockOverAlloc), and byte by byte where
// it has not; a buffer sized exactly to the page took the slow copies for
// its last blocks, a third of the decoding of the benchmark's string
// pages.
const decodeSlack = 64

// zstdReadCodec decompresses zstd pages with the package's pool of
// decoders (see decoderPool).
type zstdReadCodec struct{}

func (zstdReadCodec) String() string { return "ZSTD" }

func (zstdReadCodec) CompressionCodec() pformat.CompressionCodec { return pformat.Zstd }

func (zstdReadCodec) Encode(dst, src []byte) ([]byte, error) {
	return nil, errors.New("zstdReadCodec: decoding only")
}

func (zstdReadCodec) Decode(dst, src []byte) ([]byte, error) { return zstdDecoders.Decode(dst, src) }

// nonNull counts the non-null values of the page.
func (p *pageData) nonNull(maxDef byte) int {
	if p.defs == nil {
		return p.rows
	}
	n := 0
	for _, d := range p.defs {
		if d >= maxDef {
			n++
		}
	}
	return n
}

// levels decodes the definition levels of n rows at the start of body
// (with a 4-byte length prefix when prefixed, as V1 pages have them) and
// returns the rest. p.defs stays nil when no value is null.
func (c *chunkReader) levels(p *pageData, body []byte, n int, maxDef byte, enc pformat.Encoding, prefixed bool) ([]byte, error) {
	p.rows, p.dict, p.defs = n, false, nil
	if n < 0 {
		return nil, fmt.Errorf("%w: %d values", errPageFormat, n)
	}
	if maxDef == 0 {
		return body, nil
	}
	width := bits.Len8(maxDef)
	if cap(p.defBuf) < n {
		p.defBuf = make([]byte, n)
	}
	defs := p.defBuf[:n]
	var rest []byte
	switch enc {
	case pformat.RLE:
		lv := body
		if prefixed {
			if len(body) < 4 {
				return nil, fmt.Errorf("%w: definition levels", errPageFormat)
			}
			l := binary.LittleEndian.Uint32(body)
			if uint64(l) > uint64(len(body)-4) {
				return nil, fmt.Errorf("%w: definition levels of %d bytes", errPageFormat, l)
			}
			lv, rest = body[4:4+l], body[4+l:]
		}
		if h, k := binary.Uvarint(lv); k > 0 && h&1 == 0 && h>>1 >= uint64(n) && width <= 8 && len(lv) > k && lv[k] == maxDef {
			// One RLE run of non-null values (how writers encode a page
			// without nulls): nothing to expand.
			return rest, nil
		}
		if err := decodeLevels(lv, width, defs); err != nil {
			return nil, err
		}
	case pformat.BitPacked:
		// The deprecated encoding: bit-packed most significant bit first.
		nb := (n*width + 7) / 8
		if len(body) < nb {
			return nil, fmt.Errorf("%w: definition levels", errPageFormat)
		}
		for j := 0; j < n; j++ {
			var v byte
			for b := 0; b < width; b++ {
				bit := j*width + b
				v = v<<1 | body[bit>>3]>>(7-bit&7)&1
			}
			defs[j] = v
		}
		rest = body[nb:]
	default:
		return nil, fmt.Errorf("%w: definition level encoding %s", errPageFormat, enc)
	}
	for _, d := range defs {
		if d < maxDef {
			p.defs = defs
			break
		}
	}
	return rest, nil
}

// decodeLevels decodes len(out) values of the RLE/bit-packed hybrid
// encoding (bit width w ≤ 8) into out.
func decodeLevels(src []byte, w int, out []byte) error {
	return decodeHybrid(src, w, out, "levels")
}

// decodeIndexes decodes len(out) dictionary indexes (RLE/bit-packed
// hybrid of width w ≤ 32) into out.
func decodeIndexes(src []byte, w int, out []int32) error {
	if w == 0 {
		// A one-entry dictionary: every index is 0, whatever runs follow.
		clear(out)
		return nil
	}
	return decodeHybrid(src, w, out, "dictionary indexes")
}

// decodeHybrid decodes len(out) values of width w from the RLE/bit-packed
// hybrid encoding; what names the data in errors.
func decodeHybrid[T byte | int32](src []byte, w int, out []T, what string) error {
	n := 0
	for n < len(out) {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return fmt.Errorf("%w: %s run header", errPageFormat, what)
		}
		src = src[k:]
		if h&1 == 0 { // RLE run: a count, then the value in (w+7)/8 bytes
			run := int(min(h>>1, uint64(len(out)-n)))
			nb := (w + 7) / 8
			if len(src) < nb {
				return fmt.Errorf("%w: %s run", errPageFormat, what)
			}
			var v uint32
			for b := 0; b < nb; b++ {
				v |= uint32(src[b]) << (8 * b)
			}
			src = src[nb:]
			b := out[n : n+run]
			for j := range b {
				b[j] = T(v)
			}
			n += run
			continue
		}
		// Bit-packed run: groups of 8 values, w bits each, least
		// significant bit first.
		groups := int(min(h>>1, uint64(len(src))))
		nb := groups * w
		if len(src) < nb {
			return fmt.Errorf("%w: %s bit-packed run", errPageFormat, what)
		}
		cnt := min(groups*8, len(out)-n)
		mask := uint64(1)<<w - 1
		packed := src[:nb]
		for j, o := 0, out[n:n+cnt]; j < len(o); j++ {
			bit := j * w
			o[j] = T(load64(packed, bit>>3) >> (bit & 7) & mask)
		}
		src = src[nb:]
		n += cnt
	}
	return nil
}

// load64 reads 8 little-endian bytes at i, zero-padded past the end.
func load64(src []byte, i int) uint64 {
	if i+8 <= len(src) {
		return binary.LittleEndian.Uint64(src[i:])
	}
	var b [8]byte
	if i < len(src) {
		copy(b[:], src[i:])
	}
	return binary.LittleEndian.Uint64(b[:])
}

// values decodes n non-null values of encoding enc from body into p.
func (c *chunkReader) values(p *pageData, body []byte, n int, enc pformat.Encoding) error {
	p.idx, p.ends = nil, nil
	switch enc {
	case pformat.RLEDictionary, pformat.PlainDictionary:
		if p.dict {
			break // a PLAIN_DICTIONARY dictionary page is PLAIN
		}
		if cap(p.idxBuf) < n {
			p.idxBuf = make([]int32, n)
		}
		p.idx = p.idxBuf[:n]
		if n == 0 {
			return nil
		}
		if len(body) < 1 || body[0] > 32 {
			return fmt.Errorf("%w: dictionary index width", errPageFormat)
		}
		return decodeIndexes(body[1:], int(body[0]), p.idx)
	case pformat.Plain:
	case pformat.DeltaLengthByteArray:
		if c.kind != parquet.ByteArray {
			return fmt.Errorf("%w: %s for %s", errPageFormat, enc, c.kind)
		}
		return p.deltaLength(body, n)
	default:
		return fmt.Errorf("%w: encoding %s", errPageFormat, enc)
	}
	switch c.kind {
	case parquet.Int32:
		if len(body) < 4*n {
			return fmt.Errorf("%w: %d INT32 values in %d bytes", errPageFormat, n, len(body))
		}
		p.i32 = grow(p.i32, n)
		for j := range p.i32 {
			p.i32[j] = int32(binary.LittleEndian.Uint32(body[4*j:]))
		}
	case parquet.Int64:
		if len(body) < 8*n {
			return fmt.Errorf("%w: %d INT64 values in %d bytes", errPageFormat, n, len(body))
		}
		p.i64 = grow(p.i64, n)
		for j := range p.i64 {
			p.i64[j] = int64(binary.LittleEndian.Uint64(body[8*j:]))
		}
	default:
		if c.split && !p.dict {
			return p.plainInPlace(body, n)
		}
		// PLAIN BYTE_ARRAY: a 4-byte length before each value. The
		// values are moved together in place (body is the reader's own
		// buffer) so that they are contiguous like DELTA_LENGTH's.
		p.offs = grow(p.offs, n+1)
		w, r := 0, 0
		for j := 0; j < n; j++ {
			if len(body)-r < 4 {
				return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d", errPageFormat, j)
			}
			l := int(binary.LittleEndian.Uint32(body[r:]))
			r += 4
			if l < 0 || l > len(body)-r {
				return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d of %d bytes", errPageFormat, j, l)
			}
			p.offs[j] = uint32(w)
			w += copy(body[w:], body[r:r+l])
			r += l
		}
		p.offs[n] = uint32(w)
		p.data = body[:w]
	}
	return nil
}

// plainInPlace describes n PLAIN BYTE_ARRAY values (each after its
// 4-byte length) where they lie in body: value i is
// body[offs[i]:ends[i]].
func (p *pageData) plainInPlace(body []byte, n int) error {
	p.offs = grow(p.offs, n+1)
	p.endBuf = grow(p.endBuf, n)
	p.ends = p.endBuf
	r := 0
	for j := 0; j < n; j++ {
		if len(body)-r < 4 {
			return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d", errPageFormat, j)
		}
		l := int(binary.LittleEndian.Uint32(body[r:]))
		r += 4
		if l < 0 || l > len(body)-r {
			return fmt.Errorf("%w: PLAIN BYTE_ARRAY value %d of %d bytes", errPageFormat, j, l)
		}
		p.offs[j] = uint32(r)
		r += l
		p.ends[j] = uint32(r)
	}
	p.offs[n] = uint32(r)
	p.data = body[:r]
	return nil
}

// deltaLength decodes n DELTA_LENGTH_BYTE_ARRAY values: the lengths in
// DELTA_BINARY_PACKED, then the bytes concatenated.
func (p *pageData) deltaLength(body []byte, n int) error {
	p.offs = grow(p.offs, n+1)
	rest, err := decodeDeltaLengths(body, p.offs)
	if err != nil {
		return err
	}
	if end := p.offs[n]; uint64(end) > uint64(len(rest)) {
		return fmt.Errorf("%w: %d bytes of values in %d", errPageFormat, end, len(rest))
	}
	p.data = rest[:p.offs[n]]
	return nil
}

// decodeDeltaLengths decodes len(out)-1 DELTA_BINARY_PACKED lengths as
// offsets: out[0] = 0 and out[i+1] = out[i] + length i. It returns the
// bytes after the encoded lengths. Lengths must be non-negative and sum
// below 4 GiB.
func decodeDeltaLengths(src []byte, out []uint32) ([]byte, error) {
	bad := func(what string) ([]byte, error) {
		return nil, fmt.Errorf("%w: delta lengths %s", errPageFormat, what)
	}
	var hdr [3]uint64
	for i := range hdr {
		v, k := binary.Uvarint(src)
		if k <= 0 {
			return bad("header")
		}
		hdr[i], src = v, src[k:]
	}
	block, minis, total := hdr[0], hdr[1], hdr[2]
	first, k := binary.Varint(src)
	if k <= 0 {
		return bad("header")
	}
	src = src[k:]
	n := len(out) - 1
	if total != uint64(n) {
		return bad(fmt.Sprintf("count %d, expected %d", total, n))
	}
	if minis == 0 || block == 0 || block%minis != 0 || block > 1<<16 || (block/minis)%8 != 0 {
		return bad("block size")
	}
	out[0] = 0
	if n == 0 {
		return src, nil
	}
	per := int(block / minis)
	// sum is the running offset; prev the last length. Both stay in
	// int64: a length is checked to be in [0, 2^32) before it is added,
	// and the sum against 2^32.
	const limit = 1 << 32
	if first < 0 || first >= limit {
		return bad("value")
	}
	prev, sum := first, first
	out[1] = uint32(sum)
	var tmp [64]uint64
	for j := 1; j < n; {
		minD, k := binary.Varint(src)
		if k <= 0 {
			return bad("block header")
		}
		src = src[k:]
		if len(src) < int(minis) {
			return bad("bit widths")
		}
		widths := src[:minis]
		src = src[minis:]
		for m := 0; m < int(minis) && j < n; m++ {
			w := int(widths[m])
			if w > 64 {
				return bad("bit width")
			}
			nb := per * w / 8
			if len(src) < nb {
				return bad("miniblock")
			}
			mb := src[:nb]
			src = src[nb:]
			if w == 0 {
				// Every delta is minD: equal lengths, the common case.
				cnt := min(per, n-j)
				if minD == 0 && prev >= 0 {
					if sum+int64(cnt)*prev >= limit {
						return bad("sum")
					}
					for e := j + 1 + cnt; j+1 < e; j++ {
						sum += prev
						out[j+1] = uint32(sum)
					}
					continue
				}
				for c := 0; c < cnt; c++ {
					prev += minD
					if prev < 0 || prev >= limit || sum+prev >= limit {
						return bad("value")
					}
					sum += prev
					out[j+1] = uint32(sum)
					j++
				}
				continue
			}
			for o := 0; o < per && j < n; o += len(tmp) {
				cnt := min(len(tmp), per-o, n-j)
				unpack64(mb, w, o, tmp[:cnt])
				for _, d := range tmp[:cnt] {
					prev += minD + int64(d)
					if prev < 0 || prev >= limit || sum+prev >= limit {
						return bad("value")
					}
					sum += prev
					out[j+1] = uint32(sum)
					j++
				}
			}
		}
	}
	return src, nil
}

// unpack64 unpacks len(out) values of width w ≤ 64 starting at value
// index from of the little-endian bit-packed src.
func unpack64(src []byte, w, from int, out []uint64) {
	if w == 0 {
		clear(out)
		return
	}
	if w <= 56 {
		mask := uint64(1)<<w - 1
		for j := range out {
			bit := (from + j) * w
			out[j] = load64(src, bit>>3) >> (bit & 7) & mask
		}
		return
	}
	for j := range out {
		var v uint64
		bit := (from + j) * w
		for b := 0; b < w; b++ {
			v |= uint64(src[(bit+b)>>3]>>((bit+b)&7)&1) << b
		}
		out[j] = v
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
