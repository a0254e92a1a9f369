package plan

import "github.com/sqlrun/sqlrun/sql"

// TemporalSort is Flink's StreamPhysicalTemporalSort: a streaming ORDER BY
// without LIMIT or OFFSET whose first key is a time attribute, ascending,
// over one partition (a single Exchange). Rowtime tells an event-time
// sort (rows go out as the watermark passes their time) from a
// processing-time one. Its input and output are insert-only
// (FlinkChangelogModeInferenceProgram).
type TemporalSort struct {
	base
	Order   []SortKey
	Rowtime bool
}

func (*TemporalSort) Name() string { return "TemporalSort" }

func (n *TemporalSort) WithInputs(in ...Node) Node {
	c := *n
	c.base = n.with(in)
	return &c
}

// describe is StreamPhysicalTemporalSort.explainTerms
// (RelExplainUtil.collationToString).
func (n *TemporalSort) describe(Format) string {
	return "TemporalSort(orderBy=[" + orderText(n.Order, n.input().Names()) + "])"
}

// convertTemporalSort is StreamPhysicalTemporalSortRule: nil when the sort
// is not one (it has an offset, or its first key is no time attribute or
// descending), for the caller to refuse as Flink's StreamExecSort does.
func (b *binder) convertTemporalSort(r *LogicalSort, in Node) (Node, error) {
	if r.Offset != 0 || r.Fetch >= 0 || len(r.Order) == 0 || r.Order[0].Desc {
		return nil, nil
	}
	var rowtime bool
	switch timeAttribute(r.input(), r.Order[0].Field) {
	case "rowtime":
		rowtime = true
	case "proctime":
	default:
		return nil, nil
	}
	mk := map[Node]sql.ChangelogMode{}
	if k := modifyKinds(in, mk); !k.IsInsertOnly() {
		return nil, (&inference{mk: mk}).consumeError("StreamPhysicalTemporalSort", in, k.Without(sql.Insert))
	}
	ex := &Exchange{base: sameRow(in), Single: true}
	return &TemporalSort{base: row(r.names, r.types, ex), Order: append([]SortKey(nil), r.Order...), Rowtime: rowtime}, nil
}
