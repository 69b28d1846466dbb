package karma

import (
	"testing"
	"time"

	"github.com/causeway/causeway/protocol"
)

// TestPushStateForgetsAfterHorizon: a proxy's pushed facts and unanswered
// asks are a cache bounded by pushHorizon, not by how long the MM runs.
func TestPushStateForgetsAfterHorizon(t *testing.T) {
	p := newPushState()
	fact := func(at time.Duration, v uint64) {
		p.peerReady[v], p.peerInstalled[v] = 1, true
		p.log = append(p.log, pushedFact{at: at, version: v})
	}
	ask := func(at time.Duration, v uint64) {
		p.waiters[v] = map[protocol.NodeID]askKind{"a/s0": askReady}
		p.waitLog = append(p.waitLog, pushedFact{at: at, version: v})
	}
	fact(0, 1)
	fact(time.Second, 2)
	ask(0, 3)
	ask(5*time.Second, 4)
	p.prune(pushHorizon) // nothing is older than the horizon yet
	if len(p.peerReady) != 2 || len(p.waiters) != 2 {
		t.Fatalf("at the horizon: %d facts, %d asks kept; want 2 and 2", len(p.peerReady), len(p.waiters))
	}
	p.prune(pushHorizon + 500*time.Millisecond)
	if _, ok := p.peerReady[1]; ok || len(p.peerReady) != 1 || len(p.peerInstalled) != 1 || len(p.log) != 1 {
		t.Errorf("half a second past the horizon: facts %v %v (log %v), want version 2's only", p.peerReady, p.peerInstalled, p.log)
	}
	if _, ok := p.waiters[3]; ok || len(p.waiters) != 1 || len(p.waitLog) != 1 {
		t.Errorf("half a second past the horizon: asks %v (log %v), want version 4's only", p.waiters, p.waitLog)
	}
	p.prune(time.Hour)
	if len(p.peerReady)+len(p.peerInstalled)+len(p.log)+len(p.waiters)+len(p.waitLog) != 0 {
		t.Errorf("an hour later something is kept: %+v", p)
	}
}
