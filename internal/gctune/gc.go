// Package gctune is the garbage collector policy of the sqlrun binary
// (Tune), shared with the benchmarks that measure what the binary does.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's target adapts to the live heap. GOGC=400 (see Tune)
// pays for itself when little is live: a streaming job's heap is mostly
// short-lived row batches, and a target five times a few tens of MB is
// small. Five times a large live heap is not: a Paimon write whose
// compaction reads ten files and writes one held ~220 MB live and let the
// heap reach 1 GB before collecting. So after each collection the target
// is set to the live heap plus gcHeadroom when that is below five times
// the live heap, and never below twice it (Go's default, GOGC=100): 400 up
// to 64 MiB live, then live + 256 MiB, then 100 from 256 MiB live on.

// gcHeadroom is the garbage the heap may gather between collections once
// the live heap is past gcHeadroom/4.
const gcHeadroom = 256 << 20

// gcPercent is the GOGC for a live heap of live bytes.
func gcPercent(live, headroom uint64) int {
	if live == 0 {
		return 400
	}
	return int(min(400, max(100, headroom*100/live)))
}

// adaptiveGC is the target's adaptation, started by Tune when GOGC is
// not set.
type adaptiveGC struct {
	headroom uint64
	mu       sync.Mutex
	percent  int
	sample   []metrics.Sample
}

func newAdaptiveGC(headroom uint64) *adaptiveGC {
	return &adaptiveGC{headroom: headroom, percent: 400,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

// adjust sets GOGC for the live heap the last collection found; it
// returns the value in effect.
func (a *adaptiveGC) adjust() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	metrics.Read(a.sample)
	if a.sample[0].Value.Kind() != metrics.KindUint64 {
		return a.percent
	}
	if p := gcPercent(a.sample[0].Value.Uint64(), a.headroom); p != a.percent {
		debug.SetGCPercent(p)
		a.percent = p
	}
	return a.percent
}

// start runs adjust after every collection: a cleanup of an unreachable
// object runs once a collection has found it so, and arms the next.
func (a *adaptiveGC) start() {
	debug.SetGCPercent(a.percent)
	a.arm()
}

type gcTick struct{ _ [64]byte }

func (a *adaptiveGC) arm() {
	runtime.AddCleanup(new(gcTick), func(a *adaptiveGC) {
		a.adjust()
		a.arm()
	}, a)
}

// Tune sets the garbage collector for a streaming job. A job allocates
// short-lived row batches at a high rate; with Go's default GOGC of 100
// the collector runs so often that it halves the throughput of a simple
// projection (measured in exec/runtime's datagen → Calc → blackhole
// benchmark), so the target is 400 unless GOGC is set, lowered towards
// 100 as the live heap grows past 64 MiB (adaptiveGC: the garbage between
// collections is at most 256 MiB or the live heap's size, whichever is
// larger). A soft memory limit bounds it too: GOMEMLIMIT when set, else
// 3/4 of the memory the machine (or the cgroup) has, and `SET
// 'taskmanager.memory.process.size'` replaces it when a job starts. Near
// the limit the collector runs as often as it must. The sqlrun binary
// calls it at start, and so do the benchmarks that measure what the binary
// would do (bench/scale, the Paimon table benchmarks); later calls do
// nothing.
func Tune() {
	tuneOnce.Do(tune)
}

var tuneOnce sync.Once

func tune() {
	if os.Getenv("GOGC") == "" {
		newAdaptiveGC(gcHeadroom).start()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := totalMemory(); total > 0 {
			debug.SetMemoryLimit(int64(total / 4 * 3))
		}
	}
}
