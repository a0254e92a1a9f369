package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// MaterializerSpec configures SinkUpsertMaterializer.
type MaterializerSpec struct {
	// Keys are the sink's primary-key column indexes (the state key).
	Keys []int
	// UpsertKey, when set, identifies "the same row" within a key's list
	// (Flink 1.17+); otherwise whole rows are compared.
	UpsertKey []int
}

// SinkUpsertMaterializer reconciles a retract stream whose upsert key
// differs from the sink's primary key, keeping the list of live rows per
// primary key, as Flink's SinkUpsertMaterializer:
//
//   - +I/+U adds the row (replacing the one with the same upsert key) and
//     emits it as +I if the list was empty, else as +U.
//   - -U/-D removes the first equal row; if the list is now empty it emits
//     -D, if the removed row was the last one it emits +U of the new last
//     row, otherwise nothing. A row not found is ignored.
func SinkUpsertMaterializer(spec MaterializerSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &materializer{spec: spec, lists: state.NewMemTable(state.RowsCodec)}, nil
	}
}

type materializer struct {
	runtime.Base
	spec  MaterializerSpec
	lists state.Table[[]sql.Row]
	enc   state.Encoder
}

func (m *materializer) Open(ctx *runtime.Context, restored []byte) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	if restored != nil {
		return m.lists.Restore(restored)
	}
	return nil
}

// OpenRescaled restores at a new parallelism: the keys this subtask owns
// from every old subtask's state.
func (m *materializer) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := m.open(ctx); err != nil {
		return err
	}
	return m.lists.RestoreFiltered(blobs, owns)
}

func (m *materializer) Snapshot(int64) ([]byte, error) { return m.lists.Snapshot() }

func (m *materializer) same(a, b sql.Row) bool {
	if len(m.spec.UpsertKey) == 0 {
		return ValuesEqual(a.Values, b.Values)
	}
	for _, i := range m.spec.UpsertKey {
		if !Equal(a.Values[i], b.Values[i]) {
			return false
		}
	}
	return true
}

func (m *materializer) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		m.enc.Buf = m.enc.Buf[:0]
		if err := state.AppendKey(&m.enc, r, m.spec.Keys); err != nil {
			return fmt.Errorf("SinkUpsertMaterializer key: %w", err)
		}
		key := string(m.enc.Buf)
		list, _, err := m.lists.Get(key)
		if err != nil {
			return err
		}
		if r.Kind.IsAdd() {
			kind := sql.UpdateAfter
			if len(list) == 0 {
				kind = sql.Insert
			}
			row := sql.Row{Kind: kind, Values: box.Compact(r.Values)} // state's own copy, see normalize
			replaced := false
			if len(m.spec.UpsertKey) > 0 {
				for i := range list {
					if m.same(list[i], r) {
						list[i] = row
						replaced = true
						break
					}
				}
			}
			if !replaced {
				list = append(list, row)
			}
			out.Emit(row)
			if err := m.lists.Put(key, list); err != nil {
				return err
			}
			continue
		}
		last := len(list) - 1
		idx := -1
		for i := range list {
			if m.same(list[i], r) {
				idx = i
				break
			}
		}
		if idx < 0 {
			continue // state lost (TTL in Flink); nothing to retract
		}
		list = append(list[:idx:idx], list[idx+1:]...)
		switch {
		case len(list) == 0:
			out.Emit(sql.Row{Kind: sql.Delete, Values: r.Values})
			err = m.lists.Delete(key)
		case idx == last:
			out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: list[len(list)-1].Values})
			err = m.lists.Put(key, list)
		default:
			err = m.lists.Put(key, list)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// open makes the state table on the job's state backend.
func (m *materializer) open(ctx *runtime.Context) (err error) {
	m.lists, err = newTable(ctx, "lists", state.RowsCodec)
	return err
}
