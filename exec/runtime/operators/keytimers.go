package operators

import "sort"

// keyTimers indexes state keys by a time, as Flink's per-key timers do:
// the keys registered at each time, and the times in order. The interval
// join registers its kept rows' expiry times, the OVER aggregate the
// times of its waiting rows; each rebuilds it from its state on restore.
type keyTimers struct {
	keys  map[int64]map[string]struct{}
	times []int64 // the times of keys, ascending
}

func newKeyTimers() keyTimers { return keyTimers{keys: map[int64]map[string]struct{}{}} }

// add registers key k at time t.
func (kt *keyTimers) add(t int64, k string) {
	keys := kt.keys[t]
	if keys == nil {
		keys = map[string]struct{}{}
		kt.keys[t] = keys
		i := sort.Search(len(kt.times), func(i int) bool { return kt.times[i] >= t })
		kt.times = append(kt.times, 0)
		copy(kt.times[i+1:], kt.times[i:])
		kt.times[i] = t
	}
	keys[k] = struct{}{}
}

// pop removes the earliest time not after upTo and returns it with its
// keys in key order; ok is false when there is none.
func (kt *keyTimers) pop(upTo int64) (t int64, keys []string, ok bool) {
	if len(kt.times) == 0 || kt.times[0] > upTo {
		return 0, nil, false
	}
	t = kt.times[0]
	keys = make([]string, 0, len(kt.keys[t]))
	for k := range kt.keys[t] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	delete(kt.keys, t)
	kt.times = kt.times[1:]
	return t, keys, true
}
