package format

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// bulkKind selects the columnar fast path of a flat column: its decoded
// page buffers (Page.Data, the dictionary's values, the definition levels)
// are read directly instead of one parquet.Value and one converter call per
// value. Columns of other types, and columns read through an evolution
// cast, keep the value-by-value path.
type bulkKind uint8

const (
	bulkNone   bulkKind = iota
	bulkInt8            // TINYINT over INT32
	bulkInt32           // INT, DATE, TIME over INT32
	bulkInt64           // BIGINT over INT64
	bulkString          // CHAR/VARCHAR over BYTE_ARRAY
)

// bulkKindOf returns the fast path for a flat column of physical kind k read
// as t, or bulkNone.
func bulkKindOf(k parquet.Kind, t sql.DataType) bulkKind {
	switch {
	case t.Root == sql.TypeTinyInt && k == parquet.Int32:
		return bulkInt8
	case (t.Root == sql.TypeInt || t.Root == sql.TypeDate || t.Root == sql.TypeTime) && k == parquet.Int32:
		return bulkInt32
	case t.Root == sql.TypeBigInt && k == parquet.Int64:
		return bulkInt64
	case (t.Root == sql.TypeChar || t.Root == sql.TypeVarChar) && k == parquet.ByteArray:
		return bulkString
	}
	return bulkNone
}

// Type words for boxing decoded values without an allocation each (see
// internal/box): ints from per-batch slabs, strings from headers next to
// or pointing into their page's memory, one allocation per batch or page
// instead of one per value.
var (
	typString = box.TypeOf("")
	typInt32  = box.TypeOf(int32(0))
	typInt64  = box.TypeOf(int64(0))
)

// bulkCol decodes one flat column page by page into boxed values. Its
// pages come from the package's own page decoder (src, see readfast.go)
// when the column chunk is in a form it reads, else from parquet-go.
type bulkCol struct {
	kind   bulkKind
	maxDef byte // 1 for an optional column, 0 for a required one

	src    *chunkReader
	pd, dd pageData // src: the current data page and the dictionary
	// unread: the current page's header is read and its values are not
	// (headPage): fillSel decodes it only for a row it keeps.
	unread  bool
	skipped *int // counts the pages passed over unread, when set
	// ci is the chunk's column index when a filtered reader tests the
	// column by it (FilteredRows); pageNo is the current page's ordinal
	// among the chunk's data pages, its entry in ci.
	ci     *pformat.ColumnIndex
	pageNo int

	pages parquet.Pages
	page  parquet.Page

	defs []byte // definition level per row; nil when every row is non-null
	row  int    // next row of the page
	rows int    // rows in the page
	vi   int    // next non-null value of the page
	idx  []int32
	i32  []int32
	i64  []int64
	data []byte
	offs []uint32

	// dict caches the boxed values of the current dictionary: a
	// dictionary-encoded column boxes each distinct value once.
	dict     parquet.Dictionary
	dictBox  []any // boxed entries, nil until first used
	dictVals encoding.Values

	// Strings of a page are copied into the arena a run at a time: the
	// headers of values [hStart, hEnd) start at hBase.
	strs         arena
	hBase        unsafe.Pointer
	hStart, hEnd int
	islab        []int32
	lslab        []int64
}

// nextPage makes the next data page current.
func (c *bulkCol) nextPage() error {
	if c.src == nil {
		c.hBase, c.hStart, c.hEnd = nil, 0, 0
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		p, err := c.pages.ReadPage()
		if err != nil {
			return err
		}
		c.load(p)
		return nil
	}
	if err := c.headPage(); err != nil {
		return err
	}
	return c.readBody()
}

// headPage makes the next data page of the page decoder current with only
// its header read (unread): its rows are known, its values are not
// decoded until readBody. A page left unread is passed over.
func (c *bulkCol) headPage() error {
	if c.unread {
		c.src.skip()
		c.unread = false
		if c.skipped != nil {
			*c.skipped++
		}
	}
	c.hBase, c.hStart, c.hEnd = nil, 0, 0
	for {
		isDict, rows, err := c.src.head(&c.dd)
		if err != nil {
			return err
		}
		if !isDict {
			c.rows, c.row, c.vi, c.unread = rows, 0, 0, true
			c.pageNo++
			return nil
		}
		c.dictBox = make([]any, c.dd.rows)
	}
}

// readBody decodes the current page, whose header headPage read; rows
// already passed over (c.row) are skipped.
func (c *bulkCol) readBody() error {
	c.unread = false
	if err := c.src.body(&c.pd, c.maxDef); err != nil {
		return err
	}
	if c.pd.rows != c.rows {
		return fmt.Errorf("%w: page of %d rows, header says %d", errPageFormat, c.pd.rows, c.rows)
	}
	c.defs = c.pd.defs
	c.idx = c.pd.idx
	c.vi = c.row
	if c.defs != nil {
		c.vi = 0
		for _, d := range c.defs[:c.row] {
			if d >= c.maxDef {
				c.vi++
			}
		}
	}
	if c.idx == nil {
		c.setFrom(&c.pd)
		if c.pd.hdrs != nil {
			c.hBase, c.hEnd = c.pd.hdrs, c.pd.nhdrs
		}
		return nil
	}
	if c.dictBox == nil {
		return fmt.Errorf("%w: dictionary-encoded page without a dictionary", errPageFormat)
	}
	for _, i := range c.idx {
		if uint32(i) >= uint32(len(c.dictBox)) {
			return fmt.Errorf("%w: dictionary index %d of %d entries", errPageFormat, i, len(c.dictBox))
		}
	}
	c.setFrom(&c.dd)
	return nil
}

func (c *bulkCol) setFrom(p *pageData) {
	c.i32, c.i64, c.data, c.offs = p.i32, p.i64, p.data, p.offs
}

// load makes p the current page.
func (c *bulkCol) load(p parquet.Page) {
	c.page = p
	c.rows, c.row, c.vi = int(p.NumRows()), 0, 0
	c.defs = nil
	if c.maxDef > 0 {
		c.defs = p.DefinitionLevels()
	}
	c.idx = nil
	vals := p.Data()
	if d := p.Dictionary(); d != nil {
		c.idx = vals.Int32()
		if d != c.dict {
			c.dict = d
			c.dictBox = make([]any, d.Len())
			c.dictVals = d.Page().Data()
		}
		c.setValues(&c.dictVals)
		return
	}
	c.setValues(&vals)
}

func (c *bulkCol) setValues(v *encoding.Values) {
	switch c.kind {
	case bulkInt8, bulkInt32:
		c.i32 = v.Int32()
	case bulkInt64:
		c.i64 = v.Int64()
	case bulkString:
		c.data, c.offs = v.ByteArray()
	}
}

// dictValue returns dictionary entry i boxed, boxing it on first use (a
// large dictionary of which a page uses little is not decoded whole).
func (c *bulkCol) dictValue(i int32) any {
	if x := c.dictBox[i]; x != nil {
		return x
	}
	x := c.box(int(i))
	c.dictBox[i] = x
	return x
}

// box returns value i of the current value buffers as an interface.
func (c *bulkCol) box(i int) any {
	switch c.kind {
	case bulkInt8:
		return int8(c.i32[i]) // one-byte values never allocate
	case bulkInt32:
		if len(c.islab) == 0 {
			c.islab = make([]int32, batchRows)
		}
		c.islab[0] = c.i32[i]
		x := box.At(typInt32, unsafe.Pointer(&c.islab[0]))
		c.islab = c.islab[1:]
		return x
	case bulkInt64:
		if len(c.lslab) == 0 {
			c.lslab = make([]int64, batchRows)
		}
		c.lslab[0] = c.i64[i]
		x := box.At(typInt64, unsafe.Pointer(&c.lslab[0]))
		c.lslab = c.lslab[1:]
		return x
	default:
		return c.strs.boxStr(c.data[c.offs[i]:c.offs[i+1]])
	}
}

// fill decodes the next k rows into out[0], out[stride], out[2*stride], ...
// (nil for nulls): the rows of a batch are laid out row-major in one slab.
func (c *bulkCol) fill(out []any, stride, k int) error {
	for n := 0; n < k; {
		if c.row >= c.rows {
			if err := c.nextPage(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			continue
		}
		if c.unread {
			if err := c.readBody(); err != nil {
				return err
			}
		}
		m := min(k-n, c.rows-c.row)
		var defs []byte
		if c.defs != nil {
			defs = c.defs[c.row : c.row+m]
		}
		o := n * stride
		if c.kind == bulkString && c.idx == nil {
			if err := c.fillStrings(out, o, stride, m, defs); err != nil {
				return err
			}
		} else if defs == nil && c.idx == nil && (c.kind == bulkInt32 || c.kind == bulkInt64) {
			if err := c.fillInts(out, o, stride, m); err != nil {
				return err
			}
		} else {
			for j := 0; j < m; j, o = j+1, o+stride {
				if defs != nil && defs[j] < c.maxDef {
					out[o] = nil
					continue
				}
				if c.idx != nil {
					out[o] = c.dictValue(c.idx[c.vi])
				} else {
					out[o] = c.box(c.vi)
				}
				c.vi++
			}
		}
		c.row += m
		n += m
	}
	return nil
}

// fillSel is fill of the rows marked in pass, boxed into out[o],
// out[o+stride], ... in order; the other rows are skipped unboxed, and a
// page none of whose rows is kept is not decoded (nor read) at all.
func (c *bulkCol) fillSel(out []any, o, stride int, pass []bool) error {
	for n := 0; n < len(pass); {
		if c.row >= c.rows {
			var err error
			if c.src != nil {
				err = c.headPage()
			} else {
				err = c.nextPage()
			}
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			continue
		}
		m := min(len(pass)-n, c.rows-c.row)
		if c.unread {
			if !slices.Contains(pass[n:n+m], true) {
				c.row += m
				n += m
				continue
			}
			if err := c.readBody(); err != nil {
				return err
			}
		}
		var defs []byte
		if c.defs != nil {
			defs = c.defs[c.row : c.row+m]
		}
		for j, p := range pass[n : n+m] {
			null := defs != nil && defs[j] < c.maxDef
			if !p {
				if !null {
					c.vi++
				}
				continue
			}
			if !null {
				out[o] = c.boxAt(c.vi)
				c.vi++
			}
			o += stride
		}
		c.row += m
		n += m
	}
	return nil
}

// boxAt returns the page's non-null value vi boxed (see fill).
func (c *bulkCol) boxAt(vi int) any {
	switch {
	case c.idx != nil:
		return c.dictValue(c.idx[vi])
	case c.kind != bulkString:
		return c.box(vi)
	case c.hBase != nil && vi >= c.hStart && vi < c.hEnd:
		return box.At(typString, unsafe.Add(c.hBase, (vi-c.hStart)*strHeader))
	}
	return c.strs.boxStr(c.data[c.offs[vi]:c.offs[vi+1]])
}

// peek sets *at to the value index of each of the next k rows of the
// current page without consuming them: -1 for a null, else the index of
// its value in the page (or, dictionary-encoded, in the dictionary). The
// page must hold k more rows.
func (c *bulkCol) peek(at *[]int32, k int) error {
	a := grow(*at, k)
	*at = a
	vi := c.vi
	for j := range a {
		if c.defs != nil && c.defs[c.row+j] < c.maxDef {
			a[j] = -1
			continue
		}
		if c.idx != nil {
			a[j] = c.idx[vi]
		} else {
			a[j] = int32(vi)
		}
		vi++
	}
	if c.idx != nil || vi == c.vi {
		return nil // indexes were checked against the dictionary (nextPage)
	}
	have := 0
	switch c.kind {
	case bulkInt8, bulkInt32:
		have = len(c.i32)
	case bulkInt64:
		have = len(c.i64)
	default:
		have = len(c.offs) - 1
		if c.src != nil && c.pd.hdrs != nil {
			have = c.pd.nhdrs
		}
	}
	if vi > have {
		return fmt.Errorf("%w: more rows than values", errPageFormat)
	}
	return nil
}

// holds reports whether the value at index x of the current page (see
// peek; -1 null) passes p (no Or), as Keep tests it boxed.
func (c *bulkCol) holds(p *Pred, x int32) bool {
	switch {
	case p.IsNull:
		return x < 0
	case x < 0:
		return false
	}
	switch c.kind {
	case bulkString:
		return p.hasStr(c.strAt(x))
	case bulkInt64:
		return p.hasInt(c.i64[x])
	case bulkInt8:
		return p.hasInt(int64(int8(c.i32[x])))
	}
	return p.hasInt(int64(c.i32[x]))
}

// strAt is string value x of the current page (or dictionary): from the
// values and offsets, or, for a PLAIN page whose strings are described
// only by their headers (pageData.plainHeaders), from its header.
func (c *bulkCol) strAt(x int32) []byte {
	if int(x)+1 < len(c.offs) {
		return c.data[c.offs[x]:c.offs[x+1]]
	}
	if c.idx == nil && c.src != nil && c.pd.hdrs != nil && int(x) < c.pd.nhdrs {
		s := *(*string)(unsafe.Add(c.pd.hdrs, int(x)*strHeader))
		return unsafe.Slice(unsafe.StringData(s), len(s))
	}
	panic(fmt.Errorf("%w: string value %d of a page", errPageFormat, x))
}

// fillInts boxes the next m values of a page of non-null INT32 or INT64
// values into out[o], out[o+stride], ...: one copy into the slab, then a
// loop with no per-value decisions.
func (c *bulkCol) fillInts(out []any, o, stride, m int) error {
	if c.kind == bulkInt32 {
		if c.vi+m > len(c.i32) {
			return fmt.Errorf("%w: more rows than values", errPageFormat)
		}
		if len(c.islab) < m {
			c.islab = make([]int32, max(batchRows, m))
		}
		s := c.islab[:m]
		copy(s, c.i32[c.vi:c.vi+m])
		for j := range s {
			out[o] = box.At(typInt32, unsafe.Pointer(&s[j]))
			o += stride
		}
		c.islab = c.islab[m:]
	} else {
		if c.vi+m > len(c.i64) {
			return fmt.Errorf("%w: more rows than values", errPageFormat)
		}
		if len(c.lslab) < m {
			c.lslab = make([]int64, max(batchRows, m))
		}
		s := c.lslab[:m]
		copy(s, c.i64[c.vi:c.vi+m])
		for j := range s {
			out[o] = box.At(typInt64, unsafe.Pointer(&s[j]))
			o += stride
		}
		c.lslab = c.lslab[m:]
	}
	c.vi += m
	return nil
}

// fillStrings boxes the strings of the next m rows of a non-dictionary
// page into out[o], out[o+stride], ...
func (c *bulkCol) fillStrings(out []any, o, stride, m int, defs []byte) error {
	if defs == nil && c.vi+m <= c.hEnd {
		// No nulls and every header built (a page from the page
		// decoder): nothing to decide per value.
		p := unsafe.Add(c.hBase, (c.vi-c.hStart)*strHeader)
		for j := 0; j < m; j, o = j+1, o+stride {
			out[o] = box.At(typString, unsafe.Add(p, j*strHeader))
		}
		c.vi += m
		return nil
	}
	nvals := len(c.offs) - 1
	for j := 0; j < m; j, o = j+1, o+stride {
		if defs != nil && defs[j] < c.maxDef {
			out[o] = nil
			continue
		}
		if c.vi >= c.hEnd {
			if c.vi >= nvals {
				return fmt.Errorf("%w: more rows than values", errPageFormat)
			}
			c.hBase = c.strs.run(c.data, c.offs, c.vi, min(c.vi+m-j, nvals))
			c.hStart, c.hEnd = c.vi, c.vi+c.strs.n
		}
		out[o] = box.At(typString, unsafe.Add(c.hBase, (c.vi-c.hStart)*strHeader))
		c.vi++
	}
	return nil
}

func (c *bulkCol) close() {
	if c.unread && c.skipped != nil {
		*c.skipped++
	}
	c.unread = false
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// allocNoZero returns an empty byte slice of capacity n whose memory is
// not zeroed first: arena chunks are written before they are read, and
// zeroing them cost as much as copying the strings in. strings.Builder's
// Grow is the standard library's way to such memory (it allocates
// without zeroing because a Builder only exposes bytes it has written);
// the Builder is dropped at once and the chunk is only ever reached
// through the returned slice and the strings cut from it.
func allocNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	p := unsafe.StringData(b.String())
	if p == nil {
		return make([]byte, 0, n)
	}
	return unsafe.Slice(p, n)[:0]
}

// strHeader is the size of a string header.
const strHeader = int(unsafe.Sizeof(""))

// maxSmallAlloc is the largest allocation Go serves from its size classes
// (32 KiB less the malloc header): anything larger is a "large object",
// allocated and zeroed page by page under the heap lock, which costs
// several times more per byte. Arena chunks and row slabs stay within it.
const maxSmallAlloc = 32<<10 - 8

// arenaChunk is the size of an arena chunk: a retained string keeps at
// most this much memory alive.
const arenaChunk = maxSmallAlloc

// run copies the string values [v0, v1) of data/offs (value i is
// data[offs[i]:offs[i+1]]), or as many of them as fit the current chunk,
// into the arena with one copy of their bytes, and builds their headers
// in front of the bytes. It returns the first header and sets a.n to the
// number of values copied (at least one). The chunk is a []byte, so the
// collector never scans it; the headers' pointers refer into the same
// chunk, and any interface pointing at a header keeps it alive. Chunk
// bytes are written once, before the values are handed out.
func (a *arena) run(data []byte, offs []uint32, v0, v1 int) unsafe.Pointer {
	need := func(n int) int { return strHeader*n + int(offs[v0+n]-offs[v0]) }
	fits := func(avail int) int { // the most values [v0, v0+n) that fit avail bytes
		lo, hi := 0, v1-v0
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if need(mid) <= avail {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	start := (len(a.buf) + 7) &^ 7 // headers are word aligned
	n := v1 - v0
	if start > cap(a.buf) || need(n) > cap(a.buf)-start {
		n = 0
		if start <= cap(a.buf) {
			n = fits(cap(a.buf) - start)
		}
		if n == 0 {
			a.buf = allocNoZero(max(arenaChunk, need(1)))
			start = 0
			n = fits(cap(a.buf))
		}
	}
	hdrs := start
	body := start + strHeader*n
	size := int(offs[v0+n] - offs[v0])
	a.buf = a.buf[:body+size]
	copy(a.buf[body:], data[offs[v0]:offs[v0+n]])
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.buf))) + uintptr(body) - uintptr(offs[v0])
	h := unsafe.Slice((*uintptr)(unsafe.Pointer(&a.buf[hdrs])), 2*n)
	for i := 0; i < n; i++ {
		lo, hi := offs[v0+i], offs[v0+i+1]
		if lo == hi {
			h[2*i], h[2*i+1] = 0, 0 // "" points nowhere, not past the chunk's end
			continue
		}
		h[2*i], h[2*i+1] = base+uintptr(lo), uintptr(hi-lo)
	}
	a.n = n
	return unsafe.Pointer(&a.buf[hdrs])
}

// boxStr returns b as a string in an interface value, with the string's
// header and bytes copied next to each other into the arena: no allocation
// per value, and no pointer-carrying slab for the garbage collector to scan
// or for write barriers to guard.
//
// Why this is safe: the interface's data word points at the header inside
// the arena chunk, which keeps the chunk alive (Go's collector does not
// move objects and honours interior pointers). The chunk is a []byte, so
// the collector never scans it, and it need not: the header's only pointer
// refers to the same chunk. Chunk bytes are written once, before the value
// is handed out, and never again.
func (a *arena) boxStr(b []byte) any {
	if len(b) == 0 {
		return ""
	}
	if len(b) > 4096 {
		return string(b)
	}
	const hdr = int(unsafe.Sizeof(""))
	start := (len(a.buf) + 7) &^ 7 // headers are word aligned
	if cap(a.buf)-start < hdr+len(b) {
		a.buf = allocNoZero(arenaChunk)
		start = 0
	}
	a.buf = a.buf[:start+hdr+len(b)]
	data := a.buf[start+hdr:]
	copy(data, b)
	h := (*[2]uintptr)(unsafe.Pointer(&a.buf[start]))
	h[0], h[1] = uintptr(unsafe.Pointer(&data[0])), uintptr(len(b))
	return box.At(typString, unsafe.Pointer(&a.buf[start]))
}
