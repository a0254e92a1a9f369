package table

import (
	"fmt"

	"github.com/sqlrun/sqlrun/connectors/paimon/binrow"
	"github.com/sqlrun/sqlrun/connectors/paimon/format"
	"github.com/sqlrun/sqlrun/connectors/paimon/manifest"
	"github.com/sqlrun/sqlrun/connectors/paimon/mergetree"
	"github.com/sqlrun/sqlrun/sql"
)

// Record-level expiry ('record-level.expire-time',
// 'record-level.time-field'), as Paimon 1.4's RecordLevelExpire: only
// primary-key tables expire records (KeyValueFileStoreWrite), at
// compaction (mergetree.RecordExpire).

// recordExpire is RecordLevelExpire.create for the table's merge tree:
// nil without 'record-level.expire-time'. The time field's existence and
// type were checked when the table was created (SchemaValidation); a
// missing field is refused when the table is written (checkWritable).
func (t *Table) recordExpire() *mergetree.RecordExpire {
	d := t.Options.RecordExpireTime
	if d == nil || t.Options.RecordTimeField == "" {
		return nil
	}
	i := t.Schema.FieldIndex(t.Options.RecordTimeField)
	if i < 0 {
		return nil
	}
	typ := t.Schema.Fields[i].Type
	if !recordTimeType(typ) {
		return nil
	}
	return &mergetree.RecordExpire{Seconds: int64(d.Seconds()), Field: i,
		Time: func(v any) int64 { return recordSeconds(typ, v) }}
}

func recordTimeType(t sql.DataType) bool {
	switch t.Root {
	case sql.TypeInt, sql.TypeBigInt, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		return true
	}
	return false
}

// recordSeconds is createFieldGetterAndConvertToSecond: INT is seconds,
// BIGINT seconds or (from 1,000,000,000,000 on) milliseconds, a timestamp
// its epoch milliseconds / 1000.
func recordSeconds(t sql.DataType, v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		if x >= 1_000_000_000_000 {
			return x / 1000
		}
		return x
	case sql.TimestampData:
		return x.Millis / 1000
	}
	panic(fmt.Sprintf("paimon: record-level.time-field value %T of type %v", v, t.Root))
}

// checkRecordExpire is RecordLevelExpire.create's check when a
// primary-key table is written, and refuses what sqlrun does not do:
// deletion vectors (Paimon's lookup finds an old record's position
// through the expiring reader, so an expired one is never marked deleted
// and stays visible until its file is rewritten) and first-row (whose
// lookups read the files unfiltered). The lookup changelog producer's
// lookups leave expired records out, as Paimon's (mergetree.MemLookup's
// Expire).
func (t *Table) checkRecordExpire() error {
	if !t.PrimaryKey() || t.Options.RecordExpireTime == nil {
		return nil
	}
	if t.Options.RecordTimeField == "" {
		return sql.Errorf(sql.IllegalArgumentException, "You should set time field for record-level expire.")
	}
	if t.Spec != nil && t.Spec.NeedLookup && (t.Options.MergeEngine == "first-row" || t.Options.DeletionVectors) {
		return sql.Errorf(sql.UnsupportedOperation, "'record-level.expire-time' is not supported by sqlrun yet with %s: Paimon's compaction of such a table keeps expired records visible to its lookups, which sqlrun does not reproduce", lookupReason(t))
	}
	return nil
}

func lookupReason(t *Table) string {
	switch {
	case t.Options.MergeEngine == "first-row":
		return "'merge-engine' = 'first-row'"
	}
	return "'deletion-vectors.enabled' = 'true'"
}

// recordMinTime is the least time field value of a data file in epoch
// seconds, from its value statistics, as RecordLevelExpire.isExpireFile
// reads it: through the file's own schema (the field found by id) and its
// value stats columns; nil when unknown (no stats, null, the field
// missing from the file's schema).
func (t *Table) recordMinTime(m manifest.DataFileMeta) (*int64, error) {
	if t.Spec == nil || t.Spec.Expire == nil {
		return nil, nil
	}
	e := t.Spec.Expire
	id := t.Schema.Fields[e.Field].ID
	fs, err := t.SchemaByID(m.SchemaID)
	if err != nil {
		return nil, err
	}
	fields := fs.Fields
	if m.ValueStatsCols != nil {
		if fields, err = fs.Project(m.ValueStatsCols); err != nil {
			return nil, fmt.Errorf("value stats of %s: %w", m.FileName, err)
		}
	}
	pos := -1
	for i, f := range fields {
		if f.ID == id {
			pos = i
		}
	}
	if pos < 0 || !recordTimeType(fields[pos].Type) {
		return nil, nil
	}
	if n, _ := binrow.SerializedArity(m.ValueStats.MinValues); n != len(fields) {
		return nil, nil
	}
	mins, err := binrow.Deserialize(format.FieldTypes(fields), m.ValueStats.MinValues)
	if err != nil {
		return nil, fmt.Errorf("value stats of %s: %w", m.FileName, err)
	}
	if mins[pos] == nil {
		return nil, nil
	}
	s := recordSeconds(fields[pos].Type, mins[pos])
	return &s, nil
}
