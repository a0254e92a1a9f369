package jdbc

import (
	"container/list"
	"context"
	gosql "database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/jdbc/dialect"
	"github.com/sqlrun/sqlrun/sql"
)

var _ connectors.LookupSource = (*Source)(nil)

// lookupConfig is how a jdbc table is looked up: flink-connector-jdbc's
// JdbcDynamicTableFactory.getLookupOptions and its LookupCache.
type lookupConfig struct {
	maxRetries int
	// cache is nil with 'lookup.cache' = 'NONE' (the default).
	cache *cacheConfig
}

type cacheConfig struct {
	maxRows      int64 // -1: unbounded
	expireWrite  time.Duration
	expireAccess time.Duration
	cacheMissing bool
}

// lookupOptions reads the lookup options as JdbcDynamicTableFactory's
// getLookupCache does: 'lookup.cache' = 'PARTIAL' builds Flink's
// DefaultLookupCache from the 'lookup.partial-cache.*' options, which must
// name an eviction; the legacy 'lookup.cache.max-rows' > 0 with
// 'lookup.cache.ttl' > 0 make a cache of that size and write expiry,
// over either.
func lookupOptions(o connectors.Options) (*lookupConfig, error) {
	lc := &lookupConfig{maxRetries: o.Int(OptLookupMaxRetries)}
	switch {
	case o.Int64(OptLookupOldMaxRows) > 0 && o.Duration(OptLookupOldTTL) > 0:
		lc.cache = &cacheConfig{maxRows: o.Int64(OptLookupOldMaxRows), expireWrite: o.Duration(OptLookupOldTTL),
			cacheMissing: o.Bool(OptLookupOldMissing)}
	case o.Get(OptLookupCache) == "PARTIAL":
		if !o.Has(OptLookupMaxRows) && !o.Has(OptLookupExpireWrite) && !o.Has(OptLookupExpireAccess) {
			return nil, sql.Errorf(sql.IllegalArgumentException,
				"Missing '%s', '%s' or '%s' in the configuration. The cache will not have evictions under this configuration and could lead to potential memory issues as the cache size may grow indefinitely.",
				OptLookupExpireAccess, OptLookupExpireWrite, OptLookupMaxRows)
		}
		lc.cache = &cacheConfig{maxRows: -1, cacheMissing: o.Bool(OptLookupCacheMissing)}
		if o.Has(OptLookupMaxRows) {
			lc.cache.maxRows = o.Int64(OptLookupMaxRows)
		}
		if o.Has(OptLookupExpireWrite) {
			lc.cache.expireWrite = o.Duration(OptLookupExpireWrite)
		}
		if o.Has(OptLookupExpireAccess) {
			lc.cache.expireAccess = o.Duration(OptLookupExpireAccess)
		}
	}
	return lc, nil
}

// NewLookuper prepares `SELECT cols FROM t WHERE k1 = ? AND ...` on its own
// connection (JdbcRowDataLookupFunction), opened on the first lookup.
func (s *Source) NewLookuper(_ context.Context, keys []int) (connectors.Lookuper, error) {
	lc, err := lookupOptions(s.cfg.opts)
	if err != nil {
		return nil, err
	}
	cols := make([]string, len(s.cfg.schema.Columns))
	types := make([]sql.DataType, len(cols))
	for i, c := range s.cfg.schema.Columns {
		cols[i], types[i] = c.Name, c.Type
	}
	conds := make([]string, len(keys))
	keyTypes := make([]sql.DataType, len(keys))
	for i, k := range keys {
		conds[i], keyTypes[i] = cols[k], types[k]
	}
	c, err := newConn(s.cfg.conn, s.cfg.opts.Duration(OptMaxRetryTimeout))
	if err != nil {
		return nil, err
	}
	l := &Lookuper{cfg: s.cfg, lc: lc, conn: c, query: dialectOf().SelectSQL(s.cfg.table, cols, conds),
		types: types, keyTypes: keyTypes, now: time.Now, sleep: sleepCtx}
	if lc.cache != nil {
		l.cache = newLookupCache(*lc.cache)
	}
	return l, nil
}

// Lookuper is one subtask's JdbcRowDataLookupFunction: a prepared query
// per key (the values travel as parameters of the binary protocol, never
// as SQL text) behind the optional PARTIAL cache, with 'lookup.max-retries'
// retries that reconnect a broken session.
type Lookuper struct {
	cfg      *config
	lc       *lookupConfig
	conn     *conn
	stmt     *gosql.Stmt
	query    string
	types    []sql.DataType
	keyTypes []sql.DataType
	cache    *lookupCache
	args     []any
	keyBuf   []byte
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error

	queries atomic.Int64
}

// Queries is the number of queries sent to the database so far.
func (l *Lookuper) Queries() int64 { return l.queries.Load() }

// Lookup returns the rows whose key columns equal key.
func (l *Lookuper) Lookup(ctx context.Context, key []any) ([][]any, error) {
	var ck string
	if l.cache != nil {
		b := l.keyBuf[:0]
		for i, v := range key {
			var err error
			if b, err = dialectOf().AppendLiteral(b, v, l.keyTypes[i], dialect.BackslashEscapes); err != nil {
				return nil, fmt.Errorf("jdbc: lookup key of table '%s': %w", l.cfg.table, err)
			}
			b = append(b, 0)
		}
		l.keyBuf = b
		if rows, ok := l.cache.get(string(b), l.now()); ok {
			return rows, nil
		}
		ck = string(b)
	}
	args := l.args[:0]
	for i, v := range key {
		a, err := dialectOf().Arg(v, l.keyTypes[i])
		if err != nil {
			return nil, fmt.Errorf("jdbc: lookup key of table '%s': %w", l.cfg.table, err)
		}
		args = append(args, a)
	}
	l.args = args
	var rows [][]any
	var err error
	for retry := 0; ; retry++ {
		rows, err = l.query1(ctx, args)
		if err == nil {
			break
		}
		if retry >= l.lc.maxRetries || permanent(err) || ctx.Err() != nil {
			return nil, sql.Errorf(sql.IOException, "Execution of JDBC statement failed (lookup in table '%s' of %s): %w",
				l.cfg.table, l.cfg.conn, err)
		}
		if broken(err) || !l.conn.valid(ctx) {
			l.reset()
		}
		// JdbcRowDataLookupFunction sleeps 1 s times the retry number.
		if err := l.sleep(ctx, time.Duration(retry+1)*time.Second); err != nil {
			return nil, err
		}
	}
	if l.cache != nil && (len(rows) > 0 || l.cache.cfg.cacheMissing) {
		l.cache.put(ck, rows, l.now())
	}
	return rows, nil
}

func (l *Lookuper) query1(ctx context.Context, args []any) ([][]any, error) {
	if l.stmt == nil {
		sc, err := l.conn.open(ctx)
		if err != nil {
			return nil, err
		}
		if l.stmt, err = sc.PrepareContext(ctx, l.query); err != nil {
			return nil, err
		}
	}
	l.queries.Add(1)
	rs, err := l.stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]any
	scan := make([]any, len(l.types))
	ptrs := make([]any, len(scan))
	for i := range ptrs {
		ptrs[i] = &scan[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		vals := make([]any, len(l.types))
		for i, v := range scan {
			cv, err := fromDriver(v, l.types[i])
			if err != nil {
				return nil, fmt.Errorf("column %d: %w", i+1, err)
			}
			vals[i] = cv
		}
		out = append(out, vals)
	}
	return out, rs.Err()
}

func (l *Lookuper) reset() {
	if l.stmt != nil {
		_ = l.stmt.Close()
		l.stmt = nil
	}
	l.conn.reset()
}

// Close releases the statement and the connection.
func (l *Lookuper) Close() error {
	if l.stmt != nil {
		_ = l.stmt.Close()
		l.stmt = nil
	}
	return l.conn.close()
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lookupCache is Flink's DefaultLookupCache (a Guava cache): at most
// maxRows keys, the least recently used evicted first, entries expiring
// a fixed time after they were written or last read.
type lookupCache struct {
	cfg   cacheConfig
	byKey map[string]*list.Element
	lru   *list.List // front: most recently used
}

type cacheEntry struct {
	key              string
	rows             [][]any
	written, touched time.Time
}

func newLookupCache(cfg cacheConfig) *lookupCache {
	return &lookupCache{cfg: cfg, byKey: map[string]*list.Element{}, lru: list.New()}
}

func (c *lookupCache) get(key string, now time.Time) ([][]any, bool) {
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if c.cfg.expireWrite > 0 && now.Sub(e.written) >= c.cfg.expireWrite ||
		c.cfg.expireAccess > 0 && now.Sub(e.touched) >= c.cfg.expireAccess {
		c.lru.Remove(el)
		delete(c.byKey, key)
		return nil, false
	}
	e.touched = now
	c.lru.MoveToFront(el)
	return e.rows, true
}

func (c *lookupCache) put(key string, rows [][]any, now time.Time) {
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*cacheEntry)
		e.rows, e.written, e.touched = rows, now, now
		c.lru.MoveToFront(el)
		return
	}
	if c.cfg.maxRows == 0 {
		return // Guava's maximumSize(0) keeps nothing
	}
	if c.cfg.maxRows > 0 {
		for int64(c.lru.Len()) >= c.cfg.maxRows {
			last := c.lru.Back()
			c.lru.Remove(last)
			delete(c.byKey, last.Value.(*cacheEntry).key)
		}
	}
	c.byKey[key] = c.lru.PushFront(&cacheEntry{key: key, rows: rows, written: now, touched: now})
}
