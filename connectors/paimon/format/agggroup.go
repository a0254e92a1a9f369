package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	pformat "github.com/parquet-go/parquet-go/format"
)

// The grouped column path: the key column and the argument columns are
// read side by side in batches that never cross a page boundary of any of
// them, so a batch's strings stay in their pages' buffers (each column
// decompresses into one reused buffer, the next page overwrites it). Per
// batch each column yields, per row, the index of its value in the page
// (or dictionary), -1 for null; the key's values find their groups; each
// call then folds its column's values into the groups' accumulators.

// vecCol is one column read in batches.
type vecCol struct {
	cr       *chunkReader
	kind     bulkKind
	maxDef   byte
	pd, dd   pageData
	haveDict bool
	src      *pageData // where the current page's values are: pd, or dd for indexes
	rows     int       // rows of the current page (its header's)
	row      int       // next row of the page
	vi       int       // next non-null value of the page
	at       []int32   // the batch: value index per row, -1 for null
	// lazy: a column the filter does not read; its page is decoded (load)
	// only for a batch with a row that passes, and passed over unread
	// when no row of it does. unread: the current page is not decoded.
	lazy, unread bool
	skipped      *int // counts the pages passed over unread
	// filter: the filter tests the column; with ci (its chunk's column
	// index) it is lazy too, read only for a batch whose pages' bounds
	// let a row pass. pageNo is the current page's ordinal among the
	// chunk's data pages (its entry in ci).
	filter bool
	ci     *pformat.ColumnIndex
	pageNo int
}

// page makes the next data page current (false at the chunk's end),
// decoded unless the column is lazy.
func (v *vecCol) page() (bool, error) {
	for {
		if v.unread {
			v.cr.skip()
			v.unread = false
			if v.skipped != nil {
				*v.skipped++
			}
		}
		isDict, rows, err := v.cr.head(&v.dd)
		if err == io.EOF {
			if v.cr.left != 0 {
				return false, fmt.Errorf("%w: %d values missing from a column chunk", errPageFormat, v.cr.left)
			}
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if isDict {
			v.haveDict = true
			continue
		}
		v.rows, v.row, v.vi, v.unread = rows, 0, 0, true
		v.pageNo++
		if !v.lazy {
			if err := v.load(); err != nil {
				return false, err
			}
		}
		if v.rows > 0 {
			return true, nil
		}
	}
}

// load decodes the current page, whose header page read; the rows
// already passed over (v.row) are skipped.
func (v *vecCol) load() error {
	v.unread = false
	if err := v.cr.body(&v.pd, v.maxDef); err != nil {
		return err
	}
	if v.pd.rows != v.rows {
		return fmt.Errorf("%w: page of %d rows, header says %d", errPageFormat, v.pd.rows, v.rows)
	}
	n := v.pd.nonNull(v.maxDef)
	v.src, v.vi = &v.pd, v.row
	if v.pd.defs != nil {
		v.vi = 0
		for _, d := range v.pd.defs[:v.row] {
			if d >= v.maxDef {
				v.vi++
			}
		}
	}
	entries := n
	if v.pd.idx != nil {
		if !v.haveDict {
			return fmt.Errorf("%w: dictionary-encoded page without a dictionary", errPageFormat)
		}
		v.src, entries = &v.dd, v.dd.rows
		for _, i := range v.pd.idx[:n] {
			if uint32(i) >= uint32(entries) {
				return fmt.Errorf("%w: dictionary index %d of %d entries", errPageFormat, i, entries)
			}
		}
	}
	switch {
	case v.kind == bulkString && len(v.src.offs) < entries+1,
		v.kind == bulkInt64 && len(v.src.i64) < entries,
		(v.kind == bulkInt8 || v.kind == bulkInt32) && len(v.src.i32) < entries:
		return fmt.Errorf("%w: more rows than values", errPageFormat)
	}
	return nil
}

// take fills at with the value indexes of the next m rows of the page.
func (v *vecCol) take(m int) {
	v.at = grow(v.at, m)
	defs := v.pd.defs
	if defs == nil { // no nulls: the rows' values in order
		if v.pd.idx != nil {
			copy(v.at[:m], v.pd.idx[v.vi:v.vi+m])
		} else {
			for j := range v.at[:m] {
				v.at[j] = int32(v.vi + j)
			}
		}
		v.vi += m
		v.row += m
		return
	}
	for j := 0; j < m; j++ {
		if defs != nil && defs[v.row+j] < v.maxDef {
			v.at[j] = -1
			continue
		}
		if v.pd.idx != nil {
			v.at[j] = v.pd.idx[v.vi]
		} else {
			v.at[j] = int32(v.vi)
		}
		v.vi++
	}
	v.row += m
}

func (v *vecCol) int(k int32) int64 {
	switch v.kind {
	case bulkInt64:
		return v.src.i64[k]
	case bulkInt8:
		return int64(int8(v.src.i32[k]))
	}
	return int64(v.src.i32[k])
}

func (v *vecCol) str(k int32) []byte {
	if v.src.ends != nil {
		return v.src.data[v.src.offs[k]:v.src.ends[k]]
	}
	return v.src.data[v.src.offs[k]:v.src.offs[k+1]]
}

// boxed is value k as the row path reads it.
func (v *vecCol) boxed(k int32) any {
	switch v.kind {
	case bulkInt64:
		return v.int(k)
	case bulkInt8:
		return int8(v.int(k))
	case bulkInt32:
		return int32(v.int(k))
	}
	return string(v.str(k))
}

// groupState is one call's accumulators, by group.
type groupState struct {
	n []int64
	i []int64
	s [][]byte
}

// vectorAggregate computes calls per distinct combination of the values
// of the AggKey calls' columns (one group of every row when there is
// none) over the rows that pass preds, from the chunks readers[g][j] of
// leaves[j], row groups marked in skip left unread, and with a filter the
// batches whose pages' column indexes (index(g, leaf), nil: none) show
// that no row passes.
func vectorAggregate(cols []colReader, calls []AggCall, preds []Pred, leaves []int, readers [][]*chunkReader, skip []bool, skipped *int,
	index func(g, l int) *pformat.ColumnIndex) ([][]any, error) {
	vcs := make([]*vecCol, len(leaves))
	byLeaf := map[int]*vecCol{}
	for j, l := range leaves {
		vcs[j] = &vecCol{}
		byLeaf[l] = vcs[j]
	}
	colOf := func(i int) *vecCol { // the vector of call i, nil when its column is absent
		if calls[i].Kind == AggCountStar || calls[i].Concat != nil {
			return nil
		}
		return byLeaf[cols[calls[i].Arg].leaf]
	}
	// By Concat call: the vectors of its pieces, nil when one is absent
	// (the argument is null in every row).
	cats := make([][]*vecCol, len(calls))
	for i, c := range calls {
		for _, f := range c.Concat {
			v := byLeaf[cols[f].leaf]
			if v == nil {
				cats[i] = nil
				break
			}
			cats[i] = append(cats[i], v)
		}
	}
	var keyCalls []int
	for i, c := range calls {
		if c.Kind == AggKey {
			keyCalls = append(keyCalls, i)
		}
	}
	pcs := make([][]*vecCol, len(preds)) // by conjunct: each test's column
	filtered := map[int]bool{}           // the leaves the filter reads
	for i := range preds {
		preds[i].fields(func(f int) {
			pcs[i] = append(pcs[i], byLeaf[cols[f].leaf])
			filtered[cols[f].leaf] = true
		})
	}
	var keys [][]any // by group: the keys' values
	ints := map[int64]int32{}
	strs := map[string]int32{}
	null := int32(-1)
	st := make([]groupState, len(calls))
	var gid []int32
	newGroup := func(k []any) int32 {
		keys = append(keys, k)
		for i := range st {
			st[i].n = append(st[i].n, 0)
			st[i].i = append(st[i].i, 0)
			if c := calls[i]; c.Kind != AggCountStar && c.Kind != AggCount && (c.Concat != nil || cols[c.Arg].bulk == bulkString) {
				st[i].s = append(st[i].s, nil)
			}
		}
		return int32(len(keys) - 1)
	}
	var one *vecCol // the key's column when there is exactly one, present
	if len(keyCalls) == 1 {
		one = colOf(keyCalls[0])
	}
	if len(keyCalls) == 0 {
		newGroup(nil) // every row's, and the partial of none
	}
	var comp []byte // a row's keys, encoded (more than one key)
	for g := range readers {
		if skip[g] {
			continue
		}
		indexed := false // a filter column has a column index
		for j, l := range leaves {
			c := cols[firstCol(cols, calls, preds, l)]
			*vcs[j] = vecCol{cr: readers[g][j], kind: c.bulk, maxDef: c.maxDef, at: vcs[j].at, lazy: len(preds) > 0 && !filtered[l],
				skipped: skipped, filter: filtered[l], pageNo: -1}
			if filtered[l] {
				vcs[j].ci = index(g, l)
				indexed = indexed || vcs[j].ci != nil
			}
		}
		for _, v := range vcs {
			v.lazy = v.lazy || (indexed && v.filter)
		}
		for {
			m := -1
			for _, v := range vcs {
				if v.row >= v.rows {
					ok, err := v.page()
					if err != nil {
						return nil, err
					}
					if !ok {
						m = 0
						break
					}
				}
				if left := v.rows - v.row; m < 0 || left < m {
					m = left
				}
			}
			if m <= 0 {
				break
			}
			// With column indexes, a batch in pages whose bounds exclude
			// the filter is passed over: no column is read for it.
			may := !indexed || batchMayPass(preds, pcs)
			for _, v := range vcs {
				switch {
				case !v.lazy:
					v.take(m)
				case v.filter && may:
					if v.unread {
						if err := v.load(); err != nil {
							return nil, err
						}
					}
					v.take(m)
				}
			}
			// The filter first (rows that fail it get -1), then the rows'
			// groups: a group is made by a row that passes. The other
			// columns are decoded only for a batch with a row that passes.
			gid = grow(gid, m)
			for j := range gid {
				gid[j] = 0
				if !may {
					gid[j] = -1
				}
			}
			if may {
				for i := range preds {
					filterBatch(&preds[i], pcs[i], gid)
				}
			}
			some := may && (len(preds) == 0 || slices.ContainsFunc(gid, func(id int32) bool { return id >= 0 }))
			for _, v := range vcs {
				switch {
				case !v.lazy, v.filter && may:
				case some && v.unread:
					if err := v.load(); err != nil {
						return nil, err
					}
					v.take(m)
				case some || !v.unread:
					v.take(m)
				default:
					v.row += m
				}
			}
			if !some {
				continue
			}
			switch {
			case len(keyCalls) == 0:
			case one == nil && len(keyCalls) == 1: // absent: null
				for j := range gid {
					if gid[j] < 0 {
						continue
					}
					if null < 0 {
						null = newGroup([]any{nil})
					}
					gid[j] = null
				}
			case one != nil:
				for j, k := range one.at[:m] {
					if gid[j] < 0 {
						continue
					}
					var id int32
					var ok bool
					switch {
					case k < 0:
						if null < 0 {
							null = newGroup([]any{nil})
						}
						id, ok = null, true
					case one.kind == bulkString:
						b := one.str(k)
						if id, ok = strs[string(b)]; !ok {
							id = newGroup([]any{string(b)})
							strs[string(b)] = id
						}
					default:
						x := one.int(k)
						if id, ok = ints[x]; !ok {
							id = newGroup([]any{one.boxed(k)})
							ints[x] = id
						}
					}
					gid[j] = id
				}
			default:
				for j := 0; j < m; j++ {
					if gid[j] < 0 {
						continue
					}
					comp = comp[:0]
					for _, ki := range keyCalls {
						comp = appendKey(comp, colOf(ki), j)
					}
					id, ok := strs[string(comp)]
					if !ok {
						row := make([]any, len(keyCalls))
						for x, ki := range keyCalls {
							if v := colOf(ki); v != nil && v.at[j] >= 0 {
								row[x] = v.boxed(v.at[j])
							}
						}
						id = newGroup(row)
						strs[string(comp)] = id
					}
					gid[j] = id
				}
			}
			for i, c := range calls {
				a := &st[i]
				switch c.Kind {
				case AggKey:
					continue
				case AggCountStar:
					for _, id := range gid[:m] {
						if id >= 0 {
							a.n[id]++
						}
					}
					continue
				}
				if c.Concat != nil {
					if vs := cats[i]; vs != nil {
						a.foldConcat(c.Kind, vs, gid[:m])
					}
					continue
				}
				if v := colOf(i); v != nil {
					a.fold(c.Kind, v, gid[:m])
				}
			}
		}
		for _, v := range vcs {
			if v.cr.left != 0 {
				return nil, fmt.Errorf("%w: %d values missing from a column chunk", errPageFormat, v.cr.left)
			}
		}
	}
	out := make([][]any, 0, len(keys))
	for id := range keys {
		row := make([]any, len(calls))
		k := 0
		for i, c := range calls {
			a := &st[i]
			switch c.Kind {
			case AggKey:
				row[i] = keys[id][k]
				k++
			case AggCountStar, AggCount:
				row[i] = a.n[id]
			default:
				if c.Concat != nil {
					if a.n[id] > 0 {
						row[i] = string(a.s[id])
					}
					continue
				}
				v := colOf(i)
				if v == nil || a.n[id] == 0 {
					continue
				}
				switch {
				case c.Kind == AggSumBigInt:
					row[i] = a.i[id]
				case v.kind == bulkString:
					row[i] = string(a.s[id])
				case v.kind == bulkInt8:
					row[i] = int8(a.i[id])
				case v.kind == bulkInt32:
					row[i] = int32(a.i[id])
				default:
					row[i] = a.i[id]
				}
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// fold folds the batch's values of column v in the rows that pass (gid
// >= 0) into the call's groups, one loop per kind of call and column.
func (a *groupState) fold(kind AggKind, v *vecCol, gid []int32) {
	at := v.at[:len(gid)]
	switch {
	case kind == AggCount:
		for j, k := range at {
			if id := gid[j]; k >= 0 && id >= 0 {
				a.n[id]++
			}
		}
	case v.kind == bulkString:
		data, offs, ends := v.src.data, v.src.offs, v.src.ends
		max := kind == AggMax
		for j, k := range at {
			id := gid[j]
			if k < 0 || id < 0 {
				continue
			}
			var x []byte
			if ends != nil {
				x = data[offs[k]:ends[k]]
			} else {
				x = data[offs[k]:offs[k+1]]
			}
			if a.n[id] > 0 {
				// The first bytes decide most comparisons of unsorted
				// values, without a call.
				best := a.s[id]
				if len(x) > 0 && len(best) > 0 && x[0] != best[0] {
					if (x[0] > best[0]) != max {
						a.n[id]++
						continue
					}
				} else if c := bytes.Compare(x, best); (max && c <= 0) || (!max && c >= 0) {
					a.n[id]++
					continue
				}
			}
			a.s[id] = append(a.s[id][:0], x...)
			a.n[id]++
		}
	case v.kind == bulkInt64:
		foldGroupInts(a, kind, v.src.i64, false, at, gid)
	default:
		foldGroupInts(a, kind, v.src.i32, v.kind == bulkInt8, at, gid)
	}
}

// foldGroupInts is fold of an integer column's values vals (TINYINT
// values cut to 8 bits when tiny, as vecCol.int reads them).
func foldGroupInts[T int32 | int64](a *groupState, kind AggKind, vals []T, tiny bool, at, gid []int32) {
	sum, max := kind.sum(), kind == AggMax
	for j, k := range at {
		id := gid[j]
		if k < 0 || id < 0 {
			continue
		}
		x := int64(vals[k])
		if tiny {
			x = int64(int8(x))
		}
		switch {
		case sum:
			a.i[id] += x
		case a.n[id] == 0 || (max && x > a.i[id]) || (!max && x < a.i[id]):
			a.i[id] = x
		}
		a.n[id]++
	}
}

// foldConcat folds the batch's rows that pass (gid >= 0) into a Concat
// call's groups: a row with a null piece has no value; MIN and MAX
// compare the concatenation with the group's best piece by piece and copy
// it only when it wins.
func (a *groupState) foldConcat(kind AggKind, vs []*vecCol, gid []int32) {
rows:
	for j, id := range gid {
		if id < 0 {
			continue
		}
		for _, v := range vs {
			if v.at[j] < 0 {
				continue rows
			}
		}
		if kind != AggCount {
			if a.n[id] > 0 {
				cmp := compareConcat(vs, j, a.s[id])
				if (kind == AggMax && cmp <= 0) || (kind == AggMin && cmp >= 0) {
					a.n[id]++
					continue
				}
			}
			b := a.s[id][:0]
			for _, v := range vs {
				b = append(b, v.str(v.at[j])...)
			}
			a.s[id] = b
		}
		a.n[id]++
	}
}

// compareConcat compares the concatenation of row j's pieces vs (none
// null) with best in byte order, as bytes.Compare of the two would.
func compareConcat(vs []*vecCol, j int, best []byte) int {
	for _, v := range vs {
		s := v.str(v.at[j])
		if len(s) > len(best) {
			if c := bytes.Compare(s[:len(best)], best); c != 0 {
				return c
			}
			return 1 // best is a proper prefix of the concatenation
		}
		if c := bytes.Compare(s, best[:len(s)]); c != 0 {
			return c
		}
		best = best[len(s):]
	}
	if len(best) > 0 {
		return -1 // the concatenation is a proper prefix of best
	}
	return 0
}

// appendKey appends row j's value of column v (nil: absent, null) to a
// composite key: a null marker, or the value's bytes (strings with their
// length, so that the concatenation decodes one way).
func appendKey(b []byte, v *vecCol, j int) []byte {
	if v == nil || v.at[j] < 0 {
		return append(b, 0)
	}
	if v.kind == bulkString {
		s := v.str(v.at[j])
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		return append(b, s...)
	}
	return binary.LittleEndian.AppendUint64(append(b, 1), uint64(v.int(v.at[j])))
}

// filterBatch marks the rows of the batch that fail p (their gid -1) from
// the value indexes of its tests' columns vs (one per disjunct with Or).
func filterBatch(p *Pred, vs []*vecCol, gid []int32) {
	if p.Or == nil && !p.IsNull && len(p.Ranges) == 1 {
		filterRange(&p.Ranges[0], vs[0], gid)
		return
	}
	if p.Or == nil {
		v := vs[0]
		for j, k := range v.at[:len(gid)] {
			if gid[j] >= 0 && !p.passes(v, k) {
				gid[j] = -1
			}
		}
		return
	}
	for j := range gid {
		if gid[j] < 0 {
			continue
		}
		ok := false
		for x := range p.Or {
			if p.Or[x].passes(vs[x], vs[x].at[j]) {
				ok = true
				break
			}
		}
		if !ok {
			gid[j] = -1
		}
	}
}

// passes tests value index k of column v (-1: null) against p (no Or).
func (p *Pred) passes(v *vecCol, k int32) bool {
	switch {
	case p.IsNull:
		return k < 0
	case k < 0:
		return false
	case v.kind == bulkString:
		return p.hasStr(v.str(k))
	}
	return p.hasInt(v.int(k))
}

// rowGroupMayPass reports whether a row group can hold a row that passes
// preds, by its column chunks' min_value/max_value statistics (the ones
// ordered by the column's logical type; an absent max, or bounds of the
// wrong width, say nothing). Null counts are not used: a writer may omit
// them.
func rowGroupMayPass(chunks []pformat.ColumnChunk, cols []colReader, preds []Pred) bool {
	for i := range preds {
		p := &preds[i]
		if p.Or == nil {
			if !chunkMayPass(chunks, cols, p) {
				return false
			}
			continue
		}
		some := false
		for x := range p.Or {
			if chunkMayPass(chunks, cols, &p.Or[x]) {
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

// chunkMayPass is rowGroupMayPass of one test (no Or).
func chunkMayPass(chunks []pformat.ColumnChunk, cols []colReader, p *Pred) bool {
	if p.IsNull {
		return true
	}
	col := cols[p.Field]
	if col.leaf >= len(chunks) {
		return true
	}
	s := &chunks[col.leaf].MetaData.Statistics
	switch col.bulk {
	case bulkString:
		return len(s.MaxValue) == 0 || p.mayHaveStr(s.MinValue, s.MaxValue)
	case bulkInt64:
		return len(s.MinValue) != 8 || len(s.MaxValue) != 8 ||
			p.mayHaveInt(int64(binary.LittleEndian.Uint64(s.MinValue)), int64(binary.LittleEndian.Uint64(s.MaxValue)))
	}
	return len(s.MinValue) != 4 || len(s.MaxValue) != 4 ||
		p.mayHaveInt(int64(int32(binary.LittleEndian.Uint32(s.MinValue))), int64(int32(binary.LittleEndian.Uint32(s.MaxValue))))
}

// firstCol is the projection field of the first call or conjunct
// reading leaf l.
func firstCol(cols []colReader, calls []AggCall, preds []Pred, l int) int {
	for _, c := range calls {
		for _, f := range c.Concat {
			if cols[f].leaf == l {
				return f
			}
		}
		if c.Kind != AggCountStar && c.Concat == nil && cols[c.Arg].leaf == l {
			return c.Arg
		}
	}
	for i := range preds {
		f := -1
		preds[i].fields(func(x int) {
			if f < 0 && cols[x].leaf == l {
				f = x
			}
		})
		if f >= 0 {
			return f
		}
	}
	return -1
}

// filterRange is filterBatch of a test of one range (the common WHERE
// x < c, x BETWEEN a AND b): the bounds are decided once, not per value
// (Pred.hasStr and hasInt per value are the reference, see
// TestFilterRangeMatchesPred).
func filterRange(r *PredRange, v *vecCol, gid []int32) {
	at := v.at[:len(gid)]
	if v.kind == bulkString {
		lo, hi := r.Lo, r.Hi
		data, offs, ends := v.src.data, v.src.offs, v.src.ends
		for j, k := range at {
			if gid[j] < 0 {
				continue
			}
			if k < 0 {
				gid[j] = -1
				continue
			}
			var x []byte
			if ends != nil {
				x = data[offs[k]:ends[k]]
			} else {
				x = data[offs[k]:offs[k+1]]
			}
			// The first bytes decide most tests without a call.
			if !lo.Unbounded {
				c := 0
				if len(x) > 0 && len(lo.Str) > 0 && x[0] != lo.Str[0] {
					c = int(x[0]) - int(lo.Str[0])
				} else {
					c = bytes.Compare(x, lo.Str)
				}
				if c < 0 || c == 0 && !lo.Closed {
					gid[j] = -1
					continue
				}
			}
			if !hi.Unbounded {
				c := 0
				if len(x) > 0 && len(hi.Str) > 0 && x[0] != hi.Str[0] {
					c = int(x[0]) - int(hi.Str[0])
				} else {
					c = bytes.Compare(x, hi.Str)
				}
				if c > 0 || c == 0 && !hi.Closed {
					gid[j] = -1
				}
			}
		}
		return
	}
	// Integers: the range as inclusive bounds [lo, hi].
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !r.Lo.Unbounded {
		lo = r.Lo.Int
		if !r.Lo.Closed {
			if lo == math.MaxInt64 {
				for j := range gid {
					gid[j] = -1
				}
				return
			}
			lo++
		}
	}
	if !r.Hi.Unbounded {
		hi = r.Hi.Int
		if !r.Hi.Closed {
			if hi == math.MinInt64 {
				for j := range gid {
					gid[j] = -1
				}
				return
			}
			hi--
		}
	}
	switch v.kind {
	case bulkInt64:
		vals := v.src.i64
		for j, k := range at {
			if gid[j] >= 0 && (k < 0 || vals[k] < lo || vals[k] > hi) {
				gid[j] = -1
			}
		}
	case bulkInt8:
		vals := v.src.i32
		for j, k := range at {
			if gid[j] >= 0 && (k < 0 || int64(int8(vals[k])) < lo || int64(int8(vals[k])) > hi) {
				gid[j] = -1
			}
		}
	default:
		vals := v.src.i32
		for j, k := range at {
			if gid[j] >= 0 && (k < 0 || int64(vals[k]) < lo || int64(vals[k]) > hi) {
				gid[j] = -1
			}
		}
	}
}
