package stream

import (
	"sync"

	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
)

// planCache shares the follow-up plan of a snapshot between the subtasks
// of one source: every subtask follows every snapshot (each keeps its own
// buckets), so without it the manifests of each snapshot would be read
// and decoded once per subtask. Plans are immutable once made; the cache
// keeps the most recent few, which is what subtasks moving at similar
// speeds need.
type planCache struct {
	mu    sync.Mutex
	plans map[int64]*plan
	order []int64
}

type plan struct {
	once   sync.Once
	splits []table.Split
	kind   table.SplitKind
	read   bool
	err    error
}

const planCacheSize = 16

func (c *planCache) followUp(t *table.Table, cfg *Config, s *snapshot.Snapshot) ([]table.Split, table.SplitKind, bool, error) {
	c.mu.Lock()
	if c.plans == nil {
		c.plans = map[int64]*plan{}
	}
	p, ok := c.plans[s.ID]
	if !ok {
		p = &plan{}
		c.plans[s.ID] = p
		c.order = append(c.order, s.ID)
		if len(c.order) > planCacheSize {
			delete(c.plans, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	p.once.Do(func() { p.splits, p.kind, p.read, p.err = FollowUp(t, cfg, s) })
	if p.err != nil { // do not cache failures: the next look retries
		c.mu.Lock()
		if c.plans[s.ID] == p {
			delete(c.plans, s.ID)
		}
		c.mu.Unlock()
	}
	return p.splits, p.kind, p.read, p.err
}
