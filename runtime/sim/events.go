package sim

import "time"

// eventQueue is the simulator's pending events, ordered by time and then
// by insertion (seq), so that equal-time events run in the order they
// were scheduled (keys are unique, so the order events leave in does not
// depend on how the queue stores them).
//
// Most events are scheduled a fixed delay after the current time: a
// session's operation timeout (seconds ahead, one per operation, so a busy
// run holds hundreds of thousands of them), a protocol's periodic timer, a
// message inside a DC, a node's outputs after its service time. Events
// pushed with the same delay come due in the order they were pushed, since
// the clock never goes back; so each such delay has a lane, a FIFO, and
// only the first event of each lane is in a small heap of lane heads (a
// k-way merge, a few dozen entries at most). The events of no lane
// (messages between DCs, with their jitter) are in a second heap, a few
// thousand entries, instead of one heap of every event and every timeout
// (a hundred thousand in a busy run). pop takes the earlier of the two
// heaps' tops.
type eventQueue struct {
	h     heap     // events of no lane
	heads headHeap // each lane that has events, by its first one
	lanes map[time.Duration]*lane
	// cache holds recently used lanes by a hash of their delay, so that
	// most pushAfter calls (a few delays recur: the service time, the
	// delay inside a DC, the operation timeout) skip the map.
	cache [laneCache]laneRef
	n     int
}

// laneRef is a lane and its delay.
type laneRef struct {
	delay time.Duration
	l     *lane
}

// laneCache is the number of eventQueue.cache slots (a power of two).
const laneCache = 8

// lane is a FIFO of events whose (at, seq) only grow; q[head] is the one
// its entry in heads stands for.
type lane struct {
	q    []queued
	head int
}

// maxLanes bounds the lanes (a cost model that prices inputs by bytes
// gives many distinct delays); an event of a delay without a lane goes
// to the heap.
const maxLanes = 64

// len is the number of events queued.
func (q *eventQueue) len() int { return q.n }

// push adds e, its sequence number seq.
func (q *eventQueue) push(e *event, seq uint64) {
	q.n++
	q.h.push(queued{at: e.at, seq: seq, e: e})
}

// laneOf returns the lane of delay, made if there is room (nil if not).
func (q *eventQueue) laneOf(delay time.Duration) *lane {
	slot := &q.cache[uint64(delay)*0x9e3779b97f4a7c15>>61] // 8 slots: the top 3 bits
	if slot.l != nil && slot.delay == delay {
		return slot.l
	}
	l := q.lanes[delay]
	if l == nil {
		if q.lanes == nil {
			q.lanes = map[time.Duration]*lane{}
		}
		if len(q.lanes) >= maxLanes {
			return nil
		}
		l = &lane{}
		q.lanes[delay] = l
	}
	*slot = laneRef{delay, l}
	return l
}

// pushAfter adds e, its sequence number seq, scheduled delay after the
// current time: to the lane of delay.
func (q *eventQueue) pushAfter(e *event, seq uint64, delay time.Duration) {
	l := q.laneOf(delay)
	if l == nil {
		q.push(e, seq)
		return
	}
	x := queued{at: e.at, seq: seq, e: e}
	if l.head == len(l.q) {
		l.q, l.head = l.q[:0], 0
		l.q = append(l.q, x)
		q.n++
		q.heads.push(laneHead{at: x.at, seq: x.seq, l: l})
		return
	}
	if tail := &l.q[len(l.q)-1]; !before(tail.at, tail.seq, x.at, x.seq) {
		q.push(e, seq) // not after the lane's last event: the clock went back
		return
	}
	if l.head >= 1024 && 2*l.head >= len(l.q) {
		// Compact: drop the popped prefix (heads holds a copy of the
		// head's (at, seq), not its index).
		k := copy(l.q, l.q[l.head:])
		clear(l.q[k:])
		l.q, l.head = l.q[:k], 0
	}
	l.q = append(l.q, x)
	q.n++
}

// next returns the time of the earliest event; ok is false when the
// queue is empty.
func (q *eventQueue) next() (at time.Duration, ok bool) {
	switch {
	case len(q.heads) == 0 && len(q.h) == 0:
		return 0, false
	case len(q.heads) == 0:
		return q.h[0].at, true
	case len(q.h) == 0:
		return q.heads[0].at, true
	}
	return min(q.h[0].at, q.heads[0].at), true
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() *event {
	q.n--
	if len(q.heads) == 0 || len(q.h) > 0 && before(q.h[0].at, q.h[0].seq, q.heads[0].at, q.heads[0].seq) {
		return q.h.pop().e
	}
	l := q.heads[0].l
	e := l.q[l.head].e
	l.q[l.head] = queued{}
	l.head++
	if l.head < len(l.q) {
		x := &l.q[l.head]
		q.heads.replaceTop(laneHead{at: x.at, seq: x.seq, l: l})
	} else {
		q.heads.pop()
	}
	return e
}

// heap is a min-heap of queued entries in (at, seq) order: 4-ary (half
// as deep as a binary heap, the four children adjacent in memory), each
// entry carrying its event's (at, seq) so that sifting compares without
// following pointers. headHeap is the same over lanes.
type heap []queued

// headHeap is a heap of lanes by their first event.
type headHeap []laneHead

// arity is the number of children of a heap node.
const arity = 4

// queued is one entry of a heap or a lane: e with a copy of its at and
// seq (24 bytes).
type queued struct {
	at  time.Duration
	seq uint64
	e   *event
}

// laneHead is one entry of a headHeap: lane l, whose first event is due
// at (at, seq).
type laneHead struct {
	at  time.Duration
	seq uint64
	l   *lane
}

// before reports whether (at1, seq1) runs before (at2, seq2).
func before(at1 time.Duration, seq1 uint64, at2 time.Duration, seq2 uint64) bool {
	if at1 != at2 {
		return at1 < at2
	}
	return seq1 < seq2
}

// push adds x.
func (q *heap) push(x queued) {
	h := append(*q, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !before(x.at, x.seq, h[p].at, h[p].seq) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	*q = h
}

// pop removes and returns the earliest entry; the heap must not be empty.
func (q *heap) pop() queued {
	h := *q
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h[n] = queued{}
	h = h[:n]
	if n > 0 {
		h.siftDown(last)
	}
	*q = h
	return top
}

// siftDown puts x at the root's place and moves it down to where it
// belongs.
func (q *heap) siftDown(x queued) {
	h := *q
	n := len(h)
	i := 0
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		for r, end := c+1, min(c+arity, n); r < end; r++ {
			if before(h[r].at, h[r].seq, h[c].at, h[c].seq) {
				c = r
			}
		}
		if !before(h[c].at, h[c].seq, x.at, x.seq) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// push adds x (heap.push over lanes).
func (q *headHeap) push(x laneHead) {
	h := append(*q, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !before(x.at, x.seq, h[p].at, h[p].seq) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	*q = h
}

// pop removes the earliest entry; the heap must not be empty.
func (q *headHeap) pop() {
	h := *q
	n := len(h) - 1
	last := h[n]
	h[n] = laneHead{}
	h = h[:n]
	if n > 0 {
		h.replaceTop(last)
	}
	*q = h
}

// replaceTop replaces the earliest entry with x and moves it down to
// where it belongs (heap.siftDown over lanes); the heap must not be
// empty.
func (q *headHeap) replaceTop(x laneHead) {
	h := *q
	n := len(h)
	i := 0
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		for r, end := c+1, min(c+arity, n); r < end; r++ {
			if before(h[r].at, h[r].seq, h[c].at, h[c].seq) {
				c = r
			}
		}
		if !before(h[c].at, h[c].seq, x.at, x.seq) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}
