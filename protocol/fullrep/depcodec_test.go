package fullrep

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/causeway/causeway/wire/fullreppb"
)

// v is a version: a Lamport counter and an origin server index.
func v(counter, origin uint64) uint64 { return counter<<serverBits | origin }

// TestPackedDeps: dependencies survive packing, and YCSB keys cost what
// depcodec.go says: 4-5 bytes for a key sharing its prefix and a number.
func TestPackedDeps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     string
		version uint64
		deps    []*pb.Dep
		bytes   int
	}{
		{"none", "user00001234", v(100, 3), nil, 0},
		{"ycsb keys", "user00001234", v(100, 3), []*pb.Dep{
			{Key: "user00005422", Version: v(90, 7)}, // shares "user0000", 5422: 1+2+1+1
			{Key: "user00007211", Version: v(99, 3)}, // shares "user0000", 7211: 1+2+1+1
			{Key: "user00007211", Version: v(99, 9)}, // the same key again: 1+1+1+1
		}, 14},
		{"leading zeros", "user00007211", v(100, 3), []*pb.Dep{{Key: "user00000055", Version: v(100, 1)}}, 1 + 1 + 1 + 1 + 1},
		{"zeros only", "a", v(5, 0), []*pb.Dep{{Key: "a000", Version: v(4, 0)}, {Key: "a0000", Version: v(4, 1)}, {Key: "b0", Version: v(4, 1)}}, 5 + 4 + 6},
		{"no number", "k", v(2, 1), []*pb.Dep{{Key: "x", Version: v(1, 0)}, {Key: "héllo", Version: v(1, 2)}, {Key: "", Version: v(1, 2)}}, 5 + 10 + 4},
		{"dependency above the write", "k", v(2, 1), []*pb.Dep{{Key: "k9", Version: v(3, 0)}}, 4},
		{"long number", "k", v(2, 1), []*pb.Dep{{Key: "k12345678901234567890123", Version: v(1, 0)}}, 1 + 1 + 23 + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := appendDeps(nil, tc.key, tc.version, tc.deps)
			if len(b) != tc.bytes {
				t.Errorf("%d bytes, want %d: %x", len(b), tc.bytes, b)
			}
			got, err := decodeDeps(b, tc.key, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.deps) {
				t.Fatalf("%d dependencies back, want %d", len(got), len(tc.deps))
			}
			for i := range got {
				if !proto.Equal(got[i], tc.deps[i]) {
					t.Errorf("dependency %d: %v, want %v", i, got[i], tc.deps[i])
				}
			}
		})
	}
}

// TestPackedDepsGarbage: damaged lists are errors, never panics.
func TestPackedDepsGarbage(t *testing.T) {
	good := appendDeps(nil, "user00001234", v(100, 3), []*pb.Dep{{Key: "user00005422", Version: v(90, 7)}})
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"truncated", good[:len(good)-1]},
		{"truncated head", []byte{0x80}},
		{"shares too much", protowire.AppendVarint(nil, 13<<2)},
		{"mode 3", []byte{3}},
		{"no zeros", []byte{2, 0, 5, 0, 0}},
		{"too many zeros", []byte{2, 100, 5, 0, 0}},
		{"origin too large", append([]byte{1, 5, 0}, protowire.AppendVarint(nil, 1<<serverBits)...)},
		{"counter below 1", []byte{1, 5, 200, 1, 0}},
		{"truncated string", []byte{0, 5, 'a'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if deps, err := decodeDeps(tc.b, "user00001234", v(100, 3)); !errors.Is(err, errDeps) {
				t.Fatalf("decodeDeps = %v, %v; want errDeps", deps, err)
			}
		})
	}
}

// FuzzPackedDeps: any list either is refused or decodes to dependencies
// that pack and unpack to themselves.
func FuzzPackedDeps(f *testing.F) {
	f.Add(appendDeps(nil, "user00001234", v(100, 3), []*pb.Dep{{Key: "user00005422", Version: v(90, 7)}, {Key: "user00000055", Version: v(99, 1)}}), "user00001234", v(100, 3))
	f.Add(appendDeps(nil, "k", v(2, 1), []*pb.Dep{{Key: "x", Version: v(1, 0)}, {Key: "a000", Version: v(3, 0)}}), "k", v(2, 1))
	f.Add([]byte{}, "", uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, key string, version uint64) {
		deps, err := decodeDeps(b, key, version)
		if err != nil {
			if !errors.Is(err, errDeps) {
				t.Fatalf("error %v is not errDeps", err)
			}
			return
		}
		back, err := decodeDeps(appendDeps(nil, key, version, deps), key, version)
		if err != nil {
			t.Fatalf("repacked %v: %v", deps, err)
		}
		if len(back) != len(deps) {
			t.Fatalf("%d dependencies, %d after repacking", len(deps), len(back))
		}
		for i := range back {
			if !proto.Equal(back[i], deps[i]) {
				t.Fatalf("dependency %d: %v, %v after repacking", i, deps[i], back[i])
			}
		}
	})
}
