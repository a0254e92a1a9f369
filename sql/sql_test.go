package sql

import (
	"errors"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"
)

func TestRowKindBytesMatchPaimon(t *testing.T) {
	for k, want := range map[RowKind]byte{Insert: 0, UpdateBefore: 1, UpdateAfter: 2, Delete: 3} {
		if byte(k) != want {
			t.Errorf("%s = %d, want %d", k, k, want)
		}
	}
	if !Insert.IsAdd() || !UpdateAfter.IsAdd() || UpdateBefore.IsAdd() || Delete.IsAdd() {
		t.Error("IsAdd wrong")
	}
	if !UpdateBefore.IsRetract() || !Delete.IsRetract() || Insert.IsRetract() {
		t.Error("IsRetract wrong")
	}
}

func TestChangelogModeString(t *testing.T) {
	cases := map[ChangelogMode]string{InsertOnly: "I", Upsert: "I,UA,D", All: "I,UB,UA,D", NoChanges: "NONE"}
	for m, want := range cases {
		if m.String() != want {
			t.Errorf("got %q want %q", m, want)
		}
		if m == NoChanges {
			continue
		}
		back, err := ParseChangelogMode(want)
		if err != nil || back != m {
			t.Errorf("parse %q = %v, %v", want, back, err)
		}
	}
	if !Upsert.IsUpsert() || All.IsUpsert() {
		t.Error("IsUpsert wrong")
	}
}

func TestTypeStrings(t *testing.T) {
	cases := map[string]DataType{
		"INT NOT NULL":                  Int().NotNull(),
		"STRING":                        String(),
		"VARCHAR(10)":                   VarChar(10),
		"BYTES":                         Bytes(),
		"DECIMAL(10, 2)":                Decimal(10, 2),
		"TIMESTAMP_LTZ(3)":              TimestampLTZ(3),
		"ARRAY<INT>":                    ArrayOf(Int()),
		"MAP<STRING, BIGINT>":           MapOf(String(), BigInt()),
		"ROW<`a` INT, `b` STRING>":      RowOf(Field{Name: "a", Type: Int()}, Field{Name: "b", Type: String()}),
		"TIMESTAMP(6) NOT NULL":         Timestamp(6).NotNull(),
		"ARRAY<DECIMAL(5, 1)> NOT NULL": ArrayOf(Decimal(5, 1)).NotNull(),
	}
	for want, ty := range cases {
		if got := ty.String(); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
}

func TestFormatRowAsFlinkPrints(t *testing.T) {
	r := Row{Kind: UpdateBefore, Values: []any{int64(1001), decimal.RequireFromString("80"), "CREATED", nil}}
	got := FormatRow(r, []DataType{BigInt(), Decimal(10, 2), String(), Int()})
	if want := "-U[1001, 80.00, CREATED, null]"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	ts := TimestampData{Millis: 1704103200000}
	if got := FormatValue(ts, Timestamp(3)); got != "2024-01-01T10:00" {
		t.Errorf("timestamp: %q", got)
	}
	if got := FormatValue(int32(19723), Date()); got != "2024-01-01" {
		t.Errorf("date: %q", got)
	}
	// Java's Double.toString / Float.toString: no padded exponent.
	for _, c := range []struct {
		v    any
		t    DataType
		want string
	}{
		{1.5e10, Double(), "1.5E10"},
		{1.2e7, Double(), "1.2E7"},
		{1e7, Double(), "1.0E7"},
		{9.41763956307657e-4, Double(), "9.41763956307657E-4"},
		{-2.5e-10, Double(), "-2.5E-10"},
		{1.5e300, Double(), "1.5E300"},
		{0.001, Double(), "0.001"},
		{float32(1e-5), Float(), "1.0E-5"},
	} {
		if got := FormatValue(c.v, c.t); got != c.want {
			t.Errorf("FormatValue(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	// Calcite's double literals and costs: always scientific.
	if got := JavaScientific(1.5, 64); got != "1.5E0" {
		t.Errorf("JavaScientific(1.5) = %q, want 1.5E0", got)
	}
}

func TestCorruptMatchesOneMarker(t *testing.T) {
	err := fmt.Errorf("state of op in dir: %w", Corrupt("state: corrupt encoding"))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("errors.Is(%v, ErrCorrupt) = false", err)
	}
	if got := err.Error(); got != "state of op in dir: state: corrupt encoding" {
		t.Fatalf("message %q: Corrupt must keep its own text", got)
	}
	if errors.Is(errors.New("state: corrupt encoding"), ErrCorrupt) {
		t.Fatal("a plain error matched sql.ErrCorrupt")
	}
}

// TestDecoderSkip: Skip moves past exactly the bytes Value reads, for
// every tag, and a truncated value is a corruption error (the merge tree's
// lookup index skips the non-key part of its records).
func TestDecoderSkip(t *testing.T) {
	vals := []any{nil, true, false, int8(-8), int16(300), int32(-70000), int64(-1 << 50), float32(1.5), -2.25,
		decimal.RequireFromString("-80.00"), "héllo", []byte{0, 255}, TimestampData{Millis: -5, NanoOfMilli: 999},
		[]any{int32(1), nil, []any{"x"}}, &Map{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}}
	var e Encoder
	if err := e.Values(vals); err != nil {
		t.Fatal(err)
	}
	d := &Decoder{Buf: e.Buf}
	if err := d.SkipValues(); err != nil || !d.Done() {
		t.Fatalf("SkipValues: %v, at %d of %d", err, d.Off, len(e.Buf))
	}
	for _, v := range vals {
		var one Encoder
		if err := one.Value(v); err != nil {
			t.Fatal(err)
		}
		d := &Decoder{Buf: append(one.Buf, 0xAA)}
		if err := d.Skip(); err != nil || d.Off != len(one.Buf) {
			t.Errorf("Skip %T(%v): %v, moved %d bytes, want %d", v, v, err, d.Off, len(one.Buf))
		}
		for cut := 0; cut < len(one.Buf); cut++ {
			if cut == 0 || one.Buf[0] > tagTrue {
				if err := (&Decoder{Buf: one.Buf[:cut]}).Skip(); !errors.Is(err, ErrCorrupt) {
					t.Errorf("Skip %T(%v) cut at %d: %v, want a corruption error", v, v, cut, err)
				}
			}
		}
	}
	if err := (&Decoder{Buf: []byte{200}}).Skip(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unknown tag: %v", err)
	}
}
