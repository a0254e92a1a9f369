package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
)

// Page indexes as parquet-java writes them by default (parquet.page.index
// is on since 1.11): per column chunk a ColumnIndex (ColumnIndexBuilder:
// per page null_pages, min_values, max_values in the column's order,
// null_counts, and the boundary order of the non-null pages' bounds) and an
// OffsetIndex (OffsetIndexBuilder: per data page its offset, its size with
// the header, and the index of its first row in the row group). The
// dictionary page is in neither. ParquetFileWriter.end writes every
// column index of the file (row group by row group, column by column),
// then every offset index, then the footer, whose ColumnChunks point at
// them. A column index is left out when its min/max take more than
// MAX_STATS_SIZE bytes per page on average (ParquetFileWriter.endColumn).

// columnIndexTruncateLength is parquet.columnindex.truncate.length's
// default: binary bounds longer than this are cut (BinaryTruncator).
const columnIndexTruncateLength = 64

// pageIndex collects one column chunk's page index entries.
type pageIndex struct {
	nullPages  []bool
	nullCounts []int64
	mins, maxs [][]byte // the (truncated) bounds; empty for null pages
	sizes      []int32  // each page's size with its header
	firstRows  []int64
	rows       int64 // rows of the chunk's pages so far
	minMaxSize int64
}

// add records a data page of rows rows, nulls of them null, whose values'
// bounds are min and max when has (false: a page of nulls only; an empty
// min, the empty string's, is a bound like any other); truncate says
// whether they are cut as BinaryTruncator cuts BINARY and
// FIXED_LEN_BYTE_ARRAY columns without a logical type other than STRING.
func (p *pageIndex) add(min, max []byte, has bool, nulls, rows int64, size int, truncate bool) {
	if !has {
		p.nullPages = append(p.nullPages, true)
		p.mins, p.maxs = append(p.mins, []byte{}), append(p.maxs, []byte{})
	} else {
		if truncate {
			min, max = truncateMin(min), truncateMax(max)
		}
		min, max = append([]byte{}, min...), append([]byte{}, max...)
		p.nullPages = append(p.nullPages, false)
		p.mins, p.maxs = append(p.mins, min), append(p.maxs, max)
		p.minMaxSize += int64(len(min) + len(max))
	}
	p.nullCounts = append(p.nullCounts, nulls)
	p.sizes = append(p.sizes, int32(size))
	p.firstRows = append(p.firstRows, p.rows)
	p.rows += rows
}

func (p *pageIndex) reset() {
	*p = pageIndex{nullPages: p.nullPages[:0], nullCounts: p.nullCounts[:0], mins: p.mins[:0], maxs: p.maxs[:0],
		sizes: p.sizes[:0], firstRows: p.firstRows[:0]}
}

// columnIndex builds the chunk's ColumnIndex with st's order, or nil where
// parquet-java writes none: no pages, or bounds too large.
func (p *pageIndex) columnIndex(st *chunkStats) *pformat.ColumnIndex {
	n := len(p.nullPages)
	if n == 0 || p.minMaxSize > int64(n)*maxStatsSize {
		return nil
	}
	ci := &pformat.ColumnIndex{
		NullPages:  append([]bool(nil), p.nullPages...),
		MinValues:  append([][]byte(nil), p.mins...),
		MaxValues:  append([][]byte(nil), p.maxs...),
		NullCounts: append([]int64(nil), p.nullCounts...),
	}
	asc, desc := true, true
	prev := -1
	for i := 0; i < n; i++ {
		if p.nullPages[i] {
			continue
		}
		if prev >= 0 {
			cmin, cmax := st.compare(p.mins[prev], p.mins[i]), st.compare(p.maxs[prev], p.maxs[i])
			if cmin > 0 || cmax > 0 {
				asc = false
			}
			if cmin < 0 || cmax < 0 {
				desc = false
			}
		}
		prev = i
	}
	switch {
	case asc:
		ci.BoundaryOrder = pformat.Ascending
	case desc:
		ci.BoundaryOrder = pformat.Descending
	default:
		ci.BoundaryOrder = pformat.Unordered
	}
	return ci
}

// offsetIndex builds the chunk's OffsetIndex, its first data page at
// offset first.
func (p *pageIndex) offsetIndex(first int64) pformat.OffsetIndex {
	oi := pformat.OffsetIndex{PageLocations: make([]pformat.PageLocation, len(p.sizes))}
	at := first
	for i, sz := range p.sizes {
		oi.PageLocations[i] = pformat.PageLocation{Offset: at, CompressedPageSize: sz, FirstRowIndex: p.firstRows[i]}
		at += int64(sz)
	}
	return oi
}

// chunkIndexes are the page indexes of one column chunk, kept until the
// footer.
type chunkIndexes struct {
	rg, col int
	ci      *pformat.ColumnIndex
	oi      pformat.OffsetIndex
}

// writePageIndexes writes every column index, then every offset index, at
// the writer's position, and points the row groups' column chunks at them.
func writePageIndexes(out *countingWriter, groups []pformat.RowGroup, idx []chunkIndexes) error {
	proto := new(thrift.CompactProtocol)
	for _, x := range idx {
		if x.ci == nil {
			continue
		}
		b, err := thrift.Marshal(proto, x.ci)
		if err != nil {
			return fmt.Errorf("parquet column index: %w", err)
		}
		cc := &groups[x.rg].Columns[x.col]
		cc.ColumnIndexOffset, cc.ColumnIndexLength = out.n, int32(len(b))
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("parquet write: %w", err)
		}
	}
	for i := range idx {
		x := &idx[i]
		b, err := thrift.Marshal(proto, &x.oi)
		if err != nil {
			return fmt.Errorf("parquet offset index: %w", err)
		}
		cc := &groups[x.rg].Columns[x.col]
		cc.OffsetIndexOffset, cc.OffsetIndexLength = out.n, int32(len(b))
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("parquet write: %w", err)
		}
	}
	return nil
}

// truncatesBounds says whether BinaryTruncator cuts a column's bounds:
// BINARY and FIXED_LEN_BYTE_ARRAY columns without a logical type, or
// STRING ones (DEFAULT_UTF8_TRUNCATOR); DECIMAL and INT96 bounds stay
// whole.
func truncatesBounds(st *chunkStats) bool {
	return st.typ == pformat.ByteArray || (st.typ == pformat.FixedLenByteArray && !st.decimal)
}

// truncateMin is BinaryTruncator.truncateMin: a value longer than the
// truncate length is cut to its longest valid UTF-8 prefix within it, or
// to the length's bytes when it is not UTF-8.
func truncateMin(v []byte) []byte {
	if len(v) <= columnIndexTruncateLength {
		return v
	}
	if !utf8.Valid(v) {
		return v[:columnIndexTruncateLength]
	}
	if t := truncateUTF8(v); t != nil {
		return t
	}
	return v
}

// truncateMax is BinaryTruncator.truncateMax: the cut value (as in
// truncateMin) incremented to stay an upper bound, or the whole value
// when no increment is possible.
func truncateMax(v []byte) []byte {
	if len(v) <= columnIndexTruncateLength {
		return v
	}
	var t []byte
	if utf8.Valid(v) {
		t = incrementUTF8(bytes.Clone(truncateUTF8(v)))
	} else {
		t = incrementBytes(bytes.Clone(v[:columnIndexTruncateLength]))
	}
	if t == nil {
		return v
	}
	return t
}

// truncateUTF8 shortens v to at most the truncate length so that the
// remaining bytes are valid UTF-8; nil when nothing is left.
func truncateUTF8(v []byte) []byte {
	for n := columnIndexTruncateLength; n > 0; n-- {
		if utf8.Valid(v[:n]) {
			return v[:n]
		}
	}
	return nil
}

// incrementBytes adds one to a as a big-endian unsigned number, nil on
// overflow.
func incrementBytes(a []byte) []byte {
	for i := len(a) - 1; i >= 0; i-- {
		a[i]++
		if a[i] != 0 {
			return a
		}
	}
	return nil
}

// incrementUTF8 increments the last byte of a that can be incremented
// with a staying valid UTF-8 (BinaryTruncator.incrementUtf8: a byte whose
// increment is malformed is restored and the one before it tried); nil
// when none can.
func incrementUTF8(a []byte) []byte {
	if a == nil {
		return nil
	}
	for i := len(a) - 1; i >= 0; i-- {
		prev := a[i]
		if prev != 0xff {
			a[i] = prev + 1
			if utf8.Valid(a) {
				return a
			}
		}
		a[i] = prev
	}
	return nil
}

// The read side (issue 24): a filtered aggregate on the column path reads
// the ColumnIndex of each column its filter tests and leaves unread the
// rows of pages whose bounds show that no row can pass, as parquet-java's
// ColumnIndexFilter drops row ranges by the pushed predicate (the other
// columns' pages over those rows are then not read either). Only the
// ColumnIndex is read: batches never cross a page of any column, so a
// batch lies in one page of each filter column, found by counting the
// chunk's data pages as their headers are read (the index has one entry
// per data page, in order).

// usePageIndex lets the column path read page indexes; tests turn it off
// to compare.
var usePageIndex = true

// maxColumnIndexSize bounds the column index read for one chunk.
const maxColumnIndexSize = 16 << 20

// columnIndex is the ColumnIndex of row group g's chunk of leaf l, or nil
// when the file has none for it or it does not fit its chunk's pages
// (lengths that disagree).
func (f *File) columnIndex(g, l int) *pformat.ColumnIndex {
	md := f.pf.Metadata()
	if !usePageIndex || g >= len(md.RowGroups) || l >= len(md.RowGroups[g].Columns) {
		return nil
	}
	cc := &md.RowGroups[g].Columns[l]
	off, n := cc.ColumnIndexOffset, int64(cc.ColumnIndexLength)
	if off <= 0 || n <= 0 || n > maxColumnIndexSize || off+n > f.pf.Size() {
		return nil
	}
	b := make([]byte, n)
	if _, err := f.pf.ReadAt(b, off); err != nil {
		return nil
	}
	ci := new(pformat.ColumnIndex)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b, ci); err != nil {
		return nil
	}
	if k := len(ci.NullPages); k == 0 || len(ci.MinValues) != k || len(ci.MaxValues) != k ||
		(ci.NullCounts != nil && len(ci.NullCounts) != k) {
		return nil
	}
	return ci
}

// pageMayPass reports whether the current page of v (its pageNo'th data
// page) can hold a value that passes p (no Or), by v's column index; true
// without one.
func (p *Pred) pageMayPass(v *vecCol) bool { return p.indexMayPass(v.ci, v.pageNo, v.kind, v.rows) }

// indexMayPass reports whether data page i (of rows rows) of a column of
// kind, whose column index is ci (nil: none, true), can hold a value that
// passes p (no Or).
func (p *Pred) indexMayPass(ci *pformat.ColumnIndex, i int, kind bulkKind, rows int) bool {
	if ci == nil || i < 0 || i >= len(ci.NullPages) {
		return true
	}
	if p.IsNull {
		return ci.NullCounts == nil || ci.NullCounts[i] > 0
	}
	if ci.NullPages[i] {
		// Nulls only: no comparison is TRUE. Files of sqlrun before
		// issue 24 marked a page whose least value was the empty string
		// so too: a page is taken for nulls only when its null count
		// says so.
		return ci.NullCounts == nil || ci.NullCounts[i] < int64(rows)
	}
	lo, hi := ci.MinValues[i], ci.MaxValues[i]
	switch kind {
	case bulkString:
		return p.mayHaveStr(lo, hi)
	case bulkInt64:
		return len(lo) != 8 || len(hi) != 8 ||
			p.mayHaveInt(int64(binary.LittleEndian.Uint64(lo)), int64(binary.LittleEndian.Uint64(hi)))
	}
	return len(lo) != 4 || len(hi) != 4 ||
		p.mayHaveInt(int64(int32(binary.LittleEndian.Uint32(lo))), int64(int32(binary.LittleEndian.Uint32(hi))))
}

// batchMayPass reports whether the current batch, which lies in one page
// of each column the filter tests (pcs[i]: conjunct i's columns), can hold
// a row that passes every conjunct by those pages' column indexes.
func batchMayPass(preds []Pred, pcs [][]*vecCol) bool {
	for i := range preds {
		p := &preds[i]
		if p.Or == nil {
			if !p.pageMayPass(pcs[i][0]) {
				return false
			}
			continue
		}
		some := false
		for x := range p.Or {
			if p.Or[x].pageMayPass(pcs[i][x]) {
				some = true
				break
			}
		}
		if !some {
			return false
		}
	}
	return true
}
