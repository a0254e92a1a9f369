package runtime

import (
	"fmt"
	"sync"
	"time"
)

// Watermark alignment (Flink's FLIP-182 WatermarkStrategy.withWatermarkAlignment,
// for SQL the scan.watermark.alignment.* options of FLIP-296): the source
// subtasks of one alignment group share a coordinator that knows each
// subtask's current watermark; a subtask whose watermark is more than the
// group's max drift ahead of the group's minimum pauses reading until the
// others catch up (Flink's SourceOperator checks its watermark against the
// coordinator's announced maximum allowed watermark, min + maxDrift). As in
// Flink, a subtask counts in the minimum only once it has a watermark (its
// SourceOperator reports nothing before), and one that is idle or has
// finished (emitted the MAX watermark) does not hold the minimum back (an
// idle SourceOperator reports Long.MAX_VALUE).
//
// In one process the coordinator announces at every change rather than
// every update interval: a reader pauses at the same bound, without the
// interval's lag. A reader also waits, before reading its next batch, for
// the generator chained after it to have taken the rows it sent, so that
// the watermark it checks is the one those rows gave (Flink's SourceOperator
// generates it in the same thread as it reads).

// AlignmentSpec is a source vertex's watermark alignment.
type AlignmentSpec struct {
	// Group is scan.watermark.alignment.group.
	Group string
	// MaxDrift is scan.watermark.alignment.max-drift (positive).
	MaxDrift time.Duration
	// UpdateInterval is scan.watermark.alignment.update-interval; the
	// in-process coordinator announces at once (see above).
	UpdateInterval time.Duration
}

// AlignWatermarks puts source vertex source in spec's group; generator is
// the vertex chained after it (forward edge, same parallelism) that
// generates its watermarks.
func (g *Graph) AlignWatermarks(source, generator int, spec AlignmentSpec) error {
	if source < 0 || source >= len(g.Vertices) || generator < 0 || generator >= len(g.Vertices) {
		return fmt.Errorf("watermark alignment: vertex out of range")
	}
	s, gen := g.Vertices[source], g.Vertices[generator]
	if s.Source == nil {
		return fmt.Errorf("watermark alignment: %s is not a source", s.Name)
	}
	if s.Parallelism != gen.Parallelism {
		return fmt.Errorf("watermark alignment: %s and its watermark generator %s differ in parallelism", s.Name, gen.Name)
	}
	if spec.Group == "" || spec.MaxDrift <= 0 {
		return fmt.Errorf("watermark alignment of %s: needs a group and a positive max drift", s.Name)
	}
	sp := spec
	s.align = &sp
	gen.alignOf = source + 1
	return nil
}

// alignGroup is one group's coordinator.
type alignGroup struct {
	mu      sync.Mutex
	members []*alignMember
	changed chan struct{} // closed and replaced at every change
}

// alignMember is one source subtask of a group.
type alignMember struct {
	g     *alignGroup
	drift int64 // its source's max drift, milliseconds
	wm    int64
	// reported: it has a watermark (or status) to report.
	reported bool
	idle     bool
	done     bool
	// sent counts the rows the reader sent its generator, taken the rows
	// the generator has processed.
	sent, taken int64
}

func (g *alignGroup) add(drift time.Duration) *alignMember {
	m := &alignMember{g: g, wm: MinWatermark, drift: drift.Milliseconds()}
	g.members = append(g.members, m)
	return m
}

// signal wakes the waiting readers; g.mu held.
func (g *alignGroup) signal() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// maxAllowed is the group's minimum watermark over its active members
// plus drift (MaxWatermark when none is active), as Flink's
// SourceCoordinator announces it to a source with that max drift; g.mu
// held.
func (g *alignGroup) maxAllowed(drift int64) int64 {
	lo, any := int64(MaxWatermark), false
	for _, m := range g.members {
		if !m.reported || m.idle || m.done {
			continue
		}
		any = true
		lo = min(lo, m.wm)
	}
	if !any || lo > MaxWatermark-drift {
		return MaxWatermark
	}
	return lo + drift
}

// ready reports whether the reader may read its next batch; when not, the
// channel to wait on for a change.
func (m *alignMember) ready() (bool, <-chan struct{}) {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.taken >= m.sent && (m.idle || m.done || m.wm <= g.maxAllowed(m.drift)) {
		return true, nil
	}
	return false, g.changed
}

// sentRows counts rows the reader sent.
func (m *alignMember) sentRows(n int) {
	m.g.mu.Lock()
	m.sent += int64(n)
	m.g.mu.Unlock()
}

// takenRows counts rows the generator processed (its watermarks for them
// already reported).
func (m *alignMember) takenRows(n int) {
	if n == 0 {
		return
	}
	m.g.mu.Lock()
	m.taken += int64(n)
	m.g.signal()
	m.g.mu.Unlock()
}

// mark reports a watermark or status the generator emitted.
func (m *alignMember) mark(mk Mark) {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	m.reported = true
	switch mk.Status {
	case MarkWatermark:
		if mk.Watermark == MaxWatermark {
			m.done = true
		} else if mk.Watermark > m.wm {
			m.wm = mk.Watermark
		}
	case MarkIdle:
		m.idle = true
	case MarkActive:
		m.idle = false
	}
	m.g.signal()
}

// leave takes a finished or failed reader's member out of the minimum.
func (m *alignMember) leave() {
	m.g.mu.Lock()
	m.done = true
	m.g.signal()
	m.g.mu.Unlock()
}

// alignGroups makes the groups of the graph's aligned sources and gives
// each source task and its generator their member.
func alignGroups(g *Graph, byVertex [][]*task) {
	groups := map[string]*alignGroup{}
	for vi, v := range g.Vertices {
		if v.align == nil {
			continue
		}
		ag := groups[v.align.Group]
		if ag == nil {
			ag = &alignGroup{changed: make(chan struct{})}
			groups[v.align.Group] = ag
		}
		for _, t := range byVertex[vi] {
			t.alignMember = ag.add(v.align.MaxDrift)
		}
	}
	for vi, v := range g.Vertices {
		if v.alignOf == 0 {
			continue
		}
		src := byVertex[v.alignOf-1]
		for s, t := range byVertex[vi] {
			t.alignMember = src[s].alignMember
		}
	}
}
