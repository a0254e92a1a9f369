package operators

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/exec/runtime/state"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// TemporalJoinSpec configures TemporalJoin: left rows join the version of
// the right (versioned) side's row of their key valid at their time.
type TemporalJoinSpec struct {
	// Left.Keys and Right.Keys are the equi-join keys, Left.Outer makes it
	// a LEFT join; Arity is each side's width.
	Left, Right JoinSideSpec
	// LeftTime and RightTime are the rowtime fields.
	LeftTime, RightTime int
	// Cond is the non-equi condition over the joined row (nil: true).
	Cond func([]any) (any, error)
	// Retention is table.exec.state.ttl (0: state kept for good): a key
	// no row arrived for during between Retention and 1.5 × Retention of
	// processing time loses its state (Flink's
	// BaseTwoInputStreamOperatorWithStateRetention with
	// TableConfigUtils.getMaxIdleStateRetentionTime).
	Retention time.Duration
}

// TemporalJoin is Flink's event-time temporal join
// (TemporalRowTimeJoinOperator, flink-table-runtime
// .../join/temporal). Per join key, left rows are buffered in arrival
// order and right rows kept as versions by their rowtime (a later row of
// the same rowtime replaces the version, whatever its kind). Each key has
// at most one timer, at the smallest time of the rows that registered
// one and have not fired it yet. When the watermark passes a key's timer,
// every buffered left row whose time the watermark reached is emitted in
// arrival order, joined with the latest version at or before its time
// when that version is an insert or update-after and Cond holds, padded
// with NULLs otherwise on a LEFT join (dropped on an INNER one), with the
// left row's kind; the versions older than the newest one at or before
// the watermark are dropped, and the timer moves to the smallest time of
// the left rows still waiting. Rows keep their NULL join keys: a NULL key
// joins a NULL key, as in Flink, whose temporal join evaluates only the
// non-equi condition. The state and the operator's watermark are
// checkpointed on either backend. With table.exec.state.ttl (Retention),
// each key has a processing-time cleanup time as in Flink: a row of the
// key moves it to now + 1.5 × TTL unless it is already later than now +
// TTL; an event-time firing that leaves left rows or a version moves it
// the same way, one that leaves nothing clears it; when processing time
// passes it, all of the key's state (left rows, versions, event-time
// timer) is dropped, so a later left row finds no version.
func TemporalJoin(spec TemporalJoinSpec) runtime.OperatorFactory {
	return func(int, int) (runtime.Operator, error) {
		return &temporalJoin{spec: spec}, nil
	}
}

type temporalJoin struct {
	runtime.Base
	spec TemporalJoinSpec
	keys state.Table[*tjKey]
	// timers indexes the keys by their timer, rebuilt on restore.
	timers map[int64]map[string]struct{}
	times  []int64
	// cleanups indexes the keys by their cleanup time, rebuilt on
	// restore.
	cleanups map[int64]map[string]struct{}
	now      func() time.Time
	wm       int64
	enc      state.Encoder
}

type tjLeft struct {
	seq int64
	row sql.Row
}

type tjVersion struct {
	ts  int64
	row sql.Row
}

// tjKey is one join key's state: Flink's nextLeftIndex, leftState,
// rightState and registeredTimer.
type tjKey struct {
	next     int64
	left     []tjLeft
	right    []tjVersion // sorted by ts, one per ts
	timer    int64
	hasTimer bool
	// cleanup is the processing-time cleanup time in ms (0: none).
	cleanup int64
}

var tjKeyCodec = state.Codec[*tjKey]{
	Encode: func(e *state.Encoder, k *tjKey) error {
		e.Varint(k.next)
		// Bit 0: an event-time timer follows; bit 1: a cleanup time
		// (snapshots written before retention have neither bit 1).
		var flags uint64
		if k.hasTimer {
			flags |= 1
		}
		if k.cleanup != 0 {
			flags |= 2
		}
		e.Uvarint(flags)
		if k.hasTimer {
			e.Varint(k.timer)
		}
		if k.cleanup != 0 {
			e.Varint(k.cleanup)
		}
		e.Uvarint(uint64(len(k.left)))
		for _, l := range k.left {
			e.Varint(l.seq)
			if err := e.Row(l.row); err != nil {
				return err
			}
		}
		e.Uvarint(uint64(len(k.right)))
		for _, v := range k.right {
			e.Varint(v.ts)
			if err := e.Row(v.row); err != nil {
				return err
			}
		}
		return nil
	},
	Decode: func(d *state.Decoder) (*tjKey, error) {
		k := &tjKey{}
		var err error
		if k.next, err = d.Varint(); err != nil {
			return nil, err
		}
		has, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if has > 3 {
			return nil, state.ErrCorrupt
		}
		if has&1 != 0 {
			k.hasTimer = true
			if k.timer, err = d.Varint(); err != nil {
				return nil, err
			}
		}
		if has&2 != 0 {
			if k.cleanup, err = d.Varint(); err != nil {
				return nil, err
			}
		}
		n, err := d.Uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		k.left = make([]tjLeft, n)
		for i := range k.left {
			if k.left[i].seq, err = d.Varint(); err != nil {
				return nil, err
			}
			if k.left[i].row, err = d.Row(); err != nil {
				return nil, err
			}
		}
		if n, err = d.Uvarint(); err != nil {
			return nil, err
		}
		if n > uint64(len(d.Buf)) {
			return nil, state.ErrCorrupt
		}
		k.right = make([]tjVersion, n)
		for i := range k.right {
			if k.right[i].ts, err = d.Varint(); err != nil {
				return nil, err
			}
			if k.right[i].row, err = d.Row(); err != nil {
				return nil, err
			}
		}
		return k, nil
	},
}

func (j *temporalJoin) Open(ctx *runtime.Context, restored []byte) error {
	j.wm = runtime.MinWatermark
	j.timers = map[int64]map[string]struct{}{}
	j.times = nil
	j.cleanups = map[int64]map[string]struct{}{}
	j.now = ctx.Clock()
	var b *state.Backend
	if ctx != nil && ctx.State != nil {
		b = &state.Backend{Store: ctx.State.Store}
	}
	var err error
	if j.keys, err = state.NewTable(b, "temporal-join", tjKeyCodec); err != nil {
		return err
	}
	if restored == nil {
		return nil
	}
	wm := state.NewMemTable(overWatermarkCodec)
	if err := state.RestoreAll(restored, j.keys, wm); err != nil {
		return fmt.Errorf("TemporalJoin: restore: %w", err)
	}
	if v, ok, err := wm.Get(""); err != nil {
		return err
	} else if ok {
		j.wm = v
	}
	return j.keys.Range(func(k string, s *tjKey) error {
		if s.hasTimer {
			j.track(s.timer, k)
		}
		if s.cleanup != 0 {
			addKey(j.cleanups, s.cleanup, k)
		}
		return nil
	})
}

func addKey(m map[int64]map[string]struct{}, at int64, k string) {
	keys := m[at]
	if keys == nil {
		keys = map[string]struct{}{}
		m[at] = keys
	}
	keys[k] = struct{}{}
}

func removeKey(m map[int64]map[string]struct{}, at int64, k string) {
	delete(m[at], k)
	if len(m[at]) == 0 {
		delete(m, at)
	}
}

// registerCleanup is Flink's registerProcessingCleanupTimer: the key's
// cleanup time moves to now + 1.5 × retention unless it is already later
// than now + retention.
func (j *temporalJoin) registerCleanup(s *tjKey, k string) {
	minR := j.spec.Retention.Milliseconds()
	if minR <= 1 { // stateCleaningEnabled is minRetentionTime > 1
		return
	}
	now := j.now().UnixMilli()
	if s.cleanup != 0 && now+minR <= s.cleanup {
		return
	}
	if s.cleanup != 0 {
		removeKey(j.cleanups, s.cleanup, k)
	}
	s.cleanup = now + minR*3/2
	addKey(j.cleanups, s.cleanup, k)
}

// TimerInterval is how often OnProcessingTime looks for keys to clean up:
// a tenth of the retention, at most a second (0 without retention).
func (j *temporalJoin) TimerInterval() time.Duration {
	if j.spec.Retention.Milliseconds() <= 1 {
		return 0
	}
	return min(j.spec.Retention/10, time.Second)
}

// OnProcessingTime is Flink's onProcessingTime / cleanupState: every key
// whose cleanup time has passed loses all its state.
func (j *temporalJoin) OnProcessingTime(now time.Time, _ *runtime.Collector) error {
	ms := now.UnixMilli()
	var due []int64
	for at := range j.cleanups {
		if at <= ms {
			due = append(due, at)
		}
	}
	sort.Slice(due, func(a, b int) bool { return due[a] < due[b] })
	for _, at := range due {
		keys := make([]string, 0, len(j.cleanups[at]))
		for k := range j.cleanups[at] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		delete(j.cleanups, at)
		for _, k := range keys {
			s, ok, err := j.keys.Get(k)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if s.hasTimer {
				j.untrack(s.timer, k)
			}
			if err := j.keys.Delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}

func (j *temporalJoin) Snapshot(int64) ([]byte, error) {
	wm := state.NewMemTable(overWatermarkCodec)
	if err := wm.Put("", j.wm); err != nil {
		return nil, err
	}
	return state.SnapshotAll(j.keys, wm)
}

func (j *temporalJoin) track(at int64, k string) {
	keys := j.timers[at]
	if keys == nil {
		keys = map[string]struct{}{}
		j.timers[at] = keys
		i := sort.Search(len(j.times), func(i int) bool { return j.times[i] >= at })
		j.times = append(j.times, 0)
		copy(j.times[i+1:], j.times[i:])
		j.times[i] = at
	}
	keys[k] = struct{}{}
}

func (j *temporalJoin) untrack(at int64, k string) {
	keys := j.timers[at]
	delete(keys, k)
	if len(keys) == 0 {
		delete(j.timers, at)
		i := sort.Search(len(j.times), func(i int) bool { return j.times[i] >= at })
		if i < len(j.times) && j.times[i] == at {
			j.times = append(j.times[:i], j.times[i+1:]...)
		}
	}
}

// registerSmallest is Flink's registerSmallestTimer.
func (j *temporalJoin) registerSmallest(s *tjKey, k string, ts int64) {
	if s.hasTimer {
		if s.timer <= ts {
			return
		}
		j.untrack(s.timer, k)
	}
	s.timer, s.hasTimer = ts, true
	j.track(ts, k)
}

func rowtimeOf(r sql.Row, col int, side string) (int64, error) {
	switch v := r.Values[col].(type) {
	case sql.TimestampData:
		return v.Millis, nil
	case nil:
		return 0, fmt.Errorf("TemporalJoin: the %s rowtime attribute is NULL", side)
	}
	return 0, fmt.Errorf("TemporalJoin: the %s rowtime attribute is %T, not a TIMESTAMP", side, r.Values[col])
}

func (j *temporalJoin) ProcessBatch(input int, rows []sql.Row, _ *runtime.Collector) error {
	right := input == 1
	side, col, name := j.spec.Left, j.spec.LeftTime, "left"
	if right {
		side, col, name = j.spec.Right, j.spec.RightTime, "right"
	}
	for _, r := range rows {
		ts, err := rowtimeOf(r, col, name)
		if err != nil {
			return err
		}
		j.enc.Buf = j.enc.Buf[:0]
		if err := state.AppendKey(&j.enc, r, side.Keys); err != nil {
			return fmt.Errorf("TemporalJoin key: %w", err)
		}
		k := string(j.enc.Buf)
		s, ok, err := j.keys.Get(k)
		if err != nil {
			return err
		}
		if !ok {
			s = &tjKey{}
		}
		row := sql.Row{Kind: r.Kind, Values: box.Compact(r.Values)}
		if right {
			i := sort.Search(len(s.right), func(i int) bool { return s.right[i].ts >= ts })
			if i < len(s.right) && s.right[i].ts == ts {
				s.right[i].row = row
			} else {
				s.right = append(s.right, tjVersion{})
				copy(s.right[i+1:], s.right[i:])
				s.right[i] = tjVersion{ts: ts, row: row}
			}
		} else {
			s.left = append(s.left, tjLeft{seq: s.next, row: row})
			s.next++
		}
		j.registerSmallest(s, k, ts)
		j.registerCleanup(s, k)
		if err := j.keys.Put(k, s); err != nil {
			return err
		}
	}
	return nil
}

// ProcessWatermark fires the timers the watermark reached, in time order
// (keys of one time in key order).
func (j *temporalJoin) ProcessWatermark(wm int64, out *runtime.Collector) error {
	if wm <= j.wm {
		return nil
	}
	j.wm = wm
	for len(j.times) > 0 && j.times[0] <= wm {
		at := j.times[0]
		keys := make([]string, 0, len(j.timers[at]))
		for k := range j.timers[at] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		delete(j.timers, at)
		j.times = j.times[1:]
		for _, k := range keys {
			if err := j.fire(k, wm, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// fire is Flink's onEventTime: emitResultAndCleanUpState, then a timer at
// the smallest time of the left rows still waiting.
func (j *temporalJoin) fire(k string, wm int64, out *runtime.Collector) error {
	s, ok, err := j.keys.Get(k)
	if err != nil || !ok {
		return err
	}
	s.hasTimer = false
	last := int64(math.MaxInt64)
	var keep []tjLeft
	for _, l := range s.left { // arrival order
		lt, err := rowtimeOf(l.row, j.spec.LeftTime, "left")
		if err != nil {
			return err
		}
		if lt > wm {
			keep = append(keep, l)
			last = min(last, lt)
			continue
		}
		if err := j.emit(l.row, s.versionAt(lt), out); err != nil {
			return err
		}
	}
	s.left = keep
	// Drop the versions older than the newest one at or before the
	// watermark (cleanupExpiredVersionInState).
	i := sort.Search(len(s.right), func(i int) bool { return s.right[i].ts > wm })
	drop := i - 1
	if i == len(s.right) {
		drop = len(s.right) - 1
	}
	if drop > 0 {
		s.right = append([]tjVersion(nil), s.right[drop:]...)
	}
	if last < math.MaxInt64 {
		s.timer, s.hasTimer = last, true
		j.track(last, k)
	}
	// With retention, state left behind keeps (or moves) its cleanup
	// time; a key left empty has none.
	if len(s.left) > 0 || len(s.right) > 0 {
		j.registerCleanup(s, k)
	} else if s.cleanup != 0 {
		removeKey(j.cleanups, s.cleanup, k)
		s.cleanup = 0
	}
	if len(s.left) == 0 && len(s.right) == 0 && !s.hasTimer {
		return j.keys.Delete(k)
	}
	return j.keys.Put(k, s)
}

// versionAt is the latest version at or before ts (nil: none).
func (s *tjKey) versionAt(ts int64) *sql.Row {
	i := sort.Search(len(s.right), func(i int) bool { return s.right[i].ts > ts })
	if i == 0 {
		return nil
	}
	return &s.right[i-1].row
}

func (j *temporalJoin) emit(l sql.Row, r *sql.Row, out *runtime.Collector) error {
	if r != nil && (r.Kind == sql.Insert || r.Kind == sql.UpdateAfter) {
		vs := make([]any, 0, j.spec.Left.Arity+j.spec.Right.Arity)
		vs = append(append(vs, l.Values...), r.Values...)
		match := true
		if j.spec.Cond != nil {
			c, err := j.spec.Cond(vs)
			if err != nil {
				return err
			}
			match = c == true
		}
		if match {
			out.Emit(sql.Row{Kind: l.Kind, Values: vs})
			return nil
		}
	}
	if j.spec.Left.Outer {
		vs := make([]any, 0, j.spec.Left.Arity+j.spec.Right.Arity)
		vs = append(append(vs, l.Values...), make([]any, j.spec.Right.Arity)...)
		out.Emit(sql.Row{Kind: l.Kind, Values: vs})
	}
	return nil
}
