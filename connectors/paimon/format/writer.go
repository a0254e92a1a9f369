package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pformat "github.com/parquet-go/parquet-go/format"
	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/internal/datum"
	"github.com/sqlrun/sqlrun/connectors/paimon/kv"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// WriterOptions configure a data file writer. The zero value is Paimon's
// defaults: zstd, value stats truncate(16).
type WriterOptions struct {
	// Compression is file.compression: zstd (default), snappy, none.
	Compression string
	// StatsTruncate is the length strings are truncated to in value stats
	// (metadata.stats-mode truncate(N)); 0 means 16, negative means full.
	StatsTruncate int
	// NoValueStats writes "no value stats" (empty stats, _VALUE_STATS_COLS
	// = []), Paimon's stats-mode none.
	NoValueStats bool
	// FieldStatsModes overrides the mode of single columns (Paimon's
	// fields.<name>.stats-mode): "none", "counts", "truncate(N)", "full".
	// Columns with "none" are left out of the value stats and the others
	// are named in _VALUE_STATS_COLS (metadata.stats-dense-store=true).
	FieldStatsModes map[string]string
	// BatchRows is how many rows are buffered before being handed to the
	// Parquet writer (default 1024).
	BatchRows int
	// ZstdLevel is file.compression.zstd-level (Paimon's default 1);
	// 0 means 1.
	ZstdLevel int
	// StringEncoding is how STRING columns that are not dictionary
	// encoded are written: "" or "plain" is PLAIN, what parquet-java's V1
	// writer (Paimon's) writes and every Paimon 1.x reads;
	// "delta-length-byte-array" is DELTA_LENGTH_BYTE_ARRAY, cheaper to
	// compress but refused by Paimon's Parquet reader before 1.2.
	StringEncoding string
	// SpillDir is a local directory where a flat file's finished pages
	// go once more than pageMemory bytes of them wait for their row group
	// to be written (see pageMemory); "" holds them all in memory.
	SpillDir string
}

// String encodings of WriterOptions.StringEncoding.
const (
	StringEncodingPlain       = "plain"
	StringEncodingDeltaLength = "delta-length-byte-array"
)

// dictionaryMaxBytes is parquet-mr's parquet.dictionary.page.size default:
// past it a column falls back to PLAIN pages.
const dictionaryMaxBytes = 1 << 20

func codecOf(name string, zstdLevel int) (compress.Codec, error) {
	switch name {
	case "", "zstd":
		if zstdLevel <= 0 {
			zstdLevel = 1
		}
		// Paimon's file.compression.zstd-level, 1 by default, as zstd-jni
		// takes it.
		return zstdCodecOf(zstdLevel), nil
	case "snappy":
		return &snappy.Codec{}, nil
	case "none", "uncompressed":
		return &uncompressed.Codec{}, nil
	}
	return nil, fmt.Errorf("unsupported file.compression %q (supported: zstd, snappy, none)", name)
}

type countingWriter struct {
	w io.Writer
	n int64
	// tail, when set, collects the writes instead (parquet-go's last
	// pages and footer, which close rewrites).
	tail *bytes.Buffer
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.tail != nil {
		return c.tail.Write(b)
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// Result is what a finished data file contributes to its DataFileMeta.
type Result struct {
	FileSize       int64
	RowCount       int64
	MinKey, MaxKey []byte // serialized BinaryRows (empty row for append files)
	KeyStats       manifest.SimpleStats
	ValueStats     manifest.SimpleStats
	ValueStatsCols []string // nil = all columns; [] with NoValueStats
	MinSeq, MaxSeq int64
	DeleteRowCount int64
}

// DataFileMeta builds the manifest record for this file.
func (r *Result) DataFileMeta(fileName string, schemaID int64, level int32, source manifest.FileSource, creationMillis int64) manifest.DataFileMeta {
	del := r.DeleteRowCount
	src := source
	ct := creationMillis
	return manifest.DataFileMeta{FileName: fileName, FileSize: r.FileSize, RowCount: r.RowCount, MinKey: r.MinKey, MaxKey: r.MaxKey,
		KeyStats: r.KeyStats, ValueStats: r.ValueStats, MinSequenceNumber: r.MinSeq, MaxSequenceNumber: r.MaxSeq, SchemaID: schemaID,
		Level: level, ExtraFiles: []string{}, CreationTime: &ct, DeleteRowCount: &del, FileSource: &src, ValueStatsCols: r.ValueStatsCols}
}

// core is the part shared by the KeyValue and append writers: the Parquet
// encoding of rows and value statistics. Flat files (every column a
// top-level primitive) are encoded by the page writer; files with nested
// columns go through parquet-go's writer, a batch of rows at a time.
type core struct {
	out     *countingWriter
	cols    []Column
	opts    WriterOptions
	rows    int64
	vstats  *manifest.StatsCollector
	vtypes  []sql.DataType
	valBase int // index of the first value column
	closed  bool
	err     error
	codec   compress.Codec

	// Flat files.
	pages  *pageWriter
	rowCol int // columns put so far in the current row
	kinds  []fastKind
	// stats routes each column's values to its stats collector (value
	// fields to vstats, key fields to the KV writer's key stats).
	stats []statRef

	// Files with nested columns.
	pw     *parquet.Writer
	batch  []parquet.Row
	nbatch int
	// leafBase is each column's first leaf index; nested columns span
	// several leaves and emit a variable number of values per row.
	leafBase []int
	leafVals [][]parquet.Value // per leaf column, reused by flushBatch
	// leafStats are each leaf's min/max in parquet-java's order, which
	// replace parquet-go's in the footer (fixNestedStats); batchStats
	// collect a batch's, and batches keep them per leaf and batch for
	// the column indexes (parquet-go cuts pages between batches only).
	leafStats  []chunkStats
	batchStats []chunkStats
	batches    [][]batchBounds
	encs       []encoder // per column; nil for nested columns
}

// statRef is where a column's values are counted: field idx of st, or
// nowhere when st is nil (system columns, stats-mode none).
type statRef struct {
	st  *manifest.StatsCollector
	idx int
}

// trackStats routes columns [base, base+n) to fields [0, n) of st.
func (c *core) trackStats(st *manifest.StatsCollector, base, n int) {
	if c.pages == nil || st == nil {
		return
	}
	for i := 0; i < n; i++ {
		c.stats[base+i] = statRef{st: st, idx: i}
	}
}

// finishColumnStats completes the stats of the columns routed to st with
// what the page writer kept: exact null counts, and the typed min/max of
// the fast-path columns.
func (c *core) finishColumnStats(st *manifest.StatsCollector) {
	if c.pages == nil {
		return
	}
	for i, r := range c.stats {
		if r.st != st {
			continue
		}
		pc := &c.pages.cols[i]
		st.SetNullCount(r.idx, pc.totalNulls)
		switch c.kinds[i] {
		case fastString:
			if pc.fileStrs.ok {
				st.AddString(r.idx, pc.fileStrs.min)
				st.AddString(r.idx, pc.fileStrs.max)
			}
		case fastInt32:
			if pc.fileInts.ok {
				st.AddInt32(r.idx, int32(pc.fileInts.min))
				st.AddInt32(r.idx, int32(pc.fileInts.max))
			}
		case fastInt64:
			if pc.fileInts.ok {
				st.AddInt64(r.idx, pc.fileInts.min)
				st.AddInt64(r.idx, pc.fileInts.max)
			}
		}
	}
}

// fastKind selects a flat column's conversion without the type switch of
// toParquet for the common Go types.
type fastKind uint8

const (
	fastOther fastKind = iota
	fastString
	fastInt32
	fastInt64
)

// startWriter creates parquet-go's writer for a file with nested columns.
func (c *core) startWriter() error {
	sch, err := parquetSchema(c.cols)
	if err != nil {
		return err
	}
	opts := []parquet.WriterOption{parquet.Compression(c.codec), parquet.CreatedBy("sqlrun", "0.1.0", "parquet-go"),
		parquet.DataPageVersion(1), parquet.PageBufferSize(nestedPageSize), parquet.DictionaryMaxBytes(dictionaryMaxBytes),
		parquet.DefaultEncodingFor(parquet.Boolean, &parquet.Plain)}
	// parquet-java's V1 writer: a dictionary for every type but BOOLEAN,
	// PLAIN once it outgrows parquet.dictionary.page.size. (parquet-go's
	// own default for strings is DELTA_LENGTH_BYTE_ARRAY, which Paimon
	// before 1.2 cannot read.)
	for _, k := range []parquet.Kind{parquet.Int32, parquet.Int64, parquet.Int96, parquet.Float, parquet.Double, parquet.ByteArray, parquet.FixedLenByteArray} {
		opts = append(opts, parquet.DefaultEncodingFor(k, &parquet.RLEDictionary))
	}
	c.pw = parquet.NewWriter(c.out, append([]parquet.WriterOption{sch}, opts...)...)
	return nil
}

// nestedPageSize is the page size of files with nested columns
// (parquet.page.size), lowered by tests to see several pages.
var nestedPageSize = pageSize

// dictionaryMinSample is the fewest values a dictionary is considered
// for: small files stay PLAIN, where a dictionary page saves nothing worth
// its overhead.
const dictionaryMinSample = 64

func newCore(w io.Writer, cols []Column, valBase int, valueTypes []sql.DataType, opts WriterOptions) (*core, error) {
	if _, err := parquetSchema(cols); err != nil { // fail on unsupported types before any row
		return nil, err
	}
	codec, err := codecOf(opts.Compression, opts.ZstdLevel)
	if err != nil {
		return nil, err
	}
	if opts.BatchRows <= 0 {
		opts.BatchRows = 1024
	}
	c := &core{out: &countingWriter{w: w}, cols: cols, opts: opts, valBase: valBase, vtypes: valueTypes, codec: codec}
	if !opts.NoValueStats {
		c.vstats = manifest.NewStatsCollector(valueTypes)
	}
	nested := false
	for _, col := range cols {
		if isNested(col.Type) || numLeaves(col.Type) != 1 {
			nested = true
		}
	}
	if !nested {
		switch opts.StringEncoding {
		case "", StringEncodingPlain, StringEncodingDeltaLength:
		default:
			return nil, fmt.Errorf("unsupported string encoding %q (supported: %s, %s)", opts.StringEncoding, StringEncodingPlain, StringEncodingDeltaLength)
		}
		if c.pages, err = newPageWriter(c.out, cols, codec, opts.StringEncoding == StringEncodingDeltaLength, opts.SpillDir); err != nil {
			return nil, err
		}
		for i, col := range cols {
			k := fastOther
			switch {
			case c.pages.cols[i].str:
				k = fastString
			case col.Type.Root == sql.TypeInt || col.Type.Root == sql.TypeDate || col.Type.Root == sql.TypeTime:
				k = fastInt32
			case col.Type.Root == sql.TypeBigInt:
				k = fastInt64
			}
			c.kinds = append(c.kinds, k)
		}
		c.stats = make([]statRef, len(cols))
		c.trackStats(c.vstats, valBase, len(valueTypes))
		return c, nil
	}
	leaf := 0
	for i, col := range cols {
		var e encoder
		if !isNested(col.Type) {
			e = newEncoder(&cols[i].Type, leaf)
		}
		c.encs = append(c.encs, e)
		c.leafBase = append(c.leafBase, leaf)
		leaf += numLeaves(col.Type)
	}
	c.batch = make([]parquet.Row, opts.BatchRows)
	return c, nil
}

// abortRow drops the values of a row that failed half way.
func (c *core) abortRow() {
	if c.pages != nil {
		for i := 0; i < c.rowCol; i++ {
			c.pages.unput(i)
		}
		c.rowCol = 0
	}
}

// encoder converts a column's values; fast paths for the common types skip
// the generic type switch.
type encoder func(v any) (parquet.Value, error)

func newEncoder(t *sql.DataType, col int) encoder {
	def := 0
	if t.Nullable {
		def = 1
	}
	null := func() (parquet.Value, error) {
		if def == 0 {
			return parquet.Value{}, fmt.Errorf("null value in NOT NULL column")
		}
		return parquet.NullValue().Level(0, 0, col), nil
	}
	switch t.Root {
	case sql.TypeChar, sql.TypeVarChar:
		return func(v any) (parquet.Value, error) {
			if s, ok := v.(string); ok {
				return parquet.ByteArrayValue(unsafeBytes(s)).Level(0, def, col), nil
			}
			if v == nil {
				return null()
			}
			return toParquet(t, v, col)
		}
	case sql.TypeInt:
		return func(v any) (parquet.Value, error) {
			if x, ok := v.(int32); ok {
				return parquet.Int32Value(x).Level(0, def, col), nil
			}
			if v == nil {
				return null()
			}
			return toParquet(t, v, col)
		}
	case sql.TypeBigInt:
		return func(v any) (parquet.Value, error) {
			if x, ok := v.(int64); ok {
				return parquet.Int64Value(x).Level(0, def, col), nil
			}
			if v == nil {
				return null()
			}
			return toParquet(t, v, col)
		}
	}
	return func(v any) (parquet.Value, error) { return toParquet(t, v, col) }
}

// put appends the value of column i to the current row (vals collects
// the row of a file with nested columns; flat files ignore it). Flat files
// fold the value into the min/max stats at once, so a row that fails half
// way may have widened them (still true bounds); null counts are exact.
// putField puts field fi of the BinaryRow rec (of the arity value fields)
// into column i of a flat file: a STRING, INT or BIGINT read in place (the
// page writer copies what it keeps, see putString), any other value
// decoded first.
func (c *core) putField(vals []parquet.Value, i int, rec []byte, arity, fi int) ([]parquet.Value, error) {
	if p := c.pages; p != nil && !binrow.IsNullAt(rec, fi) {
		switch c.kinds[i] {
		case fastString:
			b, err := binrow.BytesAt(rec, arity, fi)
			if err != nil {
				return vals, err
			}
			c.rowCol++
			p.putString(i, unsafe.String(unsafe.SliceData(b), len(b)))
			return vals, nil
		case fastInt32:
			c.rowCol++
			p.putInt32(i, binrow.Int32At(rec, arity, fi))
			return vals, nil
		case fastInt64:
			c.rowCol++
			p.putInt64(i, binrow.Int64At(rec, arity, fi))
			return vals, nil
		}
	}
	v, err := binrow.DecodeField(rec, arity, fi, c.vtypes[fi])
	if err != nil {
		return vals, err
	}
	return c.put(vals, i, v)
}

// putPacked puts the arity fields of the packed row rec (see
// binrow.AppendPacked) into columns i, i+1, ... of a flat file whose
// columns there are all of the STRING, INT32 and INT64 fast kinds
// (KVWriter.WritePacked), reading them in place as putField does.
func (c *core) putPacked(vals []parquet.Value, i int, rec []byte, arity int) ([]parquet.Value, error) {
	p := c.pages
	pos := (arity + 7) / 8
	if len(rec) < pos {
		return vals, fmt.Errorf("value row: %w: packed row of %d bytes, %d fields", binrow.ErrCorrupt, len(rec), arity)
	}
	for fi := 0; fi < arity; fi, i = fi+1, i+1 {
		if rec[fi>>3]&(1<<(fi&7)) != 0 {
			var err error
			if vals, err = c.put(vals, i, nil); err != nil {
				return vals, fmt.Errorf("value field %s: %w", c.cols[i].Name, err)
			}
			continue
		}
		n := 0
		switch c.kinds[i] {
		case fastString:
			l, k := binary.Uvarint(rec[pos:])
			if k <= 0 || l > uint64(len(rec)-pos-k) {
				return vals, fmt.Errorf("value field %s: %w: packed string length", c.cols[i].Name, binrow.ErrCorrupt)
			}
			pos += k
			n = int(l)
			c.rowCol++
			p.putString(i, unsafe.String(unsafe.SliceData(rec[pos:]), n))
		case fastInt32:
			if n = 4; pos+n > len(rec) {
				return vals, fmt.Errorf("value field %s: %w: packed row ends", c.cols[i].Name, binrow.ErrCorrupt)
			}
			c.rowCol++
			p.putInt32(i, int32(binary.LittleEndian.Uint32(rec[pos:])))
		case fastInt64:
			if n = 8; pos+n > len(rec) {
				return vals, fmt.Errorf("value field %s: %w: packed row ends", c.cols[i].Name, binrow.ErrCorrupt)
			}
			c.rowCol++
			p.putInt64(i, int64(binary.LittleEndian.Uint64(rec[pos:])))
		default:
			return vals, fmt.Errorf("value field %s: not a column a packed row is read into", c.cols[i].Name)
		}
		pos += n
	}
	if pos != len(rec) {
		return vals, fmt.Errorf("value row: %w: packed row of %d bytes, fields end at %d", binrow.ErrCorrupt, len(rec), pos)
	}
	return vals, nil
}

func (c *core) put(vals []parquet.Value, i int, v any) ([]parquet.Value, error) {
	if p := c.pages; p != nil {
		c.rowCol++
		st, vi := c.stats[i].st, c.stats[i].idx
		switch c.kinds[i] {
		case fastString:
			if s, ok := v.(string); ok {
				p.putString(i, s) // min/max kept by the page writer
				return vals, nil
			}
		case fastInt32:
			if x, ok := v.(int32); ok {
				p.putInt32(i, x)
				return vals, nil
			}
		case fastInt64:
			if x, ok := v.(int64); ok {
				p.putInt64(i, x)
				return vals, nil
			}
		}
		if v == nil { // counted by the page writer, see finishStats
			if err := p.putNull(i); err != nil {
				c.rowCol--
				return vals, err
			}
			return vals, nil
		}
		pv, err := toParquetRaw(&c.cols[i].Type, v)
		if err == nil {
			err = p.putValue(i, pv)
		}
		if err != nil {
			c.rowCol--
			return vals, err
		}
		if st != nil {
			st.AddValue(vi, v)
		}
		return vals, nil
	}
	if e := c.encs[i]; e != nil {
		pv, err := e(v)
		if err != nil {
			return vals, err
		}
		return append(vals, pv), nil
	}
	t := &c.cols[i].Type
	per, err := shred(make([][]parquet.Value, numLeaves(*t)), *t, v, 0, 0, 0, 0)
	if err != nil {
		return vals, err
	}
	for j, vs := range per {
		for _, pv := range vs {
			vals = append(vals, pv.Level(pv.RepetitionLevel(), pv.DefinitionLevel(), c.leafBase[i]+j))
		}
	}
	return vals, nil
}

// putInt32 and putInt64 append the system columns (_VALUE_KIND,
// _SEQUENCE_NUMBER), which are never null.
func (c *core) putInt32(vals []parquet.Value, i int, x int32) []parquet.Value {
	if c.pages != nil {
		c.rowCol++
		c.pages.putInt32(i, x)
		return vals
	}
	return append(vals, parquet.Int32Value(x).Level(0, 0, c.leafBase[i]))
}

func (c *core) putInt64(vals []parquet.Value, i int, x int64) []parquet.Value {
	if c.pages != nil {
		c.rowCol++
		c.pages.putInt64(i, x)
		return vals
	}
	return append(vals, parquet.Int64Value(x).Level(0, 0, c.leafBase[i]))
}

func isNested(t sql.DataType) bool {
	return t.Root == sql.TypeArray || t.Root == sql.TypeMap || t.Root == sql.TypeRow
}

// numLeaves counts the Parquet leaf columns of a type.
func numLeaves(t sql.DataType) int {
	switch t.Root {
	case sql.TypeArray:
		return numLeaves(*t.Elem)
	case sql.TypeMap:
		return numLeaves(*t.Elem) + numLeaves(*t.Value)
	case sql.TypeRow:
		n := 0
		for _, f := range t.Fields {
			n += numLeaves(f.Type)
		}
		return n
	}
	return 1
}

// shred appends the leaf values of v (Dremel striping) to out, one slice
// per leaf column (a Parquet row lists each column's values contiguously,
// while a list of rows or a map alternates between leaves): rep is the
// repetition level of the first value, def the definition level of the
// parent, rdepth the number of repeated ancestors, leaf the first leaf
// column of t (an index into out).
func shred(out [][]parquet.Value, t sql.DataType, v any, rep, def, rdepth, leaf int) ([][]parquet.Value, error) {
	if v == nil {
		if !t.Nullable {
			return out, fmt.Errorf("null value in NOT NULL %s", t)
		}
		for j := 0; j < numLeaves(t); j++ {
			out[leaf+j] = append(out[leaf+j], parquet.NullValue().Level(rep, def, leaf+j))
		}
		return out, nil
	}
	d := def
	if t.Nullable {
		d++
	}
	var err error
	switch t.Root {
	case sql.TypeArray:
		arr, ok := v.([]any)
		if !ok {
			return out, fmt.Errorf("unexpected Go value %T for %s", v, t)
		}
		if len(arr) == 0 {
			for j := 0; j < numLeaves(t); j++ {
				out[leaf+j] = append(out[leaf+j], parquet.NullValue().Level(rep, d, leaf+j))
			}
			return out, nil
		}
		for i, e := range arr {
			r := rep
			if i > 0 {
				r = rdepth + 1
			}
			if out, err = shred(out, *t.Elem, e, r, d+1, rdepth+1, leaf); err != nil {
				return out, err
			}
		}
	case sql.TypeMap:
		m, ok := v.(*sql.Map)
		if !ok {
			return out, fmt.Errorf("unexpected Go value %T for %s", v, t)
		}
		if len(m.Keys) == 0 {
			for j := 0; j < numLeaves(t); j++ {
				out[leaf+j] = append(out[leaf+j], parquet.NullValue().Level(rep, d, leaf+j))
			}
			return out, nil
		}
		kt := t.Elem.NotNull()
		nk := numLeaves(kt)
		for i := range m.Keys {
			r := rep
			if i > 0 {
				r = rdepth + 1
			}
			if out, err = shred(out, kt, m.Keys[i], r, d+1, rdepth+1, leaf); err != nil {
				return out, err
			}
			if out, err = shred(out, *t.Value, m.Values[i], r, d+1, rdepth+1, leaf+nk); err != nil {
				return out, err
			}
		}
	case sql.TypeRow:
		x, ok := v.([]any)
		if !ok || len(x) != len(t.Fields) {
			return out, fmt.Errorf("unexpected Go value %T for %s", v, t)
		}
		j := leaf
		for i, f := range t.Fields {
			if out, err = shred(out, f.Type, x[i], rep, d, rdepth, j); err != nil {
				return out, err
			}
			j += numLeaves(f.Type)
		}
	default:
		pv, err := toParquetRaw(&t, v)
		if err != nil {
			return out, err
		}
		out[leaf] = append(out[leaf], pv.Level(rep, d, leaf))
	}
	return out, nil
}

func (c *core) commitRow(vals []parquet.Value) error {
	c.rows++
	if c.pages != nil {
		c.rowCol = 0
		return c.pages.endRow()
	}
	c.batch[c.nbatch] = vals
	c.nbatch++
	if c.nbatch == c.opts.BatchRows {
		return c.flushBatch()
	}
	return nil
}

// flushBatch hands the batch of a file with nested columns to the Parquet
// writer column by column: the rows' values are gathered per leaf column
// and each column writer gets one slice (cheaper than the writer
// splitting every row itself).
func (c *core) flushBatch() error {
	if c.nbatch == 0 {
		return nil
	}
	if c.pw == nil {
		if err := c.startWriter(); err != nil {
			return err
		}
	}
	if c.leafVals == nil {
		c.leafVals = make([][]parquet.Value, len(c.pw.ColumnWriters()))
	}
	for _, row := range c.batch[:c.nbatch] {
		for _, v := range row {
			l := v.Column()
			c.leafVals[l] = append(c.leafVals[l], v)
		}
	}
	if c.leafStats == nil {
		els, err := paimonSchemaElements(c.cols)
		if err != nil {
			return err
		}
		c.leafStats, c.batchStats = leafStatsOf(els), leafStatsOf(els)
		c.batches = make([][]batchBounds, len(c.leafStats))
	}
	for l, cw := range c.pw.ColumnWriters() {
		bs := &c.batchStats[l]
		var nulls int64
		for _, v := range c.leafVals[l] {
			if v.IsNull() {
				nulls++
			} else {
				bs.addValue(v)
			}
		}
		b := batchBounds{rows: int64(c.nbatch), nulls: nulls}
		if bs.has {
			// Never nil: nil marks a batch of nulls only, and the empty
			// string is a bound (chunkStats keeps it as a nil slice).
			b.min, b.max = append([]byte{}, bs.min...), append([]byte{}, bs.max...)
			c.leafStats[l].add(b.min)
			c.leafStats[l].add(b.max)
		}
		c.batches[l] = append(c.batches[l], b)
		bs.reset()
		if _, err := cw.WriteRowValues(c.leafVals[l]); err != nil {
			return fmt.Errorf("parquet write column %d: %w", l, err)
		}
		c.leafVals[l] = c.leafVals[l][:0]
	}
	c.nbatch = 0
	return nil
}

// size estimates the file's size so far, for rolling at target-file-size.
func (c *core) size() int64 {
	if c.pages != nil {
		return c.pages.size()
	}
	return c.out.n
}

// unsafeBytes views a string's bytes without copying; the Parquet writer
// copies values into its page buffers before WriteRows returns.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// toParquet converts one Go value (sql/row.go representation) to a Parquet
// value at column col.
func toParquet(t *sql.DataType, v any, col int) (parquet.Value, error) {
	if v == nil {
		if !t.Nullable {
			return parquet.Value{}, fmt.Errorf("null value in NOT NULL column")
		}
		return parquet.NullValue().Level(0, 0, col), nil
	}
	def := 0
	if t.Nullable {
		def = 1
	}
	pv, err := toParquetRaw(t, v)
	if err != nil {
		return pv, err
	}
	return pv.Level(0, def, col), nil
}

// toParquetRaw converts a non-null atomic value (levels unset).
func toParquetRaw(t *sql.DataType, v any) (parquet.Value, error) {
	var pv parquet.Value
	bad := func() (parquet.Value, error) {
		return parquet.Value{}, fmt.Errorf("unexpected Go value %T for %s", v, t)
	}
	switch t.Root {
	case sql.TypeBoolean:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		pv = parquet.BooleanValue(x)
	case sql.TypeTinyInt:
		x, ok := v.(int8)
		if !ok {
			return bad()
		}
		pv = parquet.Int32Value(int32(x))
	case sql.TypeSmallInt:
		x, ok := v.(int16)
		if !ok {
			return bad()
		}
		pv = parquet.Int32Value(int32(x))
	case sql.TypeInt, sql.TypeDate, sql.TypeTime:
		x, ok := v.(int32)
		if !ok {
			return bad()
		}
		pv = parquet.Int32Value(x)
	case sql.TypeBigInt:
		x, ok := v.(int64)
		if !ok {
			return bad()
		}
		pv = parquet.Int64Value(x)
	case sql.TypeFloat:
		x, ok := v.(float32)
		if !ok {
			return bad()
		}
		pv = parquet.FloatValue(x)
	case sql.TypeDouble:
		x, ok := v.(float64)
		if !ok {
			return bad()
		}
		pv = parquet.DoubleValue(x)
	case sql.TypeChar, sql.TypeVarChar:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		pv = parquet.ByteArrayValue(unsafeBytes(x))
	case sql.TypeBinary, sql.TypeVarBinary:
		x, ok := v.([]byte)
		if !ok {
			return bad()
		}
		pv = parquet.ByteArrayValue(x)
	case sql.TypeDecimal:
		x, ok := v.(decimal.Decimal)
		if !ok {
			return bad()
		}
		u := binrow.Unscaled(x, t.Scale)
		switch {
		case t.Precision <= 9:
			pv = parquet.Int32Value(int32(u.Int64()))
		case t.Precision <= 18:
			pv = parquet.Int64Value(u.Int64())
		default:
			b, err := fixedDecimal(u, DecimalBytes(t.Precision))
			if err != nil {
				return parquet.Value{}, err
			}
			pv = parquet.FixedLenByteArrayValue(b)
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		x, ok := v.(sql.TimestampData)
		if !ok {
			return bad()
		}
		switch {
		case t.Precision <= 3:
			pv = parquet.Int64Value(x.Millis)
		case t.Precision <= 6:
			pv = parquet.Int64Value(x.Millis*1000 + int64(x.NanoOfMilli)/1000)
		default:
			pv = parquet.Int96Value(toInt96(x))
		}
	default:
		return parquet.Value{}, fmt.Errorf("type %s is not supported in Parquet data files yet", t)
	}
	return pv, nil
}

// julianEpochDay is the Julian day number of 1970-01-01 (INT96 timestamps).
const julianEpochDay = 2440588

func toInt96(t sql.TimestampData) deprecated.Int96 {
	day := floorDiv(t.Millis, 86400000)
	msOfDay := t.Millis - day*86400000
	nanos := uint64(msOfDay)*1_000_000 + uint64(t.NanoOfMilli)
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(day + julianEpochDay)}
}

func fromInt96(v deprecated.Int96) sql.TimestampData {
	nanos := int64(uint64(v[1])<<32 | uint64(v[0]))
	day := int64(v[2]) - julianEpochDay
	return sql.TimestampData{Millis: day*86400000 + nanos/1_000_000, NanoOfMilli: int32(nanos % 1_000_000)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (c *core) finishStats() (manifest.SimpleStats, []string, error) {
	if c.vstats == nil {
		return manifest.EmptyStats(), []string{}, nil
	}
	c.finishColumnStats(c.vstats)
	limit := c.opts.StatsTruncate
	if limit == 0 {
		limit = 16
	}
	if len(c.opts.FieldStatsModes) == 0 {
		if limit > 0 {
			truncateStats(c.vstats, c.vtypes, limit)
		}
		dropInt96Stats(c.vstats, c.vtypes)
		st, err := c.vstats.Stats()
		return st, nil, err
	}
	// Per-column modes: keep the columns whose mode is not none (dense).
	mins, maxs := c.vstats.Min(), c.vstats.Max()
	full, err := c.vstats.Stats()
	if err != nil {
		return full, nil, err
	}
	var cols []string
	var types []sql.DataType
	var kmin, kmax []any
	var nulls []*int64
	for i, t := range c.vtypes {
		name := c.cols[c.valBase+i].Name
		mode, n := "truncate", limit
		if m, ok := c.opts.FieldStatsModes[name]; ok {
			if mode, n, err = ParseStatsMode(m); err != nil {
				return full, nil, fmt.Errorf("fields.%s.stats-mode: %w", name, err)
			}
		} else if limit < 0 {
			mode = "full"
		}
		if mode == "none" {
			continue
		}
		lo, hi := mins[i], maxs[i]
		switch {
		case mode == "counts", (t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ) && t.Precision > 6:
			lo, hi = nil, nil
		case mode == "truncate" && t.IsString():
			one := manifest.NewStatsCollector([]sql.DataType{t})
			one.Min()[0], one.Max()[0] = lo, hi
			truncateStats(one, []sql.DataType{t}, n)
			lo, hi = one.Min()[0], one.Max()[0]
		}
		cols = append(cols, name)
		types = append(types, t.WithNullable(true))
		kmin, kmax = append(kmin, lo), append(kmax, hi)
		nulls = append(nulls, full.NullCounts[i])
	}
	if len(cols) == len(c.vtypes) {
		cols = nil // all columns: _VALUE_STATS_COLS is null
	} else if len(cols) == 0 {
		return manifest.EmptyStats(), []string{}, nil
	}
	minB, err := binrow.Serialize(types, kmin)
	if err != nil {
		return full, nil, err
	}
	maxB, err := binrow.Serialize(types, kmax)
	if err != nil {
		return full, nil, err
	}
	return manifest.SimpleStats{MinValues: minB, MaxValues: maxB, NullCounts: nulls}, cols, nil
}

// ParseStatsMode parses a metadata.stats-mode value: none, counts, full or
// truncate(N) (N > 0).
func ParseStatsMode(m string) (mode string, n int, err error) {
	switch strings.ToLower(strings.TrimSpace(m)) {
	case "none", "counts", "full":
		return strings.ToLower(strings.TrimSpace(m)), 0, nil
	}
	if _, err := fmt.Sscanf(strings.ToLower(strings.TrimSpace(m)), "truncate(%d)", &n); err == nil && n > 0 {
		return "truncate", n, nil
	}
	return "", 0, fmt.Errorf("invalid stats mode %q (expected none, counts, full or truncate(N))", m)
}

// dropInt96Stats nulls min/max of TIMESTAMP(p>6) columns: Java takes stats
// from the Parquet footer, and parquet-mr keeps no min/max for INT96.
func dropInt96Stats(c *manifest.StatsCollector, types []sql.DataType) {
	mins, maxs := c.Min(), c.Max()
	for i, t := range types {
		if (t.Root == sql.TypeTimestamp || t.Root == sql.TypeTimestampLTZ) && t.Precision > 6 {
			mins[i], maxs[i] = nil, nil
		}
	}
}

// truncateStats applies truncate(N) to string min/max: min keeps the first
// N characters; max keeps N characters with the last one incremented (so it
// still bounds the real max), or null when that is impossible.
func truncateStats(c *manifest.StatsCollector, types []sql.DataType, n int) {
	mins, maxs := c.Min(), c.Max()
	for i, t := range types {
		if !t.IsString() {
			continue
		}
		if s, ok := mins[i].(string); ok && utf8.RuneCountInString(s) > n {
			mins[i] = string([]rune(s)[:n])
		}
		if s, ok := maxs[i].(string); ok && utf8.RuneCountInString(s) > n {
			r := []rune(s)[:n]
			inc := false
			for j := n - 1; j >= 0; j-- {
				if r[j] < utf8.MaxRune && !(r[j]+1 >= 0xD800 && r[j]+1 <= 0xDFFF) {
					r[j]++
					r = r[:j+1]
					inc = true
					break
				}
			}
			if inc {
				maxs[i] = string(r)
			} else {
				maxs[i] = nil
			}
		}
	}
}

func (c *core) close() (int64, error) {
	if c.pages != nil {
		if err := c.pages.close(); err != nil {
			return 0, err
		}
		return c.out.n, nil
	}
	if err := c.flushBatch(); err != nil {
		return 0, err
	}
	if c.pw == nil { // no rows
		if err := c.startWriter(); err != nil {
			return 0, err
		}
	}
	c.out.tail = new(bytes.Buffer)
	err := c.pw.Close()
	tail := c.out.tail.Bytes()
	c.out.tail = nil
	if err != nil {
		return 0, fmt.Errorf("parquet close: %w", err)
	}
	// parquet-go's footer is the end of tail; the schema part is replaced
	// by Paimon's (footer.go).
	if len(tail) < 12 || string(tail[len(tail)-4:]) != "PAR1" {
		return 0, fmt.Errorf("parquet close: parquet-go wrote no footer")
	}
	n := int(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	if n > len(tail)-8 {
		return 0, fmt.Errorf("parquet close: footer of %d bytes in a tail of %d", n, len(tail))
	}
	var meta pformat.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), tail[len(tail)-8-n:len(tail)-8], &meta); err != nil {
		return 0, fmt.Errorf("parquet close: %w", err)
	}
	els, err := paimonSchemaElements(c.cols)
	if err != nil {
		return 0, err
	}
	if err := c.fixNestedStats(&meta); err != nil {
		return 0, err
	}
	// parquet-go's page indexes are replaced by parquet-java's, built from
	// its offset indexes (where its pages are) and the batches' bounds.
	data, idx, err := c.nestedPageIndexes(&meta, tail[:len(tail)-8-n], c.out.n)
	if err != nil {
		return 0, err
	}
	if _, err := c.out.Write(data); err != nil {
		return 0, fmt.Errorf("parquet write: %w", err)
	}
	if err := writePageIndexes(c.out, meta.RowGroups, idx); err != nil {
		return 0, err
	}
	footer, err := marshalFooter(&meta, els)
	if err != nil {
		return 0, err
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	if _, err := c.out.Write(footer); err != nil {
		return 0, fmt.Errorf("parquet write: %w", err)
	}
	return c.out.n, nil
}

// fixNestedStats replaces the min/max parquet-go computed for a file with
// nested columns (in its own orders: a FIXED_LEN_BYTE_ARRAY decimal's as
// unsigned bytes) by parquet-java's (stats.go); its null counts stay.
// A file of several row groups (never past 128 MiB here) keeps null
// counts only, as the min/max are kept per file.
func (c *core) fixNestedStats(meta *pformat.FileMetaData) error {
	for _, rg := range meta.RowGroups {
		if len(rg.Columns) != len(c.leafStats) && c.leafStats != nil {
			return fmt.Errorf("parquet footer: %d column chunks for %d leaf columns", len(rg.Columns), len(c.leafStats))
		}
		for i := range rg.Columns {
			md := &rg.Columns[i].MetaData
			nulls := md.Statistics.NullCount
			if len(meta.RowGroups) == 1 && c.leafStats != nil {
				md.Statistics = c.leafStats[i].format(nulls)
			} else {
				md.Statistics = pformat.Statistics{NullCount: nulls}
			}
		}
	}
	return nil
}

// batchBounds are one leaf column's bounds in one batch of rows.
type batchBounds struct {
	rows, nulls int64
	min, max    []byte // nil when the batch has nulls only
}

// nestedPageIndexes returns the part of parquet-go's output before its
// page indexes (body, the file's bytes from offset at on) and the page
// indexes parquet-java writes for the file's column chunks: the page
// locations of parquet-go's offset indexes, and column indexes with the
// batches' bounds merged page by page. meta's column chunks are unlinked
// from parquet-go's indexes. A column whose pages do not start at a batch
// (never, as parquet-go cuts a page only after a WriteRowValues call), or
// a file of several row groups, gets no column index.
func (c *core) nestedPageIndexes(meta *pformat.FileMetaData, body []byte, at int64) ([]byte, []chunkIndexes, error) {
	end := int64(len(body))
	var ois []pformat.OffsetIndex
	for r := range meta.RowGroups {
		for i := range meta.RowGroups[r].Columns {
			cc := &meta.RowGroups[r].Columns[i]
			for _, off := range []int64{cc.ColumnIndexOffset, cc.OffsetIndexOffset} {
				if off > 0 && off-at < end {
					end = off - at
				}
			}
			var oi pformat.OffsetIndex
			if off, n := cc.OffsetIndexOffset-at, int64(cc.OffsetIndexLength); off >= 0 && n > 0 && off+n <= int64(len(body)) {
				if err := thrift.Unmarshal(new(thrift.CompactProtocol), body[off:off+n], &oi); err != nil {
					return nil, nil, fmt.Errorf("parquet close: offset index: %w", err)
				}
			}
			ois = append(ois, oi)
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
		}
	}
	if end < 0 {
		return nil, nil, fmt.Errorf("parquet close: page index before the data")
	}
	var idx []chunkIndexes
	k := 0
	for r := range meta.RowGroups {
		for i := range meta.RowGroups[r].Columns {
			oi := ois[k]
			k++
			if len(oi.PageLocations) == 0 {
				continue
			}
			var p pageIndex
			var ci *pformat.ColumnIndex
			if len(meta.RowGroups) == 1 && i < len(c.batches) {
				var st chunkStats
				if i < len(c.leafStats) {
					st = chunkStats{typ: c.leafStats[i].typ, decimal: c.leafStats[i].decimal}
				}
				if c.mergeBatches(&p, &st, c.batches[i], oi.PageLocations) {
					ci = p.columnIndex(&st)
				}
			}
			idx = append(idx, chunkIndexes{rg: r, col: i, ci: ci, oi: pformat.OffsetIndex{PageLocations: oi.PageLocations}})
		}
	}
	return body[:end], idx, nil
}

// mergeBatches adds a page index entry to p for each page of locs, made
// of the batches that page holds; false when a page does not start where
// a batch does.
func (c *core) mergeBatches(p *pageIndex, st *chunkStats, batches []batchBounds, locs []pformat.PageLocation) bool {
	b := 0
	var row int64
	truncate := truncatesBounds(st)
	var page chunkStats
	page.typ, page.decimal = st.typ, st.decimal
	for k, loc := range locs {
		if row != loc.FirstRowIndex {
			return false
		}
		next := int64(math.MaxInt64)
		if k+1 < len(locs) {
			next = locs[k+1].FirstRowIndex
		}
		var rows, nulls int64
		page.reset()
		for b < len(batches) && row < next {
			rows += batches[b].rows
			nulls += batches[b].nulls
			row += batches[b].rows
			if batches[b].min != nil {
				page.add(batches[b].min)
				page.add(batches[b].max)
			}
			b++
		}
		if rows == 0 {
			return false
		}
		var min, max []byte
		if page.has {
			min, max = page.min, page.max
		}
		p.add(min, max, page.has, nulls, rows, int(loc.CompressedPageSize), truncate)
	}
	return b == len(batches)
}

// keyComparator orders keys of the given types: a direct comparison for the
// common single INT, BIGINT or STRING key (one per row written, to check
// the sort order), datum.CompareRows otherwise or for unexpected values.
func keyComparator(types []sql.DataType) func(a, b []any) int {
	if len(types) != 1 {
		return datum.CompareRows
	}
	switch types[0].Root {
	case sql.TypeInt:
		return compareFirst[int32]
	case sql.TypeBigInt:
		return compareFirst[int64]
	case sql.TypeChar, sql.TypeVarChar:
		return compareFirst[string]
	}
	return datum.CompareRows
}

// compareFirst compares one-field keys holding a T.
func compareFirst[T cmp.Ordered](a, b []any) int {
	x, ok1 := a[0].(T)
	y, ok2 := b[0].(T)
	if !ok1 || !ok2 {
		return datum.CompareRows(a, b)
	}
	return cmp.Compare(x, y)
}

// KVWriter writes a primary-key data (or changelog) file.
//
// INVARIANT: KeyValues are written in ascending key order and, for data
// files, each key at most once (Java reads a single file without merging).
// The writer checks ascending order and rejects violations; changelog files
// (AllowDuplicateKeys) may repeat a key.
type KVWriter struct {
	c                  *core
	keyTypes           []sql.DataType
	nk, nv             int
	first, last        []any
	kstats             *manifest.StatsCollector
	keyCmp             func(a, b []any) int
	minSeq, maxSeq     int64
	del                int64
	AllowDuplicateKeys bool
	// packed: 0 not known yet, 1 WritePacked reads the values in place,
	// 2 it unpacks them into unpacked first (see WritePacked).
	packed   int8
	unpacked []byte
}

// NewKVWriter starts a primary-key file on w with the given trimmed key
// fields and value (table) fields.
func NewKVWriter(w io.Writer, keys, values []schema.Field, opts WriterOptions) (*KVWriter, error) {
	cols := KeyValueColumns(keys, values)
	c, err := newCore(w, cols, len(keys)+2, FieldTypes(values), opts)
	if err != nil {
		return nil, err
	}
	kt := FieldTypes(keys)
	kw := &KVWriter{c: c, keyTypes: kt, nk: len(keys), nv: len(values), kstats: manifest.NewStatsCollector(kt), keyCmp: keyComparator(kt)}
	c.trackStats(kw.kstats, 0, len(keys))
	return kw, nil
}

// Write appends one KeyValue.
func (w *KVWriter) Write(r *kv.KeyValue) error {
	if w.c.err != nil {
		return w.c.err
	}
	if len(r.Key) != w.nk || len(r.Value) != w.nv {
		return fmt.Errorf("KeyValue has %d key and %d value fields, file has %d and %d", len(r.Key), len(r.Value), w.nk, w.nv)
	}
	return w.write(r, nil)
}

// WriteBinary appends the KeyValue r (Key, Seq and Kind; Value is unused)
// whose value row is value, serialized as Paimon's BinaryRow of the file's
// value fields. A flat file's STRING, INT and BIGINT values are copied
// from value in place, without decoding the row into Go values first (a
// write buffer's flush, whose records are serialized: Paimon's writers
// take the BinaryRow too); value is only read during the call. A file with
// nested columns decodes the row and writes it as Write does.
func (w *KVWriter) WriteBinary(r *kv.KeyValue, value []byte) error {
	if w.c.err != nil {
		return w.c.err
	}
	if len(r.Key) != w.nk {
		return fmt.Errorf("KeyValue has %d key fields, file has %d", len(r.Key), w.nk)
	}
	if err := binrow.CheckFixed(value, w.nv); err != nil {
		return fmt.Errorf("value row: %w", err)
	}
	if w.c.pages == nil {
		d := *r
		d.Value = make([]any, w.nv)
		if err := binrow.DecodeCompact(d.Value, w.c.vtypes, value); err != nil {
			return fmt.Errorf("value row: %w", err)
		}
		return w.write(&d, nil)
	}
	return w.write(r, value)
}

// WritePacked is WriteBinary for a value row in binrow's packed form
// (binrow.AppendPacked: a write buffer's pages). A flat file whose value
// columns are all STRING, INT (DATE, TIME) or BIGINT reads the values in
// place, as WriteBinary does from a BinaryRow; any other file unpacks the
// row to its BinaryRow first. The file is the one Write writes for the
// same values.
func (w *KVWriter) WritePacked(r *kv.KeyValue, packed []byte) error {
	if w.c.err != nil {
		return w.c.err
	}
	if w.packed == 0 {
		w.packed = 1
		for fi := 0; fi < w.nv; fi++ {
			if w.c.pages == nil || w.c.kinds[w.nk+2+fi] == fastOther {
				w.packed = 2
			}
		}
	}
	if w.packed == 2 {
		var err error
		if w.unpacked, err = binrow.AppendUnpacked(w.unpacked[:0], w.c.vtypes, packed); err != nil {
			return fmt.Errorf("value row: %w", err)
		}
		return w.WriteBinary(r, w.unpacked)
	}
	if len(r.Key) != w.nk {
		return fmt.Errorf("KeyValue has %d key fields, file has %d", len(r.Key), w.nk)
	}
	return w.writeFrom(r, packed, true)
}

// write appends r, its values from r.Value or, when rec is not nil, from
// the BinaryRow rec (see WriteBinary).
func (w *KVWriter) write(r *kv.KeyValue, rec []byte) error { return w.writeFrom(r, rec, false) }

// writeFrom is write, rec being a packed row when packed is set (see
// WritePacked).
func (w *KVWriter) writeFrom(r *kv.KeyValue, rec []byte, packed bool) error {
	if w.first != nil {
		c := w.keyCmp(r.Key, w.last)
		if c < 0 || (c == 0 && !w.AllowDuplicateKeys) {
			return fmt.Errorf("keys out of order in data file: %v after %v", r.Key, w.last)
		}
	}
	var vals []parquet.Value // the row of a file with nested columns
	col := 0
	var err error
	for i, k := range r.Key {
		if vals, err = w.c.put(vals, col, k); err != nil {
			w.c.abortRow()
			return fmt.Errorf("key field %d: %w", i, err)
		}
		col++
	}
	vals = w.c.putInt64(vals, col, r.Seq)
	col++
	vals = w.c.putInt32(vals, col, int32(r.Kind))
	col++
	if rec != nil && packed {
		if vals, err = w.c.putPacked(vals, col, rec, w.nv); err != nil {
			w.c.abortRow()
			return err
		}
		col += w.nv
	} else if rec != nil {
		for fi := 0; fi < w.nv; fi++ {
			if vals, err = w.c.putField(vals, col, rec, w.nv, fi); err != nil {
				w.c.abortRow()
				return fmt.Errorf("value field %s: %w", w.c.cols[col].Name, err)
			}
			col++
		}
	}
	for _, v := range r.Value {
		if vals, err = w.c.put(vals, col, v); err != nil {
			w.c.abortRow()
			return fmt.Errorf("value field %s: %w", w.c.cols[col].Name, err)
		}
		col++
	}
	if w.first == nil {
		w.first = append([]any(nil), r.Key...)
		w.minSeq, w.maxSeq = r.Seq, r.Seq
	}
	w.last = append(w.last[:0], r.Key...)
	if r.Seq < w.minSeq {
		w.minSeq = r.Seq
	}
	if r.Seq > w.maxSeq {
		w.maxSeq = r.Seq
	}
	if r.Kind.IsRetract() {
		w.del++
	}
	if w.c.pages == nil { // flat files collect stats as they put values
		w.kstats.Add(r.Key)
		if w.c.vstats != nil {
			w.c.vstats.Add(r.Value)
		}
	}
	if err := w.c.commitRow(vals); err != nil {
		w.c.err = err
		return err
	}
	return nil
}

// RowCount is the number of rows written so far.
func (w *KVWriter) RowCount() int64 { return w.c.rows }

// BytesWritten estimates the file's size so far: bytes written plus the
// compressed pages buffered for the current row group (rolling files at
// target-file-size uses it; the page being filled is not counted).
func (w *KVWriter) BytesWritten() int64 { return w.c.size() }

// Close finishes the file and returns its statistics. It does not close
// the underlying io.Writer.
func (w *KVWriter) Close() (*Result, error) {
	if w.c.closed {
		return nil, fmt.Errorf("data file writer already closed")
	}
	w.c.closed = true
	size, err := w.c.close()
	if err != nil {
		return nil, err
	}
	r := &Result{FileSize: size, RowCount: w.c.rows, MinSeq: w.minSeq, MaxSeq: w.maxSeq, DeleteRowCount: w.del}
	nullable := make([]sql.DataType, len(w.keyTypes))
	copy(nullable, w.keyTypes)
	last := w.last
	if w.first == nil {
		w.first = make([]any, w.nk)
		last = w.first
	}
	if r.MinKey, err = binrow.Serialize(nullable, w.first); err != nil {
		return nil, fmt.Errorf("min key: %w", err)
	}
	if r.MaxKey, err = binrow.Serialize(nullable, last); err != nil {
		return nil, fmt.Errorf("max key: %w", err)
	}
	w.c.finishColumnStats(w.kstats)
	dropInt96Stats(w.kstats, w.keyTypes)
	if r.KeyStats, err = w.kstats.Stats(); err != nil {
		return nil, fmt.Errorf("key stats: %w", err)
	}
	if r.ValueStats, r.ValueStatsCols, err = w.c.finishStats(); err != nil {
		return nil, fmt.Errorf("value stats: %w", err)
	}
	return r, nil
}

// AppendWriter writes an append-table data file; rows get consecutive
// sequence numbers starting at the given one (recorded in DataFileMeta).
type AppendWriter struct {
	c   *core
	seq int64
	min int64
}

// NewAppendWriter starts an append file with the table fields.
func NewAppendWriter(w io.Writer, fields []schema.Field, startSeq int64, opts WriterOptions) (*AppendWriter, error) {
	c, err := newCore(w, PlainColumns(fields), 0, FieldTypes(fields), opts)
	if err != nil {
		return nil, err
	}
	return &AppendWriter{c: c, seq: startSeq, min: startSeq}, nil
}

// Write appends one row (values in table column order).
func (w *AppendWriter) Write(row []any) error {
	if w.c.err != nil {
		return w.c.err
	}
	if len(row) != len(w.c.cols) {
		return fmt.Errorf("row has %d fields, file has %d", len(row), len(w.c.cols))
	}
	var vals []parquet.Value // the row of a file with nested columns
	var err error
	for i, v := range row {
		if vals, err = w.c.put(vals, i, v); err != nil {
			w.c.abortRow()
			return fmt.Errorf("field %s: %w", w.c.cols[i].Name, err)
		}
	}
	if w.c.vstats != nil && w.c.pages == nil { // flat files collect stats as they put values
		w.c.vstats.Add(row)
	}
	w.seq++
	if err := w.c.commitRow(vals); err != nil {
		w.c.err = err
		return err
	}
	return nil
}

// RowCount is the number of rows written so far.
func (w *AppendWriter) RowCount() int64 { return w.c.rows }

// BytesWritten estimates the file's size so far, like KVWriter's.
func (w *AppendWriter) BytesWritten() int64 { return w.c.size() }

// Close finishes the file.
func (w *AppendWriter) Close() (*Result, error) {
	if w.c.closed {
		return nil, fmt.Errorf("data file writer already closed")
	}
	w.c.closed = true
	size, err := w.c.close()
	if err != nil {
		return nil, err
	}
	r := &Result{FileSize: size, RowCount: w.c.rows, MinKey: binrow.EmptyRow(), MaxKey: binrow.EmptyRow(),
		KeyStats: manifest.EmptyStats(), MinSeq: w.min, MaxSeq: w.seq - 1}
	if w.c.rows == 0 {
		r.MaxSeq = w.min
	}
	if r.ValueStats, r.ValueStatsCols, err = w.c.finishStats(); err != nil {
		return nil, fmt.Errorf("value stats: %w", err)
	}
	return r, nil
}
