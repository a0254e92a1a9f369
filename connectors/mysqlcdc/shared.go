package mysqlcdc

import (
	"context"
	"sync"
	"time"
)

// A shared binlog: the sources of one job that name the same
// 'sqlrun.shared-binlog-server-id' (`sqlrun action mysql-sync-database`
// gives it to its source of every table) read the binary log through one
// replication connection, as Paimon's database action reads it with one
// MySqlSource for all its tables. Each source keeps its own position: the
// hub reads from the earliest position a subscriber needs (re-opening the
// connection further back when a subscriber joins behind it) and hands a
// subscriber each event that starts at or after the end of the last one
// it handed it. A subscriber's channel is bounded: a slow source holds
// the others back instead of events piling up.

type hubKey struct {
	host     string
	port     int
	user     string
	serverID uint32
}

var (
	hubsMu sync.Mutex
	hubs   = map[hubKey]*hub{}
)

type hub struct {
	key hubKey
	cfg config // the first subscriber's, with the shared server id
	mu  sync.Mutex
	// subs are the subscribers; next[s] is where s's next event starts.
	subs   map[*stream]position
	up     *stream  // the replication connection
	at     position // the end of the last event read from up
	closed bool
}

// subscribe returns a stream of the shared binlog from pos.
func subscribe(ctx context.Context, cfg *config, pos position) (*stream, error) {
	key := sharedKey(cfg)
	for {
		hubsMu.Lock()
		h := hubs[key]
		if h == nil {
			h = &hub{key: key, cfg: *cfg, subs: map[*stream]position{}}
			h.cfg.serverID = cfg.sharedServerID
			hubs[key] = h
		}
		hubsMu.Unlock()
		s, retry, err := h.join(ctx, pos)
		if !retry {
			return s, err
		}
	}
}

func (h *hub) join(ctx context.Context, pos position) (*stream, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, true, nil
	}
	if h.up == nil || pos.compare(h.at) < 0 {
		// Start (or go back) to the earliest position needed.
		from := pos
		for _, n := range h.subs {
			if n.compare(from) < 0 {
				from = n
			}
		}
		up, err := openStream(ctx, &h.cfg, from)
		if err != nil {
			if len(h.subs) == 0 && h.up == nil {
				h.close()
			}
			return nil, false, err
		}
		if h.up != nil {
			h.up.close()
		} else {
			go h.run()
		}
		h.up, h.at = up, from
	}
	s := &stream{events: make(chan event, 256), done: make(chan struct{})}
	s.closeFn = func() {
		h.mu.Lock()
		delete(h.subs, s)
		close(s.done)
		h.mu.Unlock()
	}
	h.subs[s] = pos
	return s, false, nil
}

// close retires the hub; h.mu is held.
func (h *hub) close() {
	if h.up != nil {
		h.up.close()
		h.up = nil
	}
	h.closed = true
	hubsMu.Lock()
	if hubs[h.key] == h {
		delete(hubs, h.key)
	}
	hubsMu.Unlock()
}

// run reads the replication connection and hands its events out, until
// no subscriber is left.
func (h *hub) run() {
	var to []*stream
	for {
		h.mu.Lock()
		if len(h.subs) == 0 {
			h.close()
			h.mu.Unlock()
			return
		}
		up := h.up
		h.mu.Unlock()
		var e event
		var ok bool
		select {
		case e, ok = <-up.events:
		case <-time.After(100 * time.Millisecond):
			continue // see whether subscribers are left
		}
		h.mu.Lock()
		if h.up != up {
			// Re-opened further back: the new connection delivers this
			// event again.
			h.mu.Unlock()
			continue
		}
		if !ok {
			// The connection failed: every subscriber fails with its
			// error and re-subscribes from its own position.
			for s := range h.subs {
				s.err = up.err
				close(s.events)
			}
			h.subs = map[*stream]position{}
			h.close()
			h.mu.Unlock()
			return
		}
		h.at = e.end
		to = to[:0]
		for s, next := range h.subs {
			if e.start.compare(next) >= 0 {
				to = append(to, s)
				h.subs[s] = e.end
			}
		}
		h.mu.Unlock()
		for _, s := range to {
			select {
			case s.events <- e:
			case <-s.done:
			}
		}
	}
}

// A job's stop. Paimon's CDC action ends the input of its job at an ALTER
// TABLE of one of its tables (OptSyncAction), evolves the Paimon tables
// and resumes the job, and a job ends when all its sources have ended.
// Each source of `sqlrun action mysql-sync-database` sees every ALTER of
// the job's tables (OptSyncTables) in its own binlog, but one whose
// snapshot chunks all came after the statement starts its binlog past
// it: it would read on, the job would never end and the others' tables
// would no longer be synchronized. So the sources of one job (one shared
// binlog) agree on the stop: the first to end at an ALTER raises it with
// the statement's position, and every other source ends its input as
// soon as its binlog is at or past that position (one behind it reads on
// to the statement and ends there; one in its snapshot reads it to the
// end first). The final checkpoint holds each source's place, and the
// resumed job goes on from there with the Paimon tables evolved.
type jobStop struct {
	refs int
	at   *position // the earliest ALTER TABLE a source ended at
}

var jobStops = map[hubKey]*jobStop{} // guarded by hubsMu

func sharedKey(cfg *config) hubKey {
	return hubKey{cfg.host, cfg.port, cfg.user, cfg.sharedServerID}
}

// joinJob registers a source of the job whose shared binlog cfg names.
func joinJob(cfg *config) *jobStop {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	k := sharedKey(cfg)
	j := jobStops[k]
	if j == nil {
		j = &jobStop{}
		jobStops[k] = j
	}
	j.refs++
	return j
}

// leave unregisters a source; the last one retires the job's stop, so
// the job resumed after it starts without one.
func (j *jobStop) leave(cfg *config) {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	if j.refs--; j.refs == 0 && jobStops[sharedKey(cfg)] == j {
		delete(jobStops, sharedKey(cfg))
	}
}

// raise stops the job at an ALTER TABLE at p.
func (j *jobStop) raise(p position) {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	if j.at == nil || p.compare(*j.at) < 0 {
		j.at = &p
	}
}

// stopped returns where the job stops, if it does.
func (j *jobStop) stopped() (position, bool) {
	hubsMu.Lock()
	defer hubsMu.Unlock()
	if j.at == nil {
		return position{}, false
	}
	return *j.at, true
}
