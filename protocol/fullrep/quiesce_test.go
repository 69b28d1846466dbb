package fullrep

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/fullreppb"
)

// TestServerQuiescentOnlyOnceReplicated drives a causal server: a local
// put awaits replication to the other DCs until each acknowledges it, and
// a replicated write whose dependency is missing waits; CheckQuiescent
// reports both until they are done.
func TestServerQuiescentOnlyOnceReplicated(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(Mode{Name: "cops", Causal: true}, protocol.NodeConfig{ID: "a/s0", Topology: topo})
	r := s.Step(0, protocol.Message{From: "a/c0", To: s.id, Body: &pb.PutRequest{ReqId: 1, Key: "k", Value: []byte("v")}})
	var rep *pb.Replicate
	for _, m := range r.After.Messages {
		if x, ok := m.Body.(*pb.Replicate); ok {
			rep = x
		}
	}
	if rep == nil {
		t.Fatal("the put was not replicated")
	}
	others := s.otherReplicas("k")
	for _, to := range others {
		if err := s.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "awaits replication") {
			t.Fatalf("put not acknowledged by %s: CheckQuiescent = %v, want it reported", to, err)
		}
		s.Step(0, protocol.Message{From: to, To: s.id, Body: &pb.ReplicateAck{Key: "k", Version: rep.Version}})
	}
	if err := s.CheckQuiescent(); err != nil {
		t.Fatalf("put replicated everywhere: %v", err)
	}
	// A replicated write from b (minted by b/s0, server index 2)
	// depending on a version of j this DC lacks (minted by b/s1, index 3)
	// waits for it. Neither may be this server's own: its versions below
	// its clock are all acknowledged by now, so stable (prune.go).
	dep := &pb.Dep{Key: "j", Version: 5<<serverBits | 3}
	s.Step(0, protocol.Message{From: "b/s0", To: s.id, Body: &pb.Replicate{Key: "k2", Value: []byte("w"), Version: 9<<serverBits | 2, PackedDeps: appendDeps(nil, "k2", 9<<serverBits|2, []*pb.Dep{dep})}})
	if err := s.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "waits for its dependencies") {
		t.Fatalf("replicated write missing its dependency: CheckQuiescent = %v, want it reported", err)
	}
	s.Step(0, protocol.Message{From: owner(topo, "a", "j"), To: s.id, Body: &pb.DepOK{Deps: []*pb.Dep{dep}}})
	if err := s.CheckQuiescent(); err != nil {
		t.Fatalf("dependency satisfied: %v", err)
	}
}
