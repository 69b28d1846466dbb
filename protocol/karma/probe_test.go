package karma

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// ccNet runs one client coordinator in virtual time as a runtime would:
// it fires the CC's timers, and answers the CC's ring reads and probes
// from the DC they went to, one round trip rtt(dc, sent) later. A single
// client thread reads one key in a closed loop.
type ccNet struct {
	h      *ccHarness
	rtt    func(dc string, sent time.Duration) time.Duration
	queue  []ccEvent
	seq    int
	key    string
	reads  []ringRead // every ring read the CC sent
	probes int
	// keyAt, when set, is the key the thread reads at a time (else key);
	// down, when set, says a node is down when a message reaches it
	// (it is lost); replies are when the thread's gets were answered.
	keyAt   func(now time.Duration) string
	down    func(to protocol.NodeID, at time.Duration) bool
	replies []time.Duration
}

type ccEvent struct {
	at    time.Duration
	seq   int
	from  protocol.NodeID
	body  *pb.RingGetReply
	probe *pb.ProbeResp
	timer bool
	token uint64
	get   bool // the client thread's next get
}

type ringRead struct {
	at time.Duration
	dc string
	to protocol.NodeID
}

func (n *ccNet) push(e ccEvent) {
	n.seq++
	e.seq = n.seq
	n.queue = append(n.queue, e)
}

// handle carries out what the CC asked for.
func (n *ccNet) handle(r protocol.Ready) {
	h := n.h
	h.apply(protocol.Ready{Persist: r.Persist})
	for _, tm := range r.After.Timers {
		n.push(ccEvent{at: h.now + tm.After, timer: true, token: tm.Token})
	}
	for _, m := range r.After.Messages {
		dc := m.To.DC()
		arrives := h.now + n.rtt(dc, h.now)/2
		lost := n.down != nil && n.down(m.To, arrives)
		switch b := m.Body.(type) {
		case *pb.RingGet:
			n.reads = append(n.reads, ringRead{at: h.now, dc: dc, to: m.To})
			if lost {
				continue
			}
			n.push(ccEvent{at: h.now + n.rtt(dc, h.now), from: m.To,
				body: &pb.RingGetReply{ReqId: b.ReqId, Key: b.Key, Ring: int32(h.topo.RingOf(dc))}})
		case *pb.ProbeReq:
			n.probes++
			if lost {
				continue
			}
			n.push(ccEvent{at: h.now + n.rtt(dc, h.now), from: m.To, probe: &pb.ProbeResp{Id: b.Id}})
		case *pb.ClientReply:
			n.replies = append(n.replies, h.now)
			n.push(ccEvent{at: h.now + 50*time.Millisecond, get: true})
		}
	}
}

// run processes events until virtual time end.
func (n *ccNet) run(end time.Duration) {
	const alice = "a/alice"
	n.push(ccEvent{at: n.h.now, get: true})
	for len(n.queue) > 0 {
		i := 0
		for j, e := range n.queue {
			if e.at < n.queue[i].at || e.at == n.queue[i].at && e.seq < n.queue[i].seq {
				i = j
			}
		}
		e := n.queue[i]
		n.queue = append(n.queue[:i], n.queue[i+1:]...)
		if e.at > end {
			return
		}
		n.h.now = e.at
		c := n.h.c
		switch {
		case e.timer:
			n.handle(c.Tick(e.at, e.token))
		case e.get:
			key := n.key
			if n.keyAt != nil {
				key = n.keyAt(e.at)
			}
			n.handle(c.Step(e.at, protocol.Message{From: alice, To: c.id, Body: &pb.ClientGet{ReqId: uint64(e.seq), Session: alice, Key: key}}))
		case e.body != nil:
			n.handle(c.Step(e.at, protocol.Message{From: e.from, To: c.id, Body: e.body}))
		case e.probe != nil:
			n.handle(c.Step(e.at, protocol.Message{From: e.from, To: c.id, Body: e.probe}))
		}
	}
}

// firstReadTo is the time of the first ring read to dc at or after from.
func (n *ccNet) firstReadTo(dc string, from time.Duration) (time.Duration, bool) {
	for _, rd := range n.reads {
		if rd.at >= from && rd.dc == dc {
			return rd.at, true
		}
	}
	return 0, false
}

// congestion runs a CC of DC a of local3 reading a key whose replicas are
// in b (ring [a, b], 40 ms away) and c (ring [c], 120 ms away) while b is
// congested (§6.2: 1200 ms added to its round trips) from 0 to healAt,
// then for a minute after.
func congestion(t *testing.T, opts Options, healAt time.Duration) *ccNet {
	h := newCCHarness(t, Mode{Name: "karma-nc"}, opts)
	n := &ccNet{h: h, key: keyInRing0At(t, h.topo, "b"), rtt: func(dc string, sent time.Duration) time.Duration {
		d := h.topo.RTT("a", dc)
		if dc == "b" && sent < healAt {
			d += 1200 * time.Millisecond
		}
		return d
	}}
	n.run(healAt + time.Minute)
	return n
}

// TestProbeReturnsReadsToTheNearerRingAfterCongestion: b is congested
// long enough for the CC to move its reads to c; once the congestion ends,
// the probes of b (§6.2's background monitor) bring the reads back to b
// within a few probe periods. With the probes off, no read ever tells the
// CC that b healed, and it keeps reading from c.
func TestProbeReturnsReadsToTheNearerRingAfterCongestion(t *testing.T) {
	const healAt = 20 * time.Second
	for _, probes := range []bool{true, false} {
		opts := Options{}
		if !probes {
			opts.ProbeEvery = -1
		}
		n := congestion(t, opts, healAt)
		if at, ok := n.firstReadTo("c", 0); !ok || at > 5*time.Second {
			t.Fatalf("probes %v: reads did not move to c during b's congestion (first read to c at %v, %v)", probes, at, ok)
		}
		if at, ok := n.firstReadTo("b", 5*time.Second); ok && at < healAt {
			t.Errorf("probes %v: a read went back to congested b at %v", probes, at)
		}
		back, ok := n.firstReadTo("b", healAt)
		switch bound := 10 * n.h.p.opts.ProbeEvery; {
		case probes && (!ok || back > healAt+bound):
			t.Errorf("with probes, reads did not return to b within %v of the heal (first read there at %v, %v)", bound, back, ok)
		case probes:
			t.Logf("with probes (%d sent), reads returned to b %v after the heal", n.probes, back-healAt)
		case ok:
			t.Errorf("without probes, reads returned to b %v after the heal: the test cannot tell the probes' effect", back-healAt)
		case n.probes > 0:
			t.Errorf("%d probes sent with the probes off", n.probes)
		}
	}
}

// TestNoProbesWhenNoDCIsSuspect: a CC whose reads find every DC as fast
// as the topology says sends no probe at all.
func TestNoProbesWhenNoDCIsSuspect(t *testing.T) {
	n := congestion(t, Options{}, 0)
	if n.probes > 0 {
		t.Errorf("%d probes sent although no DC was ever slow", n.probes)
	}
}
