package karma

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
	pb "github.com/causeway/causeway/wire/karmapb"
)

// TestLostStableIsMadeUpByProbes drives a middle man whose write's STABLE
// never arrives (lost): the version stays in flight until
// stableProbeAfter, then the MM asks the key's replica in every other
// ring; once each answers that it has the version committed, the version
// is stable (a get says so) and the MM is quiescent. Without the probes
// the version would stay in flight until the key's next write.
func TestLostStableIsMadeUpByProbes(t *testing.T) {
	h := newMMHarness(t)
	h.put("k", "x", 5)
	tick := func(at time.Duration) []protocol.Message {
		t.Helper()
		h.now = at
		r := h.m.Tick(at, 0)
		if err := h.st.Apply(r.Persist.Writes, r.Persist.Sync); err != nil {
			t.Fatal(err)
		}
		return r.After.Messages
	}
	if rep := h.get("k", 0); !rep.InFlight {
		t.Fatal("a version without STABLE must read as in flight")
	}
	if out := tick(tickEvery); len(out) != 0 {
		t.Fatalf("probed before stableProbeAfter: %v", out)
	}
	out := tick(tickEvery + stableProbeAfter)
	want := map[protocol.NodeID]bool{}
	for ring := range h.cfg.Topology.Rings() {
		if ring != h.m.ring {
			want[replica(h.cfg.Topology, ring, "k")] = true
		}
	}
	if len(want) == 0 {
		t.Fatal("local3 needs more than one ring for this test")
	}
	for _, m := range out {
		if dc, ok := m.Body.(*pb.DepCheck); ok && dc.Dep.Key == "k" && dc.Dep.Version == 5<<ccBits && want[m.To] {
			delete(want, m.To)
		}
	}
	if len(want) > 0 {
		t.Fatalf("no probe sent to %v: %v", want, out)
	}
	var last protocol.NodeID
	for ring := range h.cfg.Topology.Rings() {
		if ring == h.m.ring {
			continue
		}
		if rep := h.get("k", 0); !rep.InFlight {
			t.Fatal("stable before every other ring answered")
		}
		last = replica(h.cfg.Topology, ring, "k")
		h.stepFrom(last, &pb.DepOK{Dep: &pb.Dep{Key: "k", Version: 5 << ccBits}})
	}
	if rep := h.get("k", 0); rep.InFlight {
		t.Fatal("still in flight after every ring answered the probe")
	}
	if err := h.m.CheckQuiescent(); err != nil {
		t.Fatalf("after the probes: %v", err)
	}
	if out := tick(tickEvery + 3*stableProbeAfter); len(out) != 0 {
		t.Errorf("probes sent after the version is stable: %v", out)
	}
}
