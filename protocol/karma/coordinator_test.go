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
	puts := map[string]*pb.RingPut{}
	for i, k := range []string{"k1", "k2"} {
		for _, m := range step(&pb.ClientPut{ReqId: uint64(i + 1), Session: session, Key: k, Value: []byte("v")}) {
			if rp, ok := m.Body.(*pb.RingPut); ok {
				puts[rp.Key] = rp
			}
		}
	}
	ack := func(k string, ring int) *pb.RingPutAck {
		return &pb.RingPutAck{Id: puts[k].Id, Ring: int32(ring), Key: k, Version: puts[k].Version}
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
		if got := stables(step(ack("k2", ring))); len(got) > 0 {
			t.Fatalf("k2 declared stable (%v) before k1 completed", got)
		}
	}
	var got []string
	for ring := range rings {
		got = append(got, stables(step(ack("k1", ring)))...)
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

// TestOwnBufferedWriteIsNoPutAfterDependency drives one CC: its thread
// reads its own write x1 back in flight from a ring (a restriction), then
// writes x2. x2 follows x1 by program order (a program-order dependency)
// and carries no put-after dependency on it, which would hold x2 in every
// ring until x1 is written there; x1's completion lifts the restriction.
func TestOwnBufferedWriteIsNoPutAfterDependency(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma-nc"}, Options{})
	c := newCoordinator(p, protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/alice"
	var x1 *pb.RingPut
	for _, m := range c.Step(0, protocol.Message{From: session, To: c.id, Body: &pb.ClientPut{ReqId: 1, Session: session, Key: "k1", Value: []byte("v")}}).After.Messages {
		if rp, ok := m.Body.(*pb.RingPut); ok {
			x1 = rp
		}
	}
	th := c.threads[session]
	dk := depKey("k1", x1.Version)
	th.drr[dk], th.drrRing = &pb.Dep{Key: "k1", Version: x1.Version}, 0
	var x2 *pb.RingPut
	for _, m := range c.Step(0, protocol.Message{From: session, To: c.id, Body: &pb.ClientPut{ReqId: 2, Session: session, Key: "k2", Value: []byte("w")}}).After.Messages {
		if rp, ok := m.Body.(*pb.RingPut); ok && rp.Key == "k2" {
			x2 = unpackAfter(rp)
		}
	}
	if len(x2.Deps) != 1 || !x2.Deps[0].ProgramOrder || x2.Deps[0].Version != x1.Version {
		t.Fatalf("x2's dependencies: %v, want x1 as its only (program-order) dependency", x2.Deps)
	}
	for ring := range topo.Rings() {
		c.Step(0, protocol.Message{From: "a/s0", To: c.id, Body: &pb.RingPutAck{Id: x1.Id, Ring: int32(ring), Key: "k1", Version: x1.Version}})
	}
	if len(th.drr) != 0 || th.drrRing != -1 {
		t.Errorf("x1 complete, but the thread keeps its restrictions %v on ring %d", th.drr, th.drrRing)
	}
}

// TestPipelineWindowBoundsABacklog drives one CC whose thread writes
// 3×pipelineWindow times while no ring acknowledges: each ring is sent
// the first pipelineWindow writes, the i-th naming its i earlier writes as
// program-order dependencies (the CC buffers none of them: a backlog of n
// writes would hold n² dependencies), and nothing more. One ring's
// acknowledgement of the oldest write lets that ring, and only it, take
// the next write, which names the pipelineWindow-1 writes still
// unacknowledged there.
func TestPipelineWindowBoundsABacklog(t *testing.T) {
	topo, err := topology.Lookup("local3")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Mode{Name: "karma"}, Options{})
	c := newCoordinator(p, protocol.NodeConfig{ID: "a/cc0", Topology: topo})
	const session = "a/alice"
	rings := len(topo.Rings())
	type sentPut struct {
		ring int
		put  *pb.RingPut
	}
	ringOf := func(m protocol.Message, key string) int {
		for ring := range rings {
			if replica(topo, ring, key) == m.To {
				return ring
			}
		}
		t.Fatalf("RingPut of %s to %s, no ring's replica", key, m.To)
		return -1
	}
	collect := func(out []protocol.Message) (puts []sentPut) {
		for _, m := range out {
			if rp, ok := m.Body.(*pb.RingPut); ok {
				puts = append(puts, sentPut{ringOf(m, rp.Key), rp})
			}
		}
		return puts
	}
	poDeps := func(rp *pb.RingPut) int {
		n := 0
		for _, d := range unpackAfter(rp).Deps {
			if d.ProgramOrder {
				n++
			}
		}
		return n
	}
	var first *pb.RingPut
	perRing := make([]int, rings)
	for i := range 3 * pipelineWindow {
		put := &pb.ClientPut{ReqId: uint64(i + 1), Session: session, Key: "k" + string(rune('a'+i%5)), Value: []byte("v")}
		for _, s := range collect(c.Step(0, protocol.Message{From: session, To: c.id, Body: put}).After.Messages) {
			if n := poDeps(s.put); n != perRing[s.ring] {
				t.Fatalf("write %d to ring %d names %d earlier writes, want %d", i, s.ring, n, perRing[s.ring])
			}
			perRing[s.ring]++
			if first == nil {
				first = s.put
			}
		}
		for _, e := range c.threads[session].wb {
			if poDeps(e.put) != 0 {
				t.Fatalf("buffered write %x holds program-order dependencies", e.put.Version)
			}
		}
	}
	for ring, n := range perRing {
		if n != pipelineWindow {
			t.Errorf("ring %d was sent %d writes, want the window's %d", ring, n, pipelineWindow)
		}
	}
	out := collect(c.Step(time.Millisecond, protocol.Message{From: "a/s0", To: c.id,
		Body: &pb.RingPutAck{Id: first.Id, Ring: 0, Key: first.Key, Version: first.Version}}).After.Messages)
	if len(out) != 1 || out[0].ring != 0 || poDeps(out[0].put) != pipelineWindow-1 {
		t.Fatalf("after ring 0 acknowledged the oldest write: sent %v, want one write to ring 0 naming %d earlier writes", out, pipelineWindow-1)
	}
}
