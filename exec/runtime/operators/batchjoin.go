package operators

import (
	"fmt"
	"sort"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// BatchJoinStrategy is how a batch join matches its bounded inputs, as
// Flink's batch planner names them.
type BatchJoinStrategy int

const (
	// HashJoin loads the build side into a hash table on the join key,
	// then streams the probe side through it (Flink's HashJoinOperator).
	HashJoin BatchJoinStrategy = iota
	// SortMergeJoin sorts both sides on the join key and merges equal
	// key groups (Flink's SortMergeJoinOperator).
	SortMergeJoin
	// NestedLoopJoin compares every probe row with every build row
	// (Flink's NestedLoopJoinCodeGenerator), the only strategy for a
	// condition without an equality between the inputs.
	NestedLoopJoin
)

// BatchJoinType is the join type of a batch join.
type BatchJoinType int

const (
	BatchInner BatchJoinType = iota
	BatchLeft
	BatchRight
	BatchFull
	BatchSemi
	BatchAnti
)

// BatchJoinSpec configures BatchJoin.
type BatchJoinSpec struct {
	Strategy BatchJoinStrategy
	Type     BatchJoinType
	// LeftKeys and RightKeys are the equi-join fields (HashJoin and
	// SortMergeJoin); a row with a NULL key matches nothing.
	LeftKeys, RightKeys   []int
	LeftArity, RightArity int
	// Cond is the whole join condition over the concatenated row (nil:
	// true); a pair matches when it is TRUE.
	Cond func([]any) (any, error)
	// LeftIsBuild makes the left input the hash table (HashJoin) or the
	// inner loop (NestedLoopJoin).
	LeftIsBuild bool
}

// BatchJoin is a join of two bounded, insert-only inputs (input 0 the
// left, 1 the right) that emits its result at end of input: the join's
// final rows, each once, as +I. Unmatched rows of an outer side are
// padded with NULLs; a SEMI join emits each left row that has a match
// once, an ANTI join each left row without one. Every strategy gives the
// same rows; they differ in how they find the matching pairs. Both
// inputs are buffered (sqlrun's runtime delivers them interleaved, where
// Flink reads the build side first), and the buffers are the checkpointed
// state.
func BatchJoin(spec BatchJoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &batchJoin{spec: spec}, nil }
}

type batchJoin struct {
	runtime.Base
	spec        BatchJoinSpec
	left, right []sql.Row
	enc         state.Encoder
}

func (j *batchJoin) Open(_ *runtime.Context, restored []byte) error {
	if restored == nil {
		return nil
	}
	d := state.Decoder{Buf: restored}
	var err error
	if j.left, err = state.RowsCodec.Decode(&d); err != nil {
		return fmt.Errorf("%s: %w", j.name(), err)
	}
	if j.right, err = state.RowsCodec.Decode(&d); err != nil {
		return fmt.Errorf("%s: %w", j.name(), err)
	}
	return nil
}

func (j *batchJoin) Snapshot(int64) ([]byte, error) {
	var e state.Encoder
	if err := state.RowsCodec.Encode(&e, j.left); err != nil {
		return nil, err
	}
	err := state.RowsCodec.Encode(&e, j.right)
	return e.Buf, err
}

func (j *batchJoin) name() string {
	return [...]string{"HashJoin", "SortMergeJoin", "NestedLoopJoin"}[j.spec.Strategy]
}

func (j *batchJoin) ProcessBatch(input int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("%s supports only insert-only input, got %s", j.name(), r.Kind)
		}
	}
	if input == 0 {
		j.left = append(j.left, rows...)
	} else {
		j.right = append(j.right, rows...)
	}
	return nil
}

// matcher collects the matching pairs and the rows that had one.
type matcher struct {
	spec                    *BatchJoinSpec
	leftMatched, rightMatch []bool
	out                     *runtime.Collector
	buf                     []any
}

// try evaluates the condition on left row l and right row r and records
// a match.
func (m *matcher) try(li, ri int, l, r []any) error {
	if m.spec.Cond != nil {
		m.buf = append(append(m.buf[:0], l...), r...)
		v, err := m.spec.Cond(m.buf)
		if err != nil {
			return fmt.Errorf("join condition: %w", err)
		}
		if ok, _ := v.(bool); !ok {
			return nil
		}
	}
	m.leftMatched[li], m.rightMatch[ri] = true, true
	switch m.spec.Type {
	case BatchSemi, BatchAnti:
	default:
		vals := make([]any, 0, len(l)+len(r))
		m.out.Emit(sql.Row{Kind: sql.Insert, Values: append(append(vals, l...), r...)})
	}
	return nil
}

func (j *batchJoin) Finish(out *runtime.Collector) error {
	m := &matcher{spec: &j.spec, leftMatched: make([]bool, len(j.left)), rightMatch: make([]bool, len(j.right)), out: out}
	var err error
	switch j.spec.Strategy {
	case HashJoin:
		err = j.hashJoin(m)
	case SortMergeJoin:
		err = j.sortMergeJoin(m)
	default:
		err = j.nestedLoopJoin(m)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", j.name(), err)
	}
	t := j.spec.Type
	for i, r := range j.left {
		switch {
		case t == BatchSemi && m.leftMatched[i], t == BatchAnti && !m.leftMatched[i]:
			out.Emit(r)
		case (t == BatchLeft || t == BatchFull) && !m.leftMatched[i]:
			out.Emit(sql.Row{Kind: sql.Insert, Values: append(append([]any(nil), r.Values...), make([]any, j.spec.RightArity)...)})
		}
	}
	if t == BatchRight || t == BatchFull {
		for i, r := range j.right {
			if !m.rightMatch[i] {
				out.Emit(sql.Row{Kind: sql.Insert, Values: append(make([]any, j.spec.LeftArity), r.Values...)})
			}
		}
	}
	j.left, j.right = nil, nil
	return nil
}

// key encodes a row's join key, ok=false when a key field is NULL.
func (j *batchJoin) key(vals []any, keys []int) (string, bool, error) {
	for _, k := range keys {
		if vals[k] == nil {
			return "", false, nil
		}
	}
	j.enc.Buf = j.enc.Buf[:0]
	if err := state.AppendKey(&j.enc, sql.Row{Values: vals}, keys); err != nil {
		return "", false, fmt.Errorf("join key: %w", err)
	}
	return string(j.enc.Buf), true, nil
}

// hashJoin builds a table of the build side's rows by key (rows with a
// NULL key are left out: they match nothing) and probes it with every
// row of the other side.
func (j *batchJoin) hashJoin(m *matcher) error {
	build, probe := j.right, j.left
	buildKeys, probeKeys := j.spec.RightKeys, j.spec.LeftKeys
	if j.spec.LeftIsBuild {
		build, probe, buildKeys, probeKeys = j.left, j.right, j.spec.LeftKeys, j.spec.RightKeys
	}
	table := make(map[string][]int, len(build))
	for i, r := range build {
		k, ok, err := j.key(r.Values, buildKeys)
		if err != nil {
			return err
		}
		if ok {
			table[k] = append(table[k], i)
		}
	}
	for pi, r := range probe {
		k, ok, err := j.key(r.Values, probeKeys)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for _, bi := range table[k] {
			li, ri, l, rr := pi, bi, r.Values, build[bi].Values
			if j.spec.LeftIsBuild {
				li, ri, l, rr = bi, pi, build[bi].Values, r.Values
			}
			if err := m.try(li, ri, l, rr); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortMergeJoin sorts the row positions of both sides by key (NULL keys
// out) and joins each group of equal keys with the other side's group.
func (j *batchJoin) sortMergeJoin(m *matcher) error {
	lo, err := sortedByKey(j.left, j.spec.LeftKeys)
	if err != nil {
		return err
	}
	ro, err := sortedByKey(j.right, j.spec.RightKeys)
	if err != nil {
		return err
	}
	li, ri := 0, 0
	for li < len(lo) && ri < len(ro) {
		c, err := compareKeys(j.left[lo[li]].Values, j.spec.LeftKeys, j.right[ro[ri]].Values, j.spec.RightKeys)
		if err != nil {
			return err
		}
		switch {
		case c < 0:
			li++
		case c > 0:
			ri++
		default:
			le, re := li+1, ri+1
			for le < len(lo) {
				if c, err := compareKeys(j.left[lo[le]].Values, j.spec.LeftKeys, j.left[lo[li]].Values, j.spec.LeftKeys); err != nil {
					return err
				} else if c != 0 {
					break
				}
				le++
			}
			for re < len(ro) {
				if c, err := compareKeys(j.right[ro[re]].Values, j.spec.RightKeys, j.right[ro[ri]].Values, j.spec.RightKeys); err != nil {
					return err
				} else if c != 0 {
					break
				}
				re++
			}
			for _, a := range lo[li:le] {
				for _, b := range ro[ri:re] {
					if err := m.try(a, b, j.left[a].Values, j.right[b].Values); err != nil {
						return err
					}
				}
			}
			li, ri = le, re
		}
	}
	return nil
}

// sortedByKey is the positions of rows without a NULL key, sorted by key.
func sortedByKey(rows []sql.Row, keys []int) ([]int, error) {
	var pos []int
	for i, r := range rows {
		null := false
		for _, k := range keys {
			null = null || r.Values[k] == nil
		}
		if !null {
			pos = append(pos, i)
		}
	}
	var err error
	sort.SliceStable(pos, func(a, b int) bool {
		c, e := compareKeys(rows[pos[a]].Values, keys, rows[pos[b]].Values, keys)
		if e != nil {
			err = e
		}
		return c < 0
	})
	return pos, err
}

func compareKeys(a []any, ak []int, b []any, bk []int) (int, error) {
	for i := range ak {
		c, err := Compare(a[ak[i]], b[bk[i]])
		if err != nil {
			return 0, err
		}
		if c != 0 {
			return c, nil
		}
	}
	return 0, nil
}

// nestedLoopJoin tries every pair; the build side is the inner loop.
func (j *batchJoin) nestedLoopJoin(m *matcher) error {
	if j.spec.LeftIsBuild {
		for ri, r := range j.right {
			for li, l := range j.left {
				if err := m.try(li, ri, l.Values, r.Values); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for li, l := range j.left {
		for ri, r := range j.right {
			if err := m.try(li, ri, l.Values, r.Values); err != nil {
				return err
			}
		}
	}
	return nil
}
