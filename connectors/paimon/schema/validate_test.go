package schema

import (
	"testing"

	"github.com/sqlrun/sqlrun/sql"
)

// TestValidateTable checks SchemaValidation.validateTableSchema's checks
// (paimon-core release-1.4.2) with Paimon's messages; issue 14 found a
// bucketed append table without 'bucket-key' accepted.
func TestValidateTable(t *testing.T) {
	cols := []sql.Column{{Name: "id", Type: sql.BigInt()}, {Name: "arr", Type: sql.ArrayOf(sql.Int())}, {Name: "ts", Type: sql.String()}}
	for _, tc := range []struct {
		pk, part []string
		opts     map[string]string
		want     string
	}{
		{nil, nil, map[string]string{"bucket": "2"}, "java.lang.RuntimeException: You should define a 'bucket-key' for bucketed append mode."},
		{nil, nil, map[string]string{"bucket": "2", "bucket-key": "id"}, ""},
		{nil, nil, map[string]string{"bucket": "2", "bucket-key": "arr"}, "java.lang.RuntimeException: nested type can not in bucket-key, in your table these key are [arr]"},
		{nil, nil, map[string]string{"bucket-key": "id"}, "java.lang.RuntimeException: Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting or specify a bucket number."},
		{nil, nil, map[string]string{"full-compaction.delta-commits": "1"}, "java.lang.RuntimeException: AppendOnlyTable of unaware or dynamic bucket does not support 'full-compaction.delta-commits'"},
		{nil, nil, map[string]string{"bucket": "0"}, "java.lang.RuntimeException: The number of buckets needs to be greater than 0."},
		{[]string{"arr"}, nil, map[string]string{"bucket": "1"}, "java.lang.UnsupportedOperationException: The type ArrayType in primary key field arr is unsupported"},
		{nil, []string{"arr"}, nil, "java.lang.UnsupportedOperationException: The type ArrayType in partition field arr is unsupported"},
		{nil, nil, map[string]string{"changelog-producer": "lookup"}, "java.lang.UnsupportedOperationException: Can not set changelog-producer on table without primary keys, please define primary keys."},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "changelog-producer": "lookup", "streaming-read-overwrite": "true"}, "java.lang.UnsupportedOperationException: Cannot set streaming-read-overwrite to true when changelog producer is FULL_COMPACTION or LOOKUP because it will read duplicated changes."},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "snapshot.num-retained.min": "0"}, "java.lang.IllegalArgumentException: snapshot.num-retained.min should be at least 1"},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "snapshot.num-retained.max": "5"}, "java.lang.IllegalArgumentException: snapshot.num-retained.min should not be larger than snapshot.num-retained.max"},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "changelog.num-retained.max": "5"}, "java.lang.IllegalArgumentException: changelog.num-retained.min should not be larger than changelog.num-retained.max"},
		{nil, nil, map[string]string{"streaming-read-overwrite": "true"}, "java.lang.RuntimeException: Doesn't support streaming read the changes from overwrite when the primary keys are not defined. Please use streaming-read-append-overwrite to enable the streaming read overwrite commit for append table."},
		{nil, nil, map[string]string{"partition.expiration-time": "1 d"}, "java.lang.IllegalArgumentException: Can not set 'partition.expiration-time' for non-partitioned table."},
		{nil, nil, map[string]string{"record-level.time-field": "nope"}, "java.lang.IllegalArgumentException: Can not find time field nope for record level expire."},
		{nil, nil, map[string]string{"record-level.time-field": "ts"}, "java.lang.IllegalArgumentException: The record level time field type should be one of INT, BIGINT, or TIMESTAMP, but field type is STRING."},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "merge-engine": "first-row", "changelog-producer": "input"}, "java.lang.IllegalArgumentException: Only support 'none' and 'lookup' changelog-producer on FIRST_ROW merge engine"},
		// SchemaValidation.validateForDeletionVectors.
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "changelog-producer": "full-compaction"}, "java.lang.IllegalArgumentException: Deletion vectors mode is only supported for NONE/INPUT/LOOKUP changelog producer now."},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "merge-engine": "first-row"}, "java.lang.IllegalArgumentException: First row merge engine does not need deletion vectors because there is no deletion of old data in this merge engine."},
		{[]string{"id"}, nil, map[string]string{"bucket": "1", "deletion-vectors.enabled": "true", "changelog-producer": "lookup"}, ""},
		// SchemaValidation.validateSequenceField: no sequence.field with a
		// cross-partition primary key (TableSchema.crossPartitionUpdate).
		{[]string{"id"}, []string{"ts"}, map[string]string{"sequence.field": "id"}, "java.lang.IllegalArgumentException: You can not use sequence.field in cross partition update case (Primary key constraint '[id]' not include all partition fields '[ts]')."},
		{[]string{"id"}, []string{"ts"}, nil, ""},
		{[]string{"id", "ts"}, []string{"ts"}, map[string]string{"sequence.field": "id"}, ""},
		// SchemaValidation.validateRowTracking.
		{nil, nil, map[string]string{"row-tracking.enabled": "true", "bucket": "2", "bucket-key": "id"}, "java.lang.IllegalArgumentException: Cannot define bucket for row tracking table, it only support bucket = -1"},
		{[]string{"id"}, nil, map[string]string{"row-tracking.enabled": "true"}, "java.lang.IllegalArgumentException: Cannot define primary-key for row tracking table."},
		{nil, nil, map[string]string{"data-evolution.enabled": "true"}, "java.lang.IllegalArgumentException: Data evolution config must enabled with row-tracking.enabled"},
		{nil, nil, map[string]string{"row-tracking.enabled": "true", "data-evolution.enabled": "true", "deletion-vectors.enabled": "true"}, "java.lang.IllegalArgumentException: Data evolution config must disabled with deletion-vectors.enabled"},
		{nil, nil, map[string]string{"row-tracking.enabled": "true", "data-evolution.enabled": "true"}, ""},
		{nil, nil, map[string]string{"sqlrun.parquet.string-encoding": "delta"}, "java.lang.IllegalArgumentException: Could not parse value 'delta' for key 'sqlrun.parquet.string-encoding' (plain, delta-length-byte-array)."},
		{nil, nil, map[string]string{"sqlrun.parquet.string-encoding": "delta-length-byte-array"}, ""},
	} {
		_, err := New(cols, tc.part, tc.pk, tc.opts, "", 0)
		got := ""
		if err != nil {
			got = err.Error()
			if e, ok := err.(*sql.Error); ok {
				got = string(e.Class) + ": " + e.Msg
			}
		}
		if got != tc.want {
			t.Errorf("pk %v partition %v options %v:\n got %q\nwant %q", tc.pk, tc.part, tc.opts, got, tc.want)
		}
	}
	if _, err := New([]sql.Column{{Name: "_VALUE_KIND", Type: sql.Int()}}, nil, nil, nil, "", 0); err == nil ||
		err.Error() != "Field name[_VALUE_KIND] in schema cannot be exist in [_VALUE_KIND, _ROW_ID, rowkind, _LEVEL, _SEQUENCE_NUMBER]" {
		t.Errorf("system field name: %v", err)
	}
}
