package jdbc

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/sql"
)

// TestFactory is the golden contract of the options: declarations and
// defaults, Flink's validation messages, and what a valid table turns into.
// No server is needed: nothing connects before a writer or reader opens.
func TestFactory(t *testing.T) {
	datadriven.RunTest(t, "testdata/factory", func(t *testing.T, td *datadriven.TestData) string {
		out := runFactoryCase(t, td)
		if strings.Contains(out, "Seed-Secret-1") {
			t.Fatalf("password shown:\n%s", out)
		}
		return out
	})
}

func runFactoryCase(t *testing.T, td *datadriven.TestData) string {
	{
		switch td.Cmd {
		case "options":
			var b strings.Builder
			for _, o := range (Factory{}).Options() {
				def := o.Default
				if def == "" {
					def = "(none)"
				}
				req := ""
				if o.Required {
					req = " required"
				}
				fmt.Fprintf(&b, "%s = %s%s\n", o.Key, def, req)
			}
			return b.String()
		case "sink", "source":
			opts := map[string]string{"connector": "jdbc"}
			for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					opts[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
			schema := ordersSchema(!td.HasArg("nopk"))
			if td.HasArg("ltz") {
				schema.Columns = append(schema.Columns, sql.Column{Name: "ts", Type: sql.TimestampLTZ(3)})
			}
			ctx := ctxFor(schema, opts)
			var b strings.Builder
			if td.Cmd == "sink" {
				s, err := Factory{}.CreateSink(ctx)
				if err != nil {
					return errString(err)
				}
				sink := s.(*Sink)
				fmt.Fprintf(&b, "execution: %+v\nparallelism: %d\n", sink.ExecutionOptions(), sink.Parallelism())
				for _, req := range []sql.ChangelogMode{sql.InsertOnly, sql.All} {
					m, err := sink.ChangelogMode(req)
					if err != nil {
						fmt.Fprintf(&b, "mode for %s: %s", req, errString(err))
					} else {
						fmt.Fprintf(&b, "mode for %s: %s\n", req, m)
					}
				}
				fmt.Fprintf(&b, "connection: %s\n", sink.cfg)
				return b.String()
			}
			s, err := Factory{}.CreateSource(ctx)
			if err != nil {
				return errString(err)
			}
			src := s.(*Source)
			fmt.Fprintf(&b, "mode: %s bounded: %v\n", src.ChangelogMode(), src.Bounded())
			par := 1
			if td.HasArg("parallelism") {
				td.ScanArgs(t, "parallelism", &par)
			}
			for i := 0; i < par; i++ {
				r, _ := src.NewReader(i, par)
				fmt.Fprintf(&b, "subtask %d:\n", i)
				for _, q := range r.(*Reader).queries {
					fmt.Fprintf(&b, "  %s\n", q)
				}
			}
			return b.String()
		case "masked":
			opts := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
				k, v, _ := strings.Cut(line, "=")
				opts[k] = v
			}
			m := connectors.MaskOptions(opts)
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var b strings.Builder
			for _, k := range keys {
				fmt.Fprintf(&b, "%s=%s\n", k, m[k])
			}
			return b.String()
		}
		return "unknown command"
	}
}

func errString(err error) string {
	if e := sql.RootCause(err); e != nil {
		return fmt.Sprintf("%s: %s\n", e.Class, e.Msg)
	}
	return "error: " + err.Error() + "\n"
}

// TestSplits checks JdbcNumericBetweenParametersProvider's arithmetic.
func TestSplits(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		n      int
		want   string
	}{
		{1, 10, 3, "[{1 4} {5 7} {8 10}]"},
		{0, 9, 2, "[{0 4} {5 9}]"},
		{1, 3, 5, "[{1 1} {2 2} {3 3}]"},
		{-5, 5, 1, "[{-5 5}]"},
		{7, 7, 4, "[{7 7}]"},
	} {
		if got := fmt.Sprint(Splits(c.lo, c.hi, c.n)); got != c.want {
			t.Errorf("Splits(%d, %d, %d) = %s, want %s", c.lo, c.hi, c.n, got, c.want)
		}
	}
}

// TestRegistered: importing the package registers the 'jdbc' factory.
func TestRegistered(t *testing.T) {
	f, err := connectors.Lookup("jdbc")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(connectors.SinkFactory); !ok {
		t.Fatal("jdbc is not a SinkFactory")
	}
	if _, ok := f.(connectors.SourceFactory); !ok {
		t.Fatal("jdbc is not a SourceFactory")
	}
}
