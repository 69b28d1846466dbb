package karma

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/internal/invariants"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// TestSelfChecksCatchABrokenWriteBuffer breaks a CC's write buffer (two
// writes swapped out of program order) and an MM's store (a version
// older than one it replaced) and checks that the self-checks panic; and
// that NewNode wraps nodes in them exactly when they are compiled in
// (go test -tags causeway_invariants).
func TestSelfChecksCatchABrokenWriteBuffer(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma-nc"}, Options{})
	n := p.NewNode(protocol.NodeConfig{ID: "a/cc0", Role: protocol.RoleCoordinator, Topology: topo})
	if _, wrapped := n.(*checkedCoordinator); wrapped != invariants.Enabled {
		t.Fatalf("NewNode wrapped the CC: %v, self-checks compiled in: %v", wrapped, invariants.Enabled)
	}
	if _, ok := n.(protocol.Quiescer); !ok {
		t.Fatal("the CC lost its Quiescer")
	}
	c := newCoordinator(p, protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	for i, k := range []string{"k1", "k2"} {
		c.Step(0, protocol.Message{From: "a/alice", To: c.id, Body: &pb.ClientPut{ReqId: uint64(i + 1), Session: "a/alice", Key: k, Value: []byte("v")}})
	}
	c.checkInvariants() // in order: no panic
	wb := c.threads["a/alice"].wb
	wb[0], wb[1] = wb[1], wb[0]
	mustPanic(t, "write buffer out of program order", c.checkInvariants)

	h := newMMHarness(t)
	h.put("k", "new", 2)
	h.put("k", "newer", 3)
	h.m.checkInvariants()
	o := h.m.store["k"]
	o.version = 1 << ccBits
	h.m.store["k"] = o
	mustPanic(t, "replaced the newer", h.m.checkInvariants)
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("panic %v, want one saying %q", r, want)
		}
	}()
	f()
}
