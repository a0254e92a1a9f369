package operators

import (
	"fmt"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// DeduplicateSpec configures Deduplicate, Flink's plan for
// ROW_NUMBER() OVER (PARTITION BY keys ORDER BY proctime [DESC]) = 1.
type DeduplicateSpec struct {
	Keys []int
	// KeepLast is ORDER BY ... DESC: the latest row per key wins, emitted
	// as an update of the previous one. Otherwise the first row wins and
	// later ones are dropped (insert-only output).
	KeepLast bool
	// GenerateUpdateBefore emits -U of the previous row (keep-last).
	GenerateUpdateBefore bool
	// GenerateInsert emits a key's first row as +I; otherwise keep-last
	// emits every row as +U (Flink's generateInsert, off only when the
	// consumer is an upsert sink that needs no +I).
	GenerateInsert bool
}

// Deduplicate keeps the first or last row per key of an insert-only input,
// as Flink's ProcTimeDeduplicateKeepFirstRowFunction and
// ProcTimeDeduplicateKeepLastRowFunction.
func Deduplicate(spec DeduplicateSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &dedup{spec: spec, rows: state.NewMemTable(state.RowCodec)}, nil
	}
}

type dedup struct {
	runtime.Base
	spec DeduplicateSpec
	rows state.Table[sql.Row] // keep-first stores an empty row as a marker
	enc  state.Encoder
}

func (d *dedup) Open(ctx *runtime.Context, restored []byte) error {
	if err := d.open(ctx); err != nil {
		return err
	}
	if restored != nil {
		return d.rows.Restore(restored)
	}
	return nil
}

// OpenRescaled restores at a new parallelism.
func (d *dedup) OpenRescaled(ctx *runtime.Context, blobs [][]byte, owns func(string) bool) error {
	if err := d.open(ctx); err != nil {
		return err
	}
	return d.rows.RestoreFiltered(blobs, owns)
}

func (d *dedup) Snapshot(int64) ([]byte, error) { return d.rows.Snapshot() }

func (d *dedup) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("Deduplicate expects insert-only input, got %s", r.Kind)
		}
		d.enc.Buf = d.enc.Buf[:0]
		if err := state.AppendKey(&d.enc, r, d.spec.Keys); err != nil {
			return fmt.Errorf("Deduplicate key: %w", err)
		}
		key := string(d.enc.Buf)
		prev, ok, err := d.rows.Get(key)
		if err != nil {
			return err
		}
		if !d.spec.KeepLast {
			if ok {
				continue
			}
			out.Emit(r)
			if err := d.rows.Put(key, sql.Row{}); err != nil {
				return err
			}
			continue
		}
		switch {
		case !ok && d.spec.GenerateInsert:
			out.Emit(r)
		case !ok:
			out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: r.Values})
		default:
			if d.spec.GenerateUpdateBefore {
				out.Emit(sql.Row{Kind: sql.UpdateBefore, Values: prev.Values})
			}
			out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: r.Values})
		}
		if err := d.rows.Put(key, sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}); err != nil {
			return err
		}
	}
	return nil
}

// open makes the state table on the job's state backend.
func (d *dedup) open(ctx *runtime.Context) (err error) {
	d.rows, err = newTable(ctx, "rows", state.RowCodec)
	return err
}
