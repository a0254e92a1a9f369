package binrow

import (
	"encoding/binary"
	"math/bits"
)

// HashSeed is the seed of Paimon's MurmurHashUtils (DEFAULT_SEED).
const HashSeed = 42

// Hash is BinaryRow.hashCode(): Murmur3-32 over the row's bytes taken as
// little-endian 4-byte words (hashBytesByWords), seed 42. BinaryRow sizes are
// multiples of 8, so there is never a tail; a stray tail is ignored, as Java
// would only ever see whole words.
func Hash(row []byte) int32 {
	h := uint32(HashSeed)
	n := len(row) &^ 3
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(row[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// Bucket is DefaultBucketFunction: abs(hash % numBuckets) with Java's
// truncated remainder. row is the BinaryRow (no arity prefix) of the bucket
// key fields: option bucket-key in its listed order, else the trimmed
// primary key.
func Bucket(row []byte, numBuckets int) int {
	r := Hash(row) % int32(numBuckets)
	if r < 0 {
		r = -r
	}
	return int(r)
}
