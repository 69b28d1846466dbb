package bench

import (
	"math"
	"testing"
	"time"

	"github.com/causeway/causeway/workload"
)

// oneKeyCOPS is COPS on local3 with every client on one key, half puts:
// one storage node per DC takes every write, and a write depends only on
// the key's earlier versions, which that node has, so COPS waits for no
// dependency check and its visibility is network plus the two nodes'
// sojourn.
func oneKeyCOPS(t *testing.T, clients int, service time.Duration) *Result {
	t.Helper()
	p, tp := lookupProto(t, "cops"), local3(t)
	w, err := workload.Lookup("cr-1obj-50-50")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSim(SimSpec{Protocol: p, Topology: tp, Workload: w, Seed: 1, Duration: 2 * time.Second,
		Clients: clients, ServiceTime: service, OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.VisibilityRatio == nil || res.VisibilityRatioQueued == nil || res.VisibilityBoundQueuedMs == nil || res.VisibilityBreakdownMs == nil {
		t.Fatalf("no visibility bounds: ratio %v, queued ratio %v, queued bound %v, breakdown %v",
			res.VisibilityRatio, res.VisibilityRatioQueued, res.VisibilityBoundQueuedMs, res.VisibilityBreakdownMs)
	}
	return res
}

// TestQueuedBoundSaturated: with its servers saturated, COPS is far from
// the queueing-free bound (its writes wait in the servers' queues) and
// near the bound that counts the measured sojourn, and the breakdown puts
// the difference in the queue.
func TestQueuedBoundSaturated(t *testing.T) {
	res := oneKeyCOPS(t, 60, time.Millisecond)
	free, queued := res.VisibilityRatio.P50, res.VisibilityRatioQueued.P50
	t.Logf("visibility/bound p50 %.3f, visibility/queued bound p50 %.3f, breakdown %+v %+v %+v %+v", free, queued,
		*res.VisibilityBreakdownMs.Network, *res.VisibilityBreakdownMs.Queue, *res.VisibilityBreakdownMs.Service, *res.VisibilityBreakdownMs.Protocol)
	if free < 2 {
		t.Errorf("visibility / queueing-free bound p50 = %.3f, want at least 2 (saturated servers)", free)
	}
	if queued < 0.9 || queued > 1.1 {
		t.Errorf("visibility / queued bound p50 = %.3f, want within 10%% of 1", queued)
	}
	b := res.VisibilityBreakdownMs
	if b.Queue.Mean < 10*b.Service.Mean {
		t.Errorf("breakdown: queue mean %.3f ms, want at least 10× the service mean %.3f ms", b.Queue.Mean, b.Service.Mean)
	}
	sum := b.Network.Mean + b.Queue.Mean + b.Service.Mean + b.Protocol.Mean
	if v := res.VisibilityFromIssueMs.Mean; math.Abs(sum-v) > 0.01*v {
		t.Errorf("breakdown means add up to %.3f ms, visibility from issue mean is %.3f ms", sum, v)
	}
}

// TestQueuedBoundUnsaturated: with idle servers the two bounds agree.
func TestQueuedBoundUnsaturated(t *testing.T) {
	res := oneKeyCOPS(t, 3, 100*time.Microsecond)
	free, queued := res.VisibilityBoundMs.P50, res.VisibilityBoundQueuedMs.P50
	t.Logf("bound p50 %.3f ms, queued bound p50 %.3f ms", free, queued)
	if math.Abs(queued-free) > 0.02*free {
		t.Errorf("queued bound p50 %.3f ms, queueing-free bound p50 %.3f ms: want within 2%%", queued, free)
	}
	if r, q := res.VisibilityRatio.P50, res.VisibilityRatioQueued.P50; math.Abs(r-q) > 0.02*r {
		t.Errorf("ratios p50 %.3f (queueing-free) and %.3f (queued): want within 2%%", r, q)
	}
}

// TestSojournAround: the window mean counts the inputs that arrived
// within sojournWindow of t, and an idle window serves at the mean.
func TestSojournAround(t *testing.T) {
	var s sojournSeries
	s.add(0, 0, time.Millisecond)
	s.add(time.Second, 30*time.Millisecond, 3*time.Millisecond)
	s.add(time.Second+sojournBucket, 10*time.Millisecond, 1*time.Millisecond)
	if w, sv := s.around(time.Second, 0); w != 20*time.Millisecond || sv != 2*time.Millisecond {
		t.Errorf("around 1s: wait %v service %v, want 20ms 2ms", w, sv)
	}
	if w, sv := s.around(500*time.Millisecond, 0); w != 0 || sv != 5*time.Millisecond/3 {
		t.Errorf("idle window: wait %v service %v, want 0 and the mean %v", w, sv, 5*time.Millisecond/3)
	}
	var empty *sojournSeries
	if w, sv := empty.around(0, 7*time.Millisecond); w != 0 || sv != 7*time.Millisecond {
		t.Errorf("no inputs: wait %v service %v, want 0 7ms", w, sv)
	}
}
