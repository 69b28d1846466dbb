package karma

import (
	"strconv"
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	"github.com/causeway/causeway/topology"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// keyOn returns a key whose replica in ring is node.
func keyOn(t *testing.T, topo *topology.Topology, ring int, node protocol.NodeID) string {
	t.Helper()
	for i := range 10000 {
		k := "key" + strconv.Itoa(i)
		if replica(topo, ring, k) == node {
			return k
		}
	}
	t.Fatalf("no key on %s in ring %d", node, ring)
	return ""
}

// TestCrashedServerDivertsOnlyItsKeys: a CC of DC a (local3: ring 0 is
// {a, b}, 40 ms to b; ring 1 is {c}, 120 ms) reads a key of b/s1 while
// b/s1 is down (0–2 s): its reads move to c. Then it reads a key of b/s0,
// which is up: that read goes to b, its nearest replica, not to c. Then
// (from 3 s) the key of b/s1 again, restarted meanwhile: back to b/s1.
// Before the fix a timeout doubled the estimate of all of DC b, so the
// read of b/s0's key went to c as well, and so did b/s1's after its
// restart until probes halved the estimate back.
func TestCrashedServerDivertsOnlyItsKeys(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "karma-nc"}, Options{})
	k1, k0 := keyOn(t, h.topo, 0, "b/s1"), keyOn(t, h.topo, 0, "b/s0")
	n := &ccNet{h: h, rtt: func(dc string, _ time.Duration) time.Duration { return h.topo.RTT("a", dc) },
		keyAt: func(now time.Duration) string {
			if now >= 2*time.Second && now < 3*time.Second {
				return k0
			}
			return k1
		},
		down: func(to protocol.NodeID, at time.Duration) bool { return to == "b/s1" && at < 2*time.Second }}
	n.run(5 * time.Second)
	if at, ok := n.firstReadTo("c", 0); !ok || at > time.Second {
		t.Fatalf("reads of b/s1's key did not move to c while b/s1 was down (first read to c at %v, %v)", at, ok)
	}
	for _, rd := range n.reads {
		if rd.at >= 2*time.Second+60*time.Millisecond && rd.at < 3*time.Second && rd.dc != "b" {
			t.Errorf("read of b/s0's key at %v went to %s, want b (40 ms away; only b/s1 was down)", rd.at, rd.to)
		}
	}
	back := time.Duration(-1)
	for _, rd := range n.reads {
		if rd.at >= 3*time.Second && rd.to == "b/s1" {
			back = rd.at
			break
		}
	}
	if back < 0 || back > 3*time.Second+100*time.Millisecond {
		t.Errorf("reads of b/s1's key did not return to b/s1 after its restart (first at %v)", back)
	}
}

// TestBoundGetAsksItsRingAtItsRoundTrip: a thread restricted to ring 1
// ({c}, 120 ms from a) reads while c does not answer (0–8 s). Its get is
// sent again every readWait (4 round trips and 200 ms, 680 ms), so it is
// answered within about one readWait of c coming back. Before the fix each
// timeout doubled the estimate of c, and with it the wait: the get was
// asked again seconds after c was back.
func TestBoundGetAsksItsRingAtItsRoundTrip(t *testing.T) {
	h := newCCHarness(t, Mode{Name: "karma-nc"}, Options{})
	const heal = 8 * time.Second
	key := keyOn(t, h.topo, 1, "c/s0")
	th := h.c.thread("a/alice")
	th.drrRing = 1
	th.drr["other@1"] = &pb.Dep{Key: "other", Version: 1}
	n := &ccNet{h: h, key: key, rtt: func(dc string, _ time.Duration) time.Duration { return h.topo.RTT("a", dc) },
		down: func(to protocol.NodeID, at time.Duration) bool { return to.DC() == "c" && at < heal }}
	n.run(heal + 5*time.Second)
	if len(n.replies) == 0 {
		t.Fatal("the bound get was never answered")
	}
	wait := 4*h.topo.RTT("a", "c") + 200*time.Millisecond
	if limit := heal + wait + h.topo.RTT("a", "c"); n.replies[0] > limit {
		t.Errorf("bound get answered at %v, %v after c came back; want by %v", n.replies[0], n.replies[0]-heal, limit)
	}
	for _, rd := range n.reads {
		if rd.dc != "c" {
			t.Fatalf("a restricted thread read from %s", rd.dc)
		}
	}
}

// TestNearestRingIsTheNearestReplica: from us-west1 (karma-aws8), a key
// whose ring-0 replica is in europe (175 ms) and ring-1 replica in tokyo
// (143 ms) is read from tokyo; once tokyo's server is penalized for an
// unanswered read, from europe; and back from tokyo once that server is
// heard from again.
func TestNearestRingIsTheNearestReplica(t *testing.T) {
	topo, err := topology.Lookup("karma-aws8")
	if err != nil {
		t.Fatal(err)
	}
	c := newCoordinator(New(Mode{Name: "karma-nc"}, Options{}), protocol.NodeConfig{ID: "us-west1/cc0", Role: protocol.RoleCoordinator, Incarnation: 1, Topology: topo})
	key := ""
	for i := range 100000 {
		k := "key" + strconv.Itoa(i)
		if d0, _ := topo.RingReplica(0, k); d0 == "europe" {
			if d1, _ := topo.RingReplica(1, k); d1 == "tokyo" {
				key = k
				break
			}
		}
	}
	if key == "" {
		t.Fatal("no key in europe and tokyo")
	}
	if ring := c.nearestRing(key); ring != 1 {
		t.Fatalf("nearest ring of %s from us-west1: %d, want 1 (tokyo, 143 ms; europe is 175 ms)", key, ring)
	}
	c.unanswered(0, replica(topo, 1, key))
	if ring := c.nearestRing(key); ring != 0 {
		t.Errorf("with tokyo's server penalized: ring %d, want 0 (europe)", ring)
	}
	c.heard(replica(topo, 1, key))
	if ring := c.nearestRing(key); ring != 1 {
		t.Errorf("tokyo's server heard from again: ring %d, want 1", ring)
	}
}
