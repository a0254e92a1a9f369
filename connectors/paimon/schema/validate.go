package schema

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlrun/sqlrun/sql"
)

// ValidateTable applies the checks of Paimon's
// SchemaValidation.validateTableSchema (release-1.4.2) that concern what
// sqlrun supports, in its order and with its messages. Paimon runs it when
// a table is created and on every ALTER TABLE.
func (s *TableSchema) ValidateTable() error {
	opt := func(k string) (string, bool) {
		v, ok := s.Options[k]
		return strings.TrimSpace(v), ok
	}
	intOpt := func(k string, def int) int {
		if v, ok := opt(k); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
		return def
	}
	if err := s.onlyPrimitive(s.PrimaryKeys, "primary key"); err != nil {
		return err
	}
	if err := s.onlyPrimitive(s.PartitionKeys, "partition"); err != nil {
		return err
	}
	if err := s.validateBucket(intOpt("bucket", -1)); err != nil {
		return err
	}
	for _, f := range s.Fields {
		if slicesContains(systemFieldNames, f.Name) {
			// Java prints the HashSet SYSTEM_FIELD_NAMES in its iteration
			// order: String.hashCode buckets of a 16-slot table, ties in
			// insertion order.
			return sql.Errorf(sql.IllegalStateException, "Field name[%s] in schema cannot be exist in [_VALUE_KIND, _ROW_ID, rowkind, _LEVEL, _SEQUENCE_NUMBER]", f.Name)
		}
		if strings.HasPrefix(f.Name, "_KEY_") {
			return sql.Errorf(sql.IllegalStateException, "Field name[%s] in schema cannot start with [_KEY_]", f.Name)
		}
	}
	producer, _ := opt("changelog-producer")
	producer = strings.ToLower(producer)
	if producer == "" {
		producer = "none"
	}
	if len(s.PrimaryKeys) == 0 && producer != "none" {
		return sql.Errorf(sql.UnsupportedOperation, "Can not set changelog-producer on table without primary keys, please define primary keys.")
	}
	overwrite, _ := opt("streaming-read-overwrite")
	if strings.EqualFold(overwrite, "true") && (producer == "full-compaction" || producer == "lookup") {
		return sql.Errorf(sql.UnsupportedOperation, "Cannot set streaming-read-overwrite to true when changelog producer is FULL_COMPACTION or LOOKUP because it will read duplicated changes.")
	}
	snapMin, snapMax := intOpt("snapshot.num-retained.min", 10), intOpt("snapshot.num-retained.max", math.MaxInt32)
	if snapMin <= 0 {
		return sql.Errorf(sql.IllegalArgumentException, "snapshot.num-retained.min should be at least 1")
	}
	if snapMin > snapMax {
		return sql.Errorf(sql.IllegalArgumentException, "snapshot.num-retained.min should not be larger than snapshot.num-retained.max")
	}
	clMin, clMax := intOpt("changelog.num-retained.min", snapMin), intOpt("changelog.num-retained.max", snapMax)
	if clMin <= 0 {
		return sql.Errorf(sql.IllegalArgumentException, "changelog.num-retained.min should be at least 1")
	}
	if clMin > clMax {
		return sql.Errorf(sql.IllegalArgumentException, "changelog.num-retained.min should not be larger than changelog.num-retained.max")
	}
	if len(s.PrimaryKeys) == 0 && strings.EqualFold(overwrite, "true") {
		return sql.Errorf(sql.RuntimeException, "Doesn't support streaming read the changes from overwrite when the primary keys are not defined. Please use streaming-read-append-overwrite to enable the streaming read overwrite commit for append table.")
	}
	if _, ok := opt("partition.expiration-time"); ok && len(s.PartitionKeys) == 0 {
		return sql.Errorf(sql.IllegalArgumentException, "Can not set 'partition.expiration-time' for non-partitioned table.")
	}
	if f, ok := opt("record-level.time-field"); ok && f != "" {
		i := slicesIndex(s.Names(), f)
		if i < 0 {
			return sql.Errorf(sql.IllegalArgumentException, "Can not find time field %s for record level expire.", f)
		}
		switch t := s.Fields[i].Type; t.Root {
		case sql.TypeInt, sql.TypeBigInt, sql.TypeTimestamp, sql.TypeTimestampLTZ:
		default:
			ts, _ := TypeString(t)
			return sql.Errorf(sql.IllegalArgumentException, "The record level time field type should be one of INT, BIGINT, or TIMESTAMP, but field type is %s.", ts)
		}
	}
	if e, _ := opt("merge-engine"); strings.EqualFold(e, "first-row") && producer != "lookup" && producer != "none" {
		return sql.Errorf(sql.IllegalArgumentException, "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine")
	}
	if sf, _ := opt("sequence.field"); strings.TrimSpace(sf) != "" && len(s.PrimaryKeys) > 0 && len(s.PartitionKeys) > 0 && !containsAll(s.PrimaryKeys, s.PartitionKeys) {
		// SchemaValidation.validateSequenceField (TableSchema.crossPartitionUpdate).
		return sql.Errorf(sql.IllegalArgumentException, "You can not use sequence.field in cross partition update case (Primary key constraint '%s' not include all partition fields '%s').",
			javaList(s.PrimaryKeys), javaList(s.PartitionKeys))
	}
	if err := validateForDeletionVectors(opt, producer); err != nil {
		return err
	}
	if err := s.validateRowTracking(opt, intOpt("bucket", -1)); err != nil {
		return err
	}
	// sqlrun's own option (coreoptions.OptStringEncoding), checked here so that
	// a bad value fails at CREATE/ALTER, not at the first write.
	if v, ok := opt("sqlrun.parquet.string-encoding"); ok && v != "plain" && v != "delta-length-byte-array" {
		return sql.Errorf(sql.IllegalArgumentException, "Could not parse value '%s' for key 'sqlrun.parquet.string-encoding' (plain, delta-length-byte-array).", v)
	}
	return nil
}

// validateForDeletionVectors is SchemaValidation.validateForDeletionVectors:
// deletion vectors work with the none, input and lookup producers, and not
// with the first-row engine.
func validateForDeletionVectors(opt func(string) (string, bool), producer string) error {
	if v, _ := opt("deletion-vectors.enabled"); !strings.EqualFold(v, "true") {
		return nil
	}
	if producer != "none" && producer != "input" && producer != "lookup" {
		return sql.Errorf(sql.IllegalArgumentException, "Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now.")
	}
	if e, _ := opt("merge-engine"); strings.EqualFold(e, "first-row") {
		return sql.Errorf(sql.IllegalArgumentException, "First row merge engine does not need deletion vectors because there is no deletion of old data in this merge engine.")
	}
	return nil
}

// systemFieldNames is SpecialFields.SYSTEM_FIELD_NAMES.
var systemFieldNames = []string{"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID"}

// onlyPrimitive is validateOnlyContainPrimitiveType: key columns of
// ARRAY, MAP, MULTISET or ROW type are refused (Java names the type's
// class).
func (s *TableSchema) onlyPrimitive(names []string, intro string) error {
	for _, n := range names {
		i := slicesIndex(s.Names(), n)
		if i < 0 {
			return sql.Errorf(sql.IllegalArgumentException, "Cannot find field: %s", n)
		}
		class := ""
		switch s.Fields[i].Type.Root {
		case sql.TypeArray:
			class = "ArrayType"
		case sql.TypeMap:
			class = "MapType"
		case sql.TypeRow:
			class = "RowType"
		}
		if class != "" {
			return sql.Errorf(sql.UnsupportedOperation, "The type %s in %s field %s is unsupported", class, intro, n)
		}
	}
	return nil
}

// validationBucketKeys is TableSchema.bucketKeys as SchemaValidation
// sees it: 'bucket-key', else the primary key without the partition keys
// (none for an append table without 'bucket-key').
func (s *TableSchema) validationBucketKeys() []string {
	if strings.TrimSpace(s.Options["bucket-key"]) != "" || len(s.PrimaryKeys) > 0 {
		return s.BucketKeys()
	}
	return nil
}

// validateRowTracking is SchemaValidation.validateRowTracking (without the
// vector-store file checks: sqlrun has no VECTOR type).
func (s *TableSchema) validateRowTracking(opt func(string) (string, bool), bucket int) error {
	isTrue := func(k string) bool { v, _ := opt(k); return strings.EqualFold(v, "true") }
	rowTracking := isTrue("row-tracking.enabled")
	if rowTracking {
		if bucket != -1 {
			return sql.Errorf(sql.IllegalArgumentException, "Cannot define bucket for row tracking table, it only support bucket = -1")
		}
		if len(s.PrimaryKeys) > 0 {
			return sql.Errorf(sql.IllegalArgumentException, "Cannot define primary-key for row tracking table.")
		}
	}
	if isTrue("data-evolution.enabled") {
		if !rowTracking {
			return sql.Errorf(sql.IllegalArgumentException, "Data evolution config must enabled with row-tracking.enabled")
		}
		if isTrue("deletion-vectors.enabled") {
			return sql.Errorf(sql.IllegalArgumentException, "Data evolution config must disabled with deletion-vectors.enabled")
		}
		if isTrue("clustering.incremental") {
			return sql.Errorf(sql.IllegalArgumentException, "Data evolution config must disabled with clustering.incremental")
		}
	}
	var blobs []string
	for _, f := range s.Fields {
		if f.Blob {
			blobs = append(blobs, f.Name)
		}
	}
	if len(blobs) > 0 {
		switch {
		case !isTrue("data-evolution.enabled"):
			return sql.Errorf(sql.IllegalArgumentException, "Data evolution config must enabled for table with BLOB type column.")
		case len(s.Fields) <= len(blobs):
			return sql.Errorf(sql.IllegalArgumentException, "Table with BLOB type column must have other normal columns.")
		case slices.ContainsFunc(blobs, func(b string) bool { return slices.Contains(s.PartitionKeys, b) }):
			return sql.Errorf(sql.IllegalArgumentException, "The BLOB type column can not be part of partition keys.")
		}
	}
	return nil
}

// validateBucket is SchemaValidation.validateBucket.
func (s *TableSchema) validateBucket(bucket int) error {
	switch {
	case bucket == -1:
		if _, ok := s.Options["bucket-key"]; ok {
			return sql.Errorf(sql.RuntimeException, "Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or specify a bucket number.")
		}
		if _, ok := s.Options["full-compaction.delta-commits"]; ok && len(s.PrimaryKeys) == 0 {
			return sql.Errorf(sql.RuntimeException, "AppendOnlyTable of unaware or dynamic bucket does not support 'full-compaction.delta-commits'")
		}
	case bucket < 1 && !(len(s.PrimaryKeys) > 0 && bucket == -2):
		return sql.Errorf(sql.RuntimeException, "The number of buckets needs to be greater than 0.")
	case bucket >= 1:
		keys := s.validationBucketKeys()
		if len(s.PrimaryKeys) == 0 && len(keys) == 0 {
			return sql.Errorf(sql.RuntimeException, "You should define a 'bucket-key' for bucketed append mode.")
		}
		var nested []string
		for _, f := range s.Fields {
			if slicesContains(keys, f.Name) {
				switch f.Type.Root {
				case sql.TypeArray, sql.TypeMap, sql.TypeRow:
					nested = append(nested, f.Name)
				}
			}
		}
		if len(nested) > 0 {
			return sql.Errorf(sql.RuntimeException, "nested type can not in bucket-key, in your table these key are %s", javaList(nested))
		}
	}
	return nil
}

func slicesIndex(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func slicesContains(xs []string, x string) bool { return slicesIndex(xs, x) >= 0 }
