package format

import "bytes"

// Pred is one conjunct of the filter a local aggregate applies before it
// aggregates (issue 24): a row is aggregated only when every conjunct is
// TRUE for it. A conjunct tests one field of the projection (a TINYINT,
// INT or BIGINT column, or a VARCHAR one): IS NULL, or the value lies in
// one of Ranges (sorted, disjoint; a null value is in none, as SQL's
// comparisons and SEARCH give NULL for it, which a WHERE drops).
//
// With Or, the conjunct is instead TRUE when any of those is (each a
// test of one field, without an Or of its own): an OR across columns.
type Pred struct {
	Field  int
	IsNull bool
	Ranges []PredRange
	Or     []Pred
}

// PredRange is one range of a Pred.
type PredRange struct{ Lo, Hi PredBound }

// PredBound is one end of a PredRange: unbounded, or a value (Int for
// integer columns, Str for strings) included when Closed.
type PredBound struct {
	Unbounded bool
	Closed    bool
	Int       int64
	Str       []byte
}

// Keep reports whether a row of the projection's values passes filter:
// the row path of the same test the column path makes per batch.
func Keep(filter []Pred, vals []any) bool {
	for i := range filter {
		if !filter[i].keeps(vals) {
			return false
		}
	}
	return true
}

// keeps is Keep of one conjunct.
func (p *Pred) keeps(vals []any) bool {
	if p.Or != nil {
		for i := range p.Or {
			if p.Or[i].keeps(vals) {
				return true
			}
		}
		return false
	}
	v := vals[p.Field]
	if p.IsNull {
		return v == nil
	}
	switch x := v.(type) {
	case string:
		return p.hasStr([]byte(x))
	case int8:
		return p.hasInt(int64(x))
	case int16:
		return p.hasInt(int64(x))
	case int32:
		return p.hasInt(int64(x))
	case int64:
		return p.hasInt(x)
	}
	return false
}

// present is filter over a file's columns cols: the conjuncts on columns
// the file has, an absent column being null in every row (its IS NULL
// TRUE, any comparison of it not). none reports a conjunct no row passes;
// ok is false when a conjunct reads a column not through the column path.
func present(cols []colReader, filter []Pred) (preds []Pred, none, ok bool) {
	for _, pr := range filter {
		if pr.Or == nil {
			switch col := cols[pr.Field]; {
			case col.leaf < 0 && pr.IsNull: // TRUE in every row
			case col.leaf < 0:
				none = true
			case col.asm != nil || col.bulk == bulkNone:
				return nil, false, false
			default:
				preds = append(preds, pr)
			}
			continue
		}
		alwaysTrue := false
		var kept []Pred
		for _, sub := range pr.Or {
			switch col := cols[sub.Field]; {
			case col.leaf < 0 && sub.IsNull:
				alwaysTrue = true // a disjunct TRUE in every row: so is the OR
			case col.leaf < 0: // FALSE in every row
			case col.asm != nil || col.bulk == bulkNone:
				return nil, false, false
			default:
				kept = append(kept, sub)
			}
		}
		switch {
		case alwaysTrue:
		case len(kept) == 0:
			none = true
		default:
			preds = append(preds, Pred{Or: kept})
		}
	}
	return preds, none, true
}

// hasInt reports whether x is in one of p's ranges.
func (p *Pred) hasInt(x int64) bool {
	for _, r := range p.Ranges {
		if !r.Lo.Unbounded && (x < r.Lo.Int || x == r.Lo.Int && !r.Lo.Closed) {
			return false // ranges are sorted: x is below the later ones too
		}
		if r.Hi.Unbounded || x < r.Hi.Int || x == r.Hi.Int && r.Hi.Closed {
			return true
		}
	}
	return false
}

// hasStr reports whether x is in one of p's ranges (byte order, as the
// row path compares strings).
func (p *Pred) hasStr(x []byte) bool {
	for _, r := range p.Ranges {
		if !r.Lo.Unbounded {
			if c := bytes.Compare(x, r.Lo.Str); c < 0 || c == 0 && !r.Lo.Closed {
				return false
			}
		}
		if r.Hi.Unbounded {
			return true
		}
		if c := bytes.Compare(x, r.Hi.Str); c < 0 || c == 0 && r.Hi.Closed {
			return true
		}
	}
	return false
}

// mayHaveInt reports whether a column whose non-null values lie within
// [lo, hi] can hold a value in one of p's ranges (row-group skipping).
func (p *Pred) mayHaveInt(lo, hi int64) bool {
	for _, r := range p.Ranges {
		if !r.Hi.Unbounded && (lo > r.Hi.Int || lo == r.Hi.Int && !r.Hi.Closed) {
			continue // the column's values are all above this range
		}
		if !r.Lo.Unbounded && (hi < r.Lo.Int || hi == r.Lo.Int && !r.Lo.Closed) {
			return false // below this range and, sorted, every later one
		}
		return true
	}
	return false
}

// mayHaveStr is mayHaveInt for a string column's byte-order bounds.
func (p *Pred) mayHaveStr(lo, hi []byte) bool {
	for _, r := range p.Ranges {
		if !r.Hi.Unbounded {
			if c := bytes.Compare(lo, r.Hi.Str); c > 0 || c == 0 && !r.Hi.Closed {
				continue
			}
		}
		if !r.Lo.Unbounded {
			if c := bytes.Compare(hi, r.Lo.Str); c < 0 || c == 0 && !r.Lo.Closed {
				return false
			}
		}
		return true
	}
	return false
}

// fields calls f with the field of each test in p (its disjuncts' with Or).
func (p *Pred) fields(f func(int)) {
	if p.Or == nil {
		f(p.Field)
		return
	}
	for i := range p.Or {
		f(p.Or[i].Field)
	}
}

// MayHold reports whether a column whose non-null values lie within
// [lo, hi] (a file's statistics, as the row path reads the column's
// type; nil: unknown) can hold a value that passes p. IS NULL is not
// decided here (null counts are).
func MayHold(p *Pred, lo, hi any) bool {
	if p.IsNull {
		return true
	}
	switch l := lo.(type) {
	case int8:
		h, ok := hi.(int8)
		return !ok || p.mayHaveInt(int64(l), int64(h))
	case int16:
		h, ok := hi.(int16)
		return !ok || p.mayHaveInt(int64(l), int64(h))
	case int32:
		h, ok := hi.(int32)
		return !ok || p.mayHaveInt(int64(l), int64(h))
	case int64:
		h, ok := hi.(int64)
		return !ok || p.mayHaveInt(l, h)
	case string:
		h, ok := hi.(string)
		return !ok || p.mayHaveStr([]byte(l), []byte(h))
	}
	return true
}
