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
	dict    parquet.Dictionary
	dictBox []any

	strs  arena
	sslab []string
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
			dv := d.Page().Data()
			c.decodeAll(&dv, c.dictBox)
		}
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

// decodeAll boxes every value of a dictionary.
func (c *bulkCol) decodeAll(v *encoding.Values, out []any) {
	c.setValues(v)
	for i := range out {
		out[i] = c.box(i)
	}
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
		if len(c.sslab) == 0 {
			c.sslab = make([]string, batchRows)
		}
		c.sslab[0] = c.strs.str(c.data[c.offs[i]:c.offs[i+1]])
		x := boxAt(typString, unsafe.Pointer(&c.sslab[0]))
		c.sslab = c.sslab[1:]
		return x
	}
}

// fill decodes the next len(out) rows into out (nil for nulls).
func (c *bulkCol) fill(out []any) error {
	for n := 0; n < len(out); {
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
		m := min(len(out)-n, c.rows-c.row)
		dst := out[n : n+m]
		var defs []byte
		if c.defs != nil {
			defs = c.defs[c.row : c.row+m]
		}
		for j := range dst {
			if defs != nil && defs[j] < c.maxDef {
				dst[j] = nil
				continue
			}
			if c.idx != nil {
				dst[j] = c.dictBox[c.idx[c.vi]]
			} else {
				dst[j] = c.box(c.vi)
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
