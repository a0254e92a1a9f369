package operators

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/sql"
)

// Limit passes rows after the first Offset until Fetch rows went out
// (Fetch < 0: no limit). It is for insert-only input (batch results, or a
// streaming SELECT ... LIMIT over an append stream). Run it with
// parallelism 1 behind a Global edge. Its position is checkpointed.
func Limit(offset, fetch int64) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) { return &limit{offset: offset, fetch: fetch}, nil }
}

type limit struct {
	runtime.Base
	offset, fetch int64
	seen          int64
}

func (l *limit) Open(_ *runtime.Context, restored []byte) error {
	if len(restored) > 0 {
		v, n := binary.Varint(restored)
		if n <= 0 {
			return fmt.Errorf("Limit: %w", state.ErrCorrupt)
		}
		l.seen = v
	}
	return nil
}

func (l *limit) Snapshot(int64) ([]byte, error) { return binary.AppendVarint(nil, l.seen), nil }

func (l *limit) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		l.seen++
		if l.seen <= l.offset {
			continue
		}
		if l.fetch >= 0 && l.seen > l.offset+l.fetch {
			return nil
		}
		out.Emit(r)
	}
	return nil
}

// SortKey is one ORDER BY item.
type SortKey struct {
	Index int
	Desc  bool
	// NullsFirst places NULLs first. Flink's default is NULLS FIRST for
	// ASC and NULLS LAST for DESC; the planner sets it explicitly.
	NullsFirst bool
}

// Sort buffers a bounded input and emits it ordered at end of input,
// skipping Offset rows and emitting at most Fetch (< 0: all). The sort is
// stable. Run it with parallelism 1 behind a Global edge.
func Sort(keys []SortKey, offset, fetch int64) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &sorter{keys: keys, offset: offset, fetch: fetch}, nil
	}
}

type sorter struct {
	runtime.Base
	keys          []SortKey
	offset, fetch int64
	rows          []sql.Row
}

func (s *sorter) Open(_ *runtime.Context, restored []byte) error {
	if restored != nil {
		d := state.Decoder{Buf: restored}
		rs, err := state.RowsCodec.Decode(&d)
		if err != nil {
			return fmt.Errorf("Sort: %w", err)
		}
		s.rows = rs
	}
	return nil
}

func (s *sorter) Snapshot(int64) ([]byte, error) {
	var e state.Encoder
	err := state.RowsCodec.Encode(&e, s.rows)
	return e.Buf, err
}

func (s *sorter) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if !r.Kind.IsAdd() {
			return fmt.Errorf("Sort supports only insert-only input, got %s", r.Kind)
		}
	}
	s.rows = append(s.rows, rows...)
	return nil
}

func (s *sorter) Finish(out *runtime.Collector) error {
	var cmpErr error
	sort.SliceStable(s.rows, func(i, j int) bool {
		a, b := s.rows[i].Values, s.rows[j].Values
		for _, k := range s.keys {
			x, y := a[k.Index], b[k.Index]
			if x == nil || y == nil {
				if x == nil && y == nil {
					continue
				}
				return (x == nil) == k.NullsFirst
			}
			c, err := Compare(x, y)
			if err != nil {
				cmpErr = err
				return false
			}
			if c == 0 {
				continue
			}
			if k.Desc {
				return c > 0
			}
			return c < 0
		}
		return false
	})
	if cmpErr != nil {
		return fmt.Errorf("Sort: %w", cmpErr)
	}
	rows := s.rows
	if s.offset > 0 {
		rows = rows[min(int64(len(rows)), s.offset):]
	}
	if s.fetch >= 0 && int64(len(rows)) > s.fetch {
		rows = rows[:s.fetch]
	}
	out.EmitAll(rows)
	s.rows = nil
	return nil
}
