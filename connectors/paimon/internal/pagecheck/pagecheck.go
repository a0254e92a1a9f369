// Package pagecheck checks the page indexes (column and offset indexes)
// of a Parquet file against its pages, read back with parquet-go's reader
// (tests only): an independent reading of what connectors/paimon/format
// writes, in parquet-java's orders (PrimitiveComparator) and with its
// truncation (BinaryTruncator) and boundary orders (ColumnIndexBuilder).
package pagecheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
)

// pageOrder orders the PLAIN values of a leaf column as parquet-java's
// PrimitiveComparator for its type does; written here independently of
// stats.go.
func pageOrder(leaf parquet.Node) func(a, b parquet.Value) int {
	switch leaf.Type().Kind() {
	case parquet.Boolean:
		return func(a, b parquet.Value) int { return boolInt(a.Boolean()) - boolInt(b.Boolean()) }
	case parquet.Int32:
		return func(a, b parquet.Value) int { return cmpInt(int64(a.Int32()), int64(b.Int32())) }
	case parquet.Int64:
		return func(a, b parquet.Value) int { return cmpInt(a.Int64(), b.Int64()) }
	case parquet.Float:
		return func(a, b parquet.Value) int { return javaCompare(float64(a.Float()), float64(b.Float())) }
	case parquet.Double:
		return func(a, b parquet.Value) int { return javaCompare(a.Double(), b.Double()) }
	case parquet.FixedLenByteArray, parquet.Int96:
		if isDecimalLeaf(leaf) || leaf.Type().Kind() == parquet.Int96 {
			return func(a, b parquet.Value) int { return signedBE(a.ByteArray()).Cmp(signedBE(b.ByteArray())) }
		}
	}
	return func(a, b parquet.Value) int { return bytes.Compare(a.ByteArray(), b.ByteArray()) }
}

func isDecimalLeaf(leaf parquet.Node) bool {
	lt := leaf.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(*pformat.DecimalType)
	return ok
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// javaCompare is Double.compare.
func javaCompare(x, y float64) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	bits := func(f float64) int64 {
		if math.IsNaN(f) {
			return 0x7ff8000000000000
		}
		return int64(math.Float64bits(f))
	}
	return cmpInt(bits(x), bits(y))
}

func signedBE(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// plainBytes is a value's PLAIN encoding, as bounds are stored.
func plainBytes(v parquet.Value) []byte {
	if v.Kind() == parquet.Boolean {
		return []byte{byte(boolInt(v.Boolean()))}
	}
	return v.Bytes()
}

// Check reads the page indexes of a Parquet file and its pages
// with parquet-go's reader and checks every column chunk's: an offset
// index locating each data page (its header, size and first row) and a
// column index whose null pages, null counts, min and max (exact, or for
// binary columns a bound cut as BinaryTruncator cuts it) and boundary
// order match the values in each page. It returns each leaf column's
// boundary order (of the last row group) by path.
func Check(name string, file []byte) (map[string]pformat.BoundaryOrder, []error) {
	var errs []error
	errorf := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	pf, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, []error{fmt.Errorf("%s: %w", name, err)}
	}
	orders := map[string]pformat.BoundaryOrder{}
	leaves := pf.Schema().Columns()
	for ri, rg := range pf.RowGroups() {
		for ci, cc := range rg.ColumnChunks() {
			path := strings.Join(leaves[ci], ".")
			where := fmt.Sprintf("%s, row group %d, column %s", name, ri, path)
			meta := pf.Metadata().RowGroups[ri].Columns[ci]
			if meta.OffsetIndexOffset == 0 || meta.ColumnIndexOffset == 0 {
				errorf("%s: no page index (offset index at %d, column index at %d)", where, meta.OffsetIndexOffset, meta.ColumnIndexOffset)
				continue
			}
			var oi pformat.OffsetIndex
			var cix pformat.ColumnIndex
			if err := unmarshalAt(file, meta.OffsetIndexOffset, meta.OffsetIndexLength, &oi); err != nil {
				errorf("%s: offset index: %v", where, err)
				continue
			}
			if err := unmarshalAt(file, meta.ColumnIndexOffset, meta.ColumnIndexLength, &cix); err != nil {
				errorf("%s: column index: %v", where, err)
				continue
			}
			if len(cix.NullPages) != len(cix.MinValues) || len(cix.NullPages) != len(cix.MaxValues) || len(cix.NullPages) != len(cix.NullCounts) {
				errorf("%s: column index lists of different lengths", where)
				continue
			}
			leaf, _ := pf.Schema().Lookup(leaves[ci]...)
			order := pageOrder(leaf.Node)
			cut := leaf.Node.Type().Kind() == parquet.ByteArray ||
				(leaf.Node.Type().Kind() == parquet.FixedLenByteArray && !isDecimalLeaf(leaf.Node))
			pages := cc.Pages()
			var firstRow int64
			var pi int
			for ; ; pi++ {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					errorf("%s: page %d: %v", where, pi, err)
					break
				}
				vals := make([]parquet.Value, p.NumValues())
				n, err := p.Values().ReadValues(vals)
				if err != nil && !errors.Is(err, io.EOF) {
					errorf("%s: page %d values: %v", where, pi, err)
				}
				vals = vals[:n]
				var min, max *parquet.Value
				var nulls int64
				for i := range vals {
					if vals[i].IsNull() {
						nulls++
						continue
					}
					if min == nil || order(vals[i], *min) < 0 {
						min = &vals[i]
					}
					if max == nil || order(vals[i], *max) > 0 {
						max = &vals[i]
					}
				}
				if pi >= len(oi.PageLocations) || pi >= len(cix.NullPages) {
					errorf("%s: page %d is not in the page index (%d and %d entries)", where, pi, len(oi.PageLocations), len(cix.NullPages))
					parquet.Release(p)
					continue
				}
				loc := oi.PageLocations[pi]
				if loc.FirstRowIndex != firstRow {
					errorf("%s: page %d first row %d, want %d", where, pi, loc.FirstRowIndex, firstRow)
				}
				var hdr pformat.PageHeader
				if loc.Offset < 0 || loc.Offset+int64(loc.CompressedPageSize) > int64(len(file)) {
					errorf("%s: page %d located outside the file", where, pi)
					parquet.Release(p)
					continue
				}
				r := bytes.NewReader(file[loc.Offset : loc.Offset+int64(loc.CompressedPageSize)])
				if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&hdr); err != nil {
					errorf("%s: page %d: no page header at %d: %v", where, pi, loc.Offset, err)
				} else if hl := int64(loc.CompressedPageSize) - int64(r.Len()); hdr.Type != pformat.DataPage || hl+int64(hdr.CompressedPageSize) != int64(loc.CompressedPageSize) {
					errorf("%s: page %d at %d: header %v of %d bytes, compressed %d, location size %d", where, pi, loc.Offset, hdr.Type, hl, hdr.CompressedPageSize, loc.CompressedPageSize)
				}
				if cix.NullCounts[pi] != nulls {
					errorf("%s: page %d null count %d, want %d", where, pi, cix.NullCounts[pi], nulls)
				}
				if cix.NullPages[pi] != (min == nil) {
					errorf("%s: page %d null page %v, want %v", where, pi, cix.NullPages[pi], min == nil)
				}
				if min == nil {
					if len(cix.MinValues[pi]) != 0 || len(cix.MaxValues[pi]) != 0 {
						errorf("%s: null page %d has bounds %x %x", where, pi, cix.MinValues[pi], cix.MaxValues[pi])
					}
				} else {
					checkBound(errorf, where, pi, "min", cix.MinValues[pi], plainBytes(*min), cut, order, leaf.Node.Type().Kind())
					checkBound(errorf, where, pi, "max", cix.MaxValues[pi], plainBytes(*max), cut, order, leaf.Node.Type().Kind())
				}
				firstRow += p.NumRows()
				parquet.Release(p)
			}
			pages.Close()
			if pi != len(oi.PageLocations) || pi != len(cix.NullPages) {
				errorf("%s: %d pages, page index has %d locations and %d column index entries", where, pi, len(oi.PageLocations), len(cix.NullPages))
			}
			kind := leaf.Node.Type().Kind()
			want := boundaryOrder(cix, func(a, b []byte) int { return order(kind.Value(a), kind.Value(b)) })
			if cix.BoundaryOrder != want {
				errorf("%s: boundary order %v, want %v", where, cix.BoundaryOrder, want)
			}
			orders[path] = cix.BoundaryOrder
		}
	}
	return orders, errs
}

func unmarshalAt(file []byte, off int64, n int32, v any) error {
	if off <= 0 || n <= 0 || off+int64(n) > int64(len(file)) {
		return fmt.Errorf("%d bytes at %d are outside the file", n, off)
	}
	return thrift.Unmarshal(new(thrift.CompactProtocol), file[off:off+int64(n)], v)
}

// boundaryOrder is ColumnIndexBuilder.calculateBoundaryOrder over the
// non-null pages: ascending when no min or max decreases, else descending
// when none increases, else unordered.
func boundaryOrder(ci pformat.ColumnIndex, cmp func(a, b []byte) int) pformat.BoundaryOrder {
	var idx []int
	for i, null := range ci.NullPages {
		if !null {
			idx = append(idx, i)
		}
	}
	asc, desc := true, true
	for k := 1; k < len(idx); k++ {
		a, b := idx[k-1], idx[k]
		cmin, cmax := cmp(ci.MinValues[a], ci.MinValues[b]), cmp(ci.MaxValues[a], ci.MaxValues[b])
		asc = asc && cmin <= 0 && cmax <= 0
		desc = desc && cmin >= 0 && cmax >= 0
	}
	switch {
	case asc:
		return pformat.Ascending
	case desc:
		return pformat.Descending
	}
	return pformat.Unordered
}

// checkBound checks a page's bound: exact, or for a binary column's value
// longer than 64 bytes a bound of at most 64 bytes on the right side
// (a prefix for the min; for the max, when one exists, above the value).
func checkBound(errorf func(string, ...any), where string, page int, which string, got, value []byte, cut bool, order func(a, b parquet.Value) int, kind parquet.Kind) {
	if !cut || len(value) <= 64 {
		if !bytes.Equal(got, value) {
			errorf("%s: page %d %s %x, want %x", where, page, which, got, value)
		}
		return
	}
	switch {
	case which == "min" && (len(got) > 64 || !bytes.HasPrefix(value, got) || (utf8.Valid(value) && !utf8.Valid(got))):
		errorf("%s: page %d min %q is not a cut of %q", where, page, got, value)
	case which == "max" && !bytes.Equal(got, value) && (len(got) > 64 || order(kind.Value(got), kind.Value(value)) <= 0):
		errorf("%s: page %d max %q is not a cut bound of %q", where, page, got, value)
	}
}
