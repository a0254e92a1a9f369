package box

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestBoxedValuesActAsConverted: values boxed from a slab and from a
// string header compare equal to converted ones, convert back, and survive
// collections once nothing else refers to their memory.
func TestBoxedValuesActAsConverted(t *testing.T) {
	ints := make([]int64, 3)
	vals := make([]any, 3)
	typInt64 := TypeOf(int64(0))
	for i := range ints {
		ints[i] = int64(i) * 1000003
		vals[i] = At(typInt64, unsafe.Pointer(&ints[i]))
	}
	strs := []string{"hello", "boxed"}
	typString := TypeOf("")
	var s any
	Set(&s, typString, unsafe.Pointer(&strs[1]))
	ints, strs = nil, nil
	runtime.GC()
	runtime.GC()
	for i, v := range vals {
		if v != any(int64(i)*1000003) || v.(int64) != int64(i)*1000003 {
			t.Fatalf("value %d: %v", i, v)
		}
	}
	if s != any("boxed") || s.(string) != "boxed" {
		t.Fatalf("string: %v", s)
	}
	if Data(&s) == nil {
		t.Fatal("data word of a boxed string is nil")
	}
}

// TestCompact: a compacted row equals the original, its strings no longer
// share memory with the originals, and it survives collections.
func TestCompact(t *testing.T) {
	page := []byte("hello world, a page of strings")
	src := []any{unsafe.String(&page[0], 5), int64(7), nil, "", unsafe.String(&page[6], 5), []byte("b")}
	got := Compact(src)
	page = nil
	runtime.GC()
	runtime.GC()
	want := []any{"hello", int64(7), nil, "", "world", []byte("b")}
	for i := range want {
		switch w := want[i].(type) {
		case []byte:
			if string(got[i].([]byte)) != string(w) {
				t.Fatalf("value %d: %v", i, got[i])
			}
		default:
			if got[i] != w {
				t.Fatalf("value %d: got %#v want %#v", i, got[i], w)
			}
		}
	}
	s := got[0].(string)
	if unsafe.StringData(s) == unsafe.StringData(src[0].(string)) {
		t.Fatal("compacted string still points into the page")
	}
	if len(Compact(nil)) != 0 {
		t.Fatal("Compact(nil)")
	}
}
