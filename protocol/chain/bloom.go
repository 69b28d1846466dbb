package chain

import "hash/fnv"

// ChainReaction's bloom filters (chainreaction.txt §4.1.2): a put's reply
// filter holds its key, its dependency filter the OR of the keys it
// depends on. The paper sizes them for 10% false positives: 163 bits, for
// ≈34 elements with 3 hash functions. Filters hold keys, not (key,
// version) pairs: a dependency on any version of a key then waits for
// every queued put of that key, which stays correct when a newer version
// of the key stands in for the one depended on (see doc.go).
const (
	filterBits   = 163
	filterHashes = 3
	filterBytes  = (filterBits + 7) / 8
)

// NewFilter returns an empty filter.
func NewFilter() []byte { return make([]byte, filterBytes) }

// FullFilter returns a filter with every bit set: it contains every
// other filter (a put whose dependencies are unknown).
func FullFilter() []byte {
	f := NewFilter()
	for i := range f {
		f[i] = 0xff
	}
	return f
}

// FilterAdd adds key to filter f (of NewFilter's size).
func FilterAdd(f []byte, key string) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	x := h.Sum64()
	a, b := uint32(x), uint32(x>>32)|1
	for i := uint32(0); i < filterHashes; i++ {
		bit := (a + i*b) % filterBits
		f[bit/8] |= 1 << (bit % 8)
	}
}

// KeyFilter is the reply filter of a put of key.
func KeyFilter(key string) []byte {
	f := NewFilter()
	FilterAdd(f, key)
	return f
}

// FilterContains says whether every bit of g is set in f: whether a put
// with dependency filter f may depend on the put with reply filter g
// (always, when f is not a filter).
func FilterContains(f, g []byte) bool {
	if len(f) != filterBytes || len(g) != filterBytes {
		return len(g) > 0 && len(f) > 0
	}
	for i := range g {
		if g[i]&^f[i] != 0 {
			return false
		}
	}
	return true
}
