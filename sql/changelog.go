package sql

import (
	"fmt"
	"strings"
)

// ChangelogMode is the set of RowKinds that may flow along one edge of a
// plan. Flink's planner reasons about these sets to decide where
// ChangelogNormalize, DropUpdateBefore and upsert materialization go.
type ChangelogMode uint8

func modeOf(kinds ...RowKind) ChangelogMode {
	var m ChangelogMode
	for _, k := range kinds {
		m |= 1 << k
	}
	return m
}

var (
	// InsertOnly carries +I only.
	InsertOnly = modeOf(Insert)
	// Upsert carries +I, +U and -D: updates without their before image.
	Upsert = modeOf(Insert, UpdateAfter, Delete)
	// All carries every kind: a full (retract) changelog.
	All = modeOf(Insert, UpdateBefore, UpdateAfter, Delete)
	// NoChanges is the empty mode, printed as NONE (sinks emit nothing).
	NoChanges ChangelogMode = 0
)

// ModeOf builds a mode holding the given kinds.
func ModeOf(kinds ...RowKind) ChangelogMode { return modeOf(kinds...) }

// Contains reports whether k may appear in the mode.
func (m ChangelogMode) Contains(k RowKind) bool { return m&(1<<k) != 0 }

// With returns m plus k.
func (m ChangelogMode) With(k RowKind) ChangelogMode { return m | 1<<k }

// Without returns m minus k.
func (m ChangelogMode) Without(k RowKind) ChangelogMode { return m &^ (1 << k) }

// Union returns the kinds in either mode.
func (m ChangelogMode) Union(o ChangelogMode) ChangelogMode { return m | o }

// IsInsertOnly reports a mode of +I only.
func (m ChangelogMode) IsInsertOnly() bool { return m == InsertOnly }

// IsUpsert reports a mode that has +U but not -U: an upsert stream, which
// needs a key to be interpreted.
func (m ChangelogMode) IsUpsert() bool {
	return m.Contains(UpdateAfter) && !m.Contains(UpdateBefore)
}

// Kinds lists the kinds in Flink's print order: I, UB, UA, D.
func (m ChangelogMode) Kinds() []RowKind {
	var out []RowKind
	for _, k := range []RowKind{Insert, UpdateBefore, UpdateAfter, Delete} {
		if m.Contains(k) {
			out = append(out, k)
		}
	}
	return out
}

var modeAbbrev = map[RowKind]string{Insert: "I", UpdateBefore: "UB", UpdateAfter: "UA", Delete: "D"}

// String prints the mode as EXPLAIN CHANGELOG_MODE does: I,UB,UA,D, or NONE.
func (m ChangelogMode) String() string {
	if m == NoChanges {
		return "NONE"
	}
	parts := make([]string, 0, 4)
	for _, k := range m.Kinds() {
		parts = append(parts, modeAbbrev[k])
	}
	return strings.Join(parts, ",")
}

// ParseChangelogMode reads a comma-separated list such as "I,UA,D" (the
// values connector's 'changelog-mode' option form).
func ParseChangelogMode(s string) (ChangelogMode, error) {
	var m ChangelogMode
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		k, err := ParseRowKind(p)
		if err != nil {
			return 0, fmt.Errorf("invalid changelog mode %q: %w", s, err)
		}
		m = m.With(k)
	}
	return m, nil
}
