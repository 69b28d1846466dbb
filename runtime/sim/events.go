package sim

import "time"

// eventQueue is the simulator's pending events, a min-heap ordered by time
// and then by insertion (seq), so that equal-time events run in the order
// they were scheduled (keys are unique, so the order events leave in does
// not depend on the heap's shape). The queue is the simulator's hottest
// structure: it is 4-ary (half as deep as a binary heap, the four
// children adjacent in memory), and each entry carries its event's (at,
// seq) so that sifting compares without following pointers.
type eventQueue []queued

// arity is the number of children of a heap node.
const arity = 4

// queued is one entry of an eventQueue: e with a copy of its at and seq.
type queued struct {
	at  time.Duration
	seq uint64
	e   *event
}

// before reports whether a runs before b.
func before(a, b *queued) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// push adds e.
func (q *eventQueue) push(e *event) {
	x := queued{at: e.at, seq: e.seq, e: e}
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

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() *event {
	h := *q
	top := h[0].e
	n := len(h) - 1
	last := h[n]
	h[n] = queued{}
	h = h[:n]
	if n > 0 {
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
			if !before(&h[c], &last) {
				break
			}
			h[i] = h[c]
			i = c
		}
		h[i] = last
	}
	*q = h
	return top
}
