package binrow

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/sql"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWorkedExamples checks the byte-exact examples of paimon-format.md §5.
func TestWorkedExamples(t *testing.T) {
	str104 := strings.Repeat("x", 104)
	cases := []struct {
		name  string
		types []sql.DataType
		vals  []any
		hex   string
	}{
		{"bigint", []sql.DataType{sql.BigInt()}, []any{int64(1001)},
			"00000001 | 0000000000000000 | e903000000000000"},
		{"int-abc", []sql.DataType{sql.Int(), sql.String()}, []any{int32(1), "abc"},
			"00000002 | 0000000000000000 | 0100000000000000 | 6162630000000083"},
		{"int-null", []sql.DataType{sql.Int(), sql.String()}, []any{int32(7), nil},
			"00000002 | 0002000000000000 | 0700000000000000 | 0000000000000000"},
		{"hello", []sql.DataType{sql.String()}, []any{"hello paimon!"},
			"00000001 | 0000000000000000 | 0d00000010000000 | 68656c6c6f207061696d6f6e21000000"},
		{"str104", []sql.DataType{sql.String(), sql.Int()}, []any{str104, int32(1)},
			"00000002 | 0000000000000000 | 6800000018000000 | 0100000000000000 | " + hex.EncodeToString([]byte(str104))},
		{"ts6", []sql.DataType{sql.Timestamp(6)}, []any{sql.TimestampData{Millis: 0, NanoOfMilli: 1000}},
			"00000001 | 0000000000000000 | e803000010000000 | 0000000000000000"},
		{"empty", nil, nil, "00000000 | 0000000000000000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Serialize(c.types, c.vals)
			if err != nil {
				t.Fatal(err)
			}
			want := mustHex(t, c.hex)
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got, want)
			}
			back, err := Deserialize(c.types, got)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.vals) > 0 && !reflect.DeepEqual(back, c.vals) {
				t.Fatalf("round trip %v != %v", back, c.vals)
			}
		})
	}
	if !bytes.Equal(EmptyRow(), mustHex(t, "000000000000000000000000")) {
		t.Fatal("EmptyRow")
	}
}

// TestTimestampOffset72 is the worked example with offset 72: a TIMESTAMP(6)
// after 7 other fields (fixed part 8 + 8*8 = 72).
func TestTimestampOffset72(t *testing.T) {
	types := []sql.DataType{sql.Int(), sql.Int(), sql.Int(), sql.Int(), sql.Int(), sql.Int(), sql.Int(), sql.Timestamp(6)}
	vals := []any{nil, nil, nil, nil, nil, nil, nil, sql.TimestampData{NanoOfMilli: 1000}}
	b, err := Encode(types, vals)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b[8+7*8 : 8+8*8]); got != "e803000048000000" {
		t.Fatalf("slot %s", got)
	}
	if len(b) != 80 {
		t.Fatalf("len %d", len(b))
	}
}

func TestNullNonCompact(t *testing.T) {
	types := []sql.DataType{sql.Decimal(38, 2), sql.Timestamp(9), sql.Decimal(10, 2), sql.Timestamp(3)}
	b, err := Encode(types, []any{nil, nil, nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := mustHex(t, "000f000000000000"+ // bits 8..11 of byte 1
		"0000000028000000"+ // decimal: offset 40 << 32
		"0000000038000000"+ // timestamp: offset 56 << 32
		"0000000000000000"+"0000000000000000"+
		strings.Repeat("00", 24))
	if !bytes.Equal(b, want) {
		t.Fatalf("got  %x\nwant %x", b, want)
	}
	back, err := Decode(types, b)
	if err != nil || !reflect.DeepEqual(back, []any{nil, nil, nil, nil}) {
		t.Fatalf("%v %v", back, err)
	}
}

func TestAllTypesRoundTrip(t *testing.T) {
	types := []sql.DataType{sql.Boolean(), sql.TinyInt(), sql.SmallInt(), sql.Int(), sql.BigInt(), sql.Float(), sql.Double(),
		sql.Decimal(10, 2), sql.Decimal(38, 4), sql.Decimal(20, 0), sql.String(), sql.Char(3), sql.Bytes(), sql.Binary(9), sql.Date(), sql.Time(3),
		sql.Timestamp(3), sql.Timestamp(9), sql.TimestampLTZ(6), sql.RowOf(sql.Field{Name: "a", Type: sql.Int()}, sql.Field{Name: "b", Type: sql.String()})}
	vals := []any{true, int8(-3), int16(-300), int32(-70000), int64(-1) << 40, float32(1.5), 2.25,
		decimal.New(-12345, -2), decimal.RequireFromString("-123456789012345678901234.5678"), decimal.RequireFromString("-1"), "ünïcode and long", "abc", []byte{1, 2, 3}, []byte("123456789"), int32(19000), int32(3600_000),
		sql.TimestampData{Millis: -5}, sql.TimestampData{Millis: 1700000000123, NanoOfMilli: 456789}, sql.TimestampData{Millis: 1, NanoOfMilli: 999000}, []any{int32(5), "nested string!"}}
	b, err := Serialize(types, vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(b)%8 != 4 {
		t.Fatalf("row not word aligned: %d", len(b))
	}
	back, err := Deserialize(types, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		if d, ok := vals[i].(decimal.Decimal); ok {
			if !d.Equal(back[i].(decimal.Decimal)) {
				t.Errorf("field %d: %v != %v", i, back[i], vals[i])
			}
			continue
		}
		if !reflect.DeepEqual(back[i], vals[i]) {
			t.Errorf("field %d: %#v != %#v", i, back[i], vals[i])
		}
	}
	// Non-compact decimal bytes are BigInteger.toByteArray(): -1 is 0xff.
	one, _ := Encode([]sql.DataType{sql.Decimal(20, 0)}, []any{decimal.New(-1, 0)})
	if got := hex.EncodeToString(one[8:]); got != "0100000010000000"+"ff000000000000000000000000000000" {
		t.Fatalf("decimal(20,0) -1: %s", got)
	}
	v128, _ := Encode([]sql.DataType{sql.Decimal(20, 0)}, []any{decimal.New(128, 0)})
	if got := hex.EncodeToString(v128[16:18]); got != "0080" {
		t.Fatalf("decimal 128 bytes %s", got)
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := Encode([]sql.DataType{sql.Int()}, []any{int64(1)}); err == nil || !strings.Contains(err.Error(), "field 0 (INT)") {
		t.Fatalf("wrong Go type: %v", err)
	}
	if _, err := Encode([]sql.DataType{sql.Decimal(5, 0)}, []any{decimal.RequireFromString("1e30")}); err == nil {
		t.Fatal("overflowing compact decimal accepted")
	}
	if _, err := Deserialize([]sql.DataType{sql.Int()}, []byte{0, 0, 0, 1, 0}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("short row: %v", err)
	}
	if _, err := Deserialize([]sql.DataType{sql.Int(), sql.Int()}, EmptyRow()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("arity mismatch: %v", err)
	}
}

// TestBucketVectors are the §5 vectors (verified against Java-written files).
func TestBucketVectors(t *testing.T) {
	one, _ := Encode([]sql.DataType{sql.Int()}, []any{int32(1)})
	zero, _ := Encode([]sql.DataType{sql.Int()}, []any{int32(0)})
	if h := Hash(one); h != 1465514398 {
		t.Fatalf("hash(1) = %d", h)
	}
	if h := Hash(zero); h != -300363099 {
		t.Fatalf("hash(0) = %d", h)
	}
	if Bucket(one, 4) != 2 || Bucket(one, 2) != 0 || Bucket(zero, 2) != 1 {
		t.Fatalf("buckets %d %d %d", Bucket(one, 4), Bucket(one, 2), Bucket(zero, 2))
	}
	for i := int32(-50); i < 50; i++ {
		r, _ := Encode([]sql.DataType{sql.Int()}, []any{i})
		if b := Bucket(r, 3); b < 0 || b >= 3 {
			t.Fatalf("bucket out of range: %d", b)
		}
	}
}

func TestPartitionPath(t *testing.T) {
	cases := []struct {
		names  []string
		types  []sql.DataType
		vals   []any
		legacy bool
		want   string
	}{
		{[]string{"f1"}, []sql.DataType{sql.Int()}, []any{int32(10)}, true, "f1=10/"},
		{[]string{"key0", "key1"}, []sql.DataType{sql.Int(), sql.Int()}, []any{int32(0), int32(1)}, true, "key0=0/key1=1/"},
		{[]string{"dt"}, []sql.DataType{sql.Date()}, []any{int32(19723)}, true, "dt=19723/"},
		{[]string{"dt"}, []sql.DataType{sql.Date()}, []any{int32(19723)}, false, "dt=2024-01-01/"},
		{[]string{"s"}, []sql.DataType{sql.String()}, []any{nil}, true, "s=__DEFAULT_PARTITION__/"},
		{[]string{"s"}, []sql.DataType{sql.String()}, []any{"  "}, true, "s=__DEFAULT_PARTITION__/"},
		{[]string{"s"}, []sql.DataType{sql.String()}, []any{"a/b:c=d%e#f?g*h'i\"j\\k{l}m[n]o^p\x01q\x7fr é"}, true,
			"s=a%2Fb%3Ac%3Dd%25e%23f%3Fg%2Ah%27i%22j%5Ck%7Bl%7Dm%5Bn%5Do%5Ep%01q%7Fr é/"},
		{[]string{"a=b"}, []sql.DataType{sql.Boolean()}, []any{true}, true, "a%3Db=true/"},
		{[]string{"d"}, []sql.DataType{sql.Decimal(10, 2)}, []any{decimal.New(1, 0)}, true, "d=1.00/"},
		{[]string{"ts"}, []sql.DataType{sql.Timestamp(3)}, []any{sql.TimestampData{Millis: 1704103200000}}, true, "ts=2024-01-01T10%3A00/"},
		{nil, nil, nil, true, ""},
	}
	for _, c := range cases {
		got, err := PartitionPath(c.names, c.types, c.vals, "", c.legacy)
		if err != nil || got != c.want {
			t.Errorf("PartitionPath(%v) = %q, %v; want %q", c.vals, got, err, c.want)
		}
	}
}

// TestArrayMap covers BinaryArray/BinaryMap (nested values in the var part).
func TestArrayMap(t *testing.T) {
	arr, err := EncodeArray(sql.Int(), []any{int32(1), int32(2), int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	// count | null bits (1 word) | 3 ints | pad to 8
	if got := hex.EncodeToString(arr); got != "03000000"+"00000000"+"010000000200000003000000"+"00000000" {
		t.Fatalf("int array %s", got)
	}
	withNull, _ := EncodeArray(sql.String(), []any{"a", nil, "a longer string"})
	if withNull[4] != 0x02 {
		t.Fatalf("null bit: %x", withNull)
	}
	types := []sql.DataType{sql.ArrayOf(sql.String()), sql.MapOf(sql.String(), sql.BigInt()), sql.ArrayOf(sql.Decimal(20, 2)),
		sql.ArrayOf(sql.Boolean()), sql.ArrayOf(sql.SmallInt()), sql.ArrayOf(sql.ArrayOf(sql.Int())), sql.ArrayOf(sql.Timestamp(9))}
	vals := []any{[]any{"x", nil, "a string of more than 7"}, &sql.Map{Keys: []any{"k", "key two"}, Values: []any{int64(1), nil}},
		[]any{decimal.New(-5, -2), nil}, []any{true, false, nil, true}, []any{int16(-1), int16(2), int16(3)},
		[]any{[]any{int32(1)}, []any{}, nil}, []any{sql.TimestampData{Millis: 1, NanoOfMilli: 2}, nil}}
	b, err := Serialize(types, vals)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Deserialize(types, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		want := vals[i]
		if i == 2 { // decimals compare by value
			got := back[i].([]any)
			if !got[0].(decimal.Decimal).Equal(decimal.New(-5, -2)) || got[1] != nil {
				t.Fatalf("decimal array %v", got)
			}
			continue
		}
		if !reflect.DeepEqual(back[i], want) {
			t.Fatalf("field %d: %#v != %#v", i, back[i], want)
		}
	}
}
