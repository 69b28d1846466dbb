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
	for q.len() > 0 {
		check()
	}
	if popped != 5000 {
		t.Fatalf("popped %d events, pushed 5000", popped)
	}
}

// TestEventQueueLanesMergeInOrder pushes events as the simulator does —
// most a fixed delay after the current time (a few delays, a long one
// whose lane never empties, more distinct delays than there are lanes),
// some at a random time (no lane), now and then one in a lane's past —
// popping along the way, and checks that the queue pops exactly what one
// (at, seq) heap pops.
func TestEventQueueLanesMergeInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q eventQueue
	var ref heap
	var seq uint64
	now := time.Duration(0)
	pop := func() {
		want := ref.pop().e
		if got := q.pop(); got != want {
			t.Fatalf("popped (%v, %d), a heap pops (%v, %d)", got.at, got.seq, want.at, want.seq)
		}
		now = want.at
	}
	delays := []time.Duration{0, 1, 100 * time.Microsecond, 250 * time.Microsecond, 5 * time.Second}
	for i := 0; i < 300000; i++ {
		seq++
		e := &event{seq: seq}
		switch k := rng.IntN(10); {
		case k < 6:
			d := delays[rng.IntN(len(delays))]
			e.at = now + d
			q.pushAfter(e, d)
		case k < 7:
			d := time.Duration(rng.IntN(200)) * time.Microsecond // many distinct delays
			e.at = now + d
			q.pushAfter(e, d)
		case k < 8 && now > time.Millisecond:
			e.at = now - time.Duration(rng.IntN(int(time.Millisecond))) // behind its lane's tail
			q.pushAfter(e, 100*time.Microsecond)
		default:
			e.at = now + time.Duration(rng.IntN(int(200*time.Millisecond)))
			q.push(e)
		}
		ref.push(queued{at: e.at, seq: e.seq, e: e})
		for rng.IntN(2) == 0 && len(ref) > 0 {
			pop()
		}
		if q.len() != len(ref) {
			t.Fatalf("len %d, the heap holds %d", q.len(), len(ref))
		}
	}
	if len(q.lanes) != maxLanes {
		t.Fatalf("%d lanes, want the %d allowed", len(q.lanes), maxLanes)
	}
	for len(ref) > 0 {
		pop()
	}
	if _, ok := q.next(); ok || q.len() != 0 {
		t.Fatal("the queue is not empty after every event was popped")
	}
}
