package datagen

import (
	"unsafe"

	"github.com/shopspring/decimal"

	"github.com/sqlrun/sqlrun/internal/box"
	"github.com/sqlrun/sqlrun/sql"
)

// Boxing fast path. Storing an int64 in an `any` allocates 8 bytes per
// value, which dominated datagen's cost (3 allocations per generated row in
// the benchmark). Instead a batch allocates one typed slice per numeric,
// DECIMAL, DATE/TIME or TIMESTAMP column and the interface words point
// into it: one allocation per column per batch. The price: a value kept
// long after its batch (e.g. in operator state) keeps its column's whole
// batch slice alive, at most 16 KiB. The values are never written after boxing, so sharing the
// backing array is safe; the GC keeps the array alive through the interior
// pointers. This relies on the runtime's two-word interface layout (type
// word, data word), which has been stable since Go 1.4; TestBoxing checks
// that the boxed values read back as the plain conversions do.

var (
	int8Type    = box.TypeOf(int8(0))
	int16Type   = box.TypeOf(int16(0))
	int32Type   = box.TypeOf(int32(0))
	int64Type   = box.TypeOf(int64(0))
	float32Type = box.TypeOf(float32(0))
	float64Type = box.TypeOf(float64(0))
	// decimalType and timestampType: DECIMAL and TIMESTAMP values are
	// 16-byte structs, boxed from typed slices like the numbers.
	decimalType   = box.TypeOf(decimal.Decimal{})
	timestampType = box.TypeOf(sql.TimestampData{})
	stringType    = box.TypeOf("")
)

// boxString returns a string of n (> 0) bytes boxed in an interface, and
// those bytes to fill before the value is used. Boxing a string normally
// takes two allocations, its bytes and the 16-byte header the interface
// points to; here both share one: [header | bytes], the header pointing
// just past itself. The object is allocated as bytes (not scanned by the
// GC), which is safe because the header's only pointer is into the same
// object: whatever keeps the header or any substring alive keeps it all.
// The runtime never moves heap objects. TestBoxString checks that values
// survive collections.
func boxString(n int) (any, []byte) {
	const hdr = int(unsafe.Sizeof(""))
	buf := make([]byte, hdr+n) // >= 17 bytes: not the tiny allocator, 8-byte aligned
	data := buf[hdr:]
	p := (*string)(unsafe.Pointer(&buf[0]))
	*p = unsafe.String(&data[0], n)
	return box.At(stringType, unsafe.Pointer(p)), data
}
