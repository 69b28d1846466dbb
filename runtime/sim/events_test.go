package sim

import (
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/causeway/causeway/protocol"
)

// TestEventQueuePopsInTimeThenSeqOrder pushes events in random order,
// many at equal times, popping some along the way, and checks that they
// leave in (at, seq) order.
func TestEventQueuePopsInTimeThenSeqOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var seq uint64
	seqOf := map[*event]uint64{}
	var last *event
	popped := 0
	check := func() {
		e := q.pop()
		if last != nil && (e.at < last.at || e.at == last.at && seqOf[e] < seqOf[last]) {
			t.Fatalf("popped (%v, %d) after (%v, %d)", e.at, seqOf[e], last.at, seqOf[last])
		}
		last = e
		popped++
	}
	floor := time.Duration(0)
	for i := 0; i < 5000; i++ {
		seq++
		e := &event{at: floor + time.Duration(rng.IntN(50))}
		seqOf[e] = seq
		q.push(e, seq)
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
		want := ref.pop()
		if got := q.pop(); got != want.e {
			t.Fatalf("popped (%v), a heap pops (%v, %d)", got.at, want.at, want.seq)
		}
		now = want.at
	}
	delays := []time.Duration{0, 1, 100 * time.Microsecond, 250 * time.Microsecond, 5 * time.Second}
	for i := 0; i < 300000; i++ {
		seq++
		e := &event{}
		switch k := rng.IntN(10); {
		case k < 6:
			d := delays[rng.IntN(len(delays))]
			e.at = now + d
			q.pushAfter(e, seq, d)
		case k < 7:
			d := time.Duration(rng.IntN(200)) * time.Microsecond // many distinct delays
			e.at = now + d
			q.pushAfter(e, seq, d)
		case k < 8 && now > time.Millisecond:
			e.at = now - time.Duration(rng.IntN(int(time.Millisecond))) // behind its lane's tail
			q.pushAfter(e, seq, 100*time.Microsecond)
		default:
			e.at = now + time.Duration(rng.IntN(int(200*time.Millisecond)))
			q.push(e, seq)
		}
		ref.push(queued{at: e.at, seq: seq, e: e})
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

// TestServiceQueueOrder: a node's service queue gives its inputs back
// high priority first and each class in arrival order, against a
// reference of two plain slices, over random pushes and pops that empty
// it, refill it and let it grow past its array (reused and compacted).
func TestServiceQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	var q serviceQueue
	var high, low []*event
	for step := 0; step < 200000; step++ {
		burst := step/5000%2 == 0 // alternately fill up and drain
		if q.len() != len(high)+len(low) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(high)+len(low))
		}
		if (burst && rng.IntN(3) > 0) || (!burst && rng.IntN(3) == 0) {
			e := &event{token: uint64(step)}
			if rng.IntN(4) == 0 {
				q.push(e, protocol.PriorityLow)
				low = append(low, e)
			} else {
				q.push(e, protocol.PriorityHigh)
				high = append(high, e)
			}
			continue
		}
		var want *event
		switch {
		case len(high) > 0:
			want, high = high[0], high[1:]
		case len(low) > 0:
			want, low = low[0], low[1:]
		}
		if got := q.pop(); got != want {
			t.Fatalf("step %d: pop %v, want %v", step, got, want)
		}
	}
}

// TestEventSize: an event stays 80 bytes (its size class; the next is
// 96): a busy run holds one per outstanding operation timeout, a hundred
// thousand for seconds.
func TestEventSize(t *testing.T) {
	if n := unsafe.Sizeof(event{}); n != 80 {
		t.Errorf("event is %d bytes, want 80", n)
	}
}
