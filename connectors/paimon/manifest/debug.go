package manifest

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/sql"
)

// DebugString renders an entry on one line for tests and debugging:
//
//	ADD part=[10] bucket=0 level=5 data-….parquet rows=2 size=1937 seq=[0,8] del=0 src=COMPACT schema=0 key=[Alex]..[Skye]
//
// Partition and keys are decoded with the given types (nil types: hex).
func (e *ManifestEntry) DebugString(partTypes, keyTypes []sql.DataType) string {
	var b strings.Builder
	f := &e.File
	fmt.Fprintf(&b, "%s part=%s bucket=%d/%d level=%d %s rows=%d size=%d seq=[%d,%d]", e.Kind, rowString(partTypes, e.Partition),
		e.Bucket, e.TotalBuckets, f.Level, f.FileName, f.RowCount, f.FileSize, f.MinSequenceNumber, f.MaxSequenceNumber)
	if f.DeleteRowCount != nil {
		fmt.Fprintf(&b, " del=%d", *f.DeleteRowCount)
	}
	if f.FileSource != nil {
		src := "APPEND"
		if *f.FileSource == SourceCompact {
			src = "COMPACT"
		}
		fmt.Fprintf(&b, " src=%s", src)
	}
	fmt.Fprintf(&b, " schema=%d", f.SchemaID)
	if keyTypes != nil {
		fmt.Fprintf(&b, " key=%s..%s", rowString(keyTypes, f.MinKey), rowString(keyTypes, f.MaxKey))
	}
	if len(f.ExtraFiles) > 0 {
		fmt.Fprintf(&b, " extra=%v", f.ExtraFiles)
	}
	if f.ValueStatsCols != nil {
		fmt.Fprintf(&b, " statsCols=%v", f.ValueStatsCols)
	}
	return b.String()
}

// rowString decodes a serialized row for display.
func rowString(types []sql.DataType, row []byte) string {
	if types == nil {
		return hex.EncodeToString(row)
	}
	vals, err := binrow.Deserialize(types, row)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = sql.FormatValue(v, types[i])
	}
	return "[" + strings.Join(parts, ",") + "]"
}
