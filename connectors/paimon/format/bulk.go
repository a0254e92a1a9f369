package format

import (
	"io"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
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

// eface is the runtime layout of an interface{} value.
type eface struct{ typ, data unsafe.Pointer }

var (
	typString = typeOf("")
	typInt32  = typeOf(int32(0))
	typInt64  = typeOf(int64(0))
)

func typeOf(x any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&x)).typ }

// boxAt makes an interface value of dynamic type typ whose data is *p,
// without the allocation a conversion (convTstring, convT32, convT64)
// makes. The Go runtime stores non-pointer-shaped values behind a pointer
// to an immutable copy; p points into a slab that is written once, before
// boxing, and never again, so the interface observes an immutable value
// and the slab stays alive while any interface refers to it. This is what
// turns one heap allocation per string into one per 256 strings.
func boxAt(typ unsafe.Pointer, p unsafe.Pointer) any {
	var x any
	e := (*eface)(unsafe.Pointer(&x))
	e.typ, e.data = typ, p
	return x
}

// bulkCol decodes one flat column page by page into boxed values.
type bulkCol struct {
	kind   bulkKind
	maxDef byte // 1 for an optional column, 0 for a required one

	pages parquet.Pages
	page  parquet.Page
	defs  []byte // definition level per row; nil when every row is non-null
	row   int    // next row of the page
	rows  int    // rows in the page
	vi    int    // next non-null value of the page
	idx   []int32
	i32   []int32
	i64   []int64
	data  []byte
	offs  []uint32

	// dict caches the boxed values of the current dictionary: a
	// dictionary-encoded column boxes each distinct value once.
	dict     parquet.Dictionary
	dictBox  []any // boxed entries, nil until first used
	dictVals encoding.Values

	strs  arena
	islab []int32
	lslab []int64
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
		x := boxAt(typInt32, unsafe.Pointer(&c.islab[0]))
		c.islab = c.islab[1:]
		return x
	case bulkInt64:
		if len(c.lslab) == 0 {
			c.lslab = make([]int64, batchRows)
		}
		c.lslab[0] = c.i64[i]
		x := boxAt(typInt64, unsafe.Pointer(&c.lslab[0]))
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
			if c.page != nil {
				parquet.Release(c.page)
				c.page = nil
			}
			p, err := c.pages.ReadPage()
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return err
			}
			c.load(p)
			continue
		}
		m := min(k-n, c.rows-c.row)
		var defs []byte
		if c.defs != nil {
			defs = c.defs[c.row : c.row+m]
		}
		o := n * stride
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
		c.row += m
		n += m
	}
	return nil
}

func (c *bulkCol) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
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
		a.buf = make([]byte, 0, 64<<10)
		start = 0
	}
	a.buf = a.buf[:start+hdr+len(b)]
	data := a.buf[start+hdr:]
	copy(data, b)
	h := (*[2]uintptr)(unsafe.Pointer(&a.buf[start]))
	h[0], h[1] = uintptr(unsafe.Pointer(&data[0])), uintptr(len(b))
	return boxAt(typString, unsafe.Pointer(&a.buf[start]))
}
