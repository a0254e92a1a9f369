// Package orc reads Apache ORC files (the format of Paimon data files
// with 'file.format' = 'orc', Paimon's default before 0.9, and of
// manifests with 'manifest.format' = 'orc'). It follows the ORC
// specification (orc.apache.org/specification/ORCv1): the protobuf tail,
// compressed streams (none, zlib, snappy, lz4, zstd), byte and boolean
// RLE, integer RLE v1 and v2, direct and dictionary strings, decimals,
// dates and timestamps, and nested struct, list and map columns.
//
// A file is read a stripe at a time; every selected column of the stripe
// is decoded into Go values (see Value kinds on Type). Writing is not
// supported. What the package cannot read (LZO compression, union
// columns, encrypted files) fails with an error wrapping ErrUnsupported
// that names the feature; damaged input fails with an error wrapping
// ErrCorrupt, never a panic.
package orc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/sqlrun/sqlrun/sql"
)

// Kind is an ORC type kind (orc_proto.Type.Kind).
type Kind int

// The ORC type kinds.
const (
	Boolean Kind = iota
	Byte
	Short
	Int
	Long
	Float
	Double
	String
	Binary
	Timestamp
	List
	Map
	Struct
	Union
	Decimal
	Date
	Varchar
	Char
	TimestampInstant
)

var kindNames = [...]string{"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary",
	"timestamp", "array", "map", "struct", "uniontype", "decimal", "date", "varchar", "char", "timestamp with local time zone"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Type is one node of a file's type tree. Decoded values are, by kind:
// Boolean bool, Byte int8, Short int16, Int int32, Long int64, Float
// float32, Double float64, String/Varchar/Char string, Binary []byte,
// Decimal decimal.Decimal (at the type's scale), Date int32 (days since
// 1970-01-01), Timestamp and TimestampInstant TS, List []any, Map MapValue,
// Struct []any (fields in order); nil is null.
type Type struct {
	ID         int // column id: position in the pre-order type list
	Kind       Kind
	Children   []*Type
	FieldNames []string // Struct only
	MaxLength  int
	Precision  int
	Scale      int
	Attributes map[string]string // e.g. Paimon's "paimon.id"
	subtypes   []int
}

func (t *Type) String() string {
	switch t.Kind {
	case Struct:
		var b bytes.Buffer
		b.WriteString("struct<")
		for i, c := range t.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(t.FieldNames[i] + ":" + c.String())
		}
		b.WriteByte('>')
		return b.String()
	case List:
		return "array<" + t.Children[0].String() + ">"
	case Map:
		return "map<" + t.Children[0].String() + "," + t.Children[1].String() + ">"
	case Decimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case Varchar, Char:
		return fmt.Sprintf("%s(%d)", t.Kind, t.MaxLength)
	}
	return t.Kind.String()
}

// TS is a decoded timestamp: Sec is the instant (seconds since the epoch)
// and Wall its wall clock in the writer's time zone (the stripe's
// writerTimezone, as seconds since 1970-01-01T00:00 of that clock); they
// differ only when that zone is not UTC. A Timestamp column stores the
// wall clock (relative to 2015-01-01 in the writer's zone), a
// TimestampInstant column the instant. Nano is the fraction of the second.
type TS struct {
	Sec, Wall int64
	Nano      int32
}

// MapValue is a decoded map entry list, in file order.
type MapValue struct {
	Keys, Values []any
}

// ErrCorrupt is wrapped when a file cannot be decoded.
var ErrCorrupt = sql.Corrupt("corrupt ORC file") // matches sql.ErrCorrupt

// ErrUnsupported is wrapped when a file uses a feature this package does
// not read; the message names it.
var ErrUnsupported = errors.New("unsupported ORC feature")

// Compression kinds (orc_proto.CompressionKind).
const (
	compNone = iota
	compZlib
	compSnappy
	compLZO
	compLZ4
	compZstd
)

var compNames = [...]string{"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD"}

// File is an open ORC file.
type File struct {
	r         io.ReaderAt
	size      int64
	comp      int
	blockSize int
	stripes   []stripeInfo
	types     []*Type
	root      *Type // types[0], or a struct around it when it is not one
	numRows   int64
}

// maxTail bounds the footer a file may declare (16 MiB).
const maxTail = 16 << 20

// Open reads the tail of an ORC file of the given size.
func Open(r io.ReaderAt, size int64) (f *File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: internal error: %v", ErrCorrupt, p)
		}
	}()
	if size < 4 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorrupt, size)
	}
	head := make([]byte, 3)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(head) != "ORC" {
		return nil, fmt.Errorf("%w: not an ORC file (bad magic)", ErrCorrupt)
	}
	tailLen := int64(16 << 10)
	if tailLen > size {
		tailLen = size
	}
	tail := make([]byte, tailLen)
	if _, err := r.ReadAt(tail, size-tailLen); err != nil {
		return nil, err
	}
	psLen := int64(tail[len(tail)-1])
	if psLen+1 > tailLen {
		return nil, fmt.Errorf("%w: postscript length %d", ErrCorrupt, psLen)
	}
	ps, err := parsePostScript(tail[tailLen-1-psLen : tailLen-1])
	if err != nil {
		return nil, fmt.Errorf("%w: postscript: %v", ErrCorrupt, err)
	}
	if ps.magic != "ORC" {
		return nil, fmt.Errorf("%w: postscript magic %q", ErrCorrupt, ps.magic)
	}
	if ps.compression >= uint64(len(compNames)) {
		return nil, fmt.Errorf("%w: compression kind %d", ErrUnsupported, ps.compression)
	}
	if ps.compression == compLZO {
		return nil, fmt.Errorf("%w: LZO compression", ErrUnsupported)
	}
	f = &File{r: r, size: size, comp: int(ps.compression), blockSize: int(ps.compressionSize)}
	if f.blockSize <= 0 || f.blockSize > maxTail {
		f.blockSize = 256 << 10
	}
	footLen := int64(ps.footerLength)
	if ps.footerLength > maxTail || footLen+psLen+1 > size {
		return nil, fmt.Errorf("%w: footer length %d", ErrCorrupt, ps.footerLength)
	}
	raw := make([]byte, footLen)
	if _, err := r.ReadAt(raw, size-1-psLen-footLen); err != nil {
		return nil, err
	}
	dec, err := f.decompress(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: footer: %v", ErrCorrupt, err)
	}
	ft, err := parseFooter(dec)
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: footer: %v", ErrCorrupt, err)
	}
	if err := link(ft.types); err != nil {
		return nil, err
	}
	f.types, f.stripes, f.numRows = ft.types, ft.stripes, int64(ft.numRows)
	f.root = ft.types[0]
	if f.root.Kind != Struct {
		// Paimon always writes a struct; other writers may store one
		// bare column, shown as a struct of one field _col0.
		f.root = &Type{ID: -1, Kind: Struct, Children: []*Type{ft.types[0]}, FieldNames: []string{"_col0"}}
	}
	var n uint64
	for _, s := range ft.stripes {
		if s.offset+s.indexLength+s.dataLength+s.footerLength > uint64(size) {
			return nil, fmt.Errorf("%w: stripe at %d extends past the end of the file", ErrCorrupt, s.offset)
		}
		n += s.numRows
	}
	if n != ft.numRows {
		return nil, fmt.Errorf("%w: stripes hold %d rows, footer says %d", ErrCorrupt, n, ft.numRows)
	}
	return f, nil
}

// link resolves subtypes into Children and checks the tree is a
// pre-order list.
func link(ts []*Type) error {
	if len(ts) == 0 {
		return fmt.Errorf("%w: no types", ErrCorrupt)
	}
	for i, t := range ts {
		t.ID = i
		for _, s := range t.subtypes {
			if s <= i || s >= len(ts) {
				return fmt.Errorf("%w: type %d has subtype %d", ErrCorrupt, i, s)
			}
			t.Children = append(t.Children, ts[s])
		}
		want := -1
		switch t.Kind {
		case List:
			want = 1
		case Map:
			want = 2
		case Struct:
			if len(t.FieldNames) != len(t.Children) {
				return fmt.Errorf("%w: struct type %d has %d fields and %d names", ErrCorrupt, i, len(t.Children), len(t.FieldNames))
			}
		case Union:
			return fmt.Errorf("%w: union type (column %d)", ErrUnsupported, i)
		default:
			if t.Kind < 0 || t.Kind > TimestampInstant {
				return fmt.Errorf("%w: type kind %d", ErrUnsupported, int(t.Kind))
			}
			want = 0
		}
		if want >= 0 && len(t.Children) != want {
			return fmt.Errorf("%w: %s type %d has %d children", ErrCorrupt, t.Kind, i, len(t.Children))
		}
	}
	// Every type but the root is somebody's child exactly once.
	seen := make([]bool, len(ts))
	for _, t := range ts {
		for _, s := range t.subtypes {
			if seen[s] {
				return fmt.Errorf("%w: type %d has two parents", ErrCorrupt, s)
			}
			seen[s] = true
		}
	}
	for i := 1; i < len(ts); i++ {
		if !seen[i] {
			return fmt.Errorf("%w: type %d has no parent", ErrCorrupt, i)
		}
	}
	return nil
}

// Schema returns the root struct type.
func (f *File) Schema() *Type { return f.root }

// NumRows is the row count from the footer.
func (f *File) NumRows() int64 { return f.numRows }

// NumStripes is the number of stripes.
func (f *File) NumStripes() int { return len(f.stripes) }

// Compression names the file's compression kind (NONE, ZLIB, ...).
func (f *File) Compression() string { return compNames[f.comp] }
