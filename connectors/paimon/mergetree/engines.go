package mergetree

import (
	"fmt"

	"github.com/sqlrun/sqlrun/sql"
)

// aggregation merges every version field by field with each field's
// aggregate function (AggregateMergeFunction). Retractions (-U/-D) are
// retracted from the accumulators; with aggregation.remove-record-on-delete a
// -D removes the whole row. The result is +I (or -D when removed), carrying
// the newest version's key and sequence number.
type aggregation struct {
	aggs          []aggregator
	nullable      []bool
	removeOnDel   bool
	latest        *KV
	row           []any
	currentDelete bool
}

func (a *aggregation) Reset() {
	a.latest = nil
	a.row = make([]any, len(a.aggs))
	for _, g := range a.aggs {
		g.reset()
	}
	a.currentDelete = false
}

func (a *aggregation) Add(r *KV) error {
	a.latest = r
	a.currentDelete = a.removeOnDel && r.Kind == sql.Delete
	if a.currentDelete {
		row, err := initRow(r.Value, a.nullable)
		if err != nil {
			return err
		}
		a.row = row
		return nil
	}
	retract := r.Kind.IsRetract()
	for i, g := range a.aggs {
		if retract {
			v, err := g.retract(a.row[i], r.Value[i])
			if err != nil {
				return err
			}
			a.row[i] = v
		} else {
			a.row[i] = g.agg(a.row[i], r.Value[i])
		}
	}
	return nil
}

func (a *aggregation) Result() (*KV, error) {
	if a.latest == nil {
		return nil, fmt.Errorf("mergetree: aggregation result requested without any input")
	}
	kind := sql.Insert
	if a.currentDelete {
		kind = sql.Delete
	}
	return &KV{Key: a.latest.Key, Seq: a.latest.Seq, Kind: kind, Value: copyValue(a.row)}, nil
}

// initRow copies a value, refusing NULL in NOT NULL fields.
func initRow(v []any, nullable []bool) ([]any, error) {
	for i, x := range v {
		if x == nil && !nullable[i] {
			return nil, fmt.Errorf("%w: Field %d can not be null", ErrUnsupportedRecord, i)
		}
	}
	return copyValue(v), nil
}

// seqGroup is one partial-update sequence group: the fields of
// `fields.<s1>,<s2>.sequence-group` are updated only by records whose
// sequence fields s1,s2 are not older than the row's.
type seqGroup struct {
	seqFields []int
	cmp       *Comparator // over seqFields, NULL first
}

// partialUpdate overwrites fields with the non-null fields of newer versions
// (PartialUpdateMergeFunction). Deletes are refused unless ignore-delete
// (skip them), partial-update.remove-record-on-delete (a -D removes the row)
// or sequence groups (a retraction clears the group's fields) say otherwise.
type partialUpdate struct {
	nullable        []bool
	ignoreDelete    bool
	removeOnDel     bool
	groupOf         []*seqGroup  // per field, nil when not in a group
	aggs            []aggregator // per field, nil when none
	removeOnGroup   map[int]bool // partial-update.remove-record-on-sequence-group fields
	fieldSeqEnabled bool

	key           []any
	latestSeq     int64
	row           []any
	currentDelete bool
	notNullFilled bool
	meetInsert    bool
}

const partialUpdateDeleteMsg = "By default, Partial update can not accept delete records, you can choose one of the following solutions:\n" +
	"1. Configure 'ignore-delete' to ignore delete records.\n" +
	"2. Configure 'partial-update.remove-record-on-delete' to remove the whole row when receiving delete records.\n" +
	"3. Configure 'sequence-group's to retract partial columns. Also configure 'partial-update.remove-record-on-sequence-group' to remove the whole row when receiving deleted records of `specified sequence group`."

func (p *partialUpdate) Reset() {
	p.key = nil
	p.meetInsert = false
	p.notNullFilled = false
	p.row = make([]any, len(p.nullable))
	p.latestSeq = 0
	for _, g := range p.aggs {
		if g != nil {
			g.reset()
		}
	}
}

func (p *partialUpdate) Add(r *KV) error {
	p.key = r.Key
	p.currentDelete = false
	if r.Kind.IsRetract() {
		if !p.notNullFilled {
			row, err := initRow(r.Value, p.nullable)
			if err != nil {
				return err
			}
			p.row = row
			p.notNullFilled = true
		}
		if p.ignoreDelete {
			return nil
		}
		p.latestSeq = r.Seq
		if p.fieldSeqEnabled {
			return p.retractWithSequenceGroup(r)
		}
		if p.removeOnDel {
			if r.Kind == sql.Delete {
				p.currentDelete = true
				row, err := initRow(r.Value, p.nullable)
				if err != nil {
					return err
				}
				p.row = row
			}
			return nil
		}
		return fmt.Errorf("%w: %s", ErrUnsupportedRecord, partialUpdateDeleteMsg)
	}
	p.latestSeq = r.Seq
	if !p.fieldSeqEnabled {
		for i, x := range r.Value {
			if x != nil {
				p.row[i] = x
			} else if !p.nullable[i] {
				return fmt.Errorf("%w: Field %d can not be null", ErrUnsupportedRecord, i)
			}
		}
	} else {
		p.updateWithSequenceGroup(r)
	}
	p.meetInsert = true
	p.notNullFilled = true
	return nil
}

// emptyGroup reports (and remembers per record) whether all sequence fields
// of a group are NULL in the record; such a record does not touch the group.
func emptyGroup(v []any, g *seqGroup, empty map[*seqGroup]bool) bool {
	if e, ok := empty[g]; ok {
		return e
	}
	e := true
	for _, f := range g.seqFields {
		if v[f] != nil {
			e = false
			break
		}
	}
	empty[g] = e
	return e
}

func isSeqField(g *seqGroup, i int) bool {
	for _, f := range g.seqFields {
		if f == i {
			return true
		}
	}
	return false
}

func (p *partialUpdate) updateWithSequenceGroup(r *KV) {
	empty := map[*seqGroup]bool{}
	for i := range p.row {
		g, agg := p.groupOf[i], p.aggs[i]
		acc := p.row[i]
		if g == nil {
			x := r.Value[i]
			if agg != nil {
				p.row[i] = agg.agg(acc, x)
			} else if x != nil {
				p.row[i] = x
			}
			continue
		}
		if emptyGroup(r.Value, g, empty) {
			continue
		}
		x := r.Value[i]
		if g.cmp.Compare(r.Value, p.row) >= 0 {
			if isSeqField(g, i) {
				// Multiple sequence fields are updated at once.
				for _, f := range g.seqFields {
					p.row[f] = r.Value[f]
				}
				continue
			}
			if agg == nil {
				p.row[i] = x
			} else {
				p.row[i] = agg.agg(acc, x)
			}
		} else if agg != nil {
			p.row[i] = agg.aggReversed(acc, x)
		}
	}
}

func (p *partialUpdate) retractWithSequenceGroup(r *KV) error {
	updated := map[int]bool{}
	empty := map[*seqGroup]bool{}
	for i := range p.row {
		g, agg := p.groupOf[i], p.aggs[i]
		if g == nil || emptyGroup(r.Value, g, empty) {
			continue
		}
		if g.cmp.Compare(r.Value, p.row) >= 0 {
			if isSeqField(g, i) {
				for _, f := range g.seqFields {
					if updated[f] {
						continue
					}
					if r.Kind == sql.Delete && p.removeOnGroup[f] {
						p.currentDelete = true
						row, err := initRow(r.Value, p.nullable)
						if err != nil {
							return err
						}
						p.row = row
						return nil
					}
					p.row[f] = r.Value[f]
					updated[f] = true
				}
			} else if agg == nil {
				p.row[i] = nil
			} else {
				v, err := agg.retract(p.row[i], r.Value[i])
				if err != nil {
					return err
				}
				p.row[i] = v
			}
		} else if agg != nil {
			v, err := agg.retract(p.row[i], r.Value[i])
			if err != nil {
				return err
			}
			p.row[i] = v
		}
	}
	return nil
}

func (p *partialUpdate) Result() (*KV, error) {
	kind := sql.Insert
	if p.currentDelete || !p.meetInsert {
		kind = sql.Delete
	}
	return &KV{Key: p.key, Seq: p.latestSeq, Kind: kind, Value: copyValue(p.row)}, nil
}
