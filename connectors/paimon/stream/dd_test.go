package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/connectors/paimon/fs"
	"github.com/sqlrun/sqlrun/connectors/paimon/snapshot"
	"github.com/sqlrun/sqlrun/connectors/paimon/stream/streamtest"
	"github.com/sqlrun/sqlrun/connectors/paimon/table"
	"github.com/sqlrun/sqlrun/sql"
)

// The golden tests drive real table directories and real readers:
//
//	table [producer=<p>] [append] [bucket=N] [opt=k=v ...]
//	                         create the seed's orders table
//	commit [kind=APPEND|COMPACT|OVERWRITE] [bucket=B] [level=L] [watermark=W]
//	  +I[1001, 80.00, CREATED]        data file rows (one file per bucket=)
//	  changelog +I[...]               changelog file rows
//	compact                  full compaction of all live files into level 5
//	  <merged rows> / changelog <rows>
//	expire below=N           delete snapshots < N
//	tag name=<t> snapshot=N  create tag t of snapshot N
//	source name=<s> [batch] [parallelism=P] [proj=0,2] [audit]
//	  key=value              one option (hint) per line
//	reader name=<r> source=<s> [subtask=I] [restore=<cp>]
//	read name=<r> [max=N]    advance the clock past the discovery interval
//	                         and read until the reader waits or ends
//	checkpoint name=<r> id=N   Snapshot(N); prints the position
//	notify name=<r> id=N       NotifyCheckpointComplete(N)
//	consumer id=<id>         prints consumer/consumer-<id>
//	start  (same args as source)   prints the starting plan
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			h := &harness{t: t, sources: map[string]*Source{}, readers: map[string]*Reader{}, states: map[string][]byte{},
				clock: time.Unix(1_800_000_000, 0)}
			defer h.close()
			datadriven.RunTest(t, f, h.run)
		})
	}
}

type harness struct {
	t *testing.T
	w *streamtest.Writer
	// The table layer's writer, for tables written as a real sink would.
	tt      *table.Table
	tw      *table.TableWrite
	tc      *table.Commit
	fio     fs.FileIO
	root    string
	types   []sql.DataType
	sources map[string]*Source
	readers map[string]*Reader
	states  map[string][]byte // "<reader>@<cp>"
	clock   time.Time
}

func (h *harness) close() {
	for _, r := range h.readers {
		r.Close()
	}
}

func (h *harness) now() time.Time { return h.clock }

func arg(d *datadriven.TestData, k, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == k {
			if len(a.Vals) == 0 {
				return "true"
			}
			return strings.Join(a.Vals, ",")
		}
	}
	return def
}

func (h *harness) parseRows(lines []string) (data, changelog []streamtest.Rec, err error) {
	types := h.types
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		cl := strings.HasPrefix(l, "changelog ")
		l = strings.TrimPrefix(l, "changelog ")
		k, err := sql.ParseRowKind(l[:2])
		if err != nil {
			return nil, nil, err
		}
		body := strings.TrimSuffix(strings.TrimPrefix(l[2:], "["), "]")
		parts := strings.Split(body, ", ")
		if len(parts) != len(types) {
			return nil, nil, fmt.Errorf("%q: %d values for %d columns", l, len(parts), len(types))
		}
		vals := make([]any, len(parts))
		for i, p := range parts {
			if p == "null" {
				continue
			}
			switch types[i].Root {
			case sql.TypeInt:
				n, err := strconv.Atoi(p)
				if err != nil {
					return nil, nil, err
				}
				vals[i] = int32(n)
			case sql.TypeBigInt:
				n, err := strconv.ParseInt(p, 10, 64)
				if err != nil {
					return nil, nil, err
				}
				vals[i] = n
			case sql.TypeDecimal:
				vals[i] = streamtest.Dec(p)
			default:
				vals[i] = p
			}
		}
		if cl {
			changelog = append(changelog, streamtest.Rec{Kind: k, Vals: vals})
		} else {
			data = append(data, streamtest.Rec{Kind: k, Vals: vals})
		}
	}
	return data, changelog, nil
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v\n", r)
		}
	}()
	fail := func(err error) string {
		msg := err.Error()
		if h.root != "" {
			msg = strings.ReplaceAll(msg, h.root, "<table>")
		}
		return "error: " + msg + "\n"
	}
	switch d.Cmd {
	case "table":
		opts := map[string]string{"bucket": arg(d, "bucket", "1")}
		if p := arg(d, "producer", ""); p != "" {
			opts["changelog-producer"] = p
		}
		for _, l := range strings.Split(d.Input, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
				opts[k] = v
			}
		}
		if arg(d, "append", "") != "" {
			if _, ok := opts["bucket-key"]; !ok { // Paimon refuses a bucketed append table without it
				opts["bucket-key"] = "order_id"
			}
			h.w = streamtest.NewTable(t, []sql.Column{{Name: "order_id", Type: sql.Int()}, {Name: "amount", Type: sql.Decimal(10, 2)},
				{Name: "status", Type: sql.String()}}, nil, opts)
		} else {
			h.w = streamtest.NewOrders(t, opts)
		}
		h.fio, h.root, h.types = h.w.FIO, h.w.Root, h.w.TS.Types()
		return ""
	case "create":
		// A table written through the table layer (TableWrite + Commit), as
		// the Paimon sink writes it.
		opts := map[string]string{"bucket": arg(d, "bucket", "1")}
		for _, l := range strings.Split(d.Input, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
				opts[k] = v
			}
		}
		cols := []sql.Column{{Name: "order_id", Type: sql.Int().NotNull()}, {Name: "amount", Type: sql.Decimal(10, 2)},
			{Name: "status", Type: sql.String()}}
		var parts []string
		if arg(d, "partitioned", "") != "" {
			cols = append(cols, sql.Column{Name: "dt", Type: sql.String().NotNull()})
			parts = []string{"dt"}
		}
		sch := sql.Schema{Columns: cols, PrimaryKey: []string{"order_id"}}
		if parts != nil {
			sch.PrimaryKey = []string{"order_id", "dt"}
		}
		h.fio, h.root = fs.NewLocal(), t.TempDir()+"/default.db/orders"
		tt, err := table.Create(h.fio, h.root, sch, parts, opts, "", 1_700_000_000_000)
		if err != nil {
			return fail(err)
		}
		h.tt, h.types = tt, tt.Schema.Types()
		if h.tw, err = tt.NewWrite(table.WriteOptions{TempDir: t.TempDir()}); err != nil {
			return fail(err)
		}
		h.tc = tt.NewCommit("test-user")
		return ""
	case "write":
		// Rows go to the TableWrite; "checkpoint N" lines commit what was
		// written so far with identifier N, "compact" runs a full compaction.
		var b strings.Builder
		for _, l := range strings.Split(d.Input, "\n") {
			l = strings.TrimSpace(l)
			switch {
			case l == "":
			case strings.HasPrefix(l, "checkpoint "), l == "compact":
				if l == "compact" {
					if err := h.tw.Compact(true, nil); err != nil {
						return fail(err)
					}
				}
				id := int64(1 << 40)
				if n, err := strconv.ParseInt(strings.TrimPrefix(l, "checkpoint "), 10, 64); err == nil {
					id = n
				}
				msgs, err := h.tw.PrepareCommit(l == "compact")
				if err != nil {
					return fail(err)
				}
				if err := h.tc.Commit(id, msgs, nil); err != nil {
					return fail(err)
				}
				latest, _, _ := h.tt.Snapshots.LatestID()
				fmt.Fprintf(&b, "%s -> latest snapshot %d\n", l, latest)
			default:
				rows, _, err := h.parseRows([]string{l})
				if err != nil {
					return fail(err)
				}
				if err := h.tw.Write(sql.Row{Kind: rows[0].Kind, Values: rows[0].Vals}); err != nil {
					return fail(err)
				}
			}
		}
		return b.String()
	case "commit", "compact":
		// "flush" lines separate data files of one commit (several
		// write-buffer flushes before one checkpoint).
		var groups [][]streamtest.Rec
		var data, cl []streamtest.Rec
		for _, chunk := range strings.Split(d.Input, "flush\n") {
			g, c, err := h.parseRows(strings.Split(chunk, "\n"))
			if err != nil {
				return fail(err)
			}
			groups = append(groups, g)
			data = append(data, g...)
			cl = append(cl, c...)
		}
		var s *snapshot.Snapshot
		if d.Cmd == "compact" {
			s = h.w.CompactAll(data, cl)
		} else {
			b, _ := strconv.Atoi(arg(d, "bucket", "0"))
			lvl, _ := strconv.Atoi(arg(d, "level", "0"))
			var files []streamtest.FileSpec
			for _, data := range groups {
				// one file per bucket: route rows by bucket= or by key mod buckets
				byBucket := map[int32][]streamtest.Rec{}
				for _, r := range data {
					bk := int32(b)
					if arg(d, "bucket", "") == "" && h.w.Buckets > 1 {
						bk = int32(r.Vals[0].(int32)) % int32(h.w.Buckets)
					}
					byBucket[bk] = append(byBucket[bk], r)
				}
				var bs []int32
				for bk := range byBucket {
					bs = append(bs, bk)
				}
				sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
				for _, bk := range bs {
					files = append(files, streamtest.FileSpec{Bucket: bk, Level: int32(lvl), Recs: byBucket[bk]})
				}
			}
			if len(cl) > 0 {
				files = append(files, streamtest.FileSpec{Bucket: int32(b), Changelog: true, Recs: cl})
			}
			kind := snapshot.CommitKind(arg(d, "kind", "APPEND"))
			var drops []string
			if kind == snapshot.Overwrite {
				drops = h.w.LiveNames(-1)
			}
			s = h.w.Commit(kind, files, drops...)
			if wm := arg(d, "watermark", ""); wm != "" {
				n, _ := strconv.ParseInt(wm, 10, 64)
				s.Watermark = &n
				if err := h.w.FIO.Overwrite(h.w.SM.Path(s.ID), mustMarshal(s)); err != nil {
					return fail(err)
				}
			}
		}
		cl2 := "no changelog"
		if s.ChangelogManifestList != nil {
			cl2 = fmt.Sprintf("changelog %d rows", snapshot.Get(s.ChangelogRecordCount))
		}
		return fmt.Sprintf("snapshot %d %s delta %d rows, %s\n", s.ID, s.CommitKind, snapshot.Get(s.DeltaRecordCount), cl2)
	case "tag":
		sm := snapshot.NewManager(h.fio, h.root)
		id, _ := strconv.ParseInt(arg(d, "snapshot", "1"), 10, 64)
		s, err := sm.Read(id)
		if err != nil {
			return fail(err)
		}
		if err := sm.CreateTag(arg(d, "name", "t"), &snapshot.Tag{Snapshot: *s}); err != nil {
			return fail(err)
		}
		return ""
	case "expire":
		n, _ := strconv.ParseInt(arg(d, "below", "1"), 10, 64)
		h.w.Expire(n)
		return ""
	case "source", "start":
		opts := map[string]string{}
		for _, l := range strings.Split(d.Input, "\n") {
			if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
				opts[k] = v
			}
		}
		var proj []int
		if p := arg(d, "proj", ""); p != "" {
			for _, x := range strings.Split(p, ",") {
				n, _ := strconv.Atoi(x)
				proj = append(proj, n)
			}
		}
		s, err := NewSourceFS(h.fio, h.root, opts, arg(d, "batch", "") == "", proj)
		if err != nil {
			return fail(err)
		}
		s.Now = h.now
		s.Audit = arg(d, "audit", "") != ""
		if n, _ := strconv.Atoi(arg(d, "rows", "0")); n > 0 {
			s.BatchRows = n
		}
		if d.Cmd == "start" {
			p, err := Start(s.T, s.Cfg)
			if err != nil {
				return fail(err)
			}
			return fmt.Sprintf("mode=%s streaming=%v bounded=%v plan=%+v\n", s.Cfg.Mode, s.Cfg.Streaming, s.Bounded(), *p)
		}
		h.sources[arg(d, "name", "s")] = s
		return ""
	case "reader":
		s := h.sources[arg(d, "source", "s")]
		sub, _ := strconv.Atoi(arg(d, "subtask", "0"))
		par, _ := strconv.Atoi(arg(d, "parallelism", "1"))
		r, err := s.NewReader(sub, par)
		if err != nil {
			return fail(err)
		}
		name := arg(d, "name", "r")
		if old := h.readers[name]; old != nil {
			old.Close()
		}
		var state []byte
		if cp := arg(d, "restore", ""); cp != "" {
			state = h.states[name+"@"+cp]
		}
		if err := r.Open(context.Background(), state); err != nil {
			return fail(err)
		}
		h.readers[name] = r.(*Reader)
		return fmt.Sprintf("position %s\n", posString(h.readers[name].Position()))
	case "read":
		r := h.readers[arg(d, "name", "r")]
		max, _ := strconv.Atoi(arg(d, "max", "1000000"))
		h.clock = h.clock.Add(r.cfg.DiscoveryInterval)
		var b strings.Builder
		types := outTypes(r.src)
		n := 0
		for n < max {
			rows, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				b.WriteString("(end)\n")
				break
			}
			if err != nil {
				return b.String() + fail(err)
			}
			if rows == nil {
				b.WriteString("(waiting)\n")
				break
			}
			b.WriteString(fmtRows(rows, types))
			n += len(rows)
		}
		fmt.Fprintf(&b, "position %s\n", posString(r.Position()))
		return b.String()
	case "checkpoint":
		name := arg(d, "name", "r")
		id, _ := strconv.ParseInt(arg(d, "id", "1"), 10, 64)
		st, err := h.readers[name].Snapshot(id)
		if err != nil {
			return fail(err)
		}
		h.states[name+"@"+arg(d, "id", "1")] = st
		return string(st) + "\n"
	case "notify":
		name := arg(d, "name", "r")
		id, _ := strconv.ParseInt(arg(d, "id", "1"), 10, 64)
		if err := h.readers[name].NotifyCheckpointComplete(context.Background(), id); err != nil {
			return fail(err)
		}
		return ""
	case "consumer":
		b, err := h.fio.ReadFile(fs.Join(h.root, "consumer", "consumer-"+arg(d, "id", "")))
		if err != nil {
			return "no consumer file\n"
		}
		return string(b) + "\n"
	}
	return fmt.Sprintf("unknown command %s\n", d.Cmd)
}

func posString(p Position) string {
	return fmt.Sprintf("%s snapshot=%d offset=%d", p.Phase, p.Snapshot, p.Offset)
}

func outTypes(s *Source) []sql.DataType { return s.Schema().Types() }

func mustMarshal(s *snapshot.Snapshot) []byte {
	b, err := s.Marshal()
	if err != nil {
		panic(err)
	}
	return b
}

var _ connectors.SourceReader = (*Reader)(nil)

func fmtRows(rows []sql.Row, types []sql.DataType) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(sql.FormatRow(r, types))
		b.WriteByte('\n')
	}
	return b.String()
}
