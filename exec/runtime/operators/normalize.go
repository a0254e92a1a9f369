package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// NormalizeSpec configures ChangelogNormalize.
type NormalizeSpec struct {
	// Keys are the primary-key column indexes.
	Keys []int
	// GenerateUpdateBefore is true when the consumer needs -U (the update
	// kind trait BEFORE_AND_AFTER); otherwise only +U is emitted.
	GenerateUpdateBefore bool
	// EmitDuplicates emits +U even when the new row equals the stored one.
	// Flink drops such duplicates unless table.exec.state.ttl is set, so
	// the planner sets this iff the TTL is non-zero.
	EmitDuplicates bool
}

// ChangelogNormalize turns an upsert stream (+I/+U/-D keyed by primary
// key, possibly with duplicates) into a normalized changelog, with one
// last-row state per key, as Flink's
// ProcTimeDeduplicateKeepLastRowFunction with processLastRowOnChangelog:
//
//   - +I/+U with no state → +I; equal to the stored row → nothing; else
//     [-U stored, only if GenerateUpdateBefore] then +U new.
//   - -U/-D with state → -D carrying the stored row, state cleared;
//     without state → dropped.
func ChangelogNormalize(spec NormalizeSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &normalize{spec: spec, rows: state.NewMemTable(state.RowCodec)}, nil
	}
}

type normalize struct {
	runtime.Base
	spec NormalizeSpec
	rows state.Table[sql.Row]
	enc  state.Encoder
}

func (n *normalize) Open(ctx *runtime.Context, restored []byte) error {
	if err := n.open(ctx); err != nil {
		return err
	}
	if restored != nil {
		return n.rows.Restore(restored)
	}
	return nil
}

// OpenRescaled restores at a new parallelism: the keys this subtask owns
// from every old subtask's state.
func (n *normalize) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := n.open(ctx); err != nil {
		return err
	}
	return n.rows.RestoreFiltered(blobs, owns)
}

func (n *normalize) Snapshot(int64) ([]byte, error) { return n.rows.Snapshot() }

func (n *normalize) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		n.enc.Buf = n.enc.Buf[:0]
		if err := state.AppendKey(&n.enc, r, n.spec.Keys); err != nil {
			return fmt.Errorf("ChangelogNormalize key: %w", err)
		}
		key := string(n.enc.Buf)
		prev, ok, err := n.rows.Get(key)
		if err != nil {
			return err
		}
		if r.Kind.IsAdd() {
			if !ok {
				out.Emit(sql.Row{Kind: sql.Insert, Values: r.Values})
			} else {
				if !n.spec.EmitDuplicates && ValuesEqual(prev.Values, r.Values) {
					continue
				}
				if n.spec.GenerateUpdateBefore {
					out.Emit(sql.Row{Kind: sql.UpdateBefore, Values: prev.Values})
				}
				out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: r.Values})
			}
			// State keeps its own copy of the strings (box.Compact), not
			// the reader's page they may point into.
			if err := n.rows.Put(key, sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}); err != nil {
				return err
			}
			continue
		}
		if ok {
			out.Emit(sql.Row{Kind: sql.Delete, Values: prev.Values})
			if err := n.rows.Delete(key); err != nil {
				return err
			}
		}
	}
	return nil
}

// open makes the state table on the job's state backend.
func (n *normalize) open(ctx *runtime.Context) (err error) {
	n.rows, err = newTable(ctx, "rows", state.RowCodec)
	return err
}
