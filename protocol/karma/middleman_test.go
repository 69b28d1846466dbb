package karma

import (
	"slices"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
	"google.golang.org/protobuf/proto"
)

// TestProgramOrderWriteWaitsForItsPredecessorToBeWritten drives one middle
// man: Alice's x2 names her previous write x1 as a program-order
// dependency. x2 is stored (and readable, and answers program-order
// checks) as soon as x1 is stored, but counts as written — acknowledging
// the CC and answering ordinary DepChecks — only once x1 is written too,
// i.e. once the DC cache holding k1 has dropped it. Otherwise a reader
// restricted by x2 could have the restriction lifted (by a put depending
// on x2 completing) while its DC cache still held the k1 before x1.
func TestProgramOrderWriteWaitsForItsPredecessorToBeWritten(t *testing.T) {
	h := newMMHarness(t)
	h.p = New(Mode{Name: "karma", Caches: true}, Options{})
	h.m = newMiddleMan(h.p, h.cfg)
	// DC b's cache fills k1 (stable, never written): b is in its cached-at set.
	h.step(&pb.RingGet{ReqId: 1, Key: "k1", CacheDc: "b"})

	x1 := &pb.RingPut{Key: "k1", Value: []byte("x1"), Version: 1<<ccBits | 1, Id: 1}
	out := h.step(x1)
	if acked(out, 1) || !sent[*pb.Invalidate](out) {
		t.Fatalf("x1: want an invalidation of b's cache and no acknowledgement yet, got %v", out)
	}
	x2 := &pb.RingPut{Key: "k2", Value: []byte("x2"), Version: 2<<ccBits | 1, Id: 2,
		Deps: []*pb.Dep{{Key: "k1", Version: x1.Version, ProgramOrder: true}}}
	out = h.step(x2)
	if acked(out, 2) {
		t.Fatal("x2 acknowledged while x1 still waits for b's cache")
	}
	if got := h.get("k2", 0); string(got.Value) != "x2" {
		t.Fatalf("x2 not readable once x1 is stored: read %q", got.Value)
	}
	// A program-order check of x2 is answered; an ordinary one waits.
	if out := h.step(&pb.DepCheck{Dep: &pb.Dep{Key: "k2", Version: x2.Version, ProgramOrder: true}}); !sent[*pb.DepOK](out) {
		t.Fatalf("program-order DepCheck of stored x2 not answered: %v", out)
	}
	if out := h.step(&pb.DepCheck{Dep: &pb.Dep{Key: "k2", Version: x2.Version}}); sent[*pb.DepOK](out) {
		t.Fatal("DepCheck of x2 answered before x1 is written")
	}

	// b's cache drops k1: x1 is written; the answer to x2's gate check
	// (from k1's owner, here this MM) then lets x2 be written.
	out = h.stepFrom(h.p.cacheFor("b", "k1"), &pb.InvalidateAck{Key: "k1", Version: x1.Version})
	if !acked(out, 1) {
		t.Fatalf("x1 not acknowledged after the invalidation: %v", out)
	}
	out = h.step(&pb.DepOK{Dep: &pb.Dep{Key: "k1", Version: x1.Version}})
	if !acked(out, 2) || !sent[*pb.DepOK](out) {
		t.Fatalf("x2 not written (acknowledged, waiting DepCheck answered) once x1 is: %v", out)
	}
}

func acked(out []protocol.Message, id uint64) bool {
	for _, m := range out {
		if a, ok := m.Body.(*pb.RingPutAck); ok && a.Id == id {
			return true
		}
	}
	return false
}

// sent reports whether out holds a message of type T.
func sent[T any](out []protocol.Message) bool {
	for _, m := range out {
		if _, ok := m.Body.(T); ok {
			return true
		}
	}
	return false
}

// TestRetransmitWaitFollowsAcknowledgements checks the estimator that
// times a write's retransmissions to a ring: it follows the measured
// acknowledgement time, backs off while the ring is slow (it acknowledges
// other writes) but not while it is silent (cut off: the heal must be
// noticed soon), and comes back with a clean measurement.
func TestRetransmitWaitFollowsAcknowledgements(t *testing.T) {
	var e rttEstimate
	if got := e.timeout(); got != resendAfter {
		t.Errorf("no sample: %v, want resendAfter %v", got, resendAfter)
	}
	for range 20 {
		e.sample(100 * time.Millisecond)
	}
	if got := e.timeout(); got != resendAfter {
		t.Errorf("steady 100ms acknowledgements: %v, want the floor %v", got, resendAfter)
	}
	for range 20 {
		e.sample(3 * time.Second)
	}
	if got := e.timeout(); got < 3*time.Second || got > maxRetransmitWait {
		t.Errorf("3s acknowledgements: %v, want between 3s and %v", got, maxRetransmitWait)
	}
	for range 20 {
		e.sample(100 * time.Millisecond)
	}
	base := e.timeout()
	now := 10 * time.Second
	e.backOff(now) // a first retransmission
	if got := e.timeout(); got != 2*base {
		t.Fatalf("after a retransmission: %v, want %v", got, 2*base)
	}
	// Silent ring: no acknowledgement, no further backing off.
	for i := range 10 {
		e.backOff(now + time.Duration(i+1)*time.Second)
	}
	if got := e.timeout(); got != 2*base {
		t.Errorf("silent ring: %v, want it to stay %v", got, 2*base)
	}
	// Slow ring: acknowledgements keep coming, the wait keeps doubling.
	for i := range 10 {
		at := now + time.Duration(20+i*30)*time.Second
		e.acked(at)
		e.backOff(at + time.Millisecond)
	}
	if got := e.timeout(); got != maxRetransmitWait {
		t.Errorf("slow ring: %v, want the cap %v", got, maxRetransmitWait)
	}
	e.sample(100 * time.Millisecond)
	if got := e.timeout(); got >= maxRetransmitWait {
		t.Errorf("a clean measurement did not bring the wait down: %v", got)
	}
}

// TestWritesCompleteInProgramOrder drives one client coordinator: its
// thread writes k1 then k2, and every ring acknowledges k2 before k1 (a
// lost acknowledgement resent later). k2 must not complete — no STABLE,
// still in the write buffer — until k1 has: STABLE must follow program
// order, and the buffer must not hold a thread's older write of a key while
// its newer one has left (a transaction then read the older one).
func TestWritesCompleteInProgramOrder(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma-nc"}, Options{})
	c := newCoordinator(p, protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/alice"
	step := func(body proto.Message) []protocol.Message {
		t.Helper()
		return c.Step(0, protocol.Message{From: session, To: c.id, Body: body}).After.Messages
	}
	ids := map[string]uint64{}
	for i, k := range []string{"k1", "k2"} {
		for _, m := range step(&pb.ClientPut{ReqId: uint64(i + 1), Session: session, Key: k, Value: []byte("v")}) {
			if rp, ok := m.Body.(*pb.RingPut); ok {
				ids[rp.Key] = rp.Id
			}
		}
	}
	stables := func(out []protocol.Message) (keys []string) {
		for _, m := range out {
			if s, ok := m.Body.(*pb.Stable); ok {
				keys = append(keys, s.Key)
			}
		}
		return keys
	}
	rings := len(topo.Rings())
	for ring := range rings {
		if got := stables(step(&pb.RingPutAck{Id: ids["k2"], Ring: int32(ring)})); len(got) > 0 {
			t.Fatalf("k2 declared stable (%v) before k1 completed", got)
		}
	}
	var got []string
	for ring := range rings {
		got = append(got, stables(step(&pb.RingPutAck{Id: ids["k1"], Ring: int32(ring)}))...)
	}
	want := []string{}
	for _, k := range []string{"k1", "k2"} {
		for range rings {
			want = append(want, k)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("STABLE sent for %v once k1 completed, want %v (k1 in every ring, then k2)", got, want)
	}
	if n := len(c.threads[session].wb); n != 0 {
		t.Errorf("%d writes still buffered", n)
	}
}
