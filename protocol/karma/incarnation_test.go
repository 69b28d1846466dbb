package karma

import (
	"math/rand/v2"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/storage"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// ccHarness drives one client coordinator directly, applying its storage
// writes, and restarts it as a runtime would: a new incarnation over what
// it synced.
type ccHarness struct {
	t    *testing.T
	p    *Protocol
	topo *topology.Topology
	st   *storage.Mem
	inc  uint64
	c    *coordinator
	now  time.Duration
}

func newCCHarness(t *testing.T, mode Mode, opts Options) *ccHarness {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	h := &ccHarness{t: t, p: New(mode, opts), topo: topo, st: storage.NewMem()}
	h.restart()
	return h
}

// restart crashes the CC (unsynced writes are lost) and starts its next
// incarnation.
func (h *ccHarness) restart() {
	h.t.Helper()
	if h.c != nil {
		h.st.Crash(rand.New(rand.NewPCG(1, 1)))
	}
	h.inc++
	h.c = newCoordinator(h.p, protocol.NodeConfig{ID: "a/cc0", Role: protocol.RoleCoordinator, Incarnation: h.inc, Topology: h.topo, Storage: h.st})
	h.apply(h.c.Start(h.now))
}

func (h *ccHarness) apply(r protocol.Ready) []protocol.Message {
	h.t.Helper()
	if err := h.st.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
		h.t.Fatal(err)
	}
	return r.After.Messages
}

// step delivers body to the CC from node from.
func (h *ccHarness) step(from protocol.NodeID, body proto.Message) []protocol.Message {
	h.t.Helper()
	return h.apply(h.c.Step(h.now, protocol.Message{From: from, To: h.c.id, Body: body}))
}

// find returns the first message of type T in out, and the node it goes to.
func find[T proto.Message](out []protocol.Message) (T, protocol.NodeID, bool) {
	for _, m := range out {
		if b, ok := m.Body.(T); ok {
			return b, m.To, true
		}
	}
	var zero T
	return zero, "", false
}

// keyInRing0At returns a key whose ring-0 replica (ring [a, b] of local3)
// is in DC dc.
func keyInRing0At(t *testing.T, topo *topology.Topology, dc string) string {
	for i := range 1000 {
		k := "k" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if d, _ := topo.RingReplica(0, k); d == dc {
			return k
		}
	}
	t.Fatalf("no key with its ring-0 replica in %s", dc)
	return ""
}

// TestReplyToAnEarlierIncarnationAnswersNothing: Alice's get of x is in
// flight to a ring (after a cache miss) when her CC crashes. The restarted
// CC serves Bob's get of y, which misses the cache too and goes to a ring.
// The ring's answer to Alice's read, addressed to the CC's earlier
// incarnation, then arrives: it must not answer Bob's get (with x's value)
// nor fill the DC cache under y. Before the fix the CC restarted its
// request ids from 1 and did not match the reply's key, so the two
// requests had the same id.
func TestReplyToAnEarlierIncarnationAnswersNothing(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "karma", Caches: true}, Options{})
	const alice, bob = "a/alice", "a/bob"
	x, y := keyInRing0At(t, h.topo, "a"), keyInRing0At(t, h.topo, "b")

	// Alice: cache miss, then a ring read of x.
	cg, cache, _ := find[*pb.CacheGet](h.step(alice, &pb.ClientGet{ReqId: 1, Session: alice, Key: x}))
	aliceRead, _, ok := find[*pb.RingGet](h.step(cache, &pb.CacheGetReply{ReqId: cg.ReqId, Key: x, Epoch: 1}))
	if !ok {
		t.Fatal("no ring read after Alice's cache miss")
	}
	h.restart()

	cg, cache, _ = find[*pb.CacheGet](h.step(bob, &pb.ClientGet{ReqId: 1, Session: bob, Key: y}))
	bobRead, _, ok := find[*pb.RingGet](h.step(cache, &pb.CacheGetReply{ReqId: cg.ReqId, Key: y, Epoch: 1}))
	if !ok {
		t.Fatal("no ring read after Bob's cache miss")
	}
	stale := &pb.RingGetReply{ReqId: aliceRead.ReqId, Key: x, Value: []byte("x-of-alice"), Version: 7 << ccBits, Ring: 0}
	out := h.step("a/s0", stale)
	if rep, _, ok := find[*pb.ClientReply](out); ok {
		t.Errorf("the reply to Alice's read of %s (earlier incarnation) answered Bob's get of %s with %q", x, y, rep.Value)
	}
	if fill, _, ok := find[*pb.CacheFill](out); ok {
		t.Errorf("the reply to Alice's read filled the cache: %s=%q", fill.Key, fill.Value)
	}
	// Bob's own answer still completes his get.
	out = h.step("b/s0", &pb.RingGetReply{ReqId: bobRead.ReqId, Key: y, Value: []byte("y1"), Version: 3 << ccBits, Ring: 0})
	if rep, _, ok := find[*pb.ClientReply](out); !ok || string(rep.Value) != "y1" {
		t.Errorf("Bob's get not answered by its own reply: %v", out)
	}
}

// TestCacheReplyToAnEarlierIncarnationAnswersNothing: as above, but the
// stale answer is the DC cache's hit for Alice's key, arriving while Bob's
// cache read is outstanding.
func TestCacheReplyToAnEarlierIncarnationAnswersNothing(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "karma", Caches: true}, Options{})
	const alice, bob = "a/alice", "a/bob"
	x, y := keyInRing0At(t, h.topo, "a"), keyInRing0At(t, h.topo, "b")
	aliceGet, _, _ := find[*pb.CacheGet](h.step(alice, &pb.ClientGet{ReqId: 1, Session: alice, Key: x}))
	h.restart()
	_, cache, ok := find[*pb.CacheGet](h.step(bob, &pb.ClientGet{ReqId: 1, Session: bob, Key: y}))
	if !ok {
		t.Fatal("Bob's get did not ask the cache")
	}
	out := h.step(cache, &pb.CacheGetReply{ReqId: aliceGet.ReqId, Key: x, Hit: true, Value: []byte("x-of-alice"), Version: 7 << ccBits, Epoch: 1})
	if rep, _, ok := find[*pb.ClientReply](out); ok {
		t.Errorf("the cache's answer to Alice's read of %s answered Bob's get of %s with %q", x, y, rep.Value)
	}
}

// TestLateAcknowledgementOfAnEarlierIncarnationAcknowledgesNothing: Alice
// writes x and every ring acknowledges it (so it completes), but ring 0's
// acknowledgement of a retransmission is still in flight when the CC
// crashes. The restarted CC buffers Bob's write of y. The late duplicate
// must not count as ring 0's acknowledgement of y: otherwise ring 1's
// acknowledgement completes y — STABLE sent, Bob's restrictions lifted —
// while ring 0 does not have it. Before the fix the entry ids restarted
// from 1 (only buffered entries were recovered) and acknowledgements were
// matched on the id alone.
func TestLateAcknowledgementOfAnEarlierIncarnationAcknowledgesNothing(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "karma-nc"}, Options{})
	const alice, bob = "a/alice", "a/bob"
	ack := func(p *pb.RingPut, ring int) *pb.RingPutAck {
		return &pb.RingPutAck{Id: p.Id, Ring: int32(ring), Key: p.Key, Version: p.Version}
	}
	xPut, _, _ := find[*pb.RingPut](h.step(alice, &pb.ClientPut{ReqId: 1, Session: alice, Key: "x", Value: []byte("x1")}))
	h.step("a/s0", ack(xPut, 0))
	if st, _, ok := find[*pb.Stable](h.step("c/s0", ack(xPut, 1))); !ok || st.Key != "x" {
		t.Fatal("Alice's write did not complete once both rings acknowledged it")
	}
	late := ack(xPut, 0) // ring 0's acknowledgement of a retransmission
	h.restart()

	yPut, _, _ := find[*pb.RingPut](h.step(bob, &pb.ClientPut{ReqId: 1, Session: bob, Key: "y", Value: []byte("y1")}))
	h.step("a/s0", late)
	if st, _, ok := find[*pb.Stable](h.step("c/s0", ack(yPut, 1))); ok {
		t.Fatalf("STABLE for %s@%x sent although ring 0 never acknowledged it (a late acknowledgement of Alice's x counted)", st.Key, st.Version)
	}
	if _, _, ok := find[*pb.Stable](h.step("a/s0", ack(yPut, 0))); !ok {
		t.Error("Bob's write did not complete once ring 0 acknowledged it")
	}
}
