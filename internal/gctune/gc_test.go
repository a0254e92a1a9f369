package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestGCPercent: GOGC is 400 while the live heap is small, live +
// headroom in between, and Go's default 100 once live passes the headroom
// (before, 400 at every size: a Paimon write with ~220 MB live let its
// heap reach 1 GB).
func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 400}, {10 * mb, 400}, {64 * mb, 400}, {128 * mb, 200}, {220 * mb, 116}, {256 * mb, 100}, {4096 * mb, 100}} {
		if got := gcPercent(c.live, gcHeadroom); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live/mb, got, c.want)
		}
	}
}

// TestAdaptiveGCAdjust: after a collection that found the headroom's
// worth live, GOGC is 100 (the floor), and back to 400 once that memory is
// gone. The headroom is four times what the test binary has live besides
// (plus 1 MiB), so that alone stays under a quarter of it.
func TestAdaptiveGCAdjust(t *testing.T) {
	old := debug.SetGCPercent(400)
	defer debug.SetGCPercent(old)
	a := newAdaptiveGC(0)
	runtime.GC()
	metrics.Read(a.sample)
	a.headroom = 4 * (a.sample[0].Value.Uint64() + 1<<20)
	live := make([]byte, a.headroom)
	runtime.GC()
	if p := a.adjust(); p != 100 {
		t.Errorf("%d bytes live, headroom %d: GOGC %d, want 100", len(live), a.headroom, p)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("the runtime's GOGC is %d", p)
	}
	runtime.KeepAlive(live)
	live = nil
	runtime.GC()
	if p := a.adjust(); p != 400 {
		t.Errorf("little live: GOGC %d, want 400", p)
	}
}
