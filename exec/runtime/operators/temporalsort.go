package operators

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// TemporalSortSpec configures TemporalSort: a streaming ORDER BY whose
// first key is a time attribute, ascending.
type TemporalSortSpec struct {
	// TimeCol is the time attribute ordered by (a TIMESTAMP or
	// TIMESTAMP_LTZ value); Rowtime tells event time from processing
	// time.
	TimeCol int
	Rowtime bool
	// Keys are the ORDER BY keys after the time attribute.
	Keys []SortKey
}

// TemporalSort is Flink's StreamExecTemporalSort. Run it with parallelism
// 1 behind a Global edge; its input and output are insert-only.
//
// On event time (RowTimeSortOperator) rows wait in state under their
// timestamp; when the watermark passes a timestamp, that timestamp's rows
// go out ordered by Keys (arrival order among equal keys: Java's stable
// List.sort), timestamp after timestamp. A row is late, and dropped as
// Flink drops it, when its timestamp is not after the last timestamp
// emitted (Flink's lastTriggeringTs; a row not after the watermark but
// after that timestamp waits for the next watermark). A NULL time reads as
// 0 (1970-01-01 00:00:00), as Flink's getLong of the null field does.
// Waiting rows are keyed state on either backend; the last emitted
// timestamp and the watermark are checkpointed with them, so a restored
// job drops the same late rows.
//
// On processing time (ProcTimeSortOperator) rows wait until the next
// processing-time tick after the millisecond they arrived in, which emits
// every waiting row ordered by Keys. Without Keys rows pass as they arrive
// (Flink forwards them: StreamExecTemporalSort adds no operator). At the
// end of the input the waiting rows go out (Flink's quiesced timer service
// would drop those that arrived in the input's last millisecond).
func TemporalSort(spec TemporalSortSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		if spec.Rowtime {
			return &rowtimeSort{spec: spec}, nil
		}
		return &proctimeSort{spec: spec}, nil
	}
}

type rowtimeSort struct {
	runtime.Base
	spec TemporalSortSpec
	// rows holds the waiting rows, each under its timestamp and arrival
	// number (temporalSortKey), so that keys sort by time then arrival.
	rows state.Table[sql.Row]
	// times are the timestamps with rows waiting, ascending, and seqs the
	// arrival numbers of each (Flink's event-time timers), rebuilt from
	// the state on restore.
	times []int64
	seqs  map[int64][]uint64
	next  uint64 // the next arrival number
	last  int64  // the last timestamp emitted (MinWatermark: none)
	wm    int64
}

// temporalSortKey is the state key of a waiting row: its timestamp
// (big-endian, sign bit flipped, so keys sort by time) and arrival number.
func temporalSortKey(ts int64, seq uint64) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(ts)^(1<<63))
	binary.BigEndian.PutUint64(b[8:], seq)
	return string(b[:])
}

func (s *rowtimeSort) Open(ctx *runtime.Context, restored []byte) error {
	s.wm, s.last = runtime.MinWatermark, runtime.MinWatermark
	s.seqs = map[int64][]uint64{}
	// Cleaned by the watermark, never by table.exec.state.ttl (Flink's
	// RowTimeSortOperator sets no TTL on its state).
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if s.rows, err = state.NewTable(b, "temporal-sort", state.RowCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	meta := state.NewMemTable(overWatermarkCodec)
	if err := state.RestoreAll(restored, s.rows, meta); err != nil {
		return fmt.Errorf("TemporalSort: restore: %w", err)
	}
	for k, dst := range map[string]*int64{"wm": &s.wm, "last": &s.last} {
		v, ok, err := meta.Get(k)
		if err != nil {
			return err
		}
		if ok {
			*dst = v
		}
	}
	return s.rows.Range(func(k string, _ sql.Row) error {
		if len(k) != 16 {
			return fmt.Errorf("TemporalSort: restore: %w: key of %d bytes", state.ErrCorrupt, len(k))
		}
		ts := int64(binary.BigEndian.Uint64([]byte(k[:8])) ^ (1 << 63))
		seq := binary.BigEndian.Uint64([]byte(k[8:]))
		s.track(ts, seq)
		if seq >= s.next {
			s.next = seq + 1
		}
		return nil
	})
}

func (s *rowtimeSort) Snapshot(int64) ([]byte, error) {
	meta := state.NewMemTable(overWatermarkCodec)
	if err := meta.Put("wm", s.wm); err != nil {
		return nil, err
	}
	if err := meta.Put("last", s.last); err != nil {
		return nil, err
	}
	return state.SnapshotAll(s.rows, meta)
}

// track registers a waiting row (Range and arrival give keys in order, so
// each timestamp's arrival numbers stay ascending).
func (s *rowtimeSort) track(ts int64, seq uint64) {
	if _, ok := s.seqs[ts]; !ok {
		i := sort.Search(len(s.times), func(i int) bool { return s.times[i] >= ts })
		s.times = append(s.times, 0)
		copy(s.times[i+1:], s.times[i:])
		s.times[i] = ts
	}
	s.seqs[ts] = append(s.seqs[ts], seq)
}

func (s *rowtimeSort) time(r sql.Row) (int64, error) {
	switch v := r.Values[s.spec.TimeCol].(type) {
	case sql.TimestampData:
		return v.Millis, nil
	case nil:
		return 0, nil
	default:
		return 0, fmt.Errorf("TemporalSort: the time attribute is %T, not a TIMESTAMP", v)
	}
}

func (s *rowtimeSort) ProcessBatch(_ int, rows []sql.Row, _ *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("TemporalSort expects insert-only input, got %s", r.Kind)
		}
		ts, err := s.time(r)
		if err != nil {
			return err
		}
		if ts <= s.last {
			continue // late
		}
		seq := s.next
		s.next++
		if err := s.rows.Put(temporalSortKey(ts, seq), sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)}); err != nil {
			return err
		}
		s.track(ts, seq)
	}
	return nil
}

// ProcessWatermark emits the rows of every timestamp the watermark
// reached, timestamp by timestamp.
func (s *rowtimeSort) ProcessWatermark(wm int64, out *runtime.Collector) error {
	if wm <= s.wm {
		return nil
	}
	s.wm = wm
	for len(s.times) > 0 && s.times[0] <= wm {
		ts := s.times[0]
		s.times = s.times[1:]
		seqs := s.seqs[ts]
		delete(s.seqs, ts)
		rows := make([]sql.Row, 0, len(seqs))
		for _, seq := range seqs {
			k := temporalSortKey(ts, seq)
			r, ok, err := s.rows.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("TemporalSort: %w: a waiting row is missing from the state", state.ErrCorrupt)
			}
			if err := s.rows.Delete(k); err != nil {
				return err
			}
			rows = append(rows, r)
		}
		if err := sortRows(rows, s.spec.Keys); err != nil {
			return err
		}
		out.EmitAll(rows)
		s.last = ts
	}
	return nil
}

// sortRows orders rows by keys, stably.
func sortRows(rows []sql.Row, keys []SortKey) error {
	if len(keys) == 0 {
		return nil
	}
	var cmpErr error
	sort.SliceStable(rows, func(i, j int) bool {
		c, err := compareBy(keys, rows[i], rows[j])
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return c < 0
	})
	if cmpErr != nil {
		return fmt.Errorf("TemporalSort: %w", cmpErr)
	}
	return nil
}

// proctimeSort is TemporalSort on processing time.
type proctimeSort struct {
	runtime.Base
	spec TemporalSortSpec
	now  func() time.Time
	// rows wait for the tick after first, the millisecond the oldest of
	// them arrived in.
	rows  []sql.Row
	first int64
}

func (s *proctimeSort) Open(ctx *runtime.Context, restored []byte) error {
	s.now = ctx.Clock()
	if len(restored) == 0 {
		return nil
	}
	// The rows and the millisecond the oldest arrived in: Flink
	// checkpoints the timer registered at arrival + 1 with the rows.
	d := state.Decoder{Buf: restored}
	first, err := d.Varint()
	if err != nil {
		return fmt.Errorf("TemporalSort: restore: %w", err)
	}
	rows, err := state.RowsCodec.Decode(&d)
	if err != nil {
		return fmt.Errorf("TemporalSort: restore: %w", err)
	}
	if !d.Done() {
		return fmt.Errorf("TemporalSort: restore: %w", state.ErrCorrupt)
	}
	s.rows, s.first = rows, first
	return nil
}

func (s *proctimeSort) Snapshot(int64) ([]byte, error) {
	if len(s.spec.Keys) == 0 {
		return nil, nil
	}
	var e state.Encoder
	e.Varint(s.first)
	err := state.RowsCodec.Encode(&e, s.rows)
	return e.Buf, err
}

func (s *proctimeSort) ProcessBatch(_ int, rows []sql.Row, out *runtime.Collector) error {
	for _, r := range rows {
		if r.Kind != sql.Insert {
			return fmt.Errorf("TemporalSort expects insert-only input, got %s", r.Kind)
		}
	}
	if len(s.spec.Keys) == 0 {
		out.EmitAll(rows)
		return nil
	}
	if len(s.rows) == 0 {
		s.first = s.now().UnixMilli()
	}
	for _, r := range rows {
		s.rows = append(s.rows, sql.Row{Kind: sql.Insert, Values: box.Compact(r.Values)})
	}
	return nil
}

// ProcessWatermark does nothing: processing time ignores event time (the
// runtime forwards the watermark).
func (s *proctimeSort) ProcessWatermark(int64, *runtime.Collector) error { return nil }

// TimerInterval is how often the runtime calls OnProcessingTime.
func (s *proctimeSort) TimerInterval() time.Duration {
	if len(s.spec.Keys) == 0 {
		return 0
	}
	return procTimerInterval
}

// OnProcessingTime emits the waiting rows once the clock is past the
// millisecond the oldest arrived in (Flink's timer at arrival + 1).
func (s *proctimeSort) OnProcessingTime(_ time.Time, out *runtime.Collector) error {
	if len(s.rows) == 0 || s.now().UnixMilli() <= s.first {
		return nil
	}
	return s.flush(out)
}

func (s *proctimeSort) flush(out *runtime.Collector) error {
	rows := s.rows
	s.rows = nil
	if err := sortRows(rows, s.spec.Keys); err != nil {
		return err
	}
	out.EmitAll(rows)
	return nil
}

// Finish emits the rows still waiting at the end of the input.
func (s *proctimeSort) Finish(out *runtime.Collector) error {
	if len(s.rows) == 0 {
		return nil
	}
	return s.flush(out)
}
