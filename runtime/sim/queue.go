package sim

import "github.com/causeway/causeway/protocol"

// serviceQueue holds the inputs a busy server node has not started yet, in
// two priority classes (protocol.Priority): a node serves every queued
// high-priority input before any low-priority one, and each class in
// arrival order. Service is not preempted: a low-priority input that has
// started finishes.
type serviceQueue struct {
	high, low fifo
}

// fifo is one class of a serviceQueue: q[head:] in arrival order. Its
// array is reused: emptied, it starts again at the front, and a popped
// prefix longer than what is left is dropped before it grows, so a node
// that is busy for a whole run does not allocate a new array each time
// the old one's end is reached (as re-slicing the front off did).
type fifo struct {
	q    []*event
	head int
}

// push appends e.
func (f *fifo) push(e *event) {
	if f.head == len(f.q) {
		f.q, f.head = f.q[:0], 0
	} else if len(f.q) == cap(f.q) && f.head >= len(f.q)/2 {
		n := copy(f.q, f.q[f.head:])
		clear(f.q[n:])
		f.q, f.head = f.q[:n], 0
	}
	f.q = append(f.q, e)
}

// pop removes and returns the first event; the fifo must not be empty.
func (f *fifo) pop() *event {
	e := f.q[f.head]
	f.q[f.head] = nil
	f.head++
	return e
}

// len is the number of events queued.
func (f *fifo) len() int { return len(f.q) - f.head }

// push queues e in class p.
func (q *serviceQueue) push(e *event, p protocol.Priority) {
	if p == protocol.PriorityLow {
		q.low.push(e)
		return
	}
	q.high.push(e)
}

// pop removes and returns the next input to serve, or nil.
func (q *serviceQueue) pop() *event {
	switch {
	case q.high.len() > 0:
		return q.high.pop()
	case q.low.len() > 0:
		return q.low.pop()
	}
	return nil
}

// len is the number of queued inputs.
func (q *serviceQueue) len() int { return q.high.len() + q.low.len() }

// reset drops every queued input (a crash).
func (q *serviceQueue) reset() { q.high, q.low = fifo{}, fifo{} }
