package sim

import "github.com/causeway/causeway/protocol"

// serviceQueue holds the inputs a busy server node has not started yet, in
// two priority classes (protocol.Priority): a node serves every queued
// high-priority input before any low-priority one, and each class in
// arrival order. Service is not preempted: a low-priority input that has
// started finishes.
type serviceQueue struct {
	high, low []*event
}

// push queues e in class p.
func (q *serviceQueue) push(e *event, p protocol.Priority) {
	if p == protocol.PriorityLow {
		q.low = append(q.low, e)
		return
	}
	q.high = append(q.high, e)
}

// pop removes and returns the next input to serve, or nil.
func (q *serviceQueue) pop() *event {
	for _, c := range []*[]*event{&q.high, &q.low} {
		if len(*c) > 0 {
			e := (*c)[0]
			(*c)[0] = nil
			*c = (*c)[1:]
			return e
		}
	}
	return nil
}

// len is the number of queued inputs.
func (q *serviceQueue) len() int { return len(q.high) + len(q.low) }

// reset drops every queued input (a crash).
func (q *serviceQueue) reset() { q.high, q.low = nil, nil }
