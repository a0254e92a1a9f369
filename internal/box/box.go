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
