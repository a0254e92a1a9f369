package jdbc

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// customers is the dimension table of the lookup tests.
func customersSchema() sql.Schema {
	return sql.Schema{Columns: []sql.Column{
		{Name: "id", Type: sql.Int().NotNull()},
		{Name: "name", Type: sql.String()},
		{Name: "tier", Type: sql.Int()},
	}, PrimaryKey: []string{"id"}}
}

func newLookuper(t testing.TB, opts map[string]string, keys ...int) *Lookuper {
	t.Helper()
	src, err := Factory{}.CreateSource(ctxFor(customersSchema(), opts))
	if err != nil {
		t.Fatal(err)
	}
	ls, ok := src.(connectors.LookupSource)
	if !ok {
		t.Fatal("the jdbc source is not a LookupSource")
	}
	l, err := ls.NewLookuper(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l.(*Lookuper)
}

func lookupNames(t *testing.T, l *Lookuper, key ...any) string {
	t.Helper()
	rows, err := l.Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, sql.FormatRow(sql.Row{Kind: sql.Insert, Values: r}, customersSchema().Types()))
	}
	return strings.Join(names, " ")
}

// TestLookupCacheOnOff is JdbcRowDataLookupFunction with and without
// flink-connector-jdbc's PARTIAL cache (DefaultLookupCache): without it
// every lookup is one query and sees the table as it is now; with it a key
// is queried once until its entry expires, a missing key is cached unless
// 'lookup.partial-cache.cache-missing-key' is false, and 'max-rows' evicts
// the least recently used key. The clock is the test's.
func TestLookupCacheOnOff(t *testing.T) {
	s := shared(t)
	db := s.NewDatabase(t)
	s.Exec(t, "CREATE TABLE `"+db+"`.customers (id INT PRIMARY KEY, name VARCHAR(20), tier INT)")
	s.Exec(t, "INSERT INTO `"+db+"`.customers VALUES (7, 'Ann', 1), (9, 'Bob', 2)")

	off := newLookuper(t, tableOptions(s, db, OptTableName, "customers"), 0)
	for i := 0; i < 3; i++ {
		if got := lookupNames(t, off, int32(7)); got != "+I[7, Ann, 1]" {
			t.Fatalf("lookup 7 = %q", got)
		}
	}
	if got := lookupNames(t, off, int32(8)); got != "" {
		t.Fatalf("lookup 8 = %q, want no row", got)
	}
	if n := off.Queries(); n != 4 {
		t.Fatalf("cache off: %d queries for 4 lookups, want 4", n)
	}

	on := newLookuper(t, tableOptions(s, db, OptTableName, "customers", OptLookupCache, "PARTIAL",
		OptLookupExpireWrite, "10s", OptLookupMaxRows, "2"), 0)
	now := time.Unix(1000, 0)
	on.now = func() time.Time { return now }
	for i := 0; i < 3; i++ {
		lookupNames(t, on, int32(7))
		lookupNames(t, on, int32(8)) // missing: cached too (cache-missing-key defaults to true)
	}
	if n := on.Queries(); n != 2 {
		t.Fatalf("cache on: %d queries for 6 lookups of 2 keys, want 2", n)
	}
	// The cached row is served until it expires, then the table's
	// current row is read.
	s.Exec(t, "UPDATE `"+db+"`.customers SET name = 'Anna' WHERE id = 7")
	if got := lookupNames(t, on, int32(7)); got != "+I[7, Ann, 1]" {
		t.Fatalf("cached lookup 7 = %q", got)
	}
	now = now.Add(10 * time.Second)
	if got := lookupNames(t, on, int32(7)); got != "+I[7, Anna, 1]" {
		t.Fatalf("lookup 7 after expiry = %q", got)
	}
	// max-rows 2: a third key evicts the least recently used (8).
	lookupNames(t, on, int32(9))
	before := on.Queries()
	lookupNames(t, on, int32(7))
	lookupNames(t, on, int32(9))
	if on.Queries() != before {
		t.Fatal("keys 7 and 9 should be cached")
	}
	lookupNames(t, on, int32(8))
	if on.Queries() != before+1 {
		t.Fatal("key 8 should have been evicted")
	}

	nomiss := newLookuper(t, tableOptions(s, db, OptTableName, "customers", OptLookupCache, "PARTIAL",
		OptLookupMaxRows, "100", OptLookupCacheMissing, "false"), 0)
	lookupNames(t, nomiss, int32(8))
	lookupNames(t, nomiss, int32(8))
	lookupNames(t, nomiss, int32(9))
	lookupNames(t, nomiss, int32(9))
	if n := nomiss.Queries(); n != 3 {
		t.Fatalf("cache-missing-key false: %d queries, want 3 (the missing key twice, 9 once)", n)
	}

	// Two key fields, one of them a string with quotes: values are
	// parameters, never SQL text.
	s.Exec(t, "INSERT INTO `"+db+"`.customers VALUES (10, 'O''Brien \\\\', 3)")
	two := newLookuper(t, tableOptions(s, db, OptTableName, "customers"), 1, 2)
	if got := lookupNames(t, two, "O'Brien \\", int32(3)); got != `+I[10, O'Brien \, 3]` {
		t.Fatalf("lookup by name and tier = %q", got)
	}
}

// TestLookupOptions: PARTIAL without an eviction fails as Flink's
// DefaultLookupCache.fromConfig; the legacy options make a cache.
func TestLookupOptions(t *testing.T) {
	opts := map[string]string{"connector": "jdbc", "url": "jdbc:mysql://localhost:3306/db", "table-name": "customers",
		OptLookupCache: "PARTIAL"}
	_, err := Factory{}.CreateSource(ctxFor(customersSchema(), opts))
	want := "Missing 'lookup.partial-cache.expire-after-access', 'lookup.partial-cache.expire-after-write' or 'lookup.partial-cache.max-rows' in the configuration."
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	o := connectors.NewOptions(options, map[string]string{OptLookupOldMaxRows: "5", OptLookupOldTTL: "1 min"})
	lc, err := lookupOptions(o)
	if err != nil || lc.cache == nil || lc.cache.maxRows != 5 || lc.cache.expireWrite != time.Minute || !lc.cache.cacheMissing {
		t.Fatalf("legacy options: %+v %v", lc, err)
	}
	o = connectors.NewOptions(options, map[string]string{})
	if lc, err := lookupOptions(o); err != nil || lc.cache != nil || lc.maxRetries != 3 {
		t.Fatalf("defaults: %+v %v", lc, err)
	}
}

// BenchmarkLookup measures the jdbc lookup function: one op is one left
// row looked up by primary key in a 10 000-row MariaDB table, the keys
// cycling over 1 000 of them, without a cache and with 'lookup.cache' =
// 'PARTIAL' (max-rows 10 000). It reports rows/s (wall) and the MySQL
// queries per row.
//
//	go test -run '^$' -bench Lookup -benchtime 20000x ./connectors/jdbc/
func BenchmarkLookup(b *testing.B) {
	s := shared(b)
	db := s.NewDatabase(b)
	s.Exec(b, "CREATE TABLE `"+db+"`.customers (id INT PRIMARY KEY, name VARCHAR(20), tier INT)")
	var vals []string
	for i := 0; i < 10000; i++ {
		vals = append(vals, "("+strconv.Itoa(i)+", 'customer', 1)")
	}
	s.Exec(b, "INSERT INTO `"+db+"`.customers VALUES "+strings.Join(vals, ", "))
	for _, c := range []struct {
		name string
		opts []string
	}{
		{"cache=off", nil},
		{"cache=partial", []string{OptLookupCache, "PARTIAL", OptLookupMaxRows, "10000"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := newLookuper(b, tableOptions(s, db, append([]string{OptTableName, "customers"}, c.opts...)...), 0)
			ctx := context.Background()
			key := []any{int32(0)}
			start := time.Now()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				key[0] = int32(i * 7 % 1000)
				rows, err := l.Lookup(ctx, key)
				if err != nil || len(rows) != 1 {
					b.Fatalf("lookup %v: %d rows, %v", key[0], len(rows), err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(float64(l.Queries())/float64(b.N), "queries/row")
		})
	}
}
