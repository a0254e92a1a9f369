// Package kv holds the record of a Paimon primary-key table: a key, the
// sequence number that orders versions of the key, the RowKind, and the full
// value row. It is the unit that data files, the write buffer, merge
// functions and compaction all pass around.
package kv

import "github.com/sqlrun/sqlrun/sql"

// KeyValue is one version of one key, as stored in a data or changelog file
// (_KEY_* columns, _SEQUENCE_NUMBER, _VALUE_KIND, then the value columns).
type KeyValue struct {
	// Key holds the trimmed primary key fields (primary key minus partition
	// keys), in primary-key order, as sql.Row values.
	Key []any
	// Seq is the sequence number: strictly increasing per (partition,
	// bucket); the newest version of a key has the highest one.
	Seq int64
	// Kind is the row's kind; -U and -D are retractions.
	Kind sql.RowKind
	// Value holds every table column in schema order.
	Value []any
	// Level is the LSM level the record was read from (not stored in the
	// file; set by readers, used by the lookup changelog producer).
	Level int
}
