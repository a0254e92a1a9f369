package runtime

import (
	"testing"
	"time"
)

// TestAlignGroup: the coordinator's decisions, step by step. A member
// pauses once its watermark is past the minimum of the reported, active
// members plus its drift; a member without a watermark yet, an idle one
// and a finished one do not hold it back; a reader also waits for its
// generator to take the rows it sent.
func TestAlignGroup(t *testing.T) {
	g := &alignGroup{changed: make(chan struct{})}
	a, b := g.add(3*time.Second), g.add(3*time.Second)
	ready := func(m *alignMember, want bool, what string) {
		t.Helper()
		if ok, ch := m.ready(); ok != want || (!ok && ch == nil) {
			t.Fatalf("%s: ready %v, want %v", what, ok, want)
		}
	}
	ready(a, true, "a before any watermark")
	a.sentRows(1)
	ready(a, false, "a before its generator took its row")
	a.mark(Mark{Watermark: 10000})
	a.takenRows(1)
	ready(a, true, "a alone reported")
	b.mark(Mark{Watermark: 5000})
	ready(a, false, "a 5 s ahead of b, drift 3 s")
	_, changed := a.ready()
	b.mark(Mark{Watermark: 7000})
	select {
	case <-changed:
	default:
		t.Fatal("b's watermark did not wake a")
	}
	ready(a, true, "a 3 s ahead of b")
	ready(b, true, "b is the minimum")
	b.mark(Mark{Watermark: 6000})
	ready(a, true, "watermarks do not go back")
	b.mark(Mark{Status: MarkIdle})
	a.mark(Mark{Watermark: 60000})
	ready(a, true, "b idle")
	b.mark(Mark{Status: MarkActive})
	ready(a, false, "b active again at 7 s")
	ready(b, true, "b active again")
	b.mark(Mark{Watermark: MaxWatermark})
	ready(a, true, "b finished")
	b2 := g.add(time.Second)
	b2.mark(Mark{Watermark: 58000})
	ready(b2, true, "b2 is the minimum")
	ready(a, true, "a 2 s ahead of b2 within its own 3 s drift")
	b2.leave()
	ready(a, true, "b2 left")
}
