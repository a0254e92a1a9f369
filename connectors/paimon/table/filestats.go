package table

import (
	"sync/atomic"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
)

// filesSkipped counts the data files a filtered read left unread because
// their manifest statistics exclude every row (fileMayPass); Paimon's
// ScanMetrics counts the same as lastScanSkippedTableFiles.
var filesSkipped atomic.Int64

// FilesSkipped is how many data files filtered reads have skipped by
// their value statistics since the process started.
func FilesSkipped() int64 { return filesSkipped.Load() }

// fileMayPass reports whether data file m, whose rows are read raw as
// the fields want (the projection, by field id), can hold a row that
// passes every conjunct of filter, by the file's value statistics in its
// manifest entry (_VALUE_STATS: min, max and null count per column, over
// the fields of the file's schema or those _VALUE_STATS_COLS names), as
// Paimon's scan drops files by a pushed predicate's statistics
// (FileStoreScan.withValueFilter, SimpleStatsEvolutions). It is used only
// where every row of the file is one the read yields or deletes (append
// files and primary-key files read raw), so a file with no passing row
// yields nothing that passes. A column whose statistics are absent,
// truncated away, of another type than the field's (an evolved column,
// a CHAR or VARCHAR of another length included), or of an arity that
// does not match says nothing: the file is read.
func fileMayPass(m manifest.DataFileMeta, written, want []schemaField, filter []format.Pred) bool {
	if len(filter) == 0 {
		return true
	}
	fields := written
	if m.ValueStatsCols != nil {
		fields = nil
		for _, name := range m.ValueStatsCols {
			for _, f := range written {
				if f.Name == name {
					fields = append(fields, f)
				}
			}
		}
		if len(fields) != len(m.ValueStatsCols) {
			return true
		}
	}
	st := &m.ValueStats
	if n, err := binrow.SerializedArity(st.MinValues); err != nil || n != len(fields) || n == 0 {
		return true
	}
	var mins, maxs []any
	// may tests one conjunct, or one disjunct of an Or.
	may := func(p *format.Pred) bool {
		if p.Field >= len(want) {
			return true
		}
		at := -1
		for j, f := range fields {
			// Statistics of the field as the file wrote it hold for the
			// field read only when the read does not cast it: a CHAR
			// whose length changed is padded on read, a VARCHAR
			// narrowed is cut (ALTER TABLE ... MODIFY s VARCHAR(3) reads
			// 'abcde' as 'abc', which min 'abcde' would exclude), as
			// Paimon's SimpleStatsEvolution casts the statistics and
			// SchemaEvolutionUtil.devolveDataFilters drops the
			// predicates of a field whose type changed.
			if f.ID == want[p.Field].ID && f.Type.WithNullable(true).Equal(want[p.Field].Type.WithNullable(true)) {
				at = j
			}
		}
		if at < 0 {
			return true
		}
		var nulls *int64
		if at < len(st.NullCounts) {
			nulls = st.NullCounts[at]
		}
		if p.IsNull {
			return nulls == nil || *nulls > 0
		}
		if nulls != nil && *nulls >= m.RowCount && m.RowCount > 0 {
			return false // only nulls: no comparison is TRUE
		}
		if mins == nil {
			types := format.FieldTypes(fields)
			var err1, err2 error
			mins, err1 = binrow.Deserialize(types, st.MinValues)
			maxs, err2 = binrow.Deserialize(types, st.MaxValues)
			if err1 != nil || err2 != nil {
				mins, maxs = make([]any, len(fields)), make([]any, len(fields)) // unknown
			}
		}
		return format.MayHold(p, mins[at], maxs[at])
	}
	for i := range filter {
		p := &filter[i]
		if p.Or == nil {
			if !may(p) {
				return false
			}
			continue
		}
		some := false
		for x := range p.Or {
			if may(&p.Or[x]) {
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
