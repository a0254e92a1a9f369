package datagen

import (
	"context"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/sqlrun/sqlrun/connectors"
	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

var schema = sql.Schema{Columns: []sql.Column{
	{Name: "id", Type: sql.BigInt()}, {Name: "n", Type: sql.Int()}, {Name: "s", Type: sql.String()},
	{Name: "d", Type: sql.Decimal(10, 2)}, {Name: "b", Type: sql.Boolean()}, {Name: "ts", Type: sql.Timestamp(3)},
	{Name: "f", Type: sql.Double()}, {Name: "t", Type: sql.TinyInt()}}}

func source(t *testing.T, opts map[string]string) *Source {
	t.Helper()
	src, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return src.(*Source)
}

func readAll(t *testing.T, src *Source, sub, par int, state []byte, limit int) ([]sql.Row, []byte) {
	t.Helper()
	r, _ := src.NewReader(sub, par)
	if err := r.Open(context.Background(), state); err != nil {
		t.Fatal(err)
	}
	var rows []sql.Row
	for limit < 0 || len(rows) < limit {
		b, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, b...)
	}
	st, _ := r.Snapshot(1)
	return rows, st
}

func TestSequenceDeterministicAndRestorable(t *testing.T) {
	opts := map[string]string{"fields.id.kind": "sequence", "fields.id.start": "10", "fields.id.end": "5009",
		"fields.n.min": "1", "fields.n.max": "6", "fields.s.length": "5", "fields.d.min": "0", "fields.d.max": "100",
		"fields.t.null-rate": "0.5", "rows-per-second": "100000000"}
	src := source(t, opts)
	if !src.Bounded() {
		t.Fatal("a sequence field makes datagen bounded")
	}
	all, _ := readAll(t, src, 0, 1, nil, -1)
	if len(all) != 5000 || all[0].Values[0] != int64(10) || all[4999].Values[0] != int64(5009) {
		t.Fatalf("got %d rows, first %v", len(all), all[0])
	}
	nulls := 0
	for _, r := range all {
		if n := r.Values[1].(int32); n < 1 || n > 6 {
			t.Fatalf("n out of range: %v", r)
		}
		if s := r.Values[2].(string); len(s) != 5 {
			t.Fatalf("s length: %q", s)
		}
		if r.Values[7] == nil {
			nulls++
		}
	}
	if nulls < 2000 || nulls > 3000 {
		t.Fatalf("null-rate 0.5 gave %d nulls of 5000", nulls)
	}
	// Stop after 2048 rows, restore from the snapshot: the rest continues
	// the same sequence with the same random values.
	first, st := readAll(t, src, 0, 1, nil, 2048)
	rest, _ := readAll(t, src, 0, 1, st, -1)
	got := append(first, rest...)
	for i := range got {
		got[i].Values[5], all[i].Values[5] = nil, nil // timestamps are "now"
	}
	if !reflect.DeepEqual(got, all) {
		t.Fatal("restored run differs from an uninterrupted one")
	}
	// Two subtasks split the sequence without overlap.
	a, _ := readAll(t, src, 0, 2, nil, -1)
	b, _ := readAll(t, src, 1, 2, nil, -1)
	if len(a)+len(b) != 5000 || a[0].Values[0] != int64(10) || b[0].Values[0] != int64(11) {
		t.Fatalf("split: %d + %d", len(a), len(b))
	}
}

func TestNumberOfRowsAndRate(t *testing.T) {
	src := source(t, map[string]string{"number-of-rows": "30", "rows-per-second": "1000"})
	if !src.Bounded() {
		t.Fatal("number-of-rows makes datagen bounded")
	}
	rows, _ := readAll(t, src, 0, 1, nil, -1)
	if len(rows) != 30 {
		t.Fatalf("got %d rows", len(rows))
	}
	if source(t, map[string]string{}).Bounded() {
		t.Fatal("plain datagen is unbounded")
	}
}

func TestValidation(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"fields.id.kind": "sequence", "fields.id.start": "1"}, "Could not find required property 'fields.id.end' for sequence generator."},
		{map[string]string{"fields.nope.kind": "random"}, "Unsupported options found for 'datagen'."},
		{map[string]string{"fields.id.kind": "zigzag"}, "Unsupported generator kind: zigzag"},
		{map[string]string{"rows-per-second": "fast"}, "Could not parse value 'fast' for key 'rows-per-second'."},
	} {
		_, err := Factory{}.CreateSource(&connectors.Context{Schema: schema, Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.opts, err, c.want)
		}
	}
}

func TestBoxing(t *testing.T) {
	var a any
	v := int64(1 << 40)
	box.Set(&a, int64Type, unsafe.Pointer(&v))
	if x, ok := a.(int64); !ok || x != 1<<40 || a != any(int64(1<<40)) {
		t.Fatalf("boxed %v (%T)", a, a)
	}
}

// TestBoxString: strings boxed with their header in the same allocation
// as their bytes survive garbage collections, whether the interface or
// only a substring keeps them alive.
func TestBoxString(t *testing.T) {
	f := &field{typ: sql.String(), length: 40}
	const n = 20000
	vals := make([]any, n)
	for i := range vals {
		vals[i] = f.randHex(uint64(i))
	}
	subs := map[int]string{}
	for i := 0; i < n; i += 2 {
		subs[i] = vals[i].(string)[3:20]
		vals[i] = nil
	}
	for range 3 {
		runtime.GC()
		garbage := make([][]byte, 1000)
		for k := range garbage {
			garbage[k] = make([]byte, 64)
		}
	}
	for i := range vals {
		want := f.randHex(uint64(i)).(string)
		if len(want) != 40 || strings.Trim(want, hexDigits) != "" {
			t.Fatalf("%d: fresh value %q", i, want)
		}
		if i%2 == 0 {
			if subs[i] != want[3:20] {
				t.Fatalf("%d: substring %q, want %q", i, subs[i], want[3:20])
			}
		} else if vals[i].(string) != want {
			t.Fatalf("%d: %q, want %q", i, vals[i], want)
		}
	}
}
