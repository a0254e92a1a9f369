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
	// Rowtime orders by the event-time attribute in field TimeField
	// (RowTimeDeduplicateFunction): the row with the smallest (keep first)
	// or the largest, latest on ties (keep last), rowtime wins, whatever
	// the order rows arrive in; a row that replaces the kept one is
	// emitted as an update of it. Otherwise rows are ordered by arrival
	// (processing time).
	Rowtime   bool
	TimeField int
}

// Deduplicate keeps the first or last row per key of an insert-only input,
// as Flink's ProcTimeDeduplicateKeepFirstRowFunction,
// ProcTimeDeduplicateKeepLastRowFunction and RowTimeDeduplicateFunction
// (without mini-batch: a row is decided when it arrives, no watermark
// waited for).
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
		if d.spec.Rowtime {
			replace, err := d.rowtimeReplaces(prev, ok, r)
			if err != nil {
				return err
			}
			if !replace {
				continue
			}
			d.emitReplace(prev, ok, r, out)
			if err := d.rows.Put(key, sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}); err != nil {
				return err
			}
			continue
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
		d.emitReplace(prev, ok, r, out)
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

// emitReplace emits r replacing prev (none when !ok), as Flink's
// DeduplicateFunctionHelper.updateDeduplicateResult.
func (d *dedup) emitReplace(prev sql.Row, ok bool, r sql.Row, out *runtime.Collector) {
	switch {
	case !ok && d.spec.GenerateInsert:
		out.Emit(sql.Row{Kind: sql.Insert, Values: r.Values})
	case !ok:
		out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: r.Values})
	default:
		if d.spec.GenerateUpdateBefore {
			out.Emit(sql.Row{Kind: sql.UpdateBefore, Values: prev.Values})
		}
		out.Emit(sql.Row{Kind: sql.UpdateAfter, Values: r.Values})
	}
}

// rowtimeReplaces is DeduplicateFunctionHelper.isDuplicate: whether r
// replaces the kept row prev.
func (d *dedup) rowtimeReplaces(prev sql.Row, ok bool, r sql.Row) (bool, error) {
	cur := r.Values[d.spec.TimeField]
	if cur == nil {
		return false, fmt.Errorf("Deduplicate: the rowtime attribute (field %d) of a row is NULL", d.spec.TimeField)
	}
	if !ok {
		return true, nil
	}
	c, err := Compare(prev.Values[d.spec.TimeField], cur)
	if err != nil {
		return false, fmt.Errorf("Deduplicate: %w", err)
	}
	if d.spec.KeepLast {
		return c <= 0, nil
	}
	return c > 0, nil
}
