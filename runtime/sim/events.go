package sim

import "time"

// eventQueue is the simulator's pending events, a binary min-heap ordered
// by time and then by insertion (seq), so that equal-time events run in
// the order they were scheduled. It is container/heap's algorithm with the
// comparison inlined, and each entry carries its event's (at, seq) so that
// sifting compares without following pointers: the queue is the
// simulator's hottest structure.
type eventQueue []queued

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
		p := (i - 1) / 2
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
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && before(&h[r], &h[c]) {
				c = r
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
