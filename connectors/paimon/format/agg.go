package format

import (
	"bytes"
	"fmt"
	"io"
)

// The column path of a batch aggregate (issue 24): a global COUNT/MIN/
// MAX/SUM over a Parquet file computed from its column chunks' pages, one
// column at a time, without rows: the values stay in the page decoder's
// typed buffers (int32/int64 slices, string bytes plus offsets, reused from
// page to page) and the kernels below fold them. Nothing is boxed, no row
// is built, and a column that no call reads is not decoded. The caller
// (the table layer's raw read) merges the files' partial results through
// the same aggregate as rows would take, so only the kernels are new: their
// order is the one the row path's MIN/MAX uses (bytes for strings, numeric
// for integers, see operators.keepBest) and their sums wrap as its
// accumulator's do (an int64 sum cast to the result type).

// AggKind is the function of an AggCall.
type AggKind uint8

// Aggregate functions the column path computes.
const (
	AggCountStar AggKind = iota // COUNT(*): rows
	AggCount                    // COUNT(x): non-null values
	AggMin
	AggMax
	AggSum // integer columns only (TINYINT, INT, BIGINT)
	// AggKey is a grouping key: the partial carries the key's value and
	// the other calls are computed per distinct combination of the keys'
	// values.
	AggKey
	// AggSumBigInt is AggSum as BIGINT whatever the integer column: an
	// integer AVG's partial sum, which Flink keeps in a long
	// (IntAvgAggFunction and its kin), so it does not wrap at the
	// column's width.
	AggSumBigInt
)

// sum reports SUM and its BIGINT form.
func (k AggKind) sum() bool { return k == AggSum || k == AggSumBigInt }

// AggCall is one aggregate over a field of the projection (Arg indexes
// Projection.Fields; unused for AggCountStar).
//
// With Concat (COUNT, MIN and MAX only) the argument is instead the
// concatenation of the values of those fields, STRING columns, and NULL
// when any of them is NULL: Flink's CONCAT and || (the row path's
// evalConcat). The column path compares the concatenation with the
// group's best value piece by piece, without building it.
type AggCall struct {
	Kind   AggKind
	Arg    int
	Concat []int
}

// concatValue is the Concat argument of a row of the projection's values.
func concatValue(fields []int, vals []any) any {
	n := 0
	for _, f := range fields {
		s, ok := vals[f].(string)
		if !ok {
			return nil
		}
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = append(b, vals[f].(string)...)
	}
	return string(b)
}

// Partial returns the partial result of calls over one row vals (the
// values of the projection): what Aggregate returns for a file of that one
// row. COUNT(*) is 1, COUNT(x) 1 or 0, MIN/MAX/SUM the value itself.
func Partial(calls []AggCall, vals []any) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		if c.Concat != nil {
			v := concatValue(c.Concat, vals)
			if c.Kind == AggCount {
				n := int64(0)
				if v != nil {
					n = 1
				}
				v = n
			}
			out[i] = v
			continue
		}
		switch c.Kind {
		case AggCountStar:
			out[i] = int64(1)
		case AggCount:
			if vals[c.Arg] != nil {
				out[i] = int64(1)
			} else {
				out[i] = int64(0)
			}
		case AggSumBigInt:
			switch v := vals[c.Arg].(type) {
			case int8:
				out[i] = int64(v)
			case int16:
				out[i] = int64(v)
			case int32:
				out[i] = int64(v)
			default:
				out[i] = v
			}
		default:
			out[i] = vals[c.Arg]
		}
	}
	return out
}

// aggState is one call's accumulator in the column path.
type aggState struct {
	call AggCall
	n    int64  // values folded (COUNT, and whether MIN/MAX/SUM have one)
	i    int64  // MIN/MAX/SUM of integers
	s    []byte // MIN/MAX of strings (own copy)
}

// Aggregate computes calls over the rows of the file with the projection
// p that pass filter (every conjunct; none: every row), reading the pages
// of the columns the calls and the filter name and nothing else. It
// returns partial rows of one value per call (as Partial: COUNTs as int64,
// MIN/MAX/SUM typed as the row path reads the column, nil when no value;
// one row, or with AggKeys one per distinct combination of the keys'
// values, in no defined order) and ok. ok is false, with nothing read,
// when the file is not in a form the column path takes: ORC or Avro,
// deleted rows (a deletion vector), a column read through an evolution
// cast, a nested or repeated column, a type other than TINYINT/INT/DATE/
// TIME/BIGINT/CHAR/VARCHAR, or a column chunk the page decoder does not
// read; the caller then reads rows. With a filter, a row group whose
// column statistics (min_value/max_value) show that no row can pass is
// not read, as Paimon's Parquet reader skips row groups by the pushed
// predicate's statistics (ParquetFilters, RowGroupFilter).
func (f *File) Aggregate(p Projection, calls []AggCall, filter []Pred) (parts [][]any, ok bool, err error) {
	if f.alien != nil || p.Deleted != nil {
		return nil, false, nil
	}
	defer recoverCorrupt(f.name, &err)
	cols, err := f.projected(p, "")
	if err != nil {
		return nil, false, err
	}
	st := make([]aggState, len(calls))
	var leaves []int // distinct leaves read, in call order then the filter's
	addLeaf := func(col colReader) {
		for _, l := range leaves {
			if l == col.leaf {
				return
			}
		}
		leaves = append(leaves, col.leaf)
	}
	keys := 0
	concat := false
	for i, c := range calls {
		st[i].call = c
		if c.Kind == AggCountStar {
			continue
		}
		if c.Kind == AggKey {
			keys++
		}
		if c.Concat != nil {
			if c.Kind != AggCount && c.Kind != AggMin && c.Kind != AggMax {
				return nil, false, nil
			}
			concat = true
			for _, f := range c.Concat {
				col := cols[f]
				if col.leaf < 0 {
					continue // absent: the concatenation is null in every row
				}
				if col.asm != nil || col.bulk != bulkString {
					return nil, false, nil
				}
				addLeaf(col)
			}
			continue
		}
		col := cols[c.Arg]
		if col.leaf < 0 {
			continue // absent from the file: null in every row
		}
		if col.asm != nil || col.bulk == bulkNone || (c.Kind.sum() && col.bulk == bulkString) {
			return nil, false, nil
		}
		addLeaf(col)
	}
	preds, none, pok := present(cols, filter) // the conjuncts on columns the file has
	if !pok {
		return nil, false, nil
	}
	if none {
		return f.filteredOut(calls, keys) // a null compared: no row passes
	}
	for i := range preds {
		preds[i].fields(func(x int) { addLeaf(cols[x]) })
	}
	md := f.pf.Metadata()
	rgs := f.pf.RowGroups()
	if len(md.RowGroups) != len(rgs) {
		return nil, false, nil
	}
	// Every chunk must be one the page decoder reads before anything is.
	readers := make([][]*chunkReader, len(rgs))
	for g := range rgs {
		chunks := rgs[g].ColumnChunks()
		readers[g] = make([]*chunkReader, len(leaves))
		for j, l := range leaves {
			if l >= len(md.RowGroups[g].Columns) || l >= len(chunks) {
				return nil, false, nil
			}
			cr := newChunkReader(f.pf, &md.RowGroups[g].Columns[l].MetaData, md.RowGroups[g].NumRows, chunks[l].Type().Kind())
			if cr == nil {
				return nil, false, nil
			}
			// Every page into the reused buffer, its PLAIN strings left
			// where they are: nothing outlives it.
			cr.lean, cr.split = true, true
			readers[g][j] = cr
		}
	}
	if keys > 0 || len(preds) > 0 || concat {
		var skip []bool
		for g := range rgs {
			skip = append(skip, !rowGroupMayPass(md.RowGroups[g].Columns, cols, preds))
		}
		parts, err := vectorAggregate(cols, calls, preds, leaves, readers, skip, &f.pagesSkipped, f.columnIndex)
		if err != nil {
			return nil, false, fmt.Errorf("read parquet file %s: %w", f.name, err)
		}
		return parts, true, nil
	}
	var rows int64
	for g := range rgs {
		rows += md.RowGroups[g].NumRows
	}
	var pd, dd pageData
	for j, l := range leaves {
		var on []*aggState
		var col colReader
		for i := range st {
			if c := st[i].call; c.Kind != AggCountStar && cols[c.Arg].leaf == l {
				on, col = append(on, &st[i]), cols[c.Arg]
			}
		}
		for g := range rgs {
			cr := readers[g][j]
			haveDict := false
			for {
				isDict, err := cr.next(&pd, &dd, col.maxDef)
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, false, fmt.Errorf("read parquet file %s row group %d: %w", f.name, g, err)
				}
				if isDict {
					haveDict = true
					continue
				}
				if err := foldPage(on, col.bulk, &pd, &dd, haveDict, pd.nonNull(col.maxDef)); err != nil {
					return nil, false, fmt.Errorf("read parquet file %s row group %d: %w", f.name, g, err)
				}
			}
			if cr.left != 0 {
				return nil, false, fmt.Errorf("read parquet file %s row group %d: %w: %d values missing from a column chunk", f.name, g, errPageFormat, cr.left)
			}
		}
	}
	vals := make([]any, len(calls))
	for i := range st {
		vals[i] = st[i].result(rows, cols)
	}
	return [][]any{vals}, true, nil
}

// filteredOut is Aggregate's answer for a file no row of which passes the
// filter: no group, or without keys the partial of no rows.
func (f *File) filteredOut(calls []AggCall, keys int) ([][]any, bool, error) {
	if keys > 0 {
		return nil, true, nil
	}
	vals := make([]any, len(calls))
	for i, c := range calls {
		if c.Kind == AggCountStar || c.Kind == AggCount {
			vals[i] = int64(0)
		}
	}
	return [][]any{vals}, true, nil
}

// result is the call's partial value.
func (a *aggState) result(rows int64, cols []colReader) any {
	switch a.call.Kind {
	case AggCountStar:
		return rows
	case AggCount:
		return a.n
	case AggKey:
		return nil
	}
	if a.n == 0 {
		return nil
	}
	if a.call.Kind == AggSumBigInt {
		return a.i
	}
	switch cols[a.call.Arg].bulk {
	case bulkInt8:
		return int8(a.i)
	case bulkInt32:
		return int32(a.i)
	case bulkInt64:
		return a.i
	default:
		return string(a.s)
	}
}

// foldPage folds the n non-null values of data page p (dictionary indexes
// into dict when p.idx is set) into the calls on its column.
func foldPage(on []*aggState, kind bulkKind, p, dict *pageData, haveDict bool, n int) error {
	src := p
	if p.idx != nil {
		if !haveDict {
			return fmt.Errorf("%w: dictionary-encoded page without a dictionary", errPageFormat)
		}
		src = dict
		for _, i := range p.idx[:n] {
			if uint32(i) >= uint32(dict.rows) {
				return fmt.Errorf("%w: dictionary index %d of %d entries", errPageFormat, i, dict.rows)
			}
		}
	}
	var idx []int32
	if p.idx != nil {
		idx = p.idx[:n]
	}
	switch kind {
	case bulkString:
		if p.idx == nil && len(src.offs) < n+1 {
			return fmt.Errorf("%w: more rows than values", errPageFormat)
		}
	case bulkInt64:
		if p.idx == nil && len(src.i64) < n {
			return fmt.Errorf("%w: more rows than values", errPageFormat)
		}
		if p.idx != nil && len(src.i64) < dict.rows {
			return fmt.Errorf("%w: short dictionary", errPageFormat)
		}
	default:
		if p.idx == nil && len(src.i32) < n {
			return fmt.Errorf("%w: more rows than values", errPageFormat)
		}
		if p.idx != nil && len(src.i32) < dict.rows {
			return fmt.Errorf("%w: short dictionary", errPageFormat)
		}
	}
	if kind == bulkString && p.idx != nil && len(src.offs) < dict.rows+1 {
		return fmt.Errorf("%w: short dictionary", errPageFormat)
	}
	for _, a := range on {
		if a.call.Kind == AggKey {
			continue
		}
		if a.call.Kind == AggCount {
			a.n += int64(n)
			continue
		}
		if n == 0 {
			continue
		}
		switch kind {
		case bulkString:
			a.foldStrings(src.data, src.offs, src.ends, idx, n)
		case bulkInt64:
			foldInts(a, src.i64, idx, n, func(v int64) int64 { return v })
		case bulkInt8:
			foldInts(a, src.i32, idx, n, func(v int32) int64 { return int64(int8(v)) })
		default:
			foldInts(a, src.i32, idx, n, func(v int32) int64 { return int64(v) })
		}
	}
	return nil
}

// foldInts folds n integer values (vals[i], or vals[idx[i]]) as conv reads
// them into a: MIN/MAX compare the converted values, SUM adds them.
func foldInts[T int32 | int64](a *aggState, vals []T, idx []int32, n int, conv func(T) int64) {
	at := func(i int) int64 {
		if idx != nil {
			return conv(vals[idx[i]])
		}
		return conv(vals[i])
	}
	acc, start := a.i, 0
	if a.n == 0 {
		acc, start = at(0), 1
		if a.call.Kind.sum() {
			acc, start = 0, 0
		}
	}
	switch a.call.Kind {
	case AggSum, AggSumBigInt:
		for i := start; i < n; i++ {
			acc += at(i)
		}
	case AggMax:
		if idx == nil {
			for _, x := range vals[start:n] {
				if v := conv(x); v > acc {
					acc = v
				}
			}
			break
		}
		for i := start; i < n; i++ {
			if v := at(i); v > acc {
				acc = v
			}
		}
	case AggMin:
		if idx == nil {
			for _, x := range vals[start:n] {
				if v := conv(x); v < acc {
					acc = v
				}
			}
			break
		}
		for i := start; i < n; i++ {
			if v := at(i); v < acc {
				acc = v
			}
		}
	}
	a.i = acc
	a.n += int64(n)
}

// foldStrings folds n string values (value i is data[offs[i]:offs[i+1]],
// or data[offs[i]:ends[i]] with ends, or that of idx[i]) into a's MIN or
// MAX: the page's extreme is found in place and copied out only when it
// beats a's.
func (a *aggState) foldStrings(data []byte, offs, ends []uint32, idx []int32, n int) {
	at := func(i int) []byte {
		if idx != nil {
			i = int(idx[i])
		}
		if ends != nil {
			return data[offs[i]:ends[i]]
		}
		return data[offs[i]:offs[i+1]]
	}
	best := at(0)
	max := a.call.Kind == AggMax
	for i := 1; i < n; i++ {
		v := at(i)
		if c := bytes.Compare(v, best); (max && c > 0) || (!max && c < 0) {
			best = v
		}
	}
	if a.n > 0 {
		c := bytes.Compare(best, a.s)
		if (max && c <= 0) || (!max && c >= 0) {
			a.n += int64(n)
			return
		}
	}
	a.s = append(a.s[:0], best...)
	a.n += int64(n)
}
