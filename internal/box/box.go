// Package box makes interface values whose data word points at memory the
// caller provides, instead of the heap allocation a conversion to any makes
// for every value that is not pointer-shaped (strings, most integers,
// structs).
//
// Readers and generators that produce millions of values use it to box a
// whole batch from one typed slice, or a string's header from an arena.
// The contract, which makes it safe:
//
//   - the memory a value points at is written before the value is made and
//     never again, so the value is as immutable as a converted one;
//   - it lives in the Go heap: the garbage collector follows the data word
//     (an interior pointer is enough, and heap objects never move), so the
//     memory stays alive as long as any value points into it.
//
// It relies on the runtime's two-word interface layout (type word, data
// word), unchanged since Go 1.4; the tests check that boxed values compare
// and convert as converted ones and survive collections.
package box

import "unsafe"

// eface is the runtime layout of an interface value.
type eface struct{ typ, data unsafe.Pointer }

// TypeOf is the type word of x's dynamic type, for At.
func TypeOf(x any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&x)).typ }

// At returns an interface of dynamic type typ (from TypeOf) whose value is
// at p.
func At(typ, p unsafe.Pointer) any {
	var x any
	Set(&x, typ, p)
	return x
}

// Set makes *dst an interface of dynamic type typ whose value is at p.
func Set(dst *any, typ, p unsafe.Pointer) {
	e := (*eface)(unsafe.Pointer(dst))
	e.typ, e.data = typ, p
}

// Data is the data word of the interface at v: where its value is (or the
// value itself for pointer-shaped types). Prefetching uses it.
func Data(v *any) unsafe.Pointer { return (*eface)(unsafe.Pointer(v)).data }

// Compact returns a copy of vals whose non-empty strings live together in
// one new allocation, each header next to its bytes. Readers point strings
// into the memory they decoded them from (a Parquet page, a batch), which
// a string kept for long would pin whole; operator state keeps rows for
// long, so it stores them compacted: a row then holds its own bytes and
// nothing else. The allocation holds no pointers the collector must follow
// (each header points into the same allocation, see the package doc).
func Compact(vals []any) []any {
	const hdr = int(unsafe.Sizeof(""))
	size := 0
	for _, v := range vals {
		if s, ok := v.(string); ok && len(s) > 0 {
			size += hdr + (len(s)+7)&^7 // headers stay word aligned
		}
	}
	out := make([]any, len(vals))
	copy(out, vals)
	if size == 0 {
		return out
	}
	buf := make([]byte, size)
	off := 0
	for i, v := range vals {
		s, ok := v.(string)
		if !ok || len(s) == 0 {
			continue
		}
		data := buf[off+hdr : off+hdr+len(s)]
		copy(data, s)
		h := (*string)(unsafe.Pointer(&buf[off]))
		*h = unsafe.String(&data[0], len(s))
		Set(&out[i], typString, unsafe.Pointer(h))
		off += hdr + (len(s)+7)&^7
	}
	return out
}

var typString = TypeOf("")
