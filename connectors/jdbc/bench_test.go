package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	sqlrun "github.com/sqlrun/sqlrun/sql"
)

// BenchmarkUpsert measures sink throughput for upserts of distinct keys at
// max-rows 100, 1000 and 5000, side by side with the driver alone: the same
// multi-row INSERT ... ON DUPLICATE KEY UPDATE statements of the same size,
// from one connection, with go-sql-driver interpolating the arguments.
// One benchmark op is one row written by EACH side (run with
// -benchtime=1000000x for the 1M-key figure). Both sides build the same
// values (BIGINT id, DECIMAL(10, 2) amount, STRING status) per row inside
// the timed section and write into their own fresh seed table (orders_rt).
// The two sides alternate in rounds of 20 000 rows, so load from other
// processes on a shared machine hits both alike. The interval trigger is
// off so that every statement holds exactly max-rows rows on both sides.
//
//	go test -run '^$' -bench Upsert -benchtime 1000000x ./connectors/jdbc/
func BenchmarkUpsert(b *testing.B) {
	s := shared(b)
	for _, size := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("max-rows=%d", size), func(b *testing.B) {
			ddb, sdb := ordersDB(b, s), ordersDB(b, s)
			h := s.DB(b, ddb)
			h.SetMaxOpenConns(1)
			conn, err := h.Conn(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			drv := &driverSide{conn: conn, size: size}
			sink := newSink(b, ordersSchema(true), tableOptions(s, sdb,
				OptSinkMaxRows, fmt.Sprint(size), OptSinkInterval, "0"))
			w := openWriter(b, sink, nil)
			const round = 20000
			var tDrv, tSink time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for lo, r := 0, 0; lo < b.N; lo, r = lo+round, r+1 {
				hi := min(lo+round, b.N)
				sides := []func(){
					func() { tDrv += timed(func() { drv.write(b, lo, hi) }) },
					func() { tSink += timed(func() { sinkWrite(b, w, lo, hi) }) },
				}
				if r%2 == 1 {
					sides[0], sides[1] = sides[1], sides[0]
				}
				sides[0]()
				sides[1]()
			}
			b.StopTimer()
			eq(b, "driver rows", s.Query(b, "SELECT COUNT(*) FROM `"+ddb+"`.orders_rt")[0][0], fmt.Sprint(b.N))
			eq(b, "sink rows", s.Query(b, "SELECT COUNT(*) FROM `"+sdb+"`.orders_rt")[0][0], fmt.Sprint(b.N))
			dr, sr := float64(b.N)/tDrv.Seconds(), float64(b.N)/tSink.Seconds()
			b.ReportMetric(dr, "driver-rows/s")
			b.ReportMetric(sr, "sink-rows/s")
			b.ReportMetric(100*sr/dr, "sink/driver-%")
		})
	}
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func benchValues(i int) (int64, decimal.Decimal, string) {
	return int64(i), decimal.New(int64(i%1000000), -2), "PAID"
}

type driverSide struct {
	conn *sql.Conn
	size int
	full string
	args []any
}

func (d *driverSide) stmt(n int) string {
	return "INSERT INTO `orders_rt`(`id`, `amount`, `status`) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?),", n), ",") +
		" ON DUPLICATE KEY UPDATE `id`=VALUES(`id`), `amount`=VALUES(`amount`), `status`=VALUES(`status`)"
}

// write sends rows [lo, hi) as statements of size rows.
func (d *driverSide) write(b *testing.B, lo, hi int) {
	if d.full == "" {
		d.full = d.stmt(d.size)
	}
	for i := lo; i < hi; i++ {
		id, amount, status := benchValues(i)
		d.args = append(d.args, id, amount, status)
		if len(d.args) == 3*d.size || i == hi-1 {
			q := d.full
			if len(d.args) != 3*d.size {
				q = d.stmt(len(d.args) / 3)
			}
			if _, err := d.conn.ExecContext(context.Background(), q, d.args...); err != nil {
				b.Fatal(err)
			}
			d.args = d.args[:0]
		}
	}
}

// sinkWrite hands rows [lo, hi) to the writer in batches of 256 (as the
// runtime does) and ends with a checkpoint flush.
func sinkWrite(b *testing.B, w *Writer, lo, hi int) {
	ctx := context.Background()
	const batch = 256
	rows := make([]sqlrun.Row, 0, batch)
	for i := lo; i < hi; i++ {
		id, amount, status := benchValues(i)
		rows = append(rows, sqlrun.Row{Kind: sqlrun.Insert, Values: []any{id, amount, status}})
		if len(rows) == batch || i == hi-1 {
			if err := w.Write(ctx, rows); err != nil {
				b.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if _, _, err := w.Snapshot(ctx, 1); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDeliveryModes measures the opt-in sink modes side by side with
// the default (flink-connector-jdbc's at-least-once) on the same server:
// sink.transactional-flush, sink.version-column and
// sink.delivery-guarantee = exactly-once (whose rows are written when the
// checkpoint completes, by the sink's committer). max-rows is 1000 and a
// checkpoint ends every round of 20 000 rows; the modes take turns round
// by round, so load from other processes hits them alike. One op is one
// row written by EACH mode; the ratios are the figures to read.
//
//	go test -run '^$' -bench DeliveryModes -benchtime 200000x ./connectors/jdbc/
func BenchmarkDeliveryModes(b *testing.B) {
	s := shared(b)
	type mode struct {
		name  string
		opts  []string
		sink  *Sink
		w     *Writer
		db    string
		spent time.Duration
	}
	modes := []*mode{
		{name: "default"},
		{name: "transactional", opts: []string{OptTransactionalFlush, "true"}},
		{name: "version", opts: []string{OptVersionColumn, "amount"}},
		{name: "exactly-once", opts: []string{OptDeliveryGuarantee, "exactly-once"}},
	}
	for _, m := range modes {
		m.db = ordersDB(b, s)
		m.sink = newSink(b, ordersSchema(true), tableOptions(s, m.db,
			append([]string{OptSinkMaxRows, "1000", OptSinkInterval, "0"}, m.opts...)...))
		m.w = openWriter(b, m.sink, nil)
	}
	ctx := context.Background()
	const round = 20000
	b.ResetTimer()
	for lo, r := 0, 0; lo < b.N; lo, r = lo+round, r+1 {
		hi := min(lo+round, b.N)
		for i := range modes {
			m := modes[(i+r)%len(modes)]
			m.spent += timed(func() {
				if m.name != "exactly-once" {
					sinkWrite(b, m.w, lo, hi)
					return
				}
				rows := make([]sqlrun.Row, 0, 256)
				for i := lo; i < hi; i++ {
					id, amount, status := benchValues(i)
					rows = append(rows, sqlrun.Row{Kind: sqlrun.Insert, Values: []any{id, amount, status}})
					if len(rows) == cap(rows) || i == hi-1 {
						if err := m.w.Write(ctx, rows); err != nil {
							b.Fatal(err)
						}
						rows = rows[:0]
					}
				}
				_, c, err := m.w.Snapshot(ctx, int64(r+1))
				if err != nil {
					b.Fatal(err)
				}
				if err := m.sink.Commit(ctx, int64(r+1), [][]byte{c}); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
	b.StopTimer()
	base := float64(b.N) / modes[0].spent.Seconds()
	for _, m := range modes {
		eq(b, m.name+" rows", s.Query(b, "SELECT COUNT(*) FROM `"+m.db+"`.orders_rt")[0][0], fmt.Sprint(b.N))
		rate := float64(b.N) / m.spent.Seconds()
		b.ReportMetric(rate, m.name+"-rows/s")
		if m != modes[0] {
			b.ReportMetric(rate/base, m.name+"/default")
		}
	}
}
