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
