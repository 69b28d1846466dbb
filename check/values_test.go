package check

import (
	"strconv"
	"testing"
)

// TestValueSetCollisions interns values whose hashes all collide (forced)
// and still tells them apart, while the table grows several times around
// one probe run.
func TestValueSetCollisions(t *testing.T) {
	vs := newValueSet()
	vs.collide = true
	ids := map[string]int32{}
	for i := range 1000 {
		s := "v" + strconv.Itoa(i)
		if i == 0 {
			s = ""
		}
		ids[s] = vs.intern(s)
		if vs.intern(s) != ids[s] {
			t.Fatalf("%q interned twice", s)
		}
	}
	if vs.len() != len(ids) {
		t.Fatalf("%d values, want %d", vs.len(), len(ids))
	}
	for s, id := range ids {
		if got, ok := vs.lookup(s); !ok || got != id || vs.text(id) != s {
			t.Fatalf("lookup(%q) = %d (%q), %v, want %d", s, got, vs.text(got), ok, id)
		}
	}
	if _, ok := vs.lookup("w"); ok {
		t.Error("found a value never interned")
	}
}

// TestValueSetIDs interns values in order (their IDs are their order),
// across growth, and finds each again.
func TestValueSetIDs(t *testing.T) {
	vs := newValueSet()
	for i := range 100_000 {
		if id := vs.intern(strconv.Itoa(i)); id != int32(i) {
			t.Fatalf("value %d got ID %d", i, id)
		}
	}
	for i := range 100_000 {
		if id, ok := vs.lookup(strconv.Itoa(i)); !ok || id != int32(i) {
			t.Fatalf("lookup(%d) = %d, %v", i, id, ok)
		}
	}
	if _, ok := vs.lookup("x"); ok {
		t.Error("found a value never interned")
	}
}
