package sql

import "fmt"

// RowKind says how a row applies to a result: added, retracted, or the two
// halves of an update. The byte values are Paimon's (and Flink's), because
// they are written to disk in Paimon's _VALUE_KIND column and must match.
type RowKind byte

const (
	// Insert (+I) adds a row that did not exist before.
	Insert RowKind = 0
	// UpdateBefore (-U) retracts the old value of an updated row.
	UpdateBefore RowKind = 1
	// UpdateAfter (+U) adds the new value of an updated row.
	UpdateAfter RowKind = 2
	// Delete (-D) retracts a row that no longer exists.
	Delete RowKind = 3
)

// ShortString is the form Flink prints: +I, -U, +U, -D.
func (k RowKind) ShortString() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return fmt.Sprintf("?%d", byte(k))
}

// String is the short form, so rows print as Flink prints them.
func (k RowKind) String() string { return k.ShortString() }

// IsAdd reports +I and +U: rows that add to a result.
func (k RowKind) IsAdd() bool { return k == Insert || k == UpdateAfter }

// IsRetract reports -U and -D: rows that take something back from a result.
func (k RowKind) IsRetract() bool { return k == UpdateBefore || k == Delete }

// Valid reports whether k is one of the four kinds.
func (k RowKind) Valid() bool { return k <= Delete }

// ParseRowKind accepts the short forms (+I, -U, +U, -D) and the abbreviations
// used in changelog-mode options (I, UB, UA, D).
func ParseRowKind(s string) (RowKind, error) {
	switch s {
	case "+I", "I", "INSERT":
		return Insert, nil
	case "-U", "UB", "UPDATE_BEFORE":
		return UpdateBefore, nil
	case "+U", "UA", "UPDATE_AFTER":
		return UpdateAfter, nil
	case "-D", "D", "DELETE":
		return Delete, nil
	}
	return 0, fmt.Errorf("unknown row kind %q", s)
}
