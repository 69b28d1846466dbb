package karma

import (
	"strings"
	"testing"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
	"google.golang.org/protobuf/proto"
)

// TestCoordinatorQuiescentOnlyOnceWritesComplete drives a client
// coordinator through a put: while any ring has not acknowledged it the
// write buffer is not empty and CheckQuiescent says so; a read of an
// in-flight value then restricts the thread, which is reported too; once
// every ring acknowledged the put and the notify-after lifted the
// restriction, it holds.
func TestCoordinatorQuiescentOnlyOnceWritesComplete(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	c := newCoordinator(New(Mode{Name: "karma-nc"}, Options{}), protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/alice"
	step := func(body proto.Message) []protocol.Message {
		t.Helper()
		return c.Step(0, protocol.Message{From: session, To: c.id, Body: body}).After.Messages
	}
	if err := c.CheckQuiescent(); err != nil {
		t.Fatalf("a new coordinator: %v", err)
	}
	var put *pb.RingPut
	for _, m := range step(&pb.ClientPut{ReqId: 1, Session: session, Key: "k1", Value: []byte("v")}) {
		if rp, ok := m.Body.(*pb.RingPut); ok {
			put = rp
		}
	}
	rings := len(topo.Rings())
	for ring := range rings {
		err := c.CheckQuiescent()
		if err == nil || !strings.Contains(err.Error(), "write buffer holds 1 writes") {
			t.Fatalf("put acknowledged by %d of %d rings: CheckQuiescent = %v, want the buffered write reported", ring, rings, err)
		}
		step(&pb.RingPutAck{Id: put.Id, Ring: int32(ring), Key: put.Key, Version: put.Version})
	}
	if err := c.CheckQuiescent(); err != nil {
		t.Fatalf("put complete in every ring: %v", err)
	}

	// A get answered with an in-flight version restricts the thread.
	var get *pb.RingGet
	for _, m := range step(&pb.ClientGet{ReqId: 2, Session: session, Key: "k2"}) {
		if g, ok := m.Body.(*pb.RingGet); ok {
			get = g
		}
	}
	if err := c.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "get of k2 pending") {
		t.Fatalf("get outstanding: CheckQuiescent = %v, want it reported", err)
	}
	step(&pb.RingGetReply{ReqId: get.ReqId, Key: "k2", Value: []byte("w"), Version: 7 << ccBits, InFlight: true, Ring: 1})
	if err := c.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "restricted to ring 1") {
		t.Fatalf("thread restricted: CheckQuiescent = %v, want the restriction reported", err)
	}
	// The notify-after lifts it once every ring answers.
	var notify *pb.RingPut
	for _, m := range c.Tick(c.p.opts.NotifyEvery, 0).After.Messages {
		if rp, ok := m.Body.(*pb.RingPut); ok && rp.Notify {
			notify = rp
		}
	}
	if notify == nil {
		t.Fatal("no notify-after for the restricted thread")
	}
	for ring := range rings {
		step(&pb.RingPutAck{Id: notify.Id, Ring: int32(ring), Key: notify.Key, Version: notify.Version})
	}
	if err := c.CheckQuiescent(); err != nil {
		t.Fatalf("restriction lifted: %v", err)
	}
}

// TestMiddleManQuiescentOnlyWhenNothingWaits drives a middle man: a write
// waiting for a dependency, then one waiting for a cache invalidation, a
// version written but not stable, and a STABLE newer than the stored
// version (a premature one) are reported; stable versions are not.
func TestMiddleManQuiescentOnlyWhenNothingWaits(t *testing.T) {
	h := newMMHarness(t)
	h.p = New(Mode{Name: "karma", Caches: true}, Options{})
	h.m = newMiddleMan(h.p, h.cfg)
	x1 := &pb.RingPut{Key: "k1", Value: []byte("x1"), Version: 1<<ccBits | 1, Id: 1}
	x2 := &pb.RingPut{Key: "k2", Value: []byte("x2"), Version: 2<<ccBits | 1, Id: 2,
		Deps: []*pb.Dep{{Key: "k1", Version: x1.Version}}}
	h.step(x2)
	if err := h.m.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "waits for its dependencies") {
		t.Fatalf("x2 waiting for x1: CheckQuiescent = %v, want the wait reported", err)
	}
	// DC b's cache fills k1, so x1 must invalidate it before it is written.
	h.step(&pb.RingGet{ReqId: 1, Key: "k1", CacheDc: "b"})
	h.step(x1)
	if err := h.m.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "waits for invalidations") {
		t.Fatalf("x1 waiting for b's cache: CheckQuiescent = %v, want the invalidation reported", err)
	}
	h.stepFrom(h.p.cacheFor("b", "k1"), &pb.InvalidateAck{Key: "k1", Version: x1.Version})
	// x1's owner (here this MM) answers x2's checks: installed, written.
	h.step(&pb.DepOK{Dep: &pb.Dep{Key: "k1", Version: x1.Version, Installed: true}})
	h.step(&pb.DepOK{Dep: &pb.Dep{Key: "k1", Version: x1.Version}})
	if err := h.m.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "key k1: stored version 1001 is not stable") {
		t.Fatalf("x1 and x2 written, not yet stable: CheckQuiescent = %v, want them reported", err)
	}
	h.step(&pb.Stable{Key: "k1", Version: x1.Version})
	h.step(&pb.Stable{Key: "k2", Version: x2.Version})
	if err := h.m.CheckQuiescent(); err != nil {
		t.Fatalf("x1 and x2 stable: %v", err)
	}
	h.step(&pb.Stable{Key: "k2", Version: 3<<ccBits | 1})
	if err := h.m.CheckQuiescent(); err == nil || !strings.Contains(err.Error(), "key k2: stable version 3001 is newer than the stored 2001") {
		t.Fatalf("STABLE of a version never stored: CheckQuiescent = %v, want it reported", err)
	}
}

// TestCOPSPRKeepsItsReadsAsContext: a COPS-PR thread's in-flight reads
// restrict nothing (it reads its own ring anyway) and stay as its next
// put's dependencies with no notify-after, so they are no quiescence
// violation there.
func TestCOPSPRKeepsItsReadsAsContext(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	c := newCoordinator(New(Mode{Name: "cops-pr", OwnRing: true}, Options{}), protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	var get *pb.RingGet
	for _, m := range c.Step(0, protocol.Message{From: "a/alice", To: c.id, Body: &pb.ClientGet{ReqId: 1, Session: "a/alice", Key: "k"}}).After.Messages {
		if g, ok := m.Body.(*pb.RingGet); ok {
			get = g
		}
	}
	c.Step(0, protocol.Message{From: replica(topo, c.myRing, "k"), To: c.id,
		Body: &pb.RingGetReply{ReqId: get.ReqId, Key: "k", Value: []byte("w"), Version: 7 << ccBits, InFlight: true, Ring: int32(c.myRing)}})
	if len(c.threads["a/alice"].drr) != 1 {
		t.Fatalf("the in-flight read is not kept as a dependency: %v", c.threads["a/alice"].drr)
	}
	if err := c.CheckQuiescent(); err != nil {
		t.Errorf("COPS-PR thread with an in-flight read: %v", err)
	}
}
