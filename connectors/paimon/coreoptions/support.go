package coreoptions

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// Support is what sqlrun does with a Paimon option that is set. Every key
// of Paimon 1.4.1's CoreOptions and FlinkConnectorOptions is declared in
// keys.go with one (testdata/paimon-1.4.1-keys.txt pins the list), so an
// option Paimon honours cannot be accepted and silently ignored.
type Support uint8

const (
	// Honoured: sqlrun does what Paimon does with the option.
	Honoured Support = iota
	// NoEffect: nothing sqlrun writes, reads, commits or shows depends on
	// the option (Flink runtime tuning, JVM memory, a parallelism of a job
	// sqlrun runs in one process, a catalog sqlrun does not have); Why
	// says why.
	NoEffect
	// RefusedOnWrite: a write, compaction or commit of a table that sets
	// the option (to a value other than Allowed) fails naming it, because
	// Paimon would write, commit or create something sqlrun does not;
	// reads work (a table Paimon Java wrote keeps its options).
	RefusedOnWrite
	// RefusedOnRead: a read of a table that sets the option (to a value
	// other than Allowed) fails naming it, because Paimon would read other
	// rows than sqlrun does.
	RefusedOnRead
	// RefusedOnReadAndWrite: both.
	RefusedOnReadAndWrite
)

func (s Support) String() string {
	switch s {
	case Honoured:
		return "honoured"
	case NoEffect:
		return "no effect"
	case RefusedOnWrite:
		return "refused on write"
	case RefusedOnRead:
		return "refused on read"
	case RefusedOnReadAndWrite:
		return "refused on read and write"
	}
	return fmt.Sprintf("support(%d)", s)
}

// Decl is one declared Paimon option: the connectors.Option (key, default,
// type, description; docs/connectors.md prints them) and what sqlrun does
// with it.
type Decl struct {
	connectors.Option
	Support Support
	// Why is, for NoEffect, why nothing sqlrun does depends on the value
	// and, for the refusals, what Paimon does that sqlrun does not.
	Why string
	// Allowed are the values a refused option may have (compared without
	// case and surrounding space): the ones that ask for nothing sqlrun
	// does not do, Paimon's default typically. Empty: any value is refused.
	Allowed []string
	// refusedIf, when set, replaces Allowed: it reports whether the value
	// v (and the other options, raw) ask for what sqlrun does not do.
	refusedIf func(v string, raw map[string]string) bool
}

// noEffect marks d as an option nothing in sqlrun depends on.
func (d Decl) noEffect(why string) Decl {
	d.Support, d.Why = NoEffect, why
	return d
}

// refuseWrite marks d as refused on write unless its value is one of
// allowed.
func (d Decl) refuseWrite(why string, allowed ...string) Decl {
	d.Support, d.Why, d.Allowed = RefusedOnWrite, why, allowed
	return d
}

// refuseRead marks d as refused on read unless its value is one of
// allowed.
func (d Decl) refuseRead(why string, allowed ...string) Decl {
	d.Support, d.Why, d.Allowed = RefusedOnRead, why, allowed
	return d
}

// refuseAlways marks d as refused on read and on write unless its value
// is one of allowed.
func (d Decl) refuseAlways(why string, allowed ...string) Decl {
	d.Support, d.Why, d.Allowed = RefusedOnReadAndWrite, why, allowed
	return d
}

// when replaces a refusal's Allowed values with a predicate.
func (d Decl) when(f func(v string, raw map[string]string) bool) Decl {
	d.refusedIf = f
	return d
}

// fallback declares d's deprecated keys (CoreOptions' withFallbackKeys).
func (d Decl) fallback(keys ...string) Decl {
	d.FallbackKeys = keys
	return d
}

// refused reports whether the value v of d asks for what sqlrun does not do.
func (d Decl) refused(v string, raw map[string]string) bool {
	if d.refusedIf != nil {
		return d.refusedIf(v, raw)
	}
	v = strings.TrimSpace(v)
	return !slices.ContainsFunc(d.Allowed, func(a string) bool { return strings.EqualFold(a, v) })
}

// describe is the description docs/connectors.md shows: Paimon's, then
// what sqlrun does when it is not simply honoured.
func (d Decl) describe() string {
	desc := strings.TrimSpace(d.Description)
	note := ""
	switch d.Support {
	case NoEffect:
		note = "No effect in sqlrun: " + d.Why
	case RefusedOnWrite, RefusedOnRead, RefusedOnReadAndWrite:
		what := "writes and commits of a table"
		switch d.Support {
		case RefusedOnRead:
			what = "reads of a table"
		case RefusedOnReadAndWrite:
			what = "reads and writes of a table"
		}
		note = "sqlrun refuses " + what + " that set it"
		if len(d.Allowed) > 0 && d.refusedIf == nil {
			note += " (other than '" + strings.Join(d.Allowed, "', '") + "')"
		}
		note += ": " + d.Why
	}
	if note == "" {
		return desc
	}
	if desc != "" && !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	note = strings.TrimSpace(note)
	if !strings.HasSuffix(note, ".") && !strings.HasSuffix(note, ")") {
		note += "."
	}
	return strings.TrimSpace(desc + " " + note)
}

// ErrUnsupportedOption is wrapped by the errors CheckWrite and CheckRead
// return.
var ErrUnsupportedOption = errors.New("Paimon table option not supported by sqlrun")

// Decls returns every Paimon option sqlrun declares, with what it does
// with it.
func Decls() []Decl { return slices.Clone(tableOptions) }

// CheckWrite refuses a write, compaction or commit of table (its name or
// path, for the message) whose options (raw: stored ones overlaid with
// the statement's) ask for what sqlrun does not do on write
// (RefusedOnWrite), naming the first such option in declaration order.
func CheckWrite(table string, raw map[string]string) error {
	return check(table, raw, RefusedOnWrite)
}

// CheckRead is CheckWrite for a read (RefusedOnRead).
func CheckRead(table string, raw map[string]string) error { return check(table, raw, RefusedOnRead) }

func check(table string, raw map[string]string, s Support) error {
	for _, d := range tableOptions {
		if d.Support != s && d.Support != RefusedOnReadAndWrite {
			continue
		}
		for _, k := range append([]string{d.Key}, d.FallbackKeys...) {
			v, ok := raw[k]
			if !ok || !d.refused(v, raw) {
				continue
			}
			what := "write"
			if s == RefusedOnRead {
				what = "read"
			}
			return &sql.Error{Class: sql.UnsupportedOperation, Err: ErrUnsupportedOption,
				Msg: fmt.Sprintf("Paimon table option '%s' = '%s' is not supported by sqlrun yet on %s of table %s: %s", k, v, what, table, d.Why)}
		}
	}
	return nil
}

// sameAs refuses a value other than the one of key (def when key is
// unset): an option whose Paimon default is another option's value and
// which sqlrun follows only at that default.
func sameAs(key, def string) func(string, map[string]string) bool {
	return func(v string, raw map[string]string) bool {
		w, ok := raw[key]
		if !ok {
			w = def
		}
		return !strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(w))
	}
}

// decoupled is CoreOptions.changelogLifecycleDecoupled: changelog is kept
// longer (by count or time) than the snapshots it belongs to.
func decoupled(_ string, raw map[string]string) bool {
	// Values that do not parse are reported where the table is opened.
	p := parser{raw: raw}
	snapMin, snapMax := p.integer("snapshot.num-retained.min", 10), p.integer("snapshot.num-retained.max", math.MaxInt32)
	snapTime := p.duration("snapshot.time-retained", time.Hour)
	clMax := p.integer("changelog.num-retained.max", snapMax)
	clMin := p.integer("changelog.num-retained.min", snapMin)
	clTime := p.duration("changelog.time-retained", snapTime)
	return clMax > snapMax || clTime > snapTime || clMin > snapMin
}
