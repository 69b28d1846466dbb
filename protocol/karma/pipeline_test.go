package karma

import (
	"slices"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// TestInstallWaitsForEarlierWritesAndTakesTheirReadyTimes drives one MM
// (a/s0 on local3) through pipelined propagation (doc.go, "Pipelined
// propagation"): x2 (k2) names x1 (k9, owned by another MM of the ring) as
// an earlier buffered write of its thread. x2 is ready on arrival but not
// installed: a get of k2 waits, a get-transaction's first round reads k2
// as of just before x2's ready time (claiming nothing later), a second
// round at or after it waits. Once x1's owner answers that x1 became ready
// at a later time, x2 is installed with that time as its evt (the same
// number every MM of the ring derives), and the held reads are answered.
func TestInstallWaitsForEarlierWritesAndTakesTheirReadyTimes(t *testing.T) {
	h := newMMHarness(t)
	x1 := &pb.Dep{Key: "k9", Version: 1<<ccBits | 1}
	x2 := &pb.RingPut{Key: "k2", Value: []byte("x2"), Version: 2<<ccBits | 1, Id: 2,
		AfterVersions: []uint64{x1.Version}, AfterOwners: []uint32{ringIndex(h.m.topo, h.m.ring, x1.Key)}}
	out := h.step(x2)
	if !sent[*pb.DepCheck](out) || acked(out, 2) {
		t.Fatalf("x2: want a DepCheck of x1 and no acknowledgement, got %v", out)
	}
	ready := h.m.readyAt[depKey("k2", x2.Version)]
	if ready == 0 {
		t.Fatal("x2 not ready on arrival")
	}
	if o := h.m.store["k2"]; o.version != 0 {
		t.Fatalf("x2 installed (version %x) before x1 is ready in the ring", o.version)
	}
	// The program-order DepCheck of the next write is answered with x2's
	// ready time.
	out = h.step(&pb.DepCheck{Dep: &pb.Dep{Key: "k2", Version: x2.Version, ProgramOrder: true}})
	if ok := depOK(out); ok == nil || len(ok.ReadyVersions) != 1 || ok.ReadyVersions[0] != x2.Version || ok.Clock-ok.ReadyAgo[0] != ready {
		t.Fatalf("program-order DepCheck of x2: %v, want DepOK with ready %d", out, ready)
	}
	if out := h.step(&pb.RingGet{ReqId: 7, Key: "k2"}); sent[*pb.RingGetReply](out) {
		t.Fatalf("get of k2 answered while x2 is not installed: %v", out)
	}
	first := h.get("k2", 0)
	if first.Version != 0 || first.Clock != ready-1 {
		t.Fatalf("first round: version %x valid until %d, want the initial state until %d (x2's ready time - 1)",
			first.Version, first.Clock, ready-1)
	}
	if out := h.step(&pb.RingGet{ReqId: 8, Key: "k2", Txn: true, At: ready}); sent[*pb.RingGetReply](out) {
		t.Fatalf("second round at x2's ready time answered before x2 is installed: %v", out)
	}
	later := ready + 50
	out = h.stepFrom("b/s0", &pb.DepOK{Clock: later + 3, ReadyVersions: []uint64{x1.Version}, ReadyAgo: []uint64{3}})
	got := map[uint64]*pb.RingGetReply{}
	for _, m := range out {
		if rep, ok := m.Body.(*pb.RingGetReply); ok {
			got[rep.ReqId] = rep
		}
	}
	if r := got[7]; r == nil || string(r.Value) != "x2" || r.Evt != later {
		t.Errorf("held get once x1 is ready: %v, want x2 with evt %d (x1's ready time)", r, later)
	}
	if r := got[8]; r == nil || r.Version != 0 {
		t.Errorf("held second round at %d: %v, want the initial state (x2 is valid from %d)", ready, r, later)
	}
}

func depOK(out []protocol.Message) *pb.DepOK {
	for _, m := range out {
		if ok, is := m.Body.(*pb.DepOK); is {
			return ok
		}
	}
	return nil
}

// TestLegacyPendingRecordRecovered: a "p/" record persisted when a
// RingPut's program-order dependencies still carried their keys is read
// back as unpackAfter names them now (no key, the owner's index), so the
// key-less answers that come after the restart install it (doc.go,
// "Program-order asks by version").
func TestLegacyPendingRecordRecovered(t *testing.T) {
	h := newMMHarness(t)
	x1 := &pb.Dep{Key: "k9", Version: 1<<ccBits | 1, ProgramOrder: true}
	x2 := &pb.RingPut{Key: "k2", Value: []byte("x2"), Version: 2<<ccBits | 1, Id: 2, Deps: []*pb.Dep{x1}}
	if err := h.st.Apply([]storage.Write{{Kind: storage.Put, Key: pendingKey(depKey("k2", x2.Version)), Version: 5, Value: marshal(x2)}}, true); err != nil {
		t.Fatal(err)
	}
	h.cfg.Storage = h.st
	h.m = newMiddleMan(h.p, h.cfg)
	r := h.m.Start(h.now)
	owner := replica(h.m.topo, h.m.ring, x1.Key)
	asked := false
	for _, m := range r.After.Messages {
		if c, ok := m.Body.(*pb.DepCheck); ok && m.To == owner && slices.Contains(unpackVersions(c.After), x1.Version) {
			asked = true
		}
	}
	if !asked {
		t.Fatalf("after the restart: %v, want a DepCheck by version of x1 to %s", r.After.Messages, owner)
	}
	h.stepFrom(owner, &pb.DepOK{Clock: 9, ReadyVersions: []uint64{x1.Version}, ReadyAgo: []uint64{2}})
	if o := h.m.store["k2"]; o.version != x2.Version || o.evt != 7 {
		t.Fatalf("k2 after x1's ready DepOK: version %x evt %d, want %x at 7 (x1's ready time)", o.version, o.evt, x2.Version)
	}
}
