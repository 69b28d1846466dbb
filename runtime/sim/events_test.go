package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestEventQueuePopsInTimeThenSeqOrder pushes events in random order,
// many at equal times, popping some along the way, and checks that they
// leave in (at, seq) order.
func TestEventQueuePopsInTimeThenSeqOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var seq uint64
	var last *event
	popped := 0
	check := func() {
		e := q.pop()
		if last != nil && (e.at < last.at || e.at == last.at && e.seq < last.seq) {
			t.Fatalf("popped (%v, %d) after (%v, %d)", e.at, e.seq, last.at, last.seq)
		}
		last = e
		popped++
	}
	floor := time.Duration(0)
	for i := 0; i < 5000; i++ {
		seq++
		q.push(&event{at: floor + time.Duration(rng.IntN(50)), seq: seq})
		if rng.IntN(3) == 0 {
			check()
			floor = last.at // like the simulator, never schedule in the past
		}
	}
	for len(q) > 0 {
		check()
	}
	if popped != 5000 {
		t.Fatalf("popped %d events, pushed 5000", popped)
	}
}
