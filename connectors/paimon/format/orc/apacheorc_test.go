package orc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestApacheORCExamples reads ORC files written by Apache ORC's Java
// writer (apache/orc examples/, see testdata/README.md) and compares every
// row with the JSON that the project keeps beside each file
// (examples/expected/*.jsn.gz): zlib, snappy, lz4 and uncompressed
// streams, RLE v1 (0.11 files) and v2, every primitive type, decimals,
// timestamps and dates before 1900, lists, maps and structs.
func TestApacheORCExamples(t *testing.T) {
	for _, name := range []string{"TestOrcFile.test1", "TestOrcFile.testTimestamp", "decimal", "TestOrcFile.testSnappy",
		"TestVectorOrcFile.testLz4", "TestOrcFile.testDate1900", "over1k_bloom"} {
		t.Run(name, func(t *testing.T) {
			f := openFile(t, filepath.Join("testdata", "apache-orc", name+".orc"))
			exp := expectedRows(t, filepath.Join("testdata", "apache-orc", name+".jsn.gz"))
			root := f.Schema()
			cols := make([]int, len(root.Children))
			for i := range cols {
				cols[i] = i
			}
			row := 0
			for s := 0; s < f.NumStripes(); s++ {
				out, n, err := f.ReadStripe(s, cols)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < n; r++ {
					if row >= len(exp) {
						t.Fatalf("more rows than the %d expected", len(exp))
					}
					vals := make([]any, len(cols))
					for i := range cols {
						vals[i] = out[i][r]
					}
					// A file whose root is not a struct is shown as its
					// one column.
					ty, got := root, any(vals)
					if root.ID < 0 {
						ty, got = root.Children[0], vals[0]
					}
					if err := same(ty, got, exp[row]); err != nil {
						t.Fatalf("row %d: %v", row, err)
					}
					row++
				}
			}
			if row != len(exp) || int64(row) != f.NumRows() {
				t.Fatalf("%d rows, %d expected, footer %d", row, len(exp), f.NumRows())
			}
		})
	}
}

func openFile(t *testing.T, p string) *File {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return f
}

func expectedRows(t *testing.T, p string) []any {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// same compares a decoded value with the JSON value the ORC tools print.
func same(ty *Type, got, want any) error {
	if want == nil || got == nil {
		if want == nil && got == nil {
			return nil
		}
		return fmt.Errorf("%s: got %v, want %v", ty, got, want)
	}
	num := func() (json.Number, error) {
		n, ok := want.(json.Number)
		if !ok {
			return "", fmt.Errorf("%s: want %v is not a number", ty, want)
		}
		return n, nil
	}
	switch ty.Kind {
	case Struct:
		m, ok := want.(map[string]any)
		vs := got.([]any)
		if !ok || len(m) != len(vs) {
			return fmt.Errorf("struct %v vs %v", got, want)
		}
		for i, n := range ty.FieldNames {
			if err := same(ty.Children[i], vs[i], m[n]); err != nil {
				return fmt.Errorf("%s.%w", n, err)
			}
		}
		return nil
	case List:
		a, ok := want.([]any)
		vs := got.([]any)
		if !ok || len(a) != len(vs) {
			return fmt.Errorf("list %v vs %v", got, want)
		}
		for i := range vs {
			if err := same(ty.Children[0], vs[i], a[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case Map:
		a, ok := want.([]any)
		mv := got.(MapValue)
		if !ok || len(a) != len(mv.Keys) {
			return fmt.Errorf("map %v vs %v", got, want)
		}
		for i := range a {
			e := a[i].(map[string]any)
			if err := same(ty.Children[0], mv.Keys[i], e["key"]); err != nil {
				return err
			}
			if err := same(ty.Children[1], mv.Values[i], e["value"]); err != nil {
				return err
			}
		}
		return nil
	case Boolean:
		if got != want {
			return fmt.Errorf("bool %v vs %v", got, want)
		}
		return nil
	case Byte, Short, Int, Long, Date:
		if ty.Kind == Date {
			d := time.Unix(int64(got.(int32))*86400, 0).UTC().Format("2006-01-02")
			if d != want {
				return fmt.Errorf("date %s vs %v", d, want)
			}
			return nil
		}
		n, err := num()
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != n.String() {
			return fmt.Errorf("%s %v vs %v", ty, got, n)
		}
		return nil
	case Float, Double:
		n, err := num()
		if err != nil {
			return err
		}
		w, _ := strconv.ParseFloat(n.String(), 64)
		var g float64
		if ty.Kind == Float {
			g = float64(got.(float32))
			if float32(w) == got.(float32) {
				return nil
			}
		} else {
			g = got.(float64)
		}
		if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			return fmt.Errorf("%s %v vs %v", ty, g, w)
		}
		return nil
	case String, Varchar, Char:
		if got != want {
			return fmt.Errorf("string %q vs %v", got, want)
		}
		return nil
	case Binary:
		a, _ := want.([]any)
		b := got.([]byte)
		if len(a) != len(b) {
			return fmt.Errorf("binary %v vs %v", b, want)
		}
		for i := range b {
			if a[i].(json.Number).String() != strconv.Itoa(int(b[i])) {
				return fmt.Errorf("binary %v vs %v", b, want)
			}
		}
		return nil
	case Decimal:
		n, err := num()
		if err != nil {
			return err
		}
		w, err := decimal.NewFromString(n.String())
		if err != nil || !w.Equal(got.(decimal.Decimal)) {
			return fmt.Errorf("decimal %v vs %v", got, n)
		}
		return nil
	case Timestamp, TimestampInstant:
		ts := got.(TS)
		s := time.Unix(ts.Wall, 0).UTC().Format("2006-01-02 15:04:05")
		frac := strings.TrimRight(fmt.Sprintf("%09d", ts.Nano), "0")
		if frac == "" {
			frac = "0"
		}
		if s+"."+frac != want {
			return fmt.Errorf("timestamp %s.%s vs %v", s, frac, want)
		}
		return nil
	}
	return errors.New("kind not compared")
}
