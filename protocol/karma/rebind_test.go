package karma

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
	"google.golang.org/protobuf/proto"
)

// TestRestrictedThreadMovesToARingThatHasItsRestrictions drives one client
// coordinator: Carol reads w in flight in ring 0 and is restricted there;
// her next read times out in ring 0. Ring 1 acknowledges the notify-after
// naming w (w is written there), so she is moved to ring 1: the read is
// sent there, and a late in-flight answer from ring 0 — which would bind
// her to a ring she no longer reads — is ignored. Ring 1's answer
// completes the read. A notify-after that misses one of her restrictions
// moves nothing.
func TestRestrictedThreadMovesToARingThatHasItsRestrictions(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	c := newCoordinator(New(Mode{Name: "karma-nc"}, Options{}), protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/carol"
	now := time.Duration(0)
	step := func(body proto.Message) []protocol.Message {
		t.Helper()
		return c.Step(now, protocol.Message{From: session, To: c.id, Body: body}).After.Messages
	}
	ringGet := func(out []protocol.Message) *pb.RingGet {
		for _, m := range out {
			if g, ok := m.Body.(*pb.RingGet); ok {
				return g
			}
		}
		return nil
	}
	// Restricted to ring 0 by an in-flight read of k5.
	g := ringGet(step(&pb.ClientGet{ReqId: 1, Session: session, Key: "k5"}))
	step(&pb.RingGetReply{ReqId: g.ReqId, Key: "k5", Value: []byte("w"), Version: 7 << ccBits, InFlight: true, Ring: 0})
	th := c.threads[session]
	if th.drrRing != 0 {
		t.Fatalf("not restricted to ring 0 after an in-flight read there: %d", th.drrRing)
	}
	// A read of k3 goes to ring 0 and times out there.
	old := ringGet(step(&pb.ClientGet{ReqId: 2, Session: session, Key: "k3"}))
	if old == nil || th.get.ring != 0 {
		t.Fatal("the restricted read did not go to ring 0")
	}
	now = th.get.deadline
	var notify *pb.RingPut
	for _, m := range c.Tick(now, 0).After.Messages {
		if rp, ok := m.Body.(*pb.RingPut); ok && rp.Notify {
			notify = rp
		}
	}
	if notify == nil {
		t.Fatal("no notify-after once the restricted read timed out")
	}
	// Ring 1 has w written: Carol moves there and reads k3 there.
	moved := ringGet(step(&pb.RingPutAck{Id: notify.Id, Ring: 1, Key: notify.Key}))
	if th.drrRing != 1 || moved == nil || th.get == nil || th.get.ring != 1 {
		t.Fatalf("not moved to ring 1 (ring %d, read sent %v)", th.drrRing, moved != nil)
	}
	if out := step(&pb.RingGetReply{ReqId: old.ReqId, Key: "k3", Value: []byte("x"), Version: 9 << ccBits, InFlight: true, Ring: 0}); len(out) != 0 || th.get == nil {
		t.Fatal("a late answer from ring 0 completed the read after the move")
	}
	out := step(&pb.RingGetReply{ReqId: moved.ReqId, Key: "k3", Value: []byte("v"), Version: 3 << ccBits, Ring: 1})
	if len(out) != 1 || th.get != nil || th.drrRing != 1 {
		t.Fatalf("ring 1's answer did not complete the read: %v (bound to %d)", out, th.drrRing)
	}

	// A notify-after missing a restriction moves nothing.
	th.drr["k9@1"] = &pb.Dep{Key: "k9", Version: 1}
	th.drrRing = 0
	if ringGet(step(&pb.ClientGet{ReqId: 3, Session: session, Key: "k3"})) == nil {
		t.Fatal("the read of k3 was not sent to a ring")
	}
	th.get.attempts[1<<50] = true // as if it had timed out once
	c.rebind(now, th, &wbEntry{put: &pb.RingPut{Notify: true, Deps: []*pb.Dep{{Key: "k5", Version: 7 << ccBits}}}}, 1,
		&protocol.Ready{})
	if th.drrRing != 0 || th.get.ring != 0 {
		t.Error("moved on a notify-after that does not cover every restriction")
	}
}
