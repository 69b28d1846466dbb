package storage

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeyEncoding checks the properties the Pebble engine relies on: the
// encoding round-trips, orders by (key ascending, version descending), and
// an escaped prefix is a byte prefix of exactly the encodings of the keys
// that have that prefix.
func TestKeyEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	alphabet := []byte{0x00, 0x01, 0x02, 'a', 0xFE, 0xFF}
	randKey := func() string {
		b := make([]byte, rng.IntN(5))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	versions := []Version{0, 1, 2, 1 << 32, 1<<64 - 2, 1<<64 - 1}
	for range 20000 {
		k1, k2 := randKey(), randKey()
		v1, v2 := versions[rng.IntN(len(versions))], versions[rng.IntN(len(versions))]
		e1 := appendVersion(encodeKeyPrefix(nil, k1), v1)
		e2 := appendVersion(encodeKeyPrefix(nil, k2), v2)

		if k, v, err := decodeKey(e1); err != nil || k != k1 || v != v1 {
			t.Fatalf("decodeKey(encode(%q, %d)) = %q, %d, %v", k1, v1, k, v, err)
		}
		want := strings.Compare(k1, k2)
		if want == 0 {
			want = -cmp.Compare(v1, v2)
		}
		if got := bytes.Compare(e1, e2); got != want {
			t.Fatalf("compare(encode(%q, %d), encode(%q, %d)) = %d, want %d", k1, v1, k2, v2, got, want)
		}
		esc := escapeKey(nil, k2)
		if got, want := bytes.HasPrefix(e1, esc), strings.HasPrefix(k1, k2); got != want {
			t.Fatalf("encode(%q) has escaped prefix %q: %v, want %v", k1, k2, got, want)
		}
		end := prefixEnd(esc)
		inBounds := bytes.Compare(e1, esc) >= 0 && (end == nil || bytes.Compare(e1, end) < 0)
		if inBounds != strings.HasPrefix(k1, k2) {
			t.Fatalf("encode(%q) within Scan bounds [%x, %x) of prefix %q: %v", k1, esc, end, k2, inBounds)
		}
		kp := encodeKeyPrefix(nil, k2)
		inRange := bytes.Compare(e1, kp) >= 0 && bytes.Compare(e1, keyPrefixEnd(kp)) < 0
		if inRange != (k1 == k2) {
			t.Fatalf("encode(%q, %d) in the version range of %q: %v", k1, v1, k2, inRange)
		}
	}
	for _, bad := range [][]byte{nil, {1, 2, 3}, append([]byte{'a', 0, 2}, make([]byte, 8)...), append([]byte{0, 5, 0, 1}, make([]byte, 8)...)} {
		if _, _, err := decodeKey(bad); err == nil {
			t.Errorf("decodeKey(%x) succeeded", bad)
		}
	}
}
