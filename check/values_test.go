package check

import (
	"hash/maphash"
	"testing"
)

// TestValueSetCollisions interns values whose hashes collide (forced:
// "b"'s hash is made to point at "a") and still tells them apart.
func TestValueSetCollisions(t *testing.T) {
	vs := newValueSet()
	a := vs.intern("a")
	vs.byHash[maphash.String(vs.seed, "b")] = a
	b := vs.intern("b")
	if b == a || vs.intern("b") != b || vs.intern("a") != a || vs.intern("") == a {
		t.Fatalf("IDs a %d, b %d", a, b)
	}
	for _, s := range []string{"a", "b", ""} {
		id, ok := vs.lookup(s)
		if !ok || vs.text(id) != s {
			t.Errorf("lookup(%q) = %d (%q), %v", s, id, vs.text(id), ok)
		}
	}
	if _, ok := vs.lookup("c"); ok {
		t.Error("found a value never interned")
	}
	if vs.len() != 3 {
		t.Errorf("%d values, want 3", vs.len())
	}
}
