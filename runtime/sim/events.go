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
	h     heap // events of no lane
	heads heap // the first event of each lane that has one
	lanes map[time.Duration]*lane
	n     int
}

// lane is a FIFO of events whose (at, seq) only grow; q[head] is in the
// heap.
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

// push adds e.
func (q *eventQueue) push(e *event) {
	q.n++
	q.h.push(queued{at: e.at, seq: e.seq, e: e})
}

// pushAfter adds e, scheduled delay after the current time: to the lane
// of delay.
func (q *eventQueue) pushAfter(e *event, delay time.Duration) {
	l := q.lanes[delay]
	if l == nil {
		if q.lanes == nil {
			q.lanes = map[time.Duration]*lane{}
		}
		if len(q.lanes) >= maxLanes {
			q.push(e)
			return
		}
		l = &lane{}
		q.lanes[delay] = l
	}
	x := queued{at: e.at, seq: e.seq, e: e, lane: l}
	if l.head == len(l.q) {
		l.q, l.head = l.q[:0], 0
		l.q = append(l.q, x)
		q.n++
		q.heads.push(x)
		return
	}
	if tail := &l.q[len(l.q)-1]; !before(tail, &x) {
		q.push(e) // not after the lane's last event: the clock went back
		return
	}
	if l.head >= 1024 && 2*l.head >= len(l.q) {
		// Compact: drop the popped prefix (the heap holds a copy of the
		// head, not its index).
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
	if len(q.heads) == 0 || len(q.h) > 0 && before(&q.h[0], &q.heads[0]) {
		return q.h.pop().e
	}
	x := q.heads[0]
	l := x.lane
	l.q[l.head] = queued{}
	l.head++
	if l.head < len(l.q) {
		q.heads.replaceTop(l.q[l.head])
	} else {
		q.heads.pop()
	}
	return x.e
}

// heap is a min-heap of queued entries in (at, seq) order: 4-ary (half
// as deep as a binary heap, the four children adjacent in memory), each
// entry carrying its event's (at, seq) so that sifting compares without
// following pointers.
type heap []queued

// arity is the number of children of a heap node.
const arity = 4

// queued is one entry of an eventQueue: e with a copy of its at and seq,
// and its lane (nil: none).
type queued struct {
	at   time.Duration
	seq  uint64
	e    *event
	lane *lane
}

// before reports whether a runs before b.
func before(a, b *queued) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push adds x.
func (q *heap) push(x queued) {
	h := append(*q, x)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !before(&x, &h[p]) {
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

// replaceTop replaces the earliest entry with x; the heap must not be
// empty.
func (q *heap) replaceTop(x queued) { q.siftDown(x) }

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
			if before(&h[r], &h[c]) {
				c = r
			}
		}
		if !before(&h[c], &x) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}
