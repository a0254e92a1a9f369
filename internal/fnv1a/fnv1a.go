// Package fnv1a is the 32-bit FNV-1a hash, the one copy the runtime's hash
// exchange, its key ownership on rescale, the Paimon bucket routing and the
// filesystem source's file assignment share. It is hash/fnv's New32a
// without the interface, so it inlines and hashing a row allocates nothing.
package fnv1a

const (
	offset32 = 2166136261
	prime32  = 16777619
)

// Sum32 is FNV-1a of b.
func Sum32(b []byte) uint32 {
	h := uint32(offset32)
	for _, c := range b {
		h ^= uint32(c)
		h *= prime32
	}
	return h
}

// Sum32String is FNV-1a of s, without converting it to bytes.
func Sum32String(s string) uint32 {
	h := uint32(offset32)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= prime32
	}
	return h
}
