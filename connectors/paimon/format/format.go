// Package format reads and writes Paimon data files. Parquet (Paimon's
// default) is read and written; ORC ('file.format' = 'orc', the default
// before Paimon 0.9, decoded by the orc subpackage) and Avro data files are
// read (foreign.go, orcdata.go, avrodata.go).
//
// Two file layouts exist (paimon-format.md §7):
//
//   - primary-key tables store KeyValues: _KEY_<k> columns (the trimmed
//     primary key), _SEQUENCE_NUMBER, _VALUE_KIND, then every table column;
//     rows are sorted by key and a key appears at most once per file;
//   - append tables store the table columns only.
//
// Every column carries its Paimon field id (the Parquet field_id, 0
// included: footer.go encodes the schema). Every file has parquet-java's
// column and offset indexes (pageindex.go). Readers find columns by the names of the
// schema the file was written with and map them to the wanted (current)
// schema by field id, which is how Paimon supports renamed, dropped, added
// and reordered columns. ARRAY, MAP and ROW columns are striped with
// repetition/definition levels (3-level lists, key_value maps) and
// reassembled on read.
//
// Writers compute what DataFileMeta needs while writing: row count, first
// and last key, key and value statistics (byte-identical to what Java
// records, see TestRewriteMatchesJavaMeta), sequence number range and the
// number of retraction rows; the file size is counted exactly.
//
// Readers decode flat columns a batch of rows at a time and hand out
// records cut from per-batch slabs; deletion vectors (ReadDeletionVector)
// drop rows by position. Corrupt files give errors wrapping ErrCorrupt
// that name the file, never panics.
package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/schema"
	"github.com/sqlrun/sqlrun/sql"
)

// Special field ids and names of the KeyValue layout (SpecialFields).
const (
	KeyFieldIDStart     = 1073741823 // Integer.MAX_VALUE / 2
	SequenceNumberID    = 2147483646
	ValueKindID         = 2147483645
	KeyPrefix           = "_KEY_"
	SequenceNumberField = "_SEQUENCE_NUMBER"
	ValueKindField      = "_VALUE_KIND"
)

// ErrUnsupportedFormat is wrapped when a data file is in a format sqlrun
// cannot read (csv, json, ...) or uses a feature of ORC or Avro that it
// does not read (the error names the feature).
var ErrUnsupportedFormat = errors.New("unsupported data file format")

// FormatOf returns the file format of a data file name from its extension
// ("parquet", "orc", "avro"), ignoring a compression infix such as
// ".zstd.parquet".
func FormatOf(fileName string) string {
	i := strings.LastIndexByte(fileName, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(fileName[i+1:])
}

// CheckReadable returns nil for Parquet, ORC, Avro and blob files and a clear
// error otherwise.
func CheckReadable(fileName string) error {
	switch f := FormatOf(fileName); f {
	case "parquet", "orc", "avro", "blob":
		return nil
	default:
		return fmt.Errorf("%w: data file %s has format %q; sqlrun reads parquet, orc and avro data files ('file.format') and blob files", ErrUnsupportedFormat, fileName, f)
	}
}

// Column is one physical column of a data file.
type Column struct {
	Name string
	ID   int
	Type sql.DataType
	// NestedIDs are the field ids of nested ROW fields (schema.Field's).
	NestedIDs []int
}

// KeyValueColumns returns the columns of a primary-key data file: key
// fields as _KEY_<name> with id KeyFieldIDStart+id, _SEQUENCE_NUMBER,
// _VALUE_KIND, then the value fields.
func KeyValueColumns(keys, values []schema.Field) []Column {
	out := make([]Column, 0, len(keys)+2+len(values))
	for _, k := range keys {
		out = append(out, Column{Name: KeyPrefix + k.Name, ID: KeyFieldIDStart + k.ID, Type: k.Type, NestedIDs: k.NestedIDs})
	}
	out = append(out, Column{Name: SequenceNumberField, ID: SequenceNumberID, Type: sql.BigInt().NotNull()},
		Column{Name: ValueKindField, ID: ValueKindID, Type: sql.TinyInt().NotNull()})
	return append(out, PlainColumns(values)...)
}

// PlainColumns returns the columns of an append data file.
func PlainColumns(values []schema.Field) []Column {
	out := make([]Column, len(values))
	for i, v := range values {
		out[i] = Column{Name: v.Name, ID: v.ID, Type: v.Type, NestedIDs: v.NestedIDs}
	}
	return out
}

// FieldTypes lists the types of fields.
func FieldTypes(fs []schema.Field) []sql.DataType {
	out := make([]sql.DataType, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out
}
