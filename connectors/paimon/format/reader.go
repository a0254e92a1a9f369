package format

import (
	"fmt"
	"io"
	"slices"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// File is an open data file: Parquet, or ORC or Avro (alien, see
// foreign.go).
type File struct {
	name     string
	alien    foreign
	pf       *parquet.File
	index    map[string]int // top-level field position by name
	leafBase []int          // first leaf column of each top-level field
	nleaves  int
	// pagesSkipped counts the data pages the column path's filtered
	// aggregates passed over unread (no row of theirs passes).
	pagesSkipped int
}

func countLeaves(n parquet.Node) int {
	if n.Leaf() {
		return 1
	}
	c := 0
	for _, f := range n.Fields() {
		c += countLeaves(f)
	}
	return c
}

// Open opens a data file for reading. name is used in errors (and to reject
// orc/avro files); size must be the exact file size.
func Open(r io.ReaderAt, size int64, name string) (f *File, err error) {
	if err := CheckReadable(name); err != nil {
		return nil, err
	}
	switch FormatOf(name) {
	case "orc":
		return openORC(r, size, name)
	case "avro":
		return openAvro(r, size, name)
	case "blob":
		return openBlob(r, size, name)
	}
	defer recoverCorrupt(name, &err)
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", name, err)
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", name, err)
	}
	f = &File{name: name, pf: pf, index: map[string]int{}}
	leaf := 0
	for i, fl := range pf.Schema().Fields() {
		f.index[fl.Name()] = i
		f.leafBase = append(f.leafBase, leaf)
		leaf += countLeaves(fl)
	}
	f.nleaves = leaf
	return f, nil
}

// NumRows is the row count from the footer.
func (f *File) NumRows() int64 {
	if f.alien != nil {
		return f.alien.numRows()
	}
	return f.pf.NumRows()
}

// ColumnNames lists the file's columns in file order.
func (f *File) ColumnNames() []string {
	if f.alien != nil {
		return append([]string(nil), f.alien.columns()...)
	}
	out := make([]string, 0, len(f.index))
	for _, fl := range f.pf.Schema().Fields() {
		out = append(out, fl.Name())
	}
	return out
}

// FieldIDs returns the Parquet field_id of each column by name (0 when
// absent).
func (f *File) FieldIDs() map[string]int {
	out := map[string]int{}
	if f.alien != nil {
		for i, n := range f.alien.columns() {
			out[n] = f.alien.fieldIDs()[i]
		}
		return out
	}
	for _, fl := range f.pf.Schema().Fields() {
		out[fl.Name()] = fl.ID()
	}
	return out
}

func (f *File) hasColumn(name string) bool {
	if f.alien != nil {
		for _, n := range f.alien.columns() {
			if n == name {
				return true
			}
		}
		return false
	}
	_, ok := f.index[name]
	return ok
}

// colReader converts one file column to the wanted type.
type colReader struct {
	leaf   int // -1: column absent (added later): always null
	target sql.DataType
	conv   func(parquet.Value) (any, error)
	asm    *asmNode // nested columns: reassembly tree
	post   caster   // nested columns: schema evolution of the assembled value (evolve_nested.go)
	bulk   bulkKind // flat columns: columnar fast path (bulkNone: use conv)
	maxDef byte     // flat columns: 1 when optional
}

// Projection says which fields to produce, mapped from the schema the file
// was written with to the wanted schema by field id.
type Projection struct {
	// FileFields are the fields of the schema the file was written with
	// (DataFileMeta schema id); columns are found by these names.
	FileFields []schema.Field
	// Fields are the wanted output fields (usually a projection of the
	// current schema). A field whose id is not in FileFields (added later)
	// reads as null; a type change is converted with the cast Paimon's
	// CastExecutors resolves (evolve.go).
	Fields []schema.Field
	// Deleted, if set, drops the rows at the positions it marks (Paimon's
	// deletion vectors, see ReadDeletionVector).
	Deleted DeletionVector
	// ORCInstantLTZ is the table option 'orc.timestamp-ltz.legacy.type' =
	// 'false': ORC TIMESTAMP_LTZ values are the instants stored. With
	// Paimon's default (legacy) they are the stored instants' wall clock
	// in the writer's time zone (orcdata.go).
	ORCInstantLTZ bool
}

func (f *File) column(name string, target sql.DataType) (_ colReader, err error) {
	defer recoverCorrupt(f.name, &err)
	i, ok := f.index[name]
	if !ok {
		return colReader{}, fmt.Errorf("parquet file %s has no column %s (columns: %v)", f.name, name, f.ColumnNames())
	}
	node := f.pf.Schema().Fields()[i]
	if isNested(target) || !node.Leaf() {
		def := 0
		a, err := buildAsm(node, target, f.leafBase[i], &def, 0)
		if err != nil {
			return colReader{}, fmt.Errorf("parquet file %s column %s: %w", f.name, name, err)
		}
		return colReader{leaf: f.leafBase[i], target: target, asm: a}, nil
	}
	conv, err := converter(node.Type(), target)
	if err != nil {
		return colReader{}, fmt.Errorf("parquet file %s column %s: %w", f.name, name, err)
	}
	c := colReader{leaf: f.leafBase[i], target: target, conv: conv}
	if !node.Repeated() {
		c.bulk = bulkKindOf(node.Type().Kind(), target)
		if node.Optional() {
			c.maxDef = 1
		}
	}
	return c, nil
}

// asmNode reassembles one nested value from its leaves' (repetition,
// definition) streams (Dremel record assembly).
type asmNode struct {
	kind     sql.TypeRoot // TypeArray, TypeMap, TypeRow, or 0 for a leaf
	maxDef   int          // definition level at which this node is non-null
	repDepth int          // lists/maps: repetition level of their entries
	leaf     int          // leaves: column index
	conv     func(parquet.Value) (any, error)
	kids     []*asmNode
	leaves   []int // all leaf columns below
}

// buildAsm maps a Parquet node to the wanted type. def is the definition
// level of the parent, rdepth its repetition depth.
func buildAsm(n parquet.Node, t sql.DataType, leaf int, def *int, rdepth int) (*asmNode, error) {
	d := *def
	if n.Optional() {
		d++
	}
	a := &asmNode{kind: t.Root, maxDef: d}
	if !isNested(t) {
		if !n.Leaf() {
			return nil, fmt.Errorf("group where %s was expected", t)
		}
		conv, err := converter(n.Type(), t)
		if err != nil {
			return nil, err
		}
		a.kind, a.leaf, a.conv, a.leaves = 0, leaf, conv, []int{leaf}
		return a, nil
	}
	if n.Leaf() {
		return nil, fmt.Errorf("leaf column where %s was expected", t)
	}
	switch t.Root {
	case sql.TypeArray, sql.TypeMap:
		// <group> → repeated group (list / key_value / legacy names) → entries.
		fs := n.Fields()
		if len(fs) != 1 || !fs[0].Repeated() || fs[0].Leaf() {
			return nil, fmt.Errorf("unsupported %s layout %s", t, n)
		}
		rep := fs[0]
		rd := d + 1
		a.repDepth = rdepth + 1
		entries := rep.Fields()
		if t.Root == sql.TypeArray {
			if len(entries) != 1 {
				return nil, fmt.Errorf("unsupported list layout %s", n)
			}
			e, err := buildAsm(entries[0], *t.Elem, leaf, &rd, rdepth+1)
			if err != nil {
				return nil, err
			}
			a.kids = []*asmNode{e}
		} else {
			if len(entries) != 2 {
				return nil, fmt.Errorf("unsupported map layout %s", n)
			}
			k, err := buildAsm(entries[0], t.Elem.NotNull(), leaf, &rd, rdepth+1)
			if err != nil {
				return nil, err
			}
			v, err := buildAsm(entries[1], *t.Value, leaf+len(k.leaves), &rd, rdepth+1)
			if err != nil {
				return nil, err
			}
			a.kids = []*asmNode{k, v}
		}
	case sql.TypeRow:
		byName := map[string]int{}
		j := leaf
		starts := map[string]int{}
		for i, f := range n.Fields() {
			byName[f.Name()] = i
			starts[f.Name()] = j
			j += countLeaves(f)
		}
		fs := n.Fields()
		for _, want := range t.Fields {
			i, ok := byName[want.Name]
			if !ok {
				return nil, fmt.Errorf("nested field %s missing", want.Name)
			}
			dd := d
			k, err := buildAsm(fs[i], want.Type, starts[want.Name], &dd, rdepth)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", want.Name, err)
			}
			a.kids = append(a.kids, k)
		}
		if len(t.Fields) != len(fs) {
			return nil, fmt.Errorf("nested row has %d fields, expected %d", len(fs), len(t.Fields))
		}
	}
	for _, k := range a.kids {
		a.leaves = append(a.leaves, k.leaves...)
	}
	return a, nil
}

func (f *File) projected(p Projection, prefix string) ([]colReader, error) {
	out := make([]colReader, len(p.Fields))
	for i, want := range p.Fields {
		src := -1
		for j, ff := range p.FileFields {
			if ff.ID == want.ID {
				src = j
				break
			}
		}
		if src < 0 {
			out[i] = colReader{leaf: -1, target: want.Type}
			continue
		}
		ff := p.FileFields[src]
		c, err := f.column(prefix+ff.Name, ff.Type)
		if err != nil {
			return nil, err
		}
		if c.asm != nil {
			post, err := nestedEvolution(ff, want)
			if err != nil {
				return nil, fmt.Errorf("parquet file %s column %s: %w", f.name, want.Name, err)
			}
			c.post, c.target = post, want.Type
		} else if !ff.Type.WithNullable(true).Equal(want.Type.WithNullable(true)) {
			inner := c.conv
			from, to := ff.Type, want.Type
			cast, err := evolveCast(from, to)
			if err != nil {
				return nil, fmt.Errorf("parquet file %s column %s: %w", f.name, want.Name, err)
			}
			c.conv = func(v parquet.Value) (any, error) {
				x, err := inner(v)
				if err != nil || x == nil {
					return x, err
				}
				return cast(x)
			}
			c.target = to
			c.bulk = bulkNone
		}
		out[i] = c
	}
	return out, nil
}

// cursor streams one column's values page by page.
type cursor struct {
	pages parquet.Pages
	page  parquet.Page
	buf   []parquet.Value
	n, i  int
	vr    parquet.ValueReader
}

func (c *cursor) next() (parquet.Value, error) {
	for c.i >= c.n {
		if c.vr == nil {
			if c.page != nil {
				parquet.Release(c.page)
				c.page = nil
			}
			p, err := c.pages.ReadPage()
			if err != nil {
				return parquet.Value{}, err
			}
			c.page = p
			c.vr = p.Values()
		}
		n, err := c.vr.ReadValues(c.buf)
		c.n, c.i = n, 0
		if err == io.EOF || (err == nil && n == 0) { // a reader making no progress is done
			c.vr = nil
		} else if err != nil {
			return parquet.Value{}, err
		}
	}
	v := c.buf[c.i]
	c.i++
	return v, nil
}

// fill copies up to len(out) next values into out.
func (c *cursor) fill(out []parquet.Value) (int, error) {
	if c.i >= c.n {
		if _, err := c.next(); err != nil {
			return 0, err
		}
		c.i--
	}
	n := copy(out, c.buf[c.i:c.n])
	c.i += n
	return n, nil
}

// peek returns the next value without consuming it.
func (c *cursor) peek() (parquet.Value, error) {
	v, err := c.next()
	if err == nil {
		c.i--
	}
	return v, err
}

func (c *cursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
	}
	if c.pages != nil {
		c.pages.Close()
	}
}

// rowReader assembles rows from column cursors, row group by row group.
//
// Flat columns are decoded a batch of rows at a time, column by column (a
// tight loop per column is several times cheaper than going value by value
// across columns), straight into a slab that holds the batch's rows
// row-major, one slot per colReader; nested columns are assembled into
// their slots row by row as advance reaches each row. A slab is allocated
// per batch and never written again once its rows are handed out, so the
// iterators return sub-slices of it that callers may retain.
type rowReader struct {
	f       *File
	cols    []colReader
	width   int   // slots per row (len(cols))
	first   []int // by leaf: the first slot reading it (flat leaves)
	dups    []int // flat slots whose leaf is already read by an earlier slot
	nested  []int // slots of nested columns
	slab    []any // the current batch, row-major
	batchK  int   // rows per batch
	leaves  []int // distinct leaf indexes to read
	flat    []int // leaves read one value per row (non-nested columns)
	rg      int
	left    int64      // rows of the current row group not yet batched
	cursors []*cursor  // by leaf index (nil: not read)
	bulks   []*bulkCol // by leaf index: flat columns on the columnar path
	kinds   []bulkKind // by leaf index
	maxDefs []byte     // by leaf index
	convs   []func(parquet.Value) (any, error)
	batch   [][]any // by leaf: converted values of the current batch (value-by-value path)
	bi, bn  int     // current row in the batch, rows in the batch
	tmp     []parquet.Value
	err     error
	pos     int64 // position of the next row in the file
	// lean trades speed for memory (KVIterator.Lean): pages are
	// decompressed into each column's reused buffer and strings copied
	// out of it as they are read, and the columns share one buffer of
	// compressed bytes.
	lean bool
	comp []byte
	// filtered (FilteredRows): row groups whose statistics exclude filter
	// are not read, and each batch keeps only the rows that pass filter
	// and that deleted does not mark; next is the file position of the
	// next row to be batched.
	filtered bool
	filter   []Pred
	deleted  DeletionVector
	next     int64
	skipped  int       // row groups not read
	fleaves  []int     // the leaves the filter reads
	fat      [][]int32 // by leaf: the batch's value indexes of a filter leaf (bulkCol.peek)
	pass     []bool    // the batch's rows that pass
	// indexed: the current row group's filter leaves are read page
	// header first and tested by their column indexes (bulkCol.ci)
	// before their values are decoded.
	indexed bool
	// pagesSkipped counts the data pages a filtered reader passed over
	// without reading them (no row of theirs passes).
	pagesSkipped int
}

// batchRows is how many rows are decoded per batch.
const batchRows = 256

func newRowReader(f *File, cols []colReader) *rowReader {
	n := f.nleaves
	r := &rowReader{f: f, rg: -1, cursors: make([]*cursor, n), convs: make([]func(parquet.Value) (any, error), n),
		batch: make([][]any, n), tmp: make([]parquet.Value, batchRows),
		bulks: make([]*bulkCol, n), kinds: make([]bulkKind, n), maxDefs: make([]byte, n)}
	r.leaves, r.flat = leavesOf(cols)
	r.cols, r.width, r.first = cols, len(cols), make([]int, n)
	// A batch's slab stays a small allocation (see maxSmallAlloc): a
	// large one costs more than the smaller batches' extra refills.
	r.batchK = max(1, min(batchRows, maxSmallAlloc/(int(unsafe.Sizeof(any(nil)))*max(1, r.width))))
	for i, c := range cols {
		switch {
		case c.leaf < 0:
		case c.asm != nil:
			r.nested = append(r.nested, i)
		case r.convs[c.leaf] == nil:
			r.convs[c.leaf] = c.conv
			r.kinds[c.leaf], r.maxDefs[c.leaf] = c.bulk, c.maxDef
			r.first[c.leaf] = i
			if c.bulk == bulkNone {
				r.batch[c.leaf] = make([]any, batchRows)
			}
		default:
			r.dups = append(r.dups, i)
		}
	}
	return r
}

// row returns the current row's slots (capacity-limited: appending to it
// cannot clobber the next row).
func (r *rowReader) row() []any {
	o := r.bi * r.width
	return r.slab[o : o+r.width : o+r.width]
}

// advance positions on the next row; false at the end or on error. A row
// of the current batch without nested columns is one step; decoding (a
// new batch, nested columns) is in step, under the recover that turns a
// decoder's panic on a corrupt file into ErrCorrupt: a deferred call per
// row cost more than the step itself.
func (r *rowReader) advance() bool {
	if r.err != nil {
		return false
	}
	r.bi++
	if r.bi < r.bn && len(r.nested) == 0 {
		r.pos++
		return true
	}
	return r.step()
}

// step is advance's decoding part (see advance).
func (r *rowReader) step() (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			r.err = fmt.Errorf("%w %s: %v", ErrCorrupt, r.f.name, p)
			ok = false
		}
	}()
	if r.bi >= r.bn {
		if !r.refill() {
			return false
		}
		r.bi = 0
	}
	r.pos++
	if len(r.nested) > 0 {
		row := r.row()
		for _, i := range r.nested {
			v, err := r.assemble(r.cols[i].asm)
			if err == nil && v != nil && r.cols[i].post != nil {
				v, err = r.cols[i].post(v)
			}
			if err != nil {
				r.err = err
				return false
			}
			row[i] = v
		}
	}
	return true
}

// refill decodes the next batch of rows of every flat column; filtered,
// the next batch with a row that passes.
func (r *rowReader) refill() bool {
	for {
		if !r.refillOnce() {
			return false
		}
		if !r.filtered || r.bn > 0 {
			return true
		}
	}
}

// refillOnce decodes the next batch of rows of every flat column.
func (r *rowReader) refillOnce() bool {
	for r.left == 0 {
		r.closeCursors()
		r.rg++
		rgs := r.f.pf.RowGroups()
		if r.rg >= len(rgs) {
			return false
		}
		rg := rgs[r.rg]
		if md := r.f.pf.Metadata(); r.filtered && r.rg < len(md.RowGroups) && !rowGroupMayPass(md.RowGroups[r.rg].Columns, r.cols, r.filter) {
			r.next += rg.NumRows()
			r.skipped++
			continue
		}
		r.left = rg.NumRows()
		chunks := rg.ColumnChunks()
		for _, l := range r.leaves {
			if r.kinds[l] != bulkNone {
				b := &bulkCol{kind: r.kinds[l], maxDef: r.maxDefs[l], pageNo: -1}
				if md := r.f.pf.Metadata(); r.rg < len(md.RowGroups) && l < len(md.RowGroups[r.rg].Columns) {
					b.src = newChunkReader(r.f.pf, &md.RowGroups[r.rg].Columns[l].MetaData, md.RowGroups[r.rg].NumRows, chunks[l].Type().Kind())
					if b.src != nil && r.lean {
						b.src.lean, b.src.shared = true, &r.comp
					}
					b.skipped = &r.pagesSkipped
				}
				if b.src == nil {
					b.pages = chunks[l].Pages()
				}
				r.bulks[l] = b
				continue
			}
			r.cursors[l] = &cursor{pages: chunks[l].Pages(), buf: make([]parquet.Value, batchRows)}
		}
		r.indexed = false
		if r.filtered {
			direct := true // every filter leaf is read by the page decoder
			for _, l := range r.fleaves {
				b := r.bulks[l]
				if b.src == nil {
					direct = false
					break
				}
				b.ci = r.f.columnIndex(r.rg, l)
				r.indexed = r.indexed || b.ci != nil
			}
			r.indexed = r.indexed && direct
		}
	}
	k := r.batchK
	if r.left < int64(k) {
		k = int(r.left)
	}
	if r.filtered {
		return r.refillFiltered(k)
	}
	w := r.width
	r.slab = make([]any, k*w)
	for _, l := range r.flat {
		if b := r.bulks[l]; b != nil {
			if err := b.fill(r.slab[r.first[l]:], w, k); err != nil {
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
			continue
		}
		out, conv := r.batch[l][:k], r.convs[l]
		for n := 0; n < k; {
			m, err := r.cursors[l].fill(r.tmp[:k-n])
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
			for j, v := range r.tmp[:m] {
				if v.IsNull() {
					out[n+j] = nil
					continue
				}
				x, err := conv(v)
				if err != nil {
					r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
					return false
				}
				out[n+j] = x
			}
			n += m
		}
		for j, o := 0, r.first[l]; j < k; j, o = j+1, o+w {
			r.slab[o] = out[j]
		}
	}
	for _, i := range r.dups {
		f := r.first[r.cols[i].leaf]
		for j := 0; j < k; j++ {
			r.slab[j*w+i] = r.slab[j*w+f]
		}
	}
	r.left -= int64(k)
	r.bn = k
	return true
}

// refillFiltered is refillOnce of a filtered reader (late
// materialization): the filter's columns are tested first, on the values
// of their current pages as decoded (no value boxed, no row built), for a
// batch of at most k rows that ends within each of those pages; then only
// the rows that pass and that the deletion vector leaves are boxed into
// the slab, every other column skipping the rest. A batch no row of which
// passes boxes nothing.
func (r *rowReader) refillFiltered(k int) bool {
	for _, l := range r.fleaves {
		b := r.bulks[l]
		for b.row >= b.rows {
			next := b.nextPage
			if r.indexed {
				next = b.headPage // decoded below if its bounds let a row pass
			}
			if err := next(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
		}
		k = min(k, b.rows-b.row)
	}
	// A batch lies in one page of each filter leaf: with column indexes,
	// one in pages whose bounds exclude the filter is passed over, no
	// column decoded for it (fillSel below skips its rows).
	may := !r.indexed || r.batchMayPass()
	pass := grow(r.pass, k)
	r.pass = pass
	for j := range pass {
		pass[j] = may && (r.deleted == nil || !r.deleted.IsDeleted(r.next+int64(j)))
	}
	for _, l := range r.fleaves {
		if !may {
			break
		}
		b := r.bulks[l]
		if b.unread {
			if err := b.readBody(); err != nil {
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
		}
		if err := b.peek(&r.fat[l], k); err != nil {
			r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
			return false
		}
	}
	if may {
		for i := range r.filter {
			r.test(&r.filter[i], pass)
		}
	}
	n := 0
	for _, p := range pass {
		if p {
			n++
		}
	}
	w := r.width
	r.slab = nil
	if n > 0 {
		r.slab = make([]any, n*w)
	}
	for _, l := range r.flat {
		if b := r.bulks[l]; b != nil {
			var err error
			if n == k {
				err = b.fill(r.slab[r.first[l]:], w, k)
			} else {
				err = b.fillSel(r.slab, r.first[l], w, pass)
			}
			if err != nil {
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
			continue
		}
		conv, o := r.convs[l], r.first[l]
		for j := 0; j < k; {
			m, err := r.cursors[l].fill(r.tmp[:k-j])
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				r.err = fmt.Errorf("read parquet file %s row group %d: %w", r.f.name, r.rg, err)
				return false
			}
			for x, v := range r.tmp[:m] {
				if !pass[j+x] {
					continue
				}
				if !v.IsNull() {
					y, err := conv(v)
					if err != nil {
						r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
						return false
					}
					r.slab[o] = y
				}
				o += w
			}
			j += m
		}
	}
	for _, i := range r.dups {
		f := r.first[r.cols[i].leaf]
		for j := 0; j < n; j++ {
			r.slab[j*w+i] = r.slab[j*w+f]
		}
	}
	r.left -= int64(k)
	r.next += int64(k)
	r.bn = n
	return true
}

// batchMayPass reports whether the current batch can hold a row that
// passes every conjunct by the column indexes of its filter leaves'
// current pages.
func (r *rowReader) batchMayPass() bool {
	may := func(p *Pred) bool {
		b := r.bulks[r.cols[p.Field].leaf]
		return p.indexMayPass(b.ci, b.pageNo, b.kind, b.rows)
	}
	for i := range r.filter {
		p := &r.filter[i]
		if p.Or == nil {
			if !may(p) {
				return false
			}
			continue
		}
		if !slices.ContainsFunc(p.Or, func(s Pred) bool { return may(&s) }) {
			return false
		}
	}
	return true
}

// test clears pass[j] for the rows of the batch that fail p, from the
// value indexes of its columns (r.fat, see bulkCol.peek).
func (r *rowReader) test(p *Pred, pass []bool) {
	if p.Or == nil {
		l := r.cols[p.Field].leaf
		b, at := r.bulks[l], r.fat[l][:len(pass)]
		for j, x := range at {
			if pass[j] && !b.holds(p, x) {
				pass[j] = false
			}
		}
		return
	}
	for j := range pass {
		if !pass[j] {
			continue
		}
		ok := false
		for x := range p.Or {
			s := &p.Or[x]
			l := r.cols[s.Field].leaf
			if r.bulks[l].holds(s, r.fat[l][j]) {
				ok = true
				break
			}
		}
		pass[j] = ok
	}
}

func (r *rowReader) closeCursors() {
	for i, c := range r.cursors {
		if c != nil {
			c.close()
			r.cursors[i] = nil
		}
	}
	for i, b := range r.bulks {
		if b != nil {
			b.close()
			r.bulks[i] = nil
		}
	}
}

// skip consumes one (null or empty) position from every leaf below n.
func (r *rowReader) skip(n *asmNode) error {
	for _, l := range n.leaves {
		if _, err := r.cursors[l].next(); err != nil {
			return err
		}
	}
	return nil
}

func (r *rowReader) assemble(n *asmNode) (any, error) {
	if n.kind == 0 {
		v, err := r.cursors[n.leaf].next()
		if err != nil {
			return nil, err
		}
		if v.DefinitionLevel() < n.maxDef {
			return nil, nil
		}
		return n.conv(v)
	}
	first, err := r.cursors[n.leaves[0]].peek()
	if err != nil {
		return nil, err
	}
	if first.DefinitionLevel() < n.maxDef {
		return nil, r.skip(n)
	}
	switch n.kind {
	case sql.TypeRow:
		out := make([]any, len(n.kids))
		for i, k := range n.kids {
			if out[i], err = r.assemble(k); err != nil {
				return nil, err
			}
		}
		return out, nil
	case sql.TypeArray, sql.TypeMap:
		var arr []any
		m := &sql.Map{}
		if first.DefinitionLevel() < n.maxDef+1 { // empty
			if err := r.skip(n); err != nil {
				return nil, err
			}
		} else {
			for {
				if n.kind == sql.TypeArray {
					e, err := r.assemble(n.kids[0])
					if err != nil {
						return nil, err
					}
					arr = append(arr, e)
				} else {
					k, err := r.assemble(n.kids[0])
					if err != nil {
						return nil, err
					}
					v, err := r.assemble(n.kids[1])
					if err != nil {
						return nil, err
					}
					m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
				}
				nx, err := r.cursors[n.leaves[0]].peek()
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, err
				}
				if nx.RepetitionLevel() != n.repDepth {
					break
				}
			}
		}
		if n.kind == sql.TypeMap {
			return m, nil
		}
		if arr == nil {
			arr = []any{}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("cannot assemble %v", n.kind)
}

// KVIterator iterates the KeyValues of a primary-key file in file order
// (ascending key). Contract, as pebble's iterators: Next returns the next
// record or nil when exhausted or on error; Error reports the error; Close
// is mandatory. Returned records are freshly allocated and may be
// retained.
type KVIterator struct {
	rr        *rowReader
	keys      []colReader
	seq, kind colReader
	vals      []colReader
	level     int
	err       error
	deleted   DeletionVector
	slab      []kv.KeyValue  // records are cut from it, one allocation per batch
	alt       *foreignReader // ORC and Avro files (foreign.go)
	nkeys     int            // with alt: the number of key columns
}

// Lean makes the iterator hold less memory per column, for merges that
// read many files at once (compaction, the write buffer's flush): a page
// of strings is decompressed into the column's reused buffer and its
// values copied out in small chunks as they are read, instead of into a
// page of its own with a string header per value that the values point
// into (twice the page's size for short strings, retained until the last
// value read from it is dropped), and all columns share one buffer of
// compressed bytes. Call it before the first Next.
func (it *KVIterator) Lean() {
	if it.rr != nil {
		it.rr.lean = true
	}
}

// KeyValues reads a primary-key file. keys and p map by field id: keys are
// the trimmed primary-key fields (of the file schema and wanted schema,
// matched by id, read from _KEY_<file name>), p the value projection.
// level is stamped on every KeyValue.
func (f *File) KeyValues(fileKeys []schema.Field, wantKeys []schema.Field, p Projection, level int) (*KVIterator, error) {
	prefix := KeyPrefix
	if len(fileKeys) > 0 {
		if !f.hasColumn(KeyPrefix + fileKeys[0].Name) {
			// data-file.thin-mode: no _KEY_ columns, keys are the value columns.
			prefix = ""
		}
	}
	if f.alien != nil {
		var srcs []int
		var types []sql.DataType
		keys, err := f.foreignProjected(Projection{FileFields: fileKeys, Fields: wantKeys}, prefix, &srcs, &types)
		if err != nil {
			return nil, err
		}
		for i, k := range keys {
			if k.src < 0 {
				return nil, fmt.Errorf("%s file %s: key field %s not in the file's schema", FormatOf(f.name), f.name, wantKeys[i].Name)
			}
		}
		vals, err := f.foreignProjected(p, "", &srcs, &types)
		if err != nil {
			return nil, err
		}
		return f.foreignKeyValues(keys, vals, srcs, types, level, p)
	}
	keys, err := f.projected(Projection{FileFields: fileKeys, Fields: wantKeys}, prefix)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if k.leaf < 0 {
			return nil, fmt.Errorf("parquet file %s: key field %s not in the file's schema", f.name, wantKeys[i].Name)
		}
	}
	seq, err := f.column(SequenceNumberField, sql.BigInt().NotNull())
	if err != nil {
		return nil, err
	}
	kind, err := f.column(ValueKindField, sql.TinyInt().NotNull())
	if err != nil {
		return nil, err
	}
	vals, err := f.projected(p, "")
	if err != nil {
		return nil, err
	}
	return &KVIterator{rr: newRowReader(f, append(append(append([]colReader(nil), keys...), seq, kind), vals...)), keys: keys, seq: seq, kind: kind, vals: vals, level: level, deleted: p.Deleted}, nil
}

// leavesOf returns all leaf columns to open and those read one value per
// row.
func leavesOf(cs []colReader) (all, flat []int) {
	seen := map[int]bool{}
	for _, c := range cs {
		if c.leaf < 0 {
			continue
		}
		ls := []int{c.leaf}
		if c.asm != nil {
			ls = c.asm.leaves
		} else if !seen[c.leaf] {
			flat = append(flat, c.leaf)
		}
		for _, l := range ls {
			if !seen[l] {
				seen[l] = true
				all = append(all, l)
			}
		}
	}
	return all, flat
}

// Next returns the next KeyValue or nil.
func (it *KVIterator) Next() *kv.KeyValue {
	if it.alt != nil {
		return it.nextForeign()
	}
	for {
		r := it.next()
		if r == nil || it.deleted == nil || !it.deleted.IsDeleted(it.rr.pos-1) {
			return r
		}
	}
}

func (it *KVIterator) next() *kv.KeyValue {
	if it.err != nil || !it.rr.advance() {
		if it.err == nil {
			it.err = it.rr.err
		}
		return nil
	}
	// Slots: keys, _SEQUENCE_NUMBER, _VALUE_KIND, values (newRowReader order).
	row := it.rr.row()
	nk := len(it.keys)
	s, ok := row[nk].(int64)
	if !ok {
		it.err = fmt.Errorf("parquet file %s: bad %s %v", it.rr.f.name, SequenceNumberField, row[nk])
		return nil
	}
	k, ok := row[nk+1].(int8)
	if !ok || !sql.RowKind(k).Valid() {
		it.err = fmt.Errorf("parquet file %s: bad %s %v", it.rr.f.name, ValueKindField, row[nk+1])
		return nil
	}
	if len(it.slab) == 0 {
		it.slab = make([]kv.KeyValue, batchRows)
	}
	r := &it.slab[0]
	it.slab = it.slab[1:]
	r.Key, r.Seq, r.Kind, r.Value, r.Level = row[:nk:nk], s, sql.RowKind(k), row[nk+2:], it.level
	return r
}

// Error returns the error that stopped iteration, if any.
func (it *KVIterator) Error() error { return it.err }

// Close releases the iterator.
func (it *KVIterator) Close() error {
	if it.rr != nil {
		it.rr.closeCursors()
	}
	return nil
}

// RowIterator iterates the rows of an append file (same contract as
// KVIterator).
type RowIterator struct {
	rr      *rowReader
	alt     *foreignReader // ORC and Avro files (foreign.go)
	vals    []colReader
	err     error
	deleted DeletionVector
}

// Rows reads an append file (or the value columns of a primary-key file).
func (f *File) Rows(p Projection) (*RowIterator, error) {
	if f.alien != nil {
		var srcs []int
		var types []sql.DataType
		vals, err := f.foreignProjected(p, "", &srcs, &types)
		if err != nil {
			return nil, err
		}
		fr, err := f.foreignReader(srcs, types, vals, p)
		if err != nil {
			return nil, err
		}
		return &RowIterator{alt: fr, deleted: p.Deleted}, nil
	}
	vals, err := f.projected(p, "")
	if err != nil {
		return nil, err
	}
	return &RowIterator{rr: newRowReader(f, vals), vals: vals, deleted: p.Deleted}, nil
}

// FilteredRows is Rows of only the rows that pass every conjunct of
// filter, tested a batch at a time before any row leaves the reader:
// row groups whose column statistics exclude a conjunct are not read (as
// Paimon's Parquet reader drops row groups by a pushed predicate), and
// the deletion vector is applied to each batch too. ok is false, with
// nothing read, for a file the batch test does not take (ORC or Avro, a
// nested column, a conjunct on a column not read through the column
// path); the caller then tests Rows one by one.
func (f *File) FilteredRows(p Projection, filter []Pred) (it *RowIterator, ok bool, err error) {
	if f.alien != nil {
		return nil, false, nil
	}
	vals, err := f.projected(p, "")
	if err != nil {
		return nil, false, err
	}
	for _, c := range vals {
		if c.asm != nil {
			return nil, false, nil
		}
	}
	preds, none, pok := present(vals, filter) // the conjuncts on columns the file has
	if !pok {
		return nil, false, nil
	}
	rr := newRowReader(f, vals)
	rr.filtered, rr.filter, rr.deleted = true, preds, p.Deleted
	rr.fat = make([][]int32, f.nleaves)
	for i := range preds {
		preds[i].fields(func(x int) {
			l := vals[x].leaf
			for _, have := range rr.fleaves {
				if have == l {
					return
				}
			}
			rr.fleaves = append(rr.fleaves, l)
		})
	}
	for _, l := range rr.fleaves {
		if rr.kinds[l] == bulkNone {
			return nil, false, nil
		}
	}
	if none {
		rr.rg = len(f.pf.RowGroups())
	}
	return &RowIterator{rr: rr, vals: vals}, true, nil
}

// Next returns the next row or nil.
func (it *RowIterator) Next() []any {
	if it.alt != nil {
		return it.nextForeign()
	}
	for {
		r := it.next()
		if r == nil || it.deleted == nil || !it.deleted.IsDeleted(it.rr.pos-1) {
			return r
		}
	}
}

func (it *RowIterator) next() []any {
	if it.err != nil || !it.rr.advance() {
		if it.err == nil {
			it.err = it.rr.err
		}
		return nil
	}
	return it.rr.row()
}

// Error returns the error that stopped iteration, if any.
func (it *RowIterator) Error() error { return it.err }

// Close releases the iterator.
func (it *RowIterator) Close() error {
	if it.rr != nil {
		it.rr.closeCursors()
	}
	return nil
}

// timeUnit returns the unit of an INT64 TIMESTAMP column, or 0 if the
// column has no timestamp annotation.
func timeUnit(t parquet.Type) time.Duration {
	if lt := t.LogicalType(); lt != nil {
		if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
			return ts.Unit.Value.Duration()
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.TimestampMillis:
			return time.Millisecond
		case deprecated.TimestampMicros:
			return time.Microsecond
		}
	}
	return 0
}

// converter builds the Parquet→Go conversion of a column to the file
// schema's type.
func converter(pt parquet.Type, t sql.DataType) (func(parquet.Value) (any, error), error) {
	kind := pt.Kind()
	need := func(k parquet.Kind) error {
		if kind != k {
			return fmt.Errorf("physical type %s cannot hold %s", kind, t)
		}
		return nil
	}
	switch t.Root {
	case sql.TypeBoolean:
		return func(v parquet.Value) (any, error) { return v.Boolean(), nil }, need(parquet.Boolean)
	case sql.TypeTinyInt:
		return func(v parquet.Value) (any, error) { return int8(v.Int32()), nil }, need(parquet.Int32)
	case sql.TypeSmallInt:
		return func(v parquet.Value) (any, error) { return int16(v.Int32()), nil }, need(parquet.Int32)
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		return func(v parquet.Value) (any, error) { return v.Int32(), nil }, need(parquet.Int32)
	case sql.TypeBigInt:
		return func(v parquet.Value) (any, error) { return v.Int64(), nil }, need(parquet.Int64)
	case sql.TypeFloat:
		return func(v parquet.Value) (any, error) { return v.Float(), nil }, need(parquet.Float)
	case sql.TypeDouble:
		return func(v parquet.Value) (any, error) { return v.Double(), nil }, need(parquet.Double)
	case sql.TypeChar, sql.TypeVarChar:
		var a arena
		return func(v parquet.Value) (any, error) { return a.str(v.ByteArray()), nil }, need(parquet.ByteArray)
	case sql.TypeBinary, sql.TypeVarBinary:
		if kind != parquet.ByteArray && kind != parquet.FixedLenByteArray {
			return nil, need(parquet.ByteArray)
		}
		return func(v parquet.Value) (any, error) { return append([]byte{}, v.ByteArray()...), nil }, nil
	case sql.TypeDecimal:
		exp := -int32(t.Scale)
		switch kind {
		case parquet.Int32:
			return func(v parquet.Value) (any, error) { return decimal.New(int64(v.Int32()), exp), nil }, nil
		case parquet.Int64:
			return func(v parquet.Value) (any, error) { return decimal.New(v.Int64(), exp), nil }, nil
		case parquet.FixedLenByteArray, parquet.ByteArray:
			return func(v parquet.Value) (any, error) {
				return decimal.NewFromBigInt(fromFixedDecimal(v.ByteArray()), exp), nil
			}, nil
		}
		return nil, fmt.Errorf("physical type %s cannot hold %s", kind, t)
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if kind == parquet.Int96 {
			return func(v parquet.Value) (any, error) { return fromInt96(v.Int96()), nil }, nil
		}
		if err := need(parquet.Int64); err != nil {
			return nil, err
		}
		unit := timeUnit(pt)
		if unit == 0 {
			unit = time.Microsecond
			if t.Precision <= 3 {
				unit = time.Millisecond
			}
		}
		switch unit {
		case time.Millisecond:
			return func(v parquet.Value) (any, error) { return sql.TimestampData{Millis: v.Int64()}, nil }, nil
		case time.Microsecond:
			return func(v parquet.Value) (any, error) {
				us := v.Int64()
				ms := floorDiv(us, 1000)
				return sql.TimestampData{Millis: ms, NanoOfMilli: int32(us-ms*1000) * 1000}, nil
			}, nil
		default:
			return func(v parquet.Value) (any, error) {
				ns := v.Int64()
				ms := floorDiv(ns, 1_000_000)
				return sql.TimestampData{Millis: ms, NanoOfMilli: int32(ns - ms*1_000_000)}, nil
			}, nil
		}
	}
	return nil, fmt.Errorf("type %s is not supported in Parquet data files yet", t)
}

// arena copies strings into shared chunks: one allocation per 64 KiB of
// string data instead of one per value. A chunk stays alive while any
// string in it is referenced.
type arena struct {
	buf []byte
	n   int // values copied by the last run
}

func (a *arena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > 4096 {
		return string(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = allocNoZero(arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// ErrCorrupt is wrapped when a data file cannot be decoded.
var ErrCorrupt = sql.Corrupt("corrupt data file") // matches sql.ErrCorrupt

// recoverCorrupt turns a panic of the Parquet library on malformed input
// into an error naming the file; it must be called directly by defer.
func recoverCorrupt(name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w %s: %v", ErrCorrupt, name, p)
	}
}
