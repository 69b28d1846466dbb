package fullrep

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/internal/invariants"
	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// TestSelfChecksCatchAnUncommittedReplication breaks a server's state (a
// write being replicated that the server does not hold) and checks that
// the self-check panics, and that NewNode wraps servers in it exactly when
// it is compiled in (go test -tags causeway_invariants).
func TestSelfChecksCatchAnUncommittedReplication(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "cops", Causal: true})
	n := p.NewNode(protocol.NodeConfig{ID: "a/s0", Topology: topo})
	if _, wrapped := n.(checkedServer); wrapped != invariants.Enabled {
		t.Fatalf("NewNode wrapped the server: %v, self-checks compiled in: %v", wrapped, invariants.Enabled)
	}
	if _, ok := n.(protocol.Quiescer); !ok {
		t.Fatal("the server lost its Quiescer")
	}
	if _, ok := n.(protocol.Inspector); !ok {
		t.Fatal("the server lost its Inspector")
	}
	s := newServer(Mode{Name: "cops", Causal: true}, protocol.NodeConfig{ID: "a/s0", Topology: topo})
	s.Step(0, protocol.Message{From: "a/c0", To: s.id, Body: &pb.PutRequest{ReqId: 1, Key: "k", Value: []byte("v")}})
	s.checkInvariants()
	delete(s.store, "k")
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, "is replicated but the store holds the older") {
			t.Errorf("panic %q, want the uncommitted replication reported", r)
		}
	}()
	s.checkInvariants()
}
